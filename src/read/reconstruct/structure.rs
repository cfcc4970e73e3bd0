//! Stage 4 — structuring: one cluster and what the walk reached for it become one item.
//! Nothing is summarised and no text is merged: `content` is the head record verbatim.

use super::bundle::{independence, Link};
use crate::api::refs::{Kind, Ref};
use crate::api::{Claim, Role};
use crate::base::clock::parse_iso;
use crate::storage::records::Record;

/// The role vocabulary: a declared record → record relation with one of these predicates
/// is read as that role, in the vocabulary's direction (the referenced row is the subject).
pub const ROLE_VOCABULARY: [&str; 6] = ["supports", "supersedes", "corrects", "qualifies", "contradicts", "temporal_predecessor"];

/// A record as the item reads it.
#[derive(Debug, Clone)]
pub struct Row {
    /// The record.
    pub at: Ref,
    /// Its text.
    pub content: String,
    /// Its timestamp as stored.
    pub timestamp: String,
    /// The timestamp in epoch ms.
    pub ts: Option<i64>,
    /// `(project, channel)`.
    pub context: (String, String),
    /// An episode's span in epoch ms.
    pub span: Option<(i64, i64)>,
    /// Relevance rank (0 = most relevant); reached rows come after every candidate.
    pub rank: usize,
    /// Why it is in the item: `None` for a seed, `cluster:…`, or `relation:<predicate>`.
    pub why: Option<String>,
    /// The relation ids the walk followed to it, one per hop (empty unless it reached the row).
    pub path: Vec<i64>,
    /// The entity at the end of `path`, whose mention of the row brought it in.
    pub via_entity: Option<i64>,
}

impl Row {
    /// A record at relevance `rank`, before stage 2 and 3 say why it is in an item.
    pub fn new(record: Record, rank: usize) -> Row {
        Row {
            at: record.at,
            content: record.content,
            ts: parse_iso(&record.timestamp),
            timestamp: record.timestamp,
            context: record.context,
            span: record.span,
            rank,
            why: None,
            path: Vec::new(),
            via_entity: None,
        }
    }

    /// Whether it is an episode.
    pub fn episode(&self) -> bool {
        self.at.kind == Kind::Ep
    }
}

/// An item before the budget quotes it.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The head row.
    pub head: Row,
    /// Retained claims, newest first.
    pub claims: Vec<Claim>,
    /// The other retained rows, in excerpt order: bundled rows by relevance, then reached
    /// rows in the walk's order.
    pub others: Vec<Row>,
    /// Claims past `max_evidence`.
    pub omitted: i64,
    /// The cluster key that formed it.
    pub independence: Option<&'static str>,
}

/// The total order of claims: newest first, memories before episodes, then relevance,
/// then id.
fn claim_order(r: &Row) -> (bool, i64, bool, usize, i64) {
    (r.ts.is_none(), -r.ts.unwrap_or(0), r.episode(), r.rank, r.at.id)
}

/// The roles other retained rows play for `claim`.
fn roles(claim: &Row, retained: &[&Row], links: &[Link]) -> Vec<Role> {
    let mut out: Vec<Role> = Vec::new();
    if !claim.episode() {
        for ep in retained.iter().filter(|r| r.episode()) {
            if let (Some((start, end)), Some(ts)) = (ep.span, claim.ts) {
                if ep.context == claim.context && start <= ts && ts <= end {
                    out.push(Role { reference: ep.at.to_string(), role: "supports".into() });
                }
            }
        }
    }
    for (subject, predicate, object) in links {
        if *object == claim.at && ROLE_VOCABULARY.contains(&predicate.as_str()) && retained.iter().any(|r| r.at == *subject) {
            let role = Role { reference: subject.to_string(), role: predicate.clone() };
            if !out.contains(&role) {
                out.push(role);
            }
        }
    }
    out
}

/// Builds one item from its cluster's rows (relevance order) and the rows the walk reached.
pub fn structure(members: Vec<Row>, reached: Vec<Row>, max_evidence: usize, links: &[Link]) -> Draft {
    let independence = independence(members.iter().filter_map(|m| m.why.clone()));
    let mut rows = members.into_iter().chain(reached);
    let head = rows.next().expect("a cluster has a member");
    let rest: Vec<Row> = rows.collect();
    let total = 1 + rest.len();
    let others: Vec<Row> = rest.into_iter().take(max_evidence.saturating_sub(1)).collect();
    let omitted = total.saturating_sub(max_evidence) as i64;
    let mut retained: Vec<&Row> = std::iter::once(&head).chain(&others).collect();
    crate::base::sort::sort_by_key(&mut retained, |r| claim_order(r));
    let claims = retained
        .iter()
        .map(|r| Claim {
            reference: r.at.to_string(),
            as_of: r.timestamp.clone(),
            why: r.why.clone(),
            hops: (!r.path.is_empty()).then_some(r.path.len() as i64),
            path: r.path.clone(),
            via_entity: r.via_entity,
            roles: roles(r, &retained, links),
        })
        .collect();
    Draft { head, claims, others, omitted, independence }
}
