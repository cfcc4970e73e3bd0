//! export_memories / import_memories in the reference's JSONL format: a file the reference
//! implementation exported (`tests/fixtures/reference/export.jsonl`, written by its
//! `export_memories` from `export.json` through ../shared/conformance/cpersona_driver.py)
//! imports with its memories, episodes and declarations; ours round-trips; a malformed
//! record names its line and writes nothing.

mod common;
use common::fixture;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const REFERENCE: &str = include_str!("fixtures/reference/export.jsonl");

fn names(t: &Value) -> Vec<String> {
    t["entities"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn the_references_export_imports_with_its_records_and_declarations() {
    let mut f = fixture();
    let out = f.ok("import_memories", json!({"jsonl": REFERENCE, "target_agent_id": "b"}));
    assert_eq!(
        out,
        json!({"ok": true, "version": "cpersona-export/1.1", "memories": 3, "episodes": 1, "entities": 3, "mentions": 4, "relations": 3, "dropped": []})
    );
    // The alias finds the entity; the relations and the mentions on the memory and the
    // episode came with it, pointed at the records as restored.
    let t = f.ok("traverse", json!({"agent_id": "b", "entity": "台帳サービス"}));
    assert_eq!(names(&t), ["Ledger Service", "Kaito Mori"]);
    let mut predicates: Vec<&str> = t["relations"].as_array().unwrap().iter().map(|r| r["predicate"].as_str().unwrap()).collect();
    predicates.sort();
    assert_eq!(predicates, ["discussed_in", "maintains", "reviews"]);
    let anchors: Vec<Value> = t["relations"].as_array().unwrap().iter().map(|r| r["anchor_ref"].clone()).collect();
    assert!(anchors.contains(&json!("mem:1")) && anchors.contains(&json!("ep:1")), "{anchors:?}");
    let mentions = t["entities"][0]["mentions"].clone();
    assert_eq!(mentions, json!(["ep:1", "mem:1"]));
    let got = f.ok("get_contents", json!({"agent_id": "b", "refs": ["mem:1", "mem:3", "ep:1"]}));
    let contents: Vec<&str> = got["items"].as_array().unwrap().iter().map(|i| i["content"].as_str().unwrap()).collect();
    assert_eq!(
        contents,
        ["Kaito maintains the ledger service.", "Café menus at Straße Süd use the wallet.", "Retro on the ledger double charge"]
    );
    assert_eq!(got["items"][0]["source"], json!({"type": "User", "id": "kaito", "name": "Kaito"}));
    assert_eq!(got["items"][1]["timestamp"], "2026-04-30T00:00:00+00:00", "timestamps come in UTC as stored");
    // Project p1's entity stays in p1.
    assert_eq!(names(&f.ok("traverse", json!({"agent_id": "b", "entity": "Postgres", "project_id": "p1"}))), ["Postgres"]);
    assert_eq!(f.ok("traverse", json!({"agent_id": "b", "entity": "Postgres", "project_id": ""}))["entities"], json!([]));
    // Without a target the file's own agent is kept.
    let mut g = fixture();
    g.ok("import_memories", json!({"jsonl": REFERENCE}));
    assert_eq!(g.ok("list_memories", json!({"agent_id": "a"}))["total"], 3);
}

/// Creation and declaration times become the import's; everything else comes back alike.
fn without_times(jsonl: &str) -> Vec<Value> {
    jsonl
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            for key in ["created_at", "declared_at", "exported_at"] {
                v.as_object_mut().unwrap().remove(key);
            }
            v
        })
        .collect()
}

#[test]
fn our_export_round_trips() {
    let mut f = fixture();
    f.ok("import_memories", json!({"jsonl": REFERENCE}));
    f.ok(
        "archive_episode",
        json!({"agent_id": "a", "summary": "A call", "history": [{"role": "user", "content": "hi", "timestamp": "2026-05-02T10:00:00Z"}]}),
    );
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"entities": [{"name": "Kaito Mori", "aliases": ["KM"]}]}, "declared_by": "operator"}),
    );
    let first = f.ok("export_memories", json!({"agent_id": "a"}));
    assert_eq!((first["memories"].as_i64(), first["episodes"].as_i64(), first["relations"].as_i64()), (Some(3), Some(2), Some(3)));
    let mut g = fixture();
    let again = g.ok("import_memories", json!({"jsonl": first["jsonl"]}));
    assert_eq!(again["dropped"], json!([]));
    let second = g.ok("export_memories", json!({"agent_id": "a"}));
    assert_eq!(without_times(first["jsonl"].as_str().unwrap()), without_times(second["jsonl"].as_str().unwrap()));
    // The same database and clock give the same bytes.
    assert_eq!(
        g.ok("export_memories", json!({"agent_id": "a"}))["jsonl"].as_str().unwrap().lines().skip(1).collect::<Vec<_>>(),
        second["jsonl"].as_str().unwrap().lines().skip(1).collect::<Vec<_>>()
    );
}

