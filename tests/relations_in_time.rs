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

#[test]
fn history_lists_every_relation_in_time_order_with_who_closed_it() {
    let mut f = fixture();
    let (kaito, rin) = ledger(&mut f);
    // declared later, holding since always: ordered by its declaration
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "Team", "predicate": "owns", "object": "Ledger"}]}}),
    );
    let owns = d["relations"][0].as_i64().unwrap();
    f.ok("declare_associations", json!({"agent_id": "a", "invalidate": [{"relation_id": rin, "at": JUNE, "reason": "Rin left"}]}));
    // not on the ledger: not in its timeline
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "Rin", "predicate": "knows", "object": "Kaito"}]}}),
    );
    let h = f.ok("history", json!({"agent_id": "a", "entity": "ledger"}));
    assert_eq!(h["entity"]["name"], "Ledger");
    assert_eq!(h["total"], 3);
    let ids: Vec<i64> = h["relations"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    // Kaito's (declared 01:00, no valid_from), Team's (declared 02:00), Rin's (from March)
    assert_eq!(ids, vec![kaito, owns, rin]);
    let r = &h["relations"][2];
    assert_eq!((r["subject_name"].as_str(), r["object_name"].as_str()), (Some("Ledger"), Some("Rin")));
    assert_eq!((r["valid_from"].as_str(), r["valid_to"].as_str()), (Some(MARCH), Some(JUNE)));
    assert_eq!((r["closed_by"].as_str(), r["closed_reason"].as_str()), (Some("agent"), Some("Rin left")));
    assert!(h.get("next_offset").is_none());
    // paged
    let h = f.ok("history", json!({"agent_id": "a", "entity": "Ledger", "limit": 2}));
    assert_eq!(h["relations"].as_array().unwrap().len(), 2);
    assert_eq!(h["next_offset"], 2);
    let h = f.ok("history", json!({"agent_id": "a", "entity": "Ledger", "limit": 2, "offset": 2}));
    assert_eq!(h["relations"][0]["id"], rin);
    assert!(h.get("next_offset").is_none());
    let h = f.ok("history", json!({"agent_id": "a", "entity": "Ledger", "offset": 9}));
    assert_eq!((h["total"].as_i64(), h["relations"].as_array().unwrap().len()), (Some(3), 0), "past the end, still counted");
    // bad input names the field; history takes no instant
    assert_eq!(f.err("history", json!({"agent_id": "a", "entity": "Ledger", "limit": 101})), ("out_of_range".into(), Some("limit".into())));
    assert_eq!(f.err("history", json!({"agent_id": "a", "entity": "Ledger", "as_of": "all"})).0, "unknown_option");
}

#[test]
fn history_is_isolated_by_agent_and_scope() {
    let mut f = fixture();
    ledger(&mut f);
    f.ok("declare_associations", json!({"agent_id": "a", "project_id": "p", "associations": {"relations": [{"subject": "Ledger", "predicate": "audited by", "object": "Mei"}]}}));
    let h = f.ok("history", json!({"agent_id": "b", "entity": "Ledger"}));
    assert_eq!(h, json!({"relations": [], "total": 0, "reason": "no_such_entity"}));
    assert_eq!(f.ok("history", json!({"agent_id": "a", "entity": "Ledger", "project_id": ""}))["total"], 2, "project p is not read");
    assert_eq!(f.ok("history", json!({"agent_id": "a", "entity": "Ledger", "project_id": "p"}))["total"], 3);
}

/// Declares `(Ledger, maintained by, who)` for agent `agent` in `project`, returning the
/// response.
fn maintained_by(f: &mut common::Fixture, agent: &str, project: &str, who: &str) -> Value {
    f.ok(
        "declare_associations",
        json!({"agent_id": agent, "project_id": project, "associations": {"relations": [{"subject": "Ledger", "predicate": "Maintained By", "object": who}]}}),
    )
}

