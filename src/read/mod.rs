//! The read path: `recall` (the lexical and vector arms over the indexes, fused) and
//! `reconstruct` (recall's candidates, the cues the query names, the bundles and the walk
//! over the declared graph, quoted within a budget).

pub(crate) mod recall;
pub(crate) mod reconstruct;
