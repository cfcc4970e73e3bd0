//! `history`: every relation between an entity and another entity the call can read,
//! whatever its interval, in time order (when it began to hold, or was declared when that
//! is not known, then id), paged. The one read of relations that ignores the instant: a
//! timeline shows what held and what was closed, with who closed it and why.

use crate::api::error::Result;
use crate::api::{HistoryEntity, HistoryOptions, HistoryRelation, HistoryResponse, TraverseReason};
use crate::base::normalize::normalize;
use crate::graph::entities::{names_of, starts};
use crate::graph::reads::{edge, relation, touching, EDGE_COLUMNS};
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};

/// Runs `history`.
pub fn history(conn: &Connection, opts: &HistoryOptions) -> Result<HistoryResponse> {
    let scope = opts.scope();
    let (limit, offset) = (opts.limit(), opts.offset.unwrap_or(0));
    let mut response = HistoryResponse { entity: None, relations: Vec::new(), total: 0, next_offset: None, reason: None };
    let normalized = normalize(&opts.entity);
    let starts = if normalized.is_empty() { Vec::new() } else { starts(conn, &scope, &normalized)? };
    let Some(&first) = starts.first() else {
        response.reason = Some(TraverseReason::NoSuchEntity);
        return Ok(response);
    };
    // taken, not removed: the map is dropped whole (graph/traverse.rs)
    let name = names_of(conn, &[first])?.get_mut(&first).map(std::mem::take).unwrap_or_default();
    response.entity = Some(HistoryEntity { id: first, name });

    // As traverse reads a hop; the total is counted by the same statement.
    let from = touching(&scope, &starts);
    let sql = format!(
        "SELECT {EDGE_COLUMNS}, s.name, o.name, count(*) OVER () {} \
         ORDER BY CASE WHEN r.valid_from <> '' THEN r.valid_from ELSE r.declared_at END, r.id LIMIT ? OFFSET ?",
        from.sql
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let page = from.params.iter().cloned().chain([Value::Integer(limit), Value::Integer(offset)]);
    let rows = stmt.query_map(params_from_iter(page), |row| {
        let item = HistoryRelation { relation: relation(&edge(row)?), subject_name: row.get(13)?, object_name: row.get(14)? };
        Ok((item, row.get::<_, i64>(15)?))
    })?;
    for row in rows {
        let (item, total) = row?;
        response.relations.push(item);
        response.total = total;
    }
    if response.relations.is_empty() && offset > 0 {
        // a page past the end has no row to carry the count
        response.total = conn.query_row(&format!("SELECT count(*) {}", from.sql), params_from_iter(&from.params), |r| r.get(0))?;
    }
    let end = offset + response.relations.len() as i64;
    response.next_offset = (end < response.total).then_some(end);
    Ok(response)
}
