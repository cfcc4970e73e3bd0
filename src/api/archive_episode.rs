//! `archive_episode`: a summarized conversation, kept as one record.

use super::{embedding, nonempty, scoped_options, timestamp};
use crate::error::Result;
use serde::{Deserialize, Serialize};

scoped_options! {
    write,
    /// Archives an episode: a summarized conversation (its ref is `ep:<id>`), found by
    /// recall and reconstruct through its summary and keywords.
    pub struct EpisodeOptions {
        /// What the episode was about.
        pub summary: String,
        /// Search keywords, space-separated.
        pub keywords: Option<String>,
        /// The conversation, oldest first; its timestamps give the episode's time span.
        pub history: Option<Vec<Turn>>,
        /// The summary's embedding, for vector retrieval.
        pub embedding: Option<Vec<f32>>,
    }
}

impl EpisodeOptions {
    /// Checks what the type cannot: a non-empty summary, the timestamps, the embedding.
    pub fn validate(&self) -> Result<()> {
        nonempty("agent_id", &self.agent_id)?;
        nonempty("summary", &self.summary)?;
        for (i, turn) in self.history.iter().flatten().enumerate() {
            timestamp(&format!("history[{i}].timestamp"), turn.timestamp.as_deref())?;
        }
        embedding("embedding", self.embedding.as_deref())
    }
}

/// One turn of an episode's history.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Turn {
    /// Who spoke (`user`, `assistant`…).
    #[serde(default)]
    pub role: String,
    /// What was said.
    #[serde(default)]
    pub content: String,
    /// When, ISO-8601; stored in UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// The response of `archive_episode`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EpisodeResponse {
    /// Always true.
    #[cfg_attr(test, ts(type = "true"))]
    pub ok: bool,
    /// The new episode's id (`ep:<id>`).
    pub episode_id: i64,
}
