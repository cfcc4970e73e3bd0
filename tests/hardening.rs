//! Inputs built to hurt (issue 36): none may kill a memory, cross an agent, or leave a
//! backup that does not restore. Each test is a class of input the engine once let
//! through, tried at the door it came by and at every other door of the same kind.

#[path = "common/backups.rs"]
mod backups;
mod common;

use associative_memory::Key;
use backups::{canonical, hostile_jsonl};
use common::{fixture, Fixture};
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// U+FDFA: one character that Unicode NFKC spells as eighteen.
const GROWS: char = '\u{FDFA}';

fn grown(n: usize) -> String {
    std::iter::repeat_n(GROWS, n).collect()
}

/// The `(item, reason)` pairs of a report's `dropped`.
fn dropped(report: &Value) -> Vec<(String, String)> {
    report["dropped"]
        .as_array()
        .unwrap_or_else(|| panic!("no dropped list in {report}"))
        .iter()
        .map(|d| (d["item"].as_str().unwrap().to_owned(), d["reason"].as_str().unwrap().to_owned()))
        .collect()
}

/// A name past its bound as written is dropped before it is normalized, and one within it
/// that normalization takes past the bound is dropped too; the memory is stored either
/// way, and nothing else of the call's is lost. At every door that declares.
#[test]
fn names_that_grow_under_normalization_are_dropped_by_their_written_length_first() {
    let mut f = fixture();
    // 256 characters as written, 4,608 normalized; and one a million characters long
    let (near, long) = (grown(256), grown(1 << 20));
    let stored = f.ok(
        "store",
        json!({"agent_id": "a", "content": "The ledger service is maintained by Kaito.", "associations": {
            "entities": [{"name": long}, {"name": near}, {"name": "Kaito", "aliases": [grown(20), "海斗", long]}],
            "relations": [{"subject": "Kaito", "predicate": long, "object": "Ledger"}, {"subject": "Kaito", "predicate": grown(15), "object": "Ledger"},
                          {"subject": "Kaito", "predicate": "maintains", "object": "Ledger"}]}}),
    );
    let got = dropped(&stored["associations"]);
    let reason =
        |item: &str| got.iter().find(|(i, _)| i == item).map(|(_, r)| r.as_str()).unwrap_or_else(|| panic!("{item} not in {got:?}"));
    assert_eq!(reason("entities[0].name"), "is longer than 256 characters");
    assert!(reason("entities[1].name").contains("once normalized"), "{got:?}");
    assert!(reason("entities[2].aliases[0]").contains("once normalized"), "{got:?}");
    assert_eq!(reason("entities[2].aliases[2]"), "is longer than 256 characters");
    assert_eq!(reason("relations[0].predicate"), "is longer than 256 characters");
    assert!(reason("relations[1].predicate").contains("once normalized"), "{got:?}");
    assert_eq!(got.len(), 6, "{got:?}");
    assert_eq!(stored["associations"]["relations"].as_array().unwrap().len(), 1);
    let memory = format!("mem:{}", stored["id"]);
    let read = f.ok("get_contents", json!({"agent_id": "a", "refs": [memory]}));
    assert_eq!(read["count"], 1);
    let walked = f.names(json!({"agent_id": "a", "entity": "海斗"}));
    assert_eq!(walked, ["Kaito", "Ledger"]);

    // declare_associations, a store_many item and an import take the same path
    let declared = f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": [{"name": long}]}}));
    assert_eq!(dropped(&declared), [("entities[0].name".to_owned(), "is longer than 256 characters".to_owned())]);
    let many = f.ok(
        "store_many",
        json!({"agent_id": "a", "items": [{"content": "x", "associations": {"entities": [{"name": "y", "aliases": [long]}]}}]}),
    );
    assert_eq!(
        dropped(&many["items"][0]["associations"]),
        [("entities[0].aliases[0]".to_owned(), "is longer than 256 characters".to_owned())]
    );
    let jsonl = [
        json!({"_type": "header", "version": "cpersona-export/1.1"}),
        json!({"_type": "entity", "id": 1, "agent_id": "a", "name": long, "aliases": []}),
        json!({"_type": "entity", "id": 2, "agent_id": "a", "name": "Rin", "aliases": [near]}),
    ]
    .map(|l| l.to_string())
    .join("\n");
    let imported = f.ok("import_memories", json!({"jsonl": jsonl}));
    assert_eq!(imported["entities"], 0, "{imported}");
    let got = dropped(&imported);
    assert_eq!(got[0], ("lines[1].entities[0].name".to_owned(), "is longer than 256 characters".to_owned()));
    assert!(got[1].0 == "lines[2].entities[0].aliases[0]" && got[1].1.contains("once normalized"), "{got:?}");
}

