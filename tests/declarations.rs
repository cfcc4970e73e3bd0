//! Declaring: one entity per normalized name, aliases in one namespace, the limits, and
//! deletes that keep shared structure.

mod common;
use common::fixture;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn one_declaration_naming_an_entity_twice_yields_one_entity() {
    let mut f = fixture();
    let out = f.ok(
        "store",
        json!({"agent_id": "a", "content": "MizEye release notes",
        "associations": {"entities": [{"name": "MizEye"}, {"name": "MizEye"}, {"name": "  ＭＩＺＥＹＥ "}]}}),
    );
    let ids: Vec<i64> = out["associations"]["entities"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, vec![1, 1, 1]);
    assert_eq!(out["associations"]["entities"][0]["created"], true);
    assert_eq!(out["associations"]["entities"][2]["created"], false);
    assert_eq!(f.ok("list_entities", json!({"agent_id": "a"}))["total"], 1);
}

#[test]
fn spellings_that_normalize_alike_are_one_entity_across_calls() {
    let mut f = fixture();
    f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": [{"name": "ミズアイ"}]}}));
    let out = f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": [{"name": "ﾐｽﾞｱｲ"}]}}));
    assert_eq!(out["entities"][0], json!({"id": 1, "name": "ﾐｽﾞｱｲ", "created": false}));
}

#[test]
fn an_alias_names_at_most_one_entity() {
    let mut f = fixture();
    f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": [{"name": "Kaito Mori", "aliases": ["KM"]}]}}));
    let out = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"entities": [{"name": "Kazuo Mori", "aliases": ["ｋｍ", "Kazuo"]}]}}),
    );
    assert_eq!(out["dropped"], json!([{"item": "entities[0].aliases[0]", "reason": "already names another entity in this scope"}]));
    assert_eq!(f.names(json!({"agent_id": "a", "entity": "km"})), vec!["Kaito Mori"]);
    assert_eq!(f.names(json!({"agent_id": "a", "entity": "kazuo"})), vec!["Kazuo Mori"]);
}

#[test]
fn deleting_one_of_two_mentioning_memories_keeps_the_shared_structure() {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Kaito maintains ingest.",
        "associations": {"entities": [{"name": "Kaito Mori", "aliases": ["Kaito", "森"]}],
                         "relations": [{"subject": "Kaito Mori", "predicate": "maintains", "object": "Ingest"}]}}),
    );
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Kaito is on leave.",
        "associations": {"entities": [{"name": "Kaito"}],
                         "relations": [{"subject": "Kaito Mori", "predicate": "reports_to", "object": "Aiko"}]}}),
    );
    let before = f.ok("traverse", json!({"agent_id": "a", "entity": "森"}));
    assert_eq!(before["entities"][0]["mentions"], json!(["mem:1", "mem:2"]));
    assert_eq!(before["relations"].as_array().unwrap().len(), 2);

    f.ok("delete_memory", json!({"agent_id": "a", "memory_id": 2}));
    let after = f.ok("traverse", json!({"agent_id": "a", "entity": "森"}));
    assert_eq!(after["entities"][0]["name"], "Kaito Mori");
    assert_eq!(after["entities"][0]["aliases"], json!(["Kaito", "森"]));
    assert_eq!(after["entities"][0]["mentions"], json!(["mem:1"]));
    // the relation anchored on mem:1 stays; the one anchored on the deleted memory goes
    let predicates: Vec<&str> = after["relations"].as_array().unwrap().iter().map(|r| r["predicate"].as_str().unwrap()).collect();
    assert_eq!(predicates, vec!["maintains"]);
    assert_eq!(orphans(&mut f), Vec::<String>::new());
}

