//! `history`: an entity's timeline, every relation on it, current or closed (issue 39).

use super::{in_range, scoped_options, text, MAX_NAME};
use crate::api::error::Result;
use serde::Serialize;

/// Relations per page: by default, and at most.
pub const HISTORY_LIMIT: (i64, i64) = (50, 100);

scoped_options! {
    timeline,
    /// An entity's timeline: every relation between it and another entity, whether it holds
    /// now or was closed (with who closed it, when and why), in time order — by when it began
    /// to hold, or was declared when that is not known — then by id. Paged.
    pub struct HistoryOptions {
        /// A declared name or alias of the entity, at most 256 characters.
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_NAME)))]
        pub entity: String,
        /// Relations per page, 1–100 (default 50).
        #[cfg_attr(test, schemars(range(min = 1, max = HISTORY_LIMIT.1)))]
        pub limit: Option<i64>,
        /// Relations to skip.
        #[cfg_attr(test, schemars(range(min = 0)))]
        pub offset: Option<i64>,
    }
}

impl HistoryOptions {
    /// Checks the name and the page bounds.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        text("entity", &self.entity, MAX_NAME)?;
        in_range("limit", self.limit, 1, HISTORY_LIMIT.1)?;
        in_range("offset", self.offset, 0, i64::MAX)
    }

    /// The page size applied.
    pub fn limit(&self) -> i64 {
        self.limit.unwrap_or(HISTORY_LIMIT.0)
    }
}

/// The entity a timeline is of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct HistoryEntity {
    /// Its id.
    pub id: i64,
    /// Its canonical name.
    pub name: String,
}

/// One relation of a timeline: the relation as traverse returns it, and its ends' names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct HistoryRelation {
    /// The relation.
    #[serde(flatten)]
    #[cfg_attr(test, ts(flatten))]
    pub relation: super::TraverseRelation,
    /// The subject entity's name.
    pub subject_name: String,
    /// The object entity's name.
    pub object_name: String,
}

/// The response of `history`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct HistoryResponse {
    /// The entity the name resolves to (the first, by id, when it names one in several
    /// buckets the call reads: the timeline has the relations of each).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity: Option<HistoryEntity>,
    /// One page of relations, by when each began to hold (or was declared), then id.
    pub relations: Vec<HistoryRelation>,
    /// Relations on the entity in all.
    pub total: i64,
    /// The `offset` of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<i64>,
    /// `no_such_entity` when the name resolves to nothing the call can read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<super::TraverseReason>,
}
