//! What a backup must give back, shared by `tests/hardening.rs` and the `backups` fuzz
//! target (`fuzz/fuzz_targets/backups.rs`, which includes this file): a JSONL export in a
//! form an import does not change, and a hostile file to import.
#![allow(dead_code)]

use associative_memory::Memory;
use serde_json::{json, Value};

/// A JSONL export with what an import renews taken out: ids replaced by each record's
/// position among those of its type, and references to them alike; creation and export
/// times dropped; mentions in one order.
pub fn canonical(jsonl: &str) -> Vec<Value> {
    let mut lines: Vec<Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut position = std::collections::BTreeMap::new();
    let mut counts = std::collections::BTreeMap::new();
    for line in &lines {
        let kind = line["_type"].as_str().unwrap().to_owned();
        if let Some(id) = line.get("id").and_then(Value::as_i64) {
            let n = counts.entry(kind.clone()).or_insert(0);
            *n += 1;
            position.insert((kind, id), *n);
        }
    }
    let of = |kind: &str, id: &Value| json!(position.get(&(kind.to_owned(), id.as_i64().unwrap())).copied());
    let refer = |r: &Value| {
        let (kind, id) = r.as_str().unwrap().split_once(':').unwrap();
        let kind = if kind == "mem" { "memory" } else { "episode" };
        json!(format!("{kind}#{}", of(kind, &json!(id.parse::<i64>().unwrap()))))
    };
    for line in &mut lines {
        let kind = line["_type"].as_str().unwrap().to_owned();
        let o = line.as_object_mut().unwrap();
        for key in ["exported_at", "created_at", "declared_at"] {
            o.remove(key);
        }
        if let Some(id) = o.get("id").cloned() {
            o.insert("id".into(), of(&kind, &id));
        }
        match kind.as_str() {
            "mention" => {
                o.insert("entity".into(), of("entity", &o["entity"].clone()));
                o.insert("ref".into(), refer(&o["ref"].clone()));
            }
            "relation" => {
                for end in ["subject", "object"] {
                    let k = match o[&format!("{end}_kind")].as_str().unwrap() {
                        "mem" => "memory",
                        "ep" => "episode",
                        other => other,
                    };
                    let id = o[&format!("{end}_id")].clone();
                    o.insert(format!("{end}_id"), of(k, &id));
                }
                if let Some(a) = o.get("anchor_ref").filter(|a| a.is_string()).cloned() {
                    o.insert("anchor_ref".into(), refer(&a));
                }
            }
            _ => {}
        }
    }
    // mentions are exported by entity, then by their ref as text, which renumbering reorders
    lines.sort_by_key(|l| if l["_type"] == "mention" { l.to_string() } else { String::new() });
    lines
}

/// A JSONL file made of agent `a`'s export with `b`'s declarations pointed at `a`'s
/// records: what a hostile file brings.
pub fn hostile_jsonl(m: &mut Memory) -> String {
    let mut jsonl = m.call("export_memories", &json!({"agent_id": "a"})).unwrap()["jsonl"].as_str().unwrap().to_owned();
    jsonl.push_str(&json!({"_type": "entity", "id": 9001, "agent_id": "b", "name": "Mallory", "aliases": []}).to_string());
    jsonl.push('\n');
    for id in 1..4 {
        jsonl.push_str(&json!({"_type": "mention", "entity": 9001, "ref": format!("mem:{id}")}).to_string());
        jsonl.push('\n');
        jsonl.push_str(
            &json!({"_type": "relation", "id": 9000 + id, "agent_id": "b", "subject_kind": "entity", "subject_id": 9001,
            "predicate": "watches", "object_kind": "mem", "object_id": id, "anchor_ref": format!("mem:{id}")})
            .to_string(),
        );
        jsonl.push('\n');
    }
    jsonl
}
