//! The one scenario replayer: how an op of a reference scenario or bench workload becomes a
//! `Memory::call`, and the clock rules of the reference driver (`cpersona_driver.py`).
//!
//! Shared by the conformance runner (`tests/conformance.rs`) and the ops bench
//! (`benches/ops.rs`, through `#[path]`), so the two cannot replay differently. It lives
//! with the tests, not in the crate: only dev-time code replays scenarios, so the library
//! (and its wasm build) carries none of it and needs no feature for it.
//!
//! Clock rules: a fixed clock starts at the scenario's `clock.start`; after every write op
//! (store, episode, declare, retract) it moves on by `clock.step_seconds` (default 3600); a
//! store without a timestamp is given the clock's now; a store with a later timestamp
//! first moves the clock to it; a `clock` op sets and/or advances it.
#![allow(dead_code)]

use associative_memory::{format_iso, parse_iso, Clock, FixedClock};
use serde_json::{json, Map, Value};

/// Op kinds after which the clock moves on.
pub const WRITES: &[&str] = &["store", "episode", "declare", "retract"];

/// What one scenario op asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A `clock` op, already applied.
    Clock,
    /// The driver's read-only SQL against the database.
    Sql { query: String, params: Vec<Value> },
    /// A tool call.
    Call { tool: String, args: Value },
    /// An op kind the replayer does not know.
    Unknown(String),
}

/// A scenario's clock and default agent.
pub struct Replayer {
    /// The clock every write is stamped by; give it to the memory at open time.
    pub clock: FixedClock,
    agent: String,
    step_ms: i64,
}

impl Replayer {
    /// The replayer for a scenario or workload (its `agent_id` and `clock`).
    pub fn new(scenario: &Value) -> Self {
        let start = scenario["clock"]["start"].as_str().unwrap_or("2026-01-01T00:00:00+00:00");
        let step_ms = (scenario["clock"]["step_seconds"].as_f64().unwrap_or(3600.0) * 1000.0) as i64;
        let clock = FixedClock::new(parse_iso(start).expect("clock.start is ISO-8601"));
        Replayer { clock, agent: scenario["agent_id"].as_str().unwrap_or("agent").to_owned(), step_ms }
    }

    /// The step for `op`, applying what the driver applies before the call (a `clock` op;
    /// a store's timestamp rule).
    pub fn prepare(&self, op: &Value) -> Step {
        let op = op.as_object().expect("a scenario op is an object");
        let kind = op["op"].as_str().expect("a scenario op has a kind");
        let mut args: Map<String, Value> = op.iter().filter(|(k, _)| *k != "op").map(|(k, v)| (k.clone(), v.clone())).collect();
        let tool = match kind {
            "clock" => {
                if let Some(set) = op.get("set").and_then(Value::as_str) {
                    self.clock.set_ms(parse_iso(set).expect("clock.set is ISO-8601"));
                }
                self.clock.advance_ms((op.get("advance").and_then(Value::as_f64).unwrap_or(0.0) * 1000.0) as i64);
                return Step::Clock;
            }
            "sql" => {
                let query = op["query"].as_str().expect("an sql op has a query").to_owned();
                let params = op.get("params").and_then(Value::as_array).cloned().unwrap_or_default();
                return Step::Sql { query, params };
            }
            "tool" => {
                return Step::Call {
                    tool: op["name"].as_str().expect("a tool op has a name").to_owned(),
                    args: op.get("args").cloned().unwrap_or(json!({})),
                };
            }
            "store" => "store",
            "episode" => "archive_episode",
            "declare" | "retract" => "declare_associations",
            "traverse" | "recall" | "reconstruct" | "get_contents" => kind,
            "delete" => {
                let r = args.remove("ref").and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
                let (prefix, id) = r.split_once(':').expect("a delete names a ref");
                let id: i64 = id.parse().expect("a delete ref has a numeric id");
                let (tool, field) = if prefix == "mem" { ("delete_memory", "memory_id") } else { ("delete_episode", "episode_id") };
                args.insert(field.into(), json!(id));
                tool
            }
            other => return Step::Unknown(other.to_owned()),
        };
        if kind == "retract" && !args.contains_key("retract") {
            let retract: Map<String, Value> =
                ["relations", "mentions"].iter().filter_map(|k| args.remove(*k).map(|v| (k.to_string(), v))).collect();
            args.insert("retract".into(), Value::Object(retract));
        }
        args.entry("agent_id").or_insert(json!(self.agent));
        if kind == "store" {
            match args.get("timestamp").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                // (one that is not ISO-8601 is passed on as given, for the call to refuse)
                Some(ts) => {
                    if let Some(ts) = parse_iso(ts) {
                        self.clock.set_ms(self.clock.now_ms().max(ts));
                    }
                }
                None => {
                    args.insert("timestamp".into(), json!(format_iso(self.clock.now_ms())));
                }
            }
        }
        Step::Call { tool: tool.to_owned(), args: Value::Object(args) }
    }

    /// What the driver does after the op: a write moves the clock on (whether or not the
    /// call was made or succeeded, so later ops see the reference's times).
    pub fn done(&self, op: &Value) {
        if op["op"].as_str().is_some_and(|k| WRITES.contains(&k)) {
            self.clock.advance_ms(self.step_ms);
        }
    }
}