/// An image whose stored name is past any bound a declaration allows is refused without
/// normalizing it (`tests/common/images.rs` has the case, `name_past_every_bound`); one
/// whose names are as long as declarations can make them imports, and so do its exports.
#[test]
fn the_longest_names_a_declaration_allows_survive_export_and_import() {
    let mut f = fixture();
    let name: String = std::iter::repeat_n('ﬁ', 128).collect(); // 128 written, 256 normalized
    let stored = f.ok(
        "store",
        json!({"agent_id": "a", "content": "ligatures", "associations": {
            "entities": [{"name": name, "aliases": [grown(14)]}], "relations": [{"subject": name, "predicate": grown(14), "object": "x"}]}}),
    );
    assert_eq!(dropped(&stored["associations"]), []);
    let bytes = f.memory.export().unwrap();
    let mut copy = fixture();
    copy.memory.import(&bytes).unwrap();
    let walk = json!({"agent_id": "a", "entity": name});
    assert_eq!(copy.names(walk.clone()), f.names(walk));
    let lines = f.ok("export_memories", json!({"agent_id": "a"}));
    let mut again = fixture();
    assert_eq!(dropped(&again.ok("import_memories", json!({"jsonl": lines["jsonl"]}))), []);
}

/// Past a list's bound, items are counted, not listed one by one: a report holds at most
/// 100 items whatever the call sent.
#[test]
fn reports_of_dropped_items_are_bounded() {
    let mut f = fixture();
    let aliases: Vec<String> = (0..200_000).map(|i| format!("alias {i}")).collect();
    let entities: Vec<Value> = (0..1000).map(|i| json!({"name": format!("e{i}"), "unknown": true})).collect();
    let report =
        f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": [{"name": "Kaito", "aliases": aliases}]}}));
    let got = dropped(&report);
    assert_eq!(got.len(), 100);
    assert_eq!(got[0], ("entities[0].aliases[32]".to_owned(), "beyond the 32-alias bound".to_owned()));
    assert_eq!(got[99].0, "entities[0].aliases[131]");
    assert_eq!(report["dropped_omitted"], 200_000 - 32 - 100);
    let report = f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": entities}}));
    // 64 unknown fields, then 936 items past the bound
    assert_eq!(dropped(&report).len(), 100);
    assert_eq!(report["dropped_omitted"], 64 + 936 - 100);
    assert_eq!(report["entities"].as_array().unwrap().len(), 64);
    // nothing past a bound: no count at all
    let report = f.ok("declare_associations", json!({"agent_id": "a", "associations": {"entities": [{"name": "Rin"}]}}));
    assert!(report.get("dropped_omitted").is_none(), "{report}");

    let mut lines = vec![json!({"_type": "header", "version": "cpersona-export/1.1"}).to_string()];
    lines.extend((0..300).map(|i| json!({"_type": "profile", "n": i}).to_string()));
    let imported = f.ok("import_memories", json!({"jsonl": lines.join("\n")}));
    assert_eq!(dropped(&imported).len(), 100);
    assert_eq!(imported["dropped_omitted"], 200);
}

