//! Replays a conformance bench workload (default `bench/bench_1000.json`) against the
//! native engine and prints per-op-kind latency: n, mean, p50, p95, max, total (ms).
//!
//! The replay follows the reference driver (`cpersona_driver.py --timing`): one fresh
//! memory (in-memory by default, see BENCH_DB_DIR), the ops in file order, once, no
//! warm-up. Op → tool and the clock rules are `tests/common/replay.rs`, the one replayer
//! the conformance runner uses too. Each op's time is `Instant` around the one `Memory::call` (arguments built before).
//!
//! An op kind whose first call answers `unsupported` (or `unknown_tool`) is reported as
//! skipped and not called again. Any other error is counted per kind and printed once.
//!
//! Usage:
//!   cargo bench --bench ops
//!   cargo bench --bench ops -- --json bench-notes/native.json --runs 5
//! Environment (flags win):
//!   BENCH_WORKLOAD  workload file (default ../shared/conformance/bench/bench_1000.json,
//!                   relative to the crate root)
//!   BENCH_JSON      write the results as JSON to this path
//!   BENCH_RUNS      replay this many times, each on a fresh memory (default 1)
//!   BENCH_DB_DIR    open a file-backed memory (`Memory::open`) at a fresh file in this
//!                   directory instead of an in-memory one (the reference driver uses a
//!                   file in a temp dir); the file is removed after each run
//!   BENCH_ENCRYPTED  with BENCH_DB_DIR (or --db-dir): the file is encrypted
//!                   (`Memory::open_encrypted` with a raw key; flag --encrypted)
//!   BENCH_DUMP      write each op's result (run 1) as JSON lines {"i","op","result"|"error"}
//!                   to this path, to check the replay did real work (not timed)

#[path = "../tests/common/replay.rs"]
mod replay;

use associative_memory::Memory;
use replay::{Replayer, Step};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::time::Instant;

// ---- statistics ----------------------------------------------------------------------

/// Nearest-rank percentile (the same rule as the reference timing wrapper).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.max(1) - 1]
}

#[derive(Default)]
struct Kind {
    times_ms: Vec<f64>,
    errors: usize,
    first_error: Option<String>,
    skipped: Option<String>,
}

fn summary(k: &Kind) -> Value {
    if let Some(reason) = &k.skipped {
        return json!({"skipped": reason});
    }
    let mut s = k.times_ms.clone();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    if s.is_empty() {
        return json!({"n": 0, "errors": k.errors});
    }
    let total: f64 = s.iter().sum();
    let mut out = json!({
        "n": s.len(),
        "mean_ms": total / s.len() as f64,
        "p50_ms": percentile(&s, 50.0),
        "p95_ms": percentile(&s, 95.0),
        "max_ms": s[s.len() - 1],
        "total_ms": total,
        "errors": k.errors,
    });
    if let Some(e) = &k.first_error {
        out["first_error"] = json!(e);
    }
    out
}

// ---- replay ---------------------------------------------------------------------------

struct Run {
    order: Vec<String>,
    kinds: BTreeMap<String, Kind>,
    open_ms: f64,
    wall_ms: f64,
}

