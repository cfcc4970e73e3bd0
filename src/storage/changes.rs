//! Changesets (sync, `crate::storage::sync`): what a write changed in the memory's base
//! tables, captured by SQLite's session extension, and applied, inverted and applied again
//! on another copy of the memory.
//!
//! Only the base tables are captured: the derived ones (the FTS indexes, `text_stats`) are
//! kept by their triggers on every copy as a change is applied, and sync's own tables are
//! the device's. rusqlite binds the session API only behind a feature that runs bindgen
//! natively; the bindings of both builds declare it, so it is called through them here.

use crate::api::error::{Error, Result};
use rusqlite::{ffi, Connection};
use std::ffi::{c_int, c_void, CString};
use std::ptr::null_mut;

/// The tables whose rows are the memory: what a changeset carries.
pub(crate) const BASE_TABLES: &[&str] =
    &["memories", "episodes", "entities", "entity_aliases", "entity_mentions", "relations", "predicates"];

/// A session recording the changes made on a connection to its base tables. Dropped before
/// the connection closes (a session outliving its connection is undefined behaviour).
pub(crate) struct Session {
    ptr: *mut ffi::sqlite3_session,
}

/// `rc` as an error, with the connection's message when it has one.
fn failed(conn: &Connection, rc: c_int, what: &str) -> Error {
    // SAFETY: the handle is the open connection's; the message is copied at once.
    let message = unsafe {
        let m = ffi::sqlite3_errmsg(conn.handle());
        if m.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(m).to_string_lossy().into_owned()
        }
    };
    Error::Sqlite(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some(format!("{what}: {message}"))))
}

impl Session {
    /// A session on `conn`'s main database, attached to every base table.
    pub(crate) fn new(conn: &Connection) -> Result<Session> {
        let mut ptr = null_mut();
        // SAFETY: an open connection's handle and a NUL-terminated name; the session is
        // owned by the value returned and deleted on drop.
        let rc = unsafe { ffi::sqlite3session_create(conn.handle(), c"main".as_ptr(), &mut ptr) };
        if rc != ffi::SQLITE_OK {
            return Err(failed(conn, rc, "the session could not be created"));
        }
        let session = Session { ptr };
        for table in BASE_TABLES {
            let name = CString::new(*table).expect("table names hold no NUL");
            // SAFETY: a live session and a NUL-terminated name.
            let rc = unsafe { ffi::sqlite3session_attach(session.ptr, name.as_ptr()) };
            if rc != ffi::SQLITE_OK {
                return Err(failed(conn, rc, "the session could not attach a table"));
            }
        }
        Ok(session)
    }

    /// Whether nothing was recorded. (A change rolled back since is not seen here; the
    /// changeset leaves it out.)
    pub(crate) fn is_empty(&self) -> bool {
        // SAFETY: a live session.
        unsafe { ffi::sqlite3session_isempty(self.ptr) != 0 }
    }

    /// Stops or resumes recording: applying the log is not a change of this device's.
    pub(crate) fn enable(&self, on: bool) {
        // SAFETY: a live session.
        unsafe { ffi::sqlite3session_enable(self.ptr, c_int::from(on)) };
    }

    /// The changes recorded, as a changeset: each changed row's net change since the session
    /// began, against the database as it is now (so a change rolled back is not in it).
    pub(crate) fn changeset(&self, conn: &Connection) -> Result<Vec<u8>> {
        let (mut n, mut p): (c_int, *mut c_void) = (0, null_mut());
        // SAFETY: a live session; the buffer SQLite allocates is copied and freed.
        let rc = unsafe { ffi::sqlite3session_changeset(self.ptr, &mut n, &mut p) };
        if rc != ffi::SQLITE_OK {
            return Err(failed(conn, rc, "the changeset could not be made"));
        }
        Ok(take(p, n))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: the session is live and deleted once.
        unsafe { ffi::sqlite3session_delete(self.ptr) }
    }
}

/// The bytes of an SQLite allocation of `n` bytes at `p`, which is freed.
fn take(p: *mut c_void, n: c_int) -> Vec<u8> {
    if p.is_null() {
        return Vec::new();
    }
    // SAFETY: SQLite allocated `n` bytes at `p`; they are copied before it is freed.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n as usize) }.to_vec();
    unsafe { ffi::sqlite3_free(p) };
    bytes
}

