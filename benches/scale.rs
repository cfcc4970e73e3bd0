//! recall and reconstruct latency at 1k, 10k and 100k memories, natively, without vectors
//! and with 384-dimension vectors; mean and p95, and ratios to the 1k figure.
//!
//! The workload is synthetic and fully deterministic, generated here with a seeded 32-bit
//! PRNG (xoshiro128**, seeded by splitmix32) and only exact float operations (+, *, /, sqrt),
//! so `www/bench/scale-bench.mjs` regenerates byte-identical texts and bit-identical vectors
//! in JavaScript; both print the same workload fingerprint. Keep the two generators in step
//! (bump GENERATOR in both when either changes).
//!
//! - Vocabulary: 5,000 pseudo-words and 300 capitalised names made of syllables, plus 36
//!   English function words. A memory is `"<speaker>: <8–32 tokens>."` (35 % function
//!   words, 10 % names, the rest vocabulary; names and words Zipf-like, index = ⌊n·u³⌋),
//!   speaker one of 8 names, timestamp 2024-01-01T00:00Z + 60 s per memory, one agent.
//! - Vectors (setting `vectors`): 64 topic centroids (unit vectors); a memory's vector is
//!   its topic's centroid plus noise of about the same norm (cosine ≈ 0.7 to the centroid),
//!   normalised. The texts are the same in both settings.
//! - Queries: 200, the same at every size: `"<what|when|…> did <2–6 tokens>?"`, each with
//!   its own query vector (a random topic plus noise) in the `vectors` setting.
//! - Per size and setting: one fresh in-memory memory (`Memory::open_in_memory_with_clock`,
//!   a fixed clock one minute after the last memory), every memory stored with
//!   `call("store")` in a loop (timed: the build), then a warm-up pass over the first
//!   `--warmup` queries (default 50) of each op, then `--rounds` passes over all queries:
//!   every `recall {query, limit 10}`, then every `reconstruct {query, count 10}` (each
//!   with `query_embedding` when vectors).
//!   Each call is timed alone with `Instant` (arguments built before).
//!
//! Usage (from the crate root):
//!   cargo bench --bench scale
//!   cargo bench --bench scale -- --sizes 1000,10000 --settings lexical --json /tmp/scale.json
//! Flags (env in brackets):
//!   --sizes LIST       memory counts (default 1000,10000,100000) [SCALE_SIZES]
//!   --million          add a 1,000,000-memory point to the lexical setting [SCALE_MILLION=1];
//!                      off by default: its build alone takes minutes (BENCHMARKS.md)
//!   --settings LIST    lexical,vectors (default both) [SCALE_SETTINGS]
//!   --queries N        number of queries (default 200)
//!   --rounds N         measured passes over the queries (default 1)
//!   --warmup N         unmeasured calls of each op before measuring (default 50)
//!   --dim N            vector dimension (default 384)
//!   --json FILE        write the results [SCALE_JSON]
//!   --cache-dir DIR    keep each built database there (`Memory::export`) and import it on
//!                      later runs instead of storing again [SCALE_CACHE_DIR]; the file
//!                      name carries the generator and schema versions. Off by default.
//!
//! With vectors, `plain_scan` is also timed once per query vector: a plain dot-product loop
//! over every stored vector in the memory's own index (`Memory::plain_vector_scan`: no
//! scope, no ranking, no row reads), the floor the vector arm is compared with.
//!
//! The JSON has one object per (setting, size) with, besides the detailed `recall`,
//! `reconstruct` and `build` objects, the flat fields `build_s`, `recall_mean_ms`,
//! `recall_p50_ms`, `recall_p95_ms`, `reconstruct_mean_ms`, `reconstruct_p50_ms`,
//! `reconstruct_p95_ms` and, with vectors, `plain_scan_ms` (its mean).
//!
//! An op that answers `unsupported` is reported as skipped (the build is still measured).

