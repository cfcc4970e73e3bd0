//! The `Memory` class JavaScript sees.

use super::convert::{options_from_js, response_to_js};
use super::error::to_js_error;
use crate::{Clock, Memory};
use wasm_bindgen::prelude::*;

/// Time from JavaScript: the caller's clock function, or `Date.now()`.
struct JsClock(Option<js_sys::Function>);

impl Clock for JsClock {
    fn now_ms(&self) -> i64 {
        let given = self.0.as_ref().and_then(|f| f.call0(&JsValue::NULL).ok()).and_then(|v| v.as_f64());
        given.unwrap_or_else(js_sys::Date::now) as i64
    }
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("types.d.ts");

/// An associative memory held in an SQLite database in this JavaScript realm.
#[wasm_bindgen(js_name = Memory)]
pub struct JsMemory {
    inner: Memory,
}

#[wasm_bindgen(js_class = Memory)]
impl JsMemory {
    /// Opens a new, empty memory held in memory.
    ///
    /// @param clock - optional function returning the current time in epoch milliseconds
    /// (defaults to `Date.now`); pass a fixed clock for reproducible output.
    #[wasm_bindgen(js_name = openInMemory)]
    pub fn open_in_memory(#[wasm_bindgen(unchecked_param_type = "() => number")] clock: Option<js_sys::Function>) -> Result<JsMemory, JsValue> {
        Memory::open_in_memory_with_clock(Box::new(JsClock(clock))).map(|inner| JsMemory { inner }).map_err(to_js_error)
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
    pub fn archive_episode(&mut self, #[wasm_bindgen(unchecked_param_type = "EpisodeOptions")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("archive_episode", options)
    }

    /// Declares entities, aliases, mentions and relations, and retracts.
    #[wasm_bindgen(js_name = declareAssociations, unchecked_return_type = "DeclareResponse")]
    pub fn declare_associations(&mut self, #[wasm_bindgen(unchecked_param_type = "DeclareOptions")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("declare_associations", options)
    }

    /// An entity's neighbourhood: aliases, relations to the hop bound, reached entities
    /// and the refs of records that mention each.
    #[wasm_bindgen(unchecked_return_type = "TraverseResponse")]
    pub fn traverse(&mut self, #[wasm_bindgen(unchecked_param_type = "TraverseOptions")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("traverse", options)
    }

    /// Full records for `mem:<id>` / `ep:<id>` refs.
    #[wasm_bindgen(js_name = getContents, unchecked_return_type = "GetContentsResponse")]
    pub fn get_contents(&mut self, #[wasm_bindgen(unchecked_param_type = "GetContentsOptions")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("get_contents", options)
    }

    /// Deletes a memory and every mention and relation that depends on it.
    #[wasm_bindgen(js_name = deleteMemory, unchecked_return_type = "DeleteResponse")]
    pub fn delete_memory(&mut self, #[wasm_bindgen(unchecked_param_type = "{ agent_id: string; memory_id: number }")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("delete_memory", options)
    }

    /// Deletes an episode and every mention and relation that depends on it.
    #[wasm_bindgen(js_name = deleteEpisode, unchecked_return_type = "DeleteResponse")]
    pub fn delete_episode(&mut self, #[wasm_bindgen(unchecked_param_type = "{ agent_id: string; episode_id: number }")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("delete_episode", options)
    }

    /// Deletes an entity with its aliases, mentions and relations.
    #[wasm_bindgen(js_name = deleteEntity, unchecked_return_type = "DeleteResponse")]
    pub fn delete_entity(&mut self, #[wasm_bindgen(unchecked_param_type = "{ agent_id: string; entity_id: number }")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("delete_entity", options)
    }

    /// A page of the agent's entities with alias, mention and relation counts.
    #[wasm_bindgen(js_name = listEntities, unchecked_return_type = "ListEntitiesResponse")]
    pub fn list_entities(&mut self, #[wasm_bindgen(unchecked_param_type = "ListEntitiesOptions")] options: JsValue) -> Result<JsValue, JsValue> {
        self.call("list_entities", options)
    }

    /// The whole database as bytes, to save anywhere and load back with `import`.
    #[wasm_bindgen(js_name = "export")]
    pub fn export_bytes(&mut self) -> Result<Vec<u8>, JsValue> {
        self.inner.export().map_err(to_js_error)
    }

    /// Replaces this memory's content with bytes from `export`; bad bytes change nothing.
    #[wasm_bindgen(js_name = "import")]
    pub fn import_bytes(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.inner.import(bytes).map_err(to_js_error)
    }
}
