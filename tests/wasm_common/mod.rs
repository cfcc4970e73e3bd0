//! The sequence every wasm suite runs through the JavaScript binding: declare → traverse →
//! retract → delete → traverse, with Japanese aliases, plus errors and export/import.

#[path = "../common/images.rs"]
mod images;
#[path = "../common/pages.rs"]
mod pages;

use associative_memory::wasm::JsMemory;
use serde::Serialize;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};

/// Expands, in the suite that calls it, to one `#[wasm_bindgen_test]` per shared test below,
/// so the Node, page and worker suites run the same list.
macro_rules! shared_tests {
    () => {
        shared_tests!(
            declare_traverse_retract_delete,
            errors_are_js_errors_with_code_and_field,
            export_import_round_trip,
            vector_recall_ranks_by_cosine_with_simd,
            page_sizes_agree_across_targets,
            the_other_operations_have_bindings_too,
            crafted_images_import_as_ours_or_are_refused,
            lone_surrogates_are_refused_naming_the_field,
            the_largest_batch_is_within_the_call_budget
        );
    };
    ($($name:ident),*) => {
        $(
            #[wasm_bindgen_test::wasm_bindgen_test]
            fn $name() {
                wasm_common::$name();
            }
        )*
    };
}

pub fn js(v: Value) -> JsValue {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap()
}

pub fn rs(v: JsValue) -> Value {
    serde_wasm_bindgen::from_value(v).unwrap()
}

pub fn get(err: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(err, &key.into()).unwrap()
}

fn names(t: &Value) -> Vec<String> {
    t["entities"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap().to_owned()).collect()
}

pub fn declare_traverse_retract_delete() {
    let clock = js_sys::Function::new_no_args("return Date.UTC(2026, 4, 10, 12)");
    let mut m = JsMemory::open_in_memory(Some(clock), JsValue::UNDEFINED).unwrap();
    let stored = rs(m.call("store", js(json!({"agent_id": "a", "content": "きらりがミズアイを保守している。",
        "associations": {"entities": [{"name": "MizEye", "aliases": ["ミズアイ", "みずあい"]}, {"name": "Kirari", "aliases": ["きらり"]}]}}))).unwrap());
    assert_eq!(stored["id"], 1);
    m.call(
        "store",
        js(json!({"agent_id": "a", "content": "ミズアイはカメラ画像を使う。", "associations": {"entities": [{"name": "ミズアイ"}]}})),
    )
    .unwrap();

    let declared = rs(m
        .call(
            "declare_associations",
            js(json!({"agent_id": "a", "anchor_ref": "mem:1",
        "associations": {"relations": [{"subject": "きらり", "predicate": "Maintains", "object": "MizEye"},
                                        {"subject": "MizEye", "predicate": "uses", "object": "カメラ"}]}})),
        )
        .unwrap());
    assert_eq!(declared["relations"], json!([1, 2]));

    // half-width katakana finds the entity declared in full-width
    let t = rs(m.call("traverse", js(json!({"agent_id": "a", "entity": "ﾐｽﾞｱｲ", "max_hops": 1}))).unwrap());
    assert_eq!(names(&t), vec!["MizEye", "Kirari", "カメラ"]);
    assert_eq!(t["entities"][0]["aliases"], json!(["みずあい", "ミズアイ"]));
    assert_eq!(t["entities"][0]["mentions"], json!(["mem:1", "mem:2"]));
    assert_eq!(t["relations"][0]["predicate"], "maintains");
    assert_eq!(t["relations"][0]["declared_at"], "2026-05-10T12:00:00+00:00");

    let r = rs(m.call("declare_associations", js(json!({"agent_id": "a", "retract": {"relations": [1]}}))).unwrap());
    assert_eq!(r["retracted"], json!({"relations": 1, "mentions": 0}));
    let t = rs(m.call("traverse", js(json!({"agent_id": "a", "entity": "みずあい"}))).unwrap());
    assert_eq!(names(&t), vec!["MizEye", "カメラ"]);

    rs(m.call("delete_memory", js(json!({"agent_id": "a", "memory_id": 1}))).unwrap());
    let t = rs(m.call("traverse", js(json!({"agent_id": "a", "entity": "みずあい"}))).unwrap());
    assert_eq!(names(&t), vec!["MizEye"], "the relation anchored on mem:1 went with it");
    assert_eq!(t["entities"][0]["mentions"], json!(["mem:2"]));

    let contents = rs(m.call("get_contents", js(json!({"agent_id": "a", "refs": ["mem:1", "mem:2"]}))).unwrap());
    assert_eq!(contents["missing"], json!(["mem:1"]));
    assert_eq!(rs(m.call("list_entities", js(json!({"agent_id": "a"}))).unwrap())["total"], 3);
}

