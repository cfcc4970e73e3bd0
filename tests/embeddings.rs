//! Vectors that know their model (issue 12): each embedding is stored with the name of the
//! model that made it, the vector arm compares a query only with vectors of its own model,
//! and `embedding_backlog` / `set_embeddings` re-embed a memory's records with another.

use associative_memory::{FixedClock, Memory};
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn memory() -> Memory {
    Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000))).unwrap()
}

fn refs(response: &Value) -> Vec<&str> {
    response["messages"].as_array().unwrap().iter().map(|m| m["ref"].as_str().unwrap()).collect()
}

/// Two models of one dimension give the same floats for different meanings: a query of one
/// model is compared only with vectors of that model, and the others are counted.
#[test]
fn vectors_of_another_model_are_skipped_and_counted() {
    let mut m = memory();
    let v = json!([1.0, 0.0, 0.0, 0.0]);
    for (content, model) in [("alpha", Some("m1")), ("beta", Some("m2")), ("gamma", None), ("delta", Some("m1"))] {
        let mut args = json!({"agent_id": "a", "content": content, "embedding": v});
        if let Some(model) = model {
            args["embedding_model"] = json!(model);
        }
        m.call("store", &args).unwrap();
    }
    m.call("archive_episode", &json!({"agent_id": "a", "summary": "epsilon", "embedding": v, "embedding_model": "m2"})).unwrap();
    // No word matches: only the vector arm ranks.
    let recall = |m: &mut Memory, model: Option<&str>| {
        let mut args = json!({"agent_id": "a", "query": "zzz", "query_embedding": v});
        if let Some(model) = model {
            args["query_embedding_model"] = json!(model);
        }
        m.call("recall", &args).unwrap()
    };
    let m1 = recall(&mut m, Some("m1"));
    assert_eq!(refs(&m1), ["mem:1", "mem:4"]);
    assert_eq!(m1["model_skipped"], 3);
    let m2 = recall(&mut m, Some("m2"));
    assert_eq!(refs(&m2), ["mem:2", "ep:1"]);
    assert_eq!(m2["model_skipped"], 3);
    let unnamed = recall(&mut m, None);
    assert_eq!(refs(&unnamed), ["mem:3"]);
    assert_eq!(unnamed["model_skipped"], 4);
    // A model of another dimension is still another model; its own model of another
    // dimension is counted as a dimension.
    m.call("store", &json!({"agent_id": "a", "content": "zeta", "embedding": [1.0, 0.0], "embedding_model": "m1"})).unwrap();
    let m1 = recall(&mut m, Some("m1"));
    assert_eq!((m1["model_skipped"].clone(), m1["dimension_skipped"].clone()), (json!(3), json!(1)));
    // reconstruct reads through the same arm
    let items =
        m.call("reconstruct", &json!({"agent_id": "a", "query": "zzz", "query_embedding": v, "query_embedding_model": "m2"})).unwrap();
    let mut heads: Vec<&str> = items["items"].as_array().unwrap().iter().map(|i| i["head_ref"].as_str().unwrap()).collect();
    heads.sort();
    assert_eq!(heads, ["ep:1", "mem:2"]);
}

/// A model names an embedding: without one it is refused, naming the field, and nothing is
/// written; `update_memory` keeps the pair together.
#[test]
fn a_model_goes_with_its_embedding() {
    let mut m = memory();
    let e = m.call("store", &json!({"agent_id": "a", "content": "x", "embedding_model": "m1"})).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_value", Some("embedding_model")));
    let e =
        m.call("store_many", &json!({"agent_id": "a", "items": [{"content": "x"}, {"content": "y", "embedding_model": ""}]})).unwrap_err();
    assert_eq!(e.field(), Some("items[1].embedding_model"));
    let e = m.call("recall", &json!({"agent_id": "a", "query": "x", "query_embedding_model": "m1"})).unwrap_err();
    assert_eq!(e.field(), Some("query_embedding_model"));
    let long = "m".repeat(257);
    let e = m.call("store", &json!({"agent_id": "a", "content": "x", "embedding": [1.0], "embedding_model": long})).unwrap_err();
    assert_eq!((e.code(), e.field()), ("out_of_range", Some("embedding_model")));
    assert_eq!(m.call("list_memories", &json!({"agent_id": "a"})).unwrap()["total"], 0);

    m.call("store", &json!({"agent_id": "a", "content": "old", "embedding": [1.0, 0.0], "embedding_model": "m1"})).unwrap();
    let backlog = |m: &Memory, model: &str| m.embedding_backlog(&serde_json::from_value(json!({"model": model})).unwrap()).unwrap();
    assert_eq!(backlog(&m, "m1").total, Some(0));
    // a new text drops the vector and its model
    m.call("update_memory", &json!({"agent_id": "a", "memory_id": 1, "content": "new"})).unwrap();
    assert_eq!(backlog(&m, "m1").total, Some(1));
    m.call("update_memory", &json!({"agent_id": "a", "memory_id": 1, "embedding": [0.0, 1.0], "embedding_model": "m2"})).unwrap();
    assert_eq!((backlog(&m, "m1").total, backlog(&m, "m2").total), (Some(1), Some(0)));
}

