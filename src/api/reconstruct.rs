//! `reconstruct`: retrieval read through the declared graph (design §3).

use super::recall::is_zero;
use super::{in_range, scoped_options};
use crate::api::error::Result;
use serde::Serialize;

/// Extra terms stage 1 gives the lexical arm at most: the other names of the entities the
/// query names, in match order, until this many are given. Each term is a search of its
/// own, and a term the trigram index cannot search is a `LIKE` with two bound parameters:
/// a query naming hundreds of entities with 32 aliases each ran past SQLite's 32,766
/// parameters. 256 is eight entities' every alias.
pub const MAX_CUE_TERMS: usize = 256;

/// reconstruct's defaults and caps (SPEC §3): a value past a cap is lowered and `bounds`
/// says what was applied.
pub mod reconstruct_bounds {
    /// Items returned by default, and at most.
    pub const COUNT: (i64, i64) = (10, 50);
    /// Candidate depth by default, and at most.
    pub const TOP_K: (i64, i64) = (20, 100);
    /// Walk hops by default, and at most.
    pub const MAX_HOPS: (i64, i64) = (2, 5);
    /// Claims per item by default, and at most.
    pub const MAX_EVIDENCE: (i64, i64) = (40, 100);
    /// Characters of content by default, and at most.
    pub const BUDGET: (i64, i64) = (6000, 200_000);
}
use reconstruct_bounds::*;

scoped_options! {
    read,
    /// Gathers the evidence for a query: the records that bear on it, grouped into items,
    /// each with its head record's text, the claims behind it (newest first, with why each
    /// is there, including records reached over declared relations) and excerpts, within a
    /// character budget. A bound past its cap is lowered to the cap and `bounds.lowered`
    /// names it.
    pub struct ReconstructOptions {
        /// The question to gather evidence for (not empty), at most 4096 characters. Any text:
        /// punctuation and search-syntax characters are read as text.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_QUERY)))]
        pub query: String,
        /// The query's embedding; turns on vector retrieval. 1–8192 finite numbers.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_DIMENSION)))]
        #[cfg_attr(test, ts(optional, type = "Array<number> | Float32Array | Float64Array"))]
        pub query_embedding: Option<Vec<f32>>,
        /// The model that made `query_embedding`, as stores name it: records stored with a
        /// vector of another model (or none named, when this is given) are skipped and counted.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
        pub query_embedding_model: Option<String>,
        /// Most items returned (default 10, at most 50).
        #[cfg_attr(test, schemars(range(min = 0)))]
        pub count: Option<i64>,
        /// Candidates each retrieval arm contributes before grouping (default 20, at most 100).
        #[cfg_attr(test, schemars(range(min = 1)))]
        pub top_k: Option<i64>,
        /// Declared relations the walk follows from each item's entities (default 2, at most 5).
        #[cfg_attr(test, schemars(range(min = 0)))]
        pub max_hops: Option<i64>,
        /// Most claims kept per item (default 40, at most 100).
        #[cfg_attr(test, schemars(range(min = 1)))]
        pub max_evidence: Option<i64>,
        /// Characters of quoted text, item heads first, then excerpts (default 6000, at most 200000).
        #[cfg_attr(test, schemars(range(min = 1)))]
        pub budget: Option<i64>,
        /// Admit weaker matches among the candidates (halves the admission threshold).
        pub deep: Option<bool>,
        /// Also return the candidate refs, the clusters and the name cues used.
        pub trace: Option<bool>,
        /// Only memories whose source id equals this (episodes are then not read); omitted or
        /// `""`: no filter. At most 256 characters.
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_ID)))]
        pub source_id: Option<String>,
        /// Scores a reranker gave candidates of this query (the package's `rerank` hook
        /// fills it from `trace`'s candidates): see `RerankScore`.
        #[cfg_attr(test, schemars(length(max = super::recall::MAX_RERANK)))]
        pub rerank: Option<Vec<super::RerankScore>>,
    }
}

