//! Stage 3 — the bounded relation walk (design §3, §9), a pure function: the items'
//! candidates and the relations in scope in, the evidence each item reached with its
//! provenance out. Called exactly once per reconstruction, on the items the count window
//! holds, in item order.
//!
//! The six readings of design §9, as this function holds them:
//! - **Direction**: an entity → entity relation is followed from either end.
//! - **Hops start at one**: a record is evidence only through at least one relation; a
//!   record that merely mentions the candidate's own entity is not.
//! - **One row, one place**: a record already in the candidate pool stays where retrieval
//!   put it, and one an earlier item reached is not added to a later item.
//! - **Reading is bounded**: at most `max_evidence` records are read per reached entity,
//!   lowest id first; when there were more, `max_evidence` is named in `reached`.
//! - **why and independence**: a reached record carries `relation:<predicate>` (a
//!   [`Why::Relation`]), its hops, the path of relation ids that reached it and the entity
//!   at its end, so a view can show exactly which edges the walk followed.
//! - **A vote, not an admission**: the walk never makes an item; it only adds evidence.
//!
//! Reached records are ordered by the written rule: fewer hops, then the more recently
//! declared relation, then the lower record id.

use super::Why;
use crate::api::refs::{Kind, Ref};
use crate::base::sorted::{SortedMap, SortedSet};

/// The declared graph around a reconstruction's candidates, as loaded for the walk.
#[derive(Debug, Default, Clone)]
pub struct Graph {
    /// Candidate → the entities it is declared to mention.
    pub mentions: SortedMap<Ref, Vec<i64>>,
    /// Entity → every relation on it, most recently declared first.
    pub adjacency: SortedMap<i64, Vec<Step>>,
    /// Entity → the readable records that mention it, lowest id first (at most the
    /// reading bound).
    pub records: SortedMap<i64, Vec<Ref>>,
    /// Entities that had more records than the reading bound.
    pub records_cut: SortedSet<i64>,
    /// Entities reached whose own relations were not loaded (the loader's bound).
    pub unexpanded: SortedSet<i64>,
    /// Relations around the entities expanded that did not hold at the read's instant:
    /// not in `adjacency`, only counted in the response's `bounds`.
    pub not_holding: SortedSet<i64>,
}

/// One relation as seen from one of its ends. Field order is the order the walk prefers
/// steps in: the more recently declared relation first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Step {
    /// 0 is the newest relation loaded.
    pub recency: usize,
    /// The entity at the other end.
    pub other: i64,
    /// The relation's id.
    pub relation: i64,
    /// Its predicate.
    pub predicate: String,
}

/// A record the walk reached for an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    /// The record.
    pub at: Ref,
    /// The relation that reached its entity, by its predicate.
    pub why: Why,
    /// The ids of the relations followed (as many as hops), from the item's own entity out
    /// to the one that mentions the record.
    pub path: Vec<i64>,
    /// The entity at the far end of `path`: its mention of the record brought the record in.
    pub entity: i64,
}

/// What the walk cut for one item.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cuts {
    /// A relation was left unfollowed at the hop bound.
    pub max_hops: bool,
    /// A reached entity had more records than were read.
    pub reading: bool,
}

