//! The table of operations: each operation declared once, by its tool name, with its options
//! and response types and what every surface needs to know of it.
//!
//! Read from it: the engine's dispatch ([`crate::Memory::call`] and `call_text`, built by a
//! macro over the table), the unknown-tool error's list of tools ([`tool_names`]), the tool
//! definitions offered to models and the package's `www/src/operations.ts` (both written by
//! the `generate` test), from which the package's methods, its scoped handles, its embedding
//! of texts and its OPFS worker's list of reads come. Adding an operation takes its file in
//! this module (options and response types), a row here, and its method on `Memory`; then
//! its types' line in the public surface (`src/lib.rs`), a line per type in the generated
//! declarations' list (`listed` in `src/api/generate.rs`, which its test asks for) and its
//! row in the npm README's table (`www/README.md`), which `tests/docs.rs` asks for.
//! `list_agents`, `history` and `purge_expired` were added so.

/// Which isolation axes (SPEC §2) an operation's options carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `agent_id`, `project_id` and `channel`: a scoped handle fills in all three.
    Axes,
    /// `agent_id` only: a scoped handle fills in the agent.
    Agent,
    /// None: the memory owner's call (every agent's records, or the agents a file names).
    Owner,
}

/// Which options field the package fills from its `embed` when the caller gave none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedding {
    /// `embedding` (and `embedding_model`), from `content`.
    Content,
    /// `query_embedding` (and `query_embedding_model`), from `query`.
    Query,
    /// Each of `items`' `embedding` (and `embedding_model`), from its `content`.
    Items,
}

/// One operation: what is known of it besides its types.
#[derive(Debug, Clone, Copy)]
pub struct Operation {
    /// Its tool name, as `call` takes it.
    pub name: &'static str,
    /// Whether it writes: a call the OPFS worker's holder died holding is sent again to the
    /// next holder only when it does not (it may or may not have been committed). A tool
    /// that does not is read-only (MCP's `readOnlyHint`, `tools({ readOnly: true })`).
    pub writes: bool,
    /// Whether a write can take away what was kept (a record, its text, a declared relation):
    /// a host asks before running such a tool (MCP's `destructiveHint`). Never for a read.
    pub destroys: bool,
    /// Whether calling it again with the same options changes nothing more than the first
    /// call did (MCP's `idempotentHint`); every read is.
    pub idempotent: bool,
    /// The isolation axes its options carry.
    pub scope: Scope,
    /// What the package embeds for it, if anything.
    pub embedding: Option<Embedding>,
    /// Its place (from 1) among the tools offered to function-calling models, `None` when it
    /// is not offered; the tool's description is its options type's doc comment.
    pub tool: Option<u8>,
    /// Whether the package's memory object has a method for it (`false`: only the package's
    /// own code calls it, as `reembed` calls the embedding backlog).
    pub method: bool,
}

