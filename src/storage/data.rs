//! The reference's data tools: listing an agent's memories, correcting one in place, and
//! forgetting an agent. (Export and import of whole databases are [`crate::Memory::export`]
//! and [`crate::Memory::import`].)

use crate::api::error::{Error, Result};
use crate::api::refs::{Kind, Ref};
use crate::api::{
    canonical_time, DeleteAgentDataOptions, DeleteAgentDataResponse, ListMemoriesOptions, ListMemoriesResponse, ListedMemory,
    PurgeExpiredOptions, PurgeExpiredResponse, UpdateMemoryOptions, UpdateMemoryResponse,
};
use crate::base::as_of::AsOf;
use crate::storage::records::source_json;
use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, Connection};

/// A page of the memories the call can read that hold at `as_of`, newest first: by
/// timestamp, then by id so that memories of one instant keep one order.
pub fn list_memories(conn: &Connection, opts: &ListMemoriesOptions, as_of: &AsOf) -> Result<ListMemoriesResponse> {
    let iso = opts.scope().clause("m");
    let holds = as_of.record_holds("m");
    let (limit, offset) = (opts.limit(), opts.offset.unwrap_or(0));
    let in_scope: i64 =
        conn.query_row(&format!("SELECT count(*) FROM memories m WHERE {}", iso.sql), params_from_iter(iso.params.clone()), |r| r.get(0))?;
    // Those that do not hold are among the few given an end, found through the partial
    // indexes on the ends rather than by reading every memory of the scope.
    let not_holding: i64 = match as_of {
        AsOf::All => 0,
        _ => conn.query_row(
            &format!(
                "SELECT count(*) FROM memories m WHERE (m.expires_at <> '' OR m.invalid_at <> '') AND NOT {} AND {}",
                holds.sql, iso.sql
            ),
            params_from_iter(holds.params.iter().chain(&iso.params)),
            |r| r.get(0),
        )?,
    };
    let total = in_scope - not_holding;
    // SQLite counts a text's characters as the option does; all of it when none is given
    let cut = opts.max_content.unwrap_or(i64::MAX);
    let sql = format!(
        "SELECT m.id, substr(m.content, 1, ?), m.timestamp, m.created_at, m.source, m.metadata, m.project_id, m.channel, \
         length(m.content) > ?, m.expires_at, m.invalid_at, m.invalid_reason FROM memories m WHERE {} AND {} \
         ORDER BY m.timestamp DESC, m.id DESC LIMIT ? OFFSET ?",
        iso.sql, holds.sql
    );
    let params = [Value::Integer(cut), Value::Integer(cut)]
        .into_iter()
        .chain(iso.params)
        .chain(holds.params)
        .chain([Value::Integer(limit), Value::Integer(offset)]);
    let mut stmt = conn.prepare(&sql)?;
    let memories = stmt
        .query_map(params_from_iter(params), |r| {
            let id: i64 = r.get(0)?;
            let metadata: Option<String> = r.get(5)?;
            Ok(ListedMemory {
                id,
                content: r.get(1)?,
                timestamp: r.get(2)?,
                created_at: r.get(3)?,
                source: source_json(r.get(4)?, Ref { kind: Kind::Mem, id }),
                metadata: metadata.and_then(|m| serde_json::from_str(&m).ok()),
                project_id: r.get(6)?,
                channel: r.get(7)?,
                truncated: r.get(8)?,
                end: crate::api::RecordEnd { expires_at: r.get(9)?, invalid_at: r.get(10)?, invalid_reason: r.get(11)? },
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let count = memories.len() as i64;
    let end = offset + count;
    Ok(ListMemoriesResponse { memories, count, total, next_offset: (end < total).then_some(end), not_holding })
}

/// Rewrites the given fields of memory `id` of the agent (`opts.memory_id`, checked). The
/// triggers of `schema.rs` keep the FTS index and the agent's text statistics in step with a
/// new content; mentions and relations name the memory by id, so they stay.
pub fn update_memory(conn: &Connection, id: i64, opts: &UpdateMemoryOptions) -> Result<UpdateMemoryResponse> {
    let exists: bool = conn
        .query_row("SELECT count(*) FROM memories WHERE id = ? AND agent_id = ?", params![id, opts.agent_id], |r| r.get::<_, i64>(0))?
        > 0;
    if !exists {
        return Err(Error::NotFound { field: "memory_id".into(), what: format!("memory {id}") });
    }
    if let Some(content) = &opts.content {
        conn.execute("UPDATE memories SET content = ? WHERE id = ? AND content IS NOT ?", params![content, id, content])?;
        if opts.embedding.is_none() && conn.changes() > 0 {
            // the stored vector described the old text; a stale one would rank it wrongly
            conn.execute("UPDATE memories SET embedding = NULL, embedding_dim = NULL, embedding_model = NULL WHERE id = ?", [id])?;
        }
    }
    if let Some(metadata) = &opts.metadata {
        conn.execute(
            "UPDATE memories SET metadata = ? WHERE id = ?",
            params![serde_json::Value::Object(metadata.clone()).to_string(), id],
        )?;
    }
    if let Some(stamp) = opts.timestamp.as_deref().and_then(canonical_time) {
        conn.execute("UPDATE memories SET timestamp = ? WHERE id = ?", params![stamp, id])?;
    }
    if let Some(given) = opts.expires_at.as_deref() {
        conn.execute("UPDATE memories SET expires_at = ? WHERE id = ?", params![crate::storage::records::expiry(Some(given)), id])?;
    }
    if let Some(v) = &opts.embedding {
        let blob: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
        conn.execute(
            "UPDATE memories SET embedding = ?, embedding_dim = ?, embedding_model = ? WHERE id = ?",
            params![blob, v.len() as i64, opts.embedding_model, id],
        )?;
    }
    Ok(UpdateMemoryResponse { ok: true, updated_id: id })
}

/// Deletes every row of one agent. Relations and entities are counted before the records
/// go, since the cascade triggers take some relations along with the records.
pub fn delete_agent_data(conn: &Connection, opts: &DeleteAgentDataOptions) -> Result<DeleteAgentDataResponse> {
    let agent = &opts.agent_id;
    let count = |table: &str| conn.query_row(&format!("SELECT count(*) FROM {table} WHERE agent_id = ?"), [agent], |r| r.get::<_, i64>(0));
    let deleted_relations = count("relations")?;
    let deleted_entities = count("entities")?;
    conn.execute("DELETE FROM relations WHERE agent_id = ?", [agent])?;
    conn.execute("DELETE FROM entities WHERE agent_id = ?", [agent])?;
    let deleted_memories = conn.execute("DELETE FROM memories WHERE agent_id = ?", [agent])? as i64;
    let deleted_episodes = conn.execute("DELETE FROM episodes WHERE agent_id = ?", [agent])? as i64;
    conn.execute("DELETE FROM text_stats WHERE agent_id = ?", [agent])?;
    conn.execute("DELETE FROM predicates WHERE agent_id = ?", [agent])?;
    Ok(DeleteAgentDataResponse {
        ok: true,
        agent_id: agent.clone(),
        deleted_memories,
        deleted_episodes,
        deleted_entities,
        deleted_relations,
    })
}

/// Deletes the agent's records that expired at or before `now` (stored spelling); the
/// cascade triggers take every mention and relation that depends on them (invariant 8),
/// counted here as the rows those tables lost. Invalidated records stay.
pub fn purge_expired(conn: &Connection, opts: &PurgeExpiredOptions, now: &str) -> Result<PurgeExpiredResponse> {
    let agent = &opts.agent_id;
    // A record's mentions and relations are its agent's (every record end and anchor is the
    // declaring agent's), so the agent's relations and the table's mentions count what went.
    let declared = || -> rusqlite::Result<(i64, i64)> {
        let mentions = conn.query_row("SELECT count(*) FROM entity_mentions", [], |r| r.get(0))?;
        let relations = conn.query_row("SELECT count(*) FROM relations WHERE agent_id = ?", [agent], |r| r.get(0))?;
        Ok((mentions, relations))
    };
    let before = declared()?;
    let purge = |table: &str| {
        conn.execute(&format!("DELETE FROM {table} WHERE agent_id = ? AND expires_at <> '' AND expires_at <= ?"), params![agent, now])
    };
    let memories = purge("memories")? as i64;
    let episodes = purge("episodes")? as i64;
    let after = declared()?;
    Ok(PurgeExpiredResponse { memories, episodes, mentions: before.0 - after.0, relations: before.1 - after.1 })
}
