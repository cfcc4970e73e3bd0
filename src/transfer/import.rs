//! Importing a database image: the rows are trusted once checked, the schema never is.
//!
//! A memory file travels (a file dropped on the explorer, IndexedDB, KV, R2), and a file
//! from elsewhere must never change how the engine behaves. So an image is never adopted
//! as it is. [`rebuild`]:
//!
//! 1. opens the bytes read only on a connection of their own, defensively:
//!    `SQLITE_DBCONFIG_DEFENSIVE`, `trusted_schema = OFF`, `cell_size_check = ON`,
//!    triggers and views disabled, `query_only`;
//! 2. refuses anything that is not an SQLite image, fails `quick_check`, has no schema
//!    version, or one newer than this library's ([`Error::NewerSchema`]);
//! 3. builds a fresh database of the image's version **with our own migrations** and
//!    compares the two schemas object by object — every table, index, trigger, view and
//!    FTS shadow table, by type, name and SQL. Any difference (an extra trigger, a dropped
//!    cascade, an altered table, a view, an index) refuses the image and says what differed;
//! 4. copies the rows of every table the engine writes into the fresh database through
//!    ordinary inserts, so our triggers re-derive what is derived (the FTS indexes, the
//!    per-agent text statistics: any table an insert trigger writes). The image's derived
//!    tables and FTS shadow tables are never read, so tampering with them changes nothing.
//!    A value of the wrong storage class refuses the image;
//! 5. migrates the fresh database to the current version, once the record refs an image
//!    of versions 1–3 stores as text (`'mem:12'`, which version 4 stores as a kind and an
//!    id) are checked to be written as ours are;
//! 6. checks the invariants the engine holds on its rows (design §1, §2, §5): every
//!    relation, mention, alias and anchor names a row that exists for the same agent; one
//!    normalized name or alias names at most one entity in a scope; normalized twins are
//!    what [`crate::base::normalize::normalize`] gives, within the bounds a declaration is held to; an embedding holds four bytes per dimension of finite numbers whose squared norm is finite, and the model
//!    named with it is named only with one, in 1–256 characters; ids fit a JavaScript
//!    number; every instant of a record's expiry or invalidation and of a relation's
//!    validity or closing is written as ours are, and an interval ends after it starts. The rows are checked in the current schema, whatever the image's version.
//!
//! Every refusal is [`Error::NotAMemory`] (or `NewerSchema`) saying what was wrong, and is
//! returned before the caller's memory is touched.

use crate::api::error::{Error, Result};
use crate::api::refs::Ref;
use crate::graph::associations::{checked_name, MAX_STORED_TEXT};
use crate::storage::schema::{create_at_version, migrate, SCHEMA_VERSION};
use rusqlite::config::DbConfig;
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, MAIN_DB};
use std::collections::BTreeMap;

/// The largest id an image may hold: ids reach JavaScript as numbers.
const MAX_ID: i64 = (1 << 53) - 1;

/// How many differences a refusal lists before it counts the rest.
const SHOWN: usize = 4;

fn refuse(why: impl Into<String>) -> Error {
    Error::NotAMemory(why.into())
}

/// The database held in `bytes`, rebuilt by our own migrations and triggers from its rows
/// into `fresh` (an empty database: in memory, or an encrypted file when the memory it is
/// for is encrypted), at the current schema version and `page_size`. Nothing outside the
/// returned connection is touched; any failure is a typed refusal.
pub(crate) fn rebuild(bytes: &[u8], fresh: Connection, page_size: i64) -> Result<Connection> {
    damaged(rebuild_checked(bytes, fresh, page_size))
}

/// A failure of SQLite's while bytes from outside are read (a page that decrypts to
/// nothing, a record cut short) is a refusal of the bytes, never the generic `sqlite`
/// error: whatever is wrong with them, the caller's memory is untouched.
pub(crate) fn damaged<T>(result: Result<T>) -> Result<T> {
    result.map_err(|e| match e {
        Error::Sqlite(e) => unreadable(e),
        other => other,
    })
}

