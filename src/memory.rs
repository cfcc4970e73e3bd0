//! [`Memory`]: one SQLite database, one clock, and every operation of SPEC §3.
//!
//! Each write runs in one transaction after its options were fully checked, so a call
//! either does everything it reports or nothing at all. Writes open a savepoint rather
//! than `BEGIN`: alone it is the same transaction, and inside [`Memory::call_group`] it
//! nests, so one failing call of a group rolls back only itself.

use crate::api::error::{Error, Result};
use crate::api::lenient::{Cut, Lenient};
use crate::api::read::from_json;
use crate::api::refs::{Kind, Ref};
use crate::api::*;
use crate::base::clock::{format_iso, Clock, SystemClock};
use crate::graph::associations::Declarer;
use crate::graph::{entities, traverse};
use crate::indexes::declared::Declared;
use crate::indexes::lexical::LexicalIndex;
use crate::indexes::names::NameIndex;
use crate::indexes::vectors::VectorIndex;
use crate::indexes::watch::{Kept, Watch};
use crate::read::{recall, reconstruct};
use crate::storage::changes::Session;
use crate::storage::cipher::{self, Key};
use crate::storage::data;
use crate::storage::pages::{self, PageStore};
use crate::storage::records;
use crate::storage::schema::migrate;
use crate::storage::scratch::Scratch;
use crate::storage::sync::{self, LogEntry, PendingChange, SyncStatus};
use rusqlite::{Connection, MAIN_DB};
use serde::Serialize;
use serde_json::Value;

/// An associative memory: records, the declared graph over them, and the operations on
/// both. Open one per database; it is not shared between threads.
pub struct Memory {
    /// A memory that syncs (`crate::storage::sync`): the session recording this device's
    /// writes, whose changeset each write keeps as a pending change before it commits.
    /// Declared before the connection, so it is dropped first.
    capture: Option<Session>,
    pub(crate) conn: Connection,
    clock: Box<dyn Clock>,
    /// The vector arm's in-memory index (`crate::indexes::vectors`), kept current by the writes below.
    pub(crate) vectors: VectorIndex,
    /// The lexical arm's in-memory text (`crate::indexes::lexical`), the entity names stage 1 of
    /// reconstruct matches (`crate::indexes::names`) and whether anything is declared
    /// (`crate::indexes::declared`), kept current through the connection's update hook
    /// (`crate::indexes::watch`).
    lexical: LexicalIndex,
    names: NameIndex,
    declared: Kept<Declared>,
    watch: Watch,
    /// The key of an encrypted memory (`crate::storage::cipher`): its file's, or, held in memory,
    /// the one its exports are encrypted with.
    key: Option<Key>,
    /// A memory kept through a VFS of the engine's (a page store, a file): its hold on its
    /// name, let go after the connection (declared first) is closed.
    _held: Option<Box<dyn std::any::Any>>,
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory").finish_non_exhaustive()
    }
}

/// What a tool call's typed response becomes: a [`Value`] ([`Memory::call`]) or JSON text
/// ([`Memory::call_text`]). One dispatch serves both, so a build links the responses'
/// serializations only for the forms it uses.
trait Respond {
    type Out;
    fn respond<T: Serialize>(value: T) -> Self::Out;
}

/// Responses as [`Value`]s.
struct AsValue;

impl Respond for AsValue {
    type Out = Value;
    fn respond<T: Serialize>(value: T) -> Value {
        serde_json::to_value(value).expect("responses serialize to JSON")
    }
}

/// Responses as JSON text, written straight from the typed response: the text of its
/// [`Value`] without building one (no responses hold an `f32`, the one type whose text
/// differs between the two paths).
struct AsText;

impl Respond for AsText {
    type Out = String;
    fn respond<T: Serialize>(value: T) -> String {
        crate::api::write::to_text(&value).expect("responses serialize to JSON")
    }
}

/// `Memory::dispatch`, from the table of operations (`crate::api::with_operations`): each
/// tool name runs the typed method of that name on its options read from JSON.
macro_rules! dispatch {
    ($($name:ident($options:ty $(, $extra:expr)*) -> $response:ty { $($fact:ident: $value:expr),* })*) => {
        fn dispatch<R: Respond>(&mut self, tool: &str, args: &Value) -> Result<R::Out> {
            Ok(match tool {
                $(stringify!($name) => R::respond::<$response>(self.$name(&from_json::<$options>(args)? $(, $extra)*)?),)*
                other => return Err(Error::UnknownTool(other.into())),
            })
        }
    };
}

impl Memory {
    /// A new, empty memory held in memory, stamped by the system clock.
    pub fn open_in_memory() -> Result<Self> {
        Self::open_in_memory_with_clock(Box::new(SystemClock))
    }

    /// A new, empty memory held in memory, stamped by `clock`.
    pub fn open_in_memory_with_clock(clock: Box<dyn Clock>) -> Result<Self> {
        Self::from_connection(Connection::open_in_memory()?, clock)
    }

    /// The memory in the database file at `path` (created if absent, migrated if older).
    ///
    /// The file is put in WAL mode with `synchronous = NORMAL`: a commit no longer waits
    /// for a disk sync, and a crash can lose at most the last commits, never corrupt the
    /// file.
    pub fn open(path: impl AsRef<std::path::Path>, clock: Box<dyn Clock>) -> Result<Self> {
        // WAL fixes the page size, so it comes after the first table is created.
        let memory = Self::from_connection(Connection::open(path)?, clock)?;
        memory.use_wal()?;
        Ok(memory)
    }

    /// The encrypted memory in the database file at `path`, created (and encrypted) if
    /// absent, as [`Memory::open`] does. Fails with [`Error::WrongKey`] when `key` does not
    /// open the file (another key, or a file that is not encrypted), and changes nothing.
    pub fn open_encrypted(path: impl AsRef<std::path::Path>, key: Key, clock: Box<dyn Clock>) -> Result<Self> {
        let memory = Self::from_keyed_connection(Connection::open(path)?, Some(key), clock)?;
        memory.use_wal()?;
        Ok(memory)
    }

