//! The in-memory indexes: caches of what the database holds, never a second source of
//! truth. The lexical index (its postings shelves and vocabulary, scored by BM25 over each
//! agent's own statistics), the vector index, the entity names reconstruct matches queries
//! against, and whether anything is declared; the buckets they group rows by, and the
//! connection's one update hook that tells them what was written.

pub(crate) mod bm25;
pub(crate) mod buckets;
pub(crate) mod declared;
pub(crate) mod lexical;
pub(crate) mod names;
pub(crate) mod quantized;
pub(crate) mod vectors;
pub(crate) mod watch;