/// A declaration list past its bound is cut as it is read (a store of 100,000 aliases copies
/// 64 of them, not all), and reported at its length as written; an object with more fields
/// than a declaration takes is dropped whole. The memory is stored; a list option that is
/// not a list is refused, naming it.
#[test]
fn declarations_past_their_bounds_are_cut_on_reading_and_counted_as_written() {
    let mut f = fixture();
    let aliases: Vec<String> = (0..100_000).map(|i| format!("a{i}")).collect();
    let mut wide: serde_json::Map<String, Value> = (0..20).map(|i| (format!("f{i:02}"), json!(i))).collect();
    wide.insert("name".into(), json!("wide"));
    let relations: Vec<Value> = (0..1000).map(|i| json!({"subject": "n", "predicate": "p", "object": format!("o{i}")})).collect();
    let stored = f.ok(
        "store",
        json!({"agent_id": "a", "content": "x", "associations": {"entities": [wide, {"name": "n", "aliases": aliases}], "relations": relations}}),
    );
    let report = &stored["associations"];
    let got = dropped(report);
    let reason = |r: &str| r.to_owned();
    assert_eq!(got[0], ("entities[0]".to_owned(), reason("has 21 fields, more than 8; entities take name and aliases")));
    assert_eq!(got[1], ("entities[1].aliases[32]".to_owned(), reason("beyond the 32-alias bound")));
    assert_eq!(got.len(), 100);
    assert_eq!(report["dropped_omitted"], (100_000 - 32) + (1000 - 64) - 99);
    assert_eq!(report["entities"].as_array().unwrap().len(), 1);
    assert_eq!(report["relations"].as_array().unwrap().len(), 64);

    let mut wide: serde_json::Map<String, Value> = (0..9).map(|i| (format!("f{i}"), json!(i))).collect();
    wide.insert("entities".into(), json!([{"name": "lost"}]));
    let stored = f.ok("store", json!({"agent_id": "a", "content": "y", "associations": wide}));
    assert_eq!(
        dropped(&stored["associations"]),
        [("associations".to_owned(), reason("has 10 fields, more than 8; associations take entities and relations"))]
    );
    assert_eq!(f.ok("list_memories", json!({"agent_id": "a"}))["total"], 2);

    let ids: Vec<i64> = (1..=100_000).collect();
    let report = f.ok("declare_associations", json!({"agent_id": "a", "retract": {"relations": ids}}));
    assert_eq!(report["retracted"]["relations"], 64);
    assert_eq!(dropped(&report)[0], ("retract.relations[64]".to_owned(), reason("beyond the 64-item bound")));
    assert_eq!(report["dropped_omitted"], 100_000 - 64 - 100);
    for (field, args) in [
        ("associations.entities", json!({"associations": {"entities": "Ada"}})),
        ("retract.mentions", json!({"retract": {"mentions": {"entity": 1}}})),
    ] {
        let mut args = args;
        args["agent_id"] = json!("a");
        assert_eq!(f.err("declare_associations", args), ("wrong_type".to_owned(), Some(field.to_owned())));
    }
}

/// A JSONL file cannot make one agent's declaration name another agent's record: a mention
/// and a relation anchored on alice's memory by mallory's entity are dropped, exactly as
/// `declare_associations` drops them, so alice's deletes touch only her own, and the
/// memory's exports restore.
#[test]
fn an_import_never_points_one_agents_declaration_at_anothers_record() {
    let mut f = fixture();
    let jsonl = [
        json!({"_type": "header", "version": "cpersona-export/1.1"}),
        json!({"_type": "memory", "id": 2, "agent_id": "alice", "content": "alice's note", "timestamp": "2026-01-01T00:00:00+00:00"}),
        json!({"_type": "memory", "id": 3, "agent_id": "mallory", "content": "mallory's note", "timestamp": "2026-01-01T00:00:00+00:00"}),
        json!({"_type": "entity", "id": 10, "agent_id": "mallory", "name": "Ledger", "aliases": []}),
        json!({"_type": "entity", "id": 11, "agent_id": "mallory", "name": "Kaito", "aliases": []}),
        json!({"_type": "mention", "entity": 10, "ref": "mem:2"}),
        json!({"_type": "relation", "id": 5, "agent_id": "mallory", "subject_kind": "entity", "subject_id": 11, "predicate": "maintains",
               "object_kind": "entity", "object_id": 10, "anchor_ref": "mem:2"}),
        json!({"_type": "mention", "entity": 10, "ref": "mem:3"}),
    ]
    .map(|l| l.to_string())
    .join("\n");
    let imported = f.ok("import_memories", json!({"jsonl": jsonl}));
    let got = dropped(&imported);
    assert_eq!(got.iter().map(|(item, _)| item.as_str()).collect::<Vec<_>>(), ["lines[5]", "lines[6]"], "{got:?}");
    assert!(got[0].1.contains("another agent"), "{got:?}");
    assert_eq!((imported["mentions"].clone(), imported["relations"].clone()), (json!(1), json!(0)));
    // the same anchor given to declare_associations is dropped by the same check
    let declared = f.ok(
        "declare_associations",
        json!({"agent_id": "mallory", "anchor_ref": "mem:1", "associations": {"entities": [{"name": "Ledger"}]}}),
    );
    assert_eq!(dropped(&declared), [("anchor_ref".to_owned(), "mem:1 is not a record of this agent".to_owned())]);
    assert_eq!(declared["mentions"], 0);
    let ledger = f.ok("list_entities", json!({"agent_id": "mallory", "query": "ledger"}));
    assert_eq!(ledger["entities"][0]["mentions"], 1, "{ledger}");
    f.ok("delete_memory", json!({"agent_id": "alice", "memory_id": 1}));
    let ledger = f.ok("list_entities", json!({"agent_id": "mallory", "query": "ledger"}));
    assert_eq!(ledger["entities"][0]["mentions"], 1, "alice's delete reached mallory: {ledger}");
    // the memory's own backups restore
    let bytes = f.memory.export().unwrap();
    let mut copy = fixture();
    copy.memory.import(&bytes).expect("the export of a memory an import wrote restores");
    let lines = f.ok("export_memories", json!({"agent_id": "mallory"}));
    let mut again = fixture();
    let re = again.ok("import_memories", json!({"jsonl": lines["jsonl"]}));
    assert_eq!(dropped(&re), []);
}

