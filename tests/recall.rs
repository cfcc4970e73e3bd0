//! recall: the lexical arm with FTS5 syntax neutralized and its LIKE fallback, the vector
//! arm with dimension skips, fusion, the gate, scope and limit.

mod common;
use common::fixture;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn refs(v: &Value) -> Vec<String> {
    v["messages"].as_array().unwrap().iter().map(|m| m["ref"].as_str().unwrap().to_owned()).collect()
}

fn seeded() -> common::Fixture {
    let mut f = fixture();
    for text in [
        "The ledger service stores balances.",
        "Ledger reconciliation runs nightly.",
        "The near field reader is broken.",
        "Column: budget for Q3 is approved.",
        "AI review of the roadmap.",
    ] {
        f.ok("store", json!({"agent_id": "a", "content": text}));
    }
    f
}

#[test]
fn fts_syntax_in_user_text_never_errors_and_never_changes_meaning() {
    let mut f = seeded();
    for q in [
        "\"",
        "NEAR(",
        "*",
        "col:",
        "AND",
        "ledger*",
        "\"ledger",
        "content:ledger",
        "ledger AND OR NOT",
        "(ledger",
        "^ledger",
        "ledger -balances",
        "{ledger}",
    ] {
        let out = f.memory.call("recall", &json!({"agent_id": "a", "query": q}));
        assert!(out.is_ok(), "{q:?}: {out:?}");
    }
    let plain = f.ok("recall", json!({"agent_id": "a", "query": "ledger"}));
    for q in ["ledger*", "\"ledger\"", "content:ledger", "ledger AND", "(ledger)", "^ledger"] {
        assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": q}))), refs(&plain), "{q:?} changed meaning");
    }
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "NEAR("}))), vec!["mem:3"], "NEAR is a word");
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "\""}))), Vec::<String>::new());
}

#[test]
fn short_terms_match_through_like_only_when_fts_matched_nothing() {
    let mut f = seeded();
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "AI"}))), vec!["mem:5"], "two characters: LIKE");
    // "roadmap" matches through FTS, so the LIKE fallback for "ai" does not run
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "AI roadmap"}))), vec!["mem:5"]);
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "Q3 ledger"}))).len(), 2, "FTS matched: no fallback for q3");
}

#[test]
fn the_like_fallback_reads_episodes_of_an_agent_that_has_them() {
    let mut f = seeded();
    f.ok("store", json!({"agent_id": "b", "content": "AI notes of another agent."}));
    f.ok("archive_episode", json!({"agent_id": "b", "summary": "AI retro"}));
    // Agent a holds memories only: its fallback finds its memory and no episode.
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "AI"}))), vec!["mem:5"]);
    let b = refs(&f.ok("recall", json!({"agent_id": "b", "query": "AI"})));
    assert!(b.contains(&"ep:1".to_owned()) && b.contains(&"mem:6".to_owned()), "{b:?}");
    f.ok("delete_episode", json!({"agent_id": "b", "episode_id": 1}));
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "b", "query": "AI"}))), vec!["mem:6"]);
}

#[test]
fn trigram_matches_substrings_and_japanese() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "台帳サービスは残高を保存する。"}));
    f.ok("store", json!({"agent_id": "a", "content": "Reconciliation of ledgers."}));
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "台帳サービス"}))), vec!["mem:1"]);
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "ledger"}))), vec!["mem:2"]);
}

#[test]
fn the_vector_arm_ranks_by_cosine_and_skips_other_dimensions() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "alpha", "embedding": [1.0, 0.0, 0.0]}));
    f.ok("store", json!({"agent_id": "a", "content": "beta", "embedding": [0.6, 0.8, 0.0]}));
    f.ok("store", json!({"agent_id": "a", "content": "gamma", "embedding": [0.0, 0.0, 1.0]}));
    f.ok("store", json!({"agent_id": "a", "content": "delta", "embedding": [1.0, 0.0]}));
    f.ok("store", json!({"agent_id": "a", "content": "epsilon"}));
    let out = f.ok("recall", json!({"agent_id": "a", "query": "zzz", "query_embedding": [0.9, 0.1, 0.0], "deep": true}));
    assert_eq!(refs(&out)[..2], ["mem:1", "mem:2"]);
    assert_eq!(out["dimension_skipped"], 1);
    assert_eq!(out["messages"][0]["match_reason"]["ranks"], json!({"vector": 1}));
}

