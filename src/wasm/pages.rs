//! A page store in JavaScript: what a Durable Object (or any host with synchronous storage)
//! keeps a memory's chunks in (`crate::storage::pages`).

use super::convert::whole;
use super::error::host_message as message;
use crate::PageStore;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The object JavaScript passes: four synchronous methods over chunks by index.
    #[wasm_bindgen(typescript_type = "PageStore")]
    pub type JsPageStore;

    #[wasm_bindgen(method, catch)]
    fn read(this: &JsPageStore, index: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn write(this: &JsPageStore, index: f64, bytes: js_sys::Uint8Array) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn truncate(this: &JsPageStore, count: f64) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn count(this: &JsPageStore) -> Result<f64, JsValue>;
}

#[wasm_bindgen(typescript_custom_section)]
const PAGE_STORE: &str = r#"
/**
 * Where a memory's database lives, chunk by chunk (4096 bytes each, the last possibly
 * shorter), every method synchronous: a Durable Object's `ctx.storage.sql`, say. A thrown
 * error fails the SQLite call that met it.
 */
export interface PageStore {
  /** Chunk `index`, `undefined` (or `null`) past the end. */
  read(index: number): Uint8Array | ArrayBuffer | null | undefined;
  /** Sets chunk `index`; `bytes` is the store's to keep. */
  write(index: number, bytes: Uint8Array): void;
  /** Removes every chunk from `count` on. */
  truncate(count: number): void;
  /** How many chunks there are. */
  count(): number;
}
"#;

impl PageStore for JsPageStore {
    fn read(&self, index: u64) -> Result<Option<Vec<u8>>, String> {
        let v = JsPageStore::read(self, index as f64).map_err(message)?;
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        if let Some(buffer) = v.dyn_ref::<js_sys::ArrayBuffer>() {
            return Ok(Some(js_sys::Uint8Array::new(buffer).to_vec()));
        }
        match v.dyn_into::<js_sys::Uint8Array>() {
            Ok(bytes) => Ok(Some(bytes.to_vec())),
            Err(_) => Err(format!("the page store's read({index}) returned neither bytes nor undefined")),
        }
    }

    fn write(&self, index: u64, bytes: &[u8]) -> Result<(), String> {
        // a copy: the store keeps it past this call, when the wasm memory may have moved
        JsPageStore::write(self, index as f64, js_sys::Uint8Array::from(bytes)).map_err(message)
    }

    fn truncate(&self, count: u64) -> Result<(), String> {
        JsPageStore::truncate(self, count as f64).map_err(message)
    }

    fn count(&self) -> Result<u64, String> {
        whole(JsPageStore::count(self).map_err(message)?, "the page store's count()")
    }
}
