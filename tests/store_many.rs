//! store_many: many memories in one transaction, each stored as `store` stores it; a
//! malformed item rejects the batch, names itself and writes nothing; malformed
//! associations are dropped item by item; progress is reported item by item.

mod common;
use associative_memory::{StoreItem, StoreManyOptions};
use common::fixture;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn item(content: &str) -> Value {
    json!({"content": content})
}

#[test]
fn a_batch_stores_every_item_in_order_as_store_would() {
    let mut batch = fixture();
    let items = vec![
        json!({"content": "Kaito maintains the ledger service.", "timestamp": "2026-05-01T09:00:00+09:00",
               "source": {"type": "User", "id": "kaito", "name": "Kaito"}, "metadata": {"url": "https://example.test/1"},
               "associations": {"entities": [{"name": "Kaito"}, {"name": "Ledger Service", "aliases": ["台帳サービス"]}],
                                "relations": [{"subject": "Kaito", "predicate": "maintains", "object": "Ledger Service"}]}}),
        json!({"content": "台帳サービスは残高を保存する。", "associations": {"entities": [{"name": "Ledger Service"}], "relations": [{"subject": 7}]}}),
        item("A third memory, plain."),
    ];
    let out = batch.ok("store_many", json!({"agent_id": "a", "project_id": "p", "items": items}));
    assert_eq!(out["ok"], true);
    let stored = out["items"].as_array().unwrap();
    assert_eq!(stored.iter().map(|i| i["id"].as_i64().unwrap()).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(stored[0]["associations"]["relations"].as_array().unwrap().len(), 1);
    assert!(stored[0]["associations"]["dropped"].as_array().unwrap().is_empty());
    assert_eq!(stored[1]["associations"]["dropped"].as_array().unwrap().len(), 1, "the malformed relation is dropped, the memory kept");
    assert!(stored[2].get("associations").is_none());

    // The same memories stored one by one give the same records and graph.
    let mut single = fixture();
    for i in &items {
        let mut args = i.clone();
        args["agent_id"] = json!("a");
        args["project_id"] = json!("p");
        single.ok("store", args);
        single.clock.advance_ms(-3_600_000); // store_many stamps every item with one `now`
    }
    let read = |f: &mut common::Fixture| {
        let contents = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2", "mem:3"]}));
        let graph = f.ok("traverse", json!({"agent_id": "a", "entity": "台帳サービス"}));
        (contents, graph)
    };
    assert_eq!(read(&mut batch), read(&mut single));
    let found = batch.ok("recall", json!({"agent_id": "a", "query": "ledger"}));
    assert_eq!(found["messages"][0]["ref"], "mem:1");
}

#[test]
fn a_malformed_item_rejects_the_batch_names_itself_and_writes_nothing() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "already here"}));
    let before = f.memory.export().unwrap();
    let many = |bad: Value| {
        let mut items: Vec<Value> = (0..40).map(|i| item(&format!("memory {i}"))).collect();
        items[37] = bad;
        json!({"agent_id": "a", "items": items})
    };
    for (bad, code, field) in [
        (item("  "), "invalid_value", "items[37].content"),
        (json!({"content": "x", "timestamp": "last tuesday"}), "invalid_value", "items[37].timestamp"),
        (json!({"content": "x\u{0}y"}), "invalid_value", "items[37].content"),
        (json!({"content": 5}), "wrong_type", "items[37].content"),
        (json!({"content": "x", "embedding": [1.0, "two"]}), "wrong_type", "items[37].embedding[1]"),
        (json!({"content": "x", "agent_id": "b"}), "unknown_option", "items[37].agent_id"),
        (json!({"content": "x", "source": {"id": "s".repeat(300)}}), "out_of_range", "items[37].source.id"),
    ] {
        assert_eq!(f.err("store_many", many(bad.clone())), (code.to_owned(), Some(field.to_owned())), "{bad}");
        assert!(f.memory.export().unwrap() == before, "{bad}: nothing was written");
    }
    assert_eq!(f.err("store_many", json!({"agent_id": "a", "items": []})), ("invalid_value".into(), Some("items".into())));
    let too_many: Vec<Value> = (0..10_001).map(|_| item("x")).collect();
    assert_eq!(f.err("store_many", json!({"agent_id": "a", "items": too_many})), ("out_of_range".into(), Some("items".into())));
    assert_eq!(f.err("store_many", json!({"agent_id": " ", "items": [item("x")]})), ("invalid_value".into(), Some("agent_id".into())));
    assert!(f.memory.export().unwrap() == before);
}

#[test]
fn progress_is_reported_after_each_item_and_vectors_are_searchable_at_once() {
    let mut f = fixture();
    let items: Vec<StoreItem> =
        (0..25).map(|i| StoreItem { content: format!("note {i}"), embedding: Some(vec![1.0, i as f32]), ..Default::default() }).collect();
    let opts = StoreManyOptions { agent_id: "a".into(), items, ..Default::default() };
    let mut seen = Vec::new();
    let out = f.memory.store_many(&opts, |done, total| seen.push((done, total))).unwrap();
    assert_eq!(out.items.len(), 25);
    assert_eq!(seen, (0..=25).map(|d| (d, 25)).collect::<Vec<_>>());
    let found = f.ok("recall", json!({"agent_id": "a", "query": "zzz", "query_embedding": [0.0, 1.0], "deep": true}));
    assert_eq!(found["messages"][0]["ref"], "mem:25", "the vector index holds the batch");
    // The typed method checks as the call does.
    let bad = StoreManyOptions { agent_id: "a".into(), items: vec![StoreItem::default()], ..Default::default() };
    let e = f.memory.store_many(&bad, |_, _| panic!("nothing is stored")).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_value", Some("items[0].content")));
}
