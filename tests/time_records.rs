//! Records in time (issue 39): `expires_at` on the four writes, `as_of` and its default on
//! every read of records (recall and its arms, reconstruct's seeds, list_memories,
//! get_contents), isolation, `purge_expired` and its cascade, and replay at every instant.

mod common;
use associative_memory::{FixedClock, Memory};
use common::fixture;
use proptest::prelude::*;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The refs of a recall's messages, in order.
fn refs(out: &Value) -> Vec<String> {
    out["messages"].as_array().unwrap().iter().map(|m| m["ref"].as_str().unwrap().to_owned()).collect()
}

/// The ids of a list_memories page, in order.
fn listed(out: &Value) -> Vec<i64> {
    out["memories"].as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect()
}

/// The refs of get_contents' items, and its missing refs.
fn contents(out: &Value) -> (Vec<String>, Vec<String>) {
    let strings = |v: &Value| v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_owned()).collect();
    let items: Vec<String> = out["items"].as_array().unwrap().iter().map(|i| i["ref"].as_str().unwrap().to_owned()).collect();
    (items, strings(&out["missing"]))
}

/// Every record ref a reconstruct names: items' heads and claims.
fn reconstructed(out: &Value) -> Vec<String> {
    let mut refs: Vec<String> = Vec::new();
    for item in out["items"].as_array().unwrap() {
        for claim in item["claims"].as_array().unwrap() {
            refs.push(claim["ref"].as_str().unwrap().to_owned());
        }
    }
    refs.sort();
    refs.dedup();
    refs
}

/// Sets columns of records in the memory's database directly, through an image exported,
/// changed and imported: what `declare_associations`' `invalidate` writes, for reads to
/// be tested on their own.
fn set_columns(memory: &mut Memory, sql: &str) {
    let image = memory.export().unwrap();
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, &image[..], image.len(), false).unwrap();
    conn.execute_batch(sql).unwrap();
    let bytes = conn.serialize(rusqlite::MAIN_DB).unwrap();
    memory.import(&bytes).unwrap();
}

#[test]
fn expires_at_is_checked_naming_its_field_and_stored_in_utc() {
    let mut f = fixture();
    let before = f.memory.export_memories(&associative_memory::ExportMemoriesOptions { agent_id: "a".into() }).unwrap();
    let bad = "next tuesday";
    for (tool, args, field) in [
        ("store", json!({"agent_id": "a", "content": "x", "expires_at": bad}), "expires_at"),
        ("store_many", json!({"agent_id": "a", "items": [{"content": "ok"}, {"content": "x", "expires_at": bad}]}), "items[1].expires_at"),
        ("archive_episode", json!({"agent_id": "a", "summary": "x", "expires_at": bad}), "expires_at"),
        ("archive_episode", json!({"agent_id": "a", "summary": "x", "expires_at": ""}), "expires_at"),
    ] {
        assert_eq!(f.err(tool, args), ("invalid_value".to_owned(), Some(field.to_owned())), "{tool}");
    }
    let after = f.memory.export_memories(&associative_memory::ExportMemoriesOptions { agent_id: "a".into() }).unwrap();
    assert_eq!(before.jsonl, after.jsonl, "a refused call wrote nothing");

    f.ok("store", json!({"agent_id": "a", "content": "kept", "expires_at": "2027-03-01T09:00:00+09:00"}));
    f.ok("store_many", json!({"agent_id": "a", "items": [{"content": "also kept", "expires_at": "2027-03-01T00:00Z"}]}));
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "an episode", "expires_at": "2027-03-01"}));
    let got = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2", "ep:1"]}));
    let ends: Vec<&str> = got["items"].as_array().unwrap().iter().map(|i| i["expires_at"].as_str().unwrap()).collect();
    assert_eq!(ends, ["2027-03-01T00:00:00+00:00"; 3]);

    // update_memory: a new expiry, then "" clears it; a bad one names the field
    assert_eq!(
        f.err("update_memory", json!({"agent_id": "a", "memory_id": 1, "expires_at": bad})),
        ("invalid_value".to_owned(), Some("expires_at".to_owned()))
    );
    f.ok("update_memory", json!({"agent_id": "a", "memory_id": 1, "expires_at": "2028-01-01T00:00:00Z"}));
    let got = f.ok("list_memories", json!({"agent_id": "a"}));
    assert_eq!(got["memories"][1]["expires_at"], "2028-01-01T00:00:00+00:00", "{got}");
    f.ok("update_memory", json!({"agent_id": "a", "memory_id": "mem:1", "expires_at": ""}));
    let got = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:1"]}));
    assert!(got["items"][0].get("expires_at").is_none(), "cleared: {got}");
}

