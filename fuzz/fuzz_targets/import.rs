//! `import` of arbitrary bytes: raw bytes, or a valid export with arbitrary bytes patched
//! in. A refusal is typed and changes nothing; an accepted image gives a memory whose
//! schema is ours, that passes its own re-import (every invariant the importer checks),
//! and on which every operation answers without an SQLite error.
#![no_main]
use associative_memory::Memory;
use associative_memory_fuzz::{checked_call, populated};
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use std::sync::OnceLock;

fn image() -> &'static [u8] {
    static IMAGE: OnceLock<Vec<u8>> = OnceLock::new();
    IMAGE.get_or_init(|| populated().export().unwrap())
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        // patches: (offset: u24, value: u8) each, onto the valid image
        let mut b = image().to_vec();
        for p in rest.chunks_exact(4) {
            let offset = (usize::from(p[0]) << 16 | usize::from(p[1]) << 8 | usize::from(p[2])) % b.len();
            b[offset] = p[3];
        }
        b
    };
    let mut m = Memory::open_in_memory().unwrap();
    m.call("store", &json!({"agent_id": "z", "content": "here before"})).unwrap();
    let before = m.export().unwrap();
    match m.import(&bytes) {
        Err(e) => {
            assert!(["not_a_memory", "newer_schema"].contains(&e.code()), "import failed untyped: {e}");
            assert!(m.export().unwrap() == before, "a refused import changed the memory");
        }
        Ok(()) => {
            let again = m.export().unwrap();
            let mut copy = Memory::open_in_memory().unwrap();
            copy.import(&again).unwrap_or_else(|e| panic!("an imported memory does not re-import: {e}"));
            for agent in ["a", "b"] {
                for (tool, args) in [
                    ("list_entities", json!({"agent_id": agent})),
                    ("recall", json!({"agent_id": agent, "query": "ingestion queue", "query_embedding": [1.0, 0.0, 0.5, 0.25]})),
                    ("reconstruct", json!({"agent_id": agent, "query": "海斗 ingestion", "trace": true})),
                    ("traverse", json!({"agent_id": agent, "entity": "Kaito Mori", "max_hops": 3})),
                    ("get_contents", json!({"agent_id": agent, "refs": ["mem:1", "mem:2", "mem:3", "ep:1"]})),
                    (
                        "store",
                        json!({"agent_id": agent, "content": "after", "associations": {"entities": [{"name": "Kaito Mori"}], "relations": [{"subject": "mem:1", "predicate": "supports", "object": "mem:2"}]}}),
                    ),
                    ("delete_memory", json!({"agent_id": agent, "memory_id": 1})),
                    ("delete_entity", json!({"agent_id": agent, "entity_id": 1})),
                ] {
                    checked_call(&mut m, tool, &args);
                }
            }
        }
    }
});