#[test]
fn fusion_puts_rows_both_arms_find_first_and_the_gate_drops_far_single_votes() {
    let mut f = fixture();
    let mut both = None;
    for i in 0..40 {
        let (text, v) = if i == 7 {
            ("ledger balances", [1.0, 0.0])
        } else if i % 2 == 0 {
            ("ledger notes", [0.0, 1.0])
        } else {
            ("unrelated text", [0.9, 0.3])
        };
        let out = f.ok("store", json!({"agent_id": "a", "content": format!("{text} {i}"), "embedding": v}));
        if i == 7 {
            both = Some(format!("mem:{}", out["id"]));
        }
    }
    let out = f.ok("recall", json!({"agent_id": "a", "query": "ledger balances", "query_embedding": [1.0, 0.0], "limit": 40}));
    assert_eq!(refs(&out)[0], both.unwrap());
    let gated = out["gated"].as_u64().unwrap_or(0);
    assert!(gated > 0, "rows far down a single arm are gated: {out}");
    let deep =
        f.ok("recall", json!({"agent_id": "a", "query": "ledger balances", "query_embedding": [1.0, 0.0], "limit": 40, "deep": true}));
    assert!(refs(&deep).len() > refs(&out).len(), "deep halves the gate");
}

/// With a query vector the order reads the arms' scores: a row the lexical arm ranks first
/// by a wide margin stays first even when the vector arm ranks it last (rank fusion would
/// put the vector arm's first row ahead), and between rows the lexical arm scores alike the
/// vector arm decides.
#[test]
fn with_vectors_a_clear_lexical_winner_stays_first_and_vectors_break_lexical_ties() {
    let mut f = fixture();
    let id = |f: &mut common::Fixture, text: &str, v: [f32; 2]| {
        let out = f.ok("store", json!({"agent_id": "a", "content": text, "embedding": v}));
        format!("mem:{}", out["id"])
    };
    let winner = id(&mut f, "ledger reconciliation, ledger reconciliation", [0.0, 1.0]);
    let liked = id(&mut f, "ledger notes for the whole team today", [1.0, 0.0]);
    for i in 0..18 {
        let t = 0.1 + 0.05 * i as f32;
        id(&mut f, &format!("unrelated words {i}"), [1.0 - t, t]);
    }
    let out = f.ok("recall", json!({"agent_id": "a", "query": "ledger reconciliation", "query_embedding": [1.0, 0.0], "limit": 20}));
    let ranks = |r: &str| out["messages"].as_array().unwrap().iter().find(|m| m["ref"] == r).unwrap()["match_reason"]["ranks"].clone();
    assert_eq!(ranks(&winner), json!({"lexical": 1, "vector": 20}), "{out}");
    assert_eq!(ranks(&liked), json!({"lexical": 2, "vector": 1}), "{out}");
    assert_eq!(refs(&out)[..2], [winner.clone(), liked.clone()], "{out}");
    assert_eq!(out["messages"][0]["match_reason"]["signal"], "hybrid");

    // Two rows alike to the lexical arm: the one nearer the query vector goes first, in
    // either order of storing.
    for (first, second) in [([0.0, 1.0], [1.0, 0.0]), ([1.0, 0.0], [0.0, 1.0])] {
        let mut f = fixture();
        let a = id(&mut f, "payments ledger note", first);
        let b = id(&mut f, "payments ledger memo", second);
        let near = if first == [1.0, 0.0] { &a } else { &b };
        let out = f.ok("recall", json!({"agent_id": "a", "query": "ledger", "query_embedding": [1.0, 0.0]}));
        assert_eq!(&refs(&out)[0], near, "{out}");
    }
}

