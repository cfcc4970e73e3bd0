//! Stage 2 — bundling: candidates joined by deterministic keys into clusters, each of
//! which becomes one item. Keys, in order: same episode (a memory whose timestamp lies in
//! a candidate episode's span, same project and channel), adjacent rows of one source
//! (same source type and id, project and channel, within [`ADJACENCY_SECONDS`] of the
//! burst's first row), and a declared record → record relation between two candidates.
//! Sharing an entity never bundles: every record that mentions a project's name would
//! otherwise fold into one item.

use super::Why;
use crate::api::refs::{Kind, Ref};
use crate::base::sorted::SortedMap;
use crate::storage::records::Record;

/// The adjacency window, from the first row of a burst.
pub const ADJACENCY_SECONDS: i64 = 60;

/// A declared record → record relation: subject, predicate, object.
pub type Link = (Ref, String, Ref);

/// Clusters (member indexes, each ascending) in the order of their best member, and the
/// key that joined each bundled member.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Bundling {
    /// Clusters in item order.
    pub clusters: Vec<Vec<usize>>,
    /// Member index → why it was bundled.
    pub why: SortedMap<usize, Why>,
}

struct Union {
    parent: Vec<usize>,
    why: SortedMap<usize, Why>,
}

impl Union {
    fn find(&mut self, i: usize) -> usize {
        let mut root = i;
        while self.parent[root] != root {
            root = self.parent[root];
        }
        self.parent[i] = root;
        root
    }
    fn union(&mut self, a: usize, b: usize, why: &Why) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
        }
        for i in [a, b] {
            self.why.entry(i).or_insert_with(|| why.clone());
        }
    }
}

/// Stage 2 over candidates in relevance order.
pub fn bundle(members: &[Record], links: &[Link]) -> Bundling {
    let mut u = Union { parent: (0..members.len()).collect(), why: SortedMap::new() };
    let episode = |m: &Record| m.at.kind == Kind::Ep;
    for (e, ep) in members.iter().enumerate().filter(|(_, m)| episode(m)) {
        let Some((start, end)) = ep.span else { continue };
        for (m, mem) in members.iter().enumerate().filter(|(_, m)| !episode(m)) {
            if mem.context == ep.context && mem.ts().is_some_and(|t| start <= t && t <= end) {
                u.union(e, m, &Why::Episode);
            }
        }
    }
    // A source's `(type, id)` is read only where the adjacency key could use it: for a member
    // with another member of its context, with a source, within the window. Parsing every
    // candidate's source was 6 % of a 1k reconstruct in wasm (`--cpu-prof`).
    let within = |a: &Record, b: &Record| {
        matches!((a.ts(), b.ts()), (Some(x), Some(y)) if (x - y).abs() <= ADJACENCY_SECONDS * 1000) && a.context == b.context
    };
    let keys: Vec<Option<(String, String)>> = members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let near = members.iter().enumerate().any(|(j, o)| j != i && o.source.is_some() && within(m, o));
            m.source.as_deref().filter(|_| near).and_then(source_key)
        })
        .collect();
    // (source type and id, project and channel) → members, for the adjacency key
    type Burst<'m> = (&'m (String, String), &'m (String, String));
    let mut by_source: SortedMap<Burst, Vec<usize>> = SortedMap::new();
    for (i, m) in members.iter().enumerate() {
        if let (Some(source), Some(_)) = (&keys[i], m.ts()) {
            if !source.1.is_empty() {
                by_source.entry((source, &m.context)).or_default().push(i);
            }
        }
    }
    for (_, mut group) in by_source {
        crate::base::sort::sort_by_key(&mut group, |&i| (members[i].ts(), episode(&members[i]), members[i].at));
        let mut anchor = group[0];
        for &next in &group[1..] {
            if members[next].ts().unwrap_or(0) - members[anchor].ts().unwrap_or(0) <= ADJACENCY_SECONDS * 1000 {
                u.union(anchor, next, &Why::Adjacent);
            } else {
                anchor = next;
            }
        }
    }
    let index: SortedMap<Ref, usize> = SortedMap::from_iter(members.iter().enumerate().map(|(i, m)| (m.at, i)));
    for (subject, predicate, object) in links {
        if let (Some(&s), Some(&o)) = (index.get(subject), index.get(object)) {
            u.union(s, o, &Why::Relation(predicate.clone()));
        }
    }
    let mut groups: SortedMap<usize, Vec<usize>> = SortedMap::new();
    for i in 0..members.len() {
        let root = u.find(i);
        groups.entry(root).or_default().push(i);
    }
    // A root is its cluster's lowest index, that is its most relevant member.
    Bundling { clusters: groups.into_values().collect(), why: u.why }
}

/// `(type, id)` of a stored source, each a string as it is or another value's JSON text
/// (empty when absent); none when the text is not JSON.
fn source_key(stored: &str) -> Option<(String, String)> {
    let s: serde_json::Value = serde_json::from_str(stored).ok()?;
    let field = |k: &str| s.get(k).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).unwrap_or_default();
    Some((field("type"), field("id")))
}

/// The `independence_reason` of a cluster: the strongest key among why its members were
/// bundled (episode, then adjacent, then relation), or `None` for a singleton.
pub fn independence<'w>(whys: impl Iterator<Item = &'w Why>) -> Option<&'static str> {
    whys.min().map(Why::cluster_key)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn member(id: i64, ts: i64, source: &str) -> Record {
        Record {
            at: Ref { kind: Kind::Mem, id },
            content: String::new(),
            timestamp: String::new(),
            epoch_ms: Some(ts).into(),
            source: Some(source.into()),
            metadata: None,
            context: Default::default(),
            span: None,
            end: Default::default(),
        }
    }

    /// Rows of one source within the window of the burst's first row bundle, whatever the
    /// rest of their stored source; a row just past it, or of another source, does not.
    #[test]
    fn adjacency_reads_the_sources_of_rows_within_the_window() {
        let user = r#"{"type":"User","id":"u","name":"U"}"#;
        let members = [
            member(1, 0, user),
            member(2, 60_000, r#"{"id": "u", "type": "User"}"#),
            member(3, 120_001, user),
            member(4, 120_500, r#"{"type":"User","id":"v","name":"U"}"#),
            member(5, 500_000, "not json"),
            member(6, 900_000, user),
        ];
        let b = bundle(&members, &[]);
        assert_eq!(b.clusters, [vec![0, 1], vec![2], vec![3], vec![4], vec![5]]);
        assert_eq!(b.why, SortedMap::from([(0, Why::Adjacent), (1, Why::Adjacent)]));
    }
}
