//! The conformance runner: replays every recorded scenario of the reference implementation
//! against this engine with the same fixed clock and compares outputs field by field.
//!
//! Scenarios come from `CONFORMANCE_SCENARIOS` (default `../shared/conformance/scenarios`):
//! every `X.json` with a recorded `X.out.jsonl` beside it, so a newly recorded scenario needs
//! no code change. Compared: store, episode, declare, retract, traverse, get_contents,
//! delete, recall and reconstruct. Skipped: the driver's own `sql` op, which reads the
//! reference's schema. An op whose difference is deliberate is listed, with its reason, in
//! the table of `tests/CONFORMANCE.md`; the runner reads that table, counts those ops as
//! documented, and fails on any other difference.

use associative_memory::{format_iso, parse_iso, Clock, FixedClock, Memory};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Fields that exist only because the reference is a server (see the conformance README).
const SERVER_ONLY: &[&str] = &[
    "advisory",
    "count_policy",
    "budget_policy",
    "used_budget",
    "reconstruction",
    "embedded",
    "requested_count",
    "requested_top_k",
    "requested_max_hops",
    "requested_max_evidence",
    "requested_budget",
];
/// Fields this engine adds to the reference's shapes (see `tests/CONFORMANCE.md`): compared
/// when the reference has them, not reported as extra when it does not.
const EXTENSIONS: &[&str] = &["path", "via_entity"];
const COMPARED: &[&str] = &["store", "episode", "declare", "retract", "traverse", "get_contents", "delete", "recall", "reconstruct"];
const WRITES: &[&str] = &["store", "episode", "declare", "retract"];

fn scenarios_dir() -> PathBuf {
    std::env::var_os("CONFORMANCE_SCENARIOS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/scenarios"))
}

/// The tool and arguments the reference driver would call for one scenario op.
fn translate(op: &Map<String, Value>, agent: &str) -> (String, Value) {
    let kind = op["op"].as_str().unwrap();
    let mut args: Map<String, Value> = op.iter().filter(|(k, _)| *k != "op").map(|(k, v)| (k.clone(), v.clone())).collect();
    let tool = match kind {
        "store" => "store",
        "episode" => "archive_episode",
        "declare" | "retract" => "declare_associations",
        "traverse" => "traverse",
        "recall" => "recall",
        "reconstruct" => "reconstruct",
        "get_contents" => "get_contents",
        "delete" => {
            let r = args.remove("ref").and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
            let (prefix, id) = r.split_once(':').expect("delete ref");
            let id: i64 = id.parse().expect("delete id");
            let (tool, field) = if prefix == "mem" { ("delete_memory", "memory_id") } else { ("delete_episode", "episode_id") };
            args.insert(field.into(), json!(id));
            tool
        }
        "tool" => return (op["name"].as_str().unwrap().to_owned(), op.get("args").cloned().unwrap_or(json!({}))),
        other => other,
    };
    if kind == "retract" && !args.contains_key("retract") {
        let retract: Map<String, Value> =
            ["relations", "mentions"].iter().filter_map(|k| args.remove(*k).map(|v| (k.to_string(), v))).collect();
        args.insert("retract".into(), Value::Object(retract));
    }
    args.entry("agent_id").or_insert(json!(agent));
    (tool.to_owned(), Value::Object(args))
}

/// The first difference between the recorded and our output, as a path and both values.
fn diff(path: &str, want: &Value, got: &Value) -> Option<String> {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            let server_only = |k: &str| SERVER_ONLY.contains(&k) || (["recall", "coverage"].contains(&k) && path.ends_with(".trace"));
            for (k, wv) in w.iter().filter(|(k, _)| !server_only(k)) {
                match g.get(k) {
                    None => return Some(format!("{path}.{k}: missing, reference has {wv}")),
                    Some(gv) => {
                        if let Some(d) = diff(&format!("{path}.{k}"), wv, gv) {
                            return Some(d);
                        }
                    }
                }
            }
            g.keys().find(|k| !w.contains_key(*k) && !EXTENSIONS.contains(&k.as_str())).map(|k| format!("{path}.{k}: extra field {}", g[k]))
        }
        (Value::Array(w), Value::Array(g)) if w.len() == g.len() => {
            w.iter().zip(g).enumerate().find_map(|(i, (wv, gv))| diff(&format!("{path}[{i}]"), wv, gv))
        }
        _ if want == got => None,
        _ => Some(format!("{path}: reference {want}, ours {got}")),
    }
}

