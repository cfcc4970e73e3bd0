//! `get_contents`: full records for refs.

use super::{id_text, text, MAX_REF};
use crate::api::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Refs one `get_contents` call may name.
pub const GET_CONTENTS_MAX_REFS: usize = 20;

/// Fetches the full text of records by ref (`"mem:<id>"` or `"ep:<id>"`), as recall,
/// reconstruct and traverse return them. A ref that names no record of this agent comes
/// back in `missing`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct GetContentsOptions {
    /// Whose memory this is; another agent's refs come back in `missing`. At most 256
    /// characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
    pub agent_id: String,
    /// 1–20 refs, each at most 64 characters. A ref of another shape names no record and
    /// comes back in `missing`.
    #[cfg_attr(test, schemars(length(min = 1, max = GET_CONTENTS_MAX_REFS), inner(length(max = crate::api::MAX_REF))))]
    pub refs: Vec<String>,
    /// The instant to read at, ISO-8601, as the other reads take it: a record expired or
    /// invalidated by then comes back in `missing`. `"all"`: every record. Omitted: now.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)), ts(optional))]
    pub as_of: Option<String>,
}

impl GetContentsOptions {
    /// Checks the agent, the number of refs and each one's length.
    pub fn validate(&self) -> Result<()> {
        id_text("agent_id", &self.agent_id)?;
        super::as_of("as_of", self.as_of.as_deref())?;
        if self.refs.is_empty() || self.refs.len() > GET_CONTENTS_MAX_REFS {
            return Err(Error::OutOfRange {
                field: "refs".into(),
                range: format!("1–{GET_CONTENTS_MAX_REFS} refs"),
                got: self.refs.len().to_string(),
            });
        }
        for (i, r) in self.refs.iter().enumerate() {
            text(&format!("refs[{i}]"), r, MAX_REF)?;
        }
        Ok(())
    }

    /// The instant the read sees, given the clock's now (the option is checked first).
    pub fn as_of(&self, now_ms: i64) -> crate::base::as_of::AsOf {
        crate::base::as_of::AsOf::parse(self.as_of.as_deref(), now_ms).unwrap_or(crate::base::as_of::AsOf::All)
    }
}

/// One record of `get_contents`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ContentItem {
    /// `mem:<id>` or `ep:<id>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The full text (an episode's summary).
    pub content: String,
    /// Where it came from (an episode: `{type: "Episode", id: <its ref>, name: ""}`).
    #[cfg_attr(test, ts(as = "super::RecordSource"), schemars(with = "super::RecordSource"))]
    pub source: Value,
    /// When it happened.
    pub timestamp: String,
    /// When it stops holding.
    #[serde(flatten)]
    #[cfg_attr(test, ts(flatten))]
    pub end: RecordEnd,
    /// The caller's metadata, when the memory has some.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"), schemars(with = "Option<serde_json::Map<String, Value>>"))]
    pub metadata: Option<Value>,
}

/// When a record stops holding (SPEC §5): each field absent when not set, so a record
/// stored with no time reads as before. A read returns a record only while it holds at the
/// read's instant; these say when that ends, and, with an earlier `as_of` or `"all"`, why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct RecordEnd {
    /// When it expires (UTC), when it does.
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>"))]
    pub expires_at: String,
    /// When it was declared no longer true (UTC), when it was.
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>"))]
    pub invalid_at: String,
    /// Why it was, when it was.
    #[serde(skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>"))]
    pub invalid_reason: String,
}

/// The response of `get_contents`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct GetContentsResponse {
    /// The records found, in request order.
    pub items: Vec<ContentItem>,
    /// Refs that name nothing this agent has, or a record that did not hold at `as_of`
    /// (expired or invalidated by then), as given.
    pub missing: Vec<String>,
    /// `items.len()`.
    pub count: usize,
}
