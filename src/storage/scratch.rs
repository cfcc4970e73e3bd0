//! A scratch database file whose raw bytes the engine writes and reads: how encrypted
//! bytes are made and read (the cipher works on files, `crate::storage::cipher`). Natively a file
//! in the system's temporary directory; in wasm a file of sqlite-wasm-rs's in-memory VFS,
//! the default one there. Only encrypted bytes or an empty database ever go to it; it is
//! removed, with its journal, when dropped.

use crate::api::error::Result;
use rusqlite::Connection;

pub(crate) struct Scratch {
    path: String,
}

impl Scratch {
    /// A new scratch path, empty.
    pub(crate) fn new() -> Scratch {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Scratch { path: place(n) }
    }

    /// A scratch file holding `bytes` as they are.
    pub(crate) fn with_bytes(bytes: &[u8]) -> Result<Scratch> {
        let scratch = Scratch::new();
        write(&scratch.path, bytes)?;
        Ok(scratch)
    }

    /// A connection to the file, on the default VFS.
    pub(crate) fn open(&self) -> Result<Connection> {
        Ok(Connection::open(&self.path)?)
    }

    /// The file's bytes as they are on disk (encrypted if it is); every connection to it
    /// must be closed first.
    pub(crate) fn bytes(&self) -> Result<Vec<u8>> {
        read(&self.path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            remove(&format!("{}{suffix}", self.path));
        }
    }
}

/// A path no other process's scratch file has.
#[cfg(not(target_arch = "wasm32"))]
fn place(n: u64) -> String {
    std::env::temp_dir().join(format!("associative-memory-{}-{n}.scratch", std::process::id())).to_string_lossy().into_owned()
}

#[cfg(not(target_arch = "wasm32"))]
fn write(path: &str, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).map_err(failed)
}

#[cfg(not(target_arch = "wasm32"))]
fn read(path: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(failed)
}

#[cfg(not(target_arch = "wasm32"))]
fn remove(path: &str) {
    let _ = std::fs::remove_file(path);
}

/// A scratch file that could not be written or read, as SQLite's `SQLITE_CANTOPEN`.
fn failed(why: impl std::fmt::Display) -> crate::Error {
    let cantopen = rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN);
    crate::Error::Sqlite(rusqlite::Error::SqliteFailure(cantopen, Some(format!("scratch file: {why}"))))
}

#[cfg(target_arch = "wasm32")]
use sqlite_wasm_rs::vfs::{memvfs::MemVfsUtil, transfer::DbTransfer, VfsFilesManager};

/// A path in this module's in-memory VFS (its own, whatever else runs in the realm).
#[cfg(target_arch = "wasm32")]
fn place(n: u64) -> String {
    format!("/associative-memory-{n}.scratch")
}

#[cfg(target_arch = "wasm32")]
fn memvfs() -> Result<MemVfsUtil> {
    // SAFETY: initializing SQLite (a no-op once done) installs the in-memory VFS; wasm32
    // here is single-threaded, and the VFS is never uninstalled.
    unsafe {
        rusqlite::ffi::sqlite3_initialize();
        MemVfsUtil::get()
    }
    .map_err(failed)
}

#[cfg(target_arch = "wasm32")]
fn write(path: &str, bytes: &[u8]) -> Result<()> {
    // Unchecked: encrypted bytes have no SQLite header to check.
    memvfs()?.import_db_unchecked(path, bytes).map_err(failed)
}

#[cfg(target_arch = "wasm32")]
fn read(path: &str) -> Result<Vec<u8>> {
    memvfs()?.export_db(path).map_err(failed)
}

#[cfg(target_arch = "wasm32")]
fn remove(path: &str) {
    if let Ok(util) = memvfs() {
        let _ = util.remove(path);
    }
}