/// What applying a change does where the database does not hold what the change expects.
#[derive(Clone, Copy)]
pub(crate) enum Policy {
    /// A change of the log, applied in the log's order on every device: the later change
    /// wins. An update of a row that holds other values writes its columns (the later
    /// write wins, column by column); a delete of such a row deletes it (a delete wins over
    /// an update); an update or delete of a row already gone does nothing (the delete won);
    /// an insert of a row already there (the same entity or relation declared on two
    /// devices: its id is its key's) keeps the row there, the first in the log; an insert
    /// a constraint refuses is left out.
    Log,
    /// Undoing this device's own pending changes, whose effect is known exactly: the
    /// database is put back as it was before them, whatever it holds.
    Undo,
}

/// Only the base tables take a change: one that names another table (the statistics, an FTS
/// index's shadow tables, sync's own state) was not made by this engine and is left out.
unsafe extern "C" fn base_tables_only(_ctx: *mut c_void, table: *const std::ffi::c_char) -> c_int {
    // SAFETY: SQLite passes the table's NUL-terminated name.
    let name = unsafe { std::ffi::CStr::from_ptr(table) }.to_bytes();
    c_int::from(BASE_TABLES.iter().any(|t| t.as_bytes() == name))
}

unsafe extern "C" fn on_conflict(ctx: *mut c_void, kind: c_int, _iter: *mut ffi::sqlite3_changeset_iter) -> c_int {
    // SAFETY: `ctx` is the `Policy` `apply` passes, alive for the call.
    let policy = unsafe { *ctx.cast::<Policy>() };
    match (policy, kind) {
        (_, ffi::SQLITE_CHANGESET_DATA) => ffi::SQLITE_CHANGESET_REPLACE,
        (Policy::Undo, ffi::SQLITE_CHANGESET_CONFLICT) => ffi::SQLITE_CHANGESET_REPLACE,
        // NOTFOUND, CONFLICT under Log, CONSTRAINT, FOREIGN_KEY: left out
        _ => ffi::SQLITE_CHANGESET_OMIT,
    }
}

/// Applies `changeset` to `conn` (inside the caller's transaction; SQLite applies it in a
/// savepoint of its own, so a changeset that is not one changes nothing), to the base
/// tables only. The triggers
/// fire: the FTS indexes and statistics follow, and a deleted record takes its
/// declarations with it.
pub(crate) fn apply(conn: &Connection, changeset: &[u8], policy: Policy) -> Result<()> {
    let mut policy = policy;
    let n = c_int::try_from(changeset.len()).map_err(|_| Error::Storage("a changeset over 2 GiB".into()))?;
    // SAFETY: SQLite reads the changeset and does not write it (the pointer is not const in
    // its signature only); `policy` outlives the call.
    let rc = unsafe {
        ffi::sqlite3changeset_apply(
            conn.handle(),
            n,
            changeset.as_ptr().cast_mut().cast(),
            Some(base_tables_only),
            Some(on_conflict),
            (&raw mut policy).cast(),
        )
    };
    if rc != ffi::SQLITE_OK {
        return Err(failed(conn, rc, "the change could not be applied"));
    }
    Ok(())
}

/// The changeset that undoes `changeset`.
pub(crate) fn invert(conn: &Connection, changeset: &[u8]) -> Result<Vec<u8>> {
    let n = c_int::try_from(changeset.len()).map_err(|_| Error::Storage("a changeset over 2 GiB".into()))?;
    let (mut out_n, mut out): (c_int, *mut c_void) = (0, null_mut());
    // SAFETY: as in `apply`; the output SQLite allocates is copied and freed.
    let rc = unsafe { ffi::sqlite3changeset_invert(n, changeset.as_ptr().cast_mut().cast(), &mut out_n, &mut out) };
    if rc != ffi::SQLITE_OK {
        return Err(failed(conn, rc, "the change could not be inverted"));
    }
    Ok(take(out, out_n))
}