    /// WAL with `synchronous = NORMAL`: a commit appends to the log without a sync; the
    /// log is synced at checkpoints. A crash can lose the last commits, never corrupt.
    pub(crate) fn use_wal(&self) -> Result<()> {
        crate::storage::set_pragma(&self.conn, "journal_mode", "WAL")?;
        crate::storage::set_pragma(&self.conn, "synchronous", "NORMAL")?;
        Ok(())
    }

    /// The memory on an open connection (any VFS: OPFS in a browser worker, a file
    /// natively), brought to the current schema. An encrypted database fails with
    /// [`Error::Encrypted`].
    pub fn from_connection(conn: Connection, clock: Box<dyn Clock>) -> Result<Self> {
        Self::from_keyed_connection(conn, None, clock)
    }

    /// The memory on an open connection, as [`Memory::from_connection`], with the key its
    /// file is (or, new, will be) encrypted with: [`Error::WrongKey`] when it does not open
    /// it. The connection's VFS must be one SQLite3 Multiple Ciphers wraps (natively the
    /// default; in wasm see the binding's `openOpfs`).
    pub fn from_keyed_connection(mut conn: Connection, key: Option<Key>, clock: Box<dyn Clock>) -> Result<Self> {
        match &key {
            Some(key) => cipher::apply(&conn, key)?,
            None => cipher::readable(&conn, false)?,
        }
        // One page size on every target (SQLite's default is 4096 natively, 8192 in the wasm
        // build), so export bytes are alike wherever they were made. A no-op on a database
        // that already has pages.
        crate::storage::set_pragma(&conn, "page_size", PAGE_SIZE)?;
        tune(&conn)?;
        migrate(&mut conn)?;
        let watch = Watch::default();
        watch.install(&mut conn)?;
        let (lexical, names, declared) = (LexicalIndex::new(watch.clone()), NameIndex::new(watch.clone()), Declared::kept(watch.clone()));
        let capture = capture_for(&conn)?;
        Ok(Memory { capture, conn, clock, vectors: VectorIndex::default(), lexical, names, declared, watch, key, _held: None })
    }

    /// The memory kept in `store` (`crate::storage::pages`: a Durable Object's storage, through
    /// the binding), created if the store is empty, encrypted with `key` if given (as
    /// [`Memory::from_keyed_connection`]). `name` tells it from the other memories open in
    /// this program: a second open of a name still open is [`Error::AlreadyOpen`].
    ///
    /// SQLite keeps its rollback journal in memory, so each page a commit changes reaches
    /// the store once; the host commits a call's writes to its storage together, or none.
    pub fn open_pages(name: &str, store: std::rc::Rc<dyn PageStore>, key: Option<Key>, clock: Box<dyn Clock>) -> Result<Self> {
        let claim = pages::claim(name, store).ok_or_else(|| Error::AlreadyOpen { field: "name".into(), name: name.to_owned() })?;
        let memory = Self::open_held(name, pages::register().and_then(|()| cipher::over(pages::VFS)), Box::new(claim), key, clock)?;
        // The journal in memory once the key has opened the file: the journal mode reads it.
        crate::storage::set_pragma(&memory.conn, "journal_mode", "MEMORY")?;
        crate::storage::set_pragma(&memory.conn, "cache_size", -pages::CACHE_KIB)?;
        Ok(memory)
    }

    /// The memory in the file at `path`, kept through `files` (`crate::storage::file`: the
    /// wasm binding's `node:fs`, or `StdFileSystem` natively), created if absent,
    /// encrypted with `key` if given (as [`Memory::from_keyed_connection`]). A second open
    /// of a path still open in this program is [`Error::AlreadyOpen`] (field `path`); the
    /// package keeps other programs out with a lock file.
    ///
    /// WAL with `synchronous = NORMAL`, as [`Memory::open`]: a commit is in the host's files
    /// when this returns, whole, and a crash leaves every commit before it; a checkpoint
    /// ([`Memory::checkpoint`], and closing) syncs them, after which they outlive a power
    /// loss. Why WAL, and how it runs without shared memory: `crate::storage::file`.
    #[cfg(any(not(target_arch = "wasm32"), feature = "file"))]
    pub fn open_file(
        path: &str,
        files: std::rc::Rc<dyn crate::storage::file::FileSystem>,
        key: Option<Key>,
        clock: Box<dyn Clock>,
    ) -> Result<Self> {
        use crate::storage::file;
        let claim = file::claim(path, files).ok_or_else(|| Error::AlreadyOpen { field: "path".into(), name: path.to_owned() })?;
        let memory = Self::open_held(path, file::register().and_then(|()| cipher::over(file::VFS)), Box::new(claim), key, clock)?;
        memory.use_wal()?;
        Ok(memory)
    }

    /// The memory `name` through `vfs`, one of the engine's VFSs (the cipher's over it), on
    /// which `held` registered what keeps it. The connection holds its lock from its first
    /// read to its close: one connection keeps the memory, so SQLite may keep its page cache
    /// across transactions, and a log needs no shared memory.
    fn open_held(
        name: &str,
        vfs: std::result::Result<String, String>,
        held: Box<dyn std::any::Any>,
        key: Option<Key>,
        clock: Box<dyn Clock>,
    ) -> Result<Self> {
        let vfs = vfs.map_err(Error::Storage)?;
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_CREATE;
        let conn = Connection::open_with_flags_and_vfs(name, flags, vfs.as_str())?;
        conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE")?;
        let mut memory = Self::from_keyed_connection(conn, key, clock)?;
        memory._held = Some(held);
        Ok(memory)
    }

    /// Whether the memory is encrypted: its file at rest, or, held in memory, its exports.
    pub fn is_encrypted(&self) -> bool {
        self.key.is_some()
    }