/// Two agents' records, some expiring: the clock stands at 2026-01-01T04:00Z once stored.
/// mem:1 expires at 02:00, ep:1 at 02:30, mem:2 never; agent b's mem:3 at 01:00.
fn expiring() -> common::Fixture {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "ab ledger alpha", "embedding": [1.0, 0.0], "expires_at": "2026-01-01T02:00:00Z"}));
    f.ok("store", json!({"agent_id": "a", "content": "ab ledger beta", "embedding": [0.9, 0.1]}));
    f.ok(
        "archive_episode",
        json!({"agent_id": "a", "summary": "ledger retro", "embedding": [1.0, 0.0], "expires_at": "2026-01-01T02:30:00Z"}),
    );
    f.ok("store", json!({"agent_id": "b", "content": "ab ledger gamma", "embedding": [1.0, 0.0], "expires_at": "2026-01-01T01:00:00Z"}));
    f
}

#[test]
fn recall_leaves_out_what_ended_by_now_and_shows_it_at_an_earlier_instant() {
    let mut f = expiring();
    let recall = |f: &mut common::Fixture, extra: Value| {
        let mut args = json!({"agent_id": "a", "query": "ledger"});
        args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        f.ok("recall", args)
    };
    let now = recall(&mut f, json!({}));
    assert_eq!(refs(&now), ["mem:2"]);
    assert_eq!(now["not_holding"], 2, "{now}");
    let then = recall(&mut f, json!({"as_of": "2026-01-01T01:30:00Z"}));
    assert_eq!(refs(&then).len(), 3, "{then}");
    assert!(then.get("not_holding").is_none(), "{then}");
    let alpha = then["messages"].as_array().unwrap().iter().find(|m| m["ref"] == "mem:1").unwrap();
    assert_eq!(alpha["expires_at"], "2026-01-01T02:00:00+00:00");
    // the end is excluded: at 02:00 mem:1 has expired, ep:1 not yet
    let at_end = recall(&mut f, json!({"as_of": "2026-01-01T02:00:00Z"}));
    let mut got = refs(&at_end);
    got.sort();
    assert_eq!(got, ["ep:1", "mem:2"]);
    assert_eq!(at_end["not_holding"], 1);
    let all = recall(&mut f, json!({"as_of": "all"}));
    assert_eq!(refs(&all).len(), 3);
    // the limit is filled from what holds: the cut comes after the instant's filter
    assert_eq!(refs(&recall(&mut f, json!({"limit": 1}))), ["mem:2"]);
    // a two-letter term (the LIKE fallback), and the vector arm alone
    let short = f.ok("recall", json!({"agent_id": "a", "query": "ab"}));
    assert_eq!(refs(&short), ["mem:2"], "{short}");
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "ab", "as_of": "all"}))).len(), 2);
    let vector = f.ok("recall", json!({"agent_id": "a", "query": "zzzz", "query_embedding": [1.0, 0.0]}));
    assert_eq!(refs(&vector), ["mem:2"], "{vector}");
    let vector_all = f.ok("recall", json!({"agent_id": "a", "query": "zzzz", "query_embedding": [1.0, 0.0], "as_of": "all"}));
    assert_eq!(refs(&vector_all), ["ep:1", "mem:1", "mem:2"], "{vector_all}");
}

