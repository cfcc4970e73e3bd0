//! Bad input: every operation names the field it rejects, and a rejected call writes
//! nothing — checked by comparing `export` bytes before and after.

mod common;
use common::fixture;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn seeded() -> common::Fixture {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "seed", "associations": {"entities": [{"name": "Seed"}]}}));
    f
}

#[test]
fn rejected_calls_name_the_field_and_write_nothing() {
    let cases: Vec<(&str, Value, &str, Option<&str>)> = vec![
        ("store", json!({"agent_id": "a"}), "missing_field", Some("content")),
        ("store", json!({"content": "x"}), "missing_field", Some("agent_id")),
        ("store", json!({"agent_id": "a", "content": 5}), "wrong_type", Some("content")),
        ("store", json!({"agent_id": "a", "content": "   "}), "invalid_value", Some("content")),
        ("store", json!({"agent_id": "a", "content": "x", "timestamp": "last tuesday"}), "invalid_value", Some("timestamp")),
        ("store", json!({"agent_id": "a", "content": "x", "source": {"type": 1}}), "wrong_type", Some("source.type")),
        ("store", json!({"agent_id": "a", "content": "x", "source": {"kind": "User"}}), "unknown_option", Some("source.kind")),
        ("store", json!({"agent_id": "a", "content": "x", "embedding": [1.0, "two"]}), "wrong_type", Some("embedding[1]")),
        ("store", json!({"agent_id": "a", "content": "x", "metadata": [1]}), "wrong_type", Some("metadata")),
        ("store", json!({"agent_id": "a", "content": "x", "contnet": "typo"}), "unknown_option", Some("contnet")),
        ("store", json!("not an object"), "wrong_type", Some("options")),
        (
            "archive_episode",
            json!({"agent_id": "a", "summary": "s", "history": [{"role": "user", "content": "x", "timestamp": "nope"}]}),
            "invalid_value",
            Some("history[0].timestamp"),
        ),
        ("declare_associations", json!({"agent_id": "a", "anchor_ref": "memory-1"}), "bad_ref", Some("anchor_ref")),
        ("declare_associations", json!({"agent_id": "a", "associations": []}), "wrong_type", Some("associations")),
        ("declare_associations", json!({"agent_id": "a", "associations": {"entities": {}}}), "wrong_type", Some("associations.entities")),
        ("declare_associations", json!({"agent_id": "a", "associations": {"entity": []}}), "unknown_option", Some("associations.entity")),
        ("declare_associations", json!({"agent_id": "a", "retract": {"relations": 1}}), "wrong_type", Some("retract.relations")),
        ("declare_associations", json!({"agent_id": "a", "declared_by": "robot"}), "invalid_value", Some("declared_by")),
        ("traverse", json!({"agent_id": "a", "entity": "Seed", "max_hops": 9}), "out_of_range", Some("max_hops")),
        ("traverse", json!({"agent_id": "a", "entity": "Seed", "max_hops": -1}), "out_of_range", Some("max_hops")),
        ("traverse", json!({"agent_id": "a", "entity": "Seed", "limit": 0}), "out_of_range", Some("limit")),
        ("traverse", json!({"agent_id": "a", "entity": "Seed", "limit": 101}), "out_of_range", Some("limit")),
        ("traverse", json!({"agent_id": "a", "entity": "Seed", "limit": 2.5}), "wrong_type", Some("limit")),
        ("traverse", json!({"agent_id": "a", "entity": "Seed", "max_hops": "2"}), "wrong_type", Some("max_hops")),
        ("traverse", json!({"agent_id": "a"}), "missing_field", Some("entity")),
        ("get_contents", json!({"agent_id": "a", "refs": []}), "out_of_range", Some("refs")),
        ("get_contents", json!({"agent_id": "a", "refs": [1]}), "wrong_type", Some("refs[0]")),
        ("delete_memory", json!({"agent_id": "a", "memory_id": 404}), "not_found", Some("memory_id")),
        ("delete_memory", json!({"agent_id": "b", "memory_id": 1}), "not_found", Some("memory_id")),
        ("delete_memory", json!({"agent_id": "a", "memory_id": "1"}), "wrong_type", Some("memory_id")),
        ("delete_episode", json!({"agent_id": "a", "episode_id": 1}), "not_found", Some("episode_id")),
        ("delete_entity", json!({"agent_id": "a", "entity_id": 0}), "out_of_range", Some("entity_id")),
        ("list_entities", json!({"agent_id": "a", "limit": 501}), "out_of_range", Some("limit")),
        ("no_such_tool", json!({}), "unknown_tool", None),
    ];
    let mut f = seeded();
    let before = f.memory.export().unwrap();
    for (tool, args, code, field) in cases {
        let (got_code, got_field) = f.err(tool, args.clone());
        assert_eq!((got_code.as_str(), got_field.as_deref()), (code, field), "{tool} {args}");
        assert!(f.memory.export().unwrap() == before, "{tool} {args} changed the database");
    }
}

#[test]
fn error_messages_tell_the_caller_what_to_do() {
    let mut f = seeded();
    let e = f.memory.call("traverse", &json!({"agent_id": "a", "entity": "Seed", "max_hops": 9})).unwrap_err();
    assert_eq!(e.to_string(), "`max_hops` must be 0–5, got 9");
    let e = f.memory.call("traverse", &json!({"agent_id": "a", "entity": "Seed", "maxHops": 1})).unwrap_err();
    assert!(e.to_string().contains("max_hops"), "lists the accepted options: {e}");
}

#[test]
fn malformed_refs_in_get_contents_are_missing_not_errors() {
    let mut f = seeded();
    let out = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:404", "banana", "mem:001"]}));
    assert_eq!(out["count"], 2);
    assert_eq!(out["missing"], json!(["mem:404", "banana"]));
    assert_eq!(out["items"][1]["ref"], "mem:1");
    let other = f.ok("get_contents", json!({"agent_id": "b", "refs": ["mem:1"]}));
    assert_eq!(other["missing"], json!(["mem:1"]), "another agent's record is missing, never leaked");
}

#[test]
fn timestamps_are_stored_in_one_canonical_utc_spelling() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "x", "timestamp": "2026-06-01T12:00:00+02:00"}));
    f.ok("store", json!({"agent_id": "a", "content": "y"}));
    let out = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2"]}));
    assert_eq!(out["items"][0]["timestamp"], "2026-06-01T10:00:00+00:00");
    assert_eq!(out["items"][1]["timestamp"], "2026-01-01T01:00:00+00:00", "defaults to the clock's now");
    assert_eq!(out["items"][1]["source"], json!({"type": "Agent", "id": "a", "name": ""}));
}