fn rebuild_checked(bytes: &[u8], mut fresh: Connection, page_size: i64) -> Result<Connection> {
    let image = open_image(bytes)?;
    let version: i64 = image.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(unreadable)?;
    if version == 0 {
        return Err(refuse("the bytes hold an SQLite database without an associative-memory schema version"));
    }
    if version > SCHEMA_VERSION {
        return Err(Error::NewerSchema { found: version, supported: SCHEMA_VERSION });
    }
    if version < 0 {
        return Err(refuse(format!("schema version {version} is not one this library ever wrote")));
    }
    crate::storage::set_pragma(&fresh, "page_size", page_size)?;
    create_at_version(&mut fresh, version)?;
    compare_schemas(&image, &fresh, version)?;
    let tx = fresh.transaction()?;
    copy_rows(&image, &tx)?;
    if version < 4 {
        check_spellings(&tx)?;
    }
    tx.commit()?;
    migrate(&mut fresh)?;
    check_invariants(&fresh)?;
    Ok(fresh)
}

fn unreadable(e: rusqlite::Error) -> Error {
    refuse(format!("the image cannot be read: {e}"))
}

/// Whether `bytes` begin as a plain SQLite database does (an encrypted one does not).
pub(crate) fn is_plain_image(bytes: &[u8]) -> bool {
    bytes.starts_with(b"SQLite format 3\0")
}

/// The image on a read-only connection that trusts nothing in it.
fn open_image(bytes: &[u8]) -> Result<Connection> {
    if !is_plain_image(bytes) {
        return Err(refuse(if bytes.is_empty() {
            "the bytes are empty".into()
        } else {
            "the bytes are not an SQLite database (an encrypted export is imported with its key)".to_string()
        }));
    }
    // An image of a database in WAL mode (SQLite's own serialization of one) reads as a
    // rollback-journal database: an image has no log, and SQLite refuses to open an
    // in-memory image marked for one.
    let bytes = without_wal(bytes);
    let mut conn = Connection::open_in_memory()?;
    distrust(&conn)?;
    conn.deserialize_read_exact(MAIN_DB, &bytes[..], bytes.len(), true)
        .map_err(|e| refuse(format!("the bytes are not an SQLite image: {e}")))?;
    crate::storage::set_pragma(&conn, "query_only", true)?;
    let check: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(unreadable)?;
    if check != "ok" {
        return Err(refuse(format!("integrity check failed: {check}")));
    }
    Ok(conn)
}

/// The image with its file format versions (header bytes 18 and 19) set from WAL (2) to
/// rollback journal (1); any other image as it is.
pub(crate) fn without_wal(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    match bytes.get(18..20) {
        Some([2, 2]) => {
            let mut copy = bytes.to_vec();
            copy[18..20].copy_from_slice(&[1, 1]);
            std::borrow::Cow::Owned(copy)
        }
        _ => std::borrow::Cow::Borrowed(bytes),
    }
}

/// Settings for a connection to a database from elsewhere, before it reads anything: no
/// schema SQL is trusted to run (functions, triggers, views), and every cell is checked.
pub(crate) fn distrust(conn: &Connection) -> Result<()> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_TRIGGER, false)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_VIEW, false)?;
    crate::storage::set_pragma(conn, "cell_size_check", true)?;
    Ok(())
}

/// A database's schema objects: (type, name) → (table, SQL).
type Objects = BTreeMap<(String, String), (String, Option<String>)>;

/// Every schema object of a database.
fn objects(conn: &Connection) -> Result<Objects> {
    let mut stmt = conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema").map_err(unreadable)?;
    let rows = stmt.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), (r.get(2)?, r.get(3)?)))).map_err(unreadable)?;
    // inserted one by one, as `crate::base::sort::map_from` does (a later row for a key
    // replaces an earlier one, as `collect` has it)
    let mut out = Objects::new();
    for row in rows {
        let (key, value) = row.map_err(unreadable)?;
        out.insert(key, value);
    }
    Ok(out)
}

