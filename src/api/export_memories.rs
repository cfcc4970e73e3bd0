//! `export_memories`: an agent's memory as portable JSONL, in the reference's export format.

use crate::api::error::Result;
use serde::{Deserialize, Serialize};

/// Exports every memory, episode, entity (with its aliases), mention and relation of one
/// agent, in every project and channel, as JSONL in the reference implementation's export
/// format (`cpersona-export/1.1`): a header line, then one JSON object per record. The
/// reference's `import_memories` reads it, and so does `import_memories` here.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct ExportMemoriesOptions {
    /// The agent whose memory is exported. At most 256 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
    pub agent_id: String,
}

impl ExportMemoriesOptions {
    /// Checks the agent.
    pub fn validate(&self) -> Result<()> {
        super::id_text("agent_id", &self.agent_id)
    }
}

/// The response of `export_memories`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct ExportMemoriesResponse {
    /// Always true.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// The export: one JSON object per line, the header first.
    pub jsonl: String,
    /// Memories exported.
    pub memories: i64,
    /// Episodes exported.
    pub episodes: i64,
    /// Entities exported (with their aliases).
    pub entities: i64,
    /// Mentions exported.
    pub mentions: i64,
    /// Relations exported.
    pub relations: i64,
    /// Predicates declared single-valued (or multi-valued again) exported, when there are.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(test, ts(optional, as = "Option<i64>"))]
    pub predicates: i64,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}
