//! Relations in time (issue 39): validity declared on relations, invalidation of relations
//! and records with a reason, the reads of relations at an instant (`as_of`, by default
//! now) in traverse, reconstruct's walk and list_entities, `history`, single-valued
//! predicates and the conflicts they surface, and isolation on each.

mod common;
use common::fixture;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The fixture's clock starts at 2026-01-01T00:00:00Z and moves an hour per write.
const MARCH: &str = "2026-03-01T00:00:00+00:00";
const JUNE: &str = "2026-06-01T00:00:00+00:00";

/// Ids of a traverse's relations, in its order.
fn relation_ids(t: &Value) -> Vec<i64> {
    t["relations"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

/// Kaito maintained the ledger until March, then Rin did; a note mentions the ledger.
/// Returns the two relation ids, Kaito's first.
fn ledger(f: &mut common::Fixture) -> (i64, i64) {
    f.ok("store", json!({"agent_id": "a", "content": "ledger notes", "associations": {"entities": [{"name": "Ledger"}]}}));
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [
            {"subject": "Ledger", "predicate": "maintained by", "object": "Kaito", "valid_to": "2026-03-01"},
            {"subject": "Ledger", "predicate": "maintained by", "object": "Rin", "valid_from": "2026-03-01T01:00+01:00"}
        ]}}),
    );
    assert!(d.get("dropped").is_none_or(|d| d.as_array().unwrap().is_empty()), "{d}");
    let ids = d["relations"].as_array().unwrap();
    (ids[0].as_i64().unwrap(), ids[1].as_i64().unwrap())
}

#[test]
fn traverse_follows_relations_that_hold_at_the_instant() {
    let mut f = fixture();
    let (kaito, rin) = ledger(&mut f);
    // Before March by the clock: both hold now (Rin's starts later, which "now" keeps).
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger"}));
    assert_eq!(relation_ids(&t), vec![kaito, rin], "declared together: by id");
    assert_eq!(t["relations"][1]["valid_from"], MARCH, "stored in the one spelling");
    assert_eq!(t["relations"][0]["valid_to"], MARCH);
    assert!(t["relations"][0].get("valid_from").is_none(), "what is not set is absent");
    assert!(t.get("bounds").is_none());
    // At an instant: only what held then.
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger", "as_of": "2026-02-01"}));
    assert_eq!(relation_ids(&t), vec![kaito]);
    assert_eq!(t["bounds"], json!({"omitted": [], "not_holding": 1}));
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger", "as_of": MARCH}));
    assert_eq!(relation_ids(&t), vec![rin], "the end is excluded, the start included");
    let names: Vec<&str> = t["entities"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Ledger", "Rin"], "Kaito is not reached over a relation that did not hold");
    // The clock passes March: by default Kaito's relation is left out, and counted.
    f.clock.set_ms(1_780_000_000_000);
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger"}));
    assert_eq!(relation_ids(&t), vec![rin]);
    assert_eq!(t["bounds"]["not_holding"], 1);
    // "all": everything, with its interval.
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger", "as_of": "all"}));
    assert_eq!(relation_ids(&t), vec![kaito, rin]);
    assert!(t.get("bounds").is_none());
}

#[test]
fn a_malformed_interval_drops_the_item_naming_the_field() {
    let mut f = fixture();
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [
            {"subject": "A", "predicate": "p", "object": "B", "valid_from": "2026-03-01", "valid_to": "2026-03-01"},
            {"subject": "A", "predicate": "p", "object": "C", "valid_to": "soon"},
            {"subject": "A", "predicate": "p", "object": "D", "valid_from": 3},
            {"subject": "A", "predicate": "p", "object": "E", "valid_from": "2026-03-01", "valid_to": "2026-04-01"}
        ]}}),
    );
    let items: Vec<&str> = d["dropped"].as_array().unwrap().iter().map(|x| x["item"].as_str().unwrap()).collect();
    assert_eq!(items, ["relations[0].valid_to", "relations[1].valid_to", "relations[2].valid_from"]);
    assert_eq!(d["relations"].as_array().unwrap().len(), 1, "the good item is declared");
}

