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
