//! Reads in time (issue 39): each read of records with `as_of` ÷ without, on the scale
//! bench's workload (`benches/scale.rs`: the same seeded memories and 200 queries) with a
//! tenth of the memories expired.
//!
//! Per size, two memories built alike but for time: `timed`, where every tenth memory
//! (`i % 10 == 5`) is stored with an `expires_at` an hour after its timestamp (all of them
//! past at the clock's now, one minute after the last memory), and `plain`, with no time
//! declared (what every memory was before issue 39). Then, interleaved pass by pass over
//! `--rounds` passes of the 200 queries (after a warm-up round):
//!
//! - `recall {query, limit 10}` and `reconstruct {query, count 10}` (lexical only, or with
//!   the query's vector under `--settings vectors`);
//! - `list_memories {limit 100, offset}` (a query's index picks the page) and
//!   `get_contents {refs: 20 refs}` (20 consecutive memories from the query's index);
//!
//! each on `timed` without `as_of` (the default: what expired by now left out), with
//! `as_of` at the middle of the memories' time (the records expired by then left out), with
//! `as_of: "all"` (nothing left out), and on `plain` without `as_of`. Printed: mean and median ms
//! of each (a pass of the queries per variant, their order reversed every other round) and the
//! ratios `as_of ÷ without` and `timed ÷ plain` (the price of the filter).
//!
//! Usage: `cargo bench --bench time -- --sizes 10000 --rounds 3 [--settings lexical,vectors]`

#[path = "scale.rs"]
#[allow(dead_code)]
mod scale;

use associative_memory::{format_iso, parse_iso, FixedClock, Memory};
use serde_json::{json, Value};
use std::time::Instant;

fn flag(argv: &[String], name: &str) -> Option<String> {
    argv.iter().position(|a| a == name).and_then(|i| argv.get(i + 1)).cloned()
}

/// A memory of the first `n` memories of the workload, every tenth expiring an hour after
/// its timestamp when `timed`; the clock a minute after the last.
fn build(n: usize, mems: &[(String, String)], vecs: Option<&[Vec<f32>]>, timed: bool, base: i64) -> Memory {
    let mut mem = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(base + 60_000 * n as i64))).unwrap();
    let items: Vec<Value> = (0..n)
        .map(|i| {
            let (content, speaker) = &mems[i];
            let at = base + 60_000 * i as i64;
            let mut item =
                json!({"content": content, "timestamp": format_iso(at), "source": {"type": "User", "id": speaker, "name": speaker}});
            if timed && i % 10 == 5 {
                item["expires_at"] = json!(format_iso(at + 3_600_000));
            }
            if let Some(v) = vecs {
                item["embedding"] = json!(v[i]);
            }
            item
        })
        .collect();
    for batch in items.chunks(5000) {
        mem.call("store_many", &json!({"agent_id": "bench", "items": batch})).unwrap();
    }
    mem
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> =
        flag(&argv, "--sizes").unwrap_or_else(|| "10000".into()).split(',').map(|s| s.trim().replace('_', "").parse().unwrap()).collect();
    let rounds: usize = flag(&argv, "--rounds").map_or(3, |r| r.parse().unwrap());
    let settings = flag(&argv, "--settings").unwrap_or_else(|| "lexical".into());
    let lex = scale::Lexicon::new();
    let max_n = *sizes.iter().max().unwrap();
    let mems = scale::memories(&lex, max_n);
    let qs = scale::queries(&lex, 200);
    let base = parse_iso(scale::BASE_TIME).unwrap();
    for setting in settings.split(',') {
        let with_vec = setting == "vectors";
        let (vecs, qvecs) = if with_vec { scale::vectors(max_n, qs.len(), 384) } else { (vec![], vec![]) };
        for &n in &sizes {
            let t = Instant::now();
            let vecs = with_vec.then(|| &vecs[..n]);
            let mut timed = build(n, &mems, vecs, true, base);
            let mut plain = build(n, &mems, vecs, false, base);
            eprintln!("n={n} {setting}: built both in {:.1} s", t.elapsed().as_secs_f64());
            let middle = format_iso(base + 60_000 * (n as i64 / 2));
            // (read, its options for query i)
            let reads: Vec<(&str, Box<dyn Fn(usize) -> Value>)> = vec![
                (
                    "recall",
                    Box::new(|i| {
                        let mut a = json!({"agent_id": "bench", "query": qs[i], "limit": 10});
                        if with_vec {
                            a["query_embedding"] = json!(qvecs[i]);
                        }
                        a
                    }),
                ),
                (
                    "reconstruct",
                    Box::new(|i| {
                        let mut a = json!({"agent_id": "bench", "query": qs[i], "count": 10});
                        if with_vec {
                            a["query_embedding"] = json!(qvecs[i]);
                        }
                        a
                    }),
                ),
                ("list_memories", Box::new(|i| json!({"agent_id": "bench", "limit": 100, "offset": (i * 37) % (n - 100)}))),
                (
                    "get_contents",
                    Box::new(|i| {
                        let first = 1 + (i * 41) % (n - 20);
                        json!({"agent_id": "bench", "refs": (first..first + 20).map(|id| format!("mem:{id}")).collect::<Vec<_>>()})
                    }),
                ),
            ];
            let only = flag(&argv, "--reads");
            for (read, args) in reads.iter().filter(|(r, _)| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == *r))) {
                let with = |i: usize, as_of: Option<&str>| {
                    let mut a = args(i);
                    if let Some(t) = as_of {
                        a["as_of"] = json!(t);
                    }
                    a
                };
                let plain_all = std::env::var("TIME_PLAIN_ALL").is_ok();
                let variants: [(&str, bool, Option<&str>); 4] =
                    [("without", true, None), ("as_of", true, Some(&middle)), ("all", !plain_all, Some("all")), ("plain", false, None)];
                let mut times: [Vec<f64>; 4] = Default::default();
                // A pass of every query per variant, the variants' order reversed every other
                // round: each call follows another query on the same memory, whatever its
                // variant (a call right after the same query on the same memory finds its
                // postings in cache), and drift over the rounds falls on all alike.
                for round in 0..=rounds {
                    let order = if round % 2 == 0 { [0, 1, 2, 3] } else { [3, 2, 1, 0] };
                    for k in order {
                        let (_, on_timed, as_of) = variants[k];
                        let m = if on_timed { &mut timed } else { &mut plain };
                        for i in 0..qs.len() {
                            let a = with(i, as_of);
                            let t0 = Instant::now();
                            m.call(read, &a).unwrap();
                            if round > 0 {
                                times[k].push(t0.elapsed().as_secs_f64() * 1000.0);
                            }
                        }
                    }
                }
                let (mean, median) = scale::means_and_medians(&mut times);
                println!(
                    "{}",
                    json!({"n": n, "setting": setting, "read": read, "rounds": rounds,
                        "mean_ms": {"without": mean[0], "as_of": mean[1], "all": mean[2], "plain": mean[3]},
                        "median_ms": {"without": median[0], "as_of": median[1], "all": median[2], "plain": median[3]},
                        "as_of_over_without": mean[1] / mean[0], "without_over_plain": mean[0] / mean[3], "all_over_plain": mean[2] / mean[3],
                        "median_as_of_over_without": median[1] / median[0], "median_without_over_plain": median[0] / median[3]})
                );
            }
        }
    }
}
