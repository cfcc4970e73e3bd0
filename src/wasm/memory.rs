//! The `Memory` class JavaScript sees.

use super::convert::{options_from_js, response_to_js, text_to_js};
use super::error::{js_error, to_js_error};
use crate::{Clock, Error, Key, Memory};
use sqlite_wasm_vfs::sahpool::{self, OpfsSAHError, OpfsSAHPoolCfgBuilder, OpfsSAHPoolUtil};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// How often `storeMany` reports progress at most: often enough for a progress bar to move
/// smoothly, rarely enough that reporting (a call into JavaScript, in the OPFS worker a
/// message to the calling tab) costs nothing next to the writes.
const PROGRESS_EVERY_MS: f64 = 100.0;

/// Time from JavaScript: the reading a grouped call brought along (`callGroup`), else the
/// caller's clock function, else `Date.now()`.
struct JsClock(Option<js_sys::Function>, Rc<Cell<Option<f64>>>);

impl JsClock {
    fn new(f: Option<js_sys::Function>) -> (Box<JsClock>, Rc<Cell<Option<f64>>>) {
        let at = Rc::new(Cell::new(None));
        (Box::new(JsClock(f, at.clone())), at)
    }
}

impl Clock for JsClock {
    fn now_ms(&self) -> i64 {
        let given = self.1.get().or_else(|| self.0.as_ref().and_then(|f| f.call0(&JsValue::NULL).ok()).and_then(|v| v.as_f64()));
        given.unwrap_or_else(js_sys::Date::now) as i64
    }
}

/// A key from JavaScript: 32 bytes (`Uint8Array`) or a passphrase (string); anything else
/// is `invalid_value` (field `key`). The message never holds the key.
fn key_from_js(key: JsValue) -> Result<Key, JsValue> {
    if let Some(passphrase) = key.as_string() {
        return Key::passphrase(passphrase).map_err(to_js_error);
    }
    match key.dyn_into::<js_sys::Uint8Array>() {
        Ok(bytes) => Key::raw(&bytes.to_vec()).map_err(to_js_error),
        Err(_) => Err(to_js_error(Error::Invalid {
            field: "key".into(),
            reason: "must be a Uint8Array of 32 bytes or a passphrase string".into(),
        })),
    }
}

/// An optional key from JavaScript: `undefined` and `null` are none.
fn optional_key(key: JsValue) -> Result<Option<Key>, JsValue> {
    if key.is_undefined() || key.is_null() {
        return Ok(None);
    }
    key_from_js(key).map(Some)
}

