//! `store`: one memory, and the declarations riding on it.

use super::{at_most_chars, embedding, nonempty, scoped_options, text, timestamp, DeclareReport, Source};
use super::{MAX_CONTENT, MAX_METADATA};
use crate::error::Result;
use serde::Serialize;
use serde_json::{Map, Value};

scoped_options! {
    write,
    /// Stores a piece of text as a memory (its ref is `mem:<id>`), optionally declaring the
    /// entities it mentions and the relations it asserts, which traverse and reconstruct then
    /// follow. The memory is stored even when its associations are malformed: what was
    /// dropped is listed in the response.
    pub struct StoreOptions {
        /// The text to remember, at most 1048576 characters.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_CONTENT)))]
        pub content: String,
        /// When it happened, ISO-8601 (an offset or `Z`); stored in UTC. Defaults to now.
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
        pub timestamp: Option<String>,
        /// Who produced the text.
        pub source: Option<Source>,
        /// Any JSON object, kept with the memory and returned by get_contents; at most 65536
        /// characters written as JSON.
        #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
        pub metadata: Option<Map<String, Value>>,
        /// The text's embedding, for vector retrieval: 1–8192 finite numbers.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_DIMENSION)))]
        pub embedding: Option<Vec<f32>>,
        /// What the text mentions and asserts. Read leniently: a malformed item is listed in
        /// `associations.dropped` and skipped; it never blocks the store.
        #[cfg_attr(test, ts(as = "Option<super::Associations>"), schemars(with = "Option<super::Associations>"))]
        pub associations: Option<Value>,
    }
}

impl StoreOptions {
    /// Checks what the type cannot: the scope, a non-empty content, the timestamp, the
    /// source, the metadata's size, the embedding; and every length.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        nonempty("content", &self.content)?;
        text("content", &self.content, MAX_CONTENT)?;
        timestamp("timestamp", self.timestamp.as_deref())?;
        if let Some(source) = &self.source {
            source.validate("source")?;
        }
        if let Some(metadata) = &self.metadata {
            let written = serde_json::to_string(metadata).expect("a JSON object serializes");
            at_most_chars("metadata", &written, MAX_METADATA)?;
        }
        embedding("embedding", self.embedding.as_deref())
    }
}

/// The response of `store`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct StoreResponse {
    /// Always true; a failed store is an error.
    #[cfg_attr(test, ts(type = "true"))]
    pub ok: bool,
    /// `"stored"`.
    #[cfg_attr(test, ts(type = "\"stored\""))]
    pub result: &'static str,
    /// The new memory's id (`mem:<id>`).
    pub id: i64,
    /// What the riding declaration did, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub associations: Option<DeclareReport>,
}
