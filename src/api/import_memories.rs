//! `import_memories`: a JSONL export (the reference's format, or ours) brought in.

use super::{text, Drops};
use crate::api::error::Result;
use serde::{Deserialize, Serialize};

/// Characters of an export `import_memories` takes: 256 Mi, a few hundred thousand
/// memories; the text and what it is parsed into are held in memory at once.
pub const MAX_EXPORT: usize = 256 << 20;

/// Imports an export of `export_memories` (or of the reference implementation's
/// `export_memories`, format `cpersona-export/1.x`): its memories, episodes, entities with
/// their aliases, mentions and relations, under new ids, in one transaction. A malformed
/// record stops the import and names its line (`lines[12].content`); nothing is written
/// then. A declaration that cannot be applied (a mention of a record the file does not
/// hold, say) is dropped and listed, as `store` drops malformed associations.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ImportMemoriesOptions {
    /// The export's text (JSONL), at most 268435456 characters.
    #[cfg_attr(test, schemars(length(min = 1, max = MAX_EXPORT)))]
    pub jsonl: String,
    /// Every record goes to this agent; omitted or `""`: each to the agent the file names.
    /// At most 256 characters.
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_ID)))]
    pub target_agent_id: Option<String>,
    /// Checks and counts without writing anything.
    pub dry_run: Option<bool>,
}

impl ImportMemoriesOptions {
    /// Checks the sizes; the records are checked line by line as they are read.
    pub fn validate(&self) -> Result<()> {
        text("jsonl", &self.jsonl, MAX_EXPORT)?;
        super::optional_text("target_agent_id", self.target_agent_id.as_deref(), crate::api::MAX_ID)
    }
}

/// The response of `import_memories`: what was brought in (or, dry, would be).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ImportMemoriesResponse {
    /// Always true; a refused import is an error and wrote nothing.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// True when nothing was written (`dry_run`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(test, ts(as = "Option<bool>"))]
    pub dry_run: bool,
    /// The file's format, from its header (`cpersona-export/1.1`).
    pub version: String,
    /// Memories imported.
    pub memories: i64,
    /// Episodes imported.
    pub episodes: i64,
    /// Entities declared (with their aliases).
    pub entities: i64,
    /// Mentions declared.
    pub mentions: i64,
    /// Relations declared.
    pub relations: i64,
    /// Predicates declared single-valued or multi-valued, when the file had some.
    #[serde(skip_serializing_if = "is_zero")]
    #[cfg_attr(test, ts(optional, as = "Option<i64>"))]
    pub predicates: i64,
    /// What was not applied, and why (`lines[7]`: a profile, which this memory does not keep).
    #[serde(flatten)]
    pub drops: Drops,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}
