//! The binding's suite in a headless Chromium page.
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod wasm_common;
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

shared_tests!();