#[test]
fn another_agents_expired_records_never_show_nor_count() {
    let mut f = expiring();
    let b = f.ok("recall", json!({"agent_id": "b", "query": "ledger"}));
    assert_eq!(refs(&b), Vec::<String>::new());
    assert_eq!(b["not_holding"], 1, "only b's own: {b}");
    let b_then = f.ok("recall", json!({"agent_id": "b", "query": "ledger", "as_of": "all"}));
    assert_eq!(refs(&b_then), ["mem:3"]);
    let a = f.ok("list_memories", json!({"agent_id": "a", "as_of": "all"}));
    assert_eq!(listed(&a), [2, 1]);
    assert_eq!(f.ok("list_memories", json!({"agent_id": "b"}))["not_holding"], 1);
    let (items, missing) = contents(&f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:3"], "as_of": "all"})));
    assert_eq!((items, missing), (vec![], vec!["mem:3".to_owned()]));
    // b's purge takes b's record only
    assert_eq!(f.ok("purge_expired", json!({"agent_id": "b"})), json!({"memories": 1, "episodes": 0, "mentions": 0, "relations": 0}));
    assert_eq!(listed(&f.ok("list_memories", json!({"agent_id": "a", "as_of": "all"}))), [2, 1]);
}

#[test]
fn list_memories_and_get_contents_read_at_the_instant() {
    let mut f = expiring();
    let now = f.ok("list_memories", json!({"agent_id": "a"}));
    assert_eq!((listed(&now), &now["total"], &now["not_holding"]), (vec![2], &json!(1), &json!(1)), "{now}");
    let then = f.ok("list_memories", json!({"agent_id": "a", "as_of": "2026-01-01T01:59:59.999Z"}));
    assert_eq!((listed(&then), &then["total"]), (vec![2, 1], &json!(2)));
    assert!(then.get("not_holding").is_none());
    assert_eq!(then["memories"][1]["expires_at"], "2026-01-01T02:00:00+00:00");
    let paged = f.ok("list_memories", json!({"agent_id": "a", "as_of": "all", "limit": 1}));
    assert_eq!((listed(&paged), &paged["next_offset"]), (vec![2], &json!(1)));

    let refs = json!(["mem:1", "mem:2", "ep:1"]);
    let (items, missing) = contents(&f.ok("get_contents", json!({"agent_id": "a", "refs": refs})));
    assert_eq!((items, missing), (vec!["mem:2".to_owned()], vec!["mem:1".to_owned(), "ep:1".to_owned()]));
    let (items, missing) = contents(&f.ok("get_contents", json!({"agent_id": "a", "refs": refs, "as_of": "2026-01-01T02:15:00Z"})));
    assert_eq!((items, missing), (vec!["mem:2".to_owned(), "ep:1".to_owned()], vec!["mem:1".to_owned()]));
    let (items, _) = contents(&f.ok("get_contents", json!({"agent_id": "a", "refs": refs, "as_of": "all"})));
    assert_eq!(items.len(), 3);
    assert_eq!(
        f.err("get_contents", json!({"agent_id": "a", "refs": refs, "as_of": "yesterday"})),
        ("invalid_value".to_owned(), Some("as_of".to_owned()))
    );
}

#[test]
fn invalidated_records_read_with_their_reason_only_before_their_instant() {
    let mut f = expiring();
    set_columns(
        &mut f.memory,
        "UPDATE memories SET invalid_at = '2026-01-01T03:00:00+00:00', invalid_reason = 'the ledger moved' WHERE id = 2",
    );
    // now (04:00): mem:2 no longer holds either
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "ledger"}))), Vec::<String>::new());
    assert_eq!(f.ok("list_memories", json!({"agent_id": "a"}))["not_holding"], 2);
    let then = f.ok("recall", json!({"agent_id": "a", "query": "ledger beta", "as_of": "2026-01-01T02:59:00Z"}));
    let beta = &then["messages"][0];
    assert_eq!(
        (&beta["ref"], &beta["invalid_at"], &beta["invalid_reason"]),
        (&json!("mem:2"), &json!("2026-01-01T03:00:00+00:00"), &json!("the ledger moved"))
    );
    let got = f.ok("get_contents", json!({"agent_id": "a", "refs": ["mem:2"], "as_of": "all"}));
    assert_eq!(got["items"][0]["invalid_reason"], "the ledger moved");
    let listed_all = f.ok("list_memories", json!({"agent_id": "a", "as_of": "all"}));
    assert_eq!(listed_all["memories"][0]["invalid_reason"], "the ledger moved");
    // purge takes expired records, never invalidated ones: they are history
    let purged = f.ok("purge_expired", json!({"agent_id": "a"}));
    assert_eq!(purged, json!({"memories": 1, "episodes": 1, "mentions": 0, "relations": 0}));
    assert_eq!(listed(&f.ok("list_memories", json!({"agent_id": "a", "as_of": "all"}))), [2]);
}

