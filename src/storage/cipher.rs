//! Encryption at rest: SQLite3 Multiple Ciphers' ChaCha20-Poly1305 (the only cipher
//! compiled in, `.cargo/config.toml`), on every target, so an encrypted file made in a
//! browser opens natively and the reverse.
//!
//! Each page is encrypted as it is written to a file and decrypted as it is read, below
//! the page cache: a memory held in memory is plain there (as the key is), and only its
//! exports are encrypted. The key reaches SQLite through `sqlite3_key_v2` and
//! `sqlite3_rekey_v2`, never through SQL text, so no statement, error or log holds it.

use crate::api::error::{Error, Result};
use rusqlite::ffi;
use rusqlite::Connection;
use std::ffi::{c_char, c_int, c_void};

extern "C" {
    // SQLite3 Multiple Ciphers' API (its amalgamation is the SQLite of every build); not in
    // libsqlite3-sys's bindings, so declared here for both targets.
    fn sqlite3_key_v2(db: *mut ffi::sqlite3, name: *const c_char, key: *const c_void, n: c_int) -> c_int;
    fn sqlite3_rekey_v2(db: *mut ffi::sqlite3, name: *const c_char, key: *const c_void, n: c_int) -> c_int;
    fn sqlite3mc_vfs_create(name: *const c_char, make_default: c_int) -> c_int;
}

/// The name of the cipher's VFS over the registered VFS `below`, which it makes unless it
/// exists: a database opened through it can be encrypted. The VFS lives as long as the
/// program.
pub(crate) fn over(below: &str) -> std::result::Result<String, String> {
    let name = format!("multipleciphers-{below}");
    let c_name = |s: &str| std::ffi::CString::new(s).map_err(|_| format!("a VFS name holds NUL: {s:?}"));
    // SAFETY: NUL-terminated names; callers open connections on one thread (wasm) or
    // register before opening.
    if unsafe { ffi::sqlite3_vfs_find(c_name(&name)?.as_ptr()) }.is_null() {
        let code = unsafe { sqlite3mc_vfs_create(c_name(below)?.as_ptr(), 0) };
        if code != ffi::SQLITE_OK {
            return Err(format!("the cipher VFS over {below} failed ({code})"));
        }
    }
    Ok(name)
}

/// The key of an encrypted memory: 32 raw bytes, used as the cipher key directly, or a
/// passphrase, from which the cipher derives one (PBKDF2-SHA256 with a salt kept in the
/// file) on every open. A raw key costs nothing to open with; it might come from a
/// passkey's PRF output or a key the app keeps wrapped.
///
/// Its `Debug` shows which kind it is and nothing of the key; its bytes are overwritten
/// when it is dropped.
#[derive(Clone, PartialEq, Eq)]
pub enum Key {
    /// 32 bytes used as the key as they are.
    Raw([u8; 32]),
    /// A passphrase (see [`Key::passphrase`]).
    Passphrase(String),
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Key::Raw(_) => "Key::Raw(..)",
            Key::Passphrase(_) => "Key::Passphrase(..)",
        })
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        let bytes: &mut [u8] = match self {
            Key::Raw(k) => k,
            // SAFETY: zeroes are valid UTF-8, and the string is dropped right after.
            Key::Passphrase(p) => unsafe { p.as_bytes_mut() },
        };
        wipe(bytes);
    }
}

/// Zeroes key bytes with writes the compiler keeps (the memory is about to be freed).
fn wipe(bytes: &mut [u8]) {
    for b in bytes {
        // SAFETY: a valid, aligned byte; volatile so the write is not elided.
        unsafe { std::ptr::write_volatile(b, 0) };
    }
}

impl Key {
    /// A passphrase key. Refused (`invalid_value`, field `key`): an empty one, and one
    /// starting with `raw:` or `x'`, which the cipher would read as a raw key.
    pub fn passphrase(passphrase: impl Into<String>) -> Result<Key> {
        let p = passphrase.into();
        let reason = if p.is_empty() {
            "must not be empty"
        } else if p.starts_with("raw:") || p.to_ascii_lowercase().starts_with("x'") {
            "must not start with `raw:` or `x'` (the cipher reads those as raw keys; pass 32 bytes for a raw key)"
        } else {
            return Ok(Key::Passphrase(p));
        };
        Err(Error::Invalid { field: "key".into(), reason: reason.into() })
    }