use associative_memory::{format_iso, parse_iso, FixedClock, Memory, SCHEMA_VERSION};
use serde_json::{json, Value};
use std::time::Instant;

/// Version of the workload generator; the JS port carries the same number.
const GENERATOR: u32 = 1;

// ---- PRNG: xoshiro128** seeded with splitmix32 (32-bit ops, easy to mirror in JS) ----------

struct Rng([u32; 4]);

impl Rng {
    fn new(seed: u32) -> Self {
        let mut st = seed;
        let mut sm = || {
            st = st.wrapping_add(0x9e37_79b9);
            let mut z = st;
            z = (z ^ (z >> 16)).wrapping_mul(0x85eb_ca6b);
            z = (z ^ (z >> 13)).wrapping_mul(0xc2b2_ae35);
            z ^ (z >> 16)
        };
        Rng([sm(), sm(), sm(), sm()])
    }
    fn next_u32(&mut self) -> u32 {
        let s = &mut self.0;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 9;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(11);
        result
    }
    /// Uniform in [0, 1) with 24 bits (exact in f64 and in JS numbers).
    fn uniform(&mut self) -> f64 {
        (self.next_u32() >> 8) as f64 / 16_777_216.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.uniform() * n as f64).floor() as usize
    }
    /// Zipf-like index in [0, n): ⌊n·u³⌋.
    fn zipf(&mut self, n: usize) -> usize {
        let u = self.uniform();
        (n as f64 * u * u * u).floor() as usize
    }
    /// Roughly normal, mean 0, variance 1/3 (Irwin–Hall of four uniforms; no transcendental
    /// functions, so JS and Rust agree bit for bit).
    fn gauss(&mut self) -> f64 {
        let a = self.uniform();
        let b = self.uniform();
        let c = self.uniform();
        let d = self.uniform();
        ((a + b) + (c + d)) - 2.0
    }
}

// ---- the workload ----------------------------------------------------------------------

const SYLLABLES: [&str; 32] = [
    "ka", "lo", "mi", "ren", "tu", "sa", "vel", "dor", "ni", "qua", "ber", "xi", "po", "lan", "te", "ru", "zo", "fen", "gi", "mar", "os",
    "ul", "ith", "ae", "bro", "cas", "dun", "el", "hap", "jor", "wy", "ost",
];
const FUNCTION_WORDS: [&str; 36] = [
    "the",
    "a",
    "and",
    "to",
    "of",
    "in",
    "it",
    "is",
    "was",
    "that",
    "for",
    "on",
    "with",
    "my",
    "we",
    "you",
    "i",
    "me",
    "at",
    "so",
    "but",
    "this",
    "be",
    "have",
    "had",
    "just",
    "about",
    "really",
    "they",
    "from",
    "our",
    "some",
    "yesterday",
    "last",
    "week",
    "new",
];
const QUESTION_WORDS: [&str; 6] = ["what", "when", "where", "who", "how", "why"];
const VOCAB: usize = 5000;
const NAMES: usize = 300;
const SPEAKERS: usize = 8;
const TOPICS: usize = 64;
pub(crate) const BASE_TIME: &str = "2024-01-01T00:00:00+00:00";

fn word(rng: &mut Rng, min_syl: usize, max_syl: usize) -> String {
    let n = min_syl + rng.below(max_syl - min_syl + 1);
    (0..n).map(|_| SYLLABLES[rng.below(SYLLABLES.len())]).collect()
}

pub(crate) struct Lexicon {
    vocab: Vec<String>,
    names: Vec<String>,
}

