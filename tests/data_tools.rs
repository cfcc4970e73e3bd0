//! The reference's data tools: `list_memories`, `update_memory`, `delete_agent_data` —
//! what each changes, what it keeps, and that bad input names the field and writes nothing.

mod common;
use associative_memory::{DeleteMemoryOptions, ListMemoriesOptions, Memory, RecordId, UpdateMemoryOptions};
use common::fixture;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn ids(out: &Value) -> Vec<i64> {
    out["memories"].as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect()
}

#[test]
fn list_memories_pages_newest_first_within_the_scope() {
    let mut f = fixture();
    for i in 1..=5 {
        f.ok("store", json!({"agent_id": "a", "content": format!("note {i}"), "project_id": if i == 3 { "p" } else { "" }}));
    }
    // an older timestamp sorts last, whatever its id
    f.ok("store", json!({"agent_id": "a", "content": "long ago", "timestamp": "2020-01-01T00:00:00Z", "metadata": {"k": 1}}));
    f.ok("store", json!({"agent_id": "b", "content": "someone else's"}));
    let page = f.ok("list_memories", json!({"agent_id": "a", "limit": 2}));
    assert_eq!(ids(&page), vec![5, 4]);
    assert_eq!((page["count"].as_i64(), page["total"].as_i64(), page["next_offset"].as_i64()), (Some(2), Some(6), Some(2)));
    let rest = f.ok("list_memories", json!({"agent_id": "a", "offset": 2}));
    assert_eq!(ids(&rest), vec![3, 2, 1, 6]);
    assert!(rest.get("next_offset").is_none(), "the last page has no next");
    assert_eq!(rest["memories"][3]["metadata"], json!({"k": 1}));
    assert_eq!(rest["memories"][3]["source"], json!({"type": "Agent", "id": "a", "name": ""}));
    // the global pool only: project p's memory is left out
    assert_eq!(ids(&f.ok("list_memories", json!({"agent_id": "a", "project_id": ""}))), vec![5, 4, 2, 1, 6]);
    assert_eq!(ids(&f.ok("list_memories", json!({"agent_id": "b"}))), vec![7]);
}

#[test]
fn update_memory_changes_text_and_search_and_keeps_declarations() {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Kaito maintains the ledger.", "embedding": [1.0, 0.0],
               "associations": {"relations": [{"subject": "Kaito", "predicate": "maintains", "object": "Ledger"}]}}),
    );
    let out = f.ok("update_memory", json!({"agent_id": "a", "memory_id": 1, "content": "Kaito maintains the payroll.", "metadata": {"edited": true}, "timestamp": "2026-03-01T09:00:00+09:00"}));
    assert_eq!(out, json!({"ok": true, "updated_id": 1}));
    // lexical search follows the new text, not the old
    let hits =
        |f: &mut common::Fixture, q: &str| f.ok("recall", json!({"agent_id": "a", "query": q}))["messages"].as_array().unwrap().len();
    assert_eq!(hits(&mut f, "payroll"), 1);
    assert_eq!(hits(&mut f, "ledger"), 0);
    // the stale vector went with the old text
    let vec = f.ok("recall", json!({"agent_id": "a", "query": "zzz", "query_embedding": [1.0, 0.0]}));
    assert_eq!(vec["messages"].as_array().unwrap().len(), 0, "{vec}");
    // the relation anchored on it stays
    let graph = f.ok("traverse", json!({"agent_id": "a", "entity": "Kaito"}));
    assert_eq!(graph["relations"].as_array().unwrap().len(), 1, "{graph}");
    let got = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1"]}));
    assert_eq!(got["items"][0]["metadata"], json!({"edited": true}));
    assert_eq!(got["items"][0]["timestamp"], "2026-03-01T00:00:00+00:00", "stored in UTC, as store stores it");
    // a new embedding with the text is kept
    f.ok("update_memory", json!({"agent_id": "a", "memory_id": 1, "content": "Kaito runs payroll.", "embedding": [0.0, 1.0]}));
    let vec = f.ok("recall", json!({"agent_id": "a", "query": "zzz", "query_embedding": [0.0, 1.0]}));
    assert_eq!(vec["messages"].as_array().unwrap().len(), 1, "{vec}");
}

