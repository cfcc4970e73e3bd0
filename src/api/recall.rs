//! `recall`: ranked records for a query (SPEC §4).

use super::{embedding, in_range, nonempty, optional_text, scoped_options, text, MAX_ID, MAX_QUERY};
use crate::api::error::Result;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Messages recall returns: by default, and at most.
pub const RECALL_LIMIT: (i64, i64) = (10, 100);

/// Reranker scores one recall or reconstruct may carry: as many candidates as either reads.
pub const MAX_RERANK: usize = 100;

scoped_options! {
    read,
    /// Searches the memory for the records that answer a query: lexical matching, and
    /// vector similarity when a query embedding is given, fused into one order. Returns
    /// messages with their ref, text, source, time and why each matched. Declared
    /// associations never change what recall returns.
    pub struct RecallOptions {
        /// What to look for (not empty), at most 4096 characters. Any text: punctuation and
        /// search-syntax characters are read as text.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_QUERY)))]
        pub query: String,
        /// The query's embedding; turns on vector retrieval over records stored with an
        /// embedding of the same model and dimension. 1–8192 finite numbers.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_DIMENSION)))]
        #[cfg_attr(test, ts(optional, type = "Array<number> | Float32Array | Float64Array"))]
        pub query_embedding: Option<Vec<f32>>,
        /// The model that made `query_embedding`, as stores name it: records stored with a
        /// vector of another model (or none named, when this is given) are skipped and counted.
        #[cfg_attr(test, schemars(length(min = 1, max = crate::api::MAX_ID)))]
        pub query_embedding_model: Option<String>,
        /// Most messages returned, 1–100 (default 10).
        #[cfg_attr(test, schemars(range(min = 1, max = RECALL_LIMIT.1)))]
        pub limit: Option<i64>,
        /// Admit weaker matches too (halves the admission threshold).
        pub deep: Option<bool>,
        /// Only memories whose source id equals this (episodes, which have no source, are
        /// then not read); omitted or `""`: no filter. At most 256 characters.
        #[cfg_attr(test, schemars(length(max = crate::api::MAX_ID)))]
        pub source_id: Option<String>,
        /// Scores a reranker gave candidates of this query (the package's `rerank` hook
        /// fills it): see `RerankScore`.
        #[cfg_attr(test, schemars(length(max = MAX_RERANK)))]
        pub rerank: Option<Vec<RerankScore>>,
    }
}

/// A reranker's score for one candidate of a query, on `recall` and `reconstruct`: the
/// candidates scored are ordered by score, highest first (a tie keeps retrieval's order),
/// ahead of those not scored, before the cut to `limit` (recall) or to the candidate depth
/// (reconstruct, whose items then follow the new order). A ref that is not a candidate
/// changes nothing. At most 100.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct RerankScore {
    /// The candidate, `mem:<id>` or `ep:<id>`, as recall returns it and reconstruct's
    /// `trace` lists it.
    #[serde(rename = "ref")]
    #[cfg_attr(test, schemars(length(max = crate::api::MAX_REF)))]
    pub reference: String,
    /// Its score: higher ranks first. A finite number.
    pub score: f64,
}

/// `rerank` checked: at most [`MAX_RERANK`] scores, each of a ref as reads name records and
/// a finite number; then the refs and scores.
pub(super) fn rerank(given: &Option<Vec<RerankScore>>) -> Result<Vec<(crate::api::refs::Ref, f64)>> {
    let given = given.as_deref().unwrap_or_default();
    if given.len() > MAX_RERANK {
        return Err(crate::api::error::Error::OutOfRange {
            field: "rerank".into(),
            range: format!("at most {MAX_RERANK} scores"),
            got: given.len().to_string(),
        });
    }
    let mut out = Vec::with_capacity(given.len());
    for (i, s) in given.iter().enumerate() {
        text(&format!("rerank[{i}].ref"), &s.reference, crate::api::MAX_REF)?;
        let Some(at) = crate::api::refs::Ref::parse(&s.reference) else {
            return Err(crate::api::error::Error::Invalid {
                field: format!("rerank[{i}].ref"),
                reason: "is not a ref (`mem:<id>` or `ep:<id>`)".into(),
            });
        };
        if !s.score.is_finite() {
            return Err(crate::api::error::Error::WrongType {
                field: format!("rerank[{i}].score"),
                expected: "a finite number",
                got: "a number that is not finite".into(),
            });
        }
        out.push((at, s.score));
    }
    Ok(out)
}