/// An agent's export, imported into an empty memory and exported again, is the same file
/// but for what an import renews (ids, which follow the file's order; creation times; the
/// export's own time): record → record relations, relations anchored on records, entities
/// of several buckets and their aliases all come back.
#[test]
fn an_agents_jsonl_export_restores_exactly() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "b", "content": "another agent's, so ids have gaps"}));
    let one = f.ok("store", json!({"agent_id": "a", "content": "The ledger was moved.", "associations": {"entities": [{"name": "Ledger", "aliases": ["台帳"]}]}}));
    let two = f.ok(
        "store",
        json!({"agent_id": "a", "project_id": "p", "channel": "c", "content": "The ledger was moved on Monday.", "associations": {
        "entities": [{"name": "Ledger", "aliases": ["ledger service"]}, {"name": "Kaito"}],
        // mem:3 is the memory this call stores
        "relations": [{"subject": "mem:3", "predicate": "corrects", "object": format!("mem:{}", one["id"])},
                      {"subject": "Kaito", "predicate": "maintains", "object": "Ledger"}]}}),
    );
    assert_eq!(dropped(&two["associations"]), []);
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "ledger review", "keywords": "ledger", "history": [{"role": "user", "content": "moved?", "timestamp": "2026-01-02T00:00:00Z"}]}));
    f.ok(
        "declare_associations",
        json!({"agent_id": "a", "anchor_ref": "ep:1", "declared_by": "operator", "associations": {
        "relations": [{"subject": "ep:1", "predicate": "supports", "object": format!("mem:{}", two["id"])}]}}),
    );
    let first = f.ok("export_memories", json!({"agent_id": "a"}))["jsonl"].as_str().unwrap().to_owned();
    let mut copy = fixture();
    let imported = copy.ok("import_memories", json!({"jsonl": first}));
    assert_eq!(dropped(&imported), [], "{imported}");
    let second = copy.ok("export_memories", json!({"agent_id": "a"}))["jsonl"].as_str().unwrap().to_owned();
    assert_eq!(canonical(&second), canonical(&first));
}