#[test]
fn a_malformed_record_names_its_line_and_writes_nothing() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "already here"}));
    let before = f.memory.export().unwrap();
    let lines: Vec<&str> = REFERENCE.lines().collect();
    let with = |i: usize, line: &str| {
        let mut l = lines.clone();
        l[i] = line;
        l.join("\n")
    };
    let memory = |patch: Value| {
        let mut m: Value = serde_json::from_str(lines[1]).unwrap();
        for (k, v) in patch.as_object().unwrap() {
            m[k] = v.clone();
        }
        m.to_string()
    };
    for (jsonl, code, field) in [
        (lines[1..].join("\n"), "invalid_value", "lines[0].version"),
        (with(3, "{\"_type\": \"memory\", \"id\": 3,"), "invalid_value", "lines[3]"),
        (with(1, &memory(json!({"content": "  "}))), "invalid_value", "lines[1].content"),
        (with(1, &memory(json!({"content": 7}))), "wrong_type", "lines[1].content"),
        (with(1, &memory(json!({"timestamp": "soon"}))), "invalid_value", "lines[1].timestamp"),
        (with(1, &memory(json!({"source": {"type": "User", "colour": "red"}}))), "unknown_option", "lines[1].source.colour"),
        (with(1, &memory(json!({"agent_id": ""}))), "invalid_value", "lines[1].agent_id"),
        (with(1, &memory(json!({"id": "one"}))), "wrong_type", "lines[1].id"),
        (with(4, "{\"_type\": \"episode\", \"id\": 1, \"agent_id\": \"a\"}"), "missing_field", "lines[4].summary"),
        (with(2, "[1, 2]"), "wrong_type", "lines[2]"),
    ] {
        assert_eq!(f.err("import_memories", json!({"jsonl": jsonl})), (code.to_owned(), Some(field.to_owned())), "{field}");
        assert!(f.memory.export().unwrap() == before, "{field}: nothing was written");
    }
    // Dry: counted, not written.
    let dry = f.ok("import_memories", json!({"jsonl": REFERENCE, "dry_run": true}));
    assert_eq!((dry["dry_run"].clone(), dry["memories"].clone()), (json!(true), json!(3)));
    assert!(f.memory.export().unwrap() == before, "a dry run writes nothing");
    // A declaration the file cannot back is dropped and listed; the rest comes in.
    let dangling =
        with(9, "{\"_type\": \"mention\", \"entity\": 1, \"ref\": \"mem:99\", \"declared_by\": \"agent\", \"created_at\": \"\"}");
    let out = f.ok("import_memories", json!({"jsonl": dangling, "target_agent_id": "c"}));
    assert_eq!(out["mentions"], 3);
    assert_eq!(out["dropped"][0]["item"], "lines[9]");
    let profile = format!("{REFERENCE}{{\"_type\": \"profile\", \"agent_id\": \"a\"}}\n");
    let out = f.ok("import_memories", json!({"jsonl": profile, "target_agent_id": "d"}));
    assert_eq!(out["dropped"], json!([{"item": "lines[15]", "reason": "a \"profile\" record, which this memory does not keep"}]));
}

/// The reference implementation reads our export: its own `import_memories` (run through
/// ../shared/conformance/cpersona_driver.py, in the venv `make test`'s setup makes) brings
/// in the memories, the episode and the declarations, and its traverse finds them.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_reference_imports_our_export() {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Kaito maintains the ledger service.", "associations": {
        "entities": [{"name": "Kaito Mori", "aliases": ["森海斗"]}, {"name": "Ledger Service"}],
        "relations": [{"subject": "Kaito Mori", "predicate": "maintains", "object": "Ledger Service"}]}}),
    );
    f.ok("store", json!({"agent_id": "a", "content": "Café at Straße Süd pays through the ledger.", "project_id": "p1"}));
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "Ledger retro", "history": [{"role": "user", "content": "what broke?", "timestamp": "2026-01-02T00:00:00Z"}]}));
    let export = f.ok("export_memories", json!({"agent_id": "a"}));
    let lines = common::reference_after_import(export["jsonl"].as_str().unwrap(), "森海斗");
    let imported = &lines[0]["result"];
    assert_eq!(imported["ok"], true, "{imported}");
    let mut contents: Vec<String> =
        lines[1]["result"]["memories"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect();
    contents.sort();
    assert_eq!(contents, ["Café at Straße Süd pays through the ledger.", "Kaito maintains the ledger service."], "{}", lines[1]);
    let t = &lines[2]["result"];
    let names: Vec<&str> = t["entities"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Kaito Mori", "Ledger Service"], "{t}");
    assert_eq!(t["relations"][0]["predicate"], "maintains", "{t}");
}