/// Walks from each item's candidates (refs, in item order) over `graph` up to `max_hops`.
pub fn walk(items: &[Vec<Ref>], pool: &SortedSet<Ref>, graph: &Graph, max_hops: usize) -> (Vec<Vec<Reached>>, Vec<Cuts>) {
    let mut taken: SortedSet<Ref> = SortedSet::new();
    let mut reached_by_item = Vec::with_capacity(items.len());
    let mut cuts_by_item = Vec::with_capacity(items.len());
    for refs in items {
        let mut distance: SortedMap<i64, usize> = SortedMap::new();
        // entity → (the step that reached it, the entity it was taken from)
        let mut via: SortedMap<i64, (&Step, i64)> = SortedMap::new();
        for r in refs {
            for &entity in graph.mentions.get(r).into_iter().flatten() {
                distance.insert(entity, 0);
            }
        }
        let mut frontier: Vec<i64> = distance.keys().copied().collect();
        for hop in 1..=max_hops {
            if frontier.is_empty() {
                break; // nothing left to expand: the hop bound cannot be what stops the walk
            }
            let mut next: SortedMap<i64, (&Step, i64)> = SortedMap::new();
            for &entity in &frontier {
                for step in graph.adjacency.get(&entity).into_iter().flatten() {
                    if !distance.contains_key(&step.other) && next.get(&step.other).is_none_or(|(s, _)| step.recency < s.recency) {
                        next.insert(step.other, (step, entity));
                    }
                }
            }
            for (&other, &edge) in &next {
                distance.insert(other, hop);
                via.insert(other, edge);
            }
            frontier = next.into_keys().collect();
        }
        let unfollowed = frontier.iter().any(|e| graph.adjacency.get(e).into_iter().flatten().any(|s| !distance.contains_key(&s.other)));
        let mut cuts = Cuts { max_hops: unfollowed || distance.keys().any(|e| graph.unexpanded.contains(e)), reading: false };
        // ref → (hops, recency, record id, episode first, entity): the written order
        let mut best: SortedMap<Ref, (usize, usize, i64, bool, i64)> = SortedMap::new();
        for (&entity, &hops) in &distance {
            if hops == 0 {
                continue;
            }
            cuts.reading |= graph.records_cut.contains(&entity);
            let recency = via[&entity].0.recency;
            for r in graph.records.get(&entity).into_iter().flatten() {
                if pool.contains(r) || taken.contains(r) {
                    continue;
                }
                let key = (hops, recency, r.id, r.kind == Kind::Mem, entity);
                if best.get(r).is_none_or(|k| key < *k) {
                    best.insert(*r, key);
                }
            }
        }
        let mut ordered: Vec<((usize, usize, i64, bool, i64), Ref)> = best.into_iter().map(|(r, key)| (key, r)).collect();
        crate::base::sort::sort(&mut ordered);
        let path_to = |mut entity: i64| {
            let mut path = Vec::new();
            while let Some((step, from)) = via.get(&entity) {
                path.push(step.relation);
                entity = *from;
            }
            path.reverse();
            path
        };
        let reached: Vec<Reached> = ordered
            .into_iter()
            .map(|((.., entity), at)| Reached { at, why: Why::Relation(via[&entity].0.predicate.clone()), path: path_to(entity), entity })
            .collect();
        taken.extend(reached.iter().map(|r| r.at));
        reached_by_item.push(reached);
        cuts_by_item.push(cuts);
    }
    (reached_by_item, cuts_by_item)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn m(id: i64) -> Ref {
        Ref { kind: Kind::Mem, id }
    }

    /// Atlas(1) —owned_by (10)→ Priya(2) —member_of (11)→ Payments(3); mem:1 mentions Atlas,
    /// mem:2 Priya, mem:3 Payments, mem:4 Atlas too.
    fn graph() -> Graph {
        let mut g = Graph::default();
        g.mentions.insert(m(1), vec![1]);
        let step = |recency, other, relation, predicate: &str| Step { recency, other, relation, predicate: predicate.into() };
        g.adjacency.insert(1, vec![step(1, 2, 10, "owned_by")]);
        g.adjacency.insert(2, vec![step(0, 3, 11, "member_of"), step(1, 1, 10, "owned_by")]);
        g.adjacency.insert(3, vec![step(0, 2, 11, "member_of")]);
        g.records.insert(1, vec![m(1), m(4)]);
        g.records.insert(2, vec![m(2)]);
        g.records.insert(3, vec![m(3)]);
        g
    }

    fn refs(r: &[Reached]) -> Vec<(String, usize)> {
        r.iter().map(|x| (x.at.to_string(), x.path.len())).collect()
    }

    #[test]
    fn reading_hops_start_at_one() {
        // mem:4 mentions the candidate's own entity: not evidence
        let pool = SortedSet::from([m(1)]);
        let (reached, cuts) = walk(&[vec![m(1)]], &pool, &graph(), 2);
        assert_eq!(refs(&reached[0]), vec![("mem:2".to_string(), 1), ("mem:3".to_string(), 2)]);
        assert!(!cuts[0].max_hops);
        assert_eq!(reached[0][1].path, vec![10, 11], "the path runs from the item's entity outward");
    }

    #[test]
    fn reading_direction_either_end() {
        let mut g = graph();
        g.mentions = SortedMap::new();
        g.mentions.insert(m(3), vec![3]);
        let pool = SortedSet::from([m(3)]);
        let (reached, _) = walk(&[vec![m(3)]], &pool, &g, 2);
        assert_eq!(refs(&reached[0]), vec![("mem:2".to_string(), 1), ("mem:1".to_string(), 2), ("mem:4".to_string(), 2)]);
        assert_eq!(reached[0][0].why, Why::Relation("member_of".into()));
        assert_eq!(reached[0][2].path, vec![11, 10]);
    }

    #[test]
    fn the_hop_bound_cuts_and_says_so() {
        let pool = SortedSet::from([m(1)]);
        let (reached, cuts) = walk(&[vec![m(1)]], &pool, &graph(), 1);
        assert_eq!(refs(&reached[0]), vec![("mem:2".to_string(), 1)]);
        assert!(cuts[0].max_hops);
        let (reached, cuts) = walk(&[vec![m(1)]], &pool, &graph(), 0);
        assert!(reached[0].is_empty());
        assert!(cuts[0].max_hops);
    }

    #[test]
    fn an_unbounded_hop_count_ends_when_nothing_is_left_to_expand() {
        let pool = SortedSet::from([m(1)]);
        let (reached, cuts) = walk(&[vec![m(1)]], &pool, &graph(), usize::MAX);
        assert_eq!(refs(&reached[0]), vec![("mem:2".to_string(), 1), ("mem:3".to_string(), 2)]);
        assert!(!cuts[0].max_hops);
    }

    #[test]
    fn reading_one_row_one_place() {
        let mut g = graph();
        g.mentions.insert(m(9), vec![1]);
        // mem:2 is a candidate itself: never evidence; mem:3 goes to the first item only
        let pool = SortedSet::from([m(1), m(2), m(9)]);
        let (reached, _) = walk(&[vec![m(1)], vec![m(9)]], &pool, &g, 2);
        assert_eq!(refs(&reached[0]), vec![("mem:3".to_string(), 2)]);
        assert!(reached[1].is_empty());
    }

    #[test]
    fn reading_is_bounded_and_says_so() {
        let mut g = graph();
        g.records_cut.insert(2);
        let pool = SortedSet::from([m(1)]);
        let (_, cuts) = walk(&[vec![m(1)]], &pool, &g, 1);
        assert!(cuts[0].reading);
    }
}
