//! What crosses the memory's edge as a file: a whole database image imported (opened read
//! only, its schema compared with ours, its rows copied through our triggers and checked),
//! and the JSONL export and import of an agent's records and declarations.

pub(crate) mod import;
pub(crate) mod jsonl;