/// Re-embedding: the backlog lists every record not embedded with the new model, a page at
/// a time, across agents; `set_embeddings` writes a page in one transaction, after which
/// recall with the new model finds the records and the backlog is empty.
#[test]
fn the_backlog_pages_through_every_record_and_set_embeddings_empties_it() {
    let mut m = memory();
    for i in 0..7 {
        let agent = ["a", "b"][i % 2];
        let mut args = json!({"agent_id": agent, "content": format!("record {i}")});
        if i % 3 == 1 {
            args["embedding"] = json!([1.0, i as f32]);
            args["embedding_model"] = json!("old");
        }
        m.call("store", &args).unwrap();
    }
    m.call("archive_episode", &json!({"agent_id": "a", "summary": "the episode"})).unwrap();
    let page = |m: &mut Memory, after: Option<&str>| {
        let mut args = json!({"model": "new", "limit": 3});
        if let Some(after) = after {
            args["after"] = json!(after);
        }
        m.call("embedding_backlog", &args).unwrap()
    };
    let mut seen = Vec::new();
    let first = page(&mut m, None);
    assert_eq!(first["total"], 8);
    let mut current = first;
    loop {
        let records = current["records"].as_array().unwrap().clone();
        if records.is_empty() {
            break;
        }
        seen.extend(records.iter().map(|r| (r["ref"].as_str().unwrap().to_string(), r["text"].as_str().unwrap().to_string())));
        let last = seen.last().unwrap().0.clone();
        current = page(&mut m, Some(&last));
        assert!(current.get("total").is_none(), "counted on the first page only");
    }
    let want: Vec<(String, String)> = (1..=7)
        .map(|i| (format!("mem:{i}"), format!("record {}", i - 1)))
        .chain([("ep:1".to_string(), "the episode".to_string())])
        .collect();
    assert_eq!(seen, want);

    // A malformed item writes nothing.
    let e = m
        .call(
            "set_embeddings",
            &json!({"model": "new", "items": [{"ref": "mem:1", "embedding": [1.0]}, {"ref": "mem:x", "embedding": [1.0]}]}),
        )
        .unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_value", Some("items[1].ref")));
    assert_eq!(page(&mut m, None)["total"], 8);

    let items: Vec<Value> = seen.iter().enumerate().map(|(i, (r, _))| json!({"ref": r, "embedding": [0.5, i as f32]})).collect();
    let mut items = items;
    items.push(json!({"ref": "mem:99", "embedding": [1.0, 1.0]}));
    let set = m.call("set_embeddings", &json!({"model": "new", "items": items})).unwrap();
    assert_eq!(set, json!({"ok": true, "updated": 8, "missing": ["mem:99"]}));
    assert_eq!(page(&mut m, None), json!({"records": [], "total": 0}));
    // the vector index follows: a query of the new model reaches the re-embedded records
    let found =
        m.call("recall", &json!({"agent_id": "a", "query": "zzz", "query_embedding": [0.5, 0.0], "query_embedding_model": "new"})).unwrap();
    assert_eq!(refs(&found)[0], "mem:1");
    assert!(found.get("model_skipped").is_none());
    // and the text, times and the rest are as they were
    let got = m.call("get_contents", &json!({"agent_id": "a", "refs": ["mem:1", "ep:1"]})).unwrap();
    assert_eq!(got["items"][0]["content"], "record 0");
    assert_eq!(got["items"][1]["content"], "the episode");
}
