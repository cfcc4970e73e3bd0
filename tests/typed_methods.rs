//! The typed methods of `Memory` are the same door as `Memory::call`: they run the same
//! `validate()`, so a value `call` refuses is refused there too, with the same code and
//! field, and nothing is written; and a bound past its cap cannot make a call run away.

mod common;
use associative_memory::*;
use common::fixture;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn seeded() -> common::Fixture {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Atlas is owned by Priya.", "associations": {
            "entities": [{"name": "Atlas"}, {"name": "Priya"}],
            "relations": [{"subject": "Atlas", "predicate": "owned_by", "object": "Priya"}]}}),
    );
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Priya joined Payments.", "associations": {
        "entities": [{"name": "Priya"}, {"name": "Payments"}],
        "relations": [{"subject": "Priya", "predicate": "member_of", "object": "Payments"}]}}),
    );
    f
}

fn code(e: Error) -> (String, Option<String>) {
    (e.code().to_owned(), e.field().map(str::to_owned))
}

fn expect(e: Result<impl std::fmt::Debug>, code_want: &str, field: &str) {
    let got = code(e.expect_err("the typed method refuses it"));
    assert_eq!(got, (code_want.to_owned(), Some(field.to_owned())));
}

#[test]
fn a_huge_hop_bound_is_lowered_not_walked() {
    let f = seeded();
    let opts = ReconstructOptions { agent_id: "a".into(), query: "Atlas".into(), max_hops: Some(i64::MAX), ..Default::default() };
    let out = f.memory.reconstruct(&opts).unwrap();
    let bounds = out.bounds.expect("a lowered bound is reported");
    assert_eq!(bounds.max_hops, 5);
    assert_eq!(bounds.lowered, vec!["max_hops"]);
    let walked: Vec<&str> = out.items[0].claims.iter().filter(|c| c.hops.is_some()).map(|c| c.reference.as_str()).collect();
    assert_eq!(walked, vec!["mem:2"], "the walk still reaches what the graph holds");
}

#[test]
fn negative_bounds_are_refused_not_wrapped() {
    let f = seeded();
    let base = ReconstructOptions { agent_id: "a".into(), query: "Atlas".into(), ..Default::default() };
    for field in ["count", "top_k", "max_hops", "max_evidence", "budget"] {
        let mut opts = base.clone();
        let slot = match field {
            "count" => &mut opts.count,
            "top_k" => &mut opts.top_k,
            "max_hops" => &mut opts.max_hops,
            "max_evidence" => &mut opts.max_evidence,
            _ => &mut opts.budget,
        };
        *slot = Some(-1);
        expect(f.memory.reconstruct(&opts), "out_of_range", field);
    }
    let traverse = TraverseOptions { agent_id: "a".into(), entity: "Atlas".into(), max_hops: Some(i64::MAX), ..Default::default() };
    expect(f.memory.traverse(&traverse), "out_of_range", "max_hops");
    let traverse = TraverseOptions { limit: Some(-1), max_hops: None, ..traverse };
    expect(f.memory.traverse(&traverse), "out_of_range", "limit");
    let recall = RecallOptions { agent_id: "a".into(), query: "Atlas".into(), limit: Some(-5), ..Default::default() };
    expect(f.memory.recall(&recall), "out_of_range", "limit");
    let list = ListEntitiesOptions { agent_id: "a".into(), offset: Some(-1), ..Default::default() };
    expect(f.memory.list_entities(&list), "out_of_range", "offset");
}