pub fn errors_are_js_errors_with_code_and_field() {
    let mut m = JsMemory::open_in_memory(None, JsValue::UNDEFINED).unwrap();
    let err = m.call("traverse", js(json!({"agent_id": "a", "entity": "x", "max_hops": 9}))).unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&err, "name"), "AssociativeMemoryError");
    assert_eq!(get(&err, "code"), "out_of_range");
    assert_eq!(get(&err, "field"), "max_hops");
    let err = m.call("store", js(json!({"agent_id": "a"}))).unwrap_err();
    assert_eq!(get(&err, "code"), "missing_field");
    assert_eq!(get(&err, "field"), "content");
    let err = m.call("nope", JsValue::UNDEFINED).unwrap_err();
    assert_eq!(get(&err, "code"), "unknown_tool");
    assert!(get(&err, "field").is_undefined());
}

pub fn export_import_round_trip() {
    let mut m = JsMemory::open_in_memory(None, JsValue::UNDEFINED).unwrap();
    m.call(
        "store",
        js(json!({"agent_id": "a", "content": "保存", "associations": {"entities": [{"name": "東京", "aliases": ["Tokyo"]}]}})),
    )
    .unwrap();
    let bytes = m.export_bytes(None).unwrap();
    let mut copy = JsMemory::open_in_memory(None, JsValue::UNDEFINED).unwrap();
    copy.import_bytes(&bytes, JsValue::UNDEFINED, None).unwrap();
    let t = rs(copy.call("traverse", js(json!({"agent_id": "a", "entity": "tokyo"}))).unwrap());
    assert_eq!(t["entities"][0]["name"], "東京");
    let err = copy.import_bytes(b"garbage", JsValue::UNDEFINED, None).unwrap_err();
    assert_eq!(get(&err, "code"), "not_a_memory");
}

pub fn vector_recall_ranks_by_cosine_with_simd() {
    let mut m = JsMemory::open_in_memory(None, JsValue::UNDEFINED).unwrap();
    // dimension 6: one SIMD128 block and a two-value tail
    let vectors =
        [[1.0, 0.0, 0.0, 0.0, 0.5, 0.0], [0.9, 0.1, 0.0, 0.0, 0.4, 0.1], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0, 1.0]];
    for (i, v) in vectors.iter().enumerate() {
        m.call("store", js(json!({"agent_id": "a", "content": format!("note {i}"), "embedding": v}))).unwrap();
    }
    m.call("store", js(json!({"agent_id": "a", "content": "other dimension", "embedding": [1.0, 0.0]}))).unwrap();
    let out = rs(m
        .call("recall", js(json!({"agent_id": "a", "query": "zzz", "query_embedding": [1.0, 0.0, 0.0, 0.0, 0.5, 0.0], "deep": true})))
        .unwrap());
    let refs: Vec<&str> = out["messages"].as_array().unwrap().iter().map(|x| x["ref"].as_str().unwrap()).collect();
    assert_eq!(refs[..2], ["mem:1", "mem:2"]);
    assert_eq!(out["dimension_skipped"], 1);
    let r = rs(m
        .call("reconstruct", js(json!({"agent_id": "a", "query": "zzz", "query_embedding": [0.0, 1.0, 0.0, 0.0, 0.0, 0.0], "count": 1})))
        .unwrap());
    assert_eq!(r["items"][0]["head_ref"], "mem:3");
}

