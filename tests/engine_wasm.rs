//! The engine's integration tests in wasm (Node): the same files as the native suite, as
//! modules of one test binary, so SQLite is linked and the module prepared for Node once
//! instead of once per file (HACKING.md gives the measurement). Natively each file is its
//! own test target and this one is empty. `conformance.rs` is not here: it reads the
//! reference's scenarios from `../shared/conformance`, and wasm32 has no file system.
#![cfg(target_arch = "wasm32")]

#[path = "bad_input.rs"]
mod bad_input;
#[path = "data_tools.rs"]
mod data_tools;
#[path = "declarations.rs"]
mod declarations;
#[path = "embeddings.rs"]
mod embeddings;
#[path = "encryption.rs"]
mod encryption;
#[path = "export_import.rs"]
mod export_import;
#[path = "hardening.rs"]
mod hardening;
#[path = "invariants.rs"]
mod invariants;
#[path = "pages.rs"]
mod pages;
#[path = "properties.rs"]
mod properties;
#[path = "recall.rs"]
mod recall;
#[path = "reference_jsonl.rs"]
mod reference_jsonl;
#[path = "relations_in_time.rs"]
mod relations_in_time;
#[path = "rerank.rs"]
mod rerank;
#[path = "schemas.rs"]
mod schemas;
#[path = "store_many.rs"]
mod store_many;
#[path = "sync.rs"]
mod sync;
#[path = "targets.rs"]
mod targets;
#[path = "time_records.rs"]
mod time_records;
#[path = "traverse.rs"]
mod traverse;
#[path = "typed_methods.rs"]
mod typed_methods;