    /// Encrypts the memory under `key`, re-encrypts it under a new one, or decrypts it
    /// (`None`). A file is rewritten in place, in one transaction; a memory held in memory
    /// only changes the key its exports are encrypted with.
    pub fn rekey(&mut self, key: Option<Key>) -> Result<()> {
        if !self.in_memory() {
            cipher::rekey(&self.conn, key.as_ref())?;
        }
        self.key = key;
        Ok(())
    }

    fn in_memory(&self) -> bool {
        self.conn.path().is_none_or(str::is_empty)
    }

    fn now(&self) -> String {
        format_iso(self.clock.now_ms())
    }

    // Every operation below runs its options' `validate()` first, so a typed call is
    // checked exactly as `call` is, before anything is read or written.

    /// Stores a memory, and the declarations riding on it (design §2). The memory is
    /// stored even when its associations are malformed; what was dropped is reported.
    pub fn store(&mut self, opts: &StoreOptions) -> Result<StoreResponse> {
        opts.validate()?;
        let now = self.now();
        let tx = self.conn.savepoint()?;
        let (id, associations) = store_in(&tx, opts, &now)?;
        keep_changes(&mut self.capture, &tx)?;
        tx.commit()?;
        if opts.embedding.is_some() {
            self.vectors.stored(&self.conn, Kind::Mem, id);
        }
        Ok(StoreResponse { ok: true, result: "stored", id, associations })
    }

    /// Stores many memories in one transaction, each as [`Memory::store`] would: all of
    /// them, or none when an item is malformed (every item is checked before the first is
    /// written). `progress(done, total)` runs once the batch is checked (`done` 0) and after
    /// each item is written, for a caller that reports progress; the batch is committed
    /// only when this returns.
    pub fn store_many(&mut self, opts: &StoreManyOptions, mut progress: impl FnMut(usize, usize)) -> Result<StoreManyResponse> {
        opts.validate()?;
        let now = self.now();
        let tx = self.conn.savepoint()?;
        let total = opts.items.len();
        let mut items = Vec::with_capacity(total);
        progress(0, total);
        for (i, item) in opts.items.iter().enumerate() {
            let (id, associations) = store_in(&tx, &item.store(opts), &now)?;
            items.push(StoredItem { id, associations });
            progress(i + 1, total);
        }
        keep_changes(&mut self.capture, &tx)?;
        tx.commit()?;
        for (item, stored) in opts.items.iter().zip(&items) {
            if item.embedding.is_some() {
                self.vectors.stored(&self.conn, Kind::Mem, stored.id);
            }
        }
        Ok(StoreManyResponse { ok: true, result: "stored", items })
    }

    /// One agent's whole memory as JSONL in the reference's export format
    /// (`cpersona-export/1.1`, `crate::transfer::jsonl`).
    pub fn export_memories(&self, opts: &ExportMemoriesOptions) -> Result<ExportMemoriesResponse> {
        opts.validate()?;
        crate::transfer::jsonl::export(&self.conn, opts, &self.now())
    }

    /// Brings in an export (ours or the reference's) under new ids, in one transaction:
    /// everything, or nothing when a record is malformed; with `dry_run`, checks and counts
    /// only.
    pub fn import_memories(&mut self, opts: &ImportMemoriesOptions) -> Result<ImportMemoriesResponse> {
        opts.validate()?;
        let now = self.now();
        let tx = self.conn.savepoint()?;
        let out = crate::transfer::jsonl::import(&tx, opts, &now)?;
        if !out.dry_run {
            keep_changes(&mut self.capture, &tx)?;
            tx.commit()?;
        }
        Ok(out)
    }

    /// Archives an episode: a summarized conversation.
    pub fn archive_episode(&mut self, opts: &EpisodeOptions) -> Result<EpisodeResponse> {
        opts.validate()?;
        let now = self.now();
        let tx = self.conn.savepoint()?;
        let response = records::archive_episode(&tx, opts, &now)?;
        keep_changes(&mut self.capture, &tx)?;
        tx.commit()?;
        if opts.embedding.is_some() {
            self.vectors.stored(&self.conn, Kind::Ep, response.episode_id);
        }
        Ok(response)
    }

    /// Declares entities, aliases, mentions and relations after the fact, and retracts.
    pub fn declare_associations(&mut self, opts: &DeclareOptions) -> Result<DeclareResponse> {
        opts.validate()?;
        let now = self.now();
        let tx = self.conn.savepoint()?;
        let scope = opts.scope();
        let declared_by = opts.declared_by.unwrap_or_default().as_str();
        let declarer = Declarer { conn: &tx, scope: &scope, declared_by, now: &now };
        let mut report = DeclareReport::default();
        let mut cut = Cut::default();
        // predicates first, so a relation declared beside one is checked against it; then
        // invalidations, so one that closes what a relation of the call replaces is no conflict
        let predicates = list(&opts.predicates, "predicates", &mut cut);
        declarer.predicates(predicates, &cut, &mut report)?;
        let invalidated = match &opts.invalidate {
            None => None,
            Some(_) => Some(declarer.invalidate(list(&opts.invalidate, "invalidate", &mut cut), &cut, &mut report)?),
        };
        let (entities, relations) = match &opts.associations {
            None => (&[][..], &[][..]),
            Some(a) => (list(&a.entities, "entities", &mut cut), list(&a.relations, "relations", &mut cut)),
        };
        declarer.items(entities, relations, &cut, opts.anchor()?, &mut report)?;
        let retracted = match &opts.retract {
            None => None,
            Some(r) => {
                let relations = list(&r.relations, "retract.relations", &mut cut);
                let mentions = list(&r.mentions, "retract.mentions", &mut cut);
                Some(declarer.retract(relations, mentions, &cut, &mut report)?)
            }
        };
        keep_changes(&mut self.capture, &tx)?;
        tx.commit()?;
        Ok(DeclareResponse { ok: true, result: "declared", report, retracted, invalidated })
    }

    /// An entity's neighbourhood (design §4).
    pub fn traverse(&self, opts: &TraverseOptions) -> Result<TraverseResponse> {
        opts.validate()?;
        traverse::traverse(&self.conn, opts, self.clock.now_ms())
    }

