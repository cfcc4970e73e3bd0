//! `update_memory`: corrects a memory in place, keeping its id, so the declarations that
//! rest on it (mentions, relations anchored on it) stay.

use super::{embedding, nonempty, timestamp, RecordId};
use crate::api::error::{Error, Result};
use crate::api::refs::Kind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Corrects one memory of the agent: its content, metadata, timestamp or expiry (at least one).
/// Its id stays, and so do the mentions and relations declared on it; lexical search
/// follows the new content at once. A new content drops a stored embedding unless a new
/// one is given, since the old vector described the old text.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct UpdateMemoryOptions {
    /// Whose memory this is.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
    pub agent_id: String,
    /// The memory's id, or its ref `mem:<id>` as recall, reconstruct and traverse return it.
    #[cfg_attr(test, schemars(schema_with = "super::memory_id_schema"), ts(type = "number | `mem:${number}`"))]
    pub memory_id: RecordId,
    /// The new text.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_CONTENT)))]
    pub content: Option<String>,
    /// The new metadata, replacing the old (any JSON object).
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub metadata: Option<Map<String, Value>>,
    /// The new time of the memory, ISO-8601; stored in UTC.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
    pub timestamp: Option<String>,
    /// When it stops being true, ISO-8601; stored in UTC. `""` clears it (never expires);
    /// omitted leaves it as it is.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
    pub expires_at: Option<String>,
    /// The new text's embedding.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_DIMENSION)))]
    #[cfg_attr(test, ts(optional, type = "Array<number> | Float32Array | Float64Array"))]
    pub embedding: Option<Vec<f32>>,
    /// The model that made `embedding` (for example `all-MiniLM-L6-v2`), 1–256 characters,
    /// stored with it: the vector arm compares vectors only with a query embedding of the
    /// same model. Omitted: not named, compared only with query embeddings whose model is
    /// not named either.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
    pub embedding_model: Option<String>,
}

impl UpdateMemoryOptions {
    /// The memory's id, checked.
    pub(crate) fn id(&self) -> Result<i64> {
        self.memory_id.of("memory_id", Kind::Mem)
    }

    /// Checks the id, that something changes, and each given field.
    pub fn validate(&self) -> Result<()> {
        super::id_text("agent_id", &self.agent_id)?;
        self.id()?;
        let given = [
            self.content.is_some(),
            self.metadata.is_some(),
            self.timestamp.is_some(),
            self.expires_at.is_some(),
            self.embedding.is_some(),
        ];
        if !given.contains(&true) {
            return Err(Error::MissingOneOf {
                field: "content".into(),
                among: "`content`, `metadata`, `timestamp`, `expires_at` or `embedding`",
            });
        }
        if let Some(content) = &self.content {
            nonempty("content", content)?;
            super::text("content", content, super::MAX_CONTENT)?;
        }
        if let Some(metadata) = &self.metadata {
            let written = serde_json::to_string(metadata).expect("a JSON object serializes");
            super::at_most_chars("metadata", &written, super::MAX_METADATA)?;
        }
        timestamp("timestamp", self.timestamp.as_deref())?;
        timestamp("expires_at", self.expires_at.as_deref().filter(|e| !e.is_empty()))?;
        embedding("embedding", self.embedding.as_deref(), self.embedding_model.as_deref())
    }
}

/// The response of `update_memory`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct UpdateMemoryResponse {
    /// Always true; updating nothing is an error.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// The id updated.
    pub updated_id: i64,
}
