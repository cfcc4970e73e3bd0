//! The declared graph: entities and their aliases (`entities`), declaring and retracting
//! them with the mentions and relations (`associations`), the reads traverse and
//! reconstruct share (`reads`), and the `traverse` and `history` operations.

pub(crate) mod associations;
pub(crate) mod entities;
pub(crate) mod history;
pub(crate) mod reads;
pub(crate) mod traverse;