/// Deletes each declaration `changeset` inserted whose endpoint is gone (invariant 8), and
/// each alias it inserted that already names another entity of its bucket: a
/// device declared on a record or entity another device deleted, and the log applied the
/// delete first. The cascade triggers take a declaration when its endpoint is deleted, here
/// or by a change applied; one inserted after the delete meets no trigger. Only the rows
/// the changeset inserted are looked at, so a change costs what it holds, not the memory.
pub(crate) fn drop_orphans(conn: &Connection, changeset: &[u8]) -> Result<()> {
    for (table, key) in inserted_declarations(conn, changeset)? {
        let (sql, params): (&str, Vec<rusqlite::types::Value>) = match table {
            // and an alias another entity of its bucket is named or aliased by already (one
            // alias, one entity, design §2: two devices aliased two entities alike offline;
            // the first in the log keeps it)
            Declaration::Alias => (
                "DELETE FROM entity_aliases WHERE entity_id = ?1 AND normalized = ?2 AND (?1 NOT IN (SELECT id FROM entities)
                     OR EXISTS (SELECT 1 FROM entities me, entities o WHERE me.id = ?1 AND o.normalized = ?2 AND o.id <> ?1
                                    AND o.agent_id = me.agent_id AND o.project_id = me.project_id AND o.channel = me.channel)
                     OR EXISTS (SELECT 1 FROM entities me, entity_aliases a, entities o WHERE me.id = ?1 AND a.normalized = ?2
                                    AND a.entity_id <> ?1 AND o.id = a.entity_id
                                    AND o.agent_id = me.agent_id AND o.project_id = me.project_id AND o.channel = me.channel))",
                key,
            ),
            Declaration::Mention => (
                "DELETE FROM entity_mentions WHERE entity_id = ?1 AND ref_kind = ?2 AND ref_id = ?3 AND (?1 NOT IN (SELECT id FROM entities)
                     OR (?2 = 'mem' AND ?3 NOT IN (SELECT id FROM memories)) OR (?2 = 'ep' AND ?3 NOT IN (SELECT id FROM episodes)))",
                key,
            ),
            Declaration::Relation => (
                "DELETE FROM relations WHERE id = ?1 AND NOT (
                     (CASE subject_kind WHEN 'entity' THEN subject_id IN (SELECT id FROM entities)
                                        WHEN 'mem' THEN subject_id IN (SELECT id FROM memories)
                                        WHEN 'ep' THEN subject_id IN (SELECT id FROM episodes) ELSE 0 END)
                     AND (CASE object_kind WHEN 'entity' THEN object_id IN (SELECT id FROM entities)
                                           WHEN 'mem' THEN object_id IN (SELECT id FROM memories)
                                           WHEN 'ep' THEN object_id IN (SELECT id FROM episodes) ELSE 0 END)
                     AND (CASE anchor_kind WHEN '' THEN 1
                                           WHEN 'mem' THEN anchor_id IN (SELECT id FROM memories)
                                           WHEN 'ep' THEN anchor_id IN (SELECT id FROM episodes) ELSE 0 END))",
                key,
            ),
        };
        conn.prepare_cached(sql)?.execute(rusqlite::params_from_iter(params))?;
    }
    Ok(())
}

/// The tables of declarations whose rows depend on others.
enum Declaration {
    Alias,
    Mention,
    Relation,
}

