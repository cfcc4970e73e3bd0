//! `embedding_backlog` and `set_embeddings`: re-embedding a memory's records with another
//! model (the package's `reembed`). Both read or write every agent's records: they are the
//! memory owner's maintenance calls, not tools offered to a model.

use super::{embedding, in_range, model_name, text, MAX_REF};
use crate::api::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Records one `embedding_backlog` returns: by default, and at most.
pub const BACKLOG_LIMIT: (i64, i64) = (64, 500);

/// Items one `set_embeddings` call may hold.
pub const SET_EMBEDDINGS_MAX_ITEMS: usize = 500;

/// Lists the records not embedded with `model` — stored without a vector, or with a
/// vector of another model (or of none named) — with the text to embed (a memory's content,
/// an episode's summary): the first `limit`, memories before episodes, each by id, and how
/// many there are in all (on the first page). Every agent's records are read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct EmbeddingBacklogOptions {
    /// The model the records should be embedded with, 1–256 characters; omitted: a vector
    /// with no model named counts as embedded.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
    pub model: Option<String>,
    /// Only records after this one (`mem:<id>` or `ep:<id>`, in the order above): the last
    /// ref of the previous page. Omitted: from the first.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_REF)))]
    pub after: Option<String>,
    /// Most records returned, 1–500 (default 64).
    #[cfg_attr(test, schemars(range(min = 1, max = BACKLOG_LIMIT.1)))]
    pub limit: Option<i64>,
}

impl EmbeddingBacklogOptions {
    /// Checks the model's length, the cursor and the limit.
    pub fn validate(&self) -> Result<()> {
        model_name("model", self.model.as_deref())?;
        if let Some(after) = &self.after {
            record_ref("after", after)?;
        }
        in_range("limit", self.limit, 1, BACKLOG_LIMIT.1)
    }

    /// The limit applied.
    pub fn limit(&self) -> i64 {
        self.limit.unwrap_or(BACKLOG_LIMIT.0)
    }
}

/// A record to embed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct BacklogRecord {
    /// `mem:<id>` or `ep:<id>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The text to embed: a memory's content, an episode's summary.
    pub text: String,
}

/// The response of `embedding_backlog`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct EmbeddingBacklogResponse {
    /// The first records of the backlog.
    pub records: Vec<BacklogRecord>,
    /// Records in the backlog in all; counted only for a call without `after`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub total: Option<usize>,
}

/// Sets the embedding of records, and the model that made them, in one transaction,
/// keeping everything else (text, times, declarations): all items, or none when one is
/// malformed. A ref that names no record (deleted since it was listed) is skipped and
/// listed in `missing`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct SetEmbeddingsOptions {
    /// The model that made the embeddings, 1–256 characters; omitted: not named.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
    pub model: Option<String>,
    /// 1–500 records and their new embeddings.
    #[cfg_attr(test, schemars(length(min = 1, max = SET_EMBEDDINGS_MAX_ITEMS)))]
    pub items: Vec<EmbeddingItem>,
}

/// One record's new embedding.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct EmbeddingItem {
    /// `mem:<id>` or `ep:<id>`, at most 64 characters.
    #[serde(rename = "ref")]
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_REF)))]
    pub reference: String,
    /// 1–8192 finite numbers.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_DIMENSION)))]
    pub embedding: Vec<f32>,
}

impl SetEmbeddingsOptions {
    /// Checks the model, the number of items, and each item's ref and embedding.
    pub fn validate(&self) -> Result<()> {
        if self.items.is_empty() || self.items.len() > SET_EMBEDDINGS_MAX_ITEMS {
            return Err(Error::OutOfRange {
                field: "items".into(),
                range: format!("1–{SET_EMBEDDINGS_MAX_ITEMS} items"),
                got: self.items.len().to_string(),
            });
        }
        model_name("model", self.model.as_deref())?;
        for (i, item) in self.items.iter().enumerate() {
            record_ref(&format!("items[{i}].ref"), &item.reference)?;
            embedding(&format!("items[{i}].embedding"), Some(&item.embedding), None)?;
        }
        Ok(())
    }
}

/// A record's ref, `mem:<id>` or `ep:<id>`.
fn record_ref(field: &str, given: &str) -> Result<crate::api::refs::Ref> {
    text(field, given, MAX_REF)?;
    crate::api::refs::Ref::parse(given)
        .ok_or_else(|| Error::Invalid { field: field.into(), reason: format!("must be `mem:<id>` or `ep:<id>`, got {given:?}") })
}

/// The response of `set_embeddings`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct SetEmbeddingsResponse {
    /// Always true; a malformed call is an error.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// Records updated.
    pub updated: usize,
    /// Refs that named no record, as given.
    pub missing: Vec<String>,
}
