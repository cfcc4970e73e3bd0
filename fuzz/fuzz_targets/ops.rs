//! Arbitrary operation sequences against the invariants:
//! - isolation: every record and entity an answer names belongs to the calling agent, and
//!   to a project and channel the call can read;
//! - no dangling declaration: after every write the export re-imports, and import refuses
//!   any alias, mention or relation naming a missing row, an alias claimed twice in a
//!   scope, or a normalized twin that is not its own (`src/transfer/import.rs`);
//! - deterministic replay: the same sequence on a second memory gives the same answers and
//!   the same bytes.
#![no_main]
use arbitrary::{Result, Unstructured};
use associative_memory::{FixedClock, Memory};
use associative_memory_fuzz::checked_call;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

const NAMES: &[&str] = &["Kaito", "kaito", "ｶｲﾄ", "海斗", "Ingestion", "Queue", "Mori", "STRASSE", "straße"];
const WORDS: &[&str] = &["kaito", "ingestion", "queue", "海斗", "キュー", "resized", "dropped", "events", "mori", "straße"];
const PREDICATES: &[&str] = &["maintains", "corrects", "supports", "supersedes", "uses", "Maintains"];

fn scope(u: &mut Unstructured, read: bool) -> Result<Map<String, Value>> {
    let mut m = Map::new();
    m.insert("agent_id".into(), json!(*u.choose(&["a", "b"])?));
    let projects: &[Option<&str>] = &[None, Some(""), Some("p"), Some("q")];
    let channels: &[Option<&str>] = &[None, Some(""), Some("c")];
    if let Some(p) = u.choose(projects)? {
        m.insert("project_id".into(), json!(p));
    }
    if let Some(c) = u.choose(channels)? {
        m.insert("channel".into(), json!(c));
    }
    let _ = read;
    Ok(m)
}

fn text(u: &mut Unstructured) -> Result<String> {
    let n = u.int_in_range(1..=4)?;
    Ok((0..n).map(|_| u.choose(WORDS).map(|w| w.to_string())).collect::<Result<Vec<_>>>()?.join(" "))
}

fn endpoint(u: &mut Unstructured) -> Result<Value> {
    Ok(if u.ratio(1, 3)? { json!(format!("{}:{}", u.choose(&["mem", "ep"])?, u.int_in_range(1..=8)?)) } else { json!(*u.choose(NAMES)?) })
}

fn associations(u: &mut Unstructured) -> Result<Value> {
    let entities: Vec<Value> = (0..u.int_in_range(0..=2)?)
        .map(|_| {
            let aliases: Vec<&str> = (0..u.int_in_range(0..=2)?).map(|_| u.choose(NAMES).copied()).collect::<Result<_>>()?;
            Ok(json!({"name": *u.choose(NAMES)?, "aliases": aliases}))
        })
        .collect::<Result<_>>()?;
    let relations: Vec<Value> = (0..u.int_in_range(0..=2)?)
        .map(|_| Ok(json!({"subject": endpoint(u)?, "predicate": *u.choose(PREDICATES)?, "object": endpoint(u)?})))
        .collect::<Result<_>>()?;
    Ok(json!({"entities": entities, "relations": relations}))
}

fn op(u: &mut Unstructured) -> Result<(&'static str, Value)> {
    let tool = *u.choose(&[
        "store",
        "store",
        "store",
        "archive_episode",
        "declare_associations",
        "declare_associations",
        "delete_memory",
        "delete_episode",
        "delete_entity",
        "recall",
        "reconstruct",
        "traverse",
        "get_contents",
        "list_entities",
    ])?;
    let mut args = scope(u, !matches!(tool, "store" | "archive_episode" | "declare_associations"))?;
    match tool {
        "store" => {
            args.insert("content".into(), json!(text(u)?));
            if u.ratio(1, 3)? {
                args.insert("timestamp".into(), json!(format!("2026-01-01T00:00:{:02}Z", u.int_in_range(0..=59)?)));
            }
            if u.ratio(1, 4)? {
                args.insert("embedding".into(), json!([u.int_in_range(0..=3)?, 1, 0]));
            }
            if u.ratio(2, 3)? {
                args.insert("associations".into(), associations(u)?);
            }
        }
        "archive_episode" => {
            args.insert("summary".into(), json!(text(u)?));
            args.insert("keywords".into(), json!(text(u)?));
        }
        "declare_associations" => {
            args.insert("associations".into(), associations(u)?);
            if u.ratio(1, 3)? {
                args.insert("anchor_ref".into(), endpoint(u)?);
            }
            if u.ratio(1, 4)? {
                args.insert(
                    "retract".into(),
                    json!({"relations": [u.int_in_range(1..=6)?],
                    "mentions": [{"entity": *u.choose(NAMES)?, "ref": format!("mem:{}", u.int_in_range(1..=8)?)}]}),
                );
            }
            if u.ratio(1, 4)? {
                args.insert("declared_by".into(), json!("operator"));
            }
        }
        "delete_memory" | "delete_episode" | "delete_entity" => {
            let field = format!("{}_id", tool.trim_start_matches("delete_"));
            args.insert(field.replace("memory_id", "memory_id"), json!(u.int_in_range(1..=8)?));
            args.remove("project_id");
            args.remove("channel");
        }
        "recall" | "reconstruct" => {
            args.insert("query".into(), json!(text(u)?));
            if u.ratio(1, 3)? {
                args.insert("deep".into(), json!(true));
            }
            if tool == "reconstruct" {
                args.insert("max_hops".into(), json!(u.int_in_range(0..=3)?));
                if u.ratio(1, 3)? {
                    args.insert("budget".into(), json!(u.int_in_range(1..=400)?));
                }
            } else if u.ratio(1, 4)? {
                args.insert("query_embedding".into(), json!([1, u.int_in_range(0..=2)?, 0]));
            }
        }
        "traverse" => {
            args.insert("entity".into(), json!(*u.choose(NAMES)?));
            args.insert("max_hops".into(), json!(u.int_in_range(1..=3)?));
        }
        "get_contents" => {
            let refs: Vec<String> = (1..=4).map(|i| format!("mem:{i}")).chain(["ep:1".into(), "ep:2".into()]).collect();
            args.insert("refs".into(), json!(refs));
            args.remove("project_id");
            args.remove("channel");
        }
        _ => {}
    }
    Ok((tool, Value::Object(args)))
}

