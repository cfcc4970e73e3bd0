//! The graph reads that traverse and reconstruct share: the entity → entity relations
//! around a set of entities, expanded breadth first in either direction, and the readable
//! records that mention an entity. Each takes the read's instant ([`AsOf`]): a relation
//! that does not hold then is neither followed nor listed, only counted, and a record that
//! had expired or been invalidated by then is not listed.

use crate::api::error::Result;
use crate::api::refs::{Kind, Ref};
use crate::api::{TraverseRelation, Validity};
use crate::base::as_of::AsOf;
use crate::base::scope::{Clause, ReadScope};
use crate::base::sorted::{SortedMap, SortedSet};
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};

/// Entities one neighbourhood holds at most, whatever the hop bound: where it binds,
/// expansion stops at that hop and the entities reached by less recent relations are
/// treated as past the hop bound.
pub const NEIGHBOURHOOD_MAX_ENTITIES: usize = 256;

/// An entity → entity relation as the walk reads it.
#[derive(Debug, Clone)]
pub struct Edge {
    /// Relation id.
    pub id: i64,
    /// Subject entity.
    pub subject: i64,
    /// Object entity.
    pub object: i64,
    /// Normalized predicate.
    pub predicate: String,
    /// When it was declared.
    pub declared_at: String,
    /// Its evidence, if it has one.
    pub anchor_ref: Option<Ref>,
    /// `agent` or `operator`.
    pub declared_by: String,
    /// When it holds, and who closed it.
    pub validity: Validity,
}

/// The columns of relation alias `r` an [`Edge`] is read from, in [`edge`]'s order.
pub const EDGE_COLUMNS: &str = "r.id, r.subject_id, r.object_id, r.predicate, r.declared_at, r.anchor_kind, r.anchor_id, r.declared_by, \
     r.valid_from, r.valid_to, r.closed_by, r.closed_at, r.closed_reason";

/// An entity → entity relation from a row whose first columns are [`EDGE_COLUMNS`].
pub fn edge(row: &rusqlite::Row) -> rusqlite::Result<Edge> {
    Ok(Edge {
        id: row.get(0)?,
        subject: row.get(1)?,
        object: row.get(2)?,
        predicate: row.get(3)?,
        declared_at: row.get(4)?,
        anchor_ref: Ref::stored(row.get_ref(5)?.as_str()?, row.get(6)?),
        declared_by: row.get(7)?,
        validity: Validity {
            valid_from: row.get(8)?,
            valid_to: row.get(9)?,
            closed_by: row.get(10)?,
            closed_at: row.get(11)?,
            closed_reason: row.get(12)?,
        },
    })
}

/// What a breadth-first expansion found.
#[derive(Debug, Default)]
pub struct Neighbourhood {
    /// Every relation touching an expanded entity, including those of entities at the
    /// bound, so a caller can tell that one was left unfollowed.
    pub edges: SortedMap<i64, Edge>,
    /// Entity → hops, for every entity within the bound.
    pub distance: SortedMap<i64, i64>,
    /// Relation id → its position, most recently declared first, then lower id.
    pub recency: SortedMap<i64, usize>,
    /// Relations touching an expanded entity that did not hold at the read's instant:
    /// neither followed nor in `edges`.
    pub not_holding: SortedSet<i64>,
}

/// The relations in `scope` with both ends entities `scope` can read that touch `entities`,
/// as the `FROM … WHERE …` of a statement over them (alias `r`, their ends `s` and `o`) and its
/// parameters: the relations touching the entities come from the endpoint indexes first;
/// scoping then joins on their ids, so a read never scans all of an agent's relations.
pub fn touching(scope: &ReadScope, entities: &[i64]) -> Clause {
    let (r, s, o) = (scope.clause("r"), scope.clause("s"), scope.clause("o"));
    let (marks, ids) = crate::base::in_list::padded(entities.iter().map(|&id| Value::Integer(id)));
    let sql = format!(
        "FROM (SELECT id FROM relations WHERE subject_kind = 'entity' AND subject_id IN ({marks}) \
               UNION SELECT id FROM relations WHERE object_kind = 'entity' AND object_id IN ({marks})) AS hit \
         CROSS JOIN relations r ON r.id = hit.id JOIN entities s ON s.id = r.subject_id JOIN entities o ON o.id = r.object_id \
         WHERE {} AND {} AND {} AND r.subject_kind = 'entity' AND r.object_kind = 'entity'",
        r.sql, s.sql, o.sql
    );
    Clause { sql, params: ids.iter().chain(&ids).cloned().chain(r.params).chain(s.params).chain(o.params).collect() }
}

/// A relation as the reads return it (traverse, and history beside its ends' names).
pub fn relation(e: &Edge) -> TraverseRelation {
    TraverseRelation {
        id: e.id,
        subject: e.subject,
        predicate: e.predicate.clone(),
        object: e.object,
        declared_by: e.declared_by.clone(),
        declared_at: e.declared_at.clone(),
        anchor_ref: e.anchor_ref.map(|a| a.to_string()).unwrap_or_default(),
        validity: e.validity.clone(),
    }
}