#[test]
fn invalidate_closes_a_relation_and_keeps_it_with_its_reason() {
    let mut f = fixture();
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "Ledger", "predicate": "maintained by", "object": "Kaito"}]}}),
    );
    let id = d["relations"][0].as_i64().unwrap();
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "declared_by": "operator", "invalidate": [{"relation_id": id, "at": "2026-01-01T00:30:00Z", "reason": "Rin took it over"}]}),
    );
    assert_eq!(d["invalidated"], json!({"relations": [id], "records": []}));
    // closed before now: left out by default, counted
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger"}));
    assert!(t["relations"].as_array().unwrap().is_empty());
    assert_eq!(t["bounds"]["not_holding"], 1);
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger", "as_of": "all"}));
    let r = &t["relations"][0];
    assert_eq!(r["valid_to"], "2026-01-01T00:30:00+00:00");
    assert_eq!(r["closed_by"], "operator");
    assert_eq!(r["closed_at"], "2026-01-01T01:00:00+00:00", "the clock of the invalidating call");
    assert_eq!(r["closed_reason"], "Rin took it over");
    // still held before its end
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger", "as_of": "2026-01-01T00:29:59Z"}));
    assert_eq!(relation_ids(&t), vec![id]);
    // closing it again at or after its end, or with no reason: dropped, nothing changes
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "invalidate": [
            {"relation_id": id, "at": "2026-02-01", "reason": "again"},
            {"relation_id": id, "at": "2025-12-01"},
            {"relation_id": id, "ref": "mem:1", "reason": "both"},
            {"relation_id": 999, "reason": "none"}
        ]}),
    );
    let items: Vec<&str> = d["dropped"].as_array().unwrap().iter().map(|x| x["item"].as_str().unwrap()).collect();
    assert_eq!(items, ["invalidate[0].at", "invalidate[1].reason", "invalidate[2]", "invalidate[3].relation_id"]);
    assert_eq!(d["invalidated"], json!({"relations": [], "records": []}));
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger", "as_of": "all"}));
    assert_eq!(t["relations"][0]["closed_reason"], "Rin took it over");
}

#[test]
fn invalidate_may_end_a_relation_earlier_but_not_before_it_began() {
    let mut f = fixture();
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "A", "predicate": "p", "object": "B", "valid_from": MARCH, "valid_to": JUNE}]}}),
    );
    let id = d["relations"][0].as_i64().unwrap();
    let d = f.ok("declare_associations", json!({"agent_id": "a", "invalidate": [{"relation_id": id, "at": "2026-02-01", "reason": "r"}]}));
    assert_eq!(d["dropped"][0]["item"], "invalidate[0].at");
    let d = f.ok("declare_associations", json!({"agent_id": "a", "invalidate": [{"relation_id": id, "at": "2026-04-01", "reason": "r"}]}));
    assert_eq!(d["invalidated"]["relations"], json!([id]));
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "A", "as_of": "2026-05-01"}));
    assert!(relation_ids(&t).is_empty());
}

#[test]
fn an_invalidated_record_leaves_the_mentions_from_its_instant() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "Atlas runs on Postgres", "associations": {"entities": [{"name": "Atlas"}]}}));
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "invalidate": [{"ref": "mem:1", "at": "2026-01-01T00:30:00Z", "reason": "moved to MySQL"}]}),
    );
    assert_eq!(d["invalidated"], json!({"relations": [], "records": ["mem:1"]}));
    let mentions = |f: &mut common::Fixture, as_of: Option<&str>| {
        let mut args = json!({"agent_id": "a", "entity": "Atlas"});
        if let Some(t) = as_of {
            args["as_of"] = json!(t);
        }
        f.ok("traverse", args)["entities"][0].get("mentions").cloned().unwrap_or(json!([]))
    };
    assert_eq!(mentions(&mut f, None), json!([]));
    assert_eq!(mentions(&mut f, Some("2026-01-01T00:10:00Z")), json!(["mem:1"]));
    assert_eq!(mentions(&mut f, Some("all")), json!(["mem:1"]));
}

#[test]
fn another_agents_relations_and_records_cannot_be_invalidated_nor_seen() {
    let mut f = fixture();
    let (kaito, _) = ledger(&mut f);
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "b", "invalidate": [{"relation_id": kaito, "reason": "mine now"}, {"ref": "mem:1", "reason": "mine now"}]}),
    );
    let reasons: Vec<&str> = d["dropped"].as_array().unwrap().iter().map(|x| x["reason"].as_str().unwrap()).collect();
    assert_eq!(reasons, [format!("no such relation: {kaito}"), "no such record: mem:1".to_string()]);
    let t = f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger", "as_of": "all"}));
    assert!(t["relations"].as_array().unwrap().iter().all(|r| r.get("closed_reason").is_none()));
    // b sees nothing of a's, closed or not
    for as_of in [json!(null), json!("all"), json!("2026-02-01")] {
        let t = f.ok("traverse", json!({"agent_id": "b", "entity": "Ledger", "as_of": as_of}));
        assert_eq!(t["reason"], "no_such_entity");
    }
}
