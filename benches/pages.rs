//! Chunks a memory kept in a page store writes per call (issue 37: what a hosted memory pays
//! per write, each chunk a row of a Durable Object's storage): the conformance workload
//! (`bench/bench_1000.json`) replayed over `Memory::open_pages` on a map, every chunk write
//! counted per op kind: n, median, p95, max, and the store's size at the end.
//!
//! Usage: `cargo bench --bench pages [-- --workload PATH] [-- --encrypted]`

#[path = "../tests/common/page_store.rs"]
#[allow(dead_code)] // the tests use all of it, this bench a part
mod page_store;
#[path = "../tests/common/replay.rs"]
mod replay;

use associative_memory::{Key, Memory, PageStore};
use page_store::MapStore;
use replay::{Replayer, Step};
use serde_json::Value;
use std::collections::BTreeMap;
use std::rc::Rc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let path = flag("--workload")
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/conformance/bench/bench_1000.json").to_owned());
    let encrypted = args.iter().any(|a| a == "--encrypted");
    let workload: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("read the workload")).expect("workload JSON");
    let replayer = Replayer::new(&workload);
    let store = Rc::new(MapStore::default());
    let key = encrypted.then(|| Key::Raw([7; 32]));
    let mut memory = Memory::open_pages("bench", store.clone(), key, Box::new(replayer.clock.clone())).expect("open_pages");
    let mut per_kind: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for op in workload["ops"].as_array().expect("ops") {
        let Step::Call { tool, args } = replayer.prepare(op) else {
            replayer.done(op);
            continue;
        };
        store.take_writes();
        memory.call(&tool, &args).expect("the workload's calls succeed");
        replayer.done(op);
        per_kind.entry(op["op"].as_str().unwrap_or("?").to_owned()).or_default().push(store.take_writes().len());
    }
    println!("{} ({}), chunks written per call", path.rsplit('/').next().unwrap_or(&path), if encrypted { "encrypted" } else { "plain" });
    println!("| op | n | median | p95 | max |");
    println!("|---|---|---|---|---|");
    for (kind, mut writes) in per_kind {
        writes.sort_unstable();
        let at = |p: f64| writes[((p * writes.len() as f64).ceil() as usize).clamp(1, writes.len()) - 1];
        println!("| {kind} | {} | {} | {} | {} |", writes.len(), at(0.5), at(0.95), writes[writes.len() - 1]);
    }
    println!("store at the end: {} chunks of 4096 bytes", store.count().unwrap());
}
