//! The binding's suite in Node.
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod wasm_common;

shared_tests!();