/// Refuses an image whose schema is not exactly the one our migrations give its version.
fn compare_schemas(image: &Connection, fresh: &Connection, version: i64) -> Result<()> {
    let theirs = objects(image)?;
    let ours = objects(fresh)?;
    let mut differences = Vec::new();
    for ((kind, name), (table, sql)) in &theirs {
        match ours.get(&(kind.clone(), name.clone())) {
            None => differences.push(format!("an extra {kind} `{name}` (on `{table}`)")),
            Some(mine) if mine != &(table.clone(), sql.clone()) => differences.push(format!("{kind} `{name}` differs from ours")),
            Some(_) => {}
        }
    }
    for (kind, name) in ours.keys().filter(|k| !theirs.contains_key(*k)) {
        differences.push(format!("our {kind} `{name}` is missing"));
    }
    if differences.is_empty() {
        return Ok(());
    }
    let more = differences.len().saturating_sub(SHOWN);
    differences.truncate(SHOWN);
    let tail = if more > 0 { format!(", and {more} more") } else { String::new() };
    Err(refuse(format!("the schema differs from version {version} of ours: {}{tail}", differences.join("; "))))
}

/// The tables an insert trigger of our schema writes: derived, so re-derived, never copied.
/// (A list, each once: a `BTreeSet<String>` would cost the wasm module its code.)
fn derived_tables(conn: &Connection) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut stmt = conn.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger'")?;
    for sql in stmt.query_map([], |r| r.get::<_, String>(0))? {
        // Our schema's SQL is ASCII: `to_ascii_lowercase` is `to_lowercase` on it, without
        // the Unicode one's code in the wasm module (~4 KB).
        let sql = sql?.to_ascii_lowercase();
        let words: Vec<&str> = sql.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        if !words.windows(2).any(|w| w == ["after", "insert"]) {
            continue;
        }
        for pair in words.windows(2) {
            if (pair[0] == "into" || pair[0] == "update") && !["of", "on"].contains(&pair[1]) && !out.iter().any(|t| t == pair[1]) {
                out.push(pair[1].to_owned());
            }
        }
    }
    Ok(out)
}

