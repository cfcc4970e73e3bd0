//! Property tests over random operation sequences: determinism, invariant 3 under a random
//! declared graph, and isolation between agents.

use associative_memory::{FixedClock, Memory};
use proptest::prelude::*;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const WORDS: &[&str] =
    &["ledger", "payments", "deploy", "incident", "release", "budget", "latency", "review", "wallet", "retry", "cluster", "audit"];
/// Entity names share no word with the queries, so stage 1 never fires and every change
/// the graph makes comes from bundling and the walk.
const NAMES: &[&str] = &["Zephyr", "Quill", "Orchid", "Basalt", "Nimbus", "Tundra"];

fn memory() -> Memory {
    Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000))).unwrap()
}

fn text(words: &[usize]) -> String {
    words.iter().map(|&w| WORDS[w % WORDS.len()]).collect::<Vec<_>>().join(" ")
}

#[derive(Debug, Clone)]
enum Op {
    Store { agent: usize, project: bool, words: Vec<usize> },
    Delete { id: i64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..2usize, any::<bool>(), prop::collection::vec(0..WORDS.len(), 2..7)).prop_map(|(agent, project, words)| Op::Store { agent, project, words }),
        1 => (1..30i64).prop_map(|id| Op::Delete { id }),
    ]
}

/// A random entity graph: mentions of records and entity → entity relations.
fn graph() -> impl Strategy<Value = Vec<(usize, usize, usize, i64)>> {
    prop::collection::vec((0..NAMES.len(), 0..NAMES.len(), 0..3usize, 1..30i64), 0..20)
}

fn apply(m: &mut Memory, agent: &str, ops: &[Op]) -> Vec<String> {
    ops.iter()
        .map(|op| {
            let out = match op {
                Op::Store { agent: a, project, words } => m.call(
                    "store",
                    &json!({
                    "agent_id": if *a == 0 { agent.to_owned() } else { format!("{agent}-peer") },
                    "project_id": if *project { "p" } else { "" },
                    "content": text(words)}),
                ),
                Op::Delete { id } => m.call("delete_memory", &json!({"agent_id": agent, "memory_id": id})),
            };
            match out {
                Ok(v) => v.to_string(),
                Err(e) => format!("error {}", e.code()),
            }
        })
        .collect()
}

fn declare(m: &mut Memory, agent: &str, edges: &[(usize, usize, usize, i64)]) {
    for &(s, o, p, anchor) in edges {
        let predicate = ["near", "feeds", "owns"][p];
        // anchors may name missing records: those items are dropped, which is fine
        m.call(
            "declare_associations",
            &json!({"agent_id": agent, "anchor_ref": format!("mem:{anchor}"),
            "associations": {"entities": [{"name": NAMES[s]}],
                             "relations": [{"subject": NAMES[s], "predicate": predicate, "object": NAMES[o]}]}}),
        )
        .unwrap();
    }
}

fn queries(m: &mut Memory, agent: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for w in WORDS.iter().take(6) {
        for args in [json!({"max_hops": 2}), json!({"deep": true, "count": 3, "max_hops": 5})] {
            let mut a = json!({"agent_id": agent, "query": format!("{w} notes")});
            a.as_object_mut().unwrap().extend(args.as_object().unwrap().clone());
            out.push(m.call("reconstruct", &a).unwrap());
        }
        out.push(m.call("recall", &json!({"agent_id": agent, "query": w, "limit": 20})).unwrap());
    }
    out
}

fn heads(outputs: &[Value]) -> Vec<Vec<String>> {
    outputs
        .iter()
        .filter_map(|o| o.get("items"))
        .map(|items| items.as_array().unwrap().iter().map(|i| i["head_ref"].as_str().unwrap().to_owned()).collect())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn replay_gives_byte_identical_output(ops in prop::collection::vec(op(), 1..40), edges in graph()) {
        let run = || {
            let mut m = memory();
            let mut log = apply(&mut m, "a", &ops);
            declare(&mut m, "a", &edges);
            log.extend(queries(&mut m, "a").iter().map(Value::to_string));
            (log, m.export().unwrap())
        };
        let (first, second) = (run(), run());
        prop_assert_eq!(&first.0, &second.0);
        prop_assert!(first.1 == second.1, "the databases differ");
    }

    #[test]
    fn a_random_graph_never_changes_item_heads_or_their_order(ops in prop::collection::vec(op(), 1..40), edges in graph()) {
        let mut bare = memory();
        apply(&mut bare, "a", &ops);
        let mut declared = memory();
        apply(&mut declared, "a", &ops);
        declare(&mut declared, "a", &edges);
        prop_assert_eq!(heads(&queries(&mut bare, "a")), heads(&queries(&mut declared, "a")));
    }

    /// Another agent's writes change nothing this agent's calls return, byte for byte: not
    /// which records, and not their order (lexical ranking uses the agent's own statistics).
    #[test]
    fn another_agents_writes_never_change_this_agents_outputs(ops in prop::collection::vec(op(), 1..30), theirs in prop::collection::vec(op(), 1..30), edges in graph()) {
        let mut alone = memory();
        apply(&mut alone, "a", &ops);
        declare(&mut alone, "a", &edges);
        let mut shared = memory();
        apply(&mut shared, "a", &ops);
        declare(&mut shared, "a", &edges);
        apply(&mut shared, "b", &theirs);
        declare(&mut shared, "b", &edges);
        prop_assert_eq!(queries(&mut alone, "a"), queries(&mut shared, "a"));
    }
}