#[test]
fn reconstruct_seeds_only_what_holds() {
    let mut f = expiring();
    let now = f.ok("reconstruct", json!({"agent_id": "a", "query": "ledger"}));
    assert_eq!(reconstructed(&now), ["mem:2"], "{now}");
    let all = f.ok("reconstruct", json!({"agent_id": "a", "query": "ledger", "as_of": "all"}));
    assert_eq!(reconstructed(&all), ["ep:1", "mem:1", "mem:2"], "{all}");
}

/// Invariant 8 through purge: no mention or relation outlives its expired record, and what
/// rests on records that hold stays.
#[test]
fn purge_expired_cascades_and_counts() {
    let mut f = fixture();
    let assoc =
        |o: &str| json!({"entities": [{"name": "Kaito"}], "relations": [{"subject": "Kaito", "predicate": "maintains", "object": o}]});
    f.ok("store", json!({"agent_id": "a", "content": "Kaito maintains the ledger.", "expires_at": "2026-01-01T00:30:00Z", "associations": assoc("Ledger")}));
    f.ok("store", json!({"agent_id": "a", "content": "Kaito maintains payroll.", "associations": assoc("Payroll")}));
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "old sprint", "expires_at": "2026-01-01T01:00:00Z"}));
    f.ok("declare_associations", json!({"agent_id": "a", "anchor_ref": "ep:1", "associations": {"relations": [{"subject": "mem:2", "predicate": "follows", "object": "ep:1"}]}}));
    f.ok("store", json!({"agent_id": "a", "content": "expires later", "expires_at": "2027-01-01T00:00:00Z"}));
    let purged = f.ok("purge_expired", json!({"agent_id": "a"}));
    assert_eq!(purged, json!({"memories": 1, "episodes": 1, "mentions": 1, "relations": 2}), "{purged}");
    assert_eq!(f.ok("purge_expired", json!({"agent_id": "a"})), json!({"memories": 0, "episodes": 0, "mentions": 0, "relations": 0}));
    let image = f.memory.export().unwrap();
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, &image[..], image.len(), true).unwrap();
    let rows = |q: &str| {
        let mut stmt = conn.prepare(q).unwrap();
        let got: Vec<Vec<i64>> = stmt.query_map([], |r| Ok(vec![r.get::<_, i64>(0)?])).unwrap().map(Result::unwrap).collect();
        json!(got)
    };
    assert_eq!(rows("SELECT id FROM memories ORDER BY id"), json!([[2], [3]]));
    assert_eq!(rows("SELECT count(*) FROM episodes"), json!([[0]]));
    let orphans = "SELECT count(*) FROM entity_mentions m WHERE (m.ref_kind = 'mem' AND m.ref_id NOT IN (SELECT id FROM memories)) \
                   OR (m.ref_kind = 'ep' AND m.ref_id NOT IN (SELECT id FROM episodes))";
    assert_eq!(rows(orphans), json!([[0]]));
    let dangling = "SELECT count(*) FROM relations r WHERE (r.anchor_kind = 'mem' AND r.anchor_id NOT IN (SELECT id FROM memories)) \
                    OR (r.anchor_kind = 'ep' AND r.anchor_id NOT IN (SELECT id FROM episodes)) \
                    OR (r.subject_kind = 'ep' AND r.subject_id NOT IN (SELECT id FROM episodes)) \
                    OR (r.object_kind = 'ep' AND r.object_id NOT IN (SELECT id FROM episodes))";
    assert_eq!(rows(dangling), json!([[0]]));
    let graph = f.ok("traverse", json!({"agent_id": "a", "entity": "Kaito"}));
    assert_eq!(graph["relations"].as_array().unwrap().len(), 1, "payroll's relation stays: {graph}");
    assert_eq!(f.err("purge_expired", json!({"agent_id": " "})), ("invalid_value".to_owned(), Some("agent_id".to_owned())));
}