/// A table's columns: (name, declared type, not null).
fn columns(conn: &Connection, table: &str) -> Result<Vec<(String, String, bool)>> {
    let mut stmt = conn.prepare("SELECT name, upper(type), \"notnull\" FROM pragma_table_info(?) ORDER BY cid")?;
    let rows = stmt.query_map([table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Copies every table the engine writes, in the order our schema created them, through
/// inserts that fire our triggers; then the AUTOINCREMENT counters.
fn copy_rows(image: &Connection, fresh: &Connection) -> Result<()> {
    let virtuals: Vec<String> = fresh
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let derived = derived_tables(fresh)?;
    let tables: Vec<String> = fresh
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let copied: Vec<&String> = tables
        .iter()
        .filter(|t| !virtuals.contains(t) && !virtuals.iter().any(|v| t.starts_with(&format!("{v}_"))) && !derived.contains(*t))
        .collect();
    for table in &copied {
        let cols = columns(fresh, table)?;
        for (name, declared, not_null) in &cols {
            let allowed = match declared.as_str() {
                "TEXT" => "'text'",
                "INTEGER" => "'integer'",
                "BLOB" => "'blob'",
                "REAL" => "'real', 'integer'",
                _ => continue,
            };
            let nulls = if *not_null { "" } else { ", 'null'" };
            let sql = format!(
                "SELECT typeof({c}) FROM {t} WHERE typeof({c}) NOT IN ({allowed}{nulls}) LIMIT 1",
                c = ident(name),
                t = ident(table)
            );
            let bad: Option<String> = image.query_row(&sql, [], |r| r.get(0)).map(Some).or_else(none_if_empty).map_err(unreadable)?;
            if let Some(bad) = bad {
                // `declared` is one of the ASCII names above
                return Err(refuse(format!(
                    "`{table}.{name}` holds a value of type {bad} where ours holds {}",
                    declared.to_ascii_lowercase()
                )));
            }
        }
        let list = cols.iter().map(|c| ident(&c.0)).collect::<Vec<_>>().join(", ");
        let marks = vec!["?"; cols.len()].join(", ");
        let mut insert = fresh.prepare(&format!("INSERT INTO {} ({list}) VALUES ({marks})", ident(table)))?;
        let mut select = image.prepare(&format!("SELECT {list} FROM {}", ident(table))).map_err(unreadable)?;
        let mut rows = select.query([]).map_err(unreadable)?;
        while let Some(row) = rows.next().map_err(unreadable)? {
            let values = (0..cols.len()).map(|i| row.get::<_, Value>(i)).collect::<rusqlite::Result<Vec<_>>>().map_err(unreadable)?;
            insert.execute(params_from_iter(values)).map_err(|e| refuse(format!("a row of `{table}` breaks our schema: {e}")))?;
        }
    }
    // The next id of each table as the image had it, when it is one our inserts allow.
    let has_sequence: bool =
        image.query_row("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'", [], |r| r.get(0)).map_err(unreadable)?;
    if has_sequence {
        let mut stmt = image.prepare("SELECT name, seq FROM sqlite_sequence").map_err(unreadable)?;
        let sequences: Vec<(Value, Value)> =
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).map_err(unreadable)?.collect::<rusqlite::Result<_>>().map_err(unreadable)?;
        for (name, seq) in sequences {
            let (Value::Text(name), Value::Integer(seq)) = (&name, seq) else {
                return Err(refuse("`sqlite_sequence` holds a row that is not a table name and a counter"));
            };
            if !copied.contains(&name) {
                return Err(refuse(format!("`sqlite_sequence` counts ids for `{name}`, which is not one of our tables")));
            }
            let max: i64 = fresh.query_row(&format!("SELECT coalesce(max(rowid), 0) FROM {}", ident(name)), [], |r| r.get(0))?;
            if !(max..=MAX_ID).contains(&seq) {
                return Err(refuse(format!("the id counter of `{name}` is {seq}, outside {max}..={MAX_ID}")));
            }
            fresh.execute("DELETE FROM sqlite_sequence WHERE name = ?", [name])?;
            fresh.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", rusqlite::params![name, seq])?;
        }
    }
    Ok(())
}

fn none_if_empty<T>(e: rusqlite::Error) -> rusqlite::Result<Option<T>> {
    match e {
        rusqlite::Error::QueryReturnedNoRows => Ok(None),
        e => Err(e),
    }
}

/// The first row a query finds, described by its columns, or none.
fn first(conn: &Connection, sql: &str) -> Result<Option<String>> {
    let found = conn
        .query_row(sql, [], |r| {
            let n = r.as_ref().column_count();
            (0..n).map(|i| r.get::<_, Value>(i)).collect::<rusqlite::Result<Vec<_>>>()
        })
        .map(Some)
        .or_else(none_if_empty)?;
    Ok(found.map(|values| {
        values
            .iter()
            .map(|v| match v {
                Value::Null => "NULL".to_owned(),
                Value::Integer(i) => i.to_string(),
                Value::Real(f) => f.to_string(),
                Value::Text(t) => format!("{t:?}"),
                Value::Blob(b) => format!("<{} bytes>", b.len()),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }))
}

/// The row a stored `(kind, id)` names exists for `agent`: an entity, a memory or an episode.
fn exists(kind: &str, id: &str, agent: &str) -> String {
    format!(
        "CASE {kind} WHEN 'entity' THEN EXISTS (SELECT 1 FROM entities x WHERE x.id = {id} AND x.agent_id = {agent})
         WHEN 'mem' THEN EXISTS (SELECT 1 FROM memories x WHERE x.id = {id} AND x.agent_id = {agent})
         WHEN 'ep' THEN EXISTS (SELECT 1 FROM episodes x WHERE x.id = {id} AND x.agent_id = {agent}) ELSE 0 END"
    )
}

/// The record (a memory or an episode, never an entity) a stored `(kind, id)` names exists
/// for `agent`.
fn record_exists(kind: &str, id: &str, agent: &str) -> String {
    format!("({kind} IN ('mem', 'ep') AND {})", exists(kind, id, agent))
}

/// The record refs an image of versions 1–3 stores as text (a mention's `ref`, a relation's
/// `anchor_ref`), which the migration to version 4 reads as a kind and an id: each must be
/// written as ours are (`mem:7`, never `mem:007`), so that it is read as the record it names.
fn check_spellings(conn: &Connection) -> Result<()> {
    let mut stmt = conn.prepare("SELECT ref FROM entity_mentions UNION SELECT anchor_ref FROM relations WHERE anchor_ref <> ''")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let text: String = r.get(0)?;
        if Ref::parse(&text).map(|p| p.to_string()).as_deref() != Some(text.as_str()) {
            return Err(refuse(format!("the record ref {text:?} is not written as ours are")));
        }
    }
    Ok(())
}

/// The engine's invariants over the rows of an image, copied and migrated; the first one
/// broken refuses the image.
fn check_invariants(conn: &Connection) -> Result<()> {
    let checks: Vec<(String, String)> = vec![
        (
            format!("SELECT id FROM (SELECT id FROM memories UNION ALL SELECT id FROM episodes UNION ALL SELECT id FROM entities UNION ALL SELECT id FROM relations) WHERE id < 1 OR id > {MAX_ID} LIMIT 1"),
            format!("an id is outside 1..={MAX_ID}"),
        ),
        ("SELECT entity_id, alias FROM entity_aliases a WHERE NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = a.entity_id) LIMIT 1".into(), "an alias names a missing entity".into()),
        ("SELECT entity_id, ref_kind, ref_id FROM entity_mentions m WHERE NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = m.entity_id) LIMIT 1".into(), "a mention names a missing entity".into()),
        (
            format!(
                "SELECT m.entity_id, m.ref_kind, m.ref_id FROM entity_mentions m JOIN entities e ON e.id = m.entity_id WHERE NOT {} LIMIT 1",
                record_exists("m.ref_kind", "m.ref_id", "e.agent_id")
            ),
            "a mention names a record that does not exist for the entity's agent".into(),
        ),
        (
            format!("SELECT r.id, r.subject_kind, r.subject_id FROM relations r WHERE NOT ({}) LIMIT 1", exists("r.subject_kind", "r.subject_id", "r.agent_id")),
            "a relation's subject does not exist for its agent".into(),
        ),
        (
            format!("SELECT r.id, r.object_kind, r.object_id FROM relations r WHERE NOT ({}) LIMIT 1", exists("r.object_kind", "r.object_id", "r.agent_id")),
            "a relation's object does not exist for its agent".into(),
        ),
        (
            // no anchor is kind '' and id 0
            format!(
                "SELECT r.id, r.anchor_kind, r.anchor_id FROM relations r WHERE NOT ((r.anchor_kind = '' AND r.anchor_id = 0) OR {}) LIMIT 1",
                record_exists("r.anchor_kind", "r.anchor_id", "r.agent_id")
            ),
            "a relation's anchor is not a record of its agent".into(),
        ),
        (
            "SELECT 'entity', id FROM entities WHERE declared_by NOT IN ('agent', 'operator')
             UNION ALL SELECT 'mention', entity_id FROM entity_mentions WHERE declared_by NOT IN ('agent', 'operator')
             UNION ALL SELECT 'relation', id FROM relations WHERE declared_by NOT IN ('agent', 'operator') LIMIT 1"
                .into(),
            "a declaration's `declared_by` is neither 'agent' nor 'operator'".into(),
        ),
        (
            "SELECT id FROM relations WHERE closed_by NOT IN ('', 'agent', 'operator') OR (valid_from <> '' AND valid_to <> '' AND valid_to <= valid_from) LIMIT 1".into(),
            "a relation is closed by neither 'agent' nor 'operator', or ends at or before it starts".into(),
        ),
        (
            "WITH named AS (SELECT agent_id, project_id, channel, normalized AS n, id FROM entities
                UNION SELECT e.agent_id, e.project_id, e.channel, a.normalized, e.id FROM entity_aliases a JOIN entities e ON e.id = a.entity_id)
             SELECT agent_id, project_id, channel, n FROM named GROUP BY agent_id, project_id, channel, n HAVING count(DISTINCT id) > 1 LIMIT 1"
                .into(),
            "one name or alias is claimed by two entities in one scope".into(),
        ),
        (
            "SELECT 'memories', id FROM memories WHERE (embedding IS NULL) <> (embedding_dim IS NULL) OR length(embedding) <> 4 * embedding_dim OR embedding_dim < 1
             UNION ALL SELECT 'episodes', id FROM episodes WHERE (embedding IS NULL) <> (embedding_dim IS NULL) OR length(embedding) <> 4 * embedding_dim OR embedding_dim < 1 LIMIT 1"
                .into(),
            "an embedding does not hold four bytes for each of its dimensions".into(),
        ),
        (
            // 256 is `crate::api::MAX_ID`, the limit `store` holds a model's name to, written
            // out here: a formatted string cost the module the bytes it had left under 700 KB.
            "SELECT 'memories', id FROM memories WHERE embedding_model IS NOT NULL AND (embedding IS NULL OR length(embedding_model) NOT BETWEEN 1 AND 256)
             UNION ALL SELECT 'episodes', id FROM episodes WHERE embedding_model IS NOT NULL AND (embedding IS NULL OR length(embedding_model) NOT BETWEEN 1 AND 256) LIMIT 1"
                .into(),
            "an embedding's model is named without an embedding, or its name is not 1–256 characters".into(),
        ),
    ];
    const _: () = assert!(crate::api::MAX_ID == 256);
    for (sql, what) in &checks {
        if let Some(row) = first(conn, sql)? {
            return Err(refuse(format!("{what} ({row})")));
        }
    }
    // Normalized twins: what a lookup compares must be what normalization gives.
    for (sql, what) in [
        ("SELECT id, name, normalized FROM entities", "entity"),
        ("SELECT entity_id, alias, normalized FROM entity_aliases", "alias"),
        ("SELECT id, predicate, predicate FROM relations", "predicate"),
    ] {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (id, text, normalized): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
            // the bounds first, as a declaration checks them: a name past them is never
            // normalized, so an image cannot make this check take the heap
            let shown: String = text.chars().take(40).collect();
            match checked_name(&text, MAX_STORED_TEXT) {
                Err(reason) => return Err(refuse(format!("the {what} {shown:?} (id {id}) {reason}"))),
                Ok(name) if name.normalized != normalized => {
                    return Err(refuse(format!("the {what} {shown:?} (id {id}) is stored with a normalized form that is not its own")))
                }
                Ok(_) => {}
            }
        }
    }
    // Instants as the engine writes them (`format_iso`'s one spelling): the reads compare
    // them as text, so another spelling of an instant would compare as another instant.
    for (table, column) in [
        ("memories", "expires_at"),
        ("memories", "invalid_at"),
        ("episodes", "expires_at"),
        ("episodes", "invalid_at"),
        ("relations", "valid_from"),
        ("relations", "valid_to"),
        ("relations", "closed_at"),
    ] {
        let mut stmt = conn.prepare(&format!("SELECT id, {column} FROM {table} WHERE {column} <> ''"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (id, at): (i64, String) = (r.get(0)?, r.get(1)?);
            if crate::api::canonical_time(&at).as_deref() != Some(at.as_str()) {
                return Err(refuse(format!("the instant {at:?} is not written as ours are ({table} {id}, {column})")));
            }
        }
    }
    // Vectors a store would take: finite numbers whose squared norm is finite (one NaN
    // score erases the ranking of every record of its agent).
    for table in ["memories", "episodes"] {
        let mut stmt = conn.prepare(&format!("SELECT id, embedding FROM {table} WHERE embedding IS NOT NULL"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (id, blob): (i64, Vec<u8>) = (r.get(0)?, r.get(1)?);
            if let Some(reason) = crate::base::dot::unusable(&crate::indexes::vectors::decode(&blob)) {
                return Err(refuse(format!("an embedding {reason} ({table} {id})")));
            }
        }
    }
    Ok(())
}
