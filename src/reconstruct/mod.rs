//! `reconstruct` (design §3): retrieval read through the declared graph, in four stages —
//! [`candidates`] (alias cues for the lexical arm), [`bundle`] (clusters by stored keys and
//! declared record relations), [`walk`] (evidence reached over entity relations, a pure
//! function called once) and [`structure`] (items with claims, roles and excerpts) — then
//! the character budget: item heads first, excerpts after, so excerpts are cut before any
//! item is.

pub mod bundle;
pub mod candidates;
pub mod structure;
pub mod walk;

use crate::api::{Cues, Excerpt, Item, ReconstructBounds, ReconstructOptions, ReconstructResponse, Trace};
use crate::clock::parse_iso;
use crate::error::Result;
use crate::recall::{retrieve, Hit, Request};
use crate::records::{Kind, Ref};
use crate::scope::ReadScope;
use crate::traverse::{mentioning, neighbourhood};
use crate::vectors::VectorIndex;
use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OptionalExtension};
use std::collections::BTreeSet;
use structure::Row;

fn span(conn: &Connection, id: i64) -> Result<Option<(i64, i64)>> {
    let times: Option<(Option<String>, Option<String>)> =
        conn.query_row("SELECT start_time, end_time FROM episodes WHERE id = ?", [id], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
    Ok(times.and_then(|(s, e)| Some((parse_iso(&s?)?, parse_iso(&e?)?))))
}

fn row_of(conn: &Connection, hit: &Hit, rank: usize) -> Result<Row> {
    let reference = format!("{}:{}", hit.kind.as_str(), hit.id);
    Ok(Row {
        span: if hit.kind == Kind::Ep { span(conn, hit.id)? } else { None },
        episode: hit.kind == Kind::Ep,
        id: hit.id,
        content: hit.content.clone(),
        ts: parse_iso(&hit.timestamp),
        timestamp: hit.timestamp.clone(),
        context: hit.context.clone(),
        rank,
        why: None,
        path: Vec::new(),
        via_entity: None,
        reference,
    })
}

/// A record the walk reached, read as a row (it is readable: the walk only lists those).
fn reached_row(conn: &Connection, r: Ref) -> Result<Option<Row>> {
    let sql = match r.kind {
        Kind::Mem => "SELECT content, timestamp, project_id, channel FROM memories WHERE id = ?",
        Kind::Ep => "SELECT summary, COALESCE(start_time, created_at), project_id, channel FROM episodes WHERE id = ?",
    };
    let row = conn
        .query_row(sql, [r.id], |x| Ok((x.get::<_, String>(0)?, x.get::<_, String>(1)?, x.get::<_, String>(2)?, x.get::<_, String>(3)?)))
        .optional()?;
    let Some((content, timestamp, project, channel)) = row else { return Ok(None) };
    Ok(Some(Row {
        reference: r.to_string(),
        episode: r.kind == Kind::Ep,
        id: r.id,
        content,
        ts: parse_iso(&timestamp),
        timestamp,
        context: (project, channel),
        span: if r.kind == Kind::Ep { span(conn, r.id)? } else { None },
        rank: usize::MAX,
        why: None,
        path: Vec::new(),
        via_entity: None,
    }))
}

/// Declared record → record relations in scope whose both ends are candidates, by id.
fn links(conn: &Connection, scope: &ReadScope, pool: &BTreeSet<String>) -> Result<Vec<bundle::Link>> {
    if pool.is_empty() {
        return Ok(Vec::new());
    }
    let iso = scope.clause("r");
    let marks = vec!["?"; pool.len()].join(",");
    let sql = format!(
        "SELECT r.subject_kind || ':' || r.subject_id, r.predicate, r.object_kind || ':' || r.object_id FROM relations r \
         WHERE {} AND r.subject_kind IN ('mem', 'ep') AND r.object_kind IN ('mem', 'ep') \
         AND (r.subject_kind || ':' || r.subject_id) IN ({marks}) AND (r.object_kind || ':' || r.object_id) IN ({marks}) ORDER BY r.id",
        iso.sql
    );
    let refs = pool.iter().map(|r| Value::Text(r.clone()));
    let params: Vec<Value> = iso.params.into_iter().chain(refs.clone()).chain(refs).collect();
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params_from_iter(params), |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Loads the graph the walk may follow from `starts` (the window's candidates).
fn load_graph(conn: &Connection, opts: &ReconstructOptions, starts: &[String], pool: &BTreeSet<String>) -> Result<walk::Graph> {
    let mut graph = walk::Graph::default();
    let iso = opts.scope.clause("e");
    let marks = vec!["?"; starts.len()].join(",");
    let sql = format!(
        "SELECT m.ref, m.entity_id FROM entity_mentions m JOIN entities e ON e.id = m.entity_id WHERE m.ref IN ({marks}) AND {} ORDER BY m.ref, m.entity_id",
        iso.sql
    );
    let params: Vec<Value> = starts.iter().map(|r| Value::Text(r.clone())).chain(iso.params).collect();
    let mut stmt = conn.prepare(&sql)?;
    for row in stmt.query_map(params_from_iter(params), |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))? {
        let (r, entity) = row?;
        graph.mentions.entry(r).or_default().push(entity);
    }
    if graph.mentions.is_empty() {
        return Ok(graph);
    }
    let mentioned: Vec<i64> = graph.mentions.values().flatten().copied().collect::<BTreeSet<_>>().into_iter().collect();
    let n = neighbourhood(conn, &opts.scope, &mentioned, opts.max_hops)?;
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
        list.sort();
    }
    let bound = opts.max_evidence as usize;
    for &entity in n.distance.keys() {
        let (refs, _) = mentioning(conn, &opts.scope, &opts.source_id, entity, (bound + pool.len() + 1) as i64)?;
        let outside: Vec<(i64, String)> =
            refs.into_iter().filter(|r| !pool.contains(r)).filter_map(|r| Ref::parse(&r).map(|p| (p.id, r))).collect();
        if outside.len() > bound {
            graph.records_cut.insert(entity);
        }
        graph.records.insert(entity, outside.into_iter().take(bound).collect());
    }
    Ok(graph)
}

/// Whether the database has the four association tables. A database written before the
/// graph existed has none; reconstruct then reads no graph and answers exactly as it would
/// on an empty one (invariant 2).
fn has_graph(conn: &Connection) -> Result<bool> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('entities', 'entity_aliases', 'entity_mentions', 'relations')",
        [],
        |r| r.get(0),
    )?;
    Ok(n == 4)
}

