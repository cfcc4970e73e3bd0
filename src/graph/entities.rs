//! Entities: resolving a name or alias to an entity, registering new ones, listing and
//! deleting them. Names and aliases are one namespace compared in normalized form, so two
//! spellings that normalize alike are one entity (design §2).

use crate::api::error::{Error, Result};
use crate::api::{DeleteResponse, ListEntitiesOptions, ListEntitiesResponse, ListedEntity};
use crate::base::normalize::normalize;
use crate::base::scope::{Clause, ReadScope, WriteScope};
use crate::base::sorted::SortedMap;
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OptionalExtension};

/// A declared string and its normalized twin.
pub(crate) struct Name {
    /// As written, trimmed.
    pub text: String,
    /// What lookups compare ([`normalize`]).
    pub normalized: String,
}

/// The ids of entities a normalized name or alias names (two `?` for the name), each side
/// read through its own index; scoping joins on these ids, so a lookup never scans an
/// agent's entities.
const NAMED: &str =
    "(SELECT id FROM entities WHERE normalized = ? UNION SELECT entity_id FROM entity_aliases WHERE normalized = ?) AS named";

fn with(clause: Clause, tail: impl IntoIterator<Item = Value>) -> Vec<Value> {
    let mut params = clause.params;
    params.extend(tail);
    params
}

/// The parameters of [`NAMED`] followed by those of `clause`.
fn named_then(normalized: &str, clause: Clause) -> Vec<Value> {
    [Value::Text(normalized.into()), Value::Text(normalized.into())].into_iter().chain(clause.params).collect()
}

/// The entity `normalized` names in one bucket of `scope`, lowest id first.
fn resolve_in(conn: &Connection, scope: &WriteScope, bucket: &(String, String), normalized: &str) -> Result<Option<i64>> {
    let iso = scope.bucket_clause("e", bucket);
    let sql = format!("SELECT e.id FROM {NAMED} CROSS JOIN entities e ON e.id = named.id WHERE {} ORDER BY e.id LIMIT 1", iso.sql);
    let params = named_then(normalized, iso);
    Ok(conn.prepare_cached(&sql)?.query_row(params_from_iter(params), |r| r.get(0)).optional()?)
}