#[derive(Debug, Clone)]
enum Op {
    /// A memory of agent `agent` of these words, expiring `expires` hours after the start.
    Store {
        agent: usize,
        words: Vec<usize>,
        expires: Option<u8>,
    },
    Episode {
        words: Vec<usize>,
        expires: Option<u8>,
    },
    /// A new expiry for memory `id` (`None`: cleared).
    Expire {
        id: i64,
        expires: Option<u8>,
    },
    Purge,
}

const AGENTS: [&str; 2] = ["a", "b"];
const WORDS: &[&str] = &["ledger", "payments", "deploy", "incident", "audit", "ab"];

fn op() -> impl Strategy<Value = Op> {
    let words = || prop::collection::vec(0..WORDS.len(), 1..4);
    let hours = || prop::option::of(0..12u8);
    prop_oneof![
        5 => (0..2usize, words(), hours()).prop_map(|(agent, words, expires)| Op::Store { agent, words, expires }),
        1 => (words(), hours()).prop_map(|(words, expires)| Op::Episode { words, expires }),
        2 => (1..12i64, hours()).prop_map(|(id, expires)| Op::Expire { id, expires }),
        1 => Just(Op::Purge),
    ]
}

const START: i64 = 1_767_225_600_000;

fn hour(h: u8) -> String {
    associative_memory::format_iso(START + i64::from(h) * 3_600_000)
}

/// Runs `ops` on a fresh memory whose clock moves an hour per op; with `reads`, every read
/// below after each op too (so the kept indexes follow each write).
fn run(ops: &[Op], reads: bool) -> Memory {
    let clock = FixedClock::new(START);
    let mut m = Memory::open_in_memory_with_clock(Box::new(clock.clone())).unwrap();
    for op in ops {
        let text = |words: &[usize]| words.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" ");
        let (tool, mut args) = match op {
            Op::Store { agent, words, expires } => {
                ("store", json!({"agent_id": AGENTS[*agent], "content": text(words), "expires_at": expires.map(hour)}))
            }
            Op::Episode { words, expires } => {
                ("archive_episode", json!({"agent_id": "a", "summary": text(words), "expires_at": expires.map(hour)}))
            }
            Op::Expire { id, expires } => {
                ("update_memory", json!({"agent_id": "a", "memory_id": id, "expires_at": expires.map_or(String::new(), hour)}))
            }
            Op::Purge => ("purge_expired", json!({"agent_id": "a"})),
        };
        args.as_object_mut().unwrap().retain(|_, v| !v.is_null());
        let _ = m.call(tool, &args);
        if reads {
            let _ = reads_at_every_instant(&mut m);
        }
        clock.advance_ms(3_600_000);
    }
    m
}

