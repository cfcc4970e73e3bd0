//! The `Memory` class JavaScript sees.

use super::convert::{options_from_js, response_to_js};
use super::error::{js_error, to_js_error};
use crate::{Clock, Memory};
use sqlite_wasm_vfs::sahpool::{self, OpfsSAHError, OpfsSAHPoolCfgBuilder};
use std::cell::RefCell;
use std::collections::BTreeSet;
use wasm_bindgen::prelude::*;

/// Time from JavaScript: the caller's clock function, or `Date.now()`.
struct JsClock(Option<js_sys::Function>);

impl Clock for JsClock {
    fn now_ms(&self) -> i64 {
        let given = self.0.as_ref().and_then(|f| f.call0(&JsValue::NULL).ok()).and_then(|v| v.as_f64());
        given.unwrap_or_else(js_sys::Date::now) as i64
    }
}

thread_local! {
    /// The OPFS memories open in this worker. The pool's SQLite locks are no-ops (other
    /// workers are kept out by OPFS itself), so a second connection to the same file here
    /// would silently overwrite the first one's writes.
    static OPEN_OPFS: RefCell<BTreeSet<String>> = const { RefCell::new(BTreeSet::new()) };
}

/// This worker's hold on an OPFS memory's name, given back when the memory is freed.
struct OpfsClaim(String);

impl OpfsClaim {
    fn take(name: &str) -> Result<OpfsClaim, JsValue> {
        if !OPEN_OPFS.with(|open| open.borrow_mut().insert(name.to_owned())) {
            return Err(js_error(
                &format!("the memory {name:?} is already open in this worker; free it first"),
                "already_open",
                Some("name"),
            ));
        }
        Ok(OpfsClaim(name.to_owned()))
    }
}

impl Drop for OpfsClaim {
    fn drop(&mut self) {
        OPEN_OPFS.with(|open| open.borrow_mut().remove(&self.0));
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
}

#[wasm_bindgen(js_class = Memory)]
impl JsMemory {
    /// Opens a new, empty memory held in memory.
    ///
    /// @param clock - optional function returning the current time in epoch milliseconds
    /// (defaults to `Date.now`); pass a fixed clock for reproducible output.
    #[wasm_bindgen(js_name = openInMemory)]
    pub fn open_in_memory(
        #[wasm_bindgen(unchecked_param_type = "(() => number) | undefined")] clock: Option<js_sys::Function>,
    ) -> Result<JsMemory, JsValue> {
        Memory::open_in_memory_with_clock(Box::new(JsClock(clock))).map(|inner| JsMemory { inner, _opfs: None }).map_err(to_js_error)
    }

