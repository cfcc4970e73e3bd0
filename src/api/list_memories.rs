//! `list_memories`: a page of an agent's memories, newest first, for a dashboard or an
//! agent reviewing what it keeps.

use super::{in_range, scoped_options};
use crate::api::error::Result;
use serde::Serialize;
use serde_json::Value;

/// Memories per page: by default (the reference's default), and at most.
pub const LIST_MEMORIES_LIMIT: (i64, i64) = (100, 500);

scoped_options! {
    read,
    /// A page of the agent's memories, newest first (by timestamp, then id), with their
    /// content, source and metadata: what this agent knows, a page at a time.
    pub struct ListMemoriesOptions {
        /// Memories per page, 1–500 (default 100).
        #[cfg_attr(test, schemars(range(min = 1, max = LIST_MEMORIES_LIMIT.1)))]
        pub limit: Option<i64>,
        /// Memories to skip (the `next_offset` of the previous page).
        #[cfg_attr(test, schemars(range(min = 0)))]
        pub offset: Option<i64>,
        /// Characters of each content to return; a longer one is cut and marked `truncated`
        /// (get_contents reads it whole), 0 lists the metadata only. Omitted: all of it.
        #[cfg_attr(test, schemars(range(min = 0, max = crate::api::MAX_CONTENT)))]
        pub max_content: Option<i64>,
    }
}

impl ListMemoriesOptions {
    /// Checks the agent and the page bounds.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        in_range("offset", self.offset, 0, i64::MAX)?;
        in_range("max_content", self.max_content, 0, crate::api::MAX_CONTENT as i64)?;
        in_range("limit", self.limit, 1, LIST_MEMORIES_LIMIT.1)
    }

    /// The page size applied.
    pub fn limit(&self) -> i64 {
        self.limit.unwrap_or(LIST_MEMORIES_LIMIT.0)
    }
}

/// One memory of `list_memories`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ListedMemory {
    /// Its id (`mem:<id>`).
    pub id: i64,
    /// Its text, or its first `max_content` characters.
    pub content: String,
    /// True when `content` is cut to `max_content`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>"))]
    pub truncated: bool,
    /// When it happened (UTC).
    pub timestamp: String,
    /// When it was stored (UTC).
    pub created_at: String,
    /// Where it came from (`{type, id, name}`).
    #[cfg_attr(test, ts(as = "super::RecordSource"), schemars(with = "super::RecordSource"))]
    pub source: Value,
    /// The caller's metadata, when it has some.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"), schemars(with = "Option<serde_json::Map<String, Value>>"))]
    pub metadata: Option<Value>,
    /// Its project (`''`: global pool).
    pub project_id: String,
    /// Its channel (`''`: every channel).
    pub channel: String,
    /// When it stops holding.
    #[serde(flatten)]
    #[cfg_attr(test, ts(flatten))]
    pub end: super::RecordEnd,
}

/// The response of `list_memories`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ListMemoriesResponse {
    /// One page, newest first.
    pub memories: Vec<ListedMemory>,
    /// Memories on this page.
    pub count: i64,
    /// Memories the call can read in all (that hold at its instant).
    pub total: i64,
    /// The `offset` of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<i64>,
    /// Memories of the scope the read's instant left out: expired or invalidated by then
    /// (by now, without `as_of`); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(test, ts(as = "Option<i64>"))]
    pub not_holding: i64,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}
