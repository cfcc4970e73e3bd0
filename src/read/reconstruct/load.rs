//! What reconstruct reads from the database besides retrieval: the declared record →
//! record links between the candidates (stage 2), the graph the walk may follow from them
//! and the records it reached (stage 3). The walk itself never reads the database.

use super::bundle::Link;
use super::walk;
use crate::api::error::Result;
use crate::api::refs::Ref;
use crate::api::Applied;
use crate::base::as_of::AsOf;
use crate::base::scope::ReadScope;
use crate::base::sorted::{SortedMap, SortedSet};
use crate::graph::reads::{mentioning, neighbourhood};
use crate::storage::records::Record;
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};

/// The records at `refs`, in the order given (the readable ones: the walk lists nothing
/// else), taken from `read`: what one [`Reader::read_many`](crate::storage::records::Reader::read_many)
/// read for every item of a call. One row in one place is the walk's to hold (it never
/// reaches a ref twice), not this lookup's.
pub fn records(read: &SortedMap<Ref, Record>, refs: impl IntoIterator<Item = Ref>) -> Vec<Record> {
    refs.into_iter().filter_map(|r| read.get(&r).cloned()).collect()
}

/// Declared record → record relations in scope whose both ends are in `pool` and that hold
/// at `as_of`, by id; and the ids of those that do not (read by the same statement).
pub fn links(conn: &Connection, scope: &ReadScope, as_of: &AsOf, pool: &SortedSet<Ref>) -> Result<(Vec<Link>, SortedSet<i64>)> {
    let mut not_holding = SortedSet::new();
    if pool.is_empty() {
        return Ok((Vec::new(), not_holding));
    }
    let (holds, iso) = (as_of.relation_holds("r"), scope.clause("r"));
    let (marks, refs) = padded_refs(pool.iter().copied());
    // The relations whose subject is in the pool come from the subject index first; scoping
    // then joins on their ids, so a call never reads all of an agent's relations.
    let sql = format!(
        "SELECT r.subject_kind, r.subject_id, r.predicate, r.object_kind, r.object_id, r.id, {} \
         FROM (SELECT id FROM relations WHERE (subject_kind, subject_id) IN (VALUES {marks})) AS hit CROSS JOIN relations r ON r.id = hit.id \
         WHERE {} AND (r.object_kind, r.object_id) IN (VALUES {marks}) ORDER BY r.id",
        holds.sql, iso.sql
    );
    let params: Vec<Value> = holds.params.into_iter().chain(refs.iter().cloned()).chain(iso.params).chain(refs.iter().cloned()).collect();
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(params), |r| {
        let end = |kind: usize| -> rusqlite::Result<Option<Ref>> { Ok(Ref::stored(r.get_ref(kind)?.as_str()?, r.get(kind + 1)?)) };
        Ok((end(0)?, r.get::<_, String>(2)?, end(3)?, r.get::<_, i64>(5)?, r.get::<_, bool>(6)?))
    })?;
    let mut links = Vec::new();
    for row in rows {
        match row? {
            (.., id, false) => {
                not_holding.insert(id);
            }
            (Some(subject), predicate, Some(object), ..) => links.push((subject, predicate, object)),
            _ => {}
        }
    }
    Ok((links, not_holding))
}

/// The graph the walk may follow from `starts` (the window's candidates): their declared
/// entities, the relations around those up to the hop bound that hold at `as_of`, and the
/// records outside the candidate `pool` that mention each entity reached and held then.
pub fn graph(
    conn: &Connection,
    scope: &ReadScope,
    as_of: &AsOf,
    source_id: &str,
    bounds: &Applied,
    starts: &[Ref],
    pool: &SortedSet<Ref>,
) -> Result<walk::Graph> {
    let mut graph = walk::Graph::default();
    let iso = scope.clause("e");
    let (marks, refs) = padded_refs(starts.iter().copied());
    let sql = format!(
        "SELECT m.ref_kind, m.ref_id, m.entity_id FROM entity_mentions m CROSS JOIN entities e ON e.id = m.entity_id \
         WHERE (m.ref_kind, m.ref_id) IN (VALUES {marks}) AND {} ORDER BY m.ref_kind, m.ref_id, m.entity_id",
        iso.sql
    );
    let params: Vec<Value> = refs.into_iter().chain(iso.params).collect();
    let mut stmt = conn.prepare_cached(&sql)?;
    for row in stmt.query_map(params_from_iter(params), |r| Ok((Ref { kind: r.get(0)?, id: r.get(1)? }, r.get::<_, i64>(2)?)))? {
        let (r, entity) = row?;
        graph.mentions.entry(r).or_default().push(entity);
    }
    if graph.mentions.is_empty() {
        return Ok(graph);
    }
    let mentioned: Vec<i64> = SortedSet::from_iter(graph.mentions.values().flatten().copied()).into_iter().collect();
    let n = neighbourhood(conn, scope, as_of, &mentioned, bounds.max_hops as i64)?;
    graph.not_holding = n.not_holding;
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
    let reached: Vec<i64> = n.distance.keys().copied().collect();
    let mut mentioned = mentioning(conn, scope, as_of, source_id, &reached, (bound + pool.len() + 1) as i64)?;
    for entity in reached {
        // taken, not removed: the map is dropped whole (graph/traverse.rs)
        let (refs, _) = mentioned.get_mut(&entity).map(std::mem::take).unwrap_or_default();
        let outside: Vec<Ref> = refs.into_iter().filter(|r| !pool.contains(r)).collect();
        if outside.len() > bound {
            graph.records_cut.insert(entity);
        }
        graph.records.insert(entity, outside.into_iter().take(bound).collect());
    }
    Ok(graph)
}

/// The row values `(?,?),…` of record refs, kind and id, padded alike, for
/// `(kind_column, id_column) IN (VALUES …)`; and their parameters.
fn padded_refs(refs: impl IntoIterator<Item = Ref>) -> (String, Vec<Value>) {
    let refs = crate::base::in_list::pad(refs);
    let values = refs.iter().flat_map(|r| [Value::Text(r.kind.as_str().into()), Value::Integer(r.id)]).collect();
    (vec!["(?,?)"; refs.len()].join(","), values)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn pads_refs_as_row_values() {
        use crate::api::refs::Kind;
        let (marks, values) = padded_refs([Ref { kind: Kind::Mem, id: 1 }, Ref { kind: Kind::Ep, id: 2 }, Ref { kind: Kind::Mem, id: 3 }]);
        assert_eq!(marks, "(?,?),(?,?),(?,?),(?,?)");
        let text = |t: &str| Value::Text(t.into());
        assert_eq!(
            values,
            [text("mem"), Value::Integer(1), text("ep"), Value::Integer(2), text("mem"), Value::Integer(3), text("mem"), Value::Integer(3)]
        );
    }
}
