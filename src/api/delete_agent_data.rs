//! `delete_agent_data`: forgets an agent entirely.

use crate::api::error::Result;
use serde::{Deserialize, Serialize};

/// Deletes every memory, episode, entity (with its aliases and mentions) and relation of
/// one agent, in every project and channel. Other agents' data is untouched.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct DeleteAgentDataOptions {
    /// The agent whose data is deleted.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
    pub agent_id: String,
}

impl DeleteAgentDataOptions {
    /// Checks the agent: an empty one would name no one.
    pub fn validate(&self) -> Result<()> {
        super::id_text("agent_id", &self.agent_id)
    }
}

/// The response of `delete_agent_data`: how many rows of each kind went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct DeleteAgentDataResponse {
    /// Always true; an agent without data deletes nothing and says so with zeros.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// The agent.
    pub agent_id: String,
    /// Memories deleted.
    pub deleted_memories: i64,
    /// Episodes deleted.
    pub deleted_episodes: i64,
    /// Entities deleted (with their aliases and mentions).
    pub deleted_entities: i64,
    /// Relations deleted.
    pub deleted_relations: i64,
}
