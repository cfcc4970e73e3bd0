//! `archive_episode`: a summarized conversation, kept as one record.

use super::{at_most, embedding, nonempty, optional_text, scoped_options, text, timestamp};
use super::{MAX_CONTENT, MAX_HISTORY, MAX_ID, MAX_TURNS};
use crate::api::error::Error;
use crate::api::error::Result;
use serde::{Deserialize, Serialize};

scoped_options! {
    write,
    /// Archives an episode: a summarized conversation (its ref is `ep:<id>`), found by
    /// recall and reconstruct through its summary and keywords.
    pub struct EpisodeOptions {
        /// What the episode was about, at most 1048576 characters.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_CONTENT)))]
        pub summary: String,
        /// When it stops being true, ISO-8601; stored in UTC. From then on reads leave it out
        /// (an `as_of` before it still shows it) and `purge_expired` may delete it. Omitted:
        /// never.
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
        pub expires_at: Option<String>,
        /// Search keywords, space-separated; at most 1048576 characters.
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_CONTENT)))]
        pub keywords: Option<String>,
        /// The conversation, oldest first; its timestamps give the episode's time span. At most
        /// 10000 turns, of 8388608 characters of roles and contents in all.
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_TURNS)))]
        pub history: Option<Vec<Turn>>,
        /// The summary's embedding, for vector retrieval: 1–8192 finite numbers.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_DIMENSION)))]
        #[cfg_attr(test, ts(optional, type = "Array<number> | Float32Array | Float64Array"))]
        pub embedding: Option<Vec<f32>>,
        /// The model that made `embedding` (for example `all-MiniLM-L6-v2`), 1–256 characters,
        /// stored with it: the vector arm compares vectors only with a query embedding of the
        /// same model. Omitted: not named, compared only with query embeddings whose model is
        /// not named either.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
        pub embedding_model: Option<String>,
    }
}

impl EpisodeOptions {
    /// Checks what the type cannot: the scope, a non-empty summary, the history's turns and
    /// their timestamps, the expiry, the embedding; and every length.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        nonempty("summary", &self.summary)?;
        text("summary", &self.summary, MAX_CONTENT)?;
        optional_text("keywords", self.keywords.as_deref(), MAX_CONTENT)?;
        timestamp("expires_at", self.expires_at.as_deref())?;
        let history = self.history.as_deref().unwrap_or_default();
        at_most("history", history, MAX_TURNS, "turns")?;
        let mut total = 0;
        for (i, turn) in history.iter().enumerate() {
            text(&format!("history[{i}].role"), &turn.role, MAX_ID)?;
            text(&format!("history[{i}].content"), &turn.content, MAX_CONTENT)?;
            timestamp(&format!("history[{i}].timestamp"), turn.timestamp.as_deref())?;
            total += turn.role.chars().count() + turn.content.chars().count();
        }
        if total > MAX_HISTORY {
            return Err(Error::OutOfRange {
                field: "history".into(),
                range: format!("at most {MAX_HISTORY} characters of roles and contents in all"),
                got: format!("{total} characters"),
            });
        }
        embedding("embedding", self.embedding.as_deref(), self.embedding_model.as_deref())
    }
}

/// One turn of an episode's history.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Turn {
    /// Who spoke (`user`, `assistant`…), at most 256 characters.
    #[serde(default)]
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_ID)))]
    pub role: String,
    /// What was said, at most 1048576 characters.
    #[serde(default)]
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_CONTENT)))]
    pub content: String,
    /// When, ISO-8601; stored in UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
    pub timestamp: Option<String>,
}

/// The response of `archive_episode`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct EpisodeResponse {
    /// Always true.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// The new episode's id (`ep:<id>`).
    pub episode_id: i64,
}
