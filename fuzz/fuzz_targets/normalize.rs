//! Normalization (design §2): never panics, is idempotent (a normalized twin normalizes to
//! itself, so a stored twin and a looked-up one compare equal), and its output is trimmed
//! with single spaces.
#![no_main]
use associative_memory::normalize;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let once = normalize(text);
    assert_eq!(normalize(&once), once, "normalize is not idempotent on {text:?}");
    assert_eq!(once.trim(), once, "untrimmed: {text:?}");
    assert!(!once.contains("  "), "double space: {text:?}");
    assert!(!once.chars().any(|c| c.is_whitespace() && c != ' '), "whitespace other than a space: {text:?}");
});