pub fn page_sizes_agree_across_targets() {
    // wasm's SQLite defaults to 8192-byte pages, native to 4096: every memory fixes 4096, so
    // bytes exported natively import here and back; an image of another size imports too
    let mut m = JsMemory::open_in_memory(None, JsValue::UNDEFINED).unwrap();
    m.call("store", js(json!({"agent_id": "a", "content": "ページ", "associations": {"entities": [{"name": "東京"}]}}))).unwrap();
    assert_eq!(pages::page_size_of(&m.export_bytes(None).unwrap()), 4096);
    let mut odd = pages::memory_with_page_size(8192);
    odd.call("store", &json!({"agent_id": "a", "content": "8192", "associations": {"entities": [{"name": "東京", "aliases": ["Tokyo"]}]}}))
        .unwrap();
    let bytes = odd.export().unwrap();
    assert_eq!(pages::page_size_of(&bytes), 8192);
    m.import_bytes(&bytes, JsValue::UNDEFINED, None).unwrap();
    let t = rs(m.call("traverse", js(json!({"agent_id": "a", "entity": "tokyo"}))).unwrap());
    assert_eq!(t["entities"][0]["mentions"], json!(["mem:1"]));
    m.call("store", js(json!({"agent_id": "a", "content": "after the import", "associations": {"entities": [{"name": "Tokyo"}]}})))
        .unwrap();
    let t = rs(m.call("traverse", js(json!({"agent_id": "a", "entity": "東京"}))).unwrap());
    assert_eq!(t["entities"][0]["mentions"], json!(["mem:1", "mem:2"]));
}

pub fn the_other_operations_have_bindings_too() {
    // archive_episode, recall, reconstruct, delete_episode and delete_entity, each through
    // its own method (the sequence above covers the rest)
    let clock = js_sys::Function::new_no_args("return Date.UTC(2026, 4, 10, 12)");
    let mut m = JsMemory::open_in_memory(Some(clock), JsValue::UNDEFINED).unwrap();
    m.call(
        "store",
        js(json!({"agent_id": "a", "content": "Atlas ships in March.", "associations": {"entities": [{"name": "Atlas"}],
        "relations": [{"subject": "Atlas", "predicate": "owned_by", "object": "Priya"}]}})),
    )
    .unwrap();
    m.call("store", js(json!({"agent_id": "a", "content": "Priya moved to Lisbon.", "associations": {"entities": [{"name": "Priya"}]}})))
        .unwrap();
    let ep =
        rs(m.call("archive_episode", js(json!({"agent_id": "a", "summary": "Atlas planning call", "keywords": "atlas march"}))).unwrap());
    assert_eq!(ep["episode_id"], 1);
    let recalled = rs(m.call("recall", js(json!({"agent_id": "a", "query": "Atlas"}))).unwrap());
    let refs: Vec<&str> = recalled["messages"].as_array().unwrap().iter().map(|x| x["ref"].as_str().unwrap()).collect();
    assert_eq!(refs, ["mem:1", "ep:1"], "same score and time: memories first; {recalled}");
    let r = rs(m.call("reconstruct", js(json!({"agent_id": "a", "query": "when does Atlas ship", "max_hops": 1}))).unwrap());
    let item = r["items"].as_array().unwrap().iter().find(|i| i["head_ref"] == "mem:1").unwrap();
    let walked = item["claims"].as_array().unwrap().iter().find(|c| c["ref"] == "mem:2").unwrap();
    assert_eq!(walked["why"], "relation:owned_by");
    assert_eq!((walked["hops"].clone(), walked["path"].clone(), walked["via_entity"].clone()), (json!(1), json!([1]), json!(2)));
    assert_eq!(rs(m.call("delete_episode", js(json!({"agent_id": "a", "episode_id": 1}))).unwrap())["ok"], true);
    assert_eq!(rs(m.call("recall", js(json!({"agent_id": "a", "query": "planning call"}))).unwrap())["messages"], json!([]));
    rs(m.call("delete_entity", js(json!({"agent_id": "a", "entity_id": 2}))).unwrap());
    let t = rs(m.call("traverse", js(json!({"agent_id": "a", "entity": "Atlas"}))).unwrap());
    assert_eq!(names(&t), vec!["Atlas"], "Priya and the relation to her are gone");
}

