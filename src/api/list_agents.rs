//! `list_agents`: the agents a memory holds, with their counts and no content: what a person
//! opening the memory picks an agent from.

use super::in_range;
use crate::api::error::Result;
use serde::{Deserialize, Serialize};

/// Agents per page: by default, and at most.
pub const LIST_AGENTS_LIMIT: (i64, i64) = (100, 1000);

/// A page of the agents that hold anything in the memory (a record, an entity or a
/// relation), by `agent_id` in byte order, each with how many of each it holds. Every
/// agent is listed: it is the memory owner's call, not a tool offered to a model.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ListAgentsOptions {
    /// Agents to skip.
    #[cfg_attr(test, schemars(range(min = 0)))]
    pub offset: Option<i64>,
    /// Agents per page, 1–1000 (default 100).
    #[cfg_attr(test, schemars(range(min = 1, max = LIST_AGENTS_LIMIT.1)))]
    pub limit: Option<i64>,
}

impl ListAgentsOptions {
    /// Checks the page bounds.
    pub fn validate(&self) -> Result<()> {
        in_range("offset", self.offset, 0, i64::MAX)?;
        in_range("limit", self.limit, 1, LIST_AGENTS_LIMIT.1)
    }

    /// The page size applied.
    pub fn limit(&self) -> i64 {
        self.limit.unwrap_or(LIST_AGENTS_LIMIT.0)
    }
}

/// One agent of `list_agents`, its counts over every project and channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct ListedAgent {
    /// Its id.
    pub agent_id: String,
    /// Memories it holds.
    pub memories: i64,
    /// Episodes it holds.
    pub episodes: i64,
    /// Entities it registered.
    pub entities: i64,
    /// Relations it declared.
    pub relations: i64,
}

/// The response of `list_agents`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ListAgentsResponse {
    /// One page, by `agent_id`.
    pub agents: Vec<ListedAgent>,
    /// Agents in all.
    pub total: i64,
    /// The `offset` of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<i64>,
}
