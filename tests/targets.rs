//! The same inputs give the same bytes on every target. One fixed replay (every operation,
//! Japanese and accented text, scores of both arms, a walk, errors, deletes, the exported
//! database) is written down natively in `tests/golden/replay.jsonl`; this test replays it
//! natively and in wasm and compares line for line, so a float, a sort or an SQLite build
//! that differs between the targets turns it red instead of being assumed away.
//!
//! After a change that is meant to alter an output, regenerate natively and review the diff:
//! `AM_UPDATE_GOLDEN=1 cargo test --test targets`.

mod common;
use common::{fixture, Fixture};
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const AGENT: &str = "a";

/// The checked-in transcript, compiled in: wasm32-unknown-unknown cannot read files.
const GOLDEN: &str = include_str!("golden/replay.jsonl");

/// One transcript line per call: the call, and its response or its error.
struct Replay {
    f: Fixture,
    lines: Vec<String>,
}

impl Replay {
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let result = self.f.memory.call(tool, &args);
        // writes and reads alike move the clock an hour, so every stamp is distinct
        self.f.clock.advance_ms(3_600_000);
        let (line, out) = match result {
            Ok(out) => (json!({"call": tool, "args": args, "out": out}), out),
            Err(e) => (
                json!({"call": tool, "args": args, "error": {"code": e.code(), "field": e.field(), "message": e.to_string()}}),
                Value::Null,
            ),
        };
        self.lines.push(line.to_string());
        out
    }
}

/// A 64-bit FNV-1a of the exported database, so the transcript pins the bytes without
/// holding them.
fn fnv1a64(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{hash:016x}")
}

