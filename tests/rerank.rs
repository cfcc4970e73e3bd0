//! A reranker's scores (`rerank` on recall and reconstruct, issue 41 item 4) and the native
//! hook over them (`Memory::recall_reranked`, `Memory::reconstruct_reranked`): the scored
//! candidates rank first, by score, a tie and every unscored candidate keeping retrieval's
//! order; without scores nothing changes.

mod common;
use common::{fixture, Fixture};
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const AGENT: &str = "a";

/// Six memories that all match "ledger", the first the most strongly.
fn corpus() -> Fixture {
    let mut f = fixture();
    for text in [
        "ledger ledger ledger balances",
        "the ledger service stores balances",
        "ledger retry caused the incident",
        "ledger reconciliation runs nightly",
        "a note about the ledger and the wallet app",
        "ledger latency under forty milliseconds on the dashboards",
    ] {
        f.ok("store", json!({"agent_id": AGENT, "content": text}));
    }
    f
}

fn refs(v: &Value) -> Vec<String> {
    v["messages"].as_array().unwrap().iter().map(|m| m["ref"].as_str().unwrap().to_owned()).collect()
}

fn heads(v: &Value) -> Vec<String> {
    v["items"].as_array().unwrap().iter().map(|i| i["head_ref"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn recall_ranks_the_scored_candidates_first_by_score() {
    let mut f = corpus();
    let plain = f.ok("recall", json!({"agent_id": AGENT, "query": "ledger"}));
    let order = refs(&plain);
    assert_eq!(order.len(), 6);
    // the last two scored, the last higher: they lead, the rest keep retrieval's order
    let scores = json!([{"ref": order[4], "score": 0.5}, {"ref": order[5], "score": 2.0}]);
    let r = f.ok("recall", json!({"agent_id": AGENT, "query": "ledger", "rerank": scores}));
    let expected: Vec<String> = [&order[5], &order[4], &order[0], &order[1], &order[2], &order[3]].map(String::clone).to_vec();
    assert_eq!(refs(&r), expected);
    assert_eq!(r["messages"][0]["match_reason"]["rerank"], 2.0);
    assert!(r["messages"][2]["match_reason"].get("rerank").is_none(), "only a scored row says so");
    // a tie keeps retrieval's order
    let tie = json!([{"ref": order[3], "score": 1.0}, {"ref": order[1], "score": 1.0}]);
    let r = f.ok("recall", json!({"agent_id": AGENT, "query": "ledger", "rerank": tie}));
    assert_eq!(refs(&r)[..2], [order[1].clone(), order[3].clone()]);
}

#[test]
fn a_scored_candidate_past_the_limit_is_ranked_before_the_cut() {
    let mut f = corpus();
    let order = refs(&f.ok("recall", json!({"agent_id": AGENT, "query": "ledger"})));
    let scores = json!([{"ref": order[0], "score": 0.1}, {"ref": order[5], "score": 0.9}]);
    let r = f.ok("recall", json!({"agent_id": AGENT, "query": "ledger", "limit": 1, "rerank": scores}));
    assert_eq!(refs(&r), [order[5].clone()]);
}

#[test]
fn scores_for_no_candidate_change_nothing() {
    let mut f = corpus();
    f.ok("store", json!({"agent_id": AGENT, "content": "wallet app release notes"}));
    let plain = f.ok("recall", json!({"agent_id": AGENT, "query": "ledger"}));
    for scores in [json!([]), json!([{"ref": "mem:7", "score": 9.0}, {"ref": "ep:1", "score": 3.0}, {"ref": "mem:999", "score": 1.0}])] {
        let r = f.ok("recall", json!({"agent_id": AGENT, "query": "ledger", "rerank": scores}));
        assert_eq!(r, plain, "scores for refs that are not candidates changed recall");
        let a = f.ok("reconstruct", json!({"agent_id": AGENT, "query": "ledger", "trace": true}));
        let b = f.ok("reconstruct", json!({"agent_id": AGENT, "query": "ledger", "trace": true, "rerank": scores}));
        assert_eq!(a, b);
    }
}

#[test]
fn reconstruct_orders_its_candidates_and_items_by_the_scores() {
    let mut f = corpus();
    let plain = f.ok("reconstruct", json!({"agent_id": AGENT, "query": "ledger", "trace": true}));
    let candidates: Vec<String> =
        plain["trace"]["candidate_refs"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_owned()).collect();
    let last = candidates.last().unwrap().clone();
    let r = f.ok("reconstruct", json!({"agent_id": AGENT, "query": "ledger", "trace": true, "rerank": [{"ref": last, "score": 1.0}]}));
    assert_eq!(r["trace"]["candidate_refs"][0], last.as_str());
    assert_eq!(heads(&r)[0], last);
    assert_ne!(heads(&plain)[0], last);
}

#[test]
fn bad_scores_are_refused_naming_the_field() {
    let mut f = corpus();
    let many: Vec<Value> = (1..=101).map(|i| json!({"ref": format!("mem:{i}"), "score": 1.0})).collect();
    for tool in ["recall", "reconstruct"] {
        let base = |rerank: Value| json!({"agent_id": AGENT, "query": "ledger", "rerank": rerank});
        assert_eq!(f.err(tool, base(json!(many))), ("out_of_range".into(), Some("rerank".into())));
        assert_eq!(f.err(tool, base(json!([{"ref": "memo:1", "score": 1.0}]))), ("invalid_value".into(), Some("rerank[0].ref".into())));
        assert_eq!(f.err(tool, base(json!([{"ref": "mem:1"}]))).1, Some("rerank[0].score".into()));
        assert_eq!(f.err(tool, base(json!([{"ref": "mem:1", "score": "high"}]))), ("wrong_type".into(), Some("rerank[0].score".into())));
        assert_eq!(f.err(tool, base(json!([{"ref": "mem:1", "score": 1.0, "why": "x"}]))).0, "unknown_option");
    }
}

#[test]
fn the_native_hook_scores_the_first_candidates_with_their_texts() {
    let f = corpus();
    let opts: associative_memory::RecallOptions =
        serde_json::from_value(json!({"agent_id": AGENT, "query": "ledger", "limit": 3})).unwrap();
    let plain = f.memory.recall(&opts).unwrap();
    let mut seen = Vec::new();
    // scores by text length: the reranker's order, not retrieval's
    let r = f
        .memory
        .recall_reranked(&opts, 5, |query, candidates| {
            seen.push((query.to_owned(), candidates.to_vec()));
            candidates.iter().map(|(_, text)| text.len() as f64).collect()
        })
        .unwrap();
    let (query, candidates) = &seen[0];
    assert_eq!(query, "ledger");
    assert_eq!(candidates.len(), 5, "the first `depth` candidates, past `limit`");
    assert!(candidates.iter().all(|(r, text)| r.starts_with("mem:") && text.contains("ledger")));
    let mut by_length = candidates.clone();
    by_length.sort_by_key(|(_, text)| std::cmp::Reverse(text.len()));
    let got: Vec<&str> = r.messages.iter().map(|m| m.reference.as_str()).collect();
    assert_eq!(got, by_length.iter().take(3).map(|(r, _)| r.as_str()).collect::<Vec<_>>());
    assert_ne!(got, plain.messages.iter().map(|m| m.reference.as_str()).collect::<Vec<_>>());

    let ropts: associative_memory::ReconstructOptions = serde_json::from_value(json!({"agent_id": AGENT, "query": "ledger"})).unwrap();
    let reversed = f.memory.reconstruct_reranked(&ropts, 20, |_, c| (0..c.len()).map(|i| i as f64).collect()).unwrap();
    let plain = f.memory.reconstruct(&ropts).unwrap();
    let first: Vec<&str> = plain.items.iter().map(|i| i.head_ref.as_str()).collect();
    let again: Vec<&str> = reversed.items.iter().map(|i| i.head_ref.as_str()).rev().collect();
    assert_eq!(first, again, "scores rising down the candidates reverse the items");

    let e = f.memory.recall_reranked(&opts, 5, |_, c| vec![1.0; c.len() - 1]).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_value", Some("rerank")));
    let e = f.memory.recall_reranked(&opts, 5, |_, c| vec![f64::NAN; c.len()]).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_value", Some("rerank")));
}
