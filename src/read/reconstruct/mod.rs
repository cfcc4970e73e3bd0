//! `reconstruct` (design §3): retrieval read through the declared graph, in four stages —
//! [`candidates`] (alias cues for the lexical arm), [`bundle`] (clusters by stored keys and
//! declared record relations), [`walk`] (evidence reached over entity relations, a pure
//! function called once) and [`structure`] (items with claims, roles and excerpts) — then
//! the character [`budget`]. [`load`] holds what the stages read from the database.

pub mod budget;
pub mod bundle;
pub mod candidates;
pub mod load;
pub mod structure;
pub mod walk;

use crate::api::error::Result;
use crate::api::refs::Ref;
use crate::api::{Applied, Cues, ReconstructBounds, ReconstructOptions, ReconstructResponse, Shortfall, Trace};
use crate::base::as_of::AsOf;
use crate::base::scope::ReadScope;
use crate::base::sorted::{SortedMap, SortedSet};
use crate::indexes::declared::Declared;
use crate::indexes::lexical::LexicalIndex;
use crate::indexes::names::NameIndex;
use crate::indexes::vectors::VectorIndex;
use crate::read::recall::{retrieve, Request};
use crate::storage::records::Record;
use rusqlite::Connection;
use std::fmt;
use structure::{Draft, Member};

/// Why a record is in its item besides retrieval finding it: the key that bundled it
/// (stage 2) or the relation the walk reached it over (stage 3). A record retrieval found
/// has none (`seed` in a trace). Responses spell it as [`Display`](fmt::Display) writes
/// it. The variants are declared strongest key first, so the least of an item's is its
/// `independence_reason` ([`bundle::independence`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Why {
    /// A memory whose timestamp lies in a candidate episode's span: `cluster:episode`.
    Episode,
    /// A row of a burst of one source: `cluster:adjacent`.
    Adjacent,
    /// A declared relation, by its predicate: `relation:<predicate>`. Bundled by one
    /// between two candidates (its key is `cluster:relation`), or reached over one.
    Relation(String),
}

impl Why {
    /// The cluster key a record bundled for this reason forms.
    pub fn cluster_key(&self) -> &'static str {
        match self {
            Why::Episode => "cluster:episode",
            Why::Adjacent => "cluster:adjacent",
            Why::Relation(_) => "cluster:relation",
        }
    }
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Relation(predicate) => write!(f, "relation:{predicate}"),
            key => f.write_str(key.cluster_key()),
        }
    }
}

/// Runs `reconstruct` on validated options, at the clock's `now_ms`.
pub fn reconstruct(
    conn: &Connection,
    vectors: &VectorIndex,
    lexical: &LexicalIndex,
    names: &NameIndex,
    declared: Declared,
    opts: &ReconstructOptions,
    now_ms: i64,
) -> Result<ReconstructResponse> {
    let call =
        Call { conn, vectors, lexical, names, opts, scope: opts.scope(), as_of: opts.as_of(now_ms), bounds: opts.applied(), declared };
    let found = call.candidates()?;
    let bundled = call.bundle(&found)?;
    let walked = call.walk(&found, &bundled)?;
    let drafts = call.structure(&found, &bundled, &walked);
    let not_holding = bundled.not_holding.len() + walked.not_holding.len();
    Ok(call.respond(&found, &bundled, &walked.cuts, not_holding, &drafts))
}

/// What every stage of one call shares.
struct Call<'a> {
    conn: &'a Connection,
    /// The vector arm's index (`crate::indexes::vectors`).
    vectors: &'a VectorIndex,
    /// The lexical arm's text (`crate::indexes::lexical`).
    lexical: &'a LexicalIndex,
    /// The entity names stage 1 matches (`crate::indexes::names`).
    names: &'a NameIndex,
    opts: &'a ReconstructOptions,
    scope: ReadScope,
    /// The instant the call reads at: what retrieval ranks, the relations the walk follows
    /// and the records it reaches.
    as_of: AsOf,
    bounds: Applied,
    /// Whether the database has the association tables, and any relation and mention.
    declared: Declared,
}

/// Stage 1's output: the candidates, most relevant first (a candidate's index is its
/// relevance rank), as retrieval read them. Every later stage refers to them by index.
struct Found {
    cue: candidates::Cue,
    records: Vec<Record>,
    /// Rows the gate left out.
    gated: usize,
}

impl Found {
    fn pool(&self) -> SortedSet<Ref> {
        SortedSet::from_iter(self.records.iter().map(|r| r.at))
    }
}

/// Stage 2's output.
struct Bundled {
    links: Vec<bundle::Link>,
    /// Clusters of candidate indexes, in item order.
    clusters: Vec<Vec<usize>>,
    /// Candidate index → why it was bundled.
    why: SortedMap<usize, Why>,
    /// Record → record relations between candidates that did not hold at the instant.
    not_holding: SortedSet<i64>,
}

impl Bundled {
    /// The clusters the count window holds: the items.
    fn window(&self, count: usize) -> &[Vec<usize>] {
        &self.clusters[..self.clusters.len().min(count)]
    }
}

/// Stage 3's output, per item of the window.
struct Walked {
    /// The records the walk reached, as read, each with how it was reached.
    reached: Vec<Vec<(Record, walk::Reached)>>,
    cuts: Vec<walk::Cuts>,
    /// Entity → entity relations around the walk that did not hold at the instant.
    not_holding: SortedSet<i64>,
}