/// Every record read of agent a at every hour of the run, at none and at "all".
fn reads_at_every_instant(m: &mut Memory) -> Vec<String> {
    let mut out = Vec::new();
    let instants = (0..14u8).map(|h| Some(hour(h))).chain([None, Some("all".to_owned())]);
    for as_of in instants {
        let at = |mut args: Value| {
            if let Some(t) = &as_of {
                args["as_of"] = json!(t);
            }
            args
        };
        let refs: Vec<String> = (1..14).map(|i| format!("mem:{i}")).chain((1..4).map(|i| format!("ep:{i}"))).collect();
        for (tool, args) in [
            ("recall", at(json!({"agent_id": "a", "query": "ledger audit ab", "limit": 5}))),
            ("recall", at(json!({"agent_id": "a", "query": "ab"}))),
            ("list_memories", at(json!({"agent_id": "a"}))),
            ("get_contents", at(json!({"agent_id": "a", "refs": refs[..16.min(refs.len())]}))),
        ] {
            out.push(format!("{tool} {args} -> {}", m.call_text(tool, &args).unwrap_or_else(|e| e.to_string())));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]

    /// The same stores, expiries, purges and clock give byte-identical record reads at every
    /// instant: whether or not reads ran between the writes (kept indexes against ones built
    /// once), and after an export and import (indexes rebuilt from the image).
    #[test]
    fn replay_gives_byte_identical_record_reads_at_every_instant(ops in prop::collection::vec(op(), 1..24)) {
        let mut kept = run(&ops, true);
        let mut once = run(&ops, false);
        let reads = reads_at_every_instant(&mut kept);
        prop_assert_eq!(&reads, &reads_at_every_instant(&mut once));
        let image = kept.export().unwrap();
        let mut restored = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(START + ops.len() as i64 * 3_600_000))).unwrap();
        restored.import(&image).unwrap();
        prop_assert_eq!(&reads, &reads_at_every_instant(&mut restored));
    }
}

/// A memory with every kind of time: an expiring memory and episode, an invalidated
/// memory, a relation closed and declared again from a later instant (two rows of one fact),
/// and a predicate declared single-valued (the last three written as the relations'
/// operations write them).
fn timed() -> common::Fixture {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Kaito maintains the ledger.", "expires_at": "2027-01-01T00:00:00Z", "associations": {
            "relations": [{"subject": "Kaito", "predicate": "maintains", "object": "Ledger"}]}}),
    );
    f.ok("store", json!({"agent_id": "a", "content": "Rin maintains the ledger."}));
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "handover", "expires_at": "2027-06-01T00:00:00Z"}));
    set_columns(
        &mut f.memory,
        "UPDATE memories SET invalid_at = '2026-03-01T00:00:00+00:00', invalid_reason = 'Kaito handed over' WHERE id = 1;
         UPDATE relations SET valid_from = '2025-01-01T00:00:00+00:00', valid_to = '2026-03-01T00:00:00+00:00', closed_by = 'operator',
                closed_at = '2026-03-02T00:00:00+00:00', closed_reason = 'handed over';
         INSERT INTO relations (agent_id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id, anchor_kind,
                anchor_id, declared_by, declared_at, valid_from)
              SELECT agent_id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id, anchor_kind, anchor_id,
                declared_by, declared_at, '2026-09-01T00:00:00+00:00' FROM relations;
         INSERT INTO predicates VALUES ('a', '', '', 'maintains', 1, 'agent', '2026-01-01T00:00:00+00:00');",
    );
    f
}

/// Each line as JSON, without what an import makes anew (creation and declaration times).
fn without_times(jsonl: &str) -> Vec<Value> {
    jsonl
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            for key in ["created_at", "declared_at", "exported_at"] {
                v.as_object_mut().unwrap().remove(key);
            }
            v
        })
        .collect()
}