/// Runs `reconstruct`.
pub fn reconstruct(conn: &Connection, vectors: &VectorIndex, opts: &ReconstructOptions) -> Result<ReconstructResponse> {
    let graph_tables = has_graph(conn)?;
    // Stage 1
    let cue = if graph_tables { candidates::cue(conn, &opts.scope, &opts.query)? } else { candidates::Cue::default() };
    let request = Request {
        extra_terms: cue.normalized_terms.clone(),
        ..Request::new(&opts.scope, &opts.source_id, &opts.query, opts.query_embedding.as_deref(), opts.top_k as usize, opts.deep, vectors)
    };
    let retrieval = retrieve(conn, &request)?;
    let hits: Vec<&Hit> = retrieval.admitted.iter().take(opts.top_k as usize).collect();
    let mut rows: Vec<Row> = hits.iter().enumerate().map(|(rank, h)| row_of(conn, h, rank)).collect::<Result<_>>()?;
    let pool: BTreeSet<String> = rows.iter().map(|r| r.reference.clone()).collect();

    // Stage 2
    let links = if graph_tables { links(conn, &opts.scope, &pool)? } else { Vec::new() };
    let members: Vec<bundle::Member> = rows
        .iter()
        .zip(&hits)
        .map(|(r, h)| bundle::Member {
            reference: r.reference.clone(),
            episode: r.episode,
            ts: r.ts,
            source: h.source.as_deref().and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok()).map(|s| {
                let field = |k: &str| s.get(k).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).unwrap_or_default();
                (field("type"), field("id"))
            }),
            context: r.context.clone(),
            span: r.span,
        })
        .collect();
    let bundling = bundle::bundle(&members, &links);
    for (&i, why) in &bundling.why {
        rows[i].why = Some(why.clone());
    }
    let window: Vec<&Vec<usize>> = bundling.clusters.iter().take(opts.count as usize).collect();

    // Stage 3
    let starts: Vec<Vec<String>> = window.iter().map(|c| c.iter().map(|&i| rows[i].reference.clone()).collect()).collect();
    let all_starts: Vec<String> = starts.iter().flatten().cloned().collect();
    let graph = if all_starts.is_empty() || !graph_tables { walk::Graph::default() } else { load_graph(conn, opts, &all_starts, &pool)? };
    let (reached, cuts) = walk::walk(&starts, &pool, &graph, opts.max_hops);

    // Stage 4
    let mut drafts = Vec::new();
    for (cluster, reached) in window.iter().zip(reached) {
        let members: Vec<Row> = cluster.iter().map(|&i| rows[i].clone()).collect();
        let mut walked = Vec::new();
        for r in reached {
            if let Some(mut row) = Ref::parse(&r.reference).map(|p| reached_row(conn, p)).transpose()?.flatten() {
                row.why = Some(format!("relation:{}", r.predicate));
                row.path = r.path;
                row.via_entity = Some(r.entity);
                walked.push(row);
            }
        }
        drafts.push(structure::structure(members, walked, opts.max_evidence as usize, &links));
    }

    // The budget: every head first, in item order, then the excerpts.
    let budget = opts.budget as usize;
    let mut used = 0usize;
    let mut items: Vec<Item> = Vec::new();
    let mut budget_cut = false;
    for d in &drafts {
        let remaining = budget - used;
        let len = d.head.content.chars().count();
        if remaining == 0 {
            budget_cut = true;
            break;
        }
        let quoted = len.min(remaining);
        budget_cut |= quoted < len;
        used += quoted;
        items.push(Item {
            content: d.head.content.chars().take(quoted).collect(),
            head_ref: d.head.reference.clone(),
            claims: d.claims.clone(),
            claims_omitted: (d.omitted > 0).then_some(d.omitted),
            independence_reason: d.independence,
            quote_basis: opts.trace.then_some(if quoted < len { "truncated" } else { "whole" }),
            ranges: vec![[0, quoted]],
            excerpts: Vec::new(),
            excerpts_omitted: None,
        });
    }
    for (item, d) in items.iter_mut().zip(&drafts) {
        let mut omitted = 0;
        for other in &d.others {
            let len = other.content.chars().count();
            if used + len <= budget {
                used += len;
                item.excerpts.push(Excerpt { reference: other.reference.clone(), content: other.content.clone() });
            } else {
                omitted += 1;
            }
        }
        if omitted > 0 {
            budget_cut = true;
            item.excerpts_omitted = Some(omitted);
        }
    }
    if opts.trace {
        for item in &mut items {
            for claim in &mut item.claims {
                claim.why.get_or_insert_with(|| "seed".into());
            }
            item.independence_reason.get_or_insert("singleton");
        }
    }

    let mut omitted = Vec::new();
    if cuts.iter().any(|c| c.max_hops) {
        omitted.push("max_hops");
    }
    if items.iter().any(|i| i.claims_omitted.is_some()) {
        omitted.push("max_evidence");
    }
    let reached_bounds = if cuts.iter().any(|c| c.reading) { vec!["max_evidence"] } else { Vec::new() };
    let show_bounds = opts.trace || !omitted.is_empty() || !reached_bounds.is_empty() || !opts.lowered.is_empty();
    let returned = items.len();
    let shortfall = if returned >= opts.count as usize {
        None
    } else if returned == 0 && hits.is_empty() {
        Some("no_relevant_evidence")
    } else if budget_cut {
        Some("budget_exhausted")
    } else {
        Some("exhausted_candidates")
    };
    Ok(ReconstructResponse {
        items,
        effective_count: opts.count,
        returned_count: returned,
        bounds: show_bounds.then(|| ReconstructBounds {
            top_k: opts.top_k,
            max_hops: opts.max_hops,
            max_evidence: opts.max_evidence,
            omitted,
            reached: reached_bounds,
            lowered: opts.lowered.clone(),
        }),
        shortfall_reason: shortfall,
        effective_budget: (opts.trace || budget_cut).then_some(opts.budget),
        used_budget: (opts.trace || budget_cut).then_some(used as i64),
        trace: opts.trace.then(|| Trace {
            candidate_refs: pool_in_order(&rows),
            clusters: bundling.clusters.iter().map(|c| c.iter().map(|&i| rows[i].reference.clone()).collect()).collect(),
            cues: Cues { entities: cue.entities.clone(), terms: cue.terms.clone() },
            gated: retrieval.gated,
        }),
    })
}

fn pool_in_order(rows: &[Row]) -> Vec<String> {
    rows.iter().map(|r| r.reference.clone()).collect()
}
