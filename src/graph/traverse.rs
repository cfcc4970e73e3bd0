//! `traverse` (design §4): an entity's neighbourhood as a graph — its aliases, the
//! entity → entity relations declared on it up to the hop bound (followed from either
//! end), the entities they reach, and the refs of the readable records that mention each.
//!
//! Entities come in the order the reconstruct walk cuts by: fewer hops, then the most
//! recently declared relation that reached them, then the lower id. `limit` bounds both
//! the entities returned and the refs listed per entity; what it cut is counted. Only
//! relations holding at the read's instant are followed (`as_of`, by default now); those
//! the instant left out are counted in `bounds.not_holding`.

use crate::api::error::Result;
use crate::api::refs::Ref;
use crate::api::{Bounds, TraverseEntity, TraverseOptions, TraverseReason, TraverseResponse};
use crate::base::normalize::normalize;
use crate::base::sorted::{SortedMap, SortedSet};
use crate::graph::entities::{aliases_of, names_of, starts};
use crate::graph::reads::{mentioning, neighbourhood, Edge};
use rusqlite::Connection;

/// Runs `traverse` at the clock's `now_ms`.
pub fn traverse(conn: &Connection, opts: &TraverseOptions, now_ms: i64) -> Result<TraverseResponse> {
    let (scope, limit, as_of) = (opts.scope(), opts.limit(), opts.as_of(now_ms));
    let mut response = TraverseResponse {
        entity: opts.entity.clone(),
        max_hops: opts.max_hops(),
        limit,
        entities: Vec::new(),
        relations: Vec::new(),
        entities_omitted: None,
        bounds: None,
        reason: None,
    };
    let normalized = normalize(&opts.entity);
    let starts = if normalized.is_empty() { Vec::new() } else { starts(conn, &scope, &normalized)? };
    if starts.is_empty() {
        response.reason = Some(TraverseReason::NoSuchEntity);
        return Ok(response);
    }
    let n = neighbourhood(conn, &scope, &as_of, &starts, opts.max_hops())?;

    // The relation that reached each entity from one hop closer, most recent first.
    let mut reached_by: SortedMap<i64, usize> = SortedMap::new();
    for edge in n.edges.values() {
        for (near, far) in [(edge.subject, edge.object), (edge.object, edge.subject)] {
            if let (Some(dn), Some(df)) = (n.distance.get(&near), n.distance.get(&far)) {
                if *df == dn + 1 {
                    let pos = n.recency[&edge.id];
                    reached_by.entry(far).and_modify(|p| *p = (*p).min(pos)).or_insert(pos);
                }
            }
        }
    }
    let mut order: Vec<i64> = n.distance.keys().copied().collect();
    crate::base::sort::sort_by_key(&mut order, |e| (n.distance[e], reached_by.get(e).map_or(-1, |&p| p as i64), *e));
    let kept: Vec<i64> = order.iter().take(limit as usize).copied().collect();
    let kept_set: SortedSet<i64> = SortedSet::from_iter(kept.iter().copied());

    let mut aliases = aliases_of(conn, &kept)?;
    let mut names = names_of(conn, &kept)?;
    let mut mentioned = mentioning(conn, &scope, &as_of, opts.source_id(), &kept, limit)?;
    let mut mentions_cut = false;
    // Each value is taken out in place (`get_mut` and `mem::take`), not removed: these maps
    // are dropped whole after the loop, and a removal would move the sorted list's later
    // entries (as a B-tree's `remove` brought its rebalancing code into the wasm module:
    // BENCHMARKS-HISTORY.md, "Under the budget with facts in time"). The same in history,
    // list_entities, reconstruct, export.
    for &id in &kept {
        let name = names.get_mut(&id).map(std::mem::take).unwrap_or_default();
        let (mentions, total) = mentioned.get_mut(&id).map(std::mem::take).unwrap_or_default();
        let omitted = total - mentions.len() as i64;
        mentions_cut |= omitted > 0;
        response.entities.push(TraverseEntity {
            id,
            name,
            hops: n.distance[&id],
            aliases: aliases.get_mut(&id).map(std::mem::take).unwrap_or_default(),
            mentions: mentions.iter().map(Ref::to_string).collect(),
            mentions_omitted: (omitted > 0).then_some(omitted),
        });
    }
    let mut by_recency: Vec<&Edge> = n.edges.values().collect();
    crate::base::sort::sort_by_key(&mut by_recency, |e| n.recency[&e.id]);
    response.relations = by_recency
        .into_iter()
        .filter(|e| kept_set.contains(&e.subject) && kept_set.contains(&e.object))
        .map(crate::graph::reads::relation)
        .collect();

    let mut omitted = Vec::new();
    if n.edges.values().any(|e| !n.distance.contains_key(&e.subject) || !n.distance.contains_key(&e.object)) {
        omitted.push("max_hops");
    }
    let entities_cut = order.len() - kept.len();
    if entities_cut > 0 || mentions_cut {
        omitted.push("limit");
    }
    response.entities_omitted = (entities_cut > 0).then_some(entities_cut as i64);
    let not_holding = n.not_holding.len() as i64;
    response.bounds =
        (!omitted.is_empty() || not_holding > 0).then_some(Bounds { omitted, not_holding: (not_holding > 0).then_some(not_holding) });
    Ok(response)
}