/// The relations touching `frontier` ([`touching`]), each with whether it holds at `as_of`:
/// one statement reads both, so counting what the instant leaves out costs no second query.
fn edges_touching(conn: &Connection, scope: &ReadScope, as_of: &AsOf, frontier: &[i64]) -> Result<Vec<(Edge, bool)>> {
    let (holds, from) = (as_of.relation_holds("r"), touching(scope, frontier));
    let sql = format!("SELECT {EDGE_COLUMNS}, {} {} ORDER BY r.id", holds.sql, from.sql);
    let params: Vec<Value> = holds.params.into_iter().chain(from.params).collect();
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(params), |row| Ok((edge(row)?, row.get::<_, bool>(13)?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Breadth first from `starts` over entity → entity relations in `scope` that hold at
/// `as_of`, either direction.
pub fn neighbourhood(conn: &Connection, scope: &ReadScope, as_of: &AsOf, starts: &[i64], max_hops: i64) -> Result<Neighbourhood> {
    let mut n = Neighbourhood { distance: SortedMap::from_iter(starts.iter().map(|&e| (e, 0))), ..Default::default() };
    let mut frontier: Vec<i64> = n.distance.keys().copied().collect();
    for hop in 0..=max_hops {
        if frontier.is_empty() {
            break;
        }
        // entity → the most recent relation that reached it: (declared_at, -id), larger wins
        let mut next: SortedMap<i64, (String, i64)> = SortedMap::new();
        for chunk in frontier.chunks(250) {
            for (edge, holds) in edges_touching(conn, scope, as_of, chunk)? {
                if !holds {
                    n.not_holding.insert(edge.id);
                    continue;
                }
                for end in [edge.subject, edge.object] {
                    let key = (edge.declared_at.clone(), -edge.id);
                    if !n.distance.contains_key(&end) && next.get(&end).is_none_or(|k| key > *k) {
                        next.insert(end, key);
                    }
                }
                n.edges.insert(edge.id, edge);
            }
        }
        if hop == max_hops {
            break; // entities one hop past the bound are known; their edges are not needed
        }
        let room = NEIGHBOURHOOD_MAX_ENTITIES.saturating_sub(n.distance.len());
        if next.len() > room {
            let mut newest: Vec<(&i64, &(String, i64))> = next.iter().collect();
            crate::base::sort::sort_by(&mut newest, |a, b| (b.1, -b.0).cmp(&(a.1, -a.0)));
            for (&e, _) in newest.into_iter().take(room) {
                n.distance.insert(e, hop + 1);
            }
            break;
        }
        for &e in next.keys() {
            n.distance.insert(e, hop + 1);
        }
        frontier = next.into_keys().collect();
    }
    let mut newest: Vec<&Edge> = n.edges.values().collect();
    crate::base::sort::sort_by(&mut newest, |a, b| b.declared_at.cmp(&a.declared_at).then(a.id.cmp(&b.id)));
    n.recency = SortedMap::from_iter(newest.iter().enumerate().map(|(pos, e)| (e.id, pos)));
    Ok(n)
}

/// For each of `entities`, the refs of the records `scope` can read that mention it and
/// held at `as_of`, lowest id first, at most `limit`, and how many there are in all: one
/// statement per [`crate::base::in_list::MAX`] entities, each entity's window counted before
/// its cut. An entity no readable record mentions is absent. Episodes are readable only
/// without a `source_id` filter, since they have no source.
pub fn mentioning(
    conn: &Connection,
    scope: &ReadScope,
    as_of: &AsOf,
    source_id: &str,
    entities: &[i64],
    limit: i64,
) -> Result<SortedMap<i64, (Vec<Ref>, i64)>> {
    let (scoped, holds) = (scope.clause("t"), as_of.record_holds("t"));
    let iso = crate::base::scope::Clause {
        sql: format!("{} AND {}", scoped.sql, holds.sql),
        params: scoped.params.into_iter().chain(holds.params).collect(),
    };
    let mut out: SortedMap<i64, (Vec<Ref>, i64)> = SortedMap::new();
    for chunk in entities.chunks(crate::base::in_list::MAX) {
        let (marks, ids) = crate::base::in_list::padded(chunk.iter().map(|&id| Value::Integer(id)));
        let join = |kind: Kind| {
            format!(
                "SELECT m.entity_id AS entity, m.ref_kind AS kind, t.id AS id FROM entity_mentions m JOIN {} t ON t.id = m.ref_id \
                 WHERE m.entity_id IN ({marks}) AND m.ref_kind = '{}' AND {}",
                kind.table(),
                kind.as_str(),
                iso.sql
            )
        };
        let mut params: Vec<Value> = ids.iter().cloned().chain(iso.params.iter().cloned()).collect();
        let records = if source_id.is_empty() {
            params.extend(ids.iter().cloned().chain(iso.params.iter().cloned()));
            format!("{} UNION ALL {}", join(Kind::Mem), join(Kind::Ep))
        } else {
            params.push(Value::Text(source_id.into()));
            format!("{} AND source_id(t.source) = ?", join(Kind::Mem))
        };
        params.push(Value::Integer(limit));
        let sql = format!(
            "SELECT entity, kind, id, total FROM (SELECT entity, kind, id, count(*) OVER (PARTITION BY entity) AS total, \
             row_number() OVER (PARTITION BY entity ORDER BY id, kind) AS n FROM ({records})) WHERE n <= ? ORDER BY entity, id, kind"
        );
        let mut stmt = conn.prepare_cached(&sql)?;
        let rows =
            stmt.query_map(params_from_iter(params), |r| Ok((r.get::<_, i64>(0)?, Ref { kind: r.get(1)?, id: r.get(2)? }, r.get(3)?)))?;
        for row in rows {
            let (entity, at, total) = row?;
            let (refs, all) = out.entry(entity).or_default();
            refs.push(at);
            *all = total;
        }
    }
    Ok(out)
}
