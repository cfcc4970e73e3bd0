//! traverse: start resolution, ordering, bounds, and isolation.

mod common;
use common::fixture;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A chain A → B → C → D declared in that order, plus a newer A → E.
fn chain() -> common::Fixture {
    let mut f = fixture();
    for (s, o) in [("A", "B"), ("B", "C"), ("C", "D"), ("A", "E")] {
        f.ok(
            "store",
            json!({"agent_id": "a", "content": format!("{s} links {o}"),
            "associations": {"entities": [{"name": s}], "relations": [{"subject": s, "predicate": "links", "object": o}]}}),
        );
    }
    f
}

#[test]
fn order_is_hops_then_most_recent_relation_then_id() {
    let mut f = chain();
    // E was reached by the newest relation, so it comes before B at hop 1
    assert_eq!(f.names(json!({"agent_id": "a", "entity": "A", "max_hops": 3})), vec!["A", "E", "B", "C", "D"]);
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "A", "max_hops": 3}));
    let hops: Vec<i64> = t["entities"].as_array().unwrap().iter().map(|e| e["hops"].as_i64().unwrap()).collect();
    assert_eq!(hops, vec![0, 1, 1, 2, 3]);
    let rel_ids: Vec<i64> = t["relations"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(rel_ids, vec![4, 3, 2, 1], "most recently declared first");
    assert!(t.get("bounds").is_none());
}

#[test]
fn relations_are_followed_from_either_end() {
    let mut f = chain();
    assert_eq!(f.names(json!({"agent_id": "a", "entity": "D", "max_hops": 5})), vec!["D", "C", "B", "A", "E"]);
}

#[test]
fn hop_and_limit_bounds_say_what_they_cut() {
    let mut f = chain();
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "A", "max_hops": 1}));
    assert_eq!(t["bounds"], json!({"omitted": ["max_hops"]}));
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "A", "max_hops": 3, "limit": 2}));
    assert_eq!(t["entities"].as_array().unwrap().len(), 2);
    assert_eq!(t["entities_omitted"], 3);
    assert_eq!(t["bounds"], json!({"omitted": ["limit"]}));
    assert_eq!(t["relations"].as_array().unwrap().len(), 1, "only relations with both ends returned");
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "A", "max_hops": 0}));
    assert_eq!(t["entities"].as_array().unwrap().len(), 1);
}

#[test]
fn limit_bounds_refs_per_entity_and_counts_the_rest() {
    let mut f = fixture();
    for i in 0..5 {
        f.ok("store", json!({"agent_id": "a", "content": format!("note {i}"), "associations": {"entities": [{"name": "Topic"}]}}));
    }
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "topic", "limit": 3}));
    assert_eq!(t["entities"][0]["mentions"], json!(["mem:1", "mem:2", "mem:3"]));
    assert_eq!(t["entities"][0]["mentions_omitted"], 2);
    assert_eq!(t["bounds"], json!({"omitted": ["limit"]}));
}

#[test]
fn isolation_agents_never_share_and_projects_read_the_global_pool() {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "global", "associations": {"entities": [{"name": "Atlas", "aliases": ["アトラス"]}]}}),
    );
    f.ok("store", json!({"agent_id": "a", "project_id": "p", "content": "project p", "associations": {"entities": [{"name": "Atlas", "aliases": ["atlas-p"]}], "relations": [{"subject": "Atlas", "predicate": "owned_by", "object": "Priya"}]}}));
    f.ok("store", json!({"agent_id": "b", "content": "other agent", "associations": {"entities": [{"name": "Atlas"}]}}));

    // agent b sees only its own entity
    let t = f.ok("traverse", json!({"agent_id": "b", "entity": "atlas"}));
    assert_eq!(t["entities"].as_array().unwrap().len(), 1);
    assert_eq!(t["entities"][0]["mentions"], json!(["mem:3"]));
    assert_eq!(f.ok("traverse", json!({"agent_id": "b", "entity": "アトラス"}))["reason"], "no_such_entity");

    // project '' reads the global pool only; 'p' reads p and the pool; omitted reads all
    let global = f.ok("traverse", json!({"agent_id": "a", "project_id": "", "entity": "atlas"}));
    assert_eq!(global["entities"].as_array().unwrap().len(), 1);
    assert_eq!(global["entities"][0]["mentions"], json!(["mem:1"]));
    let p = f.ok("traverse", json!({"agent_id": "a", "project_id": "p", "entity": "atlas"}));
    let ids: Vec<i64> = p["entities"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(ids.len(), 3, "both Atlases are starts, and Priya is reached: {p}");
    assert_eq!(f.ok("traverse", json!({"agent_id": "a", "project_id": "q", "entity": "atlas-p"}))["reason"], "no_such_entity");
    assert_eq!(f.names(json!({"agent_id": "a", "entity": "atlas-p"})), vec!["Atlas", "Priya"]);
}

#[test]
fn channel_reads_its_own_and_channel_global_rows() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "channel": "c1", "content": "c1", "associations": {"entities": [{"name": "Kit"}]}}));
    f.ok("store", json!({"agent_id": "a", "channel": "c2", "content": "c2", "associations": {"entities": [{"name": "Kit"}]}}));
    let t = f.ok("traverse", json!({"agent_id": "a", "channel": "c1", "entity": "kit"}));
    assert_eq!(t["entities"].as_array().unwrap().len(), 1);
    assert_eq!(t["entities"][0]["mentions"], json!(["mem:1"]));
    assert_eq!(f.ok("traverse", json!({"agent_id": "a", "entity": "kit"}))["entities"].as_array().unwrap().len(), 2);
}

#[test]
fn source_id_filters_the_listed_records() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "from sam", "source": {"type": "User", "id": "u-7", "name": "Sam"}, "associations": {"entities": [{"name": "Build"}]}}));
    f.ok("store", json!({"agent_id": "a", "content": "from the agent", "associations": {"entities": [{"name": "Build"}]}}));
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "build", "source_id": "u-7"}));
    assert_eq!(t["entities"][0]["mentions"], json!(["mem:1"]));
}

#[test]
fn the_same_database_and_inputs_give_byte_identical_output() {
    let run = || {
        let mut f = chain();
        let t = f.ok("traverse", json!({"agent_id": "a", "entity": "B", "max_hops": 5}));
        (serde_json::to_string(&t).unwrap(), f.memory.export().unwrap())
    };
    let (a, b) = (run(), run());
    assert_eq!(a.0, b.0);
    assert!(a.1 == b.1, "the databases differ");
}