/// The two tables of the design (§1) that store a record ref as text, `entity_mentions.ref`
/// and `relations.anchor_ref`, which schema version 4 stores as a kind and an id: views in
/// the design's spelling, in the `temp` schema, where an unqualified name is looked up
/// first, so a driver's query reads them as the reference's tables.
const DESIGN_TABLES: &str = "
CREATE TEMP VIEW entity_mentions AS
    SELECT entity_id, ref_kind || ':' || ref_id AS ref, declared_by, created_at FROM main.entity_mentions;
CREATE TEMP VIEW relations AS
    SELECT id, agent_id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id,
           CASE anchor_kind WHEN '' THEN '' ELSE anchor_kind || ':' || anchor_id END AS anchor_ref, declared_by, declared_at
      FROM main.relations;";

/// The rows of a read-only SQL query over a database image, as the driver prints them:
/// `{"rows": [[col, …], …]}`. The query reads the design's tables (see [`DESIGN_TABLES`]).
pub fn sql_rows(image: &[u8], query: &str, params: &[Value]) -> Value {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, image, image.len(), true).unwrap();
    conn.execute_batch(DESIGN_TABLES).unwrap();
    let params: Vec<rusqlite::types::Value> = params
        .iter()
        .map(|p| match p {
            Value::Null => rusqlite::types::Value::Null,
            Value::Bool(b) => rusqlite::types::Value::Integer(i64::from(*b)),
            Value::Number(n) => {
                n.as_i64().map_or_else(|| rusqlite::types::Value::Real(n.as_f64().unwrap()), rusqlite::types::Value::Integer)
            }
            Value::String(s) => rusqlite::types::Value::Text(s.clone()),
            other => rusqlite::types::Value::Text(other.to_string()),
        })
        .collect();
    let mut stmt = conn.prepare(query).unwrap_or_else(|e| panic!("{query}: {e}"));
    let n = stmt.column_count();
    let rows: Vec<Value> = stmt
        .query_map(rusqlite::params_from_iter(params), |r| {
            (0..n)
                .map(|i| {
                    Ok(match r.get::<_, rusqlite::types::Value>(i)? {
                        rusqlite::types::Value::Null => Value::Null,
                        rusqlite::types::Value::Integer(i) => json!(i),
                        rusqlite::types::Value::Real(f) => json!(f),
                        rusqlite::types::Value::Text(t) => json!(t),
                        rusqlite::types::Value::Blob(b) => json!(b),
                    })
                })
                .collect::<rusqlite::Result<Vec<_>>>()
                .map(Value::Array)
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    json!({ "rows": rows })
}