/// The crafted-image table of the native suite (`tests/hostile_images.rs`), on this target's
/// SQLite: each image imports to a memory that answers as the original does, or is refused
/// with what differed and the memory unchanged.
pub fn crafted_images_import_as_ours_or_are_refused() {
    assert!(images::check_all().len() >= 12);
}

/// A JavaScript string may hold a lone surrogate, which no Rust string can: it is refused,
/// naming the field, rather than stored as U+FFFD; a real U+FFFD is kept. Nothing is written.
pub fn lone_surrogates_are_refused_naming_the_field() {
    let mut m = JsMemory::open_in_memory(None, JsValue::UNDEFINED).unwrap();
    m.call("store", js(json!({"agent_id": "a", "content": "seed \u{FFFD}"}))).unwrap();
    let before = m.export_bytes(None).unwrap();
    let lone = JsValue::from(js_sys::JsString::from_char_code(&[0x61, 0xD800, 0x62]));
    let with = |path: &[&str], base: Value| {
        let options = js(base);
        let mut at = options.clone();
        for key in &path[..path.len() - 1] {
            at = js_sys::Reflect::get(&at, &(*key).into()).unwrap();
        }
        js_sys::Reflect::set(&at, &path[path.len() - 1].into(), &lone).unwrap();
        options
    };
    let cases = [
        ("store", with(&["content"], json!({"agent_id": "a"})), "content"),
        ("store", with(&["source", "name"], json!({"agent_id": "a", "content": "x", "source": {}})), "source.name"),
        (
            "store",
            with(&["associations", "entities", "0", "name"], json!({"agent_id": "a", "content": "x", "associations": {"entities": [{}]}})),
            "associations.entities[0].name",
        ),
        ("recall", with(&["query"], json!({"agent_id": "a"})), "query"),
        ("traverse", with(&["entity"], json!({"agent_id": "a"})), "entity"),
    ];
    for (tool, options, field) in cases {
        let err = m.call(tool, options).unwrap_err();
        assert_eq!((get(&err, "code"), get(&err, "field")), (JsValue::from("invalid_value"), JsValue::from(field)), "{tool} {field}");
    }
    assert_eq!(m.export_bytes(None).unwrap(), before, "a refused call writes nothing");
    let got = rs(m.call("get_contents", js(json!({"agent_id": "a", "refs": ["mem:1"]}))).unwrap());
    assert_eq!(got["items"][0]["content"], "seed \u{FFFD}", "a real replacement character is text");
}

/// The largest legal batch, of the longest memories, is within the per-call budget the
/// binding reads options under (`MAX_CALL_BYTES`, `MAX_CALL_VALUES`; the refusals past it
/// are `api::text`'s unit tests, in this build too).
pub fn the_largest_batch_is_within_the_call_budget() {
    use associative_memory::MAX_BATCH_CONTENT;
    let mut m = JsMemory::open_in_memory(None, JsValue::UNDEFINED).unwrap();
    let item = js_sys::JsString::from("abcd ").repeat((1 << 20) / 5);
    let items = js_sys::Array::new();
    let count = MAX_BATCH_CONTENT / item.length() as usize;
    for _ in 0..count {
        let o = js_sys::Object::new();
        js_sys::Reflect::set(&o, &"content".into(), &item).unwrap();
        items.push(&o);
    }
    let options = js(json!({"agent_id": "a"}));
    js_sys::Reflect::set(&options, &"items".into(), &items).unwrap();
    let out = rs(m.call("store_many", options).unwrap());
    assert_eq!(out["items"].as_array().map(Vec::len), Some(count));
}
