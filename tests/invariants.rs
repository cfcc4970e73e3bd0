//! The eight invariants of design §5 and the six readings of §9, each a named test through
//! the real engine. Every one has a named mutation in tests/MUTATIONS.md that turns it red.

mod common;
use common::{fixture, Fixture};
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const AGENT: &str = "team";

/// Twenty records of a small team, stored with timestamps a minute apart per source.
fn corpus() -> Fixture {
    let mut f = fixture();
    let texts = [
        ("Kaito", "Kaito Mori wrote the ledger service in 2024."),
        ("Kaito", "The ledger service stores balances in Postgres."),
        ("Aiko", "Aiko reviewed the payments API contract on Monday."),
        ("Aiko", "The payments API depends on the ledger service for balances."),
        ("Ren", "Ren set up Grafana dashboards for payments latency."),
        ("Ren", "Latency alerts page the on-call engineer after five minutes."),
        ("Mei", "Mei is the product owner of the wallet app."),
        ("Mei", "The wallet app release 3.5 ships on October 30."),
        ("Kaito", "Kaito is on leave until June."),
        ("Aiko", "The fraud model flags transfers above 5000 euros."),
        ("Ren", "Postgres failover was tested in the Osaka rack."),
        ("Mei", "Customers asked for QR code payments in the wallet app."),
        ("Aiko", "QR checkout depends on the payments API."),
        ("Ren", "The incident INC-0412 charged some customers twice."),
        ("Kaito", "INC-0412 was caused by a retry in the ledger service."),
        ("Mei", "Release notes for 3.5 mention QR checkout."),
        ("Aiko", "The payments API rate limit is 200 requests per second."),
        ("Ren", "Grafana shows ledger latency under 40 ms."),
        ("Mei", "The roadmap puts offline mode after release 3.5."),
        ("Kaito", "Ledger reconciliation runs nightly at 02:00."),
    ];
    for (i, (who, text)) in texts.iter().enumerate() {
        f.ok(
            "store",
            json!({"agent_id": AGENT, "content": text, "timestamp": format!("2026-10-{:02}T09:00:00Z", i + 1),
            "source": {"type": "User", "id": who, "name": who}}),
        );
    }
    f.ok(
        "archive_episode",
        json!({"agent_id": AGENT, "summary": "Retro on the double charge incident and the ledger retry fix",
        "keywords": "incident ledger retry", "history": [
            {"role": "user", "content": "what happened?", "timestamp": "2026-10-14T08:00:00Z"},
            {"role": "assistant", "content": "a retry", "timestamp": "2026-10-15T18:00:00Z"}]}),
    );
    f
}

/// Entities, mentions and entity → entity relations over the corpus (no record relations).
fn declare_entity_graph(f: &mut Fixture) {
    let decl = |f: &mut Fixture, anchor: &str, entities: Value, relations: Value| {
        f.ok(
            "declare_associations",
            json!({"agent_id": AGENT, "anchor_ref": anchor,
            "associations": {"entities": entities, "relations": relations}}),
        );
    };
    decl(
        f,
        "mem:1",
        json!([{"name": "Kaito Mori", "aliases": ["Kaito", "森"]}, {"name": "Ledger Service", "aliases": ["ledger", "台帳"]}]),
        json!([{"subject": "Kaito Mori", "predicate": "maintains", "object": "Ledger Service"}]),
    );
    decl(
        f,
        "mem:4",
        json!([{"name": "Payments API", "aliases": ["payments api"]}, {"name": "Ledger Service"}]),
        json!([{"subject": "Payments API", "predicate": "depends_on", "object": "Ledger Service"}]),
    );
    decl(
        f,
        "mem:7",
        json!([{"name": "Mei"}, {"name": "Wallet App", "aliases": ["wallet"]}]),
        json!([{"subject": "Mei", "predicate": "owns", "object": "Wallet App"}]),
    );
    decl(
        f,
        "mem:13",
        json!([{"name": "QR Checkout", "aliases": ["QR"]}, {"name": "Payments API"}]),
        json!([{"subject": "QR Checkout", "predicate": "depends_on", "object": "Payments API"}]),
    );
    decl(
        f,
        "mem:15",
        json!([{"name": "INC-0412"}, {"name": "Ledger Service"}]),
        json!([{"subject": "INC-0412", "predicate": "caused_by", "object": "Ledger Service"}]),
    );
    decl(f, "mem:9", json!([{"name": "Kaito"}]), json!([]));
    decl(f, "mem:5", json!([{"name": "Grafana"}]), json!([{"subject": "Grafana", "predicate": "monitors", "object": "Payments API"}]));
}