/// The lexical arm searches an in-memory copy of the records' text (`src/indexes/lexical.rs`),
/// built by the first search: every later store, update and delete is found by the next
/// one, inside a group of calls too.
#[test]
fn recall_follows_every_write_after_its_first_search() {
    let mut f = fixture();
    let find = |f: &mut common::Fixture, q: &str| refs(&f.ok("recall", json!({"agent_id": "a", "query": q, "deep": true})));
    f.ok("store", json!({"agent_id": "a", "content": "the ledger service"}));
    assert_eq!(find(&mut f, "ledger"), ["mem:1"]);
    f.ok("store", json!({"agent_id": "a", "content": "a second ledger note"}));
    assert_eq!(find(&mut f, "second ledger").len(), 2);
    f.ok("update_memory", json!({"agent_id": "a", "memory_id": 1, "content": "the payments service"}));
    assert_eq!(find(&mut f, "ledger"), ["mem:2"]);
    assert_eq!(find(&mut f, "payments"), ["mem:1"]);
    f.ok("delete_memory", json!({"agent_id": "a", "memory_id": 2}));
    assert_eq!(find(&mut f, "ledger"), Vec::<String>::new());
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "ledger retro"}));
    assert_eq!(find(&mut f, "ledger"), ["ep:1"]);
    // In a group (one transaction), a search sees the group's earlier store.
    let calls = vec![
        ("store".to_owned(), json!({"agent_id": "a", "content": "ledger in a group"})),
        ("recall".to_owned(), json!({"agent_id": "a", "query": "group"})),
        ("store".to_owned(), json!({"agent_id": "a", "content": "", "timestamp": "never"})),
    ];
    let out = f.memory.call_group(&calls, |_| {}).unwrap();
    assert_eq!(refs(out[1].as_ref().unwrap()), ["mem:3"]);
    assert!(out[2].is_err());
    assert_eq!(find(&mut f, "group"), ["mem:3"]);
}

#[test]
fn recall_reads_only_its_scope_and_honours_limit() {
    let mut f = seeded();
    f.ok("store", json!({"agent_id": "b", "content": "ledger of agent b"}));
    f.ok("store", json!({"agent_id": "a", "project_id": "p", "content": "ledger in project p"}));
    assert!(!refs(&f.ok("recall", json!({"agent_id": "a", "query": "ledger"}))).contains(&"mem:6".to_string()));
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "ledger", "project_id": ""}))).len(), 2);
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "ledger", "project_id": "p"}))).len(), 3);
    assert_eq!(refs(&f.ok("recall", json!({"agent_id": "a", "query": "ledger", "limit": 1}))).len(), 1);
    let (code, field) = f.err("recall", json!({"agent_id": "a", "query": "ledger", "limit": 0}));
    assert_eq!((code.as_str(), field.as_deref()), ("out_of_range", Some("limit")));
}

#[test]
fn reconstruct_lowers_bounds_past_their_cap_and_says_so() {
    let mut f = seeded();
    let out = f.ok("reconstruct", json!({"agent_id": "a", "query": "ledger", "max_hops": 9, "top_k": 500}));
    assert_eq!(out["bounds"]["max_hops"], 5);
    assert_eq!(out["bounds"]["top_k"], 100);
    assert_eq!(out["bounds"]["lowered"], json!(["top_k", "max_hops"]));
    let (code, field) = f.err("reconstruct", json!({"agent_id": "a", "query": "ledger", "max_hops": -1}));
    assert_eq!((code.as_str(), field.as_deref()), ("out_of_range", Some("max_hops")));
}