impl Lexicon {
    pub(crate) fn new() -> Self {
        let mut rng = Rng::new(0x5eed_0001);
        let vocab = (0..VOCAB).map(|_| word(&mut rng, 2, 4)).collect();
        let names = (0..NAMES)
            .map(|_| {
                let w = word(&mut rng, 2, 3);
                let mut c = w.chars();
                let first = c.next().unwrap().to_ascii_uppercase();
                std::iter::once(first).chain(c).collect()
            })
            .collect();
        Lexicon { vocab, names }
    }
    fn token(&self, rng: &mut Rng) -> &str {
        let r = rng.uniform();
        if r < 0.35 {
            FUNCTION_WORDS[rng.below(FUNCTION_WORDS.len())]
        } else if r < 0.45 {
            &self.names[rng.zipf(NAMES)]
        } else {
            &self.vocab[rng.zipf(VOCAB)]
        }
    }
}

/// Each list's mean and median (each list sorted in place): what the option ÷ default benches
/// (`time.rs`, `rerank.rs`) print.
#[allow(dead_code)] // used by the benches that include this file, not by its own main
pub(crate) fn means_and_medians<const N: usize>(times: &mut [Vec<f64>; N]) -> ([f64; N], [f64; N]) {
    let mean = times.each_ref().map(|t| t.iter().sum::<f64>() / t.len() as f64);
    let median = times.each_mut().map(|t| {
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    });
    (mean, median)
}

/// The i-th memory's content and speaker; memories come from one stream, so the first n of
/// a larger size are the memories of the smaller size.
pub(crate) fn memories(lex: &Lexicon, n: usize) -> Vec<(String, String)> {
    let mut rng = Rng::new(0x5eed_0002);
    (0..n)
        .map(|_| {
            let speaker = lex.names[rng.below(SPEAKERS)].clone();
            let len = 8 + rng.below(25);
            let toks: Vec<&str> = (0..len).map(|_| lex.token(&mut rng)).collect();
            (format!("{speaker}: {}.", toks.join(" ")), speaker)
        })
        .collect()
}

pub(crate) fn queries(lex: &Lexicon, count: usize) -> Vec<String> {
    let mut rng = Rng::new(0x5eed_0003);
    (0..count)
        .map(|_| {
            let qw = QUESTION_WORDS[rng.below(QUESTION_WORDS.len())];
            let len = 2 + rng.below(5);
            let toks: Vec<String> = (0..len)
                .map(|_| if rng.uniform() < 0.3 { lex.names[rng.zipf(NAMES)].clone() } else { lex.vocab[rng.zipf(VOCAB)].clone() })
                .collect();
            format!("{qw} did {}?", toks.join(" "))
        })
        .collect()
}

fn unit(rng: &mut Rng, dim: usize) -> Vec<f64> {
    let v: Vec<f64> = (0..dim).map(|_| rng.gauss()).collect();
    normalise(v)
}

fn normalise(mut v: Vec<f64>) -> Vec<f64> {
    let mut ss = 0.0;
    for x in &v {
        ss += x * x;
    }
    let norm = ss.sqrt();
    for x in v.iter_mut() {
        *x /= norm;
    }
    v
}

/// Vectors: `n` memory vectors (stream 4) and `q` query vectors (stream 5), as f32.
pub(crate) fn vectors(n: usize, q: usize, dim: usize) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let mut crng = Rng::new(0x5eed_0004);
    let centroids: Vec<Vec<f64>> = (0..TOPICS).map(|_| unit(&mut crng, dim)).collect();
    // Noise of about unit norm: gauss() has variance 1/3, so scale by sqrt(3/dim).
    let scale = (3.0 / dim as f64).sqrt();
    let around = |rng: &mut Rng| -> Vec<f32> {
        let c = &centroids[rng.below(TOPICS)];
        let v: Vec<f64> = c.iter().map(|x| x + rng.gauss() * scale).collect();
        normalise(v).into_iter().map(|x| x as f32).collect()
    };
    let mut mrng = Rng::new(0x5eed_0005);
    let mem = (0..n).map(|_| around(&mut mrng)).collect();
    let mut qrng = Rng::new(0x5eed_0006);
    let qv = (0..q).map(|_| around(&mut qrng)).collect();
    (mem, qv)
}