const QUERIES: &[&str] = &[
    "who maintains the ledger service",
    "what does the payments API depend on",
    "when does the wallet app release ship",
    "what caused INC-0412",
    "latency dashboards",
    "Kaito",
    "QR payments",
    "台帳",
];

fn reconstruct(f: &mut Fixture, query: &str, extra: Value) -> Value {
    let mut args = json!({"agent_id": AGENT, "query": query});
    args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    f.ok("reconstruct", args)
}

fn heads(v: &Value) -> Vec<String> {
    v["items"].as_array().unwrap().iter().map(|i| i["head_ref"].as_str().unwrap().to_owned()).collect()
}

fn claims(item: &Value) -> Vec<&Value> {
    item["claims"].as_array().unwrap().iter().collect()
}

#[test]
fn invariant_1_recall_is_unchanged_by_the_graph() {
    let mut bare = corpus();
    let mut declared = corpus();
    declare_entity_graph(&mut declared);
    declared.ok(
        "declare_associations",
        json!({"agent_id": AGENT, "associations": {"relations": [{"subject": "mem:15", "predicate": "corrects", "object": "mem:14"}]}}),
    );
    for q in QUERIES {
        for deep in [false, true] {
            let args = json!({"agent_id": AGENT, "query": q, "deep": deep, "limit": 20});
            assert_eq!(bare.ok("recall", args.clone()), declared.ok("recall", args), "recall {q:?} changed with the graph");
        }
    }
}

#[test]
fn invariant_2_empty_graph_is_a_noop() {
    // the same corpus, once with the association tables empty and once without them
    let mut with_tables = corpus();
    let mut without = corpus();
    let bytes = without.memory.export().unwrap();
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, &bytes[..], bytes.len(), false).unwrap();
    conn.execute_batch(
        "DROP TRIGGER entities_cascade; DROP TRIGGER memories_cascade; DROP TRIGGER episodes_cascade;
         DROP TABLE entities; DROP TABLE entity_aliases; DROP TABLE entity_mentions; DROP TABLE relations;",
    )
    .unwrap();
    // opened on the connection as it is (import would refuse a schema that is not ours)
    without.memory = associative_memory::Memory::from_connection(conn, Box::new(without.clock.clone())).unwrap();
    for q in QUERIES {
        for extra in [json!({}), json!({"trace": true, "max_hops": 5}), json!({"deep": true, "count": 3, "budget": 200})] {
            let a = serde_json::to_string(&reconstruct(&mut with_tables, q, extra.clone())).unwrap();
            let b = serde_json::to_string(&reconstruct(&mut without, q, extra)).unwrap();
            assert_eq!(a, b, "reconstruct {q:?} differs between empty and absent association tables");
        }
    }
}

/// Queries that name no declared entity, so stage 1 adds nothing and everything the graph
/// changes comes from the walk (a query that names an entity changes the lexical arm by
/// design: that is stage 1).
const UNNAMED: &[&str] = &[
    "balances in postgres",
    "on-call engineer",
    "failover tested",
    "release notes",
    "rate limit",
    "fraud model transfers",
    "customers",
    "roadmap offline mode",
    "incident charged twice",
    "retry",
];

#[test]
fn invariant_3_association_never_creates_or_reorders_an_item() {
    let mut bare = corpus();
    let mut declared = corpus();
    declare_entity_graph(&mut declared);
    let mut walked_somewhere = false;
    for q in UNNAMED {
        for extra in [json!({}), json!({"max_hops": 5, "count": 3}), json!({"deep": true})] {
            let a = reconstruct(&mut bare, q, extra.clone());
            let b = reconstruct(&mut declared, q, extra);
            assert_eq!(heads(&a), heads(&b), "item heads or order changed for {q:?}");
            walked_somewhere |= b["items"].as_array().unwrap().iter().flat_map(claims).any(|c| c.get("hops").is_some());
        }
    }
    assert!(walked_somewhere, "the graph added evidence somewhere, so the test exercised the walk");
}

#[test]
fn invariant_4_declarations_are_stored_as_written() {
    let mut f = corpus();
    declare_entity_graph(&mut f);
    let t = f.ok("traverse", json!({"agent_id": AGENT, "entity": "台帳"}));
    assert_eq!(t["entities"][0]["name"], "Ledger Service");
    assert_eq!(t["entities"][0]["aliases"], json!(["ledger", "台帳"]));
}