#[test]
fn a_single_valued_predicate_surfaces_conflicts_and_resolves_none() {
    let mut f = fixture();
    // multi-valued by default: never a conflict
    let kaito = maintained_by(&mut f, "a", "", "Kaito")["relations"][0].as_i64().unwrap();
    assert!(maintained_by(&mut f, "a", "", "Rin").get("conflicts").is_none());
    let d = f.ok("declare_associations", json!({"agent_id": "a", "predicates": [{"name": "maintained  BY", "single": true}, {"name": "x", "single": "yes"}, {"single": true}]}));
    let items: Vec<&str> = d["dropped"].as_array().unwrap().iter().map(|x| x["item"].as_str().unwrap()).collect();
    assert_eq!(items, ["predicates[1].single", "predicates[2].name"]);
    // single: a third maintainer conflicts with both current ones, and is stored
    let d = maintained_by(&mut f, "a", "", "Mei");
    let mei = d["relations"][0].as_i64().unwrap();
    assert_eq!(
        d["conflicts"],
        json!([
            {"relation_id": mei, "conflicts_with": kaito, "subject": "Ledger", "predicate": "maintained by", "object": "Kaito"},
            {"relation_id": mei, "conflicts_with": kaito + 1, "subject": "Ledger", "predicate": "maintained by", "object": "Rin"}
        ])
    );
    assert_eq!(f.ok("traverse", json!({"agent_id": "a", "entity": "Ledger"}))["relations"].as_array().unwrap().len(), 3, "nothing closed");
    // declaring the same fact again conflicts as before; what is closed conflicts no more
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "invalidate": [{"relation_id": kaito, "reason": "left"}, {"relation_id": kaito + 1, "reason": "left"}],
               "associations": {"relations": [{"subject": "Ledger", "predicate": "maintained by", "object": "Mei"}]}}),
    );
    assert!(d.get("conflicts").is_none(), "the call closes the others before it declares: {d}");
    // a fact that ended before now is history and contradicts nothing current
    let d = f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "Ledger", "predicate": "maintained by", "object": "Ann", "valid_to": "2025-01-01"}]}}),
    );
    assert!(d.get("conflicts").is_none());
    // a store's declarations report them too
    let s = f.ok("store", json!({"agent_id": "a", "content": "Bo maintains the ledger now", "associations": {"relations": [{"subject": "Ledger", "predicate": "maintained by", "object": "Bo"}]}}));
    assert_eq!(s["associations"]["conflicts"][0]["object"], "Mei");
    // multi-valued again
    f.ok("declare_associations", json!({"agent_id": "a", "predicates": [{"name": "maintained by", "single": false}]}));
    assert!(maintained_by(&mut f, "a", "", "Cy").get("conflicts").is_none());
}

#[test]
fn predicates_apply_where_a_reader_of_the_bucket_looks_and_to_no_other_agent() {
    let mut f = fixture();
    f.ok("declare_associations", json!({"agent_id": "a", "predicates": [{"name": "maintained by", "single": true}]}));
    maintained_by(&mut f, "a", "p", "Kaito");
    // declared in the global pool: holds in project p, against p's relations and the pool's
    assert_eq!(maintained_by(&mut f, "a", "p", "Rin")["conflicts"].as_array().unwrap().len(), 1);
    // the pool's reader does not see project p's relations
    assert!(maintained_by(&mut f, "a", "", "Mei").get("conflicts").is_none());
    // a bucket's own declaration wins over the pool's
    f.ok("declare_associations", json!({"agent_id": "a", "project_id": "q", "predicates": [{"name": "maintained by", "single": false}]}));
    maintained_by(&mut f, "a", "q", "Bo");
    assert!(maintained_by(&mut f, "a", "q", "Cy").get("conflicts").is_none());
    // another agent: neither a's predicates nor a's relations
    maintained_by(&mut f, "b", "", "Kaito");
    assert!(maintained_by(&mut f, "b", "", "Rin").get("conflicts").is_none());
    f.ok("declare_associations", json!({"agent_id": "b", "predicates": [{"name": "maintained by", "single": true}]}));
    let c = maintained_by(&mut f, "b", "", "Mei")["conflicts"].clone();
    let objects: Vec<&str> = c.as_array().unwrap().iter().map(|x| x["object"].as_str().unwrap()).collect();
    assert_eq!(objects, ["Kaito", "Rin"], "b's own relations only");
}