#[test]
fn invariant_8_no_declaration_outlives_its_endpoints() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "one"}));
    f.ok("store", json!({"agent_id": "a", "content": "two"}));
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "an episode"}));
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "anchor_ref": "ep:1", "associations": {
        "entities": [{"name": "X", "aliases": ["ex"]}],
        "relations": [{"subject": "mem:2", "predicate": "corrects", "object": "mem:1"},
                      {"subject": "X", "predicate": "near", "object": "Y"}]}}),
    );
    let count = |f: &mut common::Fixture, what: &str| -> i64 {
        let e = f.ok("list_entities", json!({"agent_id": "a"}));
        match what {
            "mentions" => e["entities"].as_array().unwrap().iter().map(|x| x["mentions"].as_i64().unwrap()).sum(),
            _ => e["entities"].as_array().unwrap().iter().map(|x| x["relations"].as_i64().unwrap()).sum(),
        }
    };
    assert_eq!(count(&mut f, "mentions"), 1);
    f.ok("delete_episode", json!({"agent_id": "a", "episode_id": 1}));
    assert_eq!(count(&mut f, "mentions"), 0, "mention of the deleted episode is gone");
    assert_eq!(count(&mut f, "relations"), 0, "relations anchored on the deleted episode are gone");

    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {
        "relations": [{"subject": "X", "predicate": "near", "object": "Y"}]}}),
    );
    f.ok("delete_entity", json!({"agent_id": "a", "entity_id": 1}));
    let left = f.ok("list_entities", json!({"agent_id": "a"}));
    assert_eq!(left["total"], 1);
    assert_eq!(left["entities"][0]["relations"], 0, "relations naming the deleted entity are gone");
    assert_eq!(f.ok("traverse", json!({"agent_id": "a", "entity": "ex"}))["reason"], "no_such_entity", "its aliases are gone");
    assert_eq!(orphans(&mut f), Vec::<String>::new());
}

/// Every alias, mention and relation row in the raw database whose entity, record or
/// anchor no longer exists.
fn orphans(f: &mut common::Fixture) -> Vec<String> {
    let bytes = f.memory.export().unwrap();
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, &bytes[..], bytes.len(), true).unwrap();
    let end = |kind: &str, id: &str| {
        format!(
            "(CASE {kind} WHEN 'entity' THEN EXISTS (SELECT 1 FROM entities WHERE id = {id}) \
                 WHEN 'mem' THEN EXISTS (SELECT 1 FROM memories WHERE id = {id}) WHEN 'ep' THEN EXISTS (SELECT 1 FROM episodes WHERE id = {id}) \
                 ELSE 0 END)"
        )
    };
    let checks = [
        "SELECT 'alias ' || alias FROM entity_aliases WHERE entity_id NOT IN (SELECT id FROM entities)".to_string(),
        format!(
            "SELECT 'mention ' || ref_kind || ':' || ref_id FROM entity_mentions WHERE entity_id NOT IN (SELECT id FROM entities) OR NOT {}",
            end("ref_kind", "ref_id")
        ),
        format!(
            "SELECT 'relation ' || id FROM relations WHERE NOT {} OR NOT {} OR (anchor_kind != '' AND NOT {})",
            end("subject_kind", "subject_id"),
            end("object_kind", "object_id"),
            end("anchor_kind", "anchor_id")
        ),
    ];
    checks
        .iter()
        .flat_map(|sql| {
            let mut stmt = conn.prepare(sql).unwrap();
            stmt.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn record_relations_go_with_either_endpoint() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "old"}));
    f.ok("store", json!({"agent_id": "a", "content": "new"}));
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "mem:2", "predicate": "supersedes", "object": "mem:1"}]}}),
    );
    assert_eq!(d["relations"], json!([1]));
    f.ok("delete_memory", json!({"agent_id": "a", "memory_id": 1}));
    // re-declaring is possible only if the old relation row is gone: a fresh id proves it
    f.ok("store", json!({"agent_id": "a", "content": "newer"}));
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "mem:3", "predicate": "supersedes", "object": "mem:2"}]}}),
    );
    assert_eq!(d["relations"], json!([2]));
    let r = f.ok("declare_associations", json!({"agent_id": "a", "retract": {"relations": [1, 2]}}));
    assert_eq!(r["retracted"], json!({"relations": 1, "mentions": 0}), "relation 1 was already cascaded away");
}