/// A query may name as many entities as fit in it, each with every alias allowed: stage 1
/// and the walk stay within SQLite's limits and within the call's bounds.
#[test]
fn a_query_naming_hundreds_of_entities_with_every_alias_reconstructs() {
    let mut f = fixture();
    // no record holds a name: the lexical arm falls back to LIKE over every term
    let id = f.ok("store", json!({"agent_id": "a", "content": "the ledger is shared"}))["id"].clone();
    // two-character aliases, shorter than a trigram: each is a LIKE term of its own
    let alias = |n: u32| [0x4E00 + n / 128, 0x4E00 + 128 + n % 128].map(|c| char::from_u32(c).unwrap()).iter().collect::<String>();
    for batch in 0..8 {
        let entities: Vec<Value> = (batch * 64..batch * 64 + 64)
            .map(|i| json!({"name": format!("e{i:03}"), "aliases": (0..32).map(|j| alias(i * 32 + j)).collect::<Vec<_>>()}))
            .collect();
        let relations: Vec<Value> = (batch * 64..batch * 64 + 64)
            .map(|i| json!({"subject": format!("e{i:03}"), "predicate": "near", "object": format!("e{:03}", (i + 1) % 512)}))
            .collect();
        let report = f.ok(
            "declare_associations",
            json!({"agent_id": "a", "anchor_ref": format!("mem:{id}"), "associations": {"entities": entities, "relations": relations}}),
        );
        assert_eq!(dropped(&report), []);
    }
    let query: String = (0..512).map(|i| format!("e{i:03}")).collect::<Vec<_>>().join(" ");
    assert!(query.chars().count() <= 4096);
    let out = f.ok("reconstruct", json!({"agent_id": "a", "query": query, "max_hops": 5, "max_evidence": 100, "trace": true}));
    // every entity is named; their other names are given up to the bound
    let cues = &out["trace"]["cues"];
    assert_eq!(cues["entities"].as_array().map(Vec::len), Some(512));
    assert_eq!(cues["terms"].as_array().map(Vec::len), Some(associative_memory::MAX_CUE_TERMS), "{cues}");
}

/// Terms shorter than a trigram are each a `LIKE` over every record, so the fallback reads
/// the first [`MAX_FALLBACK_TERMS`](associative_memory::MAX_FALLBACK_TERMS) of them, in the
/// query's order: a query of a thousand two-letter words costs what one of 64 does.
#[test]
fn the_fallback_reads_the_first_short_terms() {
    let mut f = fixture();
    let id = f.ok("store", json!({"agent_id": "a", "content": "the code is q9"}))["id"].clone();
    let max = associative_memory::MAX_FALLBACK_TERMS;
    let others: Vec<String> = (0..max as u32).map(|i| format!("{}x", char::from_u32(0x4E00 + i).unwrap())).collect();
    let found = |f: &mut Fixture, query: String| -> Vec<Value> {
        let out = f.ok("recall", json!({"agent_id": "a", "query": query, "deep": true}));
        out["messages"].as_array().unwrap().iter().map(|m| m["ref"].clone()).collect()
    };
    // `q9` the last of the first 64 short terms: read, and the memory found
    assert_eq!(found(&mut f, format!("{} q9", others[..max - 1].join(" "))), [json!(format!("mem:{id}"))]);
    // `q9` the 65th: not read
    assert_eq!(found(&mut f, format!("{} q9", others.join(" "))), Vec::<Value>::new());
}

/// Vectors of finite numbers whose squared norm overflows a 32-bit float are refused at
/// every door that takes one, and a refused call writes nothing.
#[test]
fn vectors_whose_norm_overflows_are_refused_on_every_door() {
    let mut f = fixture();
    let big = json!([3e38, 3e38]);
    let id = f.ok("store", json!({"agent_id": "a", "content": "kept", "embedding": [1.0, 0.0]}))["id"].clone();
    let before = f.memory.export().unwrap();
    let cases = [
        ("store", json!({"agent_id": "a", "content": "x", "embedding": big}), "embedding"),
        ("store_many", json!({"agent_id": "a", "items": [{"content": "x"}, {"content": "y", "embedding": big}]}), "items[1].embedding"),
        ("archive_episode", json!({"agent_id": "a", "summary": "x", "embedding": big}), "embedding"),
        ("update_memory", json!({"agent_id": "a", "memory_id": id, "embedding": big}), "embedding"),
        ("set_embeddings", json!({"items": [{"ref": format!("mem:{id}"), "embedding": big}]}), "items[0].embedding"),
        ("recall", json!({"agent_id": "a", "query": "kept", "query_embedding": big}), "query_embedding"),
        ("reconstruct", json!({"agent_id": "a", "query": "kept", "query_embedding": big}), "query_embedding"),
    ];
    for (tool, args, field) in cases {
        assert_eq!(f.err(tool, args), ("invalid_value".to_owned(), Some(field.to_owned())), "{tool}");
    }
    assert_eq!(f.memory.export().unwrap(), before);
    // the largest vector that is still comparable ranks as any other
    let fine = f.ok("recall", json!({"agent_id": "a", "query": "kept", "query_embedding": [1e19, 0.0]}));
    assert_eq!(fine["messages"][0]["ref"], format!("mem:{id}"));
}