#[test]
fn list_entities_counts_the_relations_that_hold_at_the_instant() {
    let mut f = fixture();
    ledger(&mut f);
    let counts = |f: &mut common::Fixture, as_of: Value| {
        let l = f.ok("list_entities", json!({"agent_id": "a", "as_of": as_of}));
        let c: Vec<(String, i64)> = l["entities"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["name"].as_str().unwrap().to_owned(), e["relations"].as_i64().unwrap()))
            .collect();
        (c, l.get("not_holding").cloned())
    };
    let named = |v: &[(&str, i64)]| v.iter().map(|(n, c)| (n.to_string(), *c)).collect::<Vec<_>>();
    // now (January): both hold
    assert_eq!(counts(&mut f, Value::Null), (named(&[("Kaito", 1), ("Ledger", 2), ("Rin", 1)]), None));
    assert_eq!(counts(&mut f, json!("2026-02-01")), (named(&[("Kaito", 1), ("Ledger", 1), ("Rin", 0)]), Some(json!(2))));
    assert_eq!(counts(&mut f, json!("all")), (named(&[("Kaito", 1), ("Ledger", 2), ("Rin", 1)]), None));
    f.clock.set_ms(1_780_000_000_000);
    assert_eq!(counts(&mut f, Value::Null), (named(&[("Kaito", 0), ("Ledger", 1), ("Rin", 1)]), Some(json!(2))));
    // another agent's closed relations never count
    assert_eq!(f.ok("list_entities", json!({"agent_id": "b", "as_of": "all"})), json!({"entities": [], "total": 0}));
}

/// Atlas (mem:1) —owned_by→ Priya (mem:2), the relation closed at 2026-01-01T03:30Z: the
/// walk's claims (records reached over relations) of `reconstruct` at `as_of`, and its bounds.
fn walked(f: &mut common::Fixture, as_of: Value) -> (Vec<Value>, Value) {
    let out = f.ok("reconstruct", json!({"agent_id": "a", "query": "Atlas ships March", "as_of": as_of}));
    let claims = out["items"][0]["claims"].as_array().cloned().unwrap_or_default();
    (
        claims.iter().filter(|c| c.get("hops").is_some()).map(|c| c["ref"].clone()).collect(),
        out.get("bounds").cloned().unwrap_or(Value::Null),
    )
}

fn atlas() -> common::Fixture {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Project Atlas ships on March 3.", "associations": {"entities": [{"name": "Atlas"}]}}),
    );
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Priya moved to the Lisbon office.", "associations": {"entities": [{"name": "Priya"}]}}),
    );
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "Atlas", "predicate": "owned_by", "object": "Priya"}]}}),
    );
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "invalidate": [{"relation_id": 1, "at": "2026-01-01T03:30:00Z", "reason": "handed over"}]}),
    );
    f
}

#[test]
fn reconstruct_walks_relations_that_hold_at_the_instant() {
    let mut f = atlas();
    // now: the relation ended before the clock, so the walk does not follow it, and says so
    let (reached, bounds) = walked(&mut f, Value::Null);
    assert!(reached.is_empty());
    assert_eq!(bounds["not_holding"], 1, "{bounds}");
    let (reached, bounds) = walked(&mut f, json!("2026-01-01T03:00:00Z"));
    assert_eq!(reached, vec![json!("mem:2")]);
    assert!(bounds.get("not_holding").is_none());
    let (reached, _) = walked(&mut f, json!("all"));
    assert_eq!(reached, vec![json!("mem:2")]);
    // another agent's graph: nothing of a's, whatever the instant
    let out = f.ok("reconstruct", json!({"agent_id": "b", "query": "Atlas ships March", "as_of": "all"}));
    assert!(out["items"].as_array().unwrap().is_empty());
}

#[test]
fn reconstruct_reaches_records_over_relations_only_while_they_hold() {
    let mut f = atlas();
    // Priya's record stopped being true at 02:30, before the relation was closed
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "invalidate": [{"ref": "mem:2", "at": "2026-01-01T02:30:00Z", "reason": "moved again"}]}),
    );
    assert_eq!(walked(&mut f, json!("2026-01-01T02:00:00Z")).0, vec![json!("mem:2")]);
    assert!(walked(&mut f, json!("2026-01-01T03:00:00Z")).0.is_empty(), "the relation holds, the record does not");
    assert_eq!(walked(&mut f, json!("all")).0, vec![json!("mem:2")]);
}

