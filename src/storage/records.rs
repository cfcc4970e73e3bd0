//! Records: memories and episodes, and the operations that write, read and delete them.
//! [`Reader`] is the one reader of a record by its ref.

use crate::api::error::{Error, Result};
use crate::api::refs::{Kind, Ref};
use crate::api::{
    canonical_time, BacklogRecord, ContentItem, DeleteResponse, EmbeddingBacklogOptions, EmbeddingBacklogResponse, EpisodeOptions,
    EpisodeResponse, GetContentsOptions, GetContentsResponse, SetEmbeddingsOptions, StoreOptions, Turn,
};
use crate::base::as_of::AsOf;
use crate::base::clock::parse_iso;
use crate::base::scope::ReadScope;
use crate::base::sorted::{SortedMap, SortedSet};
use rusqlite::{params, params_from_iter, Connection, OptionalExtension};
use serde_json::{json, Value};
use std::cell::OnceCell;

fn embedding_blob(v: Option<&[f32]>) -> (Option<Vec<u8>>, Option<i64>) {
    match v {
        Some(v) => (Some(v.iter().flat_map(|f| f.to_le_bytes()).collect()), Some(v.len() as i64)),
        None => (None, None),
    }
}

/// An `expires_at` as stored: its canonical spelling, `''` when none is given (or `""`, which
/// `update_memory` takes as "never"). The option was checked, so a given one parses.
pub fn expiry(given: Option<&str>) -> String {
    given.and_then(canonical_time).unwrap_or_default()
}