#[test]
fn limits_are_reported_item_by_item_never_cut_silently() {
    let mut f = fixture();
    let entities: Vec<_> = (0..66).map(|i| json!({"name": format!("E{i}")})).collect();
    let aliases: Vec<String> = (0..34).map(|i| format!("alias {i}")).collect();
    let long = "x".repeat(257);
    let out = f.ok(
        "store",
        json!({"agent_id": "a", "content": "many", "associations": {
        "entities": entities, "relations": [{"subject": "E0", "predicate": long, "object": "E1"}]}}),
    );
    let dropped = out["associations"]["dropped"].as_array().unwrap();
    let items: Vec<&str> = dropped.iter().map(|d| d["item"].as_str().unwrap()).collect();
    assert_eq!(items, vec!["entities[64]", "entities[65]", "relations[0].predicate"]);
    assert!(dropped[0]["reason"].as_str().unwrap().contains("64"));
    assert!(dropped[2]["reason"].as_str().unwrap().contains("256"));
    assert_eq!(out["associations"]["entities"].as_array().unwrap().len(), 64);

    let out = f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": [{"name": "Many", "aliases": aliases}]}}));
    let items: Vec<&str> = out["dropped"].as_array().unwrap().iter().map(|d| d["item"].as_str().unwrap()).collect();
    assert_eq!(items, vec!["entities[0].aliases[32]", "entities[0].aliases[33]"]);
    assert_eq!(f.ok("traverse", json!({"agent_id": "a", "entity": "alias 31"}))["entities"][0]["aliases"].as_array().unwrap().len(), 32);
}

#[test]
fn a_store_with_malformed_associations_still_stores_the_memory() {
    let mut f = fixture();
    let out = f.ok(
        "store",
        json!({"agent_id": "a", "content": "kept", "associations": {
        "entities": [{"name": ""}, "just a string", {"name": "Good", "aliasses": ["typo"]}],
        "relations": [{"subject": "Good", "predicate": "refers_to", "object": "mem:99"}, 7]}}),
    );
    assert_eq!(out["ok"], true);
    assert_eq!(out["id"], 1);
    assert_eq!(out["associations"]["entities"], json!([{"id": 1, "name": "Good", "created": true}]));
    let items: Vec<&str> = out["associations"]["dropped"].as_array().unwrap().iter().map(|d| d["item"].as_str().unwrap()).collect();
    assert_eq!(items, vec!["entities[0].name", "entities[1]", "entities[2].aliasses", "relations[0].object", "relations[1]"]);
    let got = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1"]}));
    assert_eq!(got["items"][0]["content"], "kept");

    let out = f.ok("store", json!({"agent_id": "a", "content": "also kept", "associations": "not an object"}));
    assert_eq!(out["associations"]["dropped"], json!([{"item": "associations", "reason": "must be an object"}]));
    assert_eq!(out["id"], 2);
}

#[test]
fn retract_removes_only_this_agents_declarations() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "x", "associations": {"entities": [{"name": "E"}], "relations": [{"subject": "E", "predicate": "p", "object": "F"}]}}));
    let other =
        f.ok("declare_associations", json!({"agent_id": "b", "retract": {"relations": [1], "mentions": [{"entity": 1, "ref": "mem:1"}]}}));
    assert_eq!(other["retracted"], json!({"relations": 0, "mentions": 0}));
    let own = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "retract": {"relations": [1, "one"], "mentions": [{"entity": 1, "ref": "mem:01"}]}}),
    );
    assert_eq!(own["retracted"], json!({"relations": 1, "mentions": 1}));
    assert_eq!(own["dropped"], json!([{"item": "retract.relations[1]", "reason": "must be an integer relation id"}]));
}

#[test]
fn operator_declarations_are_recorded_as_such() {
    let mut f = fixture();
    f.ok("declare_associations", json!({"agent_id": "a", "declared_by": "operator", "associations": {"relations": [{"subject": "A", "predicate": "Knows", "object": "B"}]}}));
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "a"}));
    assert_eq!(t["relations"][0]["declared_by"], "operator");
    assert_eq!(t["relations"][0]["predicate"], "knows");
    assert!(t["relations"][0].get("anchor_ref").is_none());
}