#[test]
fn record_relations_bundle_only_while_they_hold() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "The ingest pipeline stalled."}));
    f.ok("store", json!({"agent_id": "a", "content": "The ingest pipeline restarted."}));
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "associations": {"relations": [{"subject": "mem:2", "predicate": "supersedes", "object": "mem:1", "valid_to": "2026-01-01T03:00:00Z"}]}}),
    );
    let items = |f: &mut common::Fixture, as_of: Value| {
        let out = f.ok("reconstruct", json!({"agent_id": "a", "query": "ingest pipeline", "as_of": as_of}));
        (out["items"].as_array().unwrap().len(), out["bounds"]["not_holding"].clone())
    };
    assert_eq!(items(&mut f, json!("2026-01-01T02:00:00Z")), (1, Value::Null));
    assert_eq!(items(&mut f, Value::Null), (2, json!(1)), "ended before now: not bundled, counted");
    assert_eq!(items(&mut f, json!("all")), (1, Value::Null));
}

/// The instants random declarations and reads are drawn from, a day apart from the clock's
/// start (2026-01-01), in stored spelling.
const DAYS: &[&str] = &[
    "2025-12-30T00:00:00+00:00",
    "2026-01-01T00:00:00+00:00",
    "2026-01-01T05:00:00+00:00",
    "2026-01-02T00:00:00+00:00",
    "2026-01-03T00:00:00+00:00",
];
const PEOPLE: &[&str] = &["Ledger", "Kaito", "Rin", "Mei"];

mod replay {
    use super::*;
    use associative_memory::{FixedClock, Memory};
    use proptest::prelude::*;

    /// One declaration call: a relation with an optional interval, an invalidation, or a
    /// predicate's arity; by agent 0 or 1.
    #[derive(Debug, Clone)]
    pub enum Op {
        Relate { agent: usize, s: usize, o: usize, predicate: bool, from: Option<usize>, to: Option<usize> },
        Close { agent: usize, id: i64, at: Option<usize> },
        Single { agent: usize, single: bool },
    }

    pub fn op() -> impl Strategy<Value = Op> {
        let day = prop::option::of(0..DAYS.len());
        prop_oneof![
            5 => (0..2usize, 0..PEOPLE.len(), 0..PEOPLE.len(), any::<bool>(), day.clone(), day.clone())
                .prop_map(|(agent, s, o, predicate, from, to)| Op::Relate { agent, s, o, predicate, from, to }),
            2 => (0..2usize, 1..12i64, day).prop_map(|(agent, id, at)| Op::Close { agent, id, at }),
            1 => (0..2usize, any::<bool>()).prop_map(|(agent, single)| Op::Single { agent, single }),
        ]
    }

