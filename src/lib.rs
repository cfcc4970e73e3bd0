//! # associative-memory
//!
//! A private, deterministic associative memory for agents that run on the client: records
//! (memories and episodes) in SQLite, and a declared graph over them — entities with
//! aliases, the records that mention them, and subject–predicate–object relations — that
//! an agent asserts and the engine follows with SQL and pure functions. No model is called
//! anywhere.
//!
//! [`Memory`] is the whole API: open one, then [`Memory::store`],
//! [`Memory::declare_associations`], [`Memory::traverse`], [`Memory::get_contents`], the
//! deletes, [`Memory::export`] / [`Memory::import`] — or [`Memory::call`] with a tool name
//! and JSON options, as the wasm binding and tool calls do. Every failure is an [`Error`]
//! with a stable code and, for bad input, the field.
//!
//! ```
//! use associative_memory::{Memory, FixedClock};
//! use serde_json::json;
//!
//! let mut memory = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(0))).unwrap();
//! memory.call("store", &json!({
//!     "agent_id": "a", "content": "Kirari maintains MizEye.",
//!     "associations": {
//!         "entities": [{"name": "MizEye", "aliases": ["ミズアイ"]}],
//!         "relations": [{"subject": "Kirari", "predicate": "maintains", "object": "MizEye"}]
//!     }
//! })).unwrap();
//! let graph = memory.call("traverse", &json!({"agent_id": "a", "entity": "ミズアイ"})).unwrap();
//! assert_eq!(graph["entities"][1]["name"], "Kirari");
//! ```
#![warn(missing_docs)]

mod api;
mod base;
mod graph;
mod indexes;
mod memory;
mod read;
mod storage;
mod transfer;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use api::error::{Error, Result};
pub use api::refs::{Kind, Ref};
pub use api::*;
pub use base::clock::{format_iso, parse_iso, Clock, FixedClock, SystemClock};
pub use base::normalize::normalize;
pub use base::scope::{ReadScope, WriteScope};
pub use memory::Memory;
pub use read::recall::MAX_FALLBACK_TERMS;
pub use storage::cipher::Key;
pub use storage::schema::SCHEMA_VERSION;