    /// Opens the memory called `name` in the Origin Private File System, creating it if
    /// absent. Works only in a dedicated Worker in a secure context: it installs the
    /// SyncAccessHandle pool VFS (`sqlite-wasm-vfs` sahpool) in the directory
    /// `.associative-memory/<name>/`, which holds the database exclusively until this
    /// worker ends. The TypeScript wrapper's `openMemory({storage: 'opfs'})` calls this in
    /// its worker, after taking a Web Lock named for the memory.
    ///
    /// @param name - 1–64 characters of `A–Z a–z 0–9 . _ -`.
    /// @param clock - optional function returning epoch milliseconds (defaults to `Date.now`).
    /// @throws an error with code `opfs_unavailable` outside a dedicated worker or secure
    /// context, `opfs` when the pool cannot be opened (held by another worker, say),
    /// `already_open` (field `name`) while this worker has the memory open (until `free()`).
    #[wasm_bindgen(js_name = openOpfs)]
    pub async fn open_opfs(
        name: String,
        #[wasm_bindgen(unchecked_param_type = "(() => number) | undefined")] clock: Option<js_sys::Function>,
    ) -> Result<JsMemory, JsValue> {
        let valid = (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !valid || name.starts_with('.') {
            return Err(js_error(
                &format!("`name` must be 1–64 characters of A–Z a–z 0–9 . _ - (not starting with '.'), got {name:?}"),
                "invalid_value",
                Some("name"),
            ));
        }
        let claim = OpfsClaim::take(&name)?;
        let vfs = format!("associative-memory-{name}");
        let cfg = OpfsSAHPoolCfgBuilder::new().vfs_name(&vfs).directory(&format!(".associative-memory/{name}")).build();
        sahpool::install::<sqlite_wasm_rs::WasmOsCallback>(&cfg, false).await.map_err(|e| match e {
            OpfsSAHError::NotSupported => js_error(&format!("OPFS is unavailable here: {e}"), "opfs_unavailable", None),
            e => js_error(&format!("cannot open the OPFS pool for {name:?}: {e}"), "opfs", None),
        })?;
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_CREATE;
        let conn =
            rusqlite::Connection::open_with_flags_and_vfs("/memory.sqlite3", flags, vfs.as_str()).map_err(|e| to_js_error(e.into()))?;
        // This worker owns the file (the Web Lock and the pool are exclusive), so SQLite may
        // keep its lock and page cache across transactions, and reuse the journal file
        // instead of deleting it after each commit. No WAL: the pool does not support it.
        let pragmas = "PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = TRUNCATE;";
        conn.execute_batch(pragmas).map_err(|e| to_js_error(e.into()))?;
        Memory::from_connection(conn, Box::new(JsClock(clock))).map(|inner| JsMemory { inner, _opfs: Some(claim) }).map_err(to_js_error)
    }

    /// Runs one operation by tool name (`store`, `traverse`, …) with snake_case options.
    #[wasm_bindgen(unchecked_return_type = "any")]
    pub fn call(&mut self, tool: &str, #[wasm_bindgen(unchecked_param_type = "object")] options: JsValue) -> Result<JsValue, JsValue> {
        let args = options_from_js(options)?;
        let out = self.inner.call(tool, &args).map_err(to_js_error)?;
        response_to_js(&out)
    }

    /// Stores a memory and the associations riding on it.
    #[wasm_bindgen(unchecked_return_type = "StoreResponse")]
    pub fn store(&mut self, #[wasm_bindgen(unchecked_param_type = "StoreOptions")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("store", options)
    }

    /// Archives an episode (a summarized conversation).
    #[wasm_bindgen(js_name = archiveEpisode, unchecked_return_type = "EpisodeResponse")]
    pub fn archive_episode(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "EpisodeOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("archive_episode", options)
    }

    /// Declares entities, aliases, mentions and relations, and retracts.
    #[wasm_bindgen(js_name = declareAssociations, unchecked_return_type = "DeclareResponse")]
    pub fn declare_associations(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "DeclareOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("declare_associations", options)
    }

    /// Retrieval: the memories and episodes that answer `query` (SPEC §4).
    #[wasm_bindgen(unchecked_return_type = "RecallResponse")]
    pub fn recall(&mut self, #[wasm_bindgen(unchecked_param_type = "RecallOptions")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("recall", options)
    }

    /// The graph reading of retrieval: items with their claims, newest first (design §3).
    #[wasm_bindgen(unchecked_return_type = "ReconstructResponse")]
    pub fn reconstruct(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ReconstructOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("reconstruct", options)
    }

    /// An entity's neighbourhood: aliases, relations to the hop bound, reached entities
    /// and the refs of records that mention each.
    #[wasm_bindgen(unchecked_return_type = "TraverseResponse")]
    pub fn traverse(&mut self, #[wasm_bindgen(unchecked_param_type = "TraverseOptions")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("traverse", options)
    }

    /// Full records for `mem:<id>` / `ep:<id>` refs.
    #[wasm_bindgen(js_name = getContents, unchecked_return_type = "GetContentsResponse")]
    pub fn get_contents(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "GetContentsOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("get_contents", options)
    }

    /// Deletes a memory and every mention and relation that depends on it.
    #[wasm_bindgen(js_name = deleteMemory, unchecked_return_type = "DeleteResponse")]
    pub fn delete_memory(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "DeleteMemoryOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("delete_memory", options)
    }

    /// Deletes an episode and every mention and relation that depends on it.
    #[wasm_bindgen(js_name = deleteEpisode, unchecked_return_type = "DeleteResponse")]
    pub fn delete_episode(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "DeleteEpisodeOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("delete_episode", options)
    }

    /// Deletes an entity with its aliases, mentions and relations.
    #[wasm_bindgen(js_name = deleteEntity, unchecked_return_type = "DeleteResponse")]
    pub fn delete_entity(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "DeleteEntityOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("delete_entity", options)
    }

    /// A page of the agent's entities with alias, mention and relation counts.
    #[wasm_bindgen(js_name = listEntities, unchecked_return_type = "ListEntitiesResponse")]
    pub fn list_entities(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ListEntitiesOptions")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.call("list_entities", options)
    }

    /// The whole database as bytes, to save anywhere and load back with `import`.
    #[wasm_bindgen(js_name = "export")]
    pub fn export_bytes(&mut self) -> Result<Vec<u8>, JsValue> {
        self.inner.export().map_err(to_js_error)
    }

    /// A plain dot-product loop of `query` over every stored vector of its dimension (no
    /// scope, ranking or row reads): the floor the scale bench compares the vector arm with.
    /// Returns the sum of the products. Not part of the package's API.
    #[wasm_bindgen(js_name = plainVectorScan, skip_typescript)]
    pub fn plain_vector_scan(&self, query: &[f32]) -> Result<f32, JsValue> {
        self.inner.plain_vector_scan(query).map_err(to_js_error)
    }

    /// Replaces this memory's content with bytes from `export`; bad bytes change nothing.
    #[wasm_bindgen(js_name = "import")]
    pub fn import_bytes(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.inner.import(bytes).map_err(to_js_error)
    }
}
