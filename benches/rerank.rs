//! The reranker hook's cost (issue 41, item 4): `Memory::recall_reranked` and
//! `reconstruct_reranked` (depth 20, a scorer that costs nothing: the text's length) ÷ the
//! same read without, on the scale bench's workload (`benches/scale.rs`: the same seeded
//! memories and 200 queries), lexical only. What is measured is the engine's part: the
//! first read, the candidates' texts, and the read with the scores; a real reranker adds
//! its own time. Interleaved pass by pass over `--rounds` passes (after a warm-up pass),
//! the order reversed every other round. Printed: mean and median ms and the ratios.
//!
//! Usage: `cargo bench --bench rerank -- --sizes 10000,100000 --rounds 3`

#[path = "scale.rs"]
#[allow(dead_code)]
mod scale;

use associative_memory::{format_iso, parse_iso, FixedClock, Memory, RecallOptions, ReconstructOptions};
use serde_json::json;
use std::time::Instant;

fn flag(argv: &[String], name: &str) -> Option<String> {
    argv.iter().position(|a| a == name).and_then(|i| argv.get(i + 1)).cloned()
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> =
        flag(&argv, "--sizes").unwrap_or_else(|| "10000".into()).split(',').map(|s| s.trim().replace('_', "").parse().unwrap()).collect();
    let rounds: usize = flag(&argv, "--rounds").map_or(3, |r| r.parse().unwrap());
    let lex = scale::Lexicon::new();
    let max_n = *sizes.iter().max().unwrap();
    let mems = scale::memories(&lex, max_n);
    let qs = scale::queries(&lex, 200);
    let base = parse_iso(scale::BASE_TIME).unwrap();
    let length = |_: &str, c: &[(String, String)]| c.iter().map(|(_, text)| text.len() as f64).collect::<Vec<f64>>();
    for &n in &sizes {
        let t = Instant::now();
        let mut mem = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(base + 60_000 * n as i64))).unwrap();
        for (k, batch) in mems[..n].chunks(5000).enumerate() {
            let items: Vec<_> = batch
                .iter()
                .enumerate()
                .map(|(i, (content, speaker))| {
                    let at = base + 60_000 * (k * 5000 + i) as i64;
                    json!({"content": content, "timestamp": format_iso(at), "source": {"type": "User", "id": speaker, "name": speaker}})
                })
                .collect();
            mem.call("store_many", &json!({"agent_id": "bench", "items": items})).unwrap();
        }
        eprintln!("n={n}: built in {:.1} s", t.elapsed().as_secs_f64());
        let recalls: Vec<RecallOptions> =
            qs.iter().map(|q| serde_json::from_value(json!({"agent_id": "bench", "query": q, "limit": 10})).unwrap()).collect();
        let recons: Vec<ReconstructOptions> =
            qs.iter().map(|q| serde_json::from_value(json!({"agent_id": "bench", "query": q, "count": 10})).unwrap()).collect();
        // (read, reranked): a pass of every query per variant
        let mut times: [Vec<f64>; 4] = Default::default();
        for round in 0..=rounds {
            let order = if round % 2 == 0 { [0, 1, 2, 3] } else { [3, 2, 1, 0] };
            for k in order {
                for i in 0..qs.len() {
                    let t0 = Instant::now();
                    match k {
                        0 => drop(mem.recall(&recalls[i]).unwrap()),
                        1 => drop(mem.recall_reranked(&recalls[i], 20, length).unwrap()),
                        2 => drop(mem.reconstruct(&recons[i]).unwrap()),
                        _ => drop(mem.reconstruct_reranked(&recons[i], 20, length).unwrap()),
                    }
                    if round > 0 {
                        times[k].push(t0.elapsed().as_secs_f64() * 1000.0);
                    }
                }
            }
        }
        let (mean, median) = scale::means_and_medians(&mut times);
        println!(
            "{}",
            json!({"n": n, "rounds": rounds,
                "mean_ms": {"recall": mean[0], "recall_reranked": mean[1], "reconstruct": mean[2], "reconstruct_reranked": mean[3]},
                "median_ms": {"recall": median[0], "recall_reranked": median[1], "reconstruct": median[2], "reconstruct_reranked": median[3]},
                "recall_ratio": mean[1] / mean[0], "reconstruct_ratio": mean[3] / mean[2],
                "median_recall_ratio": median[1] / median[0], "median_reconstruct_ratio": median[3] / median[2]})
        );
    }
}