/// FNV-1a over the texts and the vectors' bits, to check the JS port builds the same workload.
fn fingerprint(texts: &[(String, String)], qs: &[String], vecs: Option<(&[Vec<f32>], &[Vec<f32>])>) -> String {
    let mut h: u32 = 0x811c_9dc5;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h = (h ^ *b as u32).wrapping_mul(0x0100_0193);
        }
    };
    for (t, _) in texts {
        eat(t.as_bytes());
        eat(b"\n");
    }
    for q in qs {
        eat(q.as_bytes());
        eat(b"\n");
    }
    if let Some((m, q)) = vecs {
        for v in m.iter().chain(q.iter()) {
            for x in v {
                eat(&x.to_bits().to_le_bytes());
            }
        }
    }
    format!("{h:08x}")
}

// ---- measurement ---------------------------------------------------------------------

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.max(1) - 1]
}

fn stats(mut v: Vec<f64>) -> Value {
    if v.is_empty() {
        return json!({"n": 0});
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    json!({"n": v.len(), "mean_ms": mean, "p50_ms": percentile(&v, 50.0), "p95_ms": percentile(&v, 95.0), "max_ms": v[v.len() - 1]})
}

struct Opts {
    sizes: Vec<usize>,
    million: bool,
    settings: Vec<String>,
    queries: usize,
    rounds: usize,
    warmup: usize,
    dim: usize,
    json: Option<String>,
    cache_dir: Option<std::path::PathBuf>,
}

fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("scale: {msg}");
    std::process::exit(1)
}

fn parse_args() -> Opts {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| argv.iter().position(|a| a == name).and_then(|i| argv.get(i + 1)).cloned();
    for (i, a) in argv.iter().enumerate() {
        let is_value = i > 0 && argv[i - 1].starts_with("--") && argv[i - 1] != "--bench" && argv[i - 1] != "--million";
        if a.starts_with("--")
            && !is_value
            && !["--bench", "--million", "--sizes", "--settings", "--queries", "--rounds", "--warmup", "--dim", "--json", "--cache-dir"]
                .contains(&a.as_str())
        {
            fail(format!(
                "unknown argument {a:?}; flags: --sizes --million --settings --queries --rounds --warmup --dim --json --cache-dir"
            ));
        }
    }
    let list = |s: String| s.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect::<Vec<_>>();
    let sizes = flag("--sizes").or_else(|| std::env::var("SCALE_SIZES").ok()).unwrap_or_else(|| "1000,10000,100000".into());
    let settings = flag("--settings").or_else(|| std::env::var("SCALE_SETTINGS").ok()).unwrap_or_else(|| "lexical,vectors".into());
    let num = |name: &str, default: usize| {
        flag(name).map(|v| v.parse().unwrap_or_else(|_| fail(format!("{name} takes a number")))).unwrap_or(default)
    };
    let o = Opts {
        sizes: list(sizes).into_iter().map(|s| s.replace('_', "").parse().unwrap_or_else(|_| fail(format!("bad size {s:?}")))).collect(),
        settings: list(settings),
        million: argv.iter().any(|a| a == "--million") || std::env::var("SCALE_MILLION").is_ok_and(|v| v == "1"),
        queries: num("--queries", 200),
        rounds: num("--rounds", 1).max(1),
        warmup: num("--warmup", 50),
        dim: num("--dim", 384),
        json: flag("--json").or_else(|| std::env::var("SCALE_JSON").ok()),
        cache_dir: flag("--cache-dir").or_else(|| std::env::var("SCALE_CACHE_DIR").ok()).map(Into::into),
    };
    for s in &o.settings {
        if s != "lexical" && s != "vectors" {
            fail(format!("--settings takes lexical and/or vectors, not {s:?}"));
        }
    }
    o
}