#[test]
fn update_statistics_match_a_fresh_store_of_the_new_text() {
    // the per-agent statistics after an update equal those of a memory stored with the
    // new text: recall scores of a second record come out the same
    let mut edited = fixture();
    edited.ok("store", json!({"agent_id": "a", "content": "short"}));
    edited.ok("store", json!({"agent_id": "a", "content": "the quarterly ledger review"}));
    edited.ok("update_memory", json!({"agent_id": "a", "memory_id": 1, "content": "a much longer text about the ledger and more"}));
    let mut fresh = fixture();
    fresh.ok("store", json!({"agent_id": "a", "content": "a much longer text about the ledger and more"}));
    fresh.ok("store", json!({"agent_id": "a", "content": "the quarterly ledger review"}));
    let score = |f: &mut common::Fixture| f.ok("recall", json!({"agent_id": "a", "query": "ledger review"}))["messages"].clone();
    let (a, b) = (score(&mut edited), score(&mut fresh));
    assert_eq!(a.as_array().unwrap().len(), 2, "{a}");
    assert_eq!(a, b);
}

#[test]
fn delete_agent_data_takes_everything_of_one_agent_and_counts_it() {
    let mut f = fixture();
    let assoc = json!({"entities": [{"name": "MizEye", "aliases": ["ミズアイ"]}],
                       "relations": [{"subject": "Kirari", "predicate": "maintains", "object": "MizEye"}]});
    for agent in ["a", "b"] {
        f.ok("store", json!({"agent_id": agent, "content": "Kirari maintains MizEye.", "associations": assoc}));
        f.ok("store", json!({"agent_id": agent, "content": "second", "project_id": "p", "channel": "c"}));
        f.ok("archive_episode", json!({"agent_id": agent, "summary": "a talk about MizEye"}));
    }
    let b_before = f.ok("list_memories", json!({"agent_id": "b"}));
    let out = f.ok("delete_agent_data", json!({"agent_id": "a"}));
    assert_eq!(
        out,
        json!({"ok": true, "agent_id": "a", "deleted_memories": 2, "deleted_episodes": 1, "deleted_entities": 2, "deleted_relations": 1})
    );
    assert_eq!(f.ok("list_memories", json!({"agent_id": "a"}))["total"], 0);
    assert_eq!(f.ok("list_entities", json!({"agent_id": "a"}))["total"], 0);
    assert_eq!(f.ok("recall", json!({"agent_id": "a", "query": "MizEye"}))["messages"], json!([]));
    assert_eq!(f.ok("list_memories", json!({"agent_id": "b"})), b_before);
    assert_eq!(f.ok("traverse", json!({"agent_id": "b", "entity": "ミズアイ"}))["relations"].as_array().unwrap().len(), 1);
    // again: nothing left, zeros
    assert_eq!(f.ok("delete_agent_data", json!({"agent_id": "a"}))["deleted_memories"], 0);
}

#[test]
fn bad_input_names_the_field_and_writes_nothing() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "seed"}));
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        ("list_memories", json!({"agent_id": "a", "limit": 0}), "out_of_range", "limit"),
        ("list_memories", json!({"agent_id": "a", "limit": 501}), "out_of_range", "limit"),
        ("list_memories", json!({"agent_id": "a", "offset": -1}), "out_of_range", "offset"),
        ("list_memories", json!({"agent_id": ""}), "invalid_value", "agent_id"),
        ("list_memories", json!({"agent_id": "a", "page": 2}), "unknown_option", "page"),
        ("update_memory", json!({"agent_id": "a", "memory_id": 1}), "missing_field", "content"),
        ("update_memory", json!({"agent_id": "a", "content": "x"}), "missing_field", "memory_id"),
        ("update_memory", json!({"agent_id": "a", "memory_id": 2, "content": "x"}), "not_found", "memory_id"),
        ("update_memory", json!({"agent_id": "b", "memory_id": 1, "content": "x"}), "not_found", "memory_id"),
        ("update_memory", json!({"agent_id": "a", "memory_id": 1, "content": " "}), "invalid_value", "content"),
        ("update_memory", json!({"agent_id": "a", "memory_id": 1, "timestamp": "soon"}), "invalid_value", "timestamp"),
        ("update_memory", json!({"agent_id": "a", "memory_id": 1, "metadata": "x"}), "wrong_type", "metadata"),
        ("update_memory", json!({"agent_id": "a", "memory_id": 0, "content": "x"}), "out_of_range", "memory_id"),
        ("update_memory", json!({"agent_id": "a", "memory_id": "mem:2", "content": "x"}), "not_found", "memory_id"),
        ("update_memory", json!({"agent_id": "b", "memory_id": "mem:1", "content": "x"}), "not_found", "memory_id"),
        ("update_memory", json!({"agent_id": "a", "memory_id": "ep:1", "content": "x"}), "invalid_value", "memory_id"),
        ("update_memory", json!({"agent_id": "a", "memory_id": "memory-1", "content": "x"}), "bad_ref", "memory_id"),
        ("update_memory", json!({"agent_id": "a", "memory_id": "mem:1.5", "content": "x"}), "bad_ref", "memory_id"),
        ("update_memory", json!({"agent_id": "a", "memory_id": false, "content": "x"}), "wrong_type", "memory_id"),
        ("delete_agent_data", json!({"agent_id": ""}), "invalid_value", "agent_id"),
        ("delete_agent_data", json!({}), "missing_field", "agent_id"),
        // the limits every other operation keeps (src/api/mod.rs)
        ("list_memories", json!({"agent_id": "a", "project_id": "p".repeat(257)}), "out_of_range", "project_id"),
        ("update_memory", json!({"agent_id": "a", "memory_id": 1, "content": "x".repeat(1_048_577)}), "out_of_range", "content"),
        ("update_memory", json!({"agent_id": "a", "memory_id": 1, "content": "a\u{0}b"}), "invalid_value", "content"),
        ("update_memory", json!({"agent_id": "a", "memory_id": 1, "metadata": {"k": "x".repeat(65_536)}}), "out_of_range", "metadata"),
        ("delete_agent_data", json!({"agent_id": "a".repeat(257)}), "out_of_range", "agent_id"),
    ];
    let before = f.memory.export().unwrap();
    for (tool, args, code, field) in cases {
        let (got_code, got_field) = f.err(tool, args.clone());
        assert_eq!((got_code.as_str(), got_field.as_deref()), (code, Some(field)), "{tool} {args}");
        assert!(f.memory.export().unwrap() == before, "{tool} {args} changed the database");
    }
}

