//! Request decoding: every tool through `Memory::call` with arbitrary JSON options. No
//! panic, no SQLite error, and a refused call writes nothing.
//!
//! An input is either readable — a tool name, a newline, JSON options (the seeds, made
//! from the tests and the recorded scenarios by `fuzz/seed.py`) — or raw bytes that
//! build a tool and options biased towards the engine's option names.
#![no_main]
use associative_memory_fuzz::{checked_call, options, populated_copy, value, TOOLS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let readable = std::str::from_utf8(data).ok().and_then(|text| {
        let (tool, json) = text.split_once('\n')?;
        Some((tool.to_owned(), serde_json::from_str::<serde_json::Value>(json).ok()?))
    });
    let (tool, args) = match readable {
        Some(call) => call,
        None => {
            let mut u = arbitrary::Unstructured::new(data);
            let Ok(tool) = u.choose(TOOLS) else { return };
            // Mostly options that pass the required fields, sometimes any JSON at all.
            let args = if u.ratio(1, 8).unwrap_or(false) { value(&mut u, 4) } else { options(&mut u, tool) };
            let Ok(args) = args else { return };
            (tool.to_string(), args)
        }
    };
    let mut m = populated_copy();
    checked_call(&mut m, &tool, &args);
});