fn is_error(v: &Value) -> bool {
    v.get("isError") == Some(&json!(true)) || v.get("error").is_some()
}

#[derive(Default)]
struct Tally {
    matched: usize,
    documented: usize,
    differing: Vec<String>,
    skipped: usize,
}

/// `(scenario, op index)` of every deliberate difference in tests/CONFORMANCE.md's table.
fn documented() -> Vec<(String, usize)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/CONFORMANCE.md")).expect("tests/CONFORMANCE.md");
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(|c| c.trim().trim_matches('`')).collect();
            Some((cells.get(1)?.to_string(), cells.get(2)?.parse().ok()?))
        })
        .collect()
}

fn run(name: &str, scenario: &Value, recorded: &[Value], documented: &[(String, usize)]) -> Tally {
    let agent = scenario["agent_id"].as_str().unwrap_or("agent");
    let start = scenario["clock"]["start"].as_str().unwrap_or("2026-01-01T00:00:00+00:00");
    let step_ms = scenario["clock"]["step_seconds"].as_f64().unwrap_or(3600.0) as i64 * 1000;
    let clock = FixedClock::new(parse_iso(start).unwrap());
    let mut memory = Memory::open_in_memory_with_clock(Box::new(clock.clone())).unwrap();
    let mut tally = Tally::default();
    for (i, op) in scenario["ops"].as_array().unwrap().iter().enumerate() {
        let op = op.as_object().unwrap();
        let kind = op["op"].as_str().unwrap();
        if kind == "clock" {
            if let Some(set) = op.get("set").and_then(Value::as_str) {
                clock.set_ms(parse_iso(set).unwrap());
            }
            clock.advance_ms((op.get("advance").and_then(Value::as_f64).unwrap_or(0.0) * 1000.0) as i64);
            continue;
        }
        if !COMPARED.contains(&kind) {
            tally.skipped += 1;
            continue;
        }
        let (tool, mut args) = translate(op, agent);
        if kind == "store" {
            match args.get("timestamp").and_then(Value::as_str).and_then(parse_iso) {
                Some(ts) => clock.set_ms(clock.now_ms().max(ts)),
                None => {
                    args["timestamp"] = json!(format_iso(clock.now_ms()));
                }
            }
        }
        let ours = memory.call(&tool, &args);
        if WRITES.contains(&kind) {
            clock.advance_ms(step_ms);
        }
        let want = &recorded[i]["result"];
        let difference = match (&ours, is_error(want)) {
            (Err(_), true) => None,
            (Err(e), false) => Some(format!("error {} ({e}), reference {want}", e.code())),
            (Ok(got), true) => Some(format!("reference refused ({want}), ours {got}")),
            (Ok(got), false) => diff("result", want, got),
        };
        match difference {
            None => tally.matched += 1,
            Some(_) if documented.iter().any(|(s, op)| s == name && *op == i) => tally.documented += 1,
            Some(d) => tally.differing.push(format!("op {i} ({kind}): {d}")),
        }
    }
    tally
}

#[test]
fn every_recorded_scenario_matches_the_reference() {
    let dir = scenarios_dir();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("scenario directory {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.with_extension("out.jsonl").exists())
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no recorded scenarios in {}", dir.display());
    let mut failures = Vec::new();
    let documented = documented();
    for path in &names {
        let scenario: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let recorded: Vec<Value> =
            std::fs::read_to_string(path.with_extension("out.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let name = path.file_stem().unwrap().to_string_lossy();
        let tally = run(&name, &scenario, &recorded, &documented);
        println!(
            "{name}: {} matched, {} documented differences, {} differing, {} skipped",
            tally.matched,
            tally.documented,
            tally.differing.len(),
            tally.skipped
        );
        for d in &tally.differing {
            println!("  {d}");
        }
        failures.extend(tally.differing.into_iter().map(|d| format!("{name} {d}")));
    }
    assert!(failures.is_empty(), "{} ops differ from the reference:\n{}", failures.len(), failures.join("\n"));
}