#[test]
fn invariant_5_bounded_and_deterministic() {
    let mut f = corpus();
    declare_entity_graph(&mut f);
    for max_hops in 0..=3 {
        for max_evidence in [1, 2, 3, 40] {
            let args = json!({"max_hops": max_hops, "max_evidence": max_evidence});
            let r = reconstruct(&mut f, "what does the payments API depend on", args.clone());
            for item in r["items"].as_array().unwrap() {
                let cs = claims(item);
                assert!(cs.len() <= max_evidence as usize, "more claims than max_evidence");
                assert!(cs.iter().all(|c| c["hops"].as_i64().unwrap_or(0) <= max_hops), "a claim past max_hops");
            }
            assert_eq!(r, reconstruct(&mut f, "what does the payments API depend on", args), "same inputs, same output");
        }
    }
    // the hop bound cuts and says so
    let r = reconstruct(&mut f, "Kaito", json!({"max_hops": 1}));
    assert_eq!(r["bounds"]["omitted"], json!(["max_hops"]));
}

#[test]
fn invariant_6_every_element_says_where_it_came_from() {
    let mut f = corpus();
    declare_entity_graph(&mut f);
    let r = reconstruct(&mut f, "QR payments", json!({"max_hops": 2}));
    let mut walked = 0;
    for item in r["items"].as_array().unwrap() {
        for c in claims(item) {
            match c.get("why").and_then(Value::as_str) {
                None => assert!(c.get("hops").is_none() && c.get("path").is_none() && c.get("via_entity").is_none()),
                Some(w) if w.starts_with("relation:") && c.get("hops").is_some() => {
                    walked += 1;
                    assert!(c["hops"].as_i64().unwrap() >= 1);
                    assert_eq!(
                        c["path"].as_array().map(Vec::len),
                        Some(c["hops"].as_u64().unwrap() as usize),
                        "one relation id per hop: {c}"
                    );
                    assert!(c["via_entity"].is_i64(), "a walked claim names the entity that brought it in: {c}");
                }
                Some(w) => {
                    assert!(w.starts_with("cluster:") || w.starts_with("relation:"), "unexplained claim {c}");
                    assert!(c.get("path").is_none() && c.get("via_entity").is_none(), "only a walked claim has a path: {c}");
                }
            }
        }
    }
    assert!(walked > 0, "the walk reached something: {r}");
    let t = f.ok("traverse", json!({"agent_id": AGENT, "entity": "QR"}));
    for rel in t["relations"].as_array().unwrap() {
        assert_eq!(rel["declared_by"], "agent");
        assert!(rel["anchor_ref"].as_str().unwrap().starts_with("mem:"));
    }
}

#[test]
fn invariant_7_isolation_holds_in_the_walk() {
    let mut f = corpus();
    declare_entity_graph(&mut f);
    f.ok("declare_associations", json!({"agent_id": AGENT, "anchor_ref": "mem:5", "associations": {"entities": [{"name": "Ren"}]}}));
    let before = reconstruct(&mut f, "Kaito", json!({"max_hops": 3}));
    // another agent declares a relation between the same names, anchored on its own record
    f.ok(
        "store",
        json!({"agent_id": "other", "content": "Kaito Mori joined the fraud team.",
        "associations": {"entities": [{"name": "Kaito Mori", "aliases": ["Kaito"]}],
                         "relations": [{"subject": "Kaito Mori", "predicate": "member_of", "object": "Fraud Team"}]}}),
    );
    // and this agent files a relation in project p between two global entities; a read of
    // project q (or of the global pool) must not follow it to Ren's global record, mem:5
    f.ok(
        "store",
        json!({"agent_id": AGENT, "project_id": "p", "content": "Kaito mentors Ren.",
        "associations": {"relations": [{"subject": "Kaito", "predicate": "mentors", "object": "Ren"}]}}),
    );
    let in_p = reconstruct(&mut f, "Kaito", json!({"max_hops": 3, "project_id": "p"}));
    assert!(in_p.to_string().contains("relation:mentors"), "project p's read follows its own relation: {in_p}");
    assert_eq!(reconstruct(&mut f, "Kaito", json!({"max_hops": 3, "project_id": "q"})), before);
    let global = reconstruct(&mut f, "Kaito", json!({"max_hops": 3, "project_id": ""}));
    assert_eq!(global, before, "the global pool read is unchanged by a project's declarations");
}