/// A timestamp is taken only when its UTC instant has a stored form that parses back to
/// it: four-digit years once the offset is applied.
#[test]
fn timestamps_whose_utc_instant_leaves_four_digit_years_are_refused() {
    let mut f = fixture();
    let id = f.ok("store", json!({"agent_id": "a", "content": "x"}))["id"].clone();
    for stamp in ["9999-12-31T23:59:59.999-23:59", "0000-01-01T00:00:00+00:01"] {
        for (tool, args, field) in [
            ("store", json!({"agent_id": "a", "content": "x", "timestamp": stamp}), "timestamp"),
            ("update_memory", json!({"agent_id": "a", "memory_id": id, "timestamp": stamp}), "timestamp"),
            (
                "archive_episode",
                json!({"agent_id": "a", "summary": "x", "history": [{"role": "user", "content": "x", "timestamp": stamp}]}),
                "history[0].timestamp",
            ),
        ] {
            assert_eq!(f.err(tool, args), ("invalid_value".to_owned(), Some(field.to_owned())), "{tool} {stamp}");
        }
    }
    let latest = f.ok("store", json!({"agent_id": "a", "content": "the last instant", "timestamp": "9999-12-31T23:59:59.999+23:59"}));
    let listed = f.ok("list_memories", json!({"agent_id": "a"}));
    assert_eq!(listed["memories"][0]["id"], latest["id"], "{listed}");
    let jsonl = f.ok("export_memories", json!({"agent_id": "a"}))["jsonl"].clone();
    let mut copy = fixture();
    assert_eq!(copy.ok("import_memories", json!({"jsonl": jsonl}))["memories"], 2);
}

/// Encrypted bytes cut short or altered anywhere are refused with a documented code, and
/// the memory they were imported into is unchanged; an alteration no read reaches changes
/// nothing imported.
#[test]
fn damaged_encrypted_exports_are_refused_with_a_documented_code() {
    let key = || Key::raw(&[7; 32]).unwrap();
    let Fixture { memory: mut source, .. } = fixture();
    for i in 0..40 {
        source.call("store", &json!({"agent_id": "a", "content": format!("record {i} of the encrypted memory")})).unwrap();
    }
    source.rekey(Some(key())).unwrap();
    let bytes = source.export().unwrap();
    let Fixture { memory: mut target, .. } = fixture();
    target.call("store", &json!({"agent_id": "b", "content": "the target's own"})).unwrap();
    let before = target.export().unwrap();
    let mut damaged: Vec<Vec<u8>> =
        [1, 100, 4095, 4096, 4097, bytes.len() / 2, bytes.len() - 1].iter().map(|&n| bytes[..n].to_vec()).collect();
    for at in [0, 16, 100, 4096 + 24, 4096 + 200, bytes.len() - 10] {
        let mut b = bytes.clone();
        b[at] ^= 0x40;
        damaged.push(b);
    }
    for (n, b) in damaged.iter().enumerate() {
        match target.import_decrypted(b, &key()) {
            Err(err) => {
                assert!(["not_a_memory", "wrong_key"].contains(&err.code()), "case {n}: {} {err}", err.code());
                assert_eq!(target.export().unwrap(), before);
            }
            // a byte no read reaches (a page the rows do not use): the rows as they were
            Ok(()) => {
                let list = json!({"agent_id": "a", "limit": 100});
                assert_eq!(target.call("list_memories", &list).unwrap(), source.call("list_memories", &list).unwrap(), "case {n}");
                target.import(&before).unwrap();
            }
        }
    }
}