#[test]
fn the_jsonl_export_carries_every_time_and_round_trips() {
    let mut f = timed();
    let out = f.ok("export_memories", json!({"agent_id": "a"}));
    assert_eq!((&out["relations"], &out["predicates"]), (&json!(2), &json!(1)), "{out}");
    let lines = without_times(out["jsonl"].as_str().unwrap());
    assert_eq!(lines[0]["predicate_count"], 1);
    assert_eq!(
        (&lines[1]["expires_at"], &lines[1]["invalid_at"], &lines[1]["invalid_reason"]),
        (&json!("2027-01-01T00:00:00+00:00"), &json!("2026-03-01T00:00:00+00:00"), &json!("Kaito handed over"))
    );
    assert!(lines[2].get("expires_at").is_none() && lines[2].get("invalid_at").is_none(), "unset times are left out: {}", lines[2]);
    assert_eq!(lines[3]["expires_at"], "2027-06-01T00:00:00+00:00");
    let relations: Vec<&Value> = lines.iter().filter(|l| l["_type"] == "relation").collect();
    assert_eq!(
        (&relations[0]["valid_to"], &relations[0]["closed_by"], &relations[0]["closed_reason"], &relations[1]["valid_from"]),
        (&json!("2026-03-01T00:00:00+00:00"), &json!("operator"), &json!("handed over"), &json!("2026-09-01T00:00:00+00:00"))
    );
    assert!(relations[1].get("valid_to").is_none());
    let predicate = lines.last().unwrap();
    assert_eq!((&predicate["_type"], &predicate["name"], &predicate["single"]), (&json!("predicate"), &json!("maintains"), &json!(true)));

    // imported into a fresh memory, it exports the same
    let mut g = fixture();
    let again = g.ok("import_memories", json!({"jsonl": out["jsonl"]}));
    assert_eq!((&again["relations"], &again["predicates"], &again["dropped"]), (&json!(2), &json!(1), &json!([])), "{again}");
    let second = g.ok("export_memories", json!({"agent_id": "a"}));
    assert_eq!(lines, without_times(second["jsonl"].as_str().unwrap()));
    // and reads the same at every instant
    for as_of in ["2026-02-01T00:00:00Z", "2026-04-01T00:00:00Z", "all"] {
        for (tool, args) in [
            ("list_memories", json!({"agent_id": "a", "as_of": as_of})),
            // (an episode's time is its creation's when its history has none: the import's)
            ("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2"], "as_of": as_of})),
        ] {
            let (mut a, mut b) = (f.ok(tool, args.clone()), g.ok(tool, args));
            for listed in [&mut a, &mut b] {
                for m in listed.get_mut("memories").and_then(Value::as_array_mut).into_iter().flatten() {
                    m.as_object_mut().unwrap().remove("created_at");
                }
            }
            assert_eq!(a, b, "{tool} at {as_of}");
        }
    }
    // into a memory that already holds the fact without an interval, each closed row comes beside it
    let mut h = fixture();
    h.ok("store", json!({"agent_id": "a", "content": "x", "associations": {"relations": [{"subject": "Kaito", "predicate": "maintains", "object": "Ledger"}]}}));
    assert_eq!(h.ok("import_memories", json!({"jsonl": out["jsonl"]}))["relations"], 2);
    assert_eq!(h.ok("export_memories", json!({"agent_id": "a"}))["relations"], 3);
    // a dry run counts the same and writes nothing
    let dry = fixture().memory.call("import_memories", &json!({"jsonl": out["jsonl"], "dry_run": true})).unwrap();
    assert_eq!((&dry["relations"], &dry["predicates"]), (&json!(2), &json!(1)));
}

#[test]
fn a_malformed_time_in_a_jsonl_file_names_its_line() {
    let mut f = timed();
    let jsonl = f.ok("export_memories", json!({"agent_id": "a"}))["jsonl"].as_str().unwrap().to_owned();
    let lines: Vec<Value> = jsonl.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let with = |i: usize, key: &str, value: Value| {
        let mut lines = lines.clone();
        lines[i][key] = value;
        lines.iter().map(Value::to_string).collect::<Vec<_>>().join("\n")
    };
    let mut g = fixture();
    let before = g.memory.export().unwrap();
    // a record's time: the import is refused, naming the field, and writes nothing
    for (file, code, field) in [
        (with(1, "expires_at", json!("soon")), "invalid_value", "lines[1].expires_at"),
        (with(3, "expires_at", json!(7)), "wrong_type", "lines[3].expires_at"),
        (with(1, "invalid_at", json!("2026-13-01")), "invalid_value", "lines[1].invalid_at"),
        (with(1, "invalid_reason", json!("")), "invalid_value", "lines[1].invalid_reason"),
        (with(2, "invalid_reason", json!("why")), "missing_field", "lines[2].invalid_at"),
    ] {
        assert_eq!(g.err("import_memories", json!({"jsonl": file})), (code.to_owned(), Some(field.to_owned())), "{field}");
        assert!(g.memory.export().unwrap() == before, "{field}: nothing was written");
    }
    // a relation's interval or a predicate: that line is dropped and listed, the rest comes in
    let relation = lines.iter().position(|l| l["_type"] == "relation").unwrap();
    for (file, item) in [
        (with(relation, "valid_to", json!("2024-01-01T00:00:00Z")), format!("lines[{relation}].valid_to")),
        (with(relation, "closed_by", json!("someone")), format!("lines[{relation}].closed_by")),
        (with(relation, "valid_from", json!("later")), format!("lines[{relation}].valid_from")),
        (with(lines.len() - 1, "single", json!("yes")), format!("lines[{}].single", lines.len() - 1)),
    ] {
        let mut h = fixture();
        let out = h.ok("import_memories", json!({"jsonl": file}));
        assert_eq!(out["dropped"][0]["item"], item, "{out}");
        assert_eq!(out["memories"], 2);
    }
}

