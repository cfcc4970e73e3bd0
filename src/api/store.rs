//! `store`: one memory, and the declarations riding on it.

use super::{at_most_chars, nonempty, scoped_options, text, DeclareReport, Source};
use super::{MAX_CONTENT, MAX_METADATA};
use crate::api::error::Result;
use serde::Serialize;
use serde_json::{Map, Value};

/// Declares [`StoreOptions`] (a write's axes, then one memory's fields) and [`StoreItem`]
/// (the same fields: one memory of `store_many`, whose axes are the batch's), so a memory's
/// fields, their documentation and their schema limits are written once.
macro_rules! with_memory_fields {
    ($($fields:tt)*) => {
        scoped_options! {
            write,
            /// Stores a piece of text as a memory (its ref is `mem:<id>`), optionally declaring the
            /// entities it mentions and the relations it asserts, which traverse and reconstruct then
            /// follow. The memory is stored even when its associations are malformed: what was
            /// dropped is listed in the response.
            pub struct StoreOptions { $($fields)* }
        }

        /// One memory of `store_many`: what `store` takes but the agent and scope, which are the
        /// batch's.
        #[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
        pub struct StoreItem { $($fields)* }
    };
}

with_memory_fields! {
    /// The text to remember, at most 1048576 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_CONTENT)))]
    pub content: String,
    /// When it happened, ISO-8601 (an offset or `Z`); stored in UTC. Defaults to now.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
    pub timestamp: Option<String>,
    /// When it stops being true, ISO-8601; stored in UTC. From then on reads leave it out
    /// (an `as_of` before it still shows it) and `purge_expired` may delete it. Omitted: never.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
    pub expires_at: Option<String>,
    /// Who produced the text.
    pub source: Option<Source>,
    /// Any JSON object, kept with the memory and returned by get_contents; at most 65536
    /// characters written as JSON.
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub metadata: Option<Map<String, Value>>,
    /// The text's embedding, for vector retrieval: 1–8192 finite numbers.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_DIMENSION)))]
    #[cfg_attr(test, ts(optional, type = "Array<number> | Float32Array | Float64Array"))]
    pub embedding: Option<Vec<f32>>,
    /// The model that made `embedding` (for example `all-MiniLM-L6-v2`), 1–256 characters,
    /// stored with it: the vector arm compares vectors only with a query embedding of the
    /// same model. Omitted: not named, compared only with query embeddings whose model is
    /// not named either.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
    pub embedding_model: Option<String>,
    /// What the text mentions and asserts. Read leniently: a malformed item is listed in
    /// `associations.dropped` and skipped; it never blocks the store.
    #[cfg_attr(test, ts(as = "Option<super::Associations>"), schemars(with = "Option<super::Associations>"))]
    pub associations: Option<super::lenient::Lenient>,
}

impl StoreOptions {
    /// Checks what the type cannot: the scope, a non-empty content, the timestamp and expiry, the
    /// source, the metadata's size, the embedding; and every length.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        let embedding = (self.embedding.as_deref(), self.embedding_model.as_deref());
        memory_fields(
            "",
            &self.content,
            [self.timestamp.as_deref(), self.expires_at.as_deref()],
            self.source.as_ref(),
            self.metadata.as_ref(),
            embedding,
        )
    }
}

impl StoreItem {
    /// Checks the item as [`StoreOptions::validate`] checks a store's fields, naming them
    /// after `at` (`items[3].`).
    pub fn validate(&self, at: &str) -> Result<()> {
        let embedding = (self.embedding.as_deref(), self.embedding_model.as_deref());
        memory_fields(
            at,
            &self.content,
            [self.timestamp.as_deref(), self.expires_at.as_deref()],
            self.source.as_ref(),
            self.metadata.as_ref(),
            embedding,
        )
    }

    /// The `store` this item is, in `batch`'s agent and scope.
    pub fn store(&self, batch: &super::StoreManyOptions) -> StoreOptions {
        let StoreItem { content, timestamp, expires_at, source, metadata, embedding, embedding_model, associations } = self.clone();
        StoreOptions {
            agent_id: batch.agent_id.clone(),
            project_id: batch.project_id.clone(),
            channel: batch.channel.clone(),
            content,
            timestamp,
            expires_at,
            source,
            metadata,
            embedding,
            embedding_model,
            associations,
        }
    }
}

/// One memory's fields, each named after `at`.
fn memory_fields(
    at: &str,
    content: &str,
    [timestamp, expires_at]: [Option<&str>; 2],
    source: Option<&Source>,
    metadata: Option<&Map<String, Value>>,
    (embedding, model): (Option<&[f32]>, Option<&str>),
) -> Result<()> {
    let field = |name: &str| format!("{at}{name}");
    nonempty(&field("content"), content)?;
    text(&field("content"), content, MAX_CONTENT)?;
    super::timestamp(&field("timestamp"), timestamp)?;
    super::timestamp(&field("expires_at"), expires_at)?;
    if let Some(source) = source {
        source.validate(&field("source"))?;
    }
    if let Some(metadata) = metadata {
        let written = serde_json::to_string(metadata).expect("a JSON object serializes");
        at_most_chars(&field("metadata"), &written, MAX_METADATA)?;
    }
    super::embedding(&field("embedding"), embedding, model)
}

/// The response of `store`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct StoreResponse {
    /// Always true; a failed store is an error.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// `"stored"`.
    #[cfg_attr(test, ts(type = "\"stored\""), schemars(extend("const" = "stored")))]
    pub result: &'static str,
    /// The new memory's id (`mem:<id>`).
    pub id: i64,
    /// What the riding declaration did, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub associations: Option<DeclareReport>,
}
