//! Stage 4 — structuring: one cluster and what the walk reached for it become one item.
//! Nothing is summarised and no text is merged: `content` is the head record verbatim.

use super::bundle::{independence, Link};
use super::walk::Reached;
use super::Why;
use crate::api::refs::Kind;
use crate::api::{Claim, Role};
use crate::storage::records::Record;

/// The role vocabulary: a declared record → record relation with one of these predicates
/// is read as that role, in the vocabulary's direction (the referenced row is the subject).
pub const ROLE_VOCABULARY: [&str; 6] = ["supports", "supersedes", "corrects", "qualifies", "contradicts", "temporal_predecessor"];

/// A record of an item as structuring reads it: the record itself, borrowed from the
/// stage that read it, and what the stages said of it.
#[derive(Debug, Clone, Copy)]
pub struct Member<'a> {
    /// The record.
    pub record: &'a Record,
    /// Relevance rank (0 = most relevant); reached records come after every candidate.
    pub rank: usize,
    /// Why it is in the item: `None` for a seed.
    pub why: Option<&'a Why>,
    /// The relation ids the walk followed to it, one per hop (empty unless it reached the record).
    pub path: &'a [i64],
    /// The entity at the end of `path`, whose mention of the record brought it in.
    pub via_entity: Option<i64>,
}

impl<'a> Member<'a> {
    /// A candidate at relevance `rank`, and why bundling put it in its cluster.
    pub fn candidate(record: &'a Record, rank: usize, why: Option<&'a Why>) -> Self {
        Member { record, rank, why, path: &[], via_entity: None }
    }

    /// A record the walk reached, after every candidate.
    pub fn reached((record, reached): &'a (Record, Reached)) -> Self {
        Member { record, rank: usize::MAX, why: Some(&reached.why), path: &reached.path, via_entity: Some(reached.entity) }
    }

    /// Whether it is an episode.
    pub fn episode(&self) -> bool {
        self.record.at.kind == Kind::Ep
    }
}

/// An item before the budget quotes it.
#[derive(Debug, Clone)]
pub struct Draft<'a> {
    /// The head record.
    pub head: &'a Record,
    /// Retained claims, newest first.
    pub claims: Vec<Claim>,
    /// The other retained records, in excerpt order: bundled records by relevance, then
    /// reached records in the walk's order.
    pub others: Vec<&'a Record>,
    /// Claims past `max_evidence`.
    pub omitted: i64,
    /// The cluster key that formed it.
    pub independence: Option<&'static str>,
}

/// The total order of claims: newest first, memories before episodes, then relevance,
/// then id.
fn claim_order(m: &Member) -> (bool, i64, bool, usize, i64) {
    let (r, ts) = (m.record, m.record.ts());
    (ts.is_none(), -ts.unwrap_or(0), m.episode(), m.rank, r.at.id)
}

/// The roles other retained records play for `claim`.
fn roles(claim: &Record, retained: &[&Member], links: &[Link]) -> Vec<Role> {
    let mut out: Vec<Role> = Vec::new();
    if claim.at.kind != Kind::Ep {
        for ep in retained.iter().filter(|m| m.episode()).map(|m| m.record) {
            if let (Some((start, end)), Some(ts)) = (ep.span, claim.ts()) {
                if ep.context == claim.context && start <= ts && ts <= end {
                    out.push(Role { reference: ep.at.to_string(), role: "supports".into() });
                }
            }
        }
    }
    for (subject, predicate, object) in links {
        if *object == claim.at && ROLE_VOCABULARY.contains(&predicate.as_str()) && retained.iter().any(|m| m.record.at == *subject) {
            let role = Role { reference: subject.to_string(), role: predicate.clone() };
            if !out.contains(&role) {
                out.push(role);
            }
        }
    }
    out
}

/// Builds one item from its cluster's members (relevance order) and the records the walk
/// reached.
pub fn structure<'a>(members: Vec<Member<'a>>, reached: Vec<Member<'a>>, max_evidence: usize, links: &[Link]) -> Draft<'a> {
    let independence = independence(members.iter().filter_map(|m| m.why));
    let mut rows = members.into_iter().chain(reached);
    let head = rows.next().expect("a cluster has a member");
    let rest: Vec<Member> = rows.collect();
    let total = 1 + rest.len();
    let others: Vec<Member> = rest.into_iter().take(max_evidence.saturating_sub(1)).collect();
    let omitted = total.saturating_sub(max_evidence) as i64;
    let mut retained: Vec<&Member> = std::iter::once(&head).chain(&others).collect();
    crate::base::sort::sort_by_key(&mut retained, |r| claim_order(r));
    let claims = retained
        .iter()
        .map(|r| Claim {
            reference: r.record.at.to_string(),
            as_of: r.record.timestamp.clone(),
            end: r.record.end.clone(),
            why: r.why.map(Why::to_string),
            hops: (!r.path.is_empty()).then_some(r.path.len() as i64),
            path: r.path.to_vec(),
            via_entity: r.via_entity,
            roles: roles(r.record, &retained, links),
        })
        .collect();
    Draft { head: head.record, claims, others: others.iter().map(|m| m.record).collect(), omitted, independence }
}