    /// Ranked records for a query: lexical and vector arms fused and gated (SPEC §4).
    /// Reads no declaration: the graph never changes what recall returns.
    pub fn recall(&self, opts: &RecallOptions) -> Result<RecallResponse> {
        opts.validate()?;
        recall::recall(&self.conn, &self.vectors, &self.lexical, opts, self.clock.now_ms())
    }

    /// Retrieval read through the declared graph: items with claims, roles and walked
    /// evidence (design §3).
    pub fn reconstruct(&self, opts: &ReconstructOptions) -> Result<ReconstructResponse> {
        opts.validate()?;
        let declared = self.declared.with(&self.conn, |d| *d)?;
        reconstruct::reconstruct(&self.conn, &self.vectors, &self.lexical, &self.names, declared, opts, self.clock.now_ms())
    }

    /// `recall`, reranked: `rerank(query, candidates)` scores the first `depth` messages of
    /// recall's order (at most [`MAX_RERANK`], each its ref and text) with one number each,
    /// and recall then ranks by them (`rerank` on [`RecallOptions`]). The package's `rerank`
    /// hook does the same in JavaScript.
    pub fn recall_reranked(
        &self,
        opts: &RecallOptions,
        depth: usize,
        rerank: impl FnOnce(&str, &[(String, String)]) -> Vec<f64>,
    ) -> Result<RecallResponse> {
        let limit = opts.limit().max(depth.min(MAX_RERANK) as i64).min(RECALL_LIMIT.1);
        let first = self.recall(&RecallOptions { limit: Some(limit), rerank: None, ..opts.clone() })?;
        let candidates: Vec<(String, String)> =
            first.messages.into_iter().take(depth.min(MAX_RERANK)).map(|m| (m.reference, m.content)).collect();
        let scores = scored(&opts.query, candidates, rerank)?;
        self.recall(&RecallOptions { rerank: Some(scores), ..opts.clone() })
    }

    /// `reconstruct`, reranked: `rerank(query, candidates)` scores the first `depth` of its
    /// candidates (at most [`MAX_RERANK`], each its ref and text, in `trace`'s order), and
    /// reconstruct then ranks its candidates, and so its items, by them (`rerank` on
    /// [`ReconstructOptions`]). The package's `rerank` hook does the same in JavaScript.
    pub fn reconstruct_reranked(
        &self,
        opts: &ReconstructOptions,
        depth: usize,
        rerank: impl FnOnce(&str, &[(String, String)]) -> Vec<f64>,
    ) -> Result<ReconstructResponse> {
        let first = self.reconstruct(&ReconstructOptions { trace: Some(true), rerank: None, ..opts.clone() })?;
        let refs: Vec<Ref> = first
            .trace
            .map(|t| t.candidate_refs)
            .unwrap_or_default()
            .iter()
            .filter_map(|r| Ref::parse(r))
            .take(depth.min(MAX_RERANK))
            .collect();
        let read = records::Reader::new(&self.conn, &opts.scope()).read_many(refs.iter().copied())?;
        let candidates: Vec<(String, String)> =
            refs.iter().filter_map(|r| read.get(r)).map(|r| (r.at.to_string(), r.content.clone())).collect();
        let scores = scored(&opts.query, candidates, rerank)?;
        self.reconstruct(&ReconstructOptions { rerank: Some(scores), ..opts.clone() })
    }

    /// A plain dot-product loop of `query` over every stored vector of its dimension, with
    /// no scope, ranking or row reads: the floor the vector arm is measured against
    /// (`plain_scan_ms` in the scale bench). Returns the sum of the products.
    #[doc(hidden)]
    pub fn plain_vector_scan(&self, query: &[f32]) -> Result<f32> {
        self.vectors.plain_scan(&self.conn, query)
    }

    /// Full records for refs.
    pub fn get_contents(&self, opts: &GetContentsOptions) -> Result<GetContentsResponse> {
        opts.validate()?;
        records::get_contents(&self.conn, opts, &opts.as_of(self.clock.now_ms()))
    }

    /// Deletes a memory with every mention and relation that depends on it.
    pub fn delete_memory(&mut self, opts: &DeleteMemoryOptions) -> Result<DeleteResponse> {
        opts.validate()?;
        let id = opts.id()?;
        let out = self.in_transaction(|tx| records::delete(tx, Kind::Mem, &opts.agent_id, id, "memory_id"))?;
        self.vectors.removed(Kind::Mem, id);
        Ok(out)
    }

    /// Deletes an episode with every mention and relation that depends on it.
    pub fn delete_episode(&mut self, opts: &DeleteEpisodeOptions) -> Result<DeleteResponse> {
        opts.validate()?;
        let id = opts.id()?;
        let out = self.in_transaction(|tx| records::delete(tx, Kind::Ep, &opts.agent_id, id, "episode_id"))?;
        self.vectors.removed(Kind::Ep, id);
        Ok(out)
    }

    /// Deletes an entity with its aliases, mentions and relations.
    pub fn delete_entity(&mut self, opts: &DeleteEntityOptions) -> Result<DeleteResponse> {
        opts.validate()?;
        self.in_transaction(|tx| entities::delete(tx, &opts.agent_id, opts.entity_id))
    }

    /// An entity's timeline: every relation on it, current or closed, in time order.
    pub fn history(&self, opts: &HistoryOptions) -> Result<HistoryResponse> {
        opts.validate()?;
        crate::graph::history::history(&self.conn, opts)
    }

    /// A page of the agent's entities with alias, mention and relation counts.
    pub fn list_entities(&self, opts: &ListEntitiesOptions) -> Result<ListEntitiesResponse> {
        opts.validate()?;
        entities::list(&self.conn, opts, self.clock.now_ms())
    }