#[test]
fn the_budget_cuts_excerpts_before_items() {
    let mut f = fixture();
    for (i, t) in ["Deploy of build 4412 started.", "Build 4412 failed checks.", "Rolled back build 4412."].iter().enumerate() {
        f.ok("store", json!({"agent_id": "a", "content": t, "timestamp": format!("2026-06-01T10:00:{:02}Z", i * 10)}));
    }
    let full = f.ok("reconstruct", json!({"agent_id": "a", "query": "build 4412"}));
    assert_eq!(full["items"].as_array().unwrap().len(), 1, "one adjacent burst: {full}");
    assert_eq!(full["items"][0]["excerpts"].as_array().unwrap().len(), 2);
    let head_len = full["items"][0]["content"].as_str().unwrap().chars().count() as i64;
    let cut = f.ok("reconstruct", json!({"agent_id": "a", "query": "build 4412", "budget": head_len + 5}));
    assert_eq!(cut["items"][0]["content"], full["items"][0]["content"], "the head is whole");
    assert_eq!(cut["items"][0]["excerpts_omitted"], 2);
    assert_eq!(cut["used_budget"], head_len);
    let tiny = f.ok("reconstruct", json!({"agent_id": "a", "query": "build 4412", "budget": 5}));
    assert_eq!(tiny["items"][0]["content"].as_str().unwrap().chars().count(), 5);
    assert_eq!(tiny["items"][0]["ranges"], json!([[0, 5]]));
}

#[test]
fn another_agents_records_never_reorder_this_agents_results() {
    // For agent a, "beta" is the rarer term (one record of three), so the beta record ranks
    // first. Agent b's ten beta records would make "alpha" the rarer term table-wide; the
    // ranking reads a's statistics only, so a's order stays.
    let mut f = fixture();
    for text in ["alpha notes from the sync", "beta notes from the sync", "alpha again, later"] {
        f.ok("store", json!({"agent_id": "a", "content": text}));
    }
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "alpha review", "keywords": "alpha"}));
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "beta review", "keywords": "beta"}));
    let query = json!({"agent_id": "a", "query": "alpha beta", "deep": true});
    let before = f.ok("recall", query.clone());
    assert_eq!(refs(&before)[..2], ["ep:2", "mem:2"], "{before}");
    for i in 0..10 {
        f.ok("store", json!({"agent_id": "b", "content": format!("beta {i}")}));
        f.ok("archive_episode", json!({"agent_id": "b", "summary": format!("beta {i}"), "keywords": "beta"}));
    }
    assert_eq!(f.ok("recall", query), before);
}

/// Rows of equal fused score come newer first, and a limit that falls among them keeps the
/// newer: a memory and an episode, each first in its own arm, tie. Retrieval reads records
/// only as far as the limit needs, so the whole tie at the cut must be read.
#[test]
fn a_limit_within_a_tie_keeps_the_newer_row() {
    let mut f = fixture();
    f.ok("store", json!({"agent_id": "a", "content": "quartz ledger"}));
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "quartz retro"}));
    f.ok("archive_episode", json!({"agent_id": "b", "summary": "quartz retro"}));
    f.ok("store", json!({"agent_id": "b", "content": "quartz ledger"}));
    let recall = |f: &mut common::Fixture, agent: &str, limit: u32| {
        let out = f.ok("recall", json!({"agent_id": agent, "query": "quartz", "limit": limit}));
        let scores: Vec<f64> = out["messages"].as_array().unwrap().iter().map(|m| m["match_reason"]["score"].as_f64().unwrap()).collect();
        (refs(&out), scores)
    };
    let (both, scores) = recall(&mut f, "a", 2);
    assert_eq!((both, scores[0] == scores[1]), (vec!["ep:1".to_string(), "mem:1".to_string()], true), "a tie, the episode newer");
    assert_eq!(recall(&mut f, "a", 1).0, ["ep:1"]);
    let (both, scores) = recall(&mut f, "b", 2);
    assert_eq!((both, scores[0] == scores[1]), (vec!["mem:2".to_string(), "ep:2".to_string()], true), "a tie, the memory newer");
    assert_eq!(recall(&mut f, "b", 1).0, ["mem:2"]);
}