fn replay() -> Vec<String> {
    let mut r = Replay { f: fixture(), lines: Vec::new() };
    let texts: &[(&str, &str, &[f64])] = &[
        ("Kaito", "Kaito Mori wrote the ledger service in 2024.", &[0.12, 0.93, -0.21, 0.05, 0.33, 0.0, 0.7]),
        ("Kaito", "The ledger service stores balances in Postgres.", &[0.1, 0.9, -0.2, 0.1, 0.3, 0.01, 0.69]),
        ("Aiko", "Aiko reviewed the payments API contract on Monday.", &[0.8, -0.1, 0.3, 0.44, 0.0, 0.2, 0.1]),
        ("Aiko", "The payments API depends on the ledger service for balances.", &[0.5, 0.5, 0.05, 0.3, 0.2, 0.1, 0.4]),
        ("Ren", "台帳サービスは残高を Postgres に保存する。", &[0.11, 0.91, -0.19, 0.07, 0.31, 0.02, 0.68]),
        ("Ren", "ﾐｽﾞｱｲ はカメラ画像を使う。", &[-0.3, 0.2, 0.9, 0.0, 0.1, 0.6, 0.0]),
        ("Mei", "Mei is the product owner of the wallet app; café menus use Straße names.", &[0.3, 0.1, 0.2, 0.9, 0.0, 0.05, 0.2]),
        ("Mei", "The wallet app release 3.5 ships on October 30.", &[0.31, 0.12, 0.18, 0.88, 0.02, 0.04, 0.21]),
        ("Kaito", "INC-0412 was caused by a retry in the ledger service.", &[0.2, 0.7, 0.1, 0.0, 0.6, 0.3, 0.5]),
        ("Aiko", "AI review of the roadmap: offline mode after 3.5.", &[0.33, 0.0, 0.25, 0.6, 0.1, 0.1, 0.0]),
    ];
    for (i, (who, text, embedding)) in texts.iter().enumerate() {
        r.call(
            "store",
            json!({"agent_id": AGENT, "content": text, "timestamp": format!("2026-10-{:02}T09:{:02}:00+09:00", i + 1, i * 7 % 60),
            "source": {"type": "User", "id": who, "name": who}, "metadata": {"n": i}, "embedding": embedding}),
        );
    }
    r.call("store", json!({"agent_id": AGENT, "content": "an embedding of another dimension", "embedding": [1.0, 0.5]}));
    r.call("store", json!({"agent_id": "other", "content": "Another agent's ledger service notes, ledger ledger."}));
    r.call("store", json!({"agent_id": AGENT, "project_id": "p", "channel": "c", "content": "Project ledger notes in channel c."}));
    r.call(
        "archive_episode",
        json!({"agent_id": AGENT, "summary": "Retro on the double charge incident and the ledger retry fix", "keywords": "incident ledger retry",
        "history": [{"role": "user", "content": "what happened?", "timestamp": "2026-10-14T08:00:00Z"},
                    {"role": "assistant", "content": "a retry", "timestamp": "2026-10-15T18:00:00Z"}]}),
    );
    let declarations = [
        (
            "mem:1",
            json!([{"name": "Kaito Mori", "aliases": ["Kaito", "森"]}, {"name": "Ledger Service", "aliases": ["ledger", "台帳"]}]),
            json!([{"subject": "Kaito Mori", "predicate": "maintains", "object": "Ledger Service"}]),
        ),
        (
            "mem:4",
            json!([{"name": "Payments API"}, {"name": "Ledger Service"}]),
            json!([{"subject": "Payments API", "predicate": "Depends_On", "object": "Ledger Service"}]),
        ),
        (
            "mem:6",
            json!([{"name": "ミズアイ", "aliases": ["MizEye", "みずあい"]}]),
            json!([{"subject": "ミズアイ", "predicate": "uses", "object": "カメラ"}]),
        ),
        (
            "mem:7",
            json!([{"name": "Mei"}, {"name": "Wallet App", "aliases": ["wallet", "ＷＡＬＬＥＴ"]}]),
            json!([{"subject": "Mei", "predicate": "owns", "object": "Wallet App"}, {"subject": "Mei", "predicate": "owns"}]),
        ),
        ("mem:9", json!([{"name": "INC-0412"}]), json!([{"subject": "INC-0412", "predicate": "caused_by", "object": "Ledger Service"}])),
        ("ep:1", json!([{"name": "INC-0412"}]), json!([])),
    ];
    for (anchor, entities, relations) in declarations {
        r.call(
            "declare_associations",
            json!({"agent_id": AGENT, "anchor_ref": anchor, "associations": {"entities": entities, "relations": relations}}),
        );
    }
    r.call(
        "declare_associations",
        json!({"agent_id": AGENT, "associations": {"relations": [{"subject": "mem:2", "predicate": "supersedes", "object": "mem:1"}]}}),
    );

    let reads = |r: &mut Replay| {
        for q in ["ledger service", "who maintains the ledger", "台帳", "ﾐｽﾞｱｲ", "AI", "wallet release", "strasse café", "\"ledger* NEAR("]
        {
            r.call("recall", json!({"agent_id": AGENT, "query": q, "limit": 20}));
            r.call("recall", json!({"agent_id": AGENT, "query": q, "deep": true, "project_id": "p"}));
        }
        let probe = [0.15, 0.85, -0.15, 0.1, 0.35, 0.05, 0.6];
        r.call("recall", json!({"agent_id": AGENT, "query": "zzz", "query_embedding": probe, "deep": true}));
        r.call("recall", json!({"agent_id": AGENT, "query": "ledger", "query_embedding": probe}));
        for q in ["who maintains the ledger service", "what caused INC-0412", "みずあい camera", "wallet"] {
            r.call("reconstruct", json!({"agent_id": AGENT, "query": q}));
            r.call("reconstruct", json!({"agent_id": AGENT, "query": q, "trace": true, "max_hops": 3, "query_embedding": probe}));
            r.call("reconstruct", json!({"agent_id": AGENT, "query": q, "deep": true, "count": 2, "budget": 120, "max_evidence": 2}));
        }
        for (entity, hops) in [("kaito", 2), ("ＬＥＤＧＥＲ", 3), ("MizEye", 1), ("wallet", 0)] {
            r.call("traverse", json!({"agent_id": AGENT, "entity": entity, "max_hops": hops, "limit": 3}));
        }
        r.call("list_entities", json!({"agent_id": AGENT}));
        r.call("list_entities", json!({"agent_id": AGENT, "query": "led", "limit": 1, "offset": 0}));
        r.call("get_contents", json!({"agent_id": AGENT, "refs": ["mem:1", "ep:1", "mem:99", "mem:x", "mem:12"]}));
    };
    reads(&mut r);

    // errors: code, field and message
    r.call("traverse", json!({"agent_id": AGENT, "entity": "x", "max_hops": 9}));
    r.call("store", json!({"agent_id": AGENT, "content": "late", "timestamp": "yesterday"}));
    r.call("recall", json!({"agent_id": AGENT, "query": "x", "limt": 3}));
    r.call("nope", json!({}));

    // deletes and a retract, then every read again
    r.call("declare_associations", json!({"agent_id": AGENT, "retract": {"relations": [1]}}));
    r.call("delete_memory", json!({"agent_id": AGENT, "memory_id": 4}));
    r.call("delete_entity", json!({"agent_id": AGENT, "entity_id": 5}));
    r.call("delete_episode", json!({"agent_id": AGENT, "episode_id": 1}));
    reads(&mut r);

    let bytes = r.f.memory.export().unwrap();
    r.lines.push(json!({"export": {"bytes": bytes.len(), "fnv1a64": fnv1a64(&bytes)}}).to_string());
    r.lines
}

#[test]
fn a_fixed_replay_gives_the_checked_in_transcript_on_every_target() {
    let got = replay();
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("AM_UPDATE_GOLDEN").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/replay.jsonl");
        std::fs::write(path, got.join("\n") + "\n").unwrap();
        return;
    }
    let want: Vec<&str> = GOLDEN.lines().collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "line {} of tests/golden/replay.jsonl differs", i + 1);
    }
    assert_eq!(got.len(), want.len(), "the transcript has {} lines, tests/golden/replay.jsonl {}", got.len(), want.len());
}
