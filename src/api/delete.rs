//! `delete_memory`, `delete_episode` and `delete_entity`: one row, with everything that
//! depends on it.

use super::{id_text, positive, RecordId};
use crate::api::error::Result;
use crate::api::refs::Kind;
use serde::{Deserialize, Serialize};

/// Declares the options of a delete: the owning agent and, under its name, what names the
/// row (its type, its doc and schema attributes), with `id()`: the row's id, checked by
/// `$check`.
macro_rules! delete_options {
    ($(#[$meta:meta])* $name:ident, $(#[$field:meta])* $id:ident: $type:ty, $check:expr) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, Deserialize)]
        #[serde(deny_unknown_fields)]
        #[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
        pub struct $name {
            /// Whose memory this is. At most 256 characters.
            #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
            pub agent_id: String,
            $(#[$field])*
            pub $id: $type,
        }

        impl $name {
            /// Checks the agent and the id.
            pub fn validate(&self) -> Result<()> {
                id_text("agent_id", &self.agent_id)?;
                self.id().map(drop)
            }

            /// The row's id, checked.
            pub(crate) fn id(&self) -> Result<i64> {
                let check: fn(&str, &$type) -> Result<i64> = $check;
                check(stringify!($id), &self.$id)
            }
        }
    };
}

delete_options!(
    /// Forgets one memory, with every mention and relation that rests on it.
    DeleteMemoryOptions,
    /// The memory's id, or its ref `mem:<id>` as recall, reconstruct and traverse return it.
    #[cfg_attr(test, schemars(schema_with = "super::memory_id_schema"), ts(type = "number | `mem:${number}`"))]
    memory_id: RecordId,
    |field, id| id.of(field, Kind::Mem)
);
delete_options!(
    /// Forgets one episode, with every mention and relation that rests on it.
    DeleteEpisodeOptions,
    /// The episode's id, or its ref `ep:<id>` as recall, reconstruct and traverse return it.
    #[cfg_attr(test, schemars(schema_with = "super::episode_id_schema"), ts(type = "number | `ep:${number}`"))]
    episode_id: RecordId,
    |field, id| id.of(field, Kind::Ep)
);
delete_options!(
    /// Deletes one entity, with its aliases, mentions and relations.
    DeleteEntityOptions,
    /// The entity's id.
    #[cfg_attr(test, schemars(range(min = 1)))]
    entity_id: i64,
    |field, &id| positive(field, id)
);

/// The response of the delete operations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct DeleteResponse {
    /// Always true; deleting nothing is an error.
    #[cfg_attr(test, ts(type = "true"), schemars(extend("const" = true)))]
    pub ok: bool,
    /// The id deleted.
    pub deleted_id: i64,
}