impl Call<'_> {
    /// Stage 1: the query's alias cues, then retrieval with them.
    fn candidates(&self) -> Result<Found> {
        let opts = self.opts;
        let cue = if self.declared.tables {
            candidates::cue(self.conn, self.names, &self.scope, &opts.query)?
        } else {
            candidates::Cue::default()
        };
        let deep = opts.deep.unwrap_or(false);
        let request = Request {
            extra_terms: cue.normalized_terms.clone(),
            rerank: opts.rerank(),
            ..Request::new(
                &self.scope,
                opts.source_id(),
                &opts.query,
                opts.query_vector(),
                self.bounds.top_k,
                deep,
                self.vectors,
                self.lexical,
            )
        };
        let retrieval = retrieve(self.conn, &request, self.bounds.top_k, &self.as_of)?;
        // Retrieval read each record in this scope: they are the candidates, ranked as
        // admitted, without reading them again.
        Ok(Found { cue, records: retrieval.admitted, gated: retrieval.gated })
    }

    /// Stage 2: clusters, and why each bundled candidate is in its cluster.
    fn bundle(&self, found: &Found) -> Result<Bundled> {
        let (links, not_holding) =
            if self.declared.relations { load::links(self.conn, &self.scope, &self.as_of, &found.pool())? } else { Default::default() };
        let bundling = bundle::bundle(&found.records, &links);
        Ok(Bundled { links, clusters: bundling.clusters, why: bundling.why, not_holding })
    }

    /// Stage 3: the walk from each item's candidates, and the records it reached, read.
    fn walk(&self, found: &Found, bundled: &Bundled) -> Result<Walked> {
        let starts: Vec<Vec<Ref>> =
            bundled.window(self.bounds.count).iter().map(|c| c.iter().map(|&i| found.records[i].at).collect()).collect();
        let all_starts: Vec<Ref> = starts.iter().flatten().copied().collect();
        let pool = found.pool();
        let graph = if all_starts.is_empty() || !self.declared.mentions {
            walk::Graph::default()
        } else {
            load::graph(self.conn, &self.scope, &self.as_of, self.opts.source_id(), &self.bounds, &all_starts, &pool)?
        };
        let (reached, cuts) = walk::walk(&starts, &pool, &graph, self.bounds.max_hops);
        let records = crate::storage::records::Reader::new(self.conn, &self.scope).read_many(reached.iter().flatten().map(|r| r.at))?;
        let mut read = Vec::with_capacity(reached.len());
        for reached in reached {
            let got = load::records(&records, reached.iter().map(|r| r.at));
            read.push(got.into_iter().zip(reached).collect());
        }
        Ok(Walked { reached: read, cuts, not_holding: graph.not_holding })
    }

    /// Stage 4: one item per cluster of the window, with what the walk reached for it.
    fn structure<'s>(&self, found: &'s Found, bundled: &'s Bundled, walked: &'s Walked) -> Vec<Draft<'s>> {
        bundled
            .window(self.bounds.count)
            .iter()
            .zip(&walked.reached)
            .map(|(cluster, reached)| {
                let members: Vec<Member> = cluster.iter().map(|&i| Member::candidate(&found.records[i], i, bundled.why.get(&i))).collect();
                let walked: Vec<Member> = reached.iter().map(Member::reached).collect();
                structure::structure(members, walked, self.bounds.max_evidence, &bundled.links)
            })
            .collect()
    }

    /// The budget, then the response: bounds, shortfall and trace.
    fn respond(&self, found: &Found, bundled: &Bundled, cuts: &[walk::Cuts], not_holding: usize, drafts: &[Draft]) -> ReconstructResponse {
        let (bounds, trace) = (&self.bounds, self.opts.trace.unwrap_or(false));
        let quoted = budget::quote(drafts, bounds.budget, trace);
        let mut omitted = Vec::new();
        if cuts.iter().any(|c| c.max_hops) {
            omitted.push("max_hops");
        }
        if quoted.items.iter().any(|i| i.claims_omitted.is_some()) {
            omitted.push("max_evidence");
        }
        let reached = if cuts.iter().any(|c| c.reading) { vec!["max_evidence"] } else { Vec::new() };
        let show_bounds = trace || !omitted.is_empty() || !reached.is_empty() || !bounds.lowered.is_empty() || not_holding > 0;
        let returned = quoted.items.len();
        let shortfall = if returned >= bounds.count {
            None
        } else if returned == 0 && found.records.is_empty() {
            Some(Shortfall::NoRelevantEvidence)
        } else if quoted.cut {
            Some(Shortfall::BudgetExhausted)
        } else {
            Some(Shortfall::ExhaustedCandidates)
        };
        let refs = |rows: &mut dyn Iterator<Item = &usize>| rows.map(|&i| found.records[i].at.to_string()).collect::<Vec<_>>();
        ReconstructResponse {
            effective_count: bounds.count as i64,
            returned_count: returned,
            bounds: show_bounds.then(|| ReconstructBounds {
                top_k: bounds.top_k as i64,
                max_hops: bounds.max_hops as i64,
                max_evidence: bounds.max_evidence as i64,
                omitted,
                reached,
                lowered: bounds.lowered.clone(),
                not_holding: (not_holding > 0).then_some(not_holding as i64),
            }),
            shortfall_reason: shortfall,
            effective_budget: (trace || quoted.cut).then_some(bounds.budget as i64),
            used_budget: (trace || quoted.cut).then_some(quoted.used as i64),
            trace: trace.then(|| Trace {
                candidate_refs: found.records.iter().map(|r| r.at.to_string()).collect(),
                clusters: bundled.clusters.iter().map(|c| refs(&mut c.iter())).collect(),
                cues: Cues { entities: found.cue.entities.clone(), terms: found.cue.terms.clone() },
                gated: found.gated,
            }),
            items: quoted.items,
        }
    }
}
