//! `Memory::call_group`, the OPFS worker's group commit: calls that queued up together run
//! in one transaction, each with its own outcome.

use associative_memory::{Memory, SystemClock};
use serde_json::{json, Value};

fn store(content: &str, entity: &str) -> (String, Value) {
    ("store".into(), json!({"agent_id": "a", "content": content, "associations": {"entities": [{"name": entity}]}}))
}

#[test]
fn a_failing_call_rolls_back_only_itself_and_later_calls_see_earlier_writes() {
    let dir = std::env::temp_dir().join(format!("call-group-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("group.sqlite3");
    let _ = std::fs::remove_file(&path);
    let mut m = Memory::open(&path, Box::new(SystemClock)).unwrap();
    let calls = vec![
        store("first", "Alpha"),
        // Valid options that fail inside the write: its savepoint is rolled back.
        ("delete_memory".into(), json!({"agent_id": "a", "memory_id": 99})),
        ("store".into(), json!({"agent_id": "a"})), // missing content
        store("second", "Beta"),
        ("get_contents".into(), json!({"agent_id": "a", "refs": ["mem:1", "mem:2"]})),
    ];
    let mut seen = Vec::new();
    let results = m.call_group(&calls, |i| seen.push(i)).unwrap();
    assert_eq!(seen, [0, 1, 2, 3, 4]);
    assert_eq!(results[0].as_ref().unwrap()["id"], 1);
    assert_eq!(results[1].as_ref().unwrap_err().code(), "not_found");
    assert_eq!(results[2].as_ref().unwrap_err().code(), "missing_field");
    assert_eq!(results[3].as_ref().unwrap()["id"], 2);
    assert_eq!(results[4].as_ref().unwrap()["count"], 2, "a read in the group sees the group's writes");
    drop(m);

    // Committed: a new connection reads both stores and their entities, and nothing else.
    let mut m = Memory::open(&path, Box::new(SystemClock)).unwrap();
    let listed = m.call("list_entities", &json!({"agent_id": "a"})).unwrap();
    let names: Vec<&str> = listed["entities"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"Alpha") && names.contains(&"Beta"), "{names:?}");
    assert!(m.integrity_check().unwrap().is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}