/// An update with nothing to change names every option that would do, not `content` alone:
/// metadata, a timestamp or an embedding by itself is an update too.
#[test]
fn an_update_with_nothing_to_change_names_every_option_that_would_do() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "seed"}));
    let e = f.memory.call("update_memory", &json!({"agent_id": "a", "memory_id": 1})).unwrap_err();
    assert_eq!((e.code(), e.field()), ("missing_field", Some("content")));
    assert_eq!(e.to_string(), "at least one of `content`, `metadata`, `timestamp`, `expires_at` or `embedding` is required");
    for (field, value) in [("metadata", json!({"k": 1})), ("timestamp", json!("2020-01-01T00:00:00Z")), ("embedding", json!([1.0, 0.0]))] {
        f.ok("update_memory", json!({"agent_id": "a", "memory_id": 1, field: value}));
    }
}

/// Updates and deletes take a record by the ref every read returns (`mem:12`, `ep:3`) as
/// well as by its id; a ref of another kind names the field and what it names.
#[test]
fn updates_and_deletes_take_the_ref_the_reads_return() {
    let mut f = fixture();
    for content in ["the ledger service", "the payroll service", "the billing service"] {
        f.ok("store", json!({"agent_id": "a", "content": content}));
    }
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "a review of the ledger"}));
    let found = f.ok("recall", json!({"agent_id": "a", "query": "ledger"}));
    let refs: Vec<String> = found["messages"].as_array().unwrap().iter().map(|m| m["ref"].as_str().unwrap().to_owned()).collect();
    assert_eq!(refs, ["ep:1", "mem:1"], "{found}");
    // the ref as recall returned it, and with the whitespace a ref may carry
    let out = f.ok("update_memory", json!({"agent_id": "a", "memory_id": refs[1], "content": "the ledger service, rewritten"}));
    assert_eq!(out, json!({"ok": true, "updated_id": 1}));
    assert_eq!(f.ok("update_memory", json!({"agent_id": "a", "memory_id": " mem:2 ", "content": "payroll, rewritten"}))["updated_id"], 2);
    assert_eq!(f.ok("update_memory", json!({"agent_id": "a", "memory_id": 3, "content": "billing, rewritten"}))["updated_id"], 3);
    assert_eq!(f.ok("update_memory", json!({"agent_id": "a", "memory_id": 3.0, "content": "billing, again"}))["updated_id"], 3);
    let contents = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2", "mem:3"]}));
    let texts: Vec<&str> = contents["items"].as_array().unwrap().iter().map(|i| i["content"].as_str().unwrap()).collect();
    assert_eq!(texts, ["the ledger service, rewritten", "payroll, rewritten", "billing, again"]);
    // a ref of the other kind is refused, naming the field and what the ref names
    let e = f.memory.call("delete_memory", &json!({"agent_id": "a", "memory_id": refs[0]})).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_value", Some("memory_id")));
    assert_eq!(e.to_string(), "`memory_id` names episode \"ep:1\"; it takes a memory's id or its ref 'mem:<id>'");
    let e = f.memory.call("delete_episode", &json!({"agent_id": "a", "episode_id": "mem:1"})).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_value", Some("episode_id")));
    // deletes by ref and by id
    assert_eq!(f.ok("delete_episode", json!({"agent_id": "a", "episode_id": refs[0]})), json!({"ok": true, "deleted_id": 1}));
    assert_eq!(f.ok("delete_memory", json!({"agent_id": "a", "memory_id": refs[1]})), json!({"ok": true, "deleted_id": 1}));
    assert_eq!(f.ok("delete_memory", json!({"agent_id": "a", "memory_id": 2})), json!({"ok": true, "deleted_id": 2}));
    let left = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2", "mem:3", "ep:1"]}));
    assert_eq!(left["missing"], json!(["mem:1", "mem:2", "ep:1"]));
    // the typed methods take either spelling too
    let typed =
        UpdateMemoryOptions { agent_id: "a".into(), memory_id: "mem:3".into(), content: Some("typed".into()), ..Default::default() };
    assert_eq!(f.memory.update_memory(&typed).unwrap().updated_id, 3);
    let typed =
        UpdateMemoryOptions { agent_id: "a".into(), memory_id: RecordId::Id(3), content: Some("typed".into()), ..Default::default() };
    assert_eq!(f.memory.update_memory(&typed).unwrap().updated_id, 3);
    let e = f.memory.delete_memory(&DeleteMemoryOptions { agent_id: "a".into(), memory_id: "ep:3".into() }).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_value", Some("memory_id")));
    assert_eq!(f.memory.delete_memory(&DeleteMemoryOptions { agent_id: "a".into(), memory_id: "mem:3".into() }).unwrap().deleted_id, 3);
}

