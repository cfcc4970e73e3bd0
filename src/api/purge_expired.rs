//! `purge_expired`: deletes an agent's expired records for good.

use crate::api::error::Result;
use serde::{Deserialize, Serialize};

/// Deletes the agent's memories and episodes whose `expires_at` has passed (at or before
/// the clock's now), in every project and channel, with every mention and relation that
/// depends on them. Reads already leave expired records out; this takes them away. A record
/// invalidated (rather than expired) stays: it is history, read with `as_of`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct PurgeExpiredOptions {
    /// The agent whose expired records are deleted.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
    pub agent_id: String,
}

impl PurgeExpiredOptions {
    /// Checks the agent: an empty one would name no one.
    pub fn validate(&self) -> Result<()> {
        super::id_text("agent_id", &self.agent_id)
    }
}

/// The response of `purge_expired`: how many rows of each kind went (zeros when nothing had
/// expired).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct PurgeExpiredResponse {
    /// Memories deleted.
    pub memories: i64,
    /// Episodes deleted.
    pub episodes: i64,
    /// Mentions of them deleted.
    pub mentions: i64,
    /// Relations deleted: those anchored on them, or with one of them as an end.
    pub relations: i64,
}