/// Hands the table to `$callback`, a macro taking its rows: the one list of operations.
///
/// A row is `name(Options $(, extra arguments)*) -> Response { facts }`: the engine method
/// `Memory::name` takes the options (and the extra arguments `call` passes it besides them)
/// and returns the response; the facts are the fields of [`Operation`]. The rows are in the
/// order the unknown-tool error lists them.
macro_rules! with_operations {
    ($callback:ident) => {
        $callback! {
            store(StoreOptions) -> StoreResponse {
                writes: true, destroys: false, idempotent: false, scope: Axes, embedding: Some(Embedding::Content), tool: Some(1), method: true
            }
            // No progress callback: a call has no one to report to.
            store_many(StoreManyOptions, |_, _| {}) -> StoreManyResponse {
                writes: true, destroys: false, idempotent: false, scope: Axes, embedding: Some(Embedding::Items), tool: None, method: true
            }
            archive_episode(EpisodeOptions) -> EpisodeResponse {
                writes: true, destroys: false, idempotent: false, scope: Axes, embedding: None, tool: None, method: true
            }
            declare_associations(DeclareOptions) -> DeclareResponse {
                writes: true, destroys: true, idempotent: true, scope: Axes, embedding: None, tool: Some(5), method: true
            }
            recall(RecallOptions) -> RecallResponse {
                writes: false, destroys: false, idempotent: true, scope: Axes, embedding: Some(Embedding::Query), tool: Some(2), method: true
            }
            reconstruct(ReconstructOptions) -> ReconstructResponse {
                writes: false, destroys: false, idempotent: true, scope: Axes, embedding: Some(Embedding::Query), tool: Some(3), method: true
            }
            traverse(TraverseOptions) -> TraverseResponse {
                writes: false, destroys: false, idempotent: true, scope: Axes, embedding: None, tool: Some(4), method: true
            }
            get_contents(GetContentsOptions) -> GetContentsResponse {
                writes: false, destroys: false, idempotent: true, scope: Agent, embedding: None, tool: Some(6), method: true
            }
            delete_memory(DeleteMemoryOptions) -> DeleteResponse {
                writes: true, destroys: true, idempotent: true, scope: Agent, embedding: None, tool: Some(7), method: true
            }
            delete_episode(DeleteEpisodeOptions) -> DeleteResponse {
                writes: true, destroys: true, idempotent: true, scope: Agent, embedding: None, tool: None, method: true
            }
            delete_entity(DeleteEntityOptions) -> DeleteResponse {
                writes: true, destroys: true, idempotent: true, scope: Agent, embedding: None, tool: None, method: true
            }
            list_entities(ListEntitiesOptions) -> ListEntitiesResponse {
                writes: false, destroys: false, idempotent: true, scope: Axes, embedding: None, tool: Some(11), method: true
            }
            history(HistoryOptions) -> HistoryResponse {
                writes: false, destroys: false, idempotent: true, scope: Axes, embedding: None, tool: Some(12), method: true
            }
            list_agents(ListAgentsOptions) -> ListAgentsResponse {
                writes: false, destroys: false, idempotent: true, scope: Owner, embedding: None, tool: None, method: true
            }
            list_memories(ListMemoriesOptions) -> ListMemoriesResponse {
                writes: false, destroys: false, idempotent: true, scope: Axes, embedding: None, tool: Some(8), method: true
            }
            update_memory(UpdateMemoryOptions) -> UpdateMemoryResponse {
                writes: true, destroys: true, idempotent: true, scope: Agent, embedding: Some(Embedding::Content), tool: Some(9), method: true
            }
            delete_agent_data(DeleteAgentDataOptions) -> DeleteAgentDataResponse {
                writes: true, destroys: true, idempotent: true, scope: Agent, embedding: None, tool: Some(10), method: true
            }
            purge_expired(PurgeExpiredOptions) -> PurgeExpiredResponse {
                writes: true, destroys: true, idempotent: true, scope: Agent, embedding: None, tool: None, method: true
            }
            export_memories(ExportMemoriesOptions) -> ExportMemoriesResponse {
                writes: false, destroys: false, idempotent: true, scope: Agent, embedding: None, tool: None, method: true
            }
            import_memories(ImportMemoriesOptions) -> ImportMemoriesResponse {
                writes: true, destroys: false, idempotent: false, scope: Owner, embedding: None, tool: None, method: true
            }
            embedding_backlog(EmbeddingBacklogOptions) -> EmbeddingBacklogResponse {
                writes: false, destroys: false, idempotent: true, scope: Owner, embedding: None, tool: None, method: false
            }
            set_embeddings(SetEmbeddingsOptions) -> SetEmbeddingsResponse {
                writes: true, destroys: false, idempotent: true, scope: Owner, embedding: None, tool: None, method: false
            }
        }
    };
}
pub(crate) use with_operations;

/// Declares [`OPERATIONS`] from the table's rows.
macro_rules! operations_const {
    ($($name:ident($options:ty $(, $extra:expr)*) -> $response:ty { $($fact:ident: $value:expr),* })*) => {
        /// Every operation, in the table's order.
        pub const OPERATIONS: &[Operation] = &[$(Operation {
            name: stringify!($name),
            $($fact: $value,)*
        }),*];
    };
}

use Scope::{Agent, Axes, Owner};

with_operations!(operations_const);

/// The tool names `call` takes, comma-separated in the table's order.
pub fn tool_names() -> String {
    OPERATIONS.iter().map(|o| o.name).collect::<Vec<_>>().join(", ")
}
