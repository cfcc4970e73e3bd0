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

// The engine: [`Memory`], opened with a clock and, for an encrypted file, a key.
pub use base::clock::{format_iso, parse_iso, Clock, FixedClock, SystemClock};
pub use memory::Memory;
pub use read::recall::MAX_FALLBACK_TERMS;
pub use storage::cipher::Key;
#[cfg(any(not(target_arch = "wasm32"), feature = "file"))]
pub use storage::file::FileSystem;
#[cfg(not(target_arch = "wasm32"))]
pub use storage::file::StdFileSystem;
pub use storage::pages::{PageStore, CHUNK as PAGE_CHUNK};
pub use storage::schema::SCHEMA_VERSION;
pub use storage::sync::{LogEntry, PendingChange, SyncStatus, MAX_DEVICE};

// What every operation shares: how it fails, names a record and scopes a call, the limits
// on what it takes (declarations read within theirs), and the normalization names are
// compared in.
pub use api::error::{Error, Result};
pub use api::lenient::{Cut, Lenient, MAX_DEPTH, MAX_FIELDS};
pub use api::refs::{Kind, Ref};
pub use api::{
    RecordId, Source, MAX_ALIASES, MAX_CALL_BYTES, MAX_CALL_VALUES, MAX_CONTENT, MAX_DIMENSION, MAX_HISTORY, MAX_ID, MAX_ITEMS,
    MAX_METADATA, MAX_NAME, MAX_QUERY, MAX_REF, MAX_TEXT, MAX_TIMESTAMP, MAX_TURNS,
};
pub use base::normalize::normalize;
pub use base::scope::{ReadScope, WriteScope};

// The table of operations, and each operation's options and response (`src/api/`, a file
// per operation).
pub use api::archive_episode::{EpisodeOptions, EpisodeResponse, Turn};
pub use api::declare_associations::{
    Associations, Conflict, DeclareOptions, DeclareReport, DeclareResponse, DeclaredBy, DeclaredEntity, Dropped, Drops, EntityDeclaration,
    Invalidated, Invalidation, MentionRef, PredicateDeclaration, RecordInvalidation, RelationDeclaration, RelationInvalidation, Retract,
    Retracted, MAX_DROPPED,
};
pub use api::delete::{DeleteEntityOptions, DeleteEpisodeOptions, DeleteMemoryOptions, DeleteResponse};
pub use api::delete_agent_data::{DeleteAgentDataOptions, DeleteAgentDataResponse};
pub use api::embeddings::{
    BacklogRecord, EmbeddingBacklogOptions, EmbeddingBacklogResponse, EmbeddingItem, SetEmbeddingsOptions, SetEmbeddingsResponse,
    BACKLOG_LIMIT, SET_EMBEDDINGS_MAX_ITEMS,
};
pub use api::export_memories::{ExportMemoriesOptions, ExportMemoriesResponse};
pub use api::get_contents::{ContentItem, GetContentsOptions, GetContentsResponse, RecordEnd, GET_CONTENTS_MAX_REFS};
pub use api::history::{HistoryEntity, HistoryOptions, HistoryRelation, HistoryResponse, HISTORY_LIMIT};
pub use api::import_memories::{ImportMemoriesOptions, ImportMemoriesResponse, MAX_EXPORT};
pub use api::list_agents::{ListAgentsOptions, ListAgentsResponse, ListedAgent, LIST_AGENTS_LIMIT};
pub use api::list_entities::{ListEntitiesOptions, ListEntitiesResponse, ListedEntity, LIST_ENTITIES_LIMIT};
pub use api::list_memories::{ListMemoriesOptions, ListMemoriesResponse, ListedMemory, LIST_MEMORIES_LIMIT};
pub use api::operations::{tool_names, Embedding, Operation, Scope, OPERATIONS};
pub use api::purge_expired::{PurgeExpiredOptions, PurgeExpiredResponse};
pub use api::recall::{MatchReason, Message, RecallOptions, RecallResponse, RerankScore, MAX_RERANK, RECALL_LIMIT};
pub use api::reconstruct::{
    reconstruct_bounds, Applied, Claim, Cues, Excerpt, Item, QuoteBasis, ReconstructBounds, ReconstructOptions, ReconstructResponse, Role,
    Shortfall, Trace, MAX_CUE_TERMS,
};
pub use api::store::{StoreItem, StoreOptions, StoreResponse};
pub use api::store_many::{StoreManyOptions, StoreManyResponse, StoredItem, MAX_BATCH, MAX_BATCH_CONTENT};
pub use api::traverse::{
    Bounds, TraverseEntity, TraverseOptions, TraverseReason, TraverseRelation, TraverseResponse, Validity, TRAVERSE_HOPS, TRAVERSE_LIMIT,
};
pub use api::update_memory::{UpdateMemoryOptions, UpdateMemoryResponse};
