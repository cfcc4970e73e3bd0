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
//!
//! Beside them, what every operation shares: how it names a record ([`refs::Ref`]) and how
//! it fails ([`error::Error`], whose codes and messages are part of this contract).

pub(crate) mod archive_episode;
pub(crate) mod declare_associations;
pub(crate) mod delete;
pub(crate) mod delete_agent_data;
pub(crate) mod embeddings;
pub(crate) mod error;
pub(crate) mod export_memories;
pub(crate) mod get_contents;
pub(crate) mod history;
pub(crate) mod import_memories;
pub(crate) mod lenient;
pub(crate) mod list_agents;
pub(crate) mod list_entities;
pub(crate) mod list_memories;
pub(crate) mod operations;
pub(crate) mod read;
pub(crate) mod recall;
pub(crate) mod reconstruct;
pub(crate) mod refs;
pub(crate) mod store;
pub(crate) mod store_many;
/// Used by the wasm binding, which reads options as text; tested natively.
#[cfg(any(target_arch = "wasm32", test))]
mod text;
pub(crate) mod traverse;
pub(crate) mod update_memory;
pub(crate) mod write;

// Writes the checked-in generated files: native only (wasm32 has no file system).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod generate;

pub use archive_episode::*;
pub use declare_associations::*;
pub use delete::*;
pub use delete_agent_data::*;
pub use embeddings::*;
pub use export_memories::*;
pub use get_contents::*;
pub use history::*;
pub use import_memories::*;
pub use list_agents::*;
pub use list_entities::*;
pub use list_memories::*;
pub use operations::*;
pub use recall::*;
pub use reconstruct::*;
pub use store::*;
pub use store_many::*;
#[cfg(target_arch = "wasm32")]
pub(crate) use text::{options_from_text, Unread};
pub use traverse::*;
pub use update_memory::*;

use crate::api::error::{Error, Result};
use crate::api::refs::{Kind, Ref};
use crate::base::clock::{format_iso, parse_iso};

