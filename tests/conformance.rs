//! The conformance runner: replays every recorded scenario of the reference implementation
//! against this engine with the same fixed clock and compares outputs field by field.
//!
//! Scenarios come from `CONFORMANCE_SCENARIOS` (default `../shared/conformance/scenarios`)
//! and from the project's own `tests/scenarios/`: every `X.json` with a recorded `X.out.jsonl` beside it, so a newly recorded scenario needs
//! no code change. Every op is compared, nothing skipped: the tool ops (store, episode,
//! declare, retract, traverse, get_contents, delete, recall, reconstruct, `tool`) through
//! `Memory::call`, and the driver's read-only `sql` op run on our own database (its tables
//! are the design's). The replay itself (op → tool, clock rules) is `tests/common/replay.rs`,
//! shared with the ops bench. An op whose difference is deliberate is listed, with its reason, in
//! the table of `tests/CONFORMANCE.md`; the runner reads that table, counts those ops as
//! documented, and fails on any other difference.

#[path = "common/replay.rs"]
mod replay;

use associative_memory::Memory;
use replay::{sql_rows, Replayer, Step};
use serde_json::{json, Value};
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

/// The reference's recorded scenarios, then the project's own (`tests/scenarios/`,
/// recorded with the same driver).
fn scenario_dirs() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared =
        std::env::var_os("CONFORMANCE_SCENARIOS").map(PathBuf::from).unwrap_or_else(|| root.join("../shared/conformance/scenarios"));
    vec![shared, root.join("tests/scenarios")]
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
    let replayer = Replayer::new(scenario);
    let mut memory = Memory::open_in_memory_with_clock(Box::new(replayer.clock.clone())).unwrap();
    // A twin given every call as JSON text (`call_text`, the wasm binding's door): its text
    // must be, op by op, serde_json's text of `call`'s value.
    let mut twin = Memory::open_in_memory_with_clock(Box::new(replayer.clock.clone())).unwrap();
    let mut tally = Tally::default();
    for (i, op) in scenario["ops"].as_array().unwrap().iter().enumerate() {
        let kind = op["op"].as_str().unwrap();
        let ours = match replayer.prepare(op) {
            Step::Clock => continue,
            Step::Unknown(kind) => panic!("{name} op {i}: the replayer does not know op kind {kind:?}"),
            // The driver's read-only SQL, run on our database: the tables are the design's.
            Step::Sql { query, params } => Ok(sql_rows(&memory.export().unwrap(), &query, &params)),
            Step::Call { tool, args } => {
                let (value, text) = (memory.call(&tool, &args), twin.call_text(&tool, &args));
                match (&value, text) {
                    (Ok(value), Ok(text)) => assert_eq!(text, serde_json::to_string(value).unwrap(), "{name} op {i} ({kind}) as text"),
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name} op {i} ({kind}) as text"),
                    (a, b) => panic!("{name} op {i} ({kind}): call gave {a:?}, call_text {b:?}"),
                }
                value
            }
        };
        replayer.done(op);
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
    let mut names: Vec<PathBuf> = Vec::new();
    for dir in scenario_dirs() {
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("scenario directory {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json") && p.with_extension("out.jsonl").exists())
            .collect();
        assert!(!found.is_empty(), "no recorded scenarios in {}", dir.display());
        found.sort();
        names.extend(found);
    }
    let mut failures = Vec::new();
    let documented = documented();
    for path in &names {
        let scenario: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let recorded: Vec<Value> =
            std::fs::read_to_string(path.with_extension("out.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let name = path.file_stem().unwrap().to_string_lossy();
        let tally = run(&name, &scenario, &recorded, &documented);
        println!("{name}: {} matched, {} documented differences, {} differing", tally.matched, tally.documented, tally.differing.len());
        for d in &tally.differing {
            println!("  {d}");
        }
        failures.extend(tally.differing.into_iter().map(|d| format!("{name} {d}")));
    }
    assert!(failures.is_empty(), "{} ops differ from the reference:\n{}", failures.len(), failures.join("\n"));
}