/// One operation of [`after_any_sequence_nothing_is_sqlite_and_both_backups_restore`]:
/// legal calls with values at the edges the defects above came through.
fn hostile_call(agent: usize, kind: usize, pick: usize, n: i64) -> (&'static str, Value) {
    let agents = ["a", "b"];
    let who = agents[agent];
    let names = [json!("Kaito"), json!("ｶｲﾄ"), json!(grown(20)), json!(grown(300)), json!("海斗"), json!("mem:2"), json!("Ledger")];
    let stamps = [
        json!("2026-01-01T00:00:00Z"),
        json!("9999-12-31T23:59:59.999-23:59"),
        json!("0000-01-01T00:00:00Z"),
        json!("9999-12-31T23:59:59.999+23:59"),
    ];
    let vectors = [json!([1.0, 0.0]), json!([3e38, 3e38]), json!([1e19, 0.0]), json!([0.0, 0.0])];
    let scopes = [json!({}), json!({"project_id": "p"}), json!({"project_id": "p", "channel": "c"})];
    let name = |k: usize| names[k % names.len()].clone();
    let mut args = json!({"agent_id": who});
    args.as_object_mut().unwrap().extend(scopes[pick % 3].as_object().unwrap().clone());
    let (tool, more) = match kind % 9 {
        0 | 1 => (
            "store",
            json!({"content": format!("ledger note {n}"), "timestamp": stamps[pick % 4], "embedding": vectors[(pick / 4) % 4],
                   "associations": {"entities": [{"name": name(pick), "aliases": [name(pick + 1), name(pick + 4)]}],
                                    "relations": [{"subject": name(pick + 2), "predicate": name(pick + 3), "object": format!("mem:{n}")}]}}),
        ),
        2 => ("archive_episode", json!({"summary": format!("ledger review {n}"), "keywords": "ledger", "embedding": vectors[pick % 4]})),
        3 => (
            "declare_associations",
            json!({"anchor_ref": format!("{}:{n}", ["mem", "ep"][pick % 2]), "associations": {
                "entities": [{"name": name(pick), "aliases": [name(pick + 5)]}],
                "relations": [{"subject": format!("mem:{n}"), "predicate": "corrects", "object": format!("mem:{}", n + 1)},
                              {"subject": name(pick + 1), "predicate": "maintains", "object": name(pick + 6)}]}}),
        ),
        4 => ("delete_memory", json!({"memory_id": n})),
        5 => ("delete_entity", json!({"entity_id": n})),
        6 => ("update_memory", json!({"memory_id": n, "timestamp": stamps[pick % 4], "embedding": vectors[(pick / 4) % 4]})),
        7 => ("reconstruct", json!({"query": "ledger Kaito 海斗 ｶｲﾄ", "query_embedding": vectors[pick % 4], "trace": true, "max_hops": 5})),
        _ => ("recall", json!({"query": "ledger note", "query_embedding": vectors[pick % 4]})),
    };
    if matches!(tool, "delete_memory" | "delete_entity" | "update_memory" | "reconstruct" | "recall") {
        args.as_object_mut().unwrap().retain(|k, _| k == "agent_id");
    }
    args.as_object_mut().unwrap().extend(more.as_object().unwrap().clone());
    (tool, args)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 16, .. proptest::prelude::ProptestConfig::default() })]

    /// No legal call fails with the generic `sqlite` code; and after any sequence of them,
    /// hostile imports included, the memory's bytes and each agent's JSONL export restore
    /// it: `import(export())` answers every export as the original does, and
    /// `import_memories(export_memories())` gives back the same file but for what an import
    /// renews.
    #[test]
    fn after_any_sequence_nothing_is_sqlite_and_both_backups_restore(
        ops in proptest::collection::vec((0..2usize, 0..10usize, 0..64usize, 1..8i64), 1..30)
    ) {
        let mut f = fixture();
        for (agent, kind, pick, n) in ops {
            let (tool, args) = if kind == 9 {
                ("import_memories", json!({"jsonl": hostile_jsonl(&mut f.memory)}))
            } else {
                hostile_call(agent, kind, pick, n)
            };
            if let Err(e) = f.memory.call(tool, &args) {
                proptest::prop_assert_ne!(e.code(), "sqlite", "{} {}: {}", tool, args, e);
            }
        }
        let bytes = f.memory.export().unwrap();
        let mut copy = fixture();
        copy.memory.import(&bytes).unwrap();
        for agent in ["a", "b"] {
            let export = json!({"agent_id": agent});
            let theirs = f.memory.call("export_memories", &export).unwrap();
            proptest::prop_assert_eq!(copy.memory.call("export_memories", &export).unwrap(), theirs.clone());
            let first = theirs["jsonl"].as_str().unwrap();
            let mut again = fixture();
            let imported = again.memory.call("import_memories", &json!({"jsonl": first})).unwrap();
            proptest::prop_assert_eq!(dropped(&imported), Vec::<(String, String)>::new(), "{}", first);
            let second = again.memory.call("export_memories", &export).unwrap();
            proptest::prop_assert_eq!(canonical(second["jsonl"].as_str().unwrap()), canonical(first));
        }
    }
}