    /// A page of the agents the memory holds, with their counts, by `agent_id`: what each
    /// holds in every table a record, an entity or a relation lives in.
    pub fn list_agents(&self, opts: &ListAgentsOptions) -> Result<ListAgentsResponse> {
        opts.validate()?;
        let mut stmt = self.conn.prepare(
            "SELECT agent_id, sum(m), sum(e), sum(n), sum(r) FROM ( \
             SELECT agent_id, count(*) AS m, 0 AS e, 0 AS n, 0 AS r FROM memories GROUP BY agent_id \
             UNION ALL SELECT agent_id, 0, count(*), 0, 0 FROM episodes GROUP BY agent_id \
             UNION ALL SELECT agent_id, 0, 0, count(*), 0 FROM entities GROUP BY agent_id \
             UNION ALL SELECT agent_id, 0, 0, 0, count(*) FROM relations GROUP BY agent_id) \
             GROUP BY agent_id ORDER BY agent_id",
        )?;
        let all = stmt.query_map([], |r| {
            Ok(ListedAgent { agent_id: r.get(0)?, memories: r.get(1)?, episodes: r.get(2)?, entities: r.get(3)?, relations: r.get(4)? })
        })?;
        let all = all.collect::<rusqlite::Result<Vec<_>>>()?;
        let (total, offset) = (all.len() as i64, opts.offset.unwrap_or(0));
        let agents: Vec<ListedAgent> =
            all.into_iter().skip(usize::try_from(offset).unwrap_or(usize::MAX)).take(opts.limit() as usize).collect();
        let end = offset.saturating_add(agents.len() as i64);
        Ok(ListAgentsResponse { agents, total, next_offset: (end < total).then_some(end) })
    }

    /// A page of the agent's memories, newest first.
    pub fn list_memories(&self, opts: &ListMemoriesOptions) -> Result<ListMemoriesResponse> {
        opts.validate()?;
        data::list_memories(&self.conn, opts, &opts.as_of(self.clock.now_ms()))
    }

    /// Corrects a memory's content, metadata, timestamp or embedding in place; the
    /// declarations resting on it stay.
    pub fn update_memory(&mut self, opts: &UpdateMemoryOptions) -> Result<UpdateMemoryResponse> {
        opts.validate()?;
        let id = opts.id()?;
        let out = self.in_transaction(|tx| data::update_memory(tx, id, opts))?;
        // The vector may have changed or gone: the index takes the committed row again.
        self.vectors.removed(Kind::Mem, id);
        self.vectors.stored(&self.conn, Kind::Mem, id);
        Ok(out)
    }

    /// Deletes every record, entity and relation of one agent.
    pub fn delete_agent_data(&mut self, opts: &DeleteAgentDataOptions) -> Result<DeleteAgentDataResponse> {
        opts.validate()?;
        let out = self.in_transaction(|tx| data::delete_agent_data(tx, opts))?;
        // Many rows of every kind went: the index is rebuilt from the database on next use.
        self.vectors.clear();
        Ok(out)
    }

    /// Deletes the agent's expired records with everything that depends on them.
    pub fn purge_expired(&mut self, opts: &PurgeExpiredOptions) -> Result<PurgeExpiredResponse> {
        opts.validate()?;
        let now = self.now();
        let out = self.in_transaction(|tx| data::purge_expired(tx, opts, &now))?;
        if out.memories + out.episodes > 0 {
            // Records went, some perhaps with vectors: rebuilt from the database on next use.
            self.vectors.clear();
        }
        Ok(out)
    }

    /// The records not embedded with a model, a page at a time, for re-embedding them
    /// (every agent's: the owner's call, not an agent's tool).
    pub fn embedding_backlog(&self, opts: &EmbeddingBacklogOptions) -> Result<EmbeddingBacklogResponse> {
        opts.validate()?;
        records::embedding_backlog(&self.conn, opts)
    }

    /// Sets records' embeddings and the model that made them, in one transaction.
    pub fn set_embeddings(&mut self, opts: &SetEmbeddingsOptions) -> Result<SetEmbeddingsResponse> {
        opts.validate()?;
        let (updated, missing) = self.in_transaction(|tx| records::set_embeddings(tx, opts))?;
        for r in &updated {
            self.vectors.removed(r.kind, r.id);
            self.vectors.stored(&self.conn, r.kind, r.id);
        }
        Ok(SetEmbeddingsResponse { ok: true, updated: updated.len(), missing })
    }

    /// Starts syncing this memory as device `device` (1 to [`sync::MAX_DEVICE`], the
    /// number the relay gave this device): from now on each write keeps what it changed as
    /// a pending change ([`Memory::sync_pending`]), new records take ids this device alone
    /// makes (`device × 2^32 + n`), and new entities and relations ids their keys derive, so
    /// that two devices' writes never collide. Existing rows keep their ids. Starting again
    /// as the same device does nothing; another number is `invalid_value` (field `device`).
    pub fn sync_start(&mut self, device: u32) -> Result<()> {
        let tx = self.conn.savepoint()?;
        sync::start(&tx, device)?;
        tx.commit()?;
        if self.capture.is_none() {
            self.capture = capture_for(&self.conn)?;
        }
        Ok(())
    }

    /// This memory's sync (`None` when it does not sync).
    pub fn sync_status(&self) -> Result<Option<SyncStatus>> {
        sync::status(&self.conn)
    }

    /// This device's changes the log has not taken yet, in the order to push them: those
    /// after seq `after` (0: all; a client passes the last it pushed, so that pushing n
    /// changes reads each once).
    pub fn sync_pending(&self, after: u64) -> Result<Vec<PendingChange>> {
        sync::pending(&self.conn, after)
    }

    /// Brings entries of the log in, in one transaction: entries at or below the applied
    /// position are skipped (a repeat), the rest must follow it without a gap
    /// (`invalid_value`, field `entries[i].position`, and nothing applied). This device's
    /// pending changes are undone, the entries applied in order (the later change wins; a
    /// declaration whose endpoint is gone goes), those of its changes the log took are no
    /// longer pending, and the others are applied again on top. Returns how many entries
    /// were applied. The indexes follow.
    pub fn sync_apply(&mut self, entries: &[LogEntry]) -> Result<u64> {
        let Some(capture) = &self.capture else {
            return Err(Error::Invalid { field: "entries".into(), reason: "cannot be applied: this memory does not sync".into() });
        };
        capture.enable(false);
        let tx = self.conn.savepoint()?;
        let applied = sync::apply_log(&tx, entries).and_then(|n| {
            tx.commit()?;
            Ok(n)
        });
        // What was applied is not this device's change; a fresh session records the next.
        self.capture = capture_for(&self.conn)?;
        if applied.as_ref().is_ok_and(|&n| n > 0) {
            self.vectors.clear();
        }
        applied
    }

