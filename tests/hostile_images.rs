//! Import trusts data, never schema: every crafted image of `tests/common/images.rs` either
//! imports to a memory that answers as the original does, or is refused with
//! `not_a_memory` (or `newer_schema`) saying what differed, leaving the memory unchanged.

#[path = "common/images.rs"]
mod images;

#[test]
fn crafted_images_import_as_ours_or_are_refused() {
    let names = images::check_all();
    assert!(names.len() >= 12, "{names:?}");
}

/// The trigger an edited file brings would act on every later write of every agent: the
/// refusal is what keeps it out (the image imported as it was, it ran).
#[test]
fn a_trigger_brought_by_a_file_never_runs() {
    use serde_json::json;
    let mut m = images::populated();
    let export = m.export().unwrap();
    let case = images::cases().into_iter().find(|c| c.name == "extra_trigger").unwrap();
    let bytes = images::craft(&case, &export);
    assert_eq!(m.import(&bytes).unwrap_err().code(), "not_a_memory");
    let id = m.call("store", &json!({"agent_id": "a", "content": "written after the refused import"})).unwrap()["id"].clone();
    let got = m.call("get_contents", &json!({"agent_id": "a", "refs": [format!("mem:{id}")]})).unwrap();
    assert_eq!(got["count"], 1, "the record is still agent a's");
}