/// Record refs (`mem:`/`ep:`) and entity ids anywhere in an answer.
fn named(v: &Value, refs: &mut Vec<String>, entities: &mut Vec<i64>) {
    match v {
        Value::String(s)
            if (s.starts_with("mem:") || s.starts_with("ep:")) && s.split(':').nth(1).is_some_and(|d| d.parse::<i64>().is_ok()) =>
        {
            refs.push(s.clone())
        }
        Value::Array(a) => a.iter().for_each(|x| named(x, refs, entities)),
        Value::Object(o) => {
            for (k, x) in o {
                if k == "missing" || k == "dropped" || k == "query" {
                    continue;
                }
                if k == "entities" {
                    for e in x.as_array().into_iter().flatten() {
                        if let Some(id) = e.get("id").and_then(Value::as_i64) {
                            entities.push(id);
                        }
                    }
                }
                named(x, refs, entities);
            }
        }
        _ => {}
    }
}

/// Every row an answer names is the caller's and in a bucket the call reads.
fn check_isolation(bytes: &[u8], tool: &str, args: &Value, answer: &Value) {
    if ["store", "archive_episode", "declare_associations"].contains(&tool) {
        return; // a write's answer names what the caller itself wrote or referred to
    }
    let (mut refs, mut entities) = (Vec::new(), Vec::new());
    named(answer, &mut refs, &mut entities);
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, bytes, bytes.len(), true).unwrap();
    let agent = args["agent_id"].as_str().unwrap();
    let project = args.get("project_id").and_then(Value::as_str);
    let channel = args.get("channel").and_then(Value::as_str).filter(|c| !c.is_empty());
    let rows = refs
        .iter()
        .map(|r| {
            let (kind, id) = r.split_once(':').unwrap();
            let table = if kind == "mem" { "memories" } else { "episodes" };
            (r.clone(), format!("SELECT agent_id, project_id, channel FROM {table} WHERE id = {id}"))
        })
        .chain(
            entities
                .iter()
                .map(|id| (format!("entity {id}"), format!("SELECT agent_id, project_id, channel FROM entities WHERE id = {id}"))),
        );
    for (what, sql) in rows {
        let Ok((a, p, c)) = conn.query_row(&sql, [], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))
        else {
            continue; // a row the answer names that no longer exists (a delete's own id)
        };
        assert_eq!(a, agent, "{tool} {args}: {what} belongs to agent {a}\n{answer}");
        if let Some(p_read) = project {
            assert!(p == p_read || p.is_empty(), "{tool} {args}: {what} is in project {p:?}\n{answer}");
        }
        if let Some(c_read) = channel {
            assert!(c == c_read || c.is_empty(), "{tool} {args}: {what} is in channel {c:?}\n{answer}");
        }
    }
}

fn run(ops: &[(&'static str, Value)], check: bool) -> (Vec<Option<Value>>, Vec<u8>) {
    let clock = FixedClock::new(1_767_225_600_000);
    let mut m = Memory::open_in_memory_with_clock(Box::new(clock.clone())).unwrap();
    let mut answers = Vec::new();
    for (tool, args) in ops {
        let answer = checked_call(&mut m, tool, args);
        clock.advance_ms(1000);
        if check {
            let bytes = m.export().unwrap();
            if let Some(a) = &answer {
                check_isolation(&bytes, tool, args, a);
            }
            let mut copy = Memory::open_in_memory().unwrap();
            copy.import(&bytes).unwrap_or_else(|e| panic!("after {tool} {args}: the memory breaks an invariant: {e}"));
        }
        answers.push(answer);
    }
    (answers, m.export().unwrap())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let mut ops = Vec::new();
    while ops.len() < 24 {
        match op(&mut u) {
            Ok(o) => ops.push(o),
            Err(_) => break,
        }
        if u.is_empty() {
            break;
        }
    }
    let (first, bytes) = run(&ops, true);
    let (second, bytes_again) = run(&ops, false);
    assert_eq!(first, second, "a replay answered differently");
    assert!(bytes == bytes_again, "a replay left different bytes");
});