    /// This memory as the log left it at its applied position, `(position, bytes)`: plain
    /// database bytes (seal them before they leave the device) without this device's
    /// pending changes or sync state, and with nothing left of what a change deleted. What a
    /// relay keeps so that a new device starts from it ([`Memory::sync_join`]) and the log
    /// before it can go. A memory that does not sync: `invalid_value`, field `sync`.
    pub fn sync_snapshot(&mut self) -> Result<(u64, Vec<u8>)> {
        let Some((_, applied)) = sync::state(&self.conn)? else {
            return Err(Error::Invalid { field: "sync".into(), reason: "has no snapshot: this memory does not sync".into() });
        };
        let image = self.export_decrypted()?;
        Ok((applied, sync::snapshot(&image)?))
    }

    /// Replaces this memory by `bytes`, a snapshot of the log at `position`
    /// ([`Memory::sync_snapshot`] on another device), and syncs as `device` from there:
    /// how a new device starts, or one the relay's log moved past. A memory that synced
    /// keeps its device (another number is `invalid_value`, field `device`), its counters and
    /// its pending changes but those up to `logged` (the last of its changes the relay has
    /// logged: they are in the snapshot, or in the log after it), applied again on top of the
    /// snapshot. Bad bytes change nothing.
    pub fn sync_join(&mut self, bytes: &[u8], position: u64, device: u32, logged: u64) -> Result<()> {
        if device == 0 || device > sync::MAX_DEVICE {
            return Err(Error::OutOfRange { field: "device".into(), range: format!("1 to {}", sync::MAX_DEVICE), got: device.to_string() });
        }
        if let Some((d, _)) = sync::state(&self.conn)? {
            if d != device {
                return Err(Error::Invalid { field: "device".into(), reason: format!("cannot change: this memory syncs as device {d}") });
            }
        }
        let kept = sync::keep(&self.conn, logged)?;
        // The session goes before the database it watches is replaced.
        self.capture = None;
        let joined = self.replace_with(bytes, |scratch| {
            let tx = scratch.transaction()?;
            sync::join(&tx, device, position, &kept)?;
            tx.commit()?;
            Ok(())
        });
        self.capture = capture_for(&self.conn)?;
        joined
    }