/// The primary key of every row of a declaration table `changeset` inserts, in its order.
fn inserted_declarations(conn: &Connection, changeset: &[u8]) -> Result<Vec<(Declaration, Vec<rusqlite::types::Value>)>> {
    use rusqlite::types::Value;
    let n = c_int::try_from(changeset.len()).map_err(|_| Error::Storage("a changeset over 2 GiB".into()))?;
    let mut iter = null_mut();
    // SAFETY: the iterator reads the changeset, which outlives it; it is finalized below.
    let rc = unsafe { ffi::sqlite3changeset_start(&mut iter, n, changeset.as_ptr().cast_mut().cast()) };
    if rc != ffi::SQLITE_OK {
        return Err(failed(conn, rc, "the change could not be read"));
    }
    let mut out = Vec::new();
    let mut rc;
    loop {
        // SAFETY: a live iterator.
        rc = unsafe { ffi::sqlite3changeset_next(iter) };
        if rc != ffi::SQLITE_ROW {
            break;
        }
        let (mut table, mut columns, mut op, mut indirect) = (std::ptr::null(), 0, 0, 0);
        // SAFETY: a live iterator on a row; the table name lives as long as the row.
        rc = unsafe { ffi::sqlite3changeset_op(iter, &mut table, &mut columns, &mut op, &mut indirect) };
        if rc != ffi::SQLITE_OK {
            break;
        }
        if op != ffi::SQLITE_INSERT {
            continue;
        }
        // SAFETY: a NUL-terminated name SQLite holds for the row.
        let kind = match unsafe { std::ffi::CStr::from_ptr(table) }.to_bytes() {
            b"entity_aliases" => Declaration::Alias,
            b"entity_mentions" => Declaration::Mention,
            b"relations" => Declaration::Relation,
            _ => continue,
        };
        // the primary key's columns, in the table's order (an alias's are its first and third)
        let (mut flags, mut n) = (null_mut(), 0);
        // SAFETY: a live iterator on a row; the flags live as long as the row.
        rc = unsafe { ffi::sqlite3changeset_pk(iter, &mut flags, &mut n) };
        if rc != ffi::SQLITE_OK {
            break;
        }
        let key_columns: Vec<c_int> = (0..n).filter(|&i| unsafe { *flags.add(i as usize) } != 0).collect();
        let mut key = Vec::with_capacity(key_columns.len());
        for &i in &key_columns {
            let mut value = null_mut();
            // SAFETY: column `i` exists; the value lives as long as the row and is copied.
            rc = unsafe { ffi::sqlite3changeset_new(iter, i, &mut value) };
            if rc != ffi::SQLITE_OK || value.is_null() {
                break;
            }
            key.push(unsafe {
                match ffi::sqlite3_value_type(value) {
                    ffi::SQLITE_INTEGER => Value::Integer(ffi::sqlite3_value_int64(value)),
                    ffi::SQLITE_TEXT => {
                        let text = ffi::sqlite3_value_text(value);
                        let len = ffi::sqlite3_value_bytes(value) as usize;
                        Value::Text(String::from_utf8_lossy(std::slice::from_raw_parts(text, len)).into_owned())
                    }
                    _ => Value::Null,
                }
            });
        }
        if key.len() != key_columns.len() {
            // a key column without a value: not a changeset this engine made
            rc = ffi::SQLITE_CORRUPT;
            break;
        }
        out.push((kind, key));
    }
    // SAFETY: finalized once; its code is the iteration's when that failed.
    let end = unsafe { ffi::sqlite3changeset_finalize(iter) };
    match rc {
        ffi::SQLITE_DONE | ffi::SQLITE_ROW | ffi::SQLITE_OK if end == ffi::SQLITE_OK => Ok(out),
        _ => Err(failed(conn, if end != ffi::SQLITE_OK { end } else { rc }, "the change could not be read")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn memory() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::storage::schema::migrate(&mut conn).unwrap();
        conn.execute("INSERT INTO memories (agent_id, content, source, timestamp, created_at) VALUES ('a', 'kept', '{}', '', '')", [])
            .unwrap();
        conn
    }

    /// A write rolled back (a failed call of a group rolls back to its savepoint) leaves
    /// nothing in the changeset: the session records rows, and the changeset is made from
    /// what the rows hold when it is taken.
    #[test]
    fn a_change_rolled_back_is_not_in_the_changeset() {
        let mut conn = memory();
        let session = Session::new(&conn).unwrap();
        for sql in [
            "INSERT INTO memories (agent_id, content, source, timestamp, created_at) VALUES ('a', 'gone', '{}', '', '')",
            "UPDATE memories SET content = 'changed' WHERE id = 1",
            "DELETE FROM memories WHERE id = 1",
        ] {
            let tx = conn.savepoint().unwrap();
            tx.execute(sql, []).unwrap();
            drop(tx);
        }
        assert!(session.changeset(&conn).unwrap().is_empty());
        // and one that stands is in it, with the derived tables left out
        conn.execute("UPDATE memories SET content = 'changed' WHERE id = 1", []).unwrap();
        let change = session.changeset(&conn).unwrap();
        assert!(!change.is_empty());
        let other = memory();
        apply(&other, &change, Policy::Log).unwrap();
        let content: String = other.query_row("SELECT content FROM memories WHERE id = 1", [], |r| r.get(0)).unwrap();
        assert_eq!(content, "changed");
        // the FTS index followed through its trigger, not through the changeset
        let found: i64 = other.query_row("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'changed'", [], |r| r.get(0)).unwrap();
        assert_eq!(found, 1);
    }

    /// A changeset from outside that names a table other than the base tables (here the
    /// statistics and sync's own state) changes none of it.
    #[test]
    fn a_change_to_a_table_not_synced_is_left_out() {
        let conn = memory();
        let mut s = null_mut();
        unsafe { ffi::sqlite3session_create(conn.handle(), c"main".as_ptr(), &mut s) };
        let hostile = Session { ptr: s };
        for table in [c"text_stats", c"sync_state", c"memories"] {
            assert_eq!(unsafe { ffi::sqlite3session_attach(hostile.ptr, table.as_ptr()) }, ffi::SQLITE_OK);
        }
        conn.execute_batch(
            "UPDATE text_stats SET records = 99;
             INSERT INTO sync_state VALUES (5, 1, 1, 0);
             UPDATE memories SET content = 'changed' WHERE id = 1;",
        )
        .unwrap();
        let change = hostile.changeset(&conn).unwrap();
        let other = memory();
        apply(&other, &change, Policy::Log).unwrap();
        let read = |sql: &str| other.query_row(sql, [], |r| r.get::<_, rusqlite::types::Value>(0)).unwrap();
        assert_eq!(read("SELECT records FROM text_stats"), rusqlite::types::Value::Integer(1));
        assert_eq!(read("SELECT count(*) FROM sync_state"), rusqlite::types::Value::Integer(0));
        assert_eq!(read("SELECT content FROM memories"), rusqlite::types::Value::Text("changed".into()));
    }
}
