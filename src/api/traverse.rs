//! `traverse`: an entity's neighbourhood (design §4).

use super::{in_range, optional_text, scoped_options, text, MAX_ID, MAX_NAME};
use crate::api::error::Result;
use serde::Serialize;

/// Traverse's hops: by default, and at most (design §4).
pub const TRAVERSE_HOPS: (i64, i64) = (1, 5);
/// Traverse's entity and per-entity ref bound: by default, and at most (design §4).
pub const TRAVERSE_LIMIT: (i64, i64) = (20, 100);

scoped_options! {
    read,
    /// Looks an entity up by any of its names (compared after Unicode normalization and case
    /// folding) and returns its neighbourhood: the entities reached through declared
    /// relations followed from either end up to `max_hops`, those relations, and the refs of
    /// the records that mention each entity.
    pub struct TraverseOptions {
        /// A declared name or alias of the entity, at most 256 characters (the longest a
        /// declaration accepts).
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_NAME)))]
        pub entity: String,
        /// Relations to follow, 0–5 (default 1); 0 returns the entity alone.
        #[cfg_attr(test, schemars(range(min = 0, max = TRAVERSE_HOPS.1)))]
        pub max_hops: Option<i64>,
        /// Entities returned, and refs listed per entity, 1–100 (default 20).
        #[cfg_attr(test, schemars(range(min = 1, max = TRAVERSE_LIMIT.1)))]
        pub limit: Option<i64>,
        /// Only records whose source id equals this are listed (episodes, which have no
        /// source, are then left out); omitted or `""`: no filter. At most 256 characters.
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_ID)))]
        pub source_id: Option<String>,
    }
}

impl TraverseOptions {
    /// Checks the bounds.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        text("entity", &self.entity, MAX_NAME)?;
        optional_text("source_id", self.source_id.as_deref(), MAX_ID)?;
        in_range("max_hops", self.max_hops, 0, TRAVERSE_HOPS.1)?;
        in_range("limit", self.limit, 1, TRAVERSE_LIMIT.1)
    }

    /// The hop bound applied.
    pub fn max_hops(&self) -> i64 {
        self.max_hops.unwrap_or(TRAVERSE_HOPS.0)
    }

    /// The limit applied.
    pub fn limit(&self) -> i64 {
        self.limit.unwrap_or(TRAVERSE_LIMIT.0)
    }

    /// The source filter, `""` for none.
    pub fn source_id(&self) -> &str {
        self.source_id.as_deref().unwrap_or_default()
    }
}

/// One entity of a traverse neighbourhood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct TraverseEntity {
    /// Its id.
    pub id: i64,
    /// Its canonical name.
    pub name: String,
    /// Relations between it and the nearest start.
    pub hops: i64,
    /// Its aliases as written, in normalized order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>"))]
    pub aliases: Vec<String>,
    /// Readable records that mention it, lowest id first, at most `limit`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>"))]
    pub mentions: Vec<String>,
    /// Readable mentioning records past `limit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mentions_omitted: Option<i64>,
}

/// One relation of a traverse neighbourhood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct TraverseRelation {
    /// Its id (what `retract` takes).
    pub id: i64,
    /// The subject entity's id.
    pub subject: i64,
    /// The predicate, normalized.
    pub predicate: String,
    /// The object entity's id.
    pub object: i64,
    /// Who declared it.
    #[cfg_attr(test, ts(as = "super::DeclaredBy"), schemars(with = "super::DeclaredBy"))]
    pub declared_by: String,
    /// When it was declared.
    pub declared_at: String,
    /// The record that evidences it, when there is one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub anchor_ref: String,
    /// When it held, and who closed it.
    #[serde(flatten)]
    pub validity: Validity,
}

/// When a relation holds, `[valid_from, valid_to)`, and who closed it, when and why: each
/// field absent when not set, so a relation declared with no time reads as before.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Validity {
    /// When it began to hold (absent: since always).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>"))]
    pub valid_from: String,
    /// When it stopped holding (absent: it still holds).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>"))]
    pub valid_to: String,
    /// Who closed it by an invalidation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<super::DeclaredBy>"), schemars(with = "Option<super::DeclaredBy>"))]
    pub closed_by: String,
    /// When it was closed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>"))]
    pub closed_at: String,
    /// Why it was closed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[cfg_attr(test, ts(as = "Option<String>"))]
    pub closed_reason: String,
}

/// What a bounded read cut.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Bounds {
    /// The bounds that cut something: `max_hops`, `limit`.
    #[cfg_attr(test, ts(type = r#"("max_hops" | "limit")[]"#), schemars(extend("items" = {"enum": ["max_hops", "limit"]})))]
    pub omitted: Vec<&'static str>,
    /// Relations around the neighbourhood left out because they did not hold at the read's
    /// instant (`as_of`, or now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_holding: Option<i64>,
}

/// Why a traverse returned no neighbourhood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub enum TraverseReason {
    /// The name resolves to no entity the call can read.
    NoSuchEntity,
}

/// The response of `traverse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct TraverseResponse {
    /// The entity as the caller wrote it.
    pub entity: String,
    /// The hop bound applied.
    pub max_hops: i64,
    /// The limit applied.
    pub limit: i64,
    /// The neighbourhood, by hops, then most recently declared reaching relation, then id.
    pub entities: Vec<TraverseEntity>,
    /// Relations whose both ends are returned, most recently declared first.
    pub relations: Vec<TraverseRelation>,
    /// Entities within the hop bound that `limit` cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entities_omitted: Option<i64>,
    /// Present when a bound cut something, or the read's instant left relations out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Bounds>,
    /// `no_such_entity` when the name resolves to nothing the call can read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<TraverseReason>,
}