/// The bounds a reconstruction runs with: each option, or its default, lowered to its cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// Items returned.
    pub count: usize,
    /// Candidate depth of each retrieval arm.
    pub top_k: usize,
    /// Relations the walk follows.
    pub max_hops: usize,
    /// Claims kept per item.
    pub max_evidence: usize,
    /// Characters of quoted content.
    pub budget: usize,
    /// The options that were lowered to their cap, in option order.
    pub lowered: Vec<&'static str>,
}

impl ReconstructOptions {
    /// Checks the query, the embedding and each bound's minimum (a bound has no maximum:
    /// past its cap it is lowered).
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        let embedding = (self.query_embedding.as_deref(), self.query_embedding_model.as_deref());
        super::recall::query(&self.query, self.source_id.as_deref(), embedding)?;
        super::recall::rerank(&self.rerank)?;
        for (field, value, min) in self.bounds() {
            in_range(field, value, min, i64::MAX)?;
        }
        Ok(())
    }

    /// The query vector and its model, when given.
    pub fn query_vector(&self) -> Option<super::QueryVector<'_>> {
        super::recall::query_vector(&self.query_embedding, &self.query_embedding_model)
    }

    /// Each bound: its name, the value given and its minimum.
    fn bounds(&self) -> [(&'static str, Option<i64>, i64); 5] {
        [
            ("count", self.count, 0),
            ("top_k", self.top_k, 1),
            ("max_hops", self.max_hops, 0),
            ("max_evidence", self.max_evidence, 1),
            ("budget", self.budget, 1),
        ]
    }

    /// The bounds applied; call after [`Self::validate`].
    pub fn applied(&self) -> Applied {
        let mut lowered = Vec::new();
        let mut apply = |(field, value, _): (&'static str, Option<i64>, i64), (default, cap): (i64, i64)| {
            let given = value.unwrap_or(default);
            if given > cap {
                lowered.push(field);
            }
            given.clamp(0, cap) as usize
        };
        let [count, top_k, max_hops, max_evidence, budget] = self.bounds();
        Applied {
            count: apply(count, COUNT),
            top_k: apply(top_k, TOP_K),
            max_hops: apply(max_hops, MAX_HOPS),
            max_evidence: apply(max_evidence, MAX_EVIDENCE),
            budget: apply(budget, BUDGET),
            lowered,
        }
    }

    /// The source filter, `""` for none.
    pub fn source_id(&self) -> &str {
        self.source_id.as_deref().unwrap_or_default()
    }

    /// The reranker's scores, by ref; call after [`Self::validate`].
    pub fn rerank(&self) -> Vec<(crate::api::refs::Ref, f64)> {
        super::recall::rerank(&self.rerank).unwrap_or_default()
    }
}

/// What a referenced row is to a claim (the ref is the subject).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct Role {
    /// The referenced row.
    #[serde(rename = "ref")]
    pub reference: String,
    /// `supports`, `supersedes`, `corrects`, `qualifies`, `contradicts`, `temporal_predecessor`.
    pub role: String,
}

/// One record an item stands on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct Claim {
    /// `mem:<id>` or `ep:<id>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// When it holds (its timestamp).
    pub as_of: String,
    /// When it stops holding.
    #[serde(flatten)]
    #[cfg_attr(test, ts(flatten))]
    pub end: super::RecordEnd,
    /// Why it is in the item: absent means `seed` (retrieval found it), `cluster:…` the key
    /// that bundled it, `relation:<predicate>` the last relation the walk followed to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Relations the walk followed to reach it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hops: Option<i64>,
    /// Their relation ids, from the item's own entity outward (`hops` long): the exact
    /// edges a graph view highlights. Absent for a record retrieval found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<i64>>"))]
    pub path: Vec<i64>,
    /// The entity at the end of `path`: its mention of the record brought the record in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via_entity: Option<i64>,
    /// How other rows of the item relate to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<Role>>"))]
    pub roles: Vec<Role>,
}

/// The text of a non-head claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct Excerpt {
    /// The claim's ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Its text.
    pub content: String,
}