    fn in_transaction<T>(&mut self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let tx = self.conn.savepoint()?;
        let out = f(&tx)?;
        keep_changes(&mut self.capture, &tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// The whole database as bytes (an SQLite database image), to save anywhere and
    /// load back with [`Memory::import`]; encrypted under the memory's key when it has one
    /// (load those back with [`Memory::import_encrypted`]).
    pub fn export(&mut self) -> Result<Vec<u8>> {
        let Some(key) = &self.key else { return self.export_decrypted() };
        let scratch = Scratch::new();
        {
            let mut dest = scratch.open()?;
            cipher::apply(&dest, key)?;
            if self.in_memory() {
                // Plain pages cannot be backed up into an encrypted database: the rows are
                // rebuilt there instead (the same rows, ids and derived tables).
                drop(crate::transfer::import::rebuild(&self.conn.serialize(MAIN_DB)?, dest, PAGE_SIZE)?);
            } else {
                crate::storage::set_pragma(&dest, "page_size", PAGE_SIZE)?;
                // Exclusive: the copy is marked for WAL until the end (below), and a log
                // needs shared memory otherwise, which no VFS in wasm has.
                crate::storage::set_pragma(&dest, "locking_mode", "EXCLUSIVE")?;
                crate::storage::copy_database(&self.conn, &mut dest)?;
                // The copy took the source's WAL mark with its first page: an export has no
                // log, and is a rollback-journal database wherever it is opened.
                crate::storage::set_pragma(&dest, "journal_mode", "DELETE")?;
            }
        }
        scratch.bytes()
    }

    /// The whole database as plain bytes, decrypted if the memory is encrypted. The image
    /// of a file in WAL mode is marked as a rollback-journal database: it has no log.
    pub fn export_decrypted(&mut self) -> Result<Vec<u8>> {
        let image = self.conn.serialize(MAIN_DB)?;
        Ok(crate::transfer::import::without_wal(&image).into_owned())
    }

    /// Replaces this memory's whole content with encrypted bytes from [`Memory::export`],
    /// decrypted with `key` ([`Error::WrongKey`] when it does not), then checked as
    /// [`Memory::import`] checks plain bytes. The memory keeps its own key. A memory without
    /// a key refuses them (`invalid_value`, field `decrypt`): its exports would be their
    /// plaintext, so keeping them decrypted takes [`Memory::import_decrypted`].
    pub fn import_encrypted(&mut self, bytes: &[u8], key: &Key) -> Result<()> {
        if self.key.is_none() {
            return Err(Error::Invalid {
                field: "decrypt".into(),
                reason: "must be true to import encrypted bytes into a memory without a key (its exports would be their plaintext); or give the memory a key first (rekey)".into(),
            });
        }
        self.import_with_key(bytes, key)
    }

    /// [`Memory::import_encrypted`], asked to keep the plaintext: into a memory without a
    /// key, the bytes are imported decrypted (and its exports are plain). A memory with a
    /// key keeps it, as with [`Memory::import_encrypted`].
    pub fn import_decrypted(&mut self, bytes: &[u8], key: &Key) -> Result<()> {
        self.import_with_key(bytes, key)
    }

    fn import_with_key(&mut self, bytes: &[u8], key: &Key) -> Result<()> {
        let scratch = Scratch::with_bytes(bytes)?;
        let plain = crate::transfer::import::damaged((|| {
            let mut conn = scratch.open()?;
            crate::transfer::import::distrust(&conn)?;
            // A file copied from a memory in WAL mode opens without the shared memory a
            // log needs elsewhere (no VFS in wasm has it) only under an exclusive lock.
            crate::storage::set_pragma(&conn, "locking_mode", "EXCLUSIVE")?;
            cipher::apply(&conn, key)?;
            Ok(conn.serialize(MAIN_DB)?.to_vec())
        })())?;
        self.import_plain(&plain)
    }

    /// Replaces this memory's whole content with database bytes from [`Memory::export`].
    ///
    /// The bytes are never adopted as they are: their schema must be exactly the one our
    /// migrations give their version, and their rows are copied into a fresh database
    /// built by our own migrations and checked against the engine's invariants
    /// (`src/transfer/import.rs`). Only then is the result copied over this one, so bad bytes
    /// change nothing; a refusal is `not_a_memory` saying what was wrong.
    ///
    /// The memory imported does not sync, whatever the bytes' did; a memory that syncs
    /// refuses an import (`invalid_value`, field `bytes`).
    ///
    /// Bytes that are not a plain SQLite database, imported into a memory with a key, are
    /// taken for its own export and decrypted with its key ([`Error::WrongKey`] when it does
    /// not open them); another key's bytes take [`Memory::import_encrypted`].
    pub fn import(&mut self, bytes: &[u8]) -> Result<()> {
        if !crate::transfer::import::is_plain_image(bytes) {
            if let Some(key) = self.key.clone() {
                return self.import_with_key(bytes, &key);
            }
        }
        self.import_plain(bytes)
    }

    fn import_plain(&mut self, bytes: &[u8]) -> Result<()> {
        if self.capture.is_some() {
            // Replacing every row at once is no change the other devices could apply.
            return Err(Error::Invalid {
                field: "bytes".into(),
                reason: "cannot replace a memory that syncs: import them into a memory that does not".into(),
            });
        }
        self.replace_with(bytes, |_| Ok(()))
    }

    /// Replaces the database with `bytes`, checked and rebuilt as `import` does, without
    /// their sync; `then` runs on the rebuilt copy before it replaces this one, so a failure
    /// of either changes nothing.
    fn replace_with(&mut self, bytes: &[u8], then: impl FnOnce(&mut Connection) -> Result<()>) -> Result<()> {
        // An encrypted file takes pages only from another encrypted database: the rows
        // are rebuilt in one, under the memory's key.
        let encrypted_file = self.key.as_ref().filter(|_| !self.in_memory());
        let (fresh, _file) = match encrypted_file {
            None => (Connection::open_in_memory()?, None),
            Some(key) => {
                let file = Scratch::new();
                let conn = file.open()?;
                cipher::apply(&conn, key)?;
                (conn, Some(file))
            }
        };
        let mut scratch = crate::transfer::import::rebuild(bytes, fresh, PAGE_SIZE)?;
        // A device's sync is its own: the memory imported does not sync (its device number
        // and pending changes would be another device's).
        scratch.execute_batch("DELETE FROM sync_state; DELETE FROM sync_pending")?;
        then(&mut scratch)?;
        // The database is replaced below: the indexes are rebuilt from it on next use.
        self.vectors.clear();
        self.lexical.clear();
        self.names.clear();
        self.declared.clear();
        if self.in_memory() {
            // Held in memory: the checked scratch database becomes the memory. (A backup
            // could not copy it over when the page sizes differ: an in-memory destination
            // cannot change its page size.)
            tune(&scratch)?;
            self.conn = scratch;
            self.watch.install(&mut self.conn)?;
            return Ok(());
        }
        // A backup gives the destination the source's page size, except in WAL mode,
        // which fixes it: leave WAL for the copy when the sizes differ.
        let size = |c: &Connection| c.query_row("PRAGMA page_size", [], |r| r.get::<_, i64>(0));
        let journal: String = self.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
        let leave_wal = journal == "wal" && size(&scratch)? != size(&self.conn)?;
        if leave_wal {
            crate::storage::set_pragma(&self.conn, "journal_mode", "DELETE")?;
        }
        crate::storage::copy_database(&scratch, &mut self.conn)?;
        if leave_wal {
            crate::storage::set_pragma(&self.conn, "journal_mode", "WAL")?;
        }
        Ok(())
    }

    /// SQLite's `PRAGMA integrity_check`: an empty list when the database is sound, else
    /// the problems it found (for checking a memory after a crash; it reads every page).
    pub fn integrity_check(&self) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare("PRAGMA integrity_check")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(if rows == ["ok"] { Vec::new() } else { rows })
    }

    /// Copies a write-ahead log into the database file (`PRAGMA wal_checkpoint(PASSIVE)`),
    /// syncing both unless `synchronous = OFF`: with `synchronous = NORMAL` this is what
    /// makes committed writes survive a power loss. Does nothing outside WAL mode.
    pub fn checkpoint(&self) -> Result<()> {
        self.conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// Runs `calls` (tool name, JSON options) in order in one transaction, committed once;
    /// each gets its own outcome, as from [`Memory::call`].
    ///
    /// For a caller that applies together the requests that queued up while its previous
    /// commit was in flight (the OPFS worker's group commit): on storage where a commit
    /// costs a flush, they share one. Each write still takes effect entirely or not at all
    /// (a failing call rolls back to its own savepoint; the others stand), and a later call
    /// sees the earlier ones' writes. Nothing of the group is durable before this returns;
    /// the outer error means the commit itself failed, and then none of the calls took
    /// effect. `before_each(i)` runs just before call `i` (the wasm binding sets the clock
    /// reading its caller sent with it there).
    pub fn call_group(&mut self, calls: &[(String, Value)], before_each: impl FnMut(usize)) -> Result<Vec<Result<Value>>> {
        self.group::<AsValue>(calls, before_each)
    }

    /// [`Memory::call_group`] with each response as JSON text, as [`Memory::call_text`]
    /// gives it.
    pub fn call_group_text(&mut self, calls: &[(String, Value)], before_each: impl FnMut(usize)) -> Result<Vec<Result<String>>> {
        self.group::<AsText>(calls, before_each)
    }

    fn group<R: Respond>(&mut self, calls: &[(String, Value)], mut before_each: impl FnMut(usize)) -> Result<Vec<Result<R::Out>>> {
        self.conn.execute_batch("BEGIN")?;
        let mut results = Vec::with_capacity(calls.len());
        for (i, (tool, args)) in calls.iter().enumerate() {
            before_each(i);
            results.push(self.dispatch::<R>(tool, args));
            if self.conn.is_autocommit() {
                // SQLite rolled the whole transaction back (a full disk, an I/O error): the
                // calls so far are undone, so the group fails as one.
                let rolled_back = || {
                    let abort = rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ABORT);
                    Error::Sqlite(rusqlite::Error::SqliteFailure(abort, Some("the group's transaction was rolled back".into())))
                };
                // The vector index followed the calls' writes: rebuild it from the database.
                self.vectors.clear();
                return Err(results.pop().and_then(Result::err).unwrap_or_else(rolled_back));
            }
        }
        if let Err(e) = self.conn.execute_batch("COMMIT") {
            self.vectors.clear();
            if !self.conn.is_autocommit() {
                self.conn.execute_batch("ROLLBACK")?;
            }
            return Err(e.into());
        }
        Ok(results)
    }

    /// Runs one operation by its tool name with JSON options, returning JSON — the path
    /// shared by the wasm binding, tool calls and the conformance runner.
    ///
    /// Tools: every operation of [`crate::api::OPERATIONS`], by its name; the typed method of
    /// the same name runs it.
    pub fn call(&mut self, tool: &str, args: &Value) -> Result<Value> {
        self.dispatch::<AsValue>(tool, args)
    }

    /// [`Memory::call`] with the response as JSON text: the text of the [`Value`] `call`
    /// returns (the conformance runner compares the two on every recorded op), written
    /// without building that value first, by [`crate::api::write`]. The path of the wasm
    /// binding, whose responses cross into JavaScript as text for `JSON.parse`, and of the
    /// MCP server's tool results.
    pub fn call_text(&mut self, tool: &str, args: &Value) -> Result<String> {
        self.dispatch::<AsText>(tool, args)
    }

    crate::api::with_operations!(dispatch);
}

/// Writes one memory and the declarations riding on it, inside the caller's transaction.
fn store_in(tx: &Connection, opts: &StoreOptions, now: &str) -> Result<(i64, Option<DeclareReport>)> {
    let id = records::insert_memory(tx, opts, now)?;
    let associations = match &opts.associations {
        None => None,
        Some(assoc) => {
            let mut report = DeclareReport::default();
            let scope = opts.scope();
            let declarer = Declarer { conn: tx, scope: &scope, declared_by: DeclaredBy::Agent.as_str(), now };
            declarer.declare(assoc, Some(Ref { kind: Kind::Mem, id }), &mut report)?;
            Some(report)
        }
    };
    Ok((id, associations))
}

/// A lenient list of declaration items, empty when absent (its options' `validate` has
/// refused one that is not a list), what reading it cut added to `cut` under `path`.
fn list<'a>(items: &'a Option<Lenient>, path: &str, cut: &mut Cut) -> &'a [Value] {
    let Some(items) = items else { return &[] };
    cut.extend(items.cut.under(path));
    items.value.as_array().map_or(&[], Vec::as_slice)
}