/// Declares an option type whose first fields are the isolation axes (SPEC §2) of a read
/// (`read`) or of a write (`write`), with a `scope()` that gives them to the engine. Every
/// option type refuses keys it does not declare.
macro_rules! scoped_options {
    (read, $(#[$meta:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        scoped_options!(@reader $(#[$meta])* $name, {
            $($fields)*
            /// The instant to read the memory at, ISO-8601: only relations whose validity holds
            /// it and records not expired or invalidated by then. `"all"`: everything, each with
            /// its interval. Omitted: the current state (what ended before now is left out).
            #[cfg_attr(test, schemars(length(max = crate::api::MAX_TIMESTAMP)))]
            pub as_of: Option<String>,
        });

        impl $name {
            /// Checks the isolation axes and `as_of`.
            fn validate_scope(&self) -> crate::api::error::Result<()> {
                self.validate_axes()?;
                crate::api::as_of("as_of", self.as_of.as_deref())
            }

            /// The instant the read sees, given the clock's now (the option is checked first).
            pub fn as_of(&self, now_ms: i64) -> crate::base::as_of::AsOf {
                crate::base::as_of::AsOf::parse(self.as_of.as_deref(), now_ms).unwrap_or(crate::base::as_of::AsOf::All)
            }
        }
    };
    // A read of every instant (`history`): the axes of a read, without `as_of`.
    (timeline, $(#[$meta:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        scoped_options!(@reader $(#[$meta])* $name, { $($fields)* });

        impl $name {
            /// Checks the isolation axes.
            fn validate_scope(&self) -> crate::api::error::Result<()> {
                self.validate_axes()
            }
        }
    };
    // What reads share: the struct with a read's axes, and their scope.
    (@reader $(#[$meta:meta])* $name:ident, { $($fields:tt)* }) => {
        scoped_options!(@declare $(#[$meta])* $name,
            [
                /// Omitted: every project; `""`: the global pool only; `"X"`: project X and the global
                /// pool. At most 256 characters.
            ],
            [
                /// Omitted or `""`: every channel; `"X"`: channel X and channel-global records. At most
                /// 256 characters.
            ],
            { $($fields)* });

        impl $name {
            /// What the call may read.
            pub fn scope(&self) -> crate::base::scope::ReadScope {
                crate::base::scope::ReadScope {
                    agent_id: self.agent_id.clone(),
                    project_id: self.project_id.clone(),
                    channel: self.channel.clone(),
                }
            }
        }
    };
    (write, $(#[$meta:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        scoped_options!(@declare $(#[$meta])* $name,
            [
                /// The project to write into; omitted or `""` is the global pool. At most 256 characters.
            ],
            [
                /// The channel to write into (`"chat"`, say); omitted or `""` is channel-global. At most
                /// 256 characters.
            ],
            { $($fields)* });

        impl $name {
            /// Checks the isolation axes.
            fn validate_scope(&self) -> crate::api::error::Result<()> {
                self.validate_axes()
            }

            /// The one bucket the call writes to.
            pub fn scope(&self) -> crate::base::scope::WriteScope {
                crate::base::scope::WriteScope {
                    agent_id: self.agent_id.clone(),
                    project_id: self.project_id.clone().unwrap_or_default(),
                    channel: self.channel.clone().unwrap_or_default(),
                }
            }
        }
    };
    // What reads and writes share: the struct with its axes, and their check.
    (@declare $(#[$meta:meta])* $name:ident, [$(#[$project:meta])*], [$(#[$channel:meta])*], { $($fields:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
        pub struct $name {
            /// Whose memory this is. Agents never read each other's records. At most 256 characters.
            #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
            pub agent_id: String,
            $(#[$project])*
            #[cfg_attr(test, schemars(length(max = crate::api::MAX_ID)))]
            pub project_id: Option<String>,
            $(#[$channel])*
            #[cfg_attr(test, schemars(length(max = crate::api::MAX_ID)))]
            pub channel: Option<String>,
            $($fields)*
        }

        impl $name {
            /// Checks the isolation axes: a non-empty agent, each axis within [`crate::api::MAX_ID`].
            fn validate_axes(&self) -> crate::api::error::Result<()> {
                crate::api::id_text("agent_id", &self.agent_id)?;
                crate::api::optional_text("project_id", self.project_id.as_deref(), crate::api::MAX_ID)?;
                crate::api::optional_text("channel", self.channel.as_deref(), crate::api::MAX_ID)
            }
        }
    };
}
pub(crate) use scoped_options;

// Limits on what an operation takes (issue: limits instead of accidents). Every string and
// list has one, checked by `validate()` (both doors) before anything is read or written, so
// nothing reaches SQLite or the wasm heap by accident: past a limit the call fails with
// `out_of_range` naming the field. Each limit is far above what a real call needs; the doc
// comments of the option types state them, and from there the generated TypeScript docs and
// tool schemas (`maxLength`, `maxItems`). Lengths are in characters (Unicode scalar values),
// as JSON Schema's `maxLength` counts them. Declarations are the exception: past their
// bounds ([`MAX_ITEMS`], [`MAX_ALIASES`], [`MAX_TEXT`]) an item is dropped and reported, never
// an error (design §2), by `crate::graph::associations`.

/// Items per declaration or retraction list.
pub const MAX_ITEMS: usize = 64;
/// Aliases per entity.
pub const MAX_ALIASES: usize = 32;
/// Characters per name, alias or predicate.
pub const MAX_TEXT: usize = 256;

/// Characters of an identifier: `agent_id`, `project_id`, `channel`, `source_id`, a source's
/// `type`, `id` and `name`, a turn's `role`. Identifiers are names chosen by programs (UUIDs
/// are 36 characters, a URL-ish project key rarely 100); 256 leaves room for any of them and
/// keeps the scope columns every query compares small.
pub const MAX_ID: usize = 256;

/// Characters of a stored text: a memory's `content`, an episode's `summary` and `keywords`, a
/// turn's `content`. 1 Mi characters is a whole book chapter, or a long log pasted at once;
/// a memory is meant to be one thing remembered, and reconstruct quotes at most 200 000
/// characters of all its items together. Past it a store would only grow the FTS indexes
/// and a wasm heap by megabytes for text no read can show.
pub const MAX_CONTENT: usize = 1 << 20;

/// Characters of a `query` (recall, reconstruct). A question or a search phrase is a line or
/// a paragraph; 4096 characters is several paragraphs. Each distinct word becomes a quoted
/// FTS5 term and a `LIKE` pattern: this keeps the longest pattern far below SQLite's
/// 50 000-byte `LIKE` limit (a one-megabyte query used to fail there with the generic
/// `sqlite` error) and the number of terms small enough to search fast.
pub const MAX_QUERY: usize = 4096;

/// Characters of a name looked up: traverse's `entity`, list_entities' `query`. A declared
/// name, alias or predicate is at most this long ([`MAX_TEXT`]), so a longer lookup could
/// never match.
pub const MAX_NAME: usize = MAX_TEXT;

/// Characters of a timestamp. The longest ISO-8601 spelling accepted,
/// `2026-05-10T12:00:00.123456789+02:00`, is 35.
pub const MAX_TIMESTAMP: usize = 64;

/// Characters of a record ref given as an option (`anchor_ref`, each of get_contents'
/// `refs`). `ep:` and the 19 digits of the largest id are 22; the rest is room for
/// surrounding whitespace, which is allowed.
pub const MAX_REF: usize = 64;

/// A record named by its id, or by its ref as the reads return it: `12` or `"mem:12"`
/// (`update_memory`'s `memory_id`, `delete_memory`'s, `delete_episode`'s `episode_id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordId {
    /// The record's id.
    Id(i64),
    /// The record's ref, `mem:<id>` or `ep:<id>` (surrounding whitespace allowed).
    Ref(String),
}

impl Default for RecordId {
    fn default() -> Self {
        RecordId::Id(0)
    }
}

impl From<i64> for RecordId {
    fn from(id: i64) -> Self {
        RecordId::Id(id)
    }
}

impl From<&str> for RecordId {
    fn from(given: &str) -> Self {
        RecordId::Ref(given.to_owned())
    }
}

impl RecordId {
    /// The id of the record of `kind` this names, checked as option `field`: an id of at
    /// least 1, or a ref of that kind of at most [`MAX_REF`] characters (`bad_ref` when it is
    /// no ref, `invalid_value` when it is another kind's).
    pub(crate) fn of(&self, field: &str, kind: Kind) -> Result<i64> {
        match self {
            RecordId::Id(id) => positive(field, *id),
            RecordId::Ref(given) => {
                text(field, given, MAX_REF)?;
                let r = Ref::parse(given).ok_or_else(|| Error::BadRef { field: field.into(), got: given.clone() })?;
                if r.kind != kind {
                    return Err(Error::Invalid {
                        field: field.into(),
                        reason: format!(
                            "names {} {given:?}; it takes a {}'s id or its ref '{}:<id>'",
                            r.kind.noun(),
                            kind.noun(),
                            kind.as_str()
                        ),
                    });
                }
                positive(field, r.id)
            }
        }
    }
}

/// What a [`RecordId`] is read from, as a `wrong_type` error says it.
pub(crate) const RECORD_ID_EXPECTED: &str = "an integer or a record ref";

/// Read from a JSON integer (`3` or `3.0`, as every integer option) or a string; whether the
/// string is a ref of the right kind is [`RecordId::of`]'s to say, naming the field.
impl<'de> serde::Deserialize<'de> for RecordId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Unexpected;
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = RecordId;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(RECORD_ID_EXPECTED)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<RecordId, E> {
                Ok(RecordId::Id(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<RecordId, E> {
                i64::try_from(v).map(RecordId::Id).map_err(|_| E::invalid_type(Unexpected::Unsigned(v), &self))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<RecordId, E> {
                match read::as_int(&serde_json::json!(v)) {
                    Some(id) => Ok(RecordId::Id(id)),
                    None => Err(E::invalid_type(Unexpected::Float(v), &self)),
                }
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<RecordId, E> {
                Ok(RecordId::Ref(v.to_owned()))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// The JSON Schema of a [`RecordId`] option naming a record of `kind`, for the tool schemas.
#[cfg(test)]
fn record_id_schema(kind: Kind) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [
            {"type": "integer", "minimum": 1},
            {"type": "string", "pattern": format!("^{}:[0-9]+$", kind.as_str())}
        ]
    })
}

#[cfg(test)]
fn memory_id_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    record_id_schema(Kind::Mem)
}

#[cfg(test)]
fn episode_id_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    record_id_schema(Kind::Ep)
}

/// A row id: at least 1.
fn positive(field: &str, id: i64) -> Result<i64> {
    if id < 1 {
        return Err(Error::OutOfRange { field: field.into(), range: format!("1–{}", i64::MAX), got: id.to_string() });
    }
    Ok(id)
}

/// Turns of an episode's history: a conversation of a turn a minute for a week.
pub const MAX_TURNS: usize = 10_000;

/// Characters of an episode's history in all (every turn's role and content): the history is
/// stored as one JSON text in one row, and a row must stay far below SQLite's
/// one-gigabyte value limit and a wasm heap's comfort. 8 Mi characters.
pub const MAX_HISTORY: usize = 8 * MAX_CONTENT;

/// Characters of a memory's `metadata` written as JSON. Metadata is a small object of the
/// caller's (a URL, a message id, tags); 64 Ki characters is generous.
pub const MAX_METADATA: usize = 64 * 1024;

/// A string option within `max` characters and free of NUL.
///
/// NUL (U+0000) is refused in every string an operation takes, because nowhere is it text: SQLite's
/// SQL functions (`LIKE`, `lower`, `length`, `instr`) stop at it, so what follows a NUL would be
/// stored but invisible to the lexical fallback, and C strings and most tools that read an
/// exported database cut there too. Inside `metadata` (stored as JSON, where it is spelled
/// `\u0000`) it is kept; inside declarations an item carrying one is dropped.
pub(crate) fn text(field: &str, value: &str, max: usize) -> Result<()> {
    at_most_chars(field, value, max)?;
    if value.contains('\0') {
        return Err(Error::Invalid { field: field.into(), reason: "must not contain a NUL character (U+0000)".into() });
    }
    Ok(())
}

/// A string within `max` characters.
fn at_most_chars(field: &str, value: &str, max: usize) -> Result<()> {
    // a string of at most `max` bytes has at most `max` characters: count only past that
    if value.len() > max {
        let chars = value.chars().count();
        if chars > max {
            return Err(Error::OutOfRange {
                field: field.into(),
                range: format!("at most {max} characters"),
                got: format!("{chars} characters"),
            });
        }
    }
    Ok(())
}

/// An optional string option within `max` characters and free of NUL.
pub(crate) fn optional_text(field: &str, value: Option<&str>, max: usize) -> Result<()> {
    value.map_or(Ok(()), |v| text(field, v, max))
}

/// A required identifier: not empty after trimming, within [`MAX_ID`], free of NUL.
pub(crate) fn id_text(field: &str, value: &str) -> Result<()> {
    nonempty(field, value)?;
    text(field, value, MAX_ID)
}

/// A required text that is not empty after trimming.
fn nonempty(field: &str, text: &str) -> Result<()> {
    if text.trim().is_empty() {
        return Err(Error::Invalid { field: field.into(), reason: "must not be empty".into() });
    }
    Ok(())
}

/// A list of at most `max` items.
fn at_most<T>(field: &str, items: &[T], max: usize, what: &str) -> Result<()> {
    if items.len() > max {
        return Err(Error::OutOfRange { field: field.into(), range: format!("at most {max} {what}"), got: items.len().to_string() });
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
    optional_text(field, given, MAX_TIMESTAMP)?;
    match given {
        Some(s) if canonical_time(s).is_none() => Err(Error::Invalid {
            field: field.into(),
            reason: format!("must be an ISO-8601 date-time such as 2026-05-10T12:00:00Z, got {s:?}"),
        }),
        _ => Ok(()),
    }
}

/// An optional `as_of`: `"all"` or an ISO-8601 date-time.
pub(crate) fn as_of(field: &str, given: Option<&str>) -> Result<()> {
    optional_text(field, given, MAX_TIMESTAMP)?;
    match given {
        Some(s) if crate::base::as_of::AsOf::parse(Some(s), 0).is_none() => Err(Error::Invalid {
            field: field.into(),
            reason: format!("must be an ISO-8601 date-time such as 2026-05-10T12:00:00Z, or \"all\", got {s:?}"),
        }),
        _ => Ok(()),
    }
}

/// An optional embedding model's name: 1–[`MAX_ID`] characters.
fn model_name(field: &str, given: Option<&str>) -> Result<()> {
    match given {
        Some(model) => {
            nonempty(field, model)?;
            text(field, model, MAX_ID)
        }
        None => Ok(()),
    }
}

/// The per-call budget of options that arrive as text (the wasm binding reads them as the
/// text `JSON.stringify` makes): at most [`MAX_CALL_BYTES`] bytes of JSON holding at most
/// [`MAX_CALL_VALUES`] values and keys. What a call reads
/// is held at once, as text and then as values (32 bytes each, and a string's own), in a
/// wasm heap of at most 4 GiB that a failed allocation leaves unusable; within both bounds
/// a call holds well under half of that, and past either it is refused before it is read.
/// The largest legal batch fits: 10,000 memories with 1,536-number embeddings, or 16 Mi
/// characters of content in any script.
pub const MAX_CALL_BYTES: usize = 256 << 20;

/// Values and keys one call's options hold at most, where they arrive as text: see
/// [`MAX_CALL_BYTES`].
pub const MAX_CALL_VALUES: usize = 16 << 20;

/// Numbers an embedding may hold.
pub const MAX_DIMENSION: usize = 8192;

/// An optional embedding, 1–[`MAX_DIMENSION`] finite numbers whose squared norm is finite
/// in 32-bit floats ([`crate::base::dot::unusable`]), and the optional name of the model that
/// made it (field `<field>_model`), 1–[`MAX_ID`] characters, given only with it.
fn embedding(field: &str, given: Option<&[f32]>, model: Option<&str>) -> Result<()> {
    let model_field = format!("{field}_model");
    model_name(&model_field, model)?;
    if model.is_some() && given.is_none() {
        return Err(Error::Invalid { field: model_field, reason: format!("names the model of `{field}`, which is not given") });
    }
    let Some(v) = given else { return Ok(()) };
    if v.is_empty() || v.len() > MAX_DIMENSION {
        return Err(Error::OutOfRange { field: field.into(), range: format!("1–{MAX_DIMENSION} numbers"), got: v.len().to_string() });
    }
    if let Some(i) = v.iter().position(|f| !f.is_finite()) {
        return Err(Error::WrongType { field: format!("{field}[{i}]"), expected: "a finite number", got: not_finite(v[i]).into() });
    }
    match crate::base::dot::unusable(v) {
        Some(reason) => Err(Error::Invalid { field: field.into(), reason: reason.into() }),
        None => Ok(()),
    }
}

/// A number that is not finite in words, as `f32`'s `Display` writes it (`NaN`, `inf`,
/// `-inf`): written out, since formatting an `f32` through `core::fmt` would link its float
/// formatting for `f32` into the wasm module (1.9 KB before wasm-opt) for these three words.
fn not_finite(f: f32) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// Where a memory came from (`{type, id, name}`); a store without one records the storing
/// agent, `{type: "Agent", id: <agent_id>, name: ""}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Source {
    /// The kind of source: `User`, `Agent`, `System`, a tool's name… At most 256 characters.
    #[serde(rename = "type")]
    #[cfg_attr(test, schemars(length(max = MAX_ID)))]
    pub kind: Option<String>,
    /// The source's id; recall, reconstruct and traverse can filter on it (`source_id`). At
    /// most 256 characters.
    #[cfg_attr(test, schemars(length(max = MAX_ID)))]
    pub id: Option<String>,
    /// A display name. At most 256 characters.
    #[cfg_attr(test, schemars(length(max = MAX_ID)))]
    pub name: Option<String>,
}

impl Source {
    /// Checks each field's length.
    fn validate(&self, field: &str) -> Result<()> {
        optional_text(&format!("{field}.type"), self.kind.as_deref(), MAX_ID)?;
        optional_text(&format!("{field}.id"), self.id.as_deref(), MAX_ID)?;
        optional_text(&format!("{field}.name"), self.name.as_deref(), MAX_ID)
    }
}

/// Where a record came from, as responses give it: a memory's source as its store wrote it
/// (each of `type`, `id` and `name` defaulted to `""`, the storing agent when none was
/// given), an episode's `{type: "Episode", id: <its ref>, name: ""}`. The responses carry the
/// stored JSON as it is, so this type declares its shape for TypeScript only.
#[cfg(test)]
#[derive(schemars::JsonSchema, ts_rs::TS)]
#[allow(dead_code)] // its fields are read only by the derive
pub struct RecordSource {
    /// The kind of source: `User`, `Agent`, `System`, `Episode`, a tool's name…
    #[ts(rename = "type")]
    #[schemars(rename = "type")]
    pub kind: String,
    /// The source's id (an episode's: its ref).
    pub id: String,
    /// A display name.
    pub name: String,
}
