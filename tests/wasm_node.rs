//! The binding's suite in Node.
#![cfg(target_arch = "wasm32")]

mod wasm_common;
use wasm_bindgen_test::wasm_bindgen_test;


#[wasm_bindgen_test]
fn declare_traverse_retract_delete() {
    wasm_common::declare_traverse_retract_delete();
}

#[wasm_bindgen_test]
fn errors_are_js_errors_with_code_and_field() {
    wasm_common::errors_are_js_errors_with_code_and_field();
}

#[wasm_bindgen_test]
fn export_import_round_trip() {
    wasm_common::export_import_round_trip();
}

#[wasm_bindgen_test]
fn vector_recall_ranks_by_cosine_with_simd() {
    wasm_common::vector_recall_ranks_by_cosine_with_simd();
}

#[wasm_bindgen_test]
fn page_sizes_agree_across_targets() {
    wasm_common::page_sizes_agree_across_targets();
}

#[wasm_bindgen_test]
fn the_other_operations_have_bindings_too() {
    wasm_common::the_other_operations_have_bindings_too();
}