fn replay(workload: &Value, db_dir: Option<&std::path::Path>, encrypted: bool, run_no: usize, dump_path: Option<&str>) -> Run {
    let ops = workload.get("ops").and_then(Value::as_array).expect("workload has no ops array");

    let wall = Instant::now();
    let replayer = Replayer::new(workload);
    let t0 = Instant::now();
    let db_file = db_dir.map(|d| d.join(format!("am-bench-{}-{run_no}.db", std::process::id())));
    if let Some(f) = &db_file {
        let _ = std::fs::remove_file(f);
    }
    let mut mem = match &db_file {
        None => Memory::open_in_memory_with_clock(Box::new(replayer.clock.clone())).expect("open_in_memory_with_clock"),
        Some(f) if encrypted => Memory::open_encrypted(f, associative_memory::Key::Raw([7; 32]), Box::new(replayer.clock.clone()))
            .expect("Memory::open_encrypted"),
        Some(f) => Memory::open(f, Box::new(replayer.clock.clone())).expect("Memory::open"),
    };
    let open_ms = t0.elapsed().as_secs_f64() * 1000.0;

    let mut order: Vec<String> = Vec::new();
    let mut kinds: BTreeMap<String, Kind> = BTreeMap::new();
    let mut dump = dump_path.map(|p| std::io::BufWriter::new(std::fs::File::create(p).expect("create BENCH_DUMP")));
    for (i, op) in ops.iter().enumerate() {
        let kind = op.get("op").and_then(Value::as_str).unwrap_or("?").to_string();
        if !kinds.contains_key(&kind) {
            order.push(kind.clone());
        }
        let entry = kinds.entry(kind.clone()).or_default();
        if entry.skipped.is_some() {
            // Skipped kinds are not called, but a skipped write still moves the clock,
            // so the later ops see the same times as in the reference run.
            replayer.done(op);
            continue;
        }
        let (tool, args) = match replayer.prepare(op) {
            Step::Clock => continue,
            Step::Call { tool, args } => (tool, args),
            Step::Sql { .. } | Step::Unknown(_) => {
                entry.skipped = Some(format!("op kind {kind:?} not replayed by this bench"));
                replayer.done(op);
                continue;
            }
        };

        let t = Instant::now();
        let result = mem.call(&tool, &args);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if let Some(w) = dump.as_mut() {
            use std::io::Write;
            let line = match &result {
                Ok(v) => json!({"i": i, "op": kind, "result": v}),
                Err(e) => json!({"i": i, "op": kind, "error": {"code": e.code(), "message": e.to_string()}}),
            };
            writeln!(w, "{line}").unwrap();
        }
        match result {
            Ok(_) => entry.times_ms.push(ms),
            Err(e) if matches!(e.code(), "unsupported" | "unknown_tool") => {
                entry.skipped = Some(format!("{}: {}", e.code(), e));
            }
            Err(e) => {
                entry.times_ms.push(ms);
                entry.errors += 1;
                entry.first_error.get_or_insert_with(|| format!("op {}: {}: {}", kind, e.code(), e));
            }
        }
        replayer.done(op);
    }
    drop(mem);
    if let Some(f) = &db_file {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", f.display()));
        }
    }
    Run { order, kinds, open_ms, wall_ms: wall.elapsed().as_secs_f64() * 1000.0 }
}

fn print_run(run: &Run, label: &str) {
    println!("{label}: open {:.3} ms, whole replay {:.1} ms", run.open_ms, run.wall_ms);
    println!("  {:<13} {:>6} {:>10} {:>10} {:>10} {:>10} {:>11}", "op", "n", "mean ms", "p50 ms", "p95 ms", "max ms", "total ms");
    for kind in &run.order {
        let k = &run.kinds[kind];
        let s = summary(k);
        if let Some(reason) = s.get("skipped") {
            println!("  {:<13} skipped ({})", kind, reason.as_str().unwrap_or(""));
            continue;
        }
        let f = |key: &str| s.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN);
        println!(
            "  {:<13} {:>6} {:>10.4} {:>10.4} {:>10.4} {:>10.4} {:>11.2}{}",
            kind,
            k.times_ms.len(),
            f("mean_ms"),
            f("p50_ms"),
            f("p95_ms"),
            f("max_ms"),
            f("total_ms"),
            if k.errors > 0 {
                format!("   ERRORS {} (first: {})", k.errors, k.first_error.as_deref().unwrap_or(""))
            } else {
                String::new()
            }
        );
    }
}

