//! The request and response types of every operation, one file per operation, shared by
//! every surface: the Rust API, [`crate::Memory::call`], the wasm binding and, through it,
//! TypeScript and tool calls.
//!
//! Each operation's shape is declared here once. Options derive `Deserialize` and are read
//! from JSON by [`read`] (errors name the field); each has a `validate()` that `call` and
//! the typed methods of [`crate::Memory`] both run before anything is read or written, so
//! the two doors are one. The TypeScript types (`src/wasm/types.d.ts`) and the tool JSON
//! Schemas (`www/src/tool-schemas.ts`) are generated from these types by a test
//! (`generate`), and their doc comments are the tool descriptions: they say what the
//! engine does, nothing more.
//!
//! Field names are snake_case, as in the reference's tool contract, because responses are
//! handed to language models verbatim; responses serialize in the compact form of the
//! recorded scenarios, omitting defaults.

mod archive_episode;
mod declare_associations;
mod delete;
mod delete_agent_data;
mod get_contents;
mod list_entities;
mod list_memories;
pub(crate) mod read;
mod recall;
mod reconstruct;
mod store;
mod traverse;
mod update_memory;

#[cfg(test)]
mod generate;

pub use archive_episode::*;
pub use declare_associations::*;
pub use delete::*;
pub use delete_agent_data::*;
pub use get_contents::*;
pub use list_entities::*;
pub use list_memories::*;
pub use recall::*;
pub use reconstruct::*;
pub use store::*;
pub use traverse::*;
pub use update_memory::*;

use crate::clock::{format_iso, parse_iso};
use crate::error::{Error, Result};

/// Declares an option type whose first fields are the isolation axes (SPEC §2) of a read
/// (`read`) or of a write (`write`), with a `scope()` that gives them to the engine. Every
/// option type refuses keys it does not declare.
macro_rules! scoped_options {
    (read, $(#[$meta:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
        pub struct $name {
            /// Whose memory this is. Agents never read each other's records.
            pub agent_id: String,
            /// Omitted: every project; `""`: the global pool only; `"X"`: project X and the global pool.
            pub project_id: Option<String>,
            /// Omitted or `""`: every channel; `"X"`: channel X and channel-global records.
            pub channel: Option<String>,
            $($fields)*
        }

        impl $name {
            /// What the call may read.
            pub fn scope(&self) -> crate::scope::ReadScope {
                crate::scope::ReadScope {
                    agent_id: self.agent_id.clone(),
                    project_id: self.project_id.clone(),
                    channel: self.channel.clone(),
                }
            }
        }
    };
    (write, $(#[$meta:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
        pub struct $name {
            /// Whose memory this is. Agents never read each other's records.
            pub agent_id: String,
            /// The project to write into; omitted or `""` is the global pool.
            pub project_id: Option<String>,
            /// The channel to write into (`"chat"`, say); omitted or `""` is channel-global.
            pub channel: Option<String>,
            $($fields)*
        }

        impl $name {
            /// The one bucket the call writes to.
            pub fn scope(&self) -> crate::scope::WriteScope {
                crate::scope::WriteScope {
                    agent_id: self.agent_id.clone(),
                    project_id: self.project_id.clone().unwrap_or_default(),
                    channel: self.channel.clone().unwrap_or_default(),
                }
            }
        }
    };
}
pub(crate) use scoped_options;

/// A required text that is not empty after trimming.
fn nonempty(field: &str, text: &str) -> Result<()> {
    if text.trim().is_empty() {
        return Err(Error::Invalid { field: field.into(), reason: "must not be empty".into() });
    }
    Ok(())
}

/// An optional integer within `min..=max`.
fn in_range(field: &str, value: Option<i64>, min: i64, max: i64) -> Result<()> {
    match value {
        Some(n) if n < min || n > max => {
            Err(Error::OutOfRange { field: field.into(), range: format!("{min}–{max}"), got: n.to_string() })
        }
        _ => Ok(()),
    }
}

/// A timestamp in its one canonical UTC spelling, `None` when it is not ISO-8601.
pub(crate) fn canonical_time(text: &str) -> Option<String> {
    parse_iso(text).map(format_iso)
}

/// An optional ISO-8601 timestamp.
fn timestamp(field: &str, given: Option<&str>) -> Result<()> {
    match given {
        Some(s) if canonical_time(s).is_none() => Err(Error::Invalid {
            field: field.into(),
            reason: format!("must be an ISO-8601 date-time such as 2026-05-10T12:00:00Z, got {s:?}"),
        }),
        _ => Ok(()),
    }
}

/// Numbers an embedding may hold.
pub const MAX_DIMENSION: usize = 8192;

/// An optional embedding: 1–[`MAX_DIMENSION`] finite numbers.
fn embedding(field: &str, given: Option<&[f32]>) -> Result<()> {
    let Some(v) = given else { return Ok(()) };
    if v.is_empty() || v.len() > MAX_DIMENSION {
        return Err(Error::OutOfRange { field: field.into(), range: format!("1–{MAX_DIMENSION} numbers"), got: v.len().to_string() });
    }
    match v.iter().position(|f| !f.is_finite()) {
        Some(i) => Err(Error::WrongType { field: format!("{field}[{i}]"), expected: "a finite number", got: v[i].to_string() }),
        None => Ok(()),
    }
}

/// Where a memory came from (`{type, id, name}`); a store without one records the storing
/// agent, `{type: "Agent", id: <agent_id>, name: ""}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Source {
    /// The kind of source: `User`, `Agent`, `System`, a tool's name…
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The source's id; recall, reconstruct and traverse can filter on it (`source_id`).
    pub id: Option<String>,
    /// A display name.
    pub name: Option<String>,
}