/// The reference implementation reads an export carrying every time (run through
/// ../shared/conformance/cpersona_driver.py, as `reference_jsonl::the_reference_imports_our_export`
/// runs it): it ignores the keys it does not know, lists the predicate line as of a type it
/// does not know, and imports the records and declarations.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_reference_imports_an_export_carrying_every_time() {
    let mut f = timed();
    let export = f.ok("export_memories", json!({"agent_id": "a"}));
    let lines = common::reference_after_import(export["jsonl"].as_str().unwrap(), "Kaito");
    let imported = &lines[0]["result"];
    assert_eq!(
        (&imported["ok"], &imported["imported_memories"], &imported["imported_episodes"]),
        (&json!(true), &json!(2), &json!(1)),
        "{imported}"
    );
    let errors: Vec<&str> = imported["errors"].as_array().map(|e| e.iter().map(|e| e.as_str().unwrap()).collect()).unwrap_or_default();
    assert!(errors.iter().all(|e| e.contains("unknown type 'predicate'")), "{imported}");
    let mut contents: Vec<String> =
        lines[1]["result"]["memories"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect();
    contents.sort();
    assert_eq!(contents, ["Kaito maintains the ledger.", "Rin maintains the ledger."], "{}", lines[1]);
    let t = &lines[2]["result"];
    assert_eq!(t["relations"][0]["predicate"], "maintains", "{t}");
}

#[test]
fn a_claim_on_an_invalidated_record_says_when_and_why_only_where_it_is_read() {
    let mut f = fixture();
    let old = f.ok("store", json!({"agent_id": "a", "content": "the ledger service runs on the old cluster"}))["id"].as_i64().unwrap();
    f.ok("store", json!({"agent_id": "a", "content": "the ledger service moved to the new cluster", "expires_at": "2100-01-01"}));
    let why = "moved in the March migration";
    let out = f.ok("declare_associations", json!({"agent_id": "a", "invalidate": [{"ref": format!("mem:{old}"), "reason": why}]}));
    assert_eq!(out["invalidated"]["records"], json!([format!("mem:{old}")]));
    let ask = |f: &mut common::Fixture, as_of: Option<&str>| {
        let mut args = json!({"agent_id": "a", "query": "ledger service cluster"});
        if let Some(t) = as_of {
            args["as_of"] = json!(t);
        }
        let out = f.ok("reconstruct", args);
        let claims: Vec<Value> = out["items"].as_array().unwrap().iter().flat_map(|i| i["claims"].as_array().unwrap().clone()).collect();
        claims
    };
    // now: the invalidated record is not read; the other claim carries its expiry
    let now = ask(&mut f, None);
    assert!(now.iter().all(|c| c["ref"] != json!(format!("mem:{old}"))), "{now:?}");
    assert!(now.iter().any(|c| c["expires_at"] == json!("2100-01-01T00:00:00+00:00")), "{now:?}");
    // "all": it is read, with when and why it stopped holding
    let all = ask(&mut f, Some("all"));
    let claim = all.iter().find(|c| c["ref"] == json!(format!("mem:{old}"))).expect("read at all");
    assert_eq!(claim["invalid_reason"], json!(why));
    assert!(claim["invalid_at"].is_string(), "{claim}");
}