thread_local! {
    /// The OPFS memories open in this worker. The pool's SQLite locks are no-ops (other
    /// workers are kept out by OPFS itself), so a second connection to the same file here
    /// would silently overwrite the first one's writes.
    static OPEN_OPFS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// This worker's hold on an OPFS memory's name and its pool, given back when the memory
/// is freed. The pool is paused then: that lets go of its `SyncAccessHandle`s, so the next
/// holder of the memory (a worker of another tab) can open it while this one lives on.
struct OpfsClaim(String, Option<OpfsSAHPoolUtil>);

impl OpfsClaim {
    fn take(name: &str) -> Result<OpfsClaim, JsValue> {
        // A list, not a `BTreeSet`: a worker has few memories open.
        let taken = OPEN_OPFS.with(|open| {
            let mut open = open.borrow_mut();
            let taken = open.iter().any(|n| n == name);
            if !taken {
                open.push(name.to_owned());
            }
            taken
        });
        if taken {
            return Err(js_error(
                &format!("the memory {name:?} is already open in this worker; free it first"),
                "already_open",
                Some("name"),
            ));
        }
        Ok(OpfsClaim(name.to_owned(), None))
    }
}

impl Drop for OpfsClaim {
    fn drop(&mut self) {
        // The connection is closed by now (`JsMemory` drops its memory first); a pool with a
        // file still open refuses to pause and keeps its handles until the worker ends.
        if let Some(pool) = &self.1 {
            let _ = pool.pause();
        }
        OPEN_OPFS.with(|open| open.borrow_mut().retain(|n| *n != self.0));
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("types.d.ts");

/// An associative memory held in an SQLite database in this JavaScript realm.
#[wasm_bindgen(js_name = Memory)]
pub struct JsMemory {
    inner: Memory,
    /// After `inner`: the name is given back only once the connection is closed.
    _opfs: Option<OpfsClaim>,
    /// The clock reading `callGroup` sets for the call it is running.
    clock_at: Rc<Cell<Option<f64>>>,
}

impl JsMemory {
    /// The memory `open` makes with the caller's clock and key (read first), on this thread.
    fn opened(
        clock: Option<js_sys::Function>,
        key: JsValue,
        open: impl FnOnce(Box<dyn Clock>, Option<Key>) -> crate::Result<Memory>,
    ) -> Result<JsMemory, JsValue> {
        let key = optional_key(key)?;
        let (clock, clock_at) = JsClock::new(clock);
        let inner = open(clock, key).map_err(to_js_error)?;
        Ok(JsMemory { inner, _opfs: None, clock_at })
    }
}

#[wasm_bindgen(js_class = Memory)]
impl JsMemory {
    /// Opens a new, empty memory held in memory.
    ///
    /// @param clock - optional function returning the current time in epoch milliseconds
    /// (defaults to `Date.now`); pass a fixed clock for reproducible output.
    /// @param key - optional: 32 bytes or a passphrase; the memory's exports are then
    /// encrypted with it (the database itself is in this realm's memory, as the key is).
    #[wasm_bindgen(js_name = openInMemory)]
    pub fn open_in_memory(
        #[wasm_bindgen(unchecked_param_type = "(() => number) | undefined")] clock: Option<js_sys::Function>,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | string | undefined")] key: JsValue,
    ) -> Result<JsMemory, JsValue> {
        Self::opened(clock, key, |clock, key| {
            let mut memory = Memory::open_in_memory_with_clock(clock)?;
            memory.rekey(key)?;
            Ok(memory)
        })
    }

    /// Opens the memory called `name` in the Origin Private File System, creating it if
    /// absent. Works only in a dedicated Worker in a secure context: it installs the
    /// SyncAccessHandle pool VFS (`sqlite-wasm-vfs` sahpool) in the directory
    /// `.associative-memory/<name>/`, which holds the database exclusively until this
    /// worker ends. The TypeScript wrapper's `openMemory({storage: 'opfs'})` calls this in
    /// its worker, after taking a Web Lock named for the memory.
    ///
    /// The database is opened through SQLite3 Multiple Ciphers' VFS over the pool, so it
    /// can be encrypted: with `key`, every page in OPFS is (a new memory from its first
    /// page on), and `rekey` can encrypt or decrypt it later.
    ///
    /// @param name - 1–64 characters of `A–Z a–z 0–9 . _ -`.
    /// @param clock - optional function returning epoch milliseconds (defaults to `Date.now`).
    /// @param key - optional: 32 bytes or a passphrase, for an encrypted memory.
    /// @throws an error with code `opfs_unavailable` outside a dedicated worker or secure
    /// context, `opfs` when the pool cannot be opened (held by another worker, say),
    /// `already_open` (field `name`) while this worker has the memory open (until `free()`),
    /// `wrong_key` when `key` does not open it, `encrypted` when it is encrypted and no key
    /// was given.
    #[wasm_bindgen(js_name = openOpfs)]
    pub async fn open_opfs(
        name: String,
        #[wasm_bindgen(unchecked_param_type = "(() => number) | undefined")] clock: Option<js_sys::Function>,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | string | undefined")] key: JsValue,
    ) -> Result<JsMemory, JsValue> {
        let key = optional_key(key)?;
        let valid = (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !valid || name.starts_with('.') {
            return Err(js_error(
                &format!("`name` must be 1–64 characters of A–Z a–z 0–9 . _ - (not starting with '.'), got {name:?}"),
                "invalid_value",
                Some("name"),
            ));
        }
        let mut claim = OpfsClaim::take(&name)?;
        let vfs = format!("associative-memory-{name}");
        let cfg = OpfsSAHPoolCfgBuilder::new().vfs_name(&vfs).directory(&format!(".associative-memory/{name}")).build();
        let pool_error = |e: OpfsSAHError| match e {
            OpfsSAHError::NotSupported => js_error(&format!("OPFS is unavailable here: {e}"), "opfs_unavailable", None),
            e => js_error(&format!("cannot open the OPFS pool for {name:?}: {e}"), "opfs", None),
        };
        let pool = sahpool::install::<sqlite_wasm_rs::WasmOsCallback>(&cfg, false).await.map_err(pool_error)?;
        // Reopened in this worker after a `free()`: the pool was paused then.
        if pool.is_paused() {
            pool.resume().await.map_err(pool_error)?;
        }
        claim.1 = Some(pool);
        // Over the pool's VFS, one that writes each commit's log frames to OPFS in one call
        // (`src/storage/write_back.rs`), and over that SQLite3 Multiple Ciphers' VFS,
        // `multipleciphers-write-back-<pool VFS>`; both made once per worker: the pool keeps
        // its VFS across `free()` and reopening.
        let write_back_vfs = format!("write-back-{vfs}");
        crate::storage::write_back::register(&write_back_vfs, &vfs, usize::MAX)
            .map_err(|e| js_error(&format!("cannot open the OPFS pool for {name:?}: {e}"), "opfs", None))?;
        let cipher_vfs = crate::storage::cipher::over(&write_back_vfs)
            .map_err(|e| js_error(&format!("cannot open the OPFS pool for {name:?}: {e}"), "opfs", None))?;
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_CREATE;
        let conn = rusqlite::Connection::open_with_flags_and_vfs("/memory.sqlite3", flags, cipher_vfs.as_str())
            .map_err(|e| to_js_error(e.into()))?;
        // This worker owns the file (the Web Lock and the pool are exclusive), so SQLite may
        // keep its lock and page cache across transactions. The exclusive lock comes first:
        // it is what lets WAL run without shared memory, which the pool does not have.
        conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE").map_err(|e| to_js_error(e.into()))?;
        let (clock, clock_at) = JsClock::new(clock);
        let inner = Memory::from_keyed_connection(conn, key, clock).map_err(to_js_error)?;
        // WAL with `synchronous = NORMAL` (after the schema: WAL fixes the page size). A
        // commit appends its pages to the `-wal` file in one `write()` and flushes nothing;
        // the rollback journal it replaces cost three `flush()` calls per commit. A `FileSystemSyncAccessHandle`
        // write reaches the operating system at once, so a commit outlives the tab, the
        // worker and the browser; only a power loss or an OS crash can take back commits made
        // since the last checkpoint (`checkpoint()`, which the package's worker runs soon
        // after writes), and even then the database stays consistent: SQLite keeps only
        // the WAL frames up to the last whole commit. www/README.md, "Durability".
        inner.use_wal().map_err(to_js_error)?;
        Ok(JsMemory { inner, _opfs: Some(claim), clock_at })
    }

    /// Opens the memory kept in `store` (a Durable Object's storage, say), creating it if the
    /// store is empty. Its rollback journal stays in memory, so each page a commit changes
    /// is written to the store once, inside the call that commits it: the host makes a
    /// call's writes durable together (a Durable Object's `transactionSync`), and a memory
    /// reopened from the store after any call is the memory as that call left it.
    ///
    /// @param name - what tells it from other memories open in this module (a Durable
    /// Object's id); a second open of a name still open throws `already_open` (field `name`).
    /// @param store - the chunks' store: `read`, `write`, `truncate`, `count`, synchronous.
    /// @param clock - optional function returning epoch milliseconds (defaults to `Date.now`).
    /// @param key - optional: 32 bytes or a passphrase: every chunk in the store is then
    /// encrypted; `wrong_key` when it does not open it, `encrypted` when none was given.
    #[wasm_bindgen(js_name = openPages)]
    pub fn open_pages(
        name: String,
        store: super::pages::JsPageStore,
        #[wasm_bindgen(unchecked_param_type = "(() => number) | undefined")] clock: Option<js_sys::Function>,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | string | undefined")] key: JsValue,
    ) -> Result<JsMemory, JsValue> {
        Self::opened(clock, key, |clock, key| Memory::open_pages(&name, Rc::new(store), key, clock))
    }

    /// Opens the memory in the file at `path`, creating it if absent, through `files`: the
    /// package's `node:fs` calls (`www/src/file.ts`). WAL with `synchronous = NORMAL`, so a
    /// commit is in the host's files, whole, when the call returns; `checkpoint` syncs it
    /// (the package runs one about a second after writes). In the module Node loads only.
    ///
    /// @param path - an absolute path; its log and journal go beside it (`-wal`, `-journal`).
    /// @param files - the synchronous file calls.
    /// @param clock - optional function returning epoch milliseconds (defaults to `Date.now`).
    /// @param key - optional: 32 bytes or a passphrase: every page in the files is then
    /// encrypted; `wrong_key` when it does not open them, `encrypted` when none was given.
    /// @throws `already_open` (field `path`) while a memory of this module has the path open.
    #[cfg(feature = "file")]
    #[wasm_bindgen(js_name = openFile)]
    pub fn open_file(
        path: String,
        files: super::file::JsFileSystem,
        #[wasm_bindgen(unchecked_param_type = "(() => number) | undefined")] clock: Option<js_sys::Function>,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | string | undefined")] key: JsValue,
    ) -> Result<JsMemory, JsValue> {
        Self::opened(clock, key, |clock, key| Memory::open_file(&path, Rc::new(files), key, clock))
    }

    /// Copies the write-ahead log into the database file and flushes both: every write
    /// committed so far then survives a power loss too. The package's OPFS worker calls it
    /// about a second after writes stop; outside WAL mode (in memory) it does nothing.
    pub fn checkpoint(&mut self) -> Result<(), JsValue> {
        self.inner.checkpoint().map_err(to_js_error)
    }

    /// SQLite's `PRAGMA integrity_check` over the whole database: `[]` when it is sound,
    /// else the problems found.
    #[wasm_bindgen(js_name = integrityCheck)]
    pub fn integrity_check(&mut self) -> Result<Vec<String>, JsValue> {
        self.inner.integrity_check().map_err(to_js_error)
    }

    /// Runs `calls` (`[tool, options, time?]`) in order in one transaction, committed once:
    /// the OPFS worker's group commit, for the calls that queued up while it was busy. Each
    /// call is stamped with its own `time` (epoch ms, its caller's clock) when given, and
    /// gets its own outcome, `{ value }` or `{ error }`, as `call` would give; a failed call
    /// rolls back only itself. Throws (and none of the calls took effect) when the commit
    /// itself fails.
    #[wasm_bindgen(js_name = callGroup, unchecked_return_type = "({ value: any } | { error: Error })[]")]
    pub fn call_group(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "[string, object, number?][]")] calls: js_sys::Array,
    ) -> Result<js_sys::Array, JsValue> {
        let outcome = |key: &str, v: &JsValue| {
            let o = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&o, &key.into(), v);
            JsValue::from(o)
        };
        // Calls whose options cannot be read fail on their own, outside the transaction.
        let mut parsed = Vec::with_capacity(calls.length() as usize);
        let mut times = Vec::with_capacity(calls.length() as usize);
        let mut outcomes: Vec<JsValue> = Vec::with_capacity(calls.length() as usize);
        for call in calls.iter() {
            let call = js_sys::Array::from(&call);
            let tool = call.get(0).as_string().unwrap_or_default();
            match options_from_js(call.get(1)) {
                Ok(args) => {
                    parsed.push((tool, args));
                    times.push(call.get(2).as_f64());
                    outcomes.push(JsValue::UNDEFINED);
                }
                Err(e) => outcomes.push(outcome("error", &e)),
            }
        }
        let at = self.clock_at.clone();
        let grouped = self.inner.call_group_text(&parsed, |i| at.set(times[i]));
        self.clock_at.set(None);
        let mut results = grouped.map_err(to_js_error)?.into_iter();
        let out = js_sys::Array::new();
        for slot in outcomes {
            out.push(&if slot.is_undefined() {
                match results.next().expect("one result per parsed call") {
                    Ok(v) => outcome("value", &text_to_js(&v)?),
                    Err(e) => outcome("error", &to_js_error(e)),
                }
            } else {
                slot
            });
        }
        Ok(out)
    }

    /// Stores many memories in one transaction (`store_many`): all, or none when an item is
    /// malformed. `onProgress({ done, total })` is called as items are written, at most
    /// every [`PROGRESS_EVERY_MS`] and after the last (what it throws is ignored: the batch
    /// goes on). `time` (epoch ms) stamps the batch, as `callGroup`'s times do.
    #[wasm_bindgen(js_name = storeMany, unchecked_return_type = "StoreManyResponse")]
    pub fn store_many(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "StoreManyOptions")] options: JsValue,
        #[wasm_bindgen(unchecked_param_type = "((progress: { done: number; total: number }) => void) | undefined")] on_progress: Option<
            js_sys::Function,
        >,
        time: Option<f64>,
    ) -> Result<JsValue, JsValue> {
        let opts: crate::StoreManyOptions = crate::api::read::from_json(&options_from_js(options)?).map_err(to_js_error)?;
        let mut last = f64::NEG_INFINITY;
        self.clock_at.set(time);
        let stored = self.inner.store_many(&opts, |done, total| {
            let Some(report) = &on_progress else { return };
            let now = js_sys::Date::now();
            if done == total || now - last >= PROGRESS_EVERY_MS {
                last = now;
                let progress = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&progress, &"done".into(), &(done as f64).into());
                let _ = js_sys::Reflect::set(&progress, &"total".into(), &(total as f64).into());
                let _ = report.call1(&JsValue::NULL, &progress);
            }
        });
        self.clock_at.set(None);
        response_to_js(&stored.map_err(to_js_error)?)
    }

    /// Runs one operation by tool name (`store`, `traverse`, …) with snake_case options:
    /// the binding's one door (the package's typed methods are this, typed).
    #[wasm_bindgen(unchecked_return_type = "unknown")]
    pub fn call(&mut self, tool: &str, #[wasm_bindgen(unchecked_param_type = "object")] options: JsValue) -> Result<JsValue, JsValue> {
        let args = options_from_js(options)?;
        let out = self.inner.call_text(tool, &args).map_err(to_js_error)?;
        text_to_js(&out)
    }

    /// The whole database as bytes, to save anywhere and load back with `import`:
    /// encrypted when the memory has a key, unless `decrypt` is true.
    #[wasm_bindgen(js_name = "export")]
    pub fn export_bytes(&mut self, decrypt: Option<bool>) -> Result<Vec<u8>, JsValue> {
        if decrypt == Some(true) { self.inner.export_decrypted() } else { self.inner.export() }.map_err(to_js_error)
    }

    /// Encrypts the memory under `key` (32 bytes or a passphrase), re-encrypts it under a
    /// new one, or decrypts it (`null`): an OPFS database in place, in one transaction; in
    /// memory, the key its exports are encrypted with.
    pub fn rekey(&mut self, #[wasm_bindgen(unchecked_param_type = "Uint8Array | string | null")] key: JsValue) -> Result<(), JsValue> {
        let key = optional_key(key)?;
        self.inner.rekey(key).map_err(to_js_error)
    }

    /// The schema version this engine writes (`PRAGMA user_version` of its databases): what a
    /// syncing device tells the relay, so that devices on other versions never exchange
    /// changes.
    #[wasm_bindgen(js_name = schemaVersion)]
    pub fn schema_version() -> f64 {
        crate::SCHEMA_VERSION as f64
    }

    /// The bytes of this instance's linear memory, which every memory open in it shares and
    /// which never shrinks: what the scale bench reads to measure a memory's cost (an edge
    /// isolate holds its objects' memories in one instance, under one limit). Not part of the
    /// package's API.
    #[wasm_bindgen(js_name = wasmMemoryBytes, skip_typescript)]
    pub fn wasm_memory_bytes() -> f64 {
        (core::arch::wasm32::memory_size(0) * 65536) as f64
    }

    /// A plain dot-product loop of `query` over every stored vector of its dimension (no
    /// scope, ranking or row reads): the floor the scale bench compares the vector arm with.
    /// Returns the sum of the products. Not part of the package's API.
    #[wasm_bindgen(js_name = plainVectorScan, skip_typescript)]
    pub fn plain_vector_scan(&self, query: &[f32]) -> Result<f32, JsValue> {
        self.inner.plain_vector_scan(query).map_err(to_js_error)
    }

    /// Starts syncing this memory as device `device` (1 to 2^21 − 1, the number a relay
    /// gave this device): each write then keeps its changes as a pending change, new
    /// records take this device's ids, new entities and relations their keys'.
    #[wasm_bindgen(js_name = syncStart)]
    pub fn sync_start(&mut self, device: u32) -> Result<(), JsValue> {
        self.inner.sync_start(device).map_err(to_js_error)
    }

    /// This memory's sync, `{ device, applied, pending }`; `undefined` when it does not sync.
    #[wasm_bindgen(js_name = syncStatus, unchecked_return_type = "{ device: number; applied: number; pending: number } | undefined")]
    pub fn sync_status(&self) -> Result<JsValue, JsValue> {
        let Some(status) = self.inner.sync_status().map_err(to_js_error)? else { return Ok(JsValue::UNDEFINED) };
        let o = js_sys::Object::new();
        for (key, value) in [("device", f64::from(status.device)), ("applied", status.applied as f64), ("pending", status.pending as f64)] {
            js_sys::Reflect::set(&o, &key.into(), &value.into())?;
        }
        Ok(o.into())
    }

    /// This device's changes the log has not taken yet, `{ seq, change }` in the order to
    /// push them: those after seq `after` (default 0: all).
    #[wasm_bindgen(js_name = syncPending, unchecked_return_type = "{ seq: number; change: Uint8Array }[]")]
    pub fn sync_pending(&self, after: Option<f64>) -> Result<js_sys::Array, JsValue> {
        let after = after.unwrap_or(0.0);
        if !(after.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&after)) {
            return Err(to_js_error(Error::WrongType { field: "after".into(), expected: "a whole number", got: after.to_string() }));
        }
        let out = js_sys::Array::new();
        for p in self.inner.sync_pending(after as u64).map_err(to_js_error)? {
            let o = js_sys::Object::new();
            js_sys::Reflect::set(&o, &"seq".into(), &(p.seq as f64).into())?;
            js_sys::Reflect::set(&o, &"change".into(), &js_sys::Uint8Array::from(&p.change[..]).into())?;
            out.push(&o);
        }
        Ok(out)
    }

    /// Brings entries of the log in, `{ position, device, seq, change }` in position order,
    /// in one transaction; returns how many were applied (repeats are skipped; a gap is
    /// `invalid_value` and applies nothing).
    #[wasm_bindgen(js_name = syncApply)]
    pub fn sync_apply(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "{ position: number; device: number; seq: number; change: Uint8Array }[]")]
        entries: js_sys::Array,
    ) -> Result<f64, JsValue> {
        let mut log = Vec::with_capacity(entries.length() as usize);
        for (i, entry) in entries.iter().enumerate() {
            let wrong = |key: &str, expected: &'static str, v: &JsValue| {
                to_js_error(Error::WrongType { field: format!("entries[{i}].{key}"), expected, got: format!("{v:?}") })
            };
            let number = |key: &str, max: f64| -> Result<f64, JsValue> {
                let v = js_sys::Reflect::get(&entry, &key.into())?;
                v.as_f64().filter(|n| n.fract() == 0.0 && (0.0..=max).contains(n)).ok_or_else(|| wrong(key, "a whole number in range", &v))
            };
            let change = js_sys::Reflect::get(&entry, &"change".into())?;
            let change = change.dyn_ref::<js_sys::Uint8Array>().ok_or_else(|| wrong("change", "a Uint8Array", &change))?.to_vec();
            const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
            let (position, device, seq) = (number("position", MAX_SAFE)?, number("device", f64::from(u32::MAX))?, number("seq", MAX_SAFE)?);
            log.push(crate::LogEntry { position: position as u64, device: device as u32, seq: seq as u64, change });
        }
        self.inner.sync_apply(&log).map(|n| n as f64).map_err(to_js_error)
    }

    /// This memory as the log left it at its applied position, `{ position, bytes }`: plain
    /// database bytes (seal them before they leave the device) without this device's
    /// pending changes or sync state, and nothing left of what a change deleted.
    #[wasm_bindgen(js_name = syncSnapshot, unchecked_return_type = "{ position: number; bytes: Uint8Array }")]
    pub fn sync_snapshot(&mut self) -> Result<JsValue, JsValue> {
        let (position, bytes) = self.inner.sync_snapshot().map_err(to_js_error)?;
        let o = js_sys::Object::new();
        js_sys::Reflect::set(&o, &"position".into(), &(position as f64).into())?;
        js_sys::Reflect::set(&o, &"bytes".into(), &js_sys::Uint8Array::from(&bytes[..]).into())?;
        Ok(o.into())
    }

    /// Replaces this memory by a snapshot of the log at `position` and syncs as `device`
    /// from there; a memory that synced keeps its device and its pending changes after
    /// `logged` (the last of its seqs the relay logged; 0: none), applied again on top. Bad
    /// bytes change nothing.
    #[wasm_bindgen(js_name = syncJoin)]
    pub fn sync_join(&mut self, bytes: &[u8], position: f64, device: u32, logged: Option<f64>) -> Result<(), JsValue> {
        let whole = |field: &str, n: f64| {
            if n.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&n) {
                Ok(n as u64)
            } else {
                Err(to_js_error(Error::WrongType { field: field.into(), expected: "a whole number", got: n.to_string() }))
            }
        };
        let (position, logged) = (whole("position", position)?, whole("logged", logged.unwrap_or(0.0))?);
        self.inner.sync_join(bytes, position, device, logged).map_err(to_js_error)
    }

    /// Replaces this memory's content with bytes from `export` (encrypted ones with their
    /// `key`, by default the memory's own); bad bytes, or a key that does not decrypt them
    /// (`wrong_key`), change nothing. A memory without a key takes encrypted bytes only
    /// with `decrypt` true (`invalid_value`, field `decrypt`), as its exports are plain.
    #[wasm_bindgen(js_name = "import")]
    pub fn import_bytes(
        &mut self,
        bytes: &[u8],
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | string | undefined")] key: JsValue,
        decrypt: Option<bool>,
    ) -> Result<(), JsValue> {
        match optional_key(key)? {
            Some(key) if decrypt == Some(true) => self.inner.import_decrypted(bytes, &key),
            Some(key) => self.inner.import_encrypted(bytes, &key),
            None => self.inner.import(bytes),
        }
        .map_err(to_js_error)
    }
}