#[test]
fn typed_writes_are_checked_as_calls_are_and_write_nothing() {
    let mut f = seeded();
    let before = f.memory.export().unwrap();
    let store = StoreOptions { agent_id: "a".into(), content: "  ".into(), ..Default::default() };
    expect(f.memory.store(&store), "invalid_value", "content");
    let store = StoreOptions { content: "x".into(), timestamp: Some("last tuesday".into()), ..store };
    expect(f.memory.store(&store), "invalid_value", "timestamp");
    let store = StoreOptions { timestamp: None, embedding: Some(vec![1.0, f32::NAN]), ..store };
    expect(f.memory.store(&store), "wrong_type", "embedding[1]");
    let store = StoreOptions { embedding: None, agent_id: String::new(), ..store };
    expect(f.memory.store(&store), "invalid_value", "agent_id");
    let episode = EpisodeOptions {
        agent_id: "a".into(),
        summary: "s".into(),
        history: Some(vec![Turn { role: "user".into(), content: "x".into(), timestamp: Some("nope".into()) }]),
        ..Default::default()
    };
    expect(f.memory.archive_episode(&episode), "invalid_value", "history[0].timestamp");
    let declare = DeclareOptions { agent_id: "a".into(), anchor_ref: Some("memory-1".into()), ..Default::default() };
    expect(f.memory.declare_associations(&declare), "bad_ref", "anchor_ref");
    expect(f.memory.delete_memory(&DeleteMemoryOptions { agent_id: "a".into(), memory_id: 0.into() }), "out_of_range", "memory_id");
    expect(f.memory.delete_entity(&DeleteEntityOptions { agent_id: "a".into(), entity_id: -3 }), "out_of_range", "entity_id");
    expect(f.memory.get_contents(&GetContentsOptions { agent_id: "a".into(), refs: vec![], as_of: None }), "out_of_range", "refs");
    assert!(f.memory.export().unwrap() == before, "a refused typed call wrote something");
}

/// Options that are well-typed JSON but out of bounds: `call` and the typed method, given
/// the same options, fail alike.
#[test]
fn both_doors_refuse_alike() {
    let cases: Vec<(&str, Value)> = vec![
        ("store", json!({"agent_id": "a", "content": ""})),
        ("store", json!({"agent_id": "a", "content": "x", "embedding": []})),
        ("recall", json!({"agent_id": "a", "query": " "})),
        ("recall", json!({"agent_id": "a", "query": "q", "limit": 101})),
        ("reconstruct", json!({"agent_id": "a", "query": "q", "top_k": 0})),
        ("traverse", json!({"agent_id": "a", "entity": "E", "max_hops": 6})),
        ("list_entities", json!({"agent_id": "a", "limit": 0})),
        ("get_contents", json!({"agent_id": "a", "refs": vec!["mem:1"; 21]})),
        ("delete_episode", json!({"agent_id": "a", "episode_id": -1})),
    ];
    let mut f = seeded();
    for (tool, args) in cases {
        let through_call = code(f.memory.call(tool, &args).unwrap_err());
        let m = &mut f.memory;
        let typed = match tool {
            "store" => m.store(&serde_json::from_value(args.clone()).unwrap()).map(|_| ()),
            "recall" => m.recall(&serde_json::from_value(args.clone()).unwrap()).map(|_| ()),
            "reconstruct" => m.reconstruct(&serde_json::from_value(args.clone()).unwrap()).map(|_| ()),
            "traverse" => m.traverse(&serde_json::from_value(args.clone()).unwrap()).map(|_| ()),
            "list_entities" => m.list_entities(&serde_json::from_value(args.clone()).unwrap()).map(|_| ()),
            "get_contents" => m.get_contents(&serde_json::from_value(args.clone()).unwrap()).map(|_| ()),
            _ => m.delete_episode(&serde_json::from_value(args.clone()).unwrap()).map(|_| ()),
        };
        assert_eq!(code(typed.unwrap_err()), through_call, "{tool} {args}");
    }
}

#[test]
fn a_store_keeps_its_memory_whatever_its_associations() {
    let mut f = fixture();
    let out = f.ok(
        "store",
        json!({"agent_id": "a", "content": "x", "associations": {"relations": [{"subject": "E", "predicate": "p"}], "notes": 1}}),
    );
    assert_eq!(out["id"], 1);
    assert_eq!(
        out["associations"]["dropped"],
        json!([{"item": "notes", "reason": "unknown field; associations take entities and relations"},
               {"item": "relations[0].object", "reason": "is required: an entity name or a record ref 'mem:<id>' / 'ep:<id>'"}])
    );
}
