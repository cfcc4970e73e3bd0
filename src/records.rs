//! Records: memories and episodes, the refs that name them (`mem:<id>`, `ep:<id>`), and
//! the operations that write, read and delete them.

use crate::api::{
    ContentItem, DeleteResponse, EpisodeOptions, EpisodeResponse, GetContentsOptions, GetContentsResponse, Source, StoreOptions,
};
use crate::error::{Error, Result};
use crate::scope::ReadScope;
use rusqlite::{params, params_from_iter, Connection, OptionalExtension};
use serde_json::Value;

/// The two kinds of record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A memory, `mem:<id>`.
    Mem,
    /// An episode, `ep:<id>`.
    Ep,
}

impl Kind {
    /// The ref prefix and the `relations.*_kind` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Mem => "mem",
            Kind::Ep => "ep",
        }
    }
    fn table(self) -> &'static str {
        match self {
            Kind::Mem => "memories",
            Kind::Ep => "episodes",
        }
    }
}

/// A record reference in its one canonical spelling (`mem:007` reads as `mem:7`), so
/// what is stored matches what the delete triggers build with `'mem:' || id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ref {
    /// Memory or episode.
    pub kind: Kind,
    /// The row id.
    pub id: i64,
}

impl Ref {
    /// Parses `mem:<digits>` or `ep:<digits>` (surrounding whitespace allowed); `None` for
    /// anything else, including ids past SQLite's integer range.
    pub fn parse(text: &str) -> Option<Ref> {
        let (prefix, digits) = text.trim().split_once(':')?;
        let kind = match prefix {
            "mem" => Kind::Mem,
            "ep" => Kind::Ep,
            _ => return None,
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let id = digits.parse::<i64>().ok()?;
        Some(Ref { kind, id })
    }

    /// Whether the record exists and belongs to the agent of `scope`, in a bucket `scope` reads.
    pub fn exists(&self, conn: &Connection, scope: &ReadScope) -> Result<bool> {
        let iso = scope.clause("t");
        let sql = format!("SELECT 1 FROM {} t WHERE t.id = ? AND {}", self.kind.table(), iso.sql);
        let mut params = vec![rusqlite::types::Value::Integer(self.id)];
        params.extend(iso.params);
        Ok(conn.query_row(&sql, params_from_iter(params), |_| Ok(())).optional()?.is_some())
    }
}

impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.kind.as_str(), self.id)
    }
}

fn embedding_blob(v: &Option<Vec<f32>>) -> (Option<Vec<u8>>, Option<i64>) {
    match v {
        Some(v) => (Some(v.iter().flat_map(|f| f.to_le_bytes()).collect()), Some(v.len() as i64)),
        None => (None, None),
    }
}

/// Inserts a memory; returns its id. The caller holds the transaction.
pub fn insert_memory(conn: &Connection, opts: &StoreOptions, now: &str) -> Result<i64> {
    let s = &opts.scope;
    let source = opts.source.clone().unwrap_or_else(|| Source { kind: "Agent".into(), id: s.agent_id.clone(), name: String::new() });
    let (blob, dim) = embedding_blob(&opts.embedding);
    conn.execute(
        "INSERT INTO memories (agent_id, project_id, channel, content, source, timestamp, created_at, metadata, embedding, embedding_dim) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        params![
            s.agent_id,
            s.project_id,
            s.channel,
            opts.content,
            serde_json::to_string(&source).expect("a source serializes"),
            opts.timestamp.as_deref().unwrap_or(now),
            now,
            opts.metadata.as_ref().map(|m| Value::Object(m.clone()).to_string()),
            blob,
            dim,
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Inserts an episode; its time span is the first and last timestamp of its history.
pub fn archive_episode(conn: &Connection, opts: &EpisodeOptions, now: &str) -> Result<EpisodeResponse> {
    let s = &opts.scope;
    let stamps: Vec<&str> = opts.history.iter().filter_map(|t| t.timestamp.as_deref()).collect();
    let (blob, dim) = embedding_blob(&opts.embedding);
    conn.execute(
        "INSERT INTO episodes (agent_id, project_id, channel, summary, keywords, history, start_time, end_time, created_at, embedding, embedding_dim) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        params![
            s.agent_id,
            s.project_id,
            s.channel,
            opts.summary,
            opts.keywords,
            serde_json::to_string(&opts.history).expect("a history serializes"),
            stamps.iter().min(),
            stamps.iter().max(),
            now,
            blob,
            dim,
        ],
    )?;
    Ok(EpisodeResponse { ok: true, episode_id: conn.last_insert_rowid() })
}

/// A record's source as the responses carry it: the stored JSON, or for an episode (which
/// has no source) `{type: "Episode", id: <its ref>, name: ""}`.
pub fn source_json(stored: Option<String>, r: Ref) -> Value {
    match stored {
        Some(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        None => serde_json::json!({"type": "Episode", "id": r.to_string(), "name": ""}),
    }
}

/// Full rows for refs of one agent; a ref that names nothing of this agent is `missing`.
pub fn get_contents(conn: &Connection, opts: &GetContentsOptions) -> Result<GetContentsResponse> {
    let owner = ReadScope { agent_id: opts.agent_id.clone(), project_id: None, channel: None };
    let iso = owner.clause("t");
    let mut items = Vec::new();
    let mut missing = Vec::new();
    for given in &opts.refs {
        let Some(r) = Ref::parse(given) else {
            missing.push(given.clone());
            continue;
        };
        let sql = match r.kind {
            Kind::Mem => format!("SELECT t.content, t.source, t.timestamp, t.metadata FROM memories t WHERE t.id = ? AND {}", iso.sql),
            Kind::Ep => {
                format!("SELECT t.summary, NULL, COALESCE(t.start_time, t.created_at), NULL FROM episodes t WHERE t.id = ? AND {}", iso.sql)
            }
        };
        let mut params = vec![rusqlite::types::Value::Integer(r.id)];
        params.extend(iso.params.iter().cloned());
        let row = conn
            .query_row(&sql, params_from_iter(params), |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?, row.get::<_, String>(2)?, row.get::<_, Option<String>>(3)?))
            })
            .optional()?;
        match row {
            None => missing.push(given.clone()),
            Some((content, source, timestamp, metadata)) => items.push(ContentItem {
                reference: r.to_string(),
                content,
                source: source_json(source, r),
                timestamp,
                metadata: metadata.and_then(|m| serde_json::from_str(&m).ok()),
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
        let what = match kind {
            Kind::Mem => "memory",
            Kind::Ep => "episode",
        };
        return Err(Error::NotFound { field: field.into(), what: format!("{what} {id}") });
    }
    Ok(DeleteResponse { ok: true, deleted_id: id })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn refs_parse_in_one_spelling() {
        assert_eq!(Ref::parse(" mem:007 ").map(|r| r.to_string()), Some("mem:7".into()));
        assert_eq!(Ref::parse("ep:3"), Some(Ref { kind: Kind::Ep, id: 3 }));
        for bad in ["mem:", "mem:-1", "mem:1a", "memo:1", "mem:99999999999999999999", "1", ""] {
            assert_eq!(Ref::parse(bad), None, "{bad}");
        }
    }
}