impl RecallOptions {
    /// Checks the query, the embedding and the limit.
    pub fn validate(&self) -> Result<()> {
        self.validate_scope()?;
        let embedding = (self.query_embedding.as_deref(), self.query_embedding_model.as_deref());
        super::recall::query(&self.query, self.source_id.as_deref(), embedding)?;
        rerank(&self.rerank)?;
        in_range("limit", self.limit, 1, RECALL_LIMIT.1)
    }

    /// The reranker's scores, by ref; call after [`Self::validate`].
    pub fn rerank(&self) -> Vec<(crate::api::refs::Ref, f64)> {
        rerank(&self.rerank).unwrap_or_default()
    }

    /// The query vector and its model, when given.
    pub fn query_vector(&self) -> Option<QueryVector<'_>> {
        query_vector(&self.query_embedding, &self.query_embedding_model)
    }

    /// The limit applied.
    pub fn limit(&self) -> i64 {
        self.limit.unwrap_or(RECALL_LIMIT.0)
    }

    /// The source filter, `""` for none.
    pub fn source_id(&self) -> &str {
        self.source_id.as_deref().unwrap_or_default()
    }
}

/// The options recall and reconstruct share: a non-empty query within [`MAX_QUERY`], the
/// source filter within [`MAX_ID`], the query vector.
pub(super) fn query(query: &str, source_id: Option<&str>, (vector, model): (Option<&[f32]>, Option<&str>)) -> Result<()> {
    nonempty("query", query)?;
    text("query", query, MAX_QUERY)?;
    optional_text("source_id", source_id, MAX_ID)?;
    embedding("query_embedding", vector, model)
}

/// `query_embedding` and `query_embedding_model` as one query vector.
pub(super) fn query_vector<'a>(vector: &'a Option<Vec<f32>>, model: &'a Option<String>) -> Option<QueryVector<'a>> {
    vector.as_deref().map(|vector| QueryVector { vector, model: model.as_deref() })
}

/// A query vector and the model that made it.
#[derive(Debug, Clone, Copy)]
pub struct QueryVector<'a> {
    /// The floats.
    pub vector: &'a [f32],
    /// The model, as stores name theirs; `None`: not named.
    pub model: Option<&'a str>,
}

/// Why recall returned a row.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct MatchReason {
    /// `rrf`: the reciprocal-rank score of the lexical arms; `hybrid` (a query embedding
    /// was given and the vector arm ranked rows): each lexical arm's score rescaled over its
    /// rows (first 1, last 0) plus 0.16 times the row's cosine z-score over every record
    /// compared (negative for a row farther from the query than average).
    pub signal: &'static str,
    /// The fused score.
    pub score: f64,
    /// The row's rank in each arm that ranked it (`lexical`, `episodes`, `vector`).
    #[cfg_attr(test, ts(type = "{ lexical?: number; episodes?: number; vector?: number }"))]
    pub ranks: BTreeMap<&'static str, usize>,
    /// The reranker's score, when the call's `rerank` scored it (it then ranks by this).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub rerank: Option<f64>,
}

/// One row of `recall`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS), ts(rename = "RecalledMessage"))]
pub struct Message {
    /// `mem:<id>` or `ep:<id>`.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The record's text (an episode's summary).
    pub content: String,
    /// Where it came from.
    #[cfg_attr(test, ts(as = "super::RecordSource"), schemars(with = "super::RecordSource"))]
    pub source: Value,
    /// When it happened.
    pub timestamp: String,
    /// When it stops holding.
    #[serde(flatten)]
    #[cfg_attr(test, ts(flatten))]
    pub end: super::RecordEnd,
    /// Why it was returned.
    pub match_reason: MatchReason,
}

/// The response of `recall`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema, ts_rs::TS))]
pub struct RecallResponse {
    /// Most relevant first.
    pub messages: Vec<Message>,
    /// Rows retrieval found that the admission threshold left out (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gated: usize,
    /// Records the vector arm skipped for another dimension than the query's, their model
    /// being the query's (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dimension_skipped: usize,
    /// Records the vector arm skipped for another model than `query_embedding_model` (absent
    /// when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub model_skipped: usize,
    /// Records of the scope the read's instant left out: expired or invalidated by then
    /// (by now, without `as_of`), whether or not they match the query (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_holding: usize,
}

pub(crate) fn is_zero(n: &usize) -> bool {
    *n == 0
}