/// A small graph for the readings: Atlas —owned_by→ Priya —member_of→ Payments; mem:1
/// mentions Atlas, mem:2 Priya, mem:3 Payments, mem:4 Atlas again.
fn atlas() -> Fixture {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": AGENT, "content": "Project Atlas ships on March 3.", "associations": {"entities": [{"name": "Atlas"}],
        "relations": [{"subject": "Atlas", "predicate": "owned_by", "object": "Priya"}]}}),
    );
    f.ok(
        "store",
        json!({"agent_id": AGENT, "content": "Priya moved to the Lisbon office.", "associations": {"entities": [{"name": "Priya"}],
        "relations": [{"subject": "Priya", "predicate": "member_of", "object": "Payments"}]}}),
    );
    f.ok("store", json!({"agent_id": AGENT, "content": "The Payments group freezes deploys at month end.", "associations": {"entities": [{"name": "Payments"}]}}));
    f.ok("store", json!({"agent_id": AGENT, "content": "Atlas kickoff notes.", "associations": {"entities": [{"name": "Atlas"}]}}));
    f
}

fn walked(r: &Value) -> Vec<(String, i64)> {
    claims(&r["items"][0]).iter().filter_map(|c| Some((c["ref"].as_str()?.to_owned(), c.get("hops")?.as_i64()?))).collect()
}

#[test]
fn reading_1_direction_the_walk_follows_a_relation_from_either_end() {
    let mut f = atlas();
    // Payments is the OBJECT of "Priya member_of Payments": from it the walk still reaches Priya, then Atlas
    let r = reconstruct(&mut f, "month end deploy freeze", json!({"max_hops": 2}));
    assert_eq!(r["items"][0]["head_ref"], "mem:3", "{r}");
    let mut reached = walked(&r);
    reached.sort();
    assert_eq!(reached, vec![("mem:1".to_string(), 2), ("mem:2".to_string(), 1), ("mem:4".to_string(), 2)]);
    // excerpts follow the walk's written order: fewer hops, more recent relation, lower id
    let excerpts: Vec<&str> = r["items"][0]["excerpts"].as_array().unwrap().iter().map(|e| e["ref"].as_str().unwrap()).collect();
    assert_eq!(excerpts, vec!["mem:2", "mem:1", "mem:4"]);
    let claim = |reference: &str| claims(&r["items"][0]).into_iter().find(|c| c["ref"] == reference).unwrap().clone();
    assert_eq!(claim("mem:2")["why"], "relation:member_of");
    // the path names the relations followed, from Payments outward: member_of (2), owned_by (1)
    assert_eq!(claim("mem:2")["path"], json!([2]));
    assert_eq!(claim("mem:1")["path"], json!([2, 1]));
    assert_eq!(claim("mem:1")["why"], "relation:owned_by", "why names the last relation of the path");
    // and the entity at its end, whose mention brought the record in: Priya (2), Atlas (1)
    let atlas = f.ok("traverse", json!({"agent_id": AGENT, "entity": "Atlas", "max_hops": 0}))["entities"][0]["id"].clone();
    assert_eq!((claim("mem:2")["via_entity"].clone(), claim("mem:1")["via_entity"].clone()), (json!(2), atlas));
}

#[test]
fn reading_2_hops_start_at_one() {
    let mut f = atlas();
    // mem:4 mentions Atlas as mem:1 does: sharing the entity is no relation, so no evidence
    let r = reconstruct(&mut f, "Project Atlas ships March", json!({"max_hops": 0}));
    assert_eq!(r["items"][0]["head_ref"], "mem:1", "{r}");
    assert!(claims(&r["items"][0]).iter().all(|c| c["ref"] != "mem:4"), "{r}");
    let r = reconstruct(&mut f, "Project Atlas ships March", json!({"max_hops": 1}));
    assert_eq!(walked(&r), vec![("mem:2".to_string(), 1)]);
}

#[test]
fn reading_3_one_row_one_place() {
    let mut f = corpus();
    declare_entity_graph(&mut f);
    let r = reconstruct(&mut f, "ledger service", json!({"max_hops": 3}));
    let mut seen = std::collections::BTreeSet::new();
    for item in r["items"].as_array().unwrap() {
        for c in claims(item) {
            assert!(seen.insert(c["ref"].as_str().unwrap().to_owned()), "{} appears twice: {r}", c["ref"]);
        }
    }
    let heads: Vec<String> = heads(&r);
    for item in r["items"].as_array().unwrap() {
        for c in claims(item).iter().filter(|c| c.get("hops").is_some()) {
            assert!(!heads.contains(&c["ref"].as_str().unwrap().to_owned()), "a candidate was reached as evidence");
        }
    }
}

