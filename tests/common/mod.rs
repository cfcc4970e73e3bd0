//! Helpers shared by the native integration tests.
#![allow(dead_code)]

pub mod pages;

use associative_memory::{FixedClock, Memory};
use serde_json::Value;

/// A memory on a fixed clock at 2026-01-01T00:00:00Z that moves one hour per write.
pub struct Fixture {
    pub memory: Memory,
    pub clock: FixedClock,
}

pub fn fixture() -> Fixture {
    let clock = FixedClock::new(1_767_225_600_000);
    let memory = Memory::open_in_memory_with_clock(Box::new(clock.clone())).unwrap();
    Fixture { memory, clock }
}

impl Fixture {
    /// Calls a tool and unwraps its response; writes move the clock on an hour.
    pub fn ok(&mut self, tool: &str, args: Value) -> Value {
        let out = self.memory.call(tool, &args).unwrap_or_else(|e| panic!("{tool} {args}: {e}"));
        self.clock.advance_ms(3_600_000);
        out
    }

    /// Calls a tool that must fail, returning (code, field).
    pub fn err(&mut self, tool: &str, args: Value) -> (String, Option<String>) {
        match self.memory.call(tool, &args) {
            Ok(v) => panic!("{tool} {args} should fail, returned {v}"),
            Err(e) => (e.code().to_owned(), e.field().map(str::to_owned)),
        }
    }

    /// The names of a traverse's entities, in order.
    pub fn names(&mut self, args: Value) -> Vec<String> {
        let t = self.ok("traverse", args);
        t["entities"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap().to_owned()).collect()
    }
}

/// What the reference implementation answers after importing `jsonl` (an export of ours)
/// for agent `z`: one line per op, through ../shared/conformance/cpersona_driver.py and the
/// venv `scripts/setup.sh` makes (`$CPERSONA_VENV`, else ~/.cache/cpersona-venv): the
/// import, `list_memories`, then a traverse from `entity` at one hop.
#[cfg(not(target_arch = "wasm32"))]
pub fn reference_after_import(jsonl: &str, entity: &str) -> Vec<Value> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = std::env::var("CPERSONA_VENV")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::PathBuf::from(std::env::var("HOME").expect("HOME is set")).join(".cache/cpersona-venv"));
    let python = venv.join("bin/python");
    assert!(python.exists(), "{} is missing: run scripts/setup.sh (it makes the reference's venv)", python.display());
    let dir = std::env::temp_dir().join(format!("am-reference-import-{}-{entity}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("export.jsonl");
    std::fs::write(&file, jsonl).unwrap();
    let scenario = serde_json::json!({"agent_id": "z", "ops": [
        {"op": "tool", "name": "import_memories", "args": {"input_path": file.to_str().unwrap(), "target_agent_id": "z"}},
        {"op": "tool", "name": "list_memories", "args": {"agent_id": "z"}},
        {"op": "traverse", "entity": entity, "max_hops": 1},
    ]});
    let scenario_file = dir.join("scenario.json");
    std::fs::write(&scenario_file, scenario.to_string()).unwrap();
    let out = std::process::Command::new(&python)
        .arg(root.join("../shared/conformance/cpersona_driver.py"))
        .arg(&scenario_file)
        .output()
        .expect("the reference driver runs");
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}
