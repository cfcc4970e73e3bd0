//! Stage 2 — bundling: candidates joined by deterministic keys into clusters, each of
//! which becomes one item. Keys, in order: same episode (a memory whose timestamp lies in
//! a candidate episode's span, same project and channel), adjacent rows of one source
//! (same source type and id, project and channel, within [`ADJACENCY_SECONDS`] of the
//! burst's first row), and a declared record → record relation between two candidates.
//! Sharing an entity never bundles: every record that mentions a project's name would
//! otherwise fold into one item.

use crate::refs::{Kind, Ref};
use std::collections::BTreeMap;

/// The adjacency window, from the first row of a burst.
pub const ADJACENCY_SECONDS: i64 = 60;

/// The cluster keys, strongest first; an item's `independence_reason` is the strongest
/// key among its rows.
pub const CLUSTER_KEYS: [&str; 3] = ["cluster:episode", "cluster:adjacent", "cluster:relation"];

/// What bundling reads of a candidate.
#[derive(Debug, Clone)]
pub struct Member {
    /// The record.
    pub at: Ref,
    /// Its timestamp in epoch ms, when it has a valid one.
    pub ts: Option<i64>,
    /// `(type, id)` of its source; episodes have none.
    pub source: Option<(String, String)>,
    /// `(project, channel)`.
    pub context: (String, String),
    /// An episode's span in epoch ms.
    pub span: Option<(i64, i64)>,
}

/// A declared record → record relation: subject, predicate, object.
pub type Link = (Ref, String, Ref);

/// Clusters (member indexes, each ascending) in the order of their best member, and the
/// key that joined each bundled member (`cluster:…` or `relation:<predicate>`).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Bundling {
    /// Clusters in item order.
    pub clusters: Vec<Vec<usize>>,
    /// Member index → why it was bundled.
    pub why: BTreeMap<usize, String>,
}

struct Union {
    parent: Vec<usize>,
    why: BTreeMap<usize, String>,
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
    fn union(&mut self, a: usize, b: usize, why: &str) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
        }
        for i in [a, b] {
            self.why.entry(i).or_insert_with(|| why.to_owned());
        }
    }
}

/// Stage 2 over candidates in relevance order.
pub fn bundle(members: &[Member], links: &[Link]) -> Bundling {
    let mut u = Union { parent: (0..members.len()).collect(), why: BTreeMap::new() };
    let episode = |m: &Member| m.at.kind == Kind::Ep;
    for (e, ep) in members.iter().enumerate().filter(|(_, m)| episode(m)) {
        let Some((start, end)) = ep.span else { continue };
        for (m, mem) in members.iter().enumerate().filter(|(_, m)| !episode(m)) {
            if mem.context == ep.context && mem.ts.is_some_and(|t| start <= t && t <= end) {
                u.union(e, m, "cluster:episode");
            }
        }
    }
    // (source type and id, project and channel) → members, for the adjacency key
    type Burst<'m> = (&'m (String, String), &'m (String, String));
    let mut by_source: BTreeMap<Burst, Vec<usize>> = BTreeMap::new();
    for (i, m) in members.iter().enumerate() {
        if let (Some(source), Some(_)) = (&m.source, m.ts) {
            if !source.1.is_empty() {
                by_source.entry((source, &m.context)).or_default().push(i);
            }
        }
    }
    for (_, mut group) in by_source {
        crate::sort::sort_by_key(&mut group, |&i| (members[i].ts, episode(&members[i]), members[i].at));
        let mut anchor = group[0];
        for &next in &group[1..] {
            if members[next].ts.unwrap_or(0) - members[anchor].ts.unwrap_or(0) <= ADJACENCY_SECONDS * 1000 {
                u.union(anchor, next, "cluster:adjacent");
            } else {
                anchor = next;
            }
        }
    }
    let index: BTreeMap<Ref, usize> = members.iter().enumerate().map(|(i, m)| (m.at, i)).collect();
    for (subject, predicate, object) in links {
        if let (Some(&s), Some(&o)) = (index.get(subject), index.get(object)) {
            u.union(s, o, &format!("relation:{predicate}"));
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..members.len() {
        let root = u.find(i);
        groups.entry(root).or_default().push(i);
    }
    // A root is its cluster's lowest index, that is its most relevant member.
    Bundling { clusters: groups.into_values().collect(), why: u.why }
}

/// The `independence_reason` of a cluster: its strongest key, or `None` for a singleton.
pub fn independence(whys: impl Iterator<Item = String>) -> Option<&'static str> {
    let keys: Vec<&str> = whys
        .map(
            |w| if w.starts_with("relation:") { "cluster:relation" } else { CLUSTER_KEYS.iter().find(|k| **k == w).copied().unwrap_or("") },
        )
        .collect();
    CLUSTER_KEYS.iter().copied().find(|k| keys.contains(k))
}
