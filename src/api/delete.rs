//! `delete_memory`, `delete_episode` and `delete_entity`: one row, with everything that
//! depends on it.

use super::id_text;
use crate::api::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Declares the options of a delete: the owning agent and the row's id under its name.
macro_rules! delete_options {
    ($(#[$meta:meta])* $name:ident, $id:ident, $what:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields)]
        #[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
        pub struct $name {
            /// Whose memory this is. At most 256 characters.
            #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
            pub agent_id: String,
            #[doc = concat!(" The ", $what, "'s id.")]
            #[cfg_attr(test, schemars(range(min = 1)))]
            pub $id: i64,
        }

        impl $name {
            /// Checks the id.
            pub fn validate(&self) -> Result<()> {
                id_text("agent_id", &self.agent_id)?;
                positive(stringify!($id), self.$id)
            }
        }
    };
}

delete_options!(
    /// Forgets one memory, with every mention and relation that rests on it.
    DeleteMemoryOptions,
    memory_id,
    "memory"
);
delete_options!(
    /// Forgets one episode, with every mention and relation that rests on it.
    DeleteEpisodeOptions,
    episode_id,
    "episode"
);
delete_options!(
    /// Deletes one entity, with its aliases, mentions and relations.
    DeleteEntityOptions,
    entity_id,
    "entity"
);

/// A row id: at least 1.
fn positive(field: &str, id: i64) -> Result<()> {
    if id < 1 {
        return Err(Error::OutOfRange { field: field.into(), range: format!("1–{}", i64::MAX), got: id.to_string() });
    }
    Ok(())
}

/// The response of the delete operations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DeleteResponse {
    /// Always true; deleting nothing is an error.
    #[cfg_attr(test, ts(type = "true"))]
    pub ok: bool,
    /// The id deleted.
    pub deleted_id: i64,
}