/// The names reconstruct matches a query against are held in memory (`src/indexes/names.rs`), a
/// cache of the database: an entity or alias declared after the first reconstruct, and one
/// deleted with its agent, are what the next reconstruct sees.
#[test]
fn reconstruct_cues_follow_every_declaration_after_its_first_call() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "kube upgrade is scheduled."}));
    let cues = |f: &mut common::Fixture| {
        f.ok("reconstruct", json!({"agent_id": "a", "query": "k8s upgrade", "trace": true}))["trace"]["cues"]["entities"].clone()
    };
    assert_eq!(cues(&mut f), json!([]));
    f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": [{"name": "Kubernetes"}]}}));
    assert_eq!(cues(&mut f), json!([]), "no name or alias in the query yet");
    f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": [{"name": "Kubernetes", "aliases": ["k8s"]}]}}));
    assert_eq!(cues(&mut f), json!(["Kubernetes"]), "an alias declared after the first reconstruct");
    f.ok("declare_associations", json!({"agent_id": "b", "associations": {"entities": [{"name": "upgrade"}]}}));
    assert_eq!(cues(&mut f), json!(["Kubernetes"]), "another agent's name is not read");
    f.ok("delete_agent_data", json!({"agent_id": "a"}));
    f.ok("store", json!({"agent_id": "a", "content": "kube upgrade is scheduled."}));
    assert_eq!(cues(&mut f), json!([]), "deleted with the agent");
}

/// Record → record relations alone, no mention stored: two candidates a relation joins are
/// one item (reconstruct reads the links when relations exist at all).
#[test]
fn record_relations_bundle_when_no_mention_is_stored() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "The ingest pipeline stalled."}));
    f.ok("store", json!({"agent_id": "a", "content": "The ingest pipeline restarted."}));
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "mem:2", "predicate": "supersedes", "object": "mem:1"}]}}),
    );
    let out = f.ok("reconstruct", json!({"agent_id": "a", "query": "ingest pipeline"}));
    assert_eq!(out["items"].as_array().unwrap().len(), 1, "{out}");
    assert_eq!(out["items"][0]["independence_reason"], "cluster:relation", "{out}");
}

/// Whether anything is declared is held in memory (`src/indexes/declared.rs`), a cache of the
/// database: relations and mentions declared after the first reconstruct are walked by the
/// next one, and once retracted they are not.
#[test]
fn reconstruct_walks_what_is_declared_after_its_first_call() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "Project Atlas ships on March 3."}));
    f.ok("store", json!({"agent_id": "a", "content": "Priya moved to the Lisbon office."}));
    let walked = |f: &mut common::Fixture| {
        let out = f.ok("reconstruct", json!({"agent_id": "a", "query": "Atlas ships March"}));
        let claims = out["items"][0]["claims"].as_array().cloned().unwrap_or_default();
        claims.iter().filter(|c| c.get("hops").is_some()).map(|c| c["ref"].clone()).collect::<Vec<_>>()
    };
    assert_eq!(walked(&mut f), Vec::<serde_json::Value>::new());
    f.ok("declare_associations", json!({"agent_id": "a", "anchor_ref": "mem:2", "associations": {"entities": [{"name": "Priya"}]}}));
    assert_eq!(walked(&mut f), Vec::<serde_json::Value>::new(), "a mention, no relation yet");
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "anchor_ref": "mem:1", "associations": {"entities": [{"name": "Atlas"}],
            "relations": [{"subject": "Atlas", "predicate": "owned_by", "object": "Priya"}]}}),
    );
    assert_eq!(walked(&mut f), vec![json!("mem:2")], "declared after the first reconstruct");
    f.ok("declare_associations", json!({"agent_id": "a", "retract": {"relations": [1]}}));
    assert_eq!(walked(&mut f), Vec::<serde_json::Value>::new(), "retracted");
}