#[derive(Default)]
struct OpTimes {
    times: Vec<f64>,
    skipped: Option<String>,
    errors: usize,
    first_error: Option<String>,
    results: usize,
}

fn run_op(mem: &mut Memory, tool: &str, args: &[Value], warm: usize, rounds: usize) -> OpTimes {
    let mut out = OpTimes::default();
    for a in args.iter().take(warm) {
        if let Err(e) = mem.call(tool, a) {
            if e.code() == "unsupported" || e.code() == "unknown_tool" {
                out.skipped = Some(format!("{}: {e}", e.code()));
                return out;
            }
        }
    }
    for _ in 0..rounds {
        for a in args {
            let t0 = Instant::now();
            let r = mem.call(tool, a);
            let ms = t0.elapsed().as_secs_f64() * 1000.0;
            match r {
                Ok(v) => {
                    out.times.push(ms);
                    let key = if tool == "recall" { "messages" } else { "items" };
                    out.results += v.get(key).and_then(Value::as_array).map_or(0, Vec::len);
                }
                Err(e) if e.code() == "unsupported" || e.code() == "unknown_tool" => {
                    out.skipped = Some(format!("{}: {e}", e.code()));
                    return out;
                }
                Err(e) => {
                    out.times.push(ms);
                    out.errors += 1;
                    out.first_error.get_or_insert_with(|| format!("{}: {e}", e.code()));
                }
            }
        }
    }
    out
}

fn op_json(t: OpTimes) -> Value {
    if let Some(s) = t.skipped {
        return json!({"skipped": s});
    }
    let n = t.times.len();
    let mut v = stats(t.times);
    v["errors"] = json!(t.errors);
    if let Some(e) = t.first_error {
        v["first_error"] = json!(e);
    }
    v["mean_results"] = json!(if n > 0 { t.results as f64 / n as f64 } else { 0.0 });
    v
}

