//! FTS query building: an arbitrary query (FTS5 syntax, quotes, NUL, any script) through
//! recall, reconstruct (alias expansion) and traverse. Each answers or gives a typed
//! error, never an SQLite one, and answers the same twice.
//!
//! Input: one flag byte (bit 0 `deep`, bit 1 a project and channel read), then the query.
#![no_main]
use associative_memory_fuzz::{checked_call, populated};
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use std::cell::RefCell;

thread_local! {
    static MEMORY: RefCell<associative_memory::Memory> = RefCell::new(populated());
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let query = String::from_utf8_lossy(rest);
    let deep = flags & 1 == 1;
    MEMORY.with_borrow_mut(|m| {
        let mut calls = vec![
            ("recall", json!({"agent_id": "a", "query": query, "deep": deep})),
            ("reconstruct", json!({"agent_id": "a", "query": query, "deep": deep, "trace": true})),
            ("traverse", json!({"agent_id": "a", "entity": query})),
        ];
        if flags & 2 == 2 {
            calls.push(("reconstruct", json!({"agent_id": "a", "query": query, "project_id": "p", "channel": "c"})));
        }
        for (tool, args) in calls {
            let first = checked_call(m, tool, &args);
            let second = checked_call(m, tool, &args);
            assert_eq!(first, second, "{tool} {args} answered twice differently");
        }
    });
});