    /// A raw key from bytes, which must be exactly 32 (`invalid_value`, field `key`).
    pub fn raw(bytes: &[u8]) -> Result<Key> {
        let key = bytes.try_into().map_err(|_| Error::Invalid {
            field: "key".into(),
            reason: format!("must be 32 bytes or a passphrase, got {} bytes", bytes.len()),
        })?;
        Ok(Key::Raw(key))
    }

    /// What the cipher is given: `raw:` and the 32 bytes (no key derivation), or the
    /// passphrase's bytes.
    fn material(&self) -> Vec<u8> {
        match self {
            Key::Raw(k) => [b"raw:".as_slice(), k].concat(),
            Key::Passphrase(p) => p.as_bytes().to_vec(),
        }
    }
}

/// Overwrites a key's copy once SQLite has it.
fn with_material<T>(key: &Key, f: impl FnOnce(&[u8]) -> T) -> T {
    let mut material = key.material();
    let out = f(&material);
    wipe(&mut material);
    out
}

fn check(conn: &Connection, code: c_int) -> Result<()> {
    if code == ffi::SQLITE_OK {
        return Ok(());
    }
    // SAFETY: the connection's handle is open; the message is copied before any other call.
    let message = unsafe { std::ffi::CStr::from_ptr(ffi::sqlite3_errmsg(conn.handle())) }.to_string_lossy().into_owned();
    Err(Error::Sqlite(rusqlite::Error::SqliteFailure(ffi::Error::new(code), Some(message))))
}

/// Gives the connection's main database its key, before anything is read: an existing
/// file is then decrypted with it, a new one encrypted from its first page. A key that
/// does not open the file is [`Error::WrongKey`]; nothing is written.
pub(crate) fn apply(conn: &Connection, key: &Key) -> Result<()> {
    let code = with_material(key, |m| {
        // SAFETY: an open handle, a NUL-terminated name, and `m.len()` readable bytes.
        unsafe { sqlite3_key_v2(conn.handle(), c"main".as_ptr(), m.as_ptr().cast(), m.len() as c_int) }
    });
    check(conn, code)?;
    readable(conn, true)
}

/// Reads the schema, the first read of a newly opened database: `SQLITE_NOTADB` there
/// means the file is encrypted under another key ([`Error::WrongKey`] when a key was
/// given) or under one not given ([`Error::Encrypted`]).
pub(crate) fn readable(conn: &Connection, keyed: bool) -> Result<()> {
    match conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(())) {
        Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::NotADatabase => {
            Err(if keyed { Error::WrongKey } else { Error::Encrypted })
        }
        other => Ok(other?),
    }
}

/// Re-encrypts the connection's file database under `key`, or decrypts it (`None`), in
/// place and in one transaction. A write-ahead log is checkpointed and left for the
/// rekey (the cipher cannot encrypt a plain database in WAL mode), then resumed.
pub(crate) fn rekey(conn: &Connection, key: Option<&Key>) -> Result<()> {
    let journal: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    let wal = journal.eq_ignore_ascii_case("wal");
    if wal {
        crate::storage::set_pragma(conn, "journal_mode", "DELETE")?;
    }
    let code = match key {
        Some(key) => with_material(key, |m| {
            // SAFETY: as in `apply`.
            unsafe { sqlite3_rekey_v2(conn.handle(), c"main".as_ptr(), m.as_ptr().cast(), m.len() as c_int) }
        }),
        // SAFETY: an open handle and a NUL-terminated name; no key means decrypt.
        None => unsafe { sqlite3_rekey_v2(conn.handle(), c"main".as_ptr(), std::ptr::null(), 0) },
    };
    let rekeyed = check(conn, code);
    if wal {
        crate::storage::set_pragma(conn, "journal_mode", "WAL")?;
    }
    rekeyed
}