fn main() {
    // cargo bench passes `--bench` to a harness = false target; ignore what we don't know.
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| argv.iter().position(|a| a == name).and_then(|i| argv.get(i + 1).cloned());
    let manifest = env!("CARGO_MANIFEST_DIR");
    let workload_path = flag("--workload")
        .or_else(|| std::env::var("BENCH_WORKLOAD").ok())
        .unwrap_or_else(|| "../shared/conformance/bench/bench_1000.json".into());
    let workload_path = {
        let p = std::path::Path::new(&workload_path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::path::Path::new(manifest).join(p)
        }
    };
    let json_path = flag("--json").or_else(|| std::env::var("BENCH_JSON").ok());
    let runs: usize = flag("--runs")
        .or_else(|| std::env::var("BENCH_RUNS").ok())
        .map(|s| s.parse().expect("runs must be a positive integer"))
        .unwrap_or(1)
        .max(1);
    let dump_path = flag("--dump").or_else(|| std::env::var("BENCH_DUMP").ok());
    let db_dir = flag("--db-dir").or_else(|| std::env::var("BENCH_DB_DIR").ok()).map(std::path::PathBuf::from);
    let encrypted = argv.iter().any(|a| a == "--encrypted") || std::env::var_os("BENCH_ENCRYPTED").is_some();
    assert!(!encrypted || db_dir.is_some(), "--encrypted needs a file memory (--db-dir)");
    let db = db_dir
        .as_ref()
        .map_or("in-memory".to_string(), |d| format!("{}file in {}", if encrypted { "encrypted " } else { "" }, d.display()));

    let text = std::fs::read_to_string(&workload_path).unwrap_or_else(|e| panic!("read {}: {e}", workload_path.display()));
    let workload: Value = serde_json::from_str(&text).expect("workload is not JSON");
    println!(
        "associative-memory native replay of {} ({} ops), {} run(s), profile {}, db {}",
        workload_path.display(),
        workload.get("ops").and_then(Value::as_array).map_or(0, Vec::len),
        runs,
        if cfg!(debug_assertions) { "debug" } else { "release" },
        db
    );

    let mut results = Vec::new();
    for r in 0..runs {
        let dump = if r == 0 { dump_path.as_deref() } else { None };
        let run = replay(&workload, db_dir.as_deref(), encrypted, r, dump);
        print_run(&run, &format!("run {}", r + 1));
        let ops: Map<String, Value> = run.order.iter().map(|k| (k.clone(), summary(&run.kinds[k]))).collect();
        results.push(json!({"open_ms": run.open_ms, "wall_ms": run.wall_ms, "ops": ops}));
    }

    // Median over runs of each per-run statistic (only meaningful with --runs > 1).
    let mut median = Map::new();
    if runs > 1 {
        let kinds: Vec<String> = results[0]["ops"].as_object().unwrap().keys().cloned().collect();
        println!("median over {runs} runs:");
        for kind in kinds {
            let mut m = Map::new();
            for stat in ["mean_ms", "p50_ms", "p95_ms", "max_ms", "total_ms"] {
                let mut v: Vec<f64> = results.iter().filter_map(|r| r["ops"][&kind][stat].as_f64()).collect();
                if v.is_empty() {
                    continue;
                }
                v.sort_by(|a, b| a.partial_cmp(b).unwrap());
                m.insert(stat.into(), json!(v[v.len() / 2]));
            }
            if m.is_empty() {
                println!("  {:<13} skipped", kind);
            } else {
                println!(
                    "  {:<13} mean {:.4} ms  p95 {:.4} ms  (min..max of run means {:.4}..{:.4})",
                    kind,
                    m["mean_ms"].as_f64().unwrap(),
                    m["p95_ms"].as_f64().unwrap(),
                    results.iter().filter_map(|r| r["ops"][&kind]["mean_ms"].as_f64()).fold(f64::INFINITY, f64::min),
                    results.iter().filter_map(|r| r["ops"][&kind]["mean_ms"].as_f64()).fold(0.0, f64::max),
                );
            }
            median.insert(kind, Value::Object(m));
        }
    }

    if let Some(path) = json_path {
        let out = json!({
            "impl": "native",
            "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
            "workload": workload_path.display().to_string(),
            "db": db,
            "timer": "std::time::Instant around Memory::call; fresh memory per run; no warm-up",
            "runs": results,
            "median_over_runs": median,
        });
        std::fs::write(&path, serde_json::to_string_pretty(&out).unwrap() + "\n").unwrap_or_else(|e| panic!("write {path}: {e}"));
        println!("wrote {path}");
    }
}
