//! `list_entities`: a page of an agent's entities, for the explorer.

use super::{in_range, optional_text, scoped_options, MAX_NAME};
use crate::api::error::Result;
use serde::Serialize;

/// Entities per page: by default, and at most.
pub const LIST_ENTITIES_LIMIT: (i64, i64) = (100, 500);

scoped_options! {
    read,
    /// A page of the agent's entities with alias, mention and relation counts, by normalized
    /// name then id.
    pub struct ListEntitiesOptions {
        /// Only entities whose normalized name or an alias contains this, normalized; at most
        /// 256 characters (the longest name a declaration accepts).
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_NAME)))]
        pub query: Option<String>,
        /// Entities to skip.
        #[cfg_attr(test, schemars(range(min = 0)))]
        pub offset: Option<i64>,
        /// Entities per page, 1–500 (default 100).
        #[cfg_attr(test, schemars(range(min = 1, max = LIST_ENTITIES_LIMIT.1)))]
        pub limit: Option<i64>,
    }
}

impl ListEntitiesOptions {
    /// Checks the page bounds.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        optional_text("query", self.query.as_deref(), MAX_NAME)?;
        in_range("offset", self.offset, 0, i64::MAX)?;
        in_range("limit", self.limit, 1, LIST_ENTITIES_LIMIT.1)
    }

    /// The page size applied.
    pub fn limit(&self) -> i64 {
        self.limit.unwrap_or(LIST_ENTITIES_LIMIT.0)
    }
}

/// One entity of `list_entities`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct ListedEntity {
    /// Its id.
    pub id: i64,
    /// Its canonical name.
    pub name: String,
    /// Its aliases as written, in normalized order.
    pub aliases: Vec<String>,
    /// How many records mention it (readable or not).
    pub mentions: i64,
    /// How many relations name it as subject or object and hold at the read's instant.
    pub relations: i64,
    /// Who registered it.
    #[cfg_attr(test, ts(as = "super::DeclaredBy"), schemars(with = "super::DeclaredBy"))]
    pub declared_by: String,
    /// When it was registered.
    pub created_at: String,
    /// Its project (`''`: global pool).
    pub project_id: String,
    /// Its channel (`''`: every channel).
    pub channel: String,
}

/// The response of `list_entities`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ListEntitiesResponse {
    /// One page, by normalized name then id.
    pub entities: Vec<ListedEntity>,
    /// Entities matching in all.
    pub total: i64,
    /// The `offset` of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<i64>,
    /// What the page's `relations` counts left out, summed over its entities: relations that
    /// did not hold at the read's instant (`as_of`, or now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_holding: Option<i64>,
}
