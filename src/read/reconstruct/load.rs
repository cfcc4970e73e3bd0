//! What reconstruct reads from the database besides retrieval: the candidates as rows,
//! the declared record → record links between them (stage 2), and the graph the walk may
//! follow from them (stage 3). The walk itself never reads the database.

use super::bundle::Link;
use super::structure::Row;
use super::walk;
use crate::api::error::Result;
use crate::api::refs::{Kind, Ref};
use crate::api::Applied;
use crate::base::scope::ReadScope;
use crate::graph::reads::{mentioning, neighbourhood};
use crate::storage::records;
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};
use std::collections::BTreeSet;

/// The records at `refs` as rows, ranked in the order given (the readable ones: the walk
/// and retrieval list nothing else). One reader serves every item of a call: making one
/// formats its statements.
pub fn rows(reader: &records::Reader, refs: impl IntoIterator<Item = Ref>, first_rank: usize) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for (i, r) in refs.into_iter().enumerate() {
        if let Some(record) = reader.read(r)? {
            rows.push(Row::new(record, first_rank.saturating_add(i)));
        }
    }
    Ok(rows)
}

/// A stored endpoint (`relations.*_kind`, `*_id`) as a record ref.
fn endpoint(kind: String, id: i64) -> Option<Ref> {
    Kind::parse(&kind).map(|kind| Ref { kind, id })
}

/// Declared record → record relations in scope whose both ends are in `pool`, by id.
pub fn links(conn: &Connection, scope: &ReadScope, pool: &BTreeSet<Ref>) -> Result<Vec<Link>> {
    if pool.is_empty() {
        return Ok(Vec::new());
    }
    let iso = scope.clause("r");
    let (marks, refs) = crate::base::in_list::padded(pool.iter().map(|r| Value::Text(r.to_string())));
    let sql = format!(
        "SELECT r.subject_kind, r.subject_id, r.predicate, r.object_kind, r.object_id FROM relations r \
         WHERE {} AND r.subject_kind IN ('mem', 'ep') AND r.object_kind IN ('mem', 'ep') \
         AND (r.subject_kind || ':' || r.subject_id) IN ({marks}) AND (r.object_kind || ':' || r.object_id) IN ({marks}) ORDER BY r.id",
        iso.sql
    );
    let params: Vec<Value> = iso.params.into_iter().chain(refs.iter().chain(&refs).cloned()).collect();
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(params), |r| {
        Ok((endpoint(r.get(0)?, r.get(1)?), r.get::<_, String>(2)?, endpoint(r.get(3)?, r.get(4)?)))
    })?;
    let mut links = Vec::new();
    for row in rows {
        if let (Some(subject), predicate, Some(object)) = row? {
            links.push((subject, predicate, object));
        }
    }
    Ok(links)
}

/// The graph the walk may follow from `starts` (the window's candidates): their declared
/// entities, the relations around those up to the hop bound, and the records outside the
/// candidate `pool` that mention each entity reached.
pub fn graph(
    conn: &Connection,
    scope: &ReadScope,
    source_id: &str,
    bounds: &Applied,
    starts: &[Ref],
    pool: &BTreeSet<Ref>,
) -> Result<walk::Graph> {
    let mut graph = walk::Graph::default();
    let iso = scope.clause("e");
    let (marks, refs) = crate::base::in_list::padded(starts.iter().map(|r| Value::Text(r.to_string())));
    let sql = format!(
        "SELECT m.ref, m.entity_id FROM entity_mentions m CROSS JOIN entities e ON e.id = m.entity_id WHERE m.ref IN ({marks}) AND {} ORDER BY m.ref, m.entity_id",
        iso.sql
    );
    let params: Vec<Value> = refs.into_iter().chain(iso.params).collect();
    let mut stmt = conn.prepare_cached(&sql)?;
    for row in stmt.query_map(params_from_iter(params), |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (stored, entity) = row?;
        if let Some(r) = Ref::parse(&stored) {
            graph.mentions.entry(r).or_default().push(entity);
        }
    }
    if graph.mentions.is_empty() {
        return Ok(graph);
    }
    let mentioned: Vec<i64> = graph.mentions.values().flatten().copied().collect::<BTreeSet<_>>().into_iter().collect();
    let n = neighbourhood(conn, scope, &mentioned, bounds.max_hops as i64)?;
    for edge in n.edges.values().filter(|e| e.subject != e.object) {
        let recency = n.recency[&edge.id];
        for (from, other) in [(edge.subject, edge.object), (edge.object, edge.subject)] {
            graph.adjacency.entry(from).or_default().push(walk::Step {
                recency,
                other,
                relation: edge.id,
                predicate: edge.predicate.clone(),
            });
        }
        for end in [edge.subject, edge.object] {
            if !n.distance.contains_key(&end) {
                graph.unexpanded.insert(end);
            }
        }
    }
    for list in graph.adjacency.values_mut() {
        crate::base::sort::sort(list);
    }
    let bound = bounds.max_evidence;
    for &entity in n.distance.keys() {
        let (refs, _) = mentioning(conn, scope, source_id, entity, (bound + pool.len() + 1) as i64)?;
        let outside: Vec<Ref> = refs.into_iter().filter(|r| !pool.contains(r)).collect();
        if outside.len() > bound {
            graph.records_cut.insert(entity);
        }
        graph.records.insert(entity, outside.into_iter().take(bound).collect());
    }
    Ok(graph)
}