/// The page size of every database this crate creates.
const PAGE_SIZE: i64 = 4096;

/// Per-connection settings, for a memory opened or imported.
fn tune(conn: &Connection) -> Result<()> {
    // The query planner stability guarantee: one plan per statement, whatever values are
    // bound. Without it SQLite's STAT4 build re-prepares a cached statement each time a
    // bound value changes, and plans could differ between two databases holding the same
    // rows.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.set_prepared_statement_cache_capacity(64);
    crate::storage::records::register_source_id(conn)
}

/// A reranker's scores for `candidates` as the `rerank` option takes them; a reranker that
/// gives another number of scores, or one that is not finite, is `invalid_value`.
fn scored(
    query: &str,
    candidates: Vec<(String, String)>,
    rerank: impl FnOnce(&str, &[(String, String)]) -> Vec<f64>,
) -> Result<Vec<RerankScore>> {
    let scores = if candidates.is_empty() { Vec::new() } else { rerank(query, &candidates) };
    if scores.len() != candidates.len() || scores.iter().any(|s| !s.is_finite()) {
        return Err(Error::Invalid {
            field: "rerank".into(),
            reason: format!(
                "the reranker gave {} scores for {} candidates; it must give one finite number each",
                scores.len(),
                candidates.len()
            ),
        });
    }
    Ok(candidates.into_iter().zip(scores).map(|((reference, _), score)| RerankScore { reference, score }).collect())
}

/// The session that records this device's writes, for a memory that syncs. Such a memory
/// also overwrites what it deletes (`secure_delete`): a memory deleted on any device leaves
/// no text in any device's file once the log is in.
fn capture_for(conn: &Connection) -> Result<Option<Session>> {
    Ok(match sync::state(conn)? {
        Some(_) => {
            crate::storage::set_pragma(conn, "secure_delete", true)?;
            Some(Session::new(conn)?)
        }
        None => None,
    })
}

/// Keeps what the write in `tx` changed as this device's next pending change (a memory that
/// syncs), before it commits, so the write and its change commit together; the session
/// then starts over.
fn keep_changes(capture: &mut Option<Session>, tx: &Connection) -> Result<()> {
    let Some(session) = capture else { return Ok(()) };
    if session.is_empty() {
        return Ok(());
    }
    let change = session.changeset(tx)?;
    if !change.is_empty() {
        sync::record(tx, &change)?;
    }
    *capture = Some(Session::new(tx)?);
    Ok(())
}