#[test]
fn typed_methods_validate_as_call_does() {
    let mut memory = Memory::open_in_memory().unwrap();
    let e = memory.list_memories(&ListMemoriesOptions { agent_id: "a".into(), limit: Some(0), ..Default::default() }).unwrap_err();
    assert_eq!(e.field(), Some("limit"));
    let e = memory.update_memory(&UpdateMemoryOptions { agent_id: "a".into(), memory_id: 1.into(), ..Default::default() }).unwrap_err();
    assert_eq!(e.code(), "missing_field");
}

/// `list_agents`: every agent holding a record, an entity or a relation, by `agent_id`
/// whatever its projects, each counted per table; paged; an agent whose data is deleted
/// is gone from the list.
#[test]
fn list_agents_counts_every_agent_by_id_and_pages() {
    let mut f = fixture();
    assert_eq!(f.ok("list_agents", json!({})), json!({"agents": [], "total": 0}));
    f.ok("store", json!({"agent_id": "zed", "content": "one", "project_id": "p"}));
    f.ok("store", json!({"agent_id": "zed", "content": "two", "associations": {"relations": [{"subject": "Kaito", "predicate": "maintains", "object": "ledger"}]}}));
    f.ok("archive_episode", json!({"agent_id": "Alice", "summary": "a talk"}));
    f.ok("declare_associations", json!({"agent_id": "bob", "associations": {"entities": [{"name": "Rin"}]}}));
    let agent =
        |id: &str, m: i64, e: i64, n: i64, r: i64| json!({"agent_id": id, "memories": m, "episodes": e, "entities": n, "relations": r});
    // byte order: upper case first
    let all = [agent("Alice", 0, 1, 0, 0), agent("bob", 0, 0, 1, 0), agent("zed", 2, 0, 2, 1)];
    assert_eq!(f.ok("list_agents", json!({})), json!({"agents": all, "total": 3}));
    assert_eq!(f.ok("list_agents", json!({"limit": 2})), json!({"agents": all[..2], "total": 3, "next_offset": 2}));
    assert_eq!(f.ok("list_agents", json!({"offset": 2})), json!({"agents": all[2..], "total": 3}));
    assert_eq!(f.ok("list_agents", json!({"offset": i64::MAX})), json!({"agents": [], "total": 3}));
    f.ok("delete_agent_data", json!({"agent_id": "bob"}));
    assert_eq!(f.ok("list_agents", json!({}))["agents"], json!([all[0], all[2]]));
    assert_eq!(f.err("list_agents", json!({"limit": 1001})), ("out_of_range".to_owned(), Some("limit".to_owned())));
    assert_eq!(f.err("list_agents", json!({"agent_id": "zed"})), ("unknown_option".to_owned(), Some("agent_id".to_owned())));
}