/// One reconstructed item: a head record quoted, and the claims it stands on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(rename = "ReconstructedItem", optional_fields))]
pub struct Item {
    /// The head record's text (cut to the budget when it had to be).
    pub content: String,
    /// The head record.
    pub head_ref: String,
    /// Every retained claim, newest first.
    pub claims: Vec<Claim>,
    /// Claims past `max_evidence`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims_omitted: Option<i64>,
    /// The cluster key that formed the item (`cluster:episode`, `cluster:adjacent`,
    /// `cluster:relation`); absent means `singleton`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub independence_reason: Option<&'static str>,
    /// `whole`, or `truncated` when the budget cut the head (with `trace` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote_basis: Option<QuoteBasis>,
    /// Character ranges of the head record that `content` quotes.
    pub ranges: Vec<[usize; 2]>,
    /// The other claims' texts, as far as the budget allowed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<Excerpt>>"))]
    pub excerpts: Vec<Excerpt>,
    /// Excerpts the budget left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpts_omitted: Option<i64>,
}

/// How much of its head record an item quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub enum QuoteBasis {
    /// All of it.
    Whole,
    /// A part: the budget cut it.
    Truncated,
}

/// Why a reconstruction returned fewer items than its count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub enum Shortfall {
    /// No candidate was admitted.
    NoRelevantEvidence,
    /// The budget was spent before the count was reached.
    BudgetExhausted,
    /// The candidates made fewer items than the count.
    ExhaustedCandidates,
}

/// The bounds reconstruct applied, and what they cut.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ReconstructBounds {
    /// Candidate depth applied.
    pub top_k: i64,
    /// Hops applied.
    pub max_hops: i64,
    /// Claims per item applied.
    pub max_evidence: i64,
    /// Bounds that cut something: `max_hops`, `max_evidence`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(type = r#"("max_hops" | "max_evidence")[]"#), schemars(extend("items" = {"enum": ["max_hops", "max_evidence"]})))]
    pub omitted: Vec<&'static str>,
    /// Bounds that were met where what lay beyond is not known: `max_evidence`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(type = r#""max_evidence"[]"#), schemars(extend("items" = {"enum": ["max_evidence"]})))]
    pub reached: Vec<&'static str>,
    /// Options that were lowered to their cap.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(type = r#"("count" | "top_k" | "max_hops" | "max_evidence" | "budget")[]"#), schemars(extend("items" = {"enum": ["count", "top_k", "max_hops", "max_evidence", "budget"]})))]
    pub lowered: Vec<&'static str>,
    /// Relations around the candidates and the walk left out because they did not hold at
    /// the read's instant (`as_of`, or now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_holding: Option<i64>,
}

/// Stage 1's cues: the entities the query named and the terms they added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct Cues {
    /// Names of the entities whose name or alias the query contains.
    pub entities: Vec<String>,
    /// Their other names, handed to the lexical arm.
    pub terms: Vec<String>,
}

/// What reconstruct did, step by step (`trace: true`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct Trace {
    /// Candidates retrieval admitted, most relevant first.
    pub candidate_refs: Vec<String>,
    /// Clusters in item order.
    pub clusters: Vec<Vec<String>>,
    /// Stage 1's cues.
    pub cues: Cues,
    /// Rows the admission threshold left out (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gated: usize,
}

/// The response of `reconstruct`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(optional_fields))]
pub struct ReconstructResponse {
    /// The items, most relevant first.
    pub items: Vec<Item>,
    /// The item count applied.
    pub effective_count: i64,
    /// `items.len()`.
    pub returned_count: usize,
    /// Bounds applied, when one cut something, was lowered, the read's instant left relations
    /// out, or `trace` asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bounds: Option<ReconstructBounds>,
    /// Why fewer items than `effective_count` came back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shortfall_reason: Option<Shortfall>,
    /// The budget applied, when it cut something or `trace` asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_budget: Option<i64>,
    /// Characters quoted, when the budget cut something or `trace` asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_budget: Option<i64>,
    /// Steps of the reconstruction, with `trace: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
}
