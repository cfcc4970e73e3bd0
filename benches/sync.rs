//! Sync's cost in the engine (issue 42): what a write costs when the memory syncs (its
//! changes captured and kept as a pending change) ÷ the same write when it does not, the
//! bytes of a store's changeset (what a device seals and sends, before sealing), and the
//! time a device takes to bring in `--changes` changes made offline elsewhere (one
//! `sync_apply` of them all, and the same in batches of 100), with and without pending
//! changes of its own to undo and apply again.
//!
//! The writes are the scale bench's memories (`benches/scale.rs`), one `store` each, some
//! with an entity and a relation declared on them. Interleaved over `--rounds` passes (after
//! a warm-up), the order reversed every other round. Printed: means, medians and ratios.
//!
//! Usage: `cargo bench --bench sync -- --changes 1000 --rounds 3`

#[path = "scale.rs"]
#[allow(dead_code)]
mod scale;

use associative_memory::{FixedClock, LogEntry, Memory};
use serde_json::{json, Value};
use std::time::Instant;

fn flag(argv: &[String], name: &str) -> Option<String> {
    argv.iter().position(|a| a == name).and_then(|i| argv.get(i + 1)).cloned()
}

fn memory(device: Option<u32>) -> Memory {
    let mut m = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000))).unwrap();
    if let Some(d) = device {
        m.sync_start(d).unwrap();
    }
    m
}

/// The `i`th write: a memory, every fourth with an entity and a relation.
fn write(i: usize, content: &str) -> Value {
    let mut args = json!({"agent_id": "bench", "content": content});
    if i % 4 == 0 {
        let (a, b) = (format!("Entity {}", i % 50), format!("Entity {}", (i * 7) % 50));
        args["associations"] = json!({"entities": [{"name": a}], "relations": [{"subject": a, "predicate": "works_with", "object": b}]});
    }
    args
}

fn stats(ms: &mut [f64]) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (ms.iter().sum::<f64>() / ms.len() as f64, ms[ms.len() / 2])
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = flag(&argv, "--changes").map_or(1000, |r| r.parse().unwrap());
    let rounds: usize = flag(&argv, "--rounds").map_or(3, |r| r.parse().unwrap());
    let lex = scale::Lexicon::new();
    let contents: Vec<String> = scale::memories(&lex, n).into_iter().map(|(c, _)| c).collect();

    // 1. a store's cost, sync off and on; the changesets' bytes
    let mut per_store: [Vec<f64>; 2] = Default::default();
    let mut bytes = Vec::new();
    for round in 0..=rounds {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for k in order {
            let mut m = memory((k == 1).then_some(1));
            let t = Instant::now();
            for (i, c) in contents.iter().enumerate() {
                m.call("store", &write(i, c)).unwrap();
            }
            if round > 0 {
                per_store[k].push(t.elapsed().as_secs_f64() * 1000.0 / n as f64);
            }
            if k == 1 && bytes.is_empty() {
                bytes = m.sync_pending(0).unwrap().iter().map(|p| p.change.len() as f64).collect();
            }
        }
    }
    let (off, _) = stats(&mut per_store[0]);
    let (on, _) = stats(&mut per_store[1]);
    let (mean_bytes, median_bytes) = stats(&mut bytes);
    println!("store, {n} writes: sync off {off:.4} ms/store, on {on:.4} ms/store: {:.2}×", on / off);
    println!("changeset per store: mean {mean_bytes:.0} bytes, median {median_bytes:.0}, max {:.0}", bytes.last().unwrap());

    // 2. bringing in n changes made offline elsewhere
    let mut source = memory(Some(1));
    for (i, c) in contents.iter().enumerate() {
        source.call("store", &write(i, c)).unwrap();
    }
    let log: Vec<LogEntry> = source
        .sync_pending(0)
        .unwrap()
        .into_iter()
        .enumerate()
        .map(|(i, p)| LogEntry { position: i as u64 + 1, device: 1, seq: p.seq, change: p.change })
        .collect();
    // (all at once, in batches of 100, all at once over 20 pending changes of its own)
    let mut converge: [Vec<f64>; 3] = Default::default();
    for round in 0..=rounds {
        let order = if round % 2 == 0 { [0, 1, 2] } else { [2, 1, 0] };
        for k in order {
            let mut m = memory(Some(2));
            if k == 2 {
                for (i, c) in contents.iter().take(20).enumerate() {
                    m.call("store", &write(i + 1, c)).unwrap();
                }
            }
            let t = Instant::now();
            if k == 1 {
                for batch in log.chunks(100) {
                    m.sync_apply(batch).unwrap();
                }
            } else {
                m.sync_apply(&log).unwrap();
            }
            // and a first read, which brings the indexes up to date
            m.call("recall", &json!({"agent_id": "bench", "query": "ledger"})).unwrap();
            if round > 0 {
                converge[k].push(t.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    for (k, what) in ["at once", "in batches of 100", "at once, over 20 pending changes"].iter().enumerate() {
        let (mean, median) = stats(&mut converge[k]);
        println!("bring in {n} changes {what}: mean {mean:.1} ms, median {median:.1} ms");
    }
}
