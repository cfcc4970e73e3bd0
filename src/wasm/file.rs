//! A file system in JavaScript: the synchronous calls of `node:fs` the package's Node entry
//! hands over (`www/src/file.ts`), which `crate::storage::file`'s VFS keeps a memory's files
//! through. In the module Node loads only (cargo feature `file`).

use super::convert::whole;
use super::error::host_message as message;
use crate::storage::file::FileSystem;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The object JavaScript passes: synchronous calls on paths and on numbered handles.
    #[wasm_bindgen(typescript_type = "FileSystem")]
    pub type JsFileSystem;

    #[wasm_bindgen(method, catch)]
    fn open(this: &JsFileSystem, path: &str, create: bool) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn read(this: &JsFileSystem, file: f64, bytes: &mut [u8], offset: f64) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn write(this: &JsFileSystem, file: f64, bytes: &[u8], offset: f64) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn sync(this: &JsFileSystem, file: f64) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn truncate(this: &JsFileSystem, file: f64, size: f64) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn size(this: &JsFileSystem, file: f64) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn close(this: &JsFileSystem, file: f64) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn exists(this: &JsFileSystem, path: &str) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn delete(this: &JsFileSystem, path: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = syncDirectory)]
    fn sync_directory(this: &JsFileSystem, path: &str) -> Result<(), JsValue>;
}

#[wasm_bindgen(typescript_custom_section)]
const FILE_SYSTEM: &str = r#"
/**
 * The synchronous file calls a memory kept in a file makes (`node:fs`'s, in the package's
 * Node entry): on absolute paths, and on the numbered handles `open` returns. A thrown
 * error fails the SQLite call that met it.
 */
export interface FileSystem {
  /** Opens `path` to read and write, creating it when `create` and absent; its handle. */
  open(path: string, create: boolean): number;
  /** Reads into `bytes` (a view of the engine's memory) from `offset`: how many bytes, fewer only at the file's end. */
  read(file: number, bytes: Uint8Array, offset: number): number;
  /** Writes all of `bytes` (a view of the engine's memory) at `offset`. */
  write(file: number, bytes: Uint8Array, offset: number): void;
  /** Makes what was written to the file durable (`fsync`). */
  sync(file: number): void;
  /** Cuts the file to `size` bytes. */
  truncate(file: number, size: number): void;
  /** The file's length in bytes. */
  size(file: number): number;
  /** Closes the handle. */
  close(file: number): void;
  /** Whether `path` exists. */
  exists(path: string): boolean;
  /** Removes `path`; one already absent is no error. */
  delete(path: string): void;
  /** Makes the directory holding `path` durable (a file made or removed there); nothing where that cannot be done. */
  syncDirectory(path: string): void;
}
"#;

impl FileSystem for JsFileSystem {
    fn open(&self, path: &str, create: bool) -> Result<u64, String> {
        whole(JsFileSystem::open(self, path, create).map_err(message)?, "the file system's open()")
    }

    fn read(&self, file: u64, buf: &mut [u8], offset: u64) -> Result<usize, String> {
        let n = whole(JsFileSystem::read(self, file as f64, buf, offset as f64).map_err(message)?, "the file system's read()")?;
        Ok((n as usize).min(buf.len()))
    }

    fn write(&self, file: u64, buf: &[u8], offset: u64) -> Result<(), String> {
        JsFileSystem::write(self, file as f64, buf, offset as f64).map_err(message)
    }

    fn sync(&self, file: u64) -> Result<(), String> {
        JsFileSystem::sync(self, file as f64).map_err(message)
    }

    fn truncate(&self, file: u64, size: u64) -> Result<(), String> {
        JsFileSystem::truncate(self, file as f64, size as f64).map_err(message)
    }

    fn size(&self, file: u64) -> Result<u64, String> {
        whole(JsFileSystem::size(self, file as f64).map_err(message)?, "the file system's size()")
    }

    fn close(&self, file: u64) -> Result<(), String> {
        JsFileSystem::close(self, file as f64).map_err(message)
    }

    fn exists(&self, path: &str) -> Result<bool, String> {
        JsFileSystem::exists(self, path).map_err(message)
    }

    fn delete(&self, path: &str) -> Result<(), String> {
        JsFileSystem::delete(self, path).map_err(message)
    }

    fn sync_directory(&self, path: &str) -> Result<(), String> {
        JsFileSystem::sync_directory(self, path).map_err(message)
    }
}