#[test]
fn reading_4_reading_is_bounded_and_says_so() {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": AGENT, "content": "Atlas ships in March.", "associations": {"entities": [{"name": "Atlas"}],
        "relations": [{"subject": "Atlas", "predicate": "owned_by", "object": "Priya"}]}}),
    );
    for i in 0..5 {
        f.ok("store", json!({"agent_id": AGENT, "content": format!("Priya note {i}"), "associations": {"entities": [{"name": "Priya"}]}}));
    }
    let r = reconstruct(&mut f, "when does Atlas ship", json!({"max_hops": 1, "max_evidence": 3}));
    let refs: Vec<&str> = claims(&r["items"][0]).iter().map(|c| c["ref"].as_str().unwrap()).collect();
    assert!(refs.contains(&"mem:2") && refs.contains(&"mem:3"), "lowest ids first: {r}");
    assert!(!refs.contains(&"mem:6"));
    assert_eq!(r["bounds"]["reached"], json!(["max_evidence"]));
}

#[test]
fn reading_5_why_and_independence() {
    let mut f = atlas();
    f.ok(
        "declare_associations",
        json!({"agent_id": AGENT, "associations": {"relations": [
        {"subject": "mem:4", "predicate": "follows_up", "object": "mem:1"}]}}),
    );
    let r = reconstruct(&mut f, "Atlas", json!({"max_hops": 1}));
    let item = &r["items"][0];
    assert_eq!(item["independence_reason"], "cluster:relation", "{r}");
    for c in claims(item) {
        match c["ref"].as_str().unwrap() {
            "mem:1" | "mem:4" => {
                assert_eq!(c["why"], "relation:follows_up");
                assert!(c.get("hops").is_none(), "a bundled row has no hops");
                assert!(c.get("roles").is_none(), "follows_up is not a role word");
            }
            _ => assert_eq!((c["why"].as_str(), c["hops"].as_i64()), (Some("relation:owned_by"), Some(1)), "{c}"),
        }
    }
    f.ok(
        "declare_associations",
        json!({"agent_id": AGENT, "associations": {"relations": [
        {"subject": "mem:4", "predicate": "corrects", "object": "mem:1"}]}}),
    );
    let r = reconstruct(&mut f, "Atlas", json!({}));
    let corrected = claims(&r["items"][0]).into_iter().find(|c| c["ref"] == "mem:1").unwrap().clone();
    assert_eq!(corrected["roles"], json!([{"ref": "mem:4", "role": "corrects"}]), "the referenced row is the subject");
}

#[test]
fn reading_6_an_alias_adds_a_vote_not_an_admission() {
    // Vectors make two arms: the query vector points at mem:1 and mem:2. mem:3 has no vector
    // and is found only through an alias term, by the lexical arm alone: it stays below the
    // gate, exactly as it would without the alias.
    let mut f = fixture();
    let v = |x: f32, y: f32| json!([x, y, 0.0]);
    f.ok("store", json!({"agent_id": AGENT, "content": "Deploy notes for the cluster.", "embedding": v(1.0, 0.0)}));
    f.ok("store", json!({"agent_id": AGENT, "content": "Cluster deploy checklist.", "embedding": v(0.9, 0.1)}));
    // no vector: only the lexical arm can find it, and only through the alias
    f.ok("store", json!({"agent_id": AGENT, "content": "kube upgrade is scheduled."}));
    let ask = |f: &mut Fixture| reconstruct(f, "k8s cluster deploy", json!({"query_embedding": [1.0, 0.0, 0.0]}));
    let without = ask(&mut f);
    f.ok(
        "declare_associations",
        json!({"agent_id": AGENT, "associations": {"entities": [{"name": "Kubernetes", "aliases": ["k8s", "kube"]}]}}),
    );
    let with = ask(&mut f);
    let sorted = |v: &Value| {
        let mut h = heads(v);
        h.sort();
        h
    };
    assert_eq!(sorted(&with), sorted(&without), "the alias may reorder (a vote) but admits nothing");
    assert!(!heads(&with).contains(&"mem:3".to_string()), "{with}");
    let traced = reconstruct(&mut f, "k8s cluster deploy", json!({"query_embedding": [1.0, 0.0, 0.0], "trace": true}));
    assert_eq!(traced["trace"]["gated"], 1, "the alias found it and the gate left it out: {traced}");
}
