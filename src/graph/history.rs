//! `history`: every relation between an entity and another entity the call can read,
//! whatever its interval, in time order (when it began to hold, or was declared when that
//! is not known, then id), paged. The one read of relations that ignores the instant: a
//! timeline shows what held and what was closed, with who closed it and why.

use crate::api::error::Result;
use crate::api::{HistoryEntity, HistoryOptions, HistoryRelation, HistoryResponse, TraverseReason};
use crate::base::normalize::normalize;
use crate::graph::entities::{names_of, starts};
use crate::graph::reads::{edge, EDGE_COLUMNS};
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
    // taken, not removed: no B-tree rebalancing code in the module (graph/traverse.rs)
    let name = names_of(conn, &[first])?.get_mut(&first).map(std::mem::take).unwrap_or_default();
    response.entity = Some(HistoryEntity { id: first, name });

    let (r, s, o) = (scope.clause("r"), scope.clause("s"), scope.clause("o"));
    let (marks, ids) = crate::base::in_list::padded(starts.iter().map(|&id| Value::Integer(id)));
    // As traverse reads a hop: the relations on the entity from the endpoint indexes, then
    // scoped by joining on their ids; the total is counted by the same statement.
    let relations = format!(
        "FROM (SELECT id FROM relations WHERE subject_kind = 'entity' AND subject_id IN ({marks}) \
               UNION SELECT id FROM relations WHERE object_kind = 'entity' AND object_id IN ({marks})) AS hit \
         CROSS JOIN relations r ON r.id = hit.id JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id \
         WHERE {} AND {} AND {} AND r.subject_kind = 'entity' AND r.object_kind = 'entity'",
        r.sql, s.sql, o.sql
    );
    let params = || -> Vec<Value> {
        ids.iter()
            .chain(&ids)
            .cloned()
            .chain(r.params.iter().cloned())
            .chain(s.params.iter().cloned())
            .chain(o.params.iter().cloned())
            .collect()
    };
    let sql = format!(
        "SELECT {EDGE_COLUMNS}, s.name, o.name, count(*) OVER () {relations} \
         ORDER BY CASE WHEN r.valid_from <> '' THEN r.valid_from ELSE r.declared_at END, r.id LIMIT ? OFFSET ?"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let page = params().into_iter().chain([Value::Integer(limit), Value::Integer(offset)]);
    let rows = stmt.query_map(params_from_iter(page), |row| {
        let e = edge(row)?;
        let relation = HistoryRelation {
            id: e.id,
            subject: e.subject,
            subject_name: row.get(13)?,
            predicate: e.predicate,
            object: e.object,
            object_name: row.get(14)?,
            declared_by: e.declared_by,
            declared_at: e.declared_at,
            anchor_ref: e.anchor_ref.map(|a| a.to_string()).unwrap_or_default(),
            validity: e.validity,
        };
        Ok((relation, row.get::<_, i64>(15)?))
    })?;
    for row in rows {
        let (relation, total) = row?;
        response.relations.push(relation);
        response.total = total;
    }
    if response.relations.is_empty() && offset > 0 {
        // a page past the end has no row to carry the count
        response.total = conn.query_row(&format!("SELECT count(*) {relations}"), params_from_iter(params()), |r| r.get(0))?;
    }
    let end = offset + response.relations.len() as i64;
    response.next_offset = (end < response.total).then_some(end);
    Ok(response)
}