/// The entity a normalized name or alias resolves to for a declaration in `scope`:
/// searched over the buckets its reader sees, most specific first, or with `exact` in
/// the declaring bucket alone.
pub fn resolve(conn: &Connection, scope: &WriteScope, normalized: &str, exact: bool) -> Result<Option<i64>> {
    let buckets = scope.visible_buckets();
    let searched = if exact { &buckets[..1] } else { &buckets[..] };
    for bucket in searched {
        if let Some(id) = resolve_in(conn, scope, bucket, normalized)? {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// The entity for `name`, registered in the declaring bucket when it resolves to none.
/// Returns its id and whether it was created.
///
/// With `exact`, only an entity of the declaring bucket is reused: a declaration that
/// attaches aliases gets an entity of its own bucket, since `entity_aliases` has no scope
/// columns and an alias added to a wider bucket's entity would be read everywhere that
/// entity is.
pub fn register(conn: &Connection, scope: &WriteScope, name: &Name, declared_by: &str, now: &str, exact: bool) -> Result<(i64, bool)> {
    let Name { text: name, normalized } = name;
    if let Some(id) = resolve(conn, scope, normalized, exact)? {
        return Ok((id, false));
    }
    use crate::base::derived_id::{derived_id, syncs, Part};
    let id = derived_id(
        "entities",
        &[Part::Text(&scope.agent_id), Part::Text(&scope.project_id), Part::Text(&scope.channel), Part::Text(normalized)],
    );
    conn.prepare_cached(concat!(
        "INSERT INTO entities (id, agent_id, project_id, channel, name, normalized, declared_by, created_at) VALUES (CASE WHEN ",
        syncs!(),
        " THEN ? END, ?, ?, ?, ?, ?, ?, ?)"
    ))?
    .execute(rusqlite::params![id, scope.agent_id, scope.project_id, scope.channel, name, normalized, declared_by, now])?;
    Ok((conn.last_insert_rowid(), true))
}

/// Every entity the call can read that `normalized` names, by id.
pub fn starts(conn: &Connection, scope: &ReadScope, normalized: &str) -> Result<Vec<i64>> {
    let iso = scope.clause("e");
    let sql = format!("SELECT e.id FROM {NAMED} CROSS JOIN entities e ON e.id = named.id WHERE {} ORDER BY e.id", iso.sql);
    let params = named_then(normalized, iso);
    let mut stmt = conn.prepare_cached(&sql)?;
    let ids = stmt.query_map(params_from_iter(params), |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

/// The aliases of each entity as written, in normalized order (every one of `ids` has a
/// list), one statement per [`crate::base::in_list::MAX`] entities.
pub fn aliases_of(conn: &Connection, ids: &[i64]) -> Result<SortedMap<i64, Vec<String>>> {
    let mut out: SortedMap<i64, Vec<String>> = SortedMap::from_iter(ids.iter().map(|&id| (id, Vec::new())));
    for chunk in ids.chunks(crate::base::in_list::MAX) {
        let (marks, ids) = crate::base::in_list::padded(chunk.iter().map(|&id| Value::Integer(id)));
        let sql = format!("SELECT entity_id, alias FROM entity_aliases WHERE entity_id IN ({marks}) ORDER BY entity_id, normalized");
        let mut stmt = conn.prepare_cached(&sql)?;
        for row in stmt.query_map(params_from_iter(ids), |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
            let (id, alias) = row?;
            out.entry(id).or_default().push(alias);
        }
    }
    Ok(out)
}

/// The name of each entity as declared, one statement per [`crate::base::in_list::MAX`] entities.
pub fn names_of(conn: &Connection, ids: &[i64]) -> Result<SortedMap<i64, String>> {
    let mut out = SortedMap::new();
    for chunk in ids.chunks(crate::base::in_list::MAX) {
        let (marks, ids) = crate::base::in_list::padded(chunk.iter().map(|&id| Value::Integer(id)));
        let mut stmt = conn.prepare_cached(&format!("SELECT id, name FROM entities WHERE id IN ({marks})"))?;
        for row in stmt.query_map(params_from_iter(ids), |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
            let (id, name) = row?;
            out.insert(id, name);
        }
    }
    Ok(out)
}

/// A page of the entities the call can read, by normalized name then id, with alias,
/// mention and relation counts — what the explorer's search suggests from. Relations are
/// counted where they hold at the read's instant (`as_of`, by default the clock's `now_ms`);
/// those the instant left out are counted by the same statement, summed over the page.
/// The page is cut before anything is counted: counting every entity the filter matches
/// and sorting them took 330 ms a page at 100k relations (BENCHMARKS.md).
pub fn list(conn: &Connection, opts: &ListEntitiesOptions, now_ms: i64) -> Result<ListEntitiesResponse> {
    let iso = opts.scope().clause("e");
    let holds = opts.as_of(now_ms).relation_holds("r");
    let needle = normalize(opts.query.as_deref().unwrap_or_default());
    let (limit, offset) = (opts.limit(), opts.offset.unwrap_or(0));
    let filter = if needle.is_empty() {
        String::new()
    } else {
        " AND (instr(e.normalized, ?) > 0 OR EXISTS (SELECT 1 FROM entity_aliases a WHERE a.entity_id = e.id AND instr(a.normalized, ?) > 0))".into()
    };
    let needles: Vec<Value> = if needle.is_empty() { vec![] } else { vec![Value::Text(needle.clone()), Value::Text(needle)] };
    let total: i64 = conn.query_row(
        &format!("SELECT count(*) FROM entities e WHERE {}{filter}", iso.sql),
        params_from_iter(with(iso.clone(), needles.clone())),
        |r| r.get(0),
    )?;
    let sql = format!(
        "SELECT e.id, e.name, e.declared_by, e.created_at, e.project_id, e.channel, \
         (SELECT count(*) FROM entity_mentions m WHERE m.entity_id = e.id), \
         (SELECT count(*) FROM relations r WHERE {on} AND {holds}), (SELECT count(*) FROM relations r WHERE {on}) \
         FROM (SELECT e.id FROM entities e WHERE {}{filter} ORDER BY e.normalized, e.id LIMIT ? OFFSET ?) AS page \
         CROSS JOIN entities e ON e.id = page.id ORDER BY e.normalized, e.id",
        iso.sql,
        on = "((r.subject_kind = 'entity' AND r.subject_id = e.id) OR (r.object_kind = 'entity' AND r.object_id = e.id))",
        holds = holds.sql,
    );
    let params: Vec<Value> =
        holds.params.iter().cloned().chain(with(iso, needles)).chain([Value::Integer(limit), Value::Integer(offset)]).collect();
    let mut not_holding = 0;
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map(params_from_iter(params), |r| {
            Ok((
                // every relation naming it, counted from the endpoint indexes alone, less those
                // that hold: what the instant left out, with no second pass over the rows
                r.get::<_, i64>(8)? - r.get::<_, i64>(7)?,
                ListedEntity {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    aliases: Vec::new(),
                    mentions: r.get(6)?,
                    relations: r.get(7)?,
                    declared_by: r.get(2)?,
                    created_at: r.get(3)?,
                    project_id: r.get(4)?,
                    channel: r.get(5)?,
                },
            ))
        })?
        .map(|row| {
            row.map(|(left_out, entity)| {
                not_holding += left_out;
                entity
            })
        })
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut aliases = aliases_of(conn, &rows.iter().map(|e| e.id).collect::<Vec<_>>())?;
    // taken, not removed: the map is dropped whole (graph/traverse.rs)
    let entities: Vec<ListedEntity> =
        rows.into_iter().map(|e| ListedEntity { aliases: aliases.get_mut(&e.id).map(std::mem::take).unwrap_or_default(), ..e }).collect();
    let end = offset + entities.len() as i64;
    Ok(ListEntitiesResponse {
        entities,
        total,
        next_offset: (end < total).then_some(end),
        not_holding: (not_holding > 0).then_some(not_holding),
    })
}

/// Deletes one entity of the agent; the cascade trigger takes its aliases, mentions and
/// every relation that names it.
pub fn delete(conn: &Connection, agent_id: &str, id: i64) -> Result<DeleteResponse> {
    let owner = ReadScope { agent_id: agent_id.to_owned(), project_id: None, channel: None };
    let iso = owner.clause("e");
    let sql = format!("DELETE FROM entities AS e WHERE e.id = ? AND {}", iso.sql);
    if conn.execute(&sql, params_from_iter(std::iter::once(Value::Integer(id)).chain(iso.params)))? == 0 {
        return Err(Error::NotFound { field: "entity_id".into(), what: format!("entity {id}") });
    }
    Ok(DeleteResponse { ok: true, deleted_id: id })
}