/// Inserts a memory; returns its id. The caller holds the transaction and has validated
/// `opts`.
pub fn insert_memory(conn: &Connection, opts: &StoreOptions, now: &str) -> Result<i64> {
    let s = opts.scope();
    let source = match &opts.source {
        None => json!({"type": "Agent", "id": s.agent_id, "name": ""}),
        Some(given) => {
            json!({"type": given.kind.as_deref().unwrap_or_default(), "id": given.id.as_deref().unwrap_or_default(), "name": given.name.as_deref().unwrap_or_default()})
        }
    };
    let (blob, dim) = embedding_blob(opts.embedding.as_deref());
    let timestamp = opts.timestamp.as_deref().and_then(canonical_time);
    conn.prepare_cached(
        "INSERT INTO memories (id, agent_id, project_id, channel, content, source, timestamp, created_at, metadata, embedding, embedding_dim, \
         embedding_model, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )?
    .execute(params![
        super::sync::new_record_id(conn)?,
        s.agent_id,
        s.project_id,
        s.channel,
        opts.content,
        source.to_string(),
        timestamp.as_deref().unwrap_or(now),
        now,
        opts.metadata.as_ref().map(|m| Value::Object(m.clone()).to_string()),
        blob,
        dim,
        opts.embedding_model,
        expiry(opts.expires_at.as_deref()),
    ])?;
    Ok(conn.last_insert_rowid())
}

/// The records not embedded with `opts.model`, after `opts.after` (`embedding_backlog`):
/// memories, then episodes, each by id, read through the primary key from the cursor on.
pub fn embedding_backlog(conn: &Connection, opts: &EmbeddingBacklogOptions) -> Result<EmbeddingBacklogResponse> {
    let (model, limit) = (opts.model.as_deref(), opts.limit() as usize);
    let after = opts.after.as_deref().and_then(Ref::parse);
    let text = |kind: Kind| if kind == Kind::Mem { "content" } else { "summary" };
    let pending = "(embedding IS NULL OR embedding_model IS NOT ?)";
    let mut records = Vec::new();
    for kind in [Kind::Mem, Kind::Ep] {
        let from = match after {
            Some(r) if r.kind > kind => continue,
            Some(r) if r.kind == kind => r.id,
            _ => 0,
        };
        let sql = format!("SELECT id, {} FROM {} WHERE id > ? AND {pending} ORDER BY id LIMIT ?", text(kind), kind.table());
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows = stmt.query_map(params![from, model, (limit - records.len()) as i64], |r| {
            Ok(BacklogRecord { reference: Ref { kind, id: r.get(0)? }.to_string(), text: r.get(1)? })
        })?;
        for row in rows {
            records.push(row?);
        }
    }
    let total = match after {
        Some(_) => None,
        None => {
            let sql = format!("SELECT (SELECT count(*) FROM memories WHERE {pending}) + (SELECT count(*) FROM episodes WHERE {pending})");
            Some(conn.query_row(&sql, params![model, model], |r| r.get::<_, i64>(0))? as usize)
        }
    };
    Ok(EmbeddingBacklogResponse { records, total })
}

/// Sets the embedding and model of each item's record (`set_embeddings`), inside the
/// caller's transaction; returns the records updated and the refs that named none.
pub fn set_embeddings(conn: &Connection, opts: &SetEmbeddingsOptions) -> Result<(Vec<Ref>, Vec<String>)> {
    let (mut updated, mut missing) = (Vec::new(), Vec::new());
    for item in &opts.items {
        let r = Ref::parse(&item.reference).expect("validated");
        let (blob, dim) = embedding_blob(Some(&item.embedding));
        let sql = format!("UPDATE {} SET embedding = ?, embedding_dim = ?, embedding_model = ? WHERE id = ?", r.kind.table());
        match conn.prepare_cached(&sql)?.execute(params![blob, dim, opts.model, r.id])? {
            0 => missing.push(item.reference.clone()),
            _ => updated.push(r),
        }
    }
    Ok((updated, missing))
}

/// Inserts an episode; its time span is the first and last timestamp of its history.
pub fn archive_episode(conn: &Connection, opts: &EpisodeOptions, now: &str) -> Result<EpisodeResponse> {
    let s = opts.scope();
    let history: Vec<Turn> =
        opts.history.iter().flatten().map(|t| Turn { timestamp: t.timestamp.as_deref().and_then(canonical_time), ..t.clone() }).collect();
    let stamps: Vec<&str> = history.iter().filter_map(|t| t.timestamp.as_deref()).collect();
    let (blob, dim) = embedding_blob(opts.embedding.as_deref());
    conn.prepare_cached(
        "INSERT INTO episodes (id, agent_id, project_id, channel, summary, keywords, history, start_time, end_time, created_at, embedding, \
         embedding_dim, embedding_model, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )?
    .execute(params![
        super::sync::new_record_id(conn)?,
        s.agent_id,
        s.project_id,
        s.channel,
        opts.summary,
        opts.keywords.as_deref().unwrap_or_default(),
        serde_json::to_string(&history).expect("a history serializes"),
        stamps.iter().min(),
        stamps.iter().max(),
        now,
        blob,
        dim,
        opts.embedding_model,
        expiry(opts.expires_at.as_deref()),
    ])?;
    Ok(EpisodeResponse { ok: true, episode_id: conn.last_insert_rowid() })
}

/// A record as the operations read it.
#[derive(Debug, Clone)]
pub struct Record {
    /// Its ref.
    pub at: Ref,
    /// Its text (an episode's summary).
    pub content: String,
    /// When it happened (an episode: when it started, else when it was archived).
    pub timestamp: String,
    /// `timestamp` in epoch ms, parsed on first use ([`Record::ts`]): reconstruct orders and
    /// bundles by it, recall and `get_contents` never parse it.
    pub epoch_ms: OnceCell<Option<i64>>,
    /// Its source as stored (JSON text); episodes have none.
    pub source: Option<String>,
    /// The caller's metadata as stored (JSON text).
    pub metadata: Option<String>,
    /// `(project, channel)`.
    pub context: (String, String),
    /// An episode's time span in epoch ms, when its history had timestamps.
    pub span: Option<(i64, i64)>,
    /// When it stops holding.
    pub end: crate::api::RecordEnd,
}

impl Record {
    /// The timestamp in epoch ms, when it is a valid one.
    pub fn ts(&self) -> Option<i64> {
        *self.epoch_ms.get_or_init(|| parse_iso(&self.timestamp))
    }

    /// The source as responses carry it: the stored object, or for an episode (which has
    /// none) `{type: "Episode", id: <its ref>, name: ""}`.
    pub fn source_json(&self) -> Value {
        source_json(self.source.clone(), self.at)
    }
}

/// A record's source as the responses carry it (see [`Record::source_json`]).
pub fn source_json(stored: Option<String>, r: Ref) -> Value {
    match stored {
        Some(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        None => json!({"type": "Episode", "id": r.to_string(), "name": ""}),
    }
}

/// The id of a memory's stored source (`{type, id, name}`), as the queries filtering on
/// `source_id` compare it: the `id` string, a number's JSON text, else none (no `id`, or
/// not a JSON object). Registered on every connection as the SQL function `source_id`
/// ([`register_source_id`]), so SQLite is built without its JSON functions.
pub fn source_id(stored: &str) -> Option<String> {
    match serde_json::from_str::<Value>(stored).ok()?.get("id")? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Registers [`source_id`] as the SQL function `source_id(source)` on `conn`.
pub fn register_source_id(conn: &Connection) -> Result<()> {
    use rusqlite::functions::FunctionFlags;
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("source_id", 1, flags, |ctx| Ok(ctx.get::<Option<String>>(0)?.as_deref().and_then(source_id)))?;
    Ok(())
}

/// The reader of records in one scope: its statement texts and the scope's parameters built
/// once, for a call that reads many records (a retrieval reads up to its depth per arm), so
/// each read binds and steps a statement and formats nothing.
pub struct Reader<'c> {
    conn: &'c Connection,
    /// Per [`Kind`] (memories, then episodes), the statement reading one record in scope.
    sql: [String; 2],
    /// The isolation clause.
    iso: String,
    /// The isolation clause's parameters, bound after the record's ids.
    params: Vec<rusqlite::types::Value>,
    /// Per [`Kind`], its statement once the first read prepared it, held until the reader is
    /// dropped (and then back in the connection's cache), so later reads do not look it up
    /// there and hand it back: a lookup and a return per record read.
    held: [std::cell::RefCell<Option<rusqlite::CachedStatement<'c>>>; 2],
}

/// What a record is read from, per kind: the columns [`record`] reads, from the table read
/// by id alone (`NOT INDEXED`: for ids in a list the planner would otherwise read every
/// record of the agent through the scope index).
fn select(kind: Kind) -> String {
    let columns = match kind {
        Kind::Mem => {
            "t.id, t.content, t.timestamp, t.source, t.metadata, t.project_id, t.channel, NULL, NULL, t.expires_at, t.invalid_at, \
             t.invalid_reason"
        }
        Kind::Ep => {
            "t.id, t.summary, COALESCE(t.start_time, t.created_at), NULL, NULL, t.project_id, t.channel, t.start_time, t.end_time, \
             t.expires_at, t.invalid_at, t.invalid_reason"
        }
    };
    format!("SELECT {columns} FROM {} t NOT INDEXED", kind.table())
}

/// A record of `kind` from a row of [`select`].
fn record(kind: Kind, row: &rusqlite::Row) -> rusqlite::Result<Record> {
    let (start, end): (Option<String>, Option<String>) = (row.get(7)?, row.get(8)?);
    Ok(Record {
        at: Ref { kind, id: row.get(0)? },
        content: row.get(1)?,
        timestamp: row.get(2)?,
        epoch_ms: OnceCell::new(),
        source: row.get(3)?,
        metadata: row.get(4)?,
        context: (row.get(5)?, row.get(6)?),
        span: start.zip(end).and_then(|(s, e)| Some((parse_iso(&s)?, parse_iso(&e)?))),
        end: crate::api::RecordEnd { expires_at: row.get(9)?, invalid_at: row.get(10)?, invalid_reason: row.get(11)? },
    })
}

impl<'c> Reader<'c> {
    /// A reader of what `scope` can read, whatever its time (retrieval's arms have left out
    /// what the read's instant does not show).
    pub fn new(conn: &'c Connection, scope: &ReadScope) -> Self {
        Self::at(conn, scope, &AsOf::All)
    }

    /// A reader of what `scope` can read that holds at the instant of `as_of`: a record
    /// expired or invalidated by then reads as none.
    pub fn at(conn: &'c Connection, scope: &ReadScope, as_of: &AsOf) -> Self {
        let (iso, holds) = (scope.clause("t"), as_of.record_holds("t"));
        let clause = match as_of {
            AsOf::All => iso.sql,
            _ => format!("{} AND {}", iso.sql, holds.sql),
        };
        let sql = [Kind::Mem, Kind::Ep].map(|kind| format!("{} WHERE t.id = ? AND {clause}", select(kind)));
        let mut params = iso.params;
        params.extend(holds.params);
        Reader { conn, sql, iso: clause, params, held: Default::default() }
    }

    /// The record `r` names, if it is in the scope.
    pub fn read(&self, r: Ref) -> Result<Option<Record>> {
        let id = rusqlite::types::Value::Integer(r.id);
        let mut held = self.held[r.kind as usize].borrow_mut();
        let stmt = match &mut *held {
            Some(stmt) => stmt,
            empty @ None => empty.insert(self.conn.prepare_cached(&self.sql[r.kind as usize])?),
        };
        let record = stmt.query_row(params_from_iter(std::iter::once(&id).chain(&self.params)), |row| record(r.kind, row)).optional()?;
        Ok(record)
    }

    /// The records `refs` name that are in the scope, by ref: one statement per kind (per
    /// [`crate::base::in_list::MAX`] ids), for a call that knows every record it reads.
    pub fn read_many(&self, refs: impl IntoIterator<Item = Ref>) -> Result<SortedMap<Ref, Record>> {
        let refs: SortedSet<Ref> = SortedSet::from_iter(refs);
        let mut out = SortedMap::new();
        for kind in [Kind::Mem, Kind::Ep] {
            let ids: Vec<rusqlite::types::Value> =
                refs.iter().filter(|r| r.kind == kind).map(|r| rusqlite::types::Value::Integer(r.id)).collect();
            for chunk in ids.chunks(crate::base::in_list::MAX) {
                let (marks, ids) = crate::base::in_list::padded(chunk.iter().cloned());
                let sql = format!("{} WHERE t.id IN ({marks}) AND {}", select(kind), self.iso);
                let mut stmt = self.conn.prepare_cached(&sql)?;
                for read in stmt.query_map(params_from_iter(ids.iter().chain(&self.params)), |row| record(kind, row))? {
                    let read = read?;
                    out.insert(read.at, read);
                }
            }
        }
        Ok(out)
    }
}

/// Full rows for refs of one agent, as they held at `as_of`; a ref that names nothing of
/// this agent, or a record that did not hold then, is `missing`.
pub fn get_contents(conn: &Connection, opts: &GetContentsOptions, as_of: &AsOf) -> Result<GetContentsResponse> {
    let owner = ReadScope { agent_id: opts.agent_id.clone(), project_id: None, channel: None };
    let refs: Vec<Option<Ref>> = opts.refs.iter().map(|given| Ref::parse(given)).collect();
    let records = Reader::at(conn, &owner, as_of).read_many(refs.iter().flatten().copied())?;
    let mut items = Vec::new();
    let mut missing = Vec::new();
    for (given, r) in opts.refs.iter().zip(&refs) {
        match r.and_then(|r| records.get(&r)).cloned() {
            None => missing.push(given.clone()),
            Some(record) => items.push(ContentItem {
                reference: record.at.to_string(),
                source: record.source_json(),
                metadata: record.metadata.as_deref().and_then(|m| serde_json::from_str(m).ok()),
                content: record.content,
                timestamp: record.timestamp,
                end: record.end,
            }),
        }
    }
    let count = items.len();
    Ok(GetContentsResponse { items, missing, count })
}

/// Deletes one record of the agent; the cascade triggers take every mention and relation
/// that depends on it.
pub fn delete(conn: &Connection, kind: Kind, agent_id: &str, id: i64, field: &str) -> Result<DeleteResponse> {
    let owner = ReadScope { agent_id: agent_id.to_owned(), project_id: None, channel: None };
    let iso = owner.clause("t");
    let sql = format!("DELETE FROM {} AS t WHERE t.id = ? AND {}", kind.table(), iso.sql);
    let mut params = vec![rusqlite::types::Value::Integer(id)];
    params.extend(iso.params);
    if conn.execute(&sql, params_from_iter(params))? == 0 {
        return Err(Error::NotFound { field: field.into(), what: format!("{} {id}", kind.noun()) });
    }
    Ok(DeleteResponse { ok: true, deleted_id: id })
}

#[cfg(test)]
mod tests {
    use super::source_id;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn source_id_reads_the_id_of_a_stored_source() {
        assert_eq!(source_id(r#"{"type":"User","id":"u-1","name":""}"#).as_deref(), Some("u-1"));
        assert_eq!(source_id(r#"{"type": "User", "name": "x", "id": "a \"b\""}"#).as_deref(), Some("a \"b\""));
        assert_eq!(source_id(r#"{"id":42}"#).as_deref(), Some("42"));
        assert_eq!(source_id(r#"{"type":"User"}"#), None);
        assert_eq!(source_id(r#"{"id":null}"#), None);
        assert_eq!(source_id("not json"), None);
        assert_eq!(source_id(r#"["id"]"#), None);
    }
}