    fn agent(a: usize) -> &'static str {
        ["a", "b"][a]
    }

    /// Applies `ops` on a fresh memory whose clock moves five hours per call, and returns
    /// each call's answer as text, and the memory.
    pub fn replay(ops: &[Op]) -> (Vec<String>, Memory) {
        let clock = FixedClock::new(1_767_225_600_000);
        let mut m = Memory::open_in_memory_with_clock(Box::new(clock.clone())).unwrap();
        let answers = ops
            .iter()
            .map(|op| {
                let args = match op {
                    Op::Relate { agent: a, s, o, predicate, from, to } => {
                        let mut r = json!({"subject": PEOPLE[*s], "predicate": if *predicate { "maintained by" } else { "knows" }, "object": PEOPLE[*o]});
                        if let Some(d) = from {
                            r["valid_from"] = json!(DAYS[*d]);
                        }
                        if let Some(d) = to {
                            r["valid_to"] = json!(DAYS[*d]);
                        }
                        json!({"agent_id": agent(*a), "associations": {"relations": [r]}})
                    }
                    Op::Close { agent: a, id, at } => {
                        let mut i = json!({"relation_id": id, "reason": "ended"});
                        if let Some(d) = at {
                            i["at"] = json!(DAYS[*d]);
                        }
                        json!({"agent_id": agent(*a), "invalidate": [i]})
                    }
                    Op::Single { agent: a, single } => json!({"agent_id": agent(*a), "predicates": [{"name": "maintained by", "single": single}]}),
                };
                clock.advance_ms(5 * 3_600_000);
                m.call_text("declare_associations", &args).unwrap()
            })
            .collect();
        (answers, m)
    }

    /// Every relation read of both agents at every instant (now, each day, `"all"`), as text.
    pub fn reads(m: &mut Memory) -> Vec<String> {
        let instants = std::iter::once(Value::Null).chain(DAYS.iter().map(|d| json!(d))).chain([json!("all")]);
        let mut out = Vec::new();
        for as_of in instants {
            for a in ["a", "b"] {
                for who in PEOPLE {
                    out.push(m.call_text("traverse", &json!({"agent_id": a, "entity": who, "max_hops": 3, "as_of": as_of})).unwrap());
                }
                out.push(m.call_text("list_entities", &json!({"agent_id": a, "as_of": as_of})).unwrap());
                out.push(m.call_text("reconstruct", &json!({"agent_id": a, "query": "Ledger Kaito Rin Mei", "as_of": as_of})).unwrap());
            }
        }
        for a in ["a", "b"] {
            for who in PEOPLE {
                out.push(m.call_text("history", &json!({"agent_id": a, "entity": who})).unwrap());
            }
        }
        out
    }
}

use proptest::prelude::*;

/// Whether a relation of `history` holds at `at` (stored spelling), as SPEC §5 says: its
/// interval `[valid_from, valid_to)` holds the instant.
fn holds_at(r: &Value, at: &str) -> bool {
    let (from, to) = (r["valid_from"].as_str().unwrap_or(""), r["valid_to"].as_str().unwrap_or(""));
    from <= at && (to.is_empty() || at < to)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// The same declarations on the same clock give the same bytes, every answer and every
    /// relation read at every instant.
    #[test]
    fn replaying_declarations_gives_identical_relation_reads_at_every_instant(ops in prop::collection::vec(replay::op(), 1..24)) {
        let (first, mut one) = replay::replay(&ops);
        let (second, mut two) = replay::replay(&ops);
        prop_assert_eq!(first, second);
        prop_assert_eq!(replay::reads(&mut one), replay::reads(&mut two));
    }

    /// At every instant, traverse follows exactly the relations of the entity's timeline
    /// whose interval holds it, and counts the others: the read at an instant and the
    /// timeline agree.
    #[test]
    fn traverse_at_an_instant_follows_exactly_the_timeline_relations_that_hold(ops in prop::collection::vec(replay::op(), 1..24)) {
        let (_, mut m) = replay::replay(&ops);
        let mut read = |tool: &str, args: Value| -> Value { serde_json::from_str(&m.call_text(tool, &args).unwrap()).unwrap() };
        for who in PEOPLE {
            let h = read("history", json!({"agent_id": "a", "entity": who}));
            let Some(start) = h["entity"]["id"].as_i64() else { continue };
            let timeline = h["relations"].as_array().unwrap();
            for at in DAYS {
                let t = read("traverse", json!({"agent_id": "a", "entity": who, "as_of": at, "limit": 100}));
                let mut followed: Vec<i64> = t["relations"].as_array().unwrap().iter()
                    .filter(|r| r["subject"] == start || r["object"] == start).map(|r| r["id"].as_i64().unwrap()).collect();
                followed.sort_unstable();
                let mut expected: Vec<i64> = timeline.iter().filter(|r| holds_at(r, at)).map(|r| r["id"].as_i64().unwrap()).collect();
                expected.sort_unstable();
                prop_assert_eq!(&followed, &expected, "{} at {}", who, at);
                // with no hop, only the start's own relations are read: those left out are the rest
                let t = read("traverse", json!({"agent_id": "a", "entity": who, "as_of": at, "max_hops": 0}));
                let left_out = (timeline.len() - expected.len()) as i64;
                prop_assert_eq!(t["bounds"]["not_holding"].as_i64().unwrap_or(0), left_out, "{} at {}", who, at);
            }
        }
    }
}