fn main() {
    let o = parse_args();
    const MILLION: usize = 1_000_000;
    let sizes_of = |setting: &str| -> Vec<usize> {
        let mut v = o.sizes.clone();
        if o.million && setting == "lexical" && !v.contains(&MILLION) {
            v.push(MILLION);
        }
        v
    };
    let max_n = o.settings.iter().flat_map(|s| sizes_of(s)).max().unwrap_or(0);
    let lex = Lexicon::new();
    let t = Instant::now();
    let all_mems = memories(&lex, max_n);
    let qs = queries(&lex, o.queries);
    let want_vectors = o.settings.iter().any(|s| s == "vectors");
    let max_vec_n = if want_vectors { sizes_of("vectors").into_iter().max().unwrap_or(0) } else { 0 };
    let (all_vecs, qvecs) = if want_vectors { vectors(max_vec_n, o.queries, o.dim) } else { (vec![], vec![]) };
    eprintln!(
        "generated {} memories and {} queries{} in {:.1} s",
        max_n,
        qs.len(),
        if want_vectors { format!(" with {}-d vectors", o.dim) } else { String::new() },
        t.elapsed().as_secs_f64()
    );
    let base = parse_iso(BASE_TIME).unwrap();

    let mut results: Vec<Value> = Vec::new();
    for setting in &o.settings {
        let with_vec = setting == "vectors";
        for n in sizes_of(setting) {
            let fp = fingerprint(&all_mems[..n], &qs, with_vec.then(|| (&all_vecs[..n], &qvecs[..])));
            let clock = FixedClock::new(base + 60_000 * n as i64);
            let mut mem = Memory::open_in_memory_with_clock(Box::new(clock)).unwrap_or_else(|e| fail(e));
            let cache = o.cache_dir.as_ref().map(|d| {
                let tag = if with_vec { format!("vec{}", o.dim) } else { "lex".into() };
                d.join(format!("am-scale-g{GENERATOR}-s{SCHEMA_VERSION}-{n}-{tag}-{fp}.sqlite"))
            });
            let mut build = json!(null);
            let mut imported = false;
            if let Some(c) = cache.as_ref().filter(|c| c.exists()) {
                let t = Instant::now();
                let bytes = std::fs::read(c).unwrap_or_else(|e| fail(format!("{}: {e}", c.display())));
                mem.import(&bytes).unwrap_or_else(|e| fail(format!("import {}: {e}", c.display())));
                eprintln!("n={n} {setting}: imported {} ({} MB) in {:.1} s", c.display(), bytes.len() >> 20, t.elapsed().as_secs_f64());
                imported = true;
            } else {
                let args: Vec<Value> = (0..n)
                    .map(|i| {
                        let (content, speaker) = &all_mems[i];
                        let mut a = json!({"agent_id": "bench", "content": content, "timestamp": format_iso(base + 60_000 * i as i64),
                                           "source": {"type": "User", "id": speaker, "name": speaker}});
                        if with_vec {
                            a["embedding"] = json!(all_vecs[i]);
                        }
                        a
                    })
                    .collect();
                let mut store_ms = Vec::with_capacity(n);
                let t = Instant::now();
                for a in &args {
                    let t0 = Instant::now();
                    mem.call("store", a).unwrap_or_else(|e| fail(format!("store: {} ({e})", e.code())));
                    store_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
                }
                let build_s = t.elapsed().as_secs_f64();
                eprintln!("n={n} {setting}: stored in {build_s:.1} s");
                build = json!({"seconds": build_s, "store": stats(store_ms)});
                if let Some(c) = &cache {
                    let t = Instant::now();
                    let bytes = mem.export().unwrap_or_else(|e| fail(format!("export: {e}")));
                    std::fs::create_dir_all(c.parent().unwrap()).ok();
                    std::fs::write(c, &bytes).unwrap_or_else(|e| fail(format!("{}: {e}", c.display())));
                    eprintln!("n={n} {setting}: cached {} ({} MB) in {:.1} s", c.display(), bytes.len() >> 20, t.elapsed().as_secs_f64());
                }
            }
            let qargs = |tool: &str| -> Vec<Value> {
                qs.iter()
                    .enumerate()
                    .map(|(i, q)| {
                        let mut a = if tool == "recall" {
                            json!({"agent_id": "bench", "query": q, "limit": 10})
                        } else {
                            json!({"agent_id": "bench", "query": q, "count": 10})
                        };
                        if with_vec {
                            a["query_embedding"] = json!(qvecs[i]);
                        }
                        a
                    })
                    .collect()
            };
            let warm = o.warmup.min(qs.len());
            let recall = run_op(&mut mem, "recall", &qargs("recall"), warm, o.rounds);
            let reconstruct = run_op(&mut mem, "reconstruct", &qargs("reconstruct"), warm, o.rounds);
            let plain_scan = with_vec.then(|| {
                let mut sink = 0.0f32;
                for q in qvecs.iter().take(warm) {
                    sink += mem.plain_vector_scan(q).unwrap_or_else(|e| fail(e));
                }
                let mut times = Vec::new();
                for _ in 0..o.rounds {
                    for q in &qvecs {
                        let t0 = Instant::now();
                        sink += mem.plain_vector_scan(q).unwrap_or_else(|e| fail(e));
                        times.push(t0.elapsed().as_secs_f64() * 1000.0);
                    }
                }
                std::hint::black_box(sink);
                stats(times)
            });
            let (recall, reconstruct) = (op_json(recall), op_json(reconstruct));
            let mut row = json!({"n": n, "setting": setting, "dim": if with_vec { json!(o.dim) } else { json!(null) },
                "fingerprint": fp, "imported": imported, "build_s": build["seconds"],
                "recall_mean_ms": recall["mean_ms"], "recall_p50_ms": recall["p50_ms"], "recall_p95_ms": recall["p95_ms"],
                "reconstruct_mean_ms": reconstruct["mean_ms"], "reconstruct_p50_ms": reconstruct["p50_ms"],
                "reconstruct_p95_ms": reconstruct["p95_ms"],
                "build": build, "recall": recall, "reconstruct": reconstruct});
            if let Some(p) = plain_scan {
                row["plain_scan_ms"] = p["mean_ms"].clone();
                row["plain_scan"] = p;
            }
            eprintln!("n={n} {setting}: recall {} reconstruct {}", row["recall"], row["reconstruct"]);
            results.push(row);
        }
    }

    // ---- the table, with ratios to the smallest size of each setting ----
    println!();
    println!(
        "scale: native, in-memory; {} queries x {} round(s) after {} warm-up calls; ms; ratio = mean (p95) / the same at the smallest size",
        o.queries,
        o.rounds,
        o.warmup.min(o.queries)
    );
    println!(
        "{:<8} {:>8} {:>9} {:>11} | {:>9} {:>9} {:>9} {:>13} | {:>9} {:>9} {:>9} {:>13} | {:>9} {:>9}",
        "setting",
        "n",
        "build s",
        "store mean",
        "rec mean",
        "rec p50",
        "rec p95",
        "rec ratio",
        "recon mean",
        "recon p50",
        "recon p95",
        "recon ratio",
        "plain ms",
        "rec÷plain"
    );
    for setting in &o.settings {
        let rows: Vec<&Value> = results.iter().filter(|r| r["setting"] == json!(setting)).collect();
        let first = rows.first().copied();
        for r in &rows {
            let cell = |op: &str, k: &str| r[op][k].as_f64();
            let ratio = |op: &str| match (
                cell(op, "mean_ms"),
                cell(op, "p95_ms"),
                first.and_then(|f| f[op]["mean_ms"].as_f64()),
                first.and_then(|f| f[op]["p95_ms"].as_f64()),
            ) {
                (Some(m), Some(p), Some(m0), Some(p0)) => format!("{:.2} ({:.2})", m / m0, p / p0),
                _ => r[op].get("skipped").map(|_| "skipped".to_string()).unwrap_or_else(|| "-".into()),
            };
            let f = |x: Option<f64>| x.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into());
            let plain = r["plain_scan_ms"].as_f64();
            println!(
                "{:<8} {:>8} {:>9} {:>11} | {:>9} {:>9} {:>9} {:>13} | {:>9} {:>9} {:>9} {:>13} | {:>9} {:>9}",
                setting,
                r["n"],
                r["build"]["seconds"].as_f64().map(|s| format!("{s:.1}")).unwrap_or_else(|| "cached".into()),
                f(r["build"]["store"]["mean_ms"].as_f64()),
                f(cell("recall", "mean_ms")),
                f(cell("recall", "p50_ms")),
                f(cell("recall", "p95_ms")),
                ratio("recall"),
                f(cell("reconstruct", "mean_ms")),
                f(cell("reconstruct", "p50_ms")),
                f(cell("reconstruct", "p95_ms")),
                ratio("reconstruct"),
                f(plain),
                match (cell("recall", "mean_ms"), plain) {
                    (Some(m), Some(p)) if p > 0.0 => format!("{:.2}", m / p),
                    _ => "-".into(),
                },
            );
        }
    }
    if let Some(p) = &o.json {
        let out = json!({
            "bench": "scale", "engine": "native", "generator": GENERATOR, "schema_version": SCHEMA_VERSION,
            "queries": o.queries, "rounds": o.rounds, "warmup": o.warmup, "dim": o.dim,
            "machine": {"cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0), "os": std::env::consts::OS, "arch": std::env::consts::ARCH},
            "results": results,
        });
        std::fs::write(p, serde_json::to_string_pretty(&out).unwrap() + "\n").unwrap_or_else(|e| fail(format!("{p}: {e}")));
        eprintln!("wrote {p}");
    }
}
