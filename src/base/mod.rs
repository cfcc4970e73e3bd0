//! The leaf utilities every layer shares, importing nothing of the engine's: the clock and
//! its ISO-8601 spelling, the ids a row's unique key derives (for memories that sync), the instant a read sees facts at, the isolation clause (the one place read scopes become SQL), the
//! deterministic sorts, the sorted-list maps and sets of one call, the best-k selection, padded SQL `IN` lists, NFKC normalization, and the dot product of
//! two vectors.

pub(crate) mod as_of;
pub(crate) mod best;
pub(crate) mod clock;
pub(crate) mod derived_id;
pub(crate) mod dot;
pub(crate) mod in_list;
pub(crate) mod nfkc;
pub(crate) mod normalize;
pub(crate) mod scope;
#[cfg(test)]
pub(crate) mod seeded;
pub(crate) mod sort;
pub(crate) mod sorted;
