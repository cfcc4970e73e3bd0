//! The binding's suite in a headless Chromium dedicated worker, and `Memory.openOpfs`, which
//! only works here, through the real Origin Private File System.
#![cfg(target_arch = "wasm32")]

#[macro_use]
mod wasm_common;
use associative_memory::wasm::JsMemory;
use js_sys::{Function, Promise};
use serde_json::json;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;
use wasm_common::{get, js, rs};
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);

shared_tests!();

fn code_and_field(err: &JsValue) -> (JsValue, JsValue) {
    (get(err, "code"), get(err, "field"))
}

/// A memory name no earlier run used: the browser profile, and so OPFS, may outlive a run.
fn fresh_name(what: &str) -> String {
    format!("{what}-{}", js_sys::Date::now() as u64)
}

/// Awaits `body`, the body of an async JavaScript function of `name`, in this worker.
async fn run_js(body: &str, name: &str) -> JsValue {
    let f = Function::new_with_args("name", &format!("return (async () => {{ {body} }})();"));
    JsFuture::from(Promise::from(f.call1(&JsValue::NULL, &name.into()).unwrap())).await.unwrap()
}

/// The OPFS directory the binding documents for memory `name`.
const POOL_DIR: &str = "let dir = await navigator.storage.getDirectory();
    for (const part of ['.associative-memory', name]) dir = await dir.getDirectoryHandle(part, { create: true });";

#[wasm_bindgen_test]
async fn opfs_keeps_the_memory_and_its_graph_after_it_is_freed_and_reopened() {
    let name = fresh_name("reopen");
    let clock = Function::new_no_args("return Date.UTC(2026, 4, 10, 12)");
    let mut m = JsMemory::open_opfs(name.clone(), Some(clock), JsValue::UNDEFINED).await.unwrap();
    m.call(
        "store",
        js(json!({"agent_id": "a", "content": "きらりがミズアイを保守している。",
        "associations": {"entities": [{"name": "MizEye", "aliases": ["ミズアイ"]}, {"name": "Kirari", "aliases": ["きらり"]}]}})),
    )
    .unwrap();
    m.call(
        "declare_associations",
        js(json!({"agent_id": "a", "anchor_ref": "mem:1",
        "associations": {"relations": [{"subject": "きらり", "predicate": "maintains", "object": "MizEye"}]}})),
    )
    .unwrap();
    let graph = rs(m.call("traverse", js(json!({"agent_id": "a", "entity": "ミズアイ", "max_hops": 1}))).unwrap());
    drop(m); // what `free()` does: closes the connection; the pool keeps the files

    // A new connection has an empty page cache: what it reads comes from the OPFS files.
    let mut m = JsMemory::open_opfs(name.clone(), None, JsValue::UNDEFINED).await.unwrap();
    let reread = rs(m.call("traverse", js(json!({"agent_id": "a", "entity": "ミズアイ", "max_hops": 1}))).unwrap());
    assert_eq!(reread, graph);
    assert_eq!(reread["entities"][0]["mentions"], json!(["mem:1"]));
    assert_eq!(reread["relations"][0]["declared_at"], "2026-05-10T12:00:00+00:00");
    let contents = rs(m.call("get_contents", js(json!({"agent_id": "a", "refs": ["mem:1"]}))).unwrap());
    assert_eq!(contents["items"][0]["content"], "きらりがミズアイを保守している。");
    let listed =
        rs(run_js(&format!("{POOL_DIR} const names = []; for await (const [n] of dir.entries()) names.push(n); return names;"), &name)
            .await);
    assert!(listed.as_array().unwrap().contains(&json!(".lock")), "the pool is in the documented directory: {listed}");
}

#[wasm_bindgen_test]
async fn opfs_refuses_a_second_open_in_this_worker_until_the_first_is_freed() {
    let name = fresh_name("twice");
    let mut first = JsMemory::open_opfs(name.clone(), None, JsValue::UNDEFINED).await.unwrap();
    first.call("store", js(json!({"agent_id": "a", "content": "first"}))).unwrap();
    let Err(err) = JsMemory::open_opfs(name.clone(), None, JsValue::UNDEFINED).await else {
        panic!("a second open of {name} in the same worker succeeded")
    };
    assert_eq!(code_and_field(&err), ("already_open".into(), "name".into()));
    first.call("store", js(json!({"agent_id": "a", "content": "second"}))).unwrap();
    drop(first);
    let mut again = JsMemory::open_opfs(name, None, JsValue::UNDEFINED).await.unwrap();
    let contents = rs(again.call("get_contents", js(json!({"agent_id": "a", "refs": ["mem:1", "mem:2"]}))).unwrap());
    assert_eq!(contents["count"], 2);
}

#[wasm_bindgen_test]
async fn opfs_reports_a_pool_held_elsewhere_with_code_opfs_and_opens_once_it_is_let_go() {
    let name = fresh_name("held");
    // Another worker holding the pool holds a sync access handle on its lock file; OPFS
    // grants one per file, whoever asks, so holding it here is the same refusal.
    let handle = run_js(
        &format!("{POOL_DIR} const lock = await dir.getFileHandle('.lock', {{ create: true }}); return lock.createSyncAccessHandle();"),
        &name,
    )
    .await;
    let Err(err) = JsMemory::open_opfs(name.clone(), None, JsValue::UNDEFINED).await else {
        panic!("opened {name} while its pool was held")
    };
    assert_eq!(code_and_field(&err), ("opfs".into(), JsValue::UNDEFINED));
    Function::from(get(&handle, "close")).call0(&handle).unwrap();
    let mut m = JsMemory::open_opfs(name, None, JsValue::UNDEFINED).await.unwrap();
    assert_eq!(rs(m.call("store", js(json!({"agent_id": "a", "content": "x"}))).unwrap())["id"], 1);
}

#[wasm_bindgen_test]
async fn opfs_names_outside_the_documented_alphabet_are_invalid_value() {
    for bad in ["", ".hidden", "a/b", "..", "ミズアイ", &"x".repeat(65)] {
        let Err(err) = JsMemory::open_opfs(bad.to_owned(), None, JsValue::UNDEFINED).await else { panic!("opened {bad:?}") };
        assert_eq!(code_and_field(&err), ("invalid_value".into(), "name".into()), "{bad:?}");
    }
    assert!(JsMemory::open_opfs(format!("{}_v1.0", fresh_name("ok")), None, JsValue::UNDEFINED).await.is_ok());
}

#[wasm_bindgen_test]
async fn opfs_group_commits_without_a_flush_each_call_with_its_own_outcome_and_clock() {
    let name = fresh_name("group");
    let mut m = JsMemory::open_opfs(name.clone(), None, JsValue::UNDEFINED).await.unwrap();
    m.call("store", js(json!({"agent_id": "a", "content": "warm-up: creates the -wal file"}))).unwrap();
    m.checkpoint().unwrap();
    // The first commit after a checkpoint restarts the log, and SQLite syncs its new header.
    m.call("store", js(json!({"agent_id": "a", "content": "restarts the log"}))).unwrap();
    // Count flush() calls from here on (WAL with synchronous = NORMAL: a commit flushes nothing).
    run_js(
        "const p = FileSystemSyncAccessHandle.prototype; const f = p.flush; self.flushes = 0;
         p.flush = function () { self.flushes++; return f.call(this); };",
        &name,
    )
    .await;
    let calls = js(json!([
        ["store", {"agent_id": "a", "content": "one", "associations": {"entities": [{"name": "Uno"}]}}, 1_778_414_400_000.0_f64],
        ["store", {"agent_id": "a"}, null],
        ["store", {"agent_id": "a", "content": "two"}, 1_778_500_000_000.0_f64],
        ["get_contents", {"agent_id": "a", "refs": ["mem:3", "mem:4"]}]
    ]));
    let out = rs(m.call_group(js_sys::Array::from(&calls)).unwrap().into());
    assert_eq!(out[0]["value"]["id"], 3, "{out}");
    assert_eq!(out[1]["error"]["code"], "missing_field", "{out}");
    assert_eq!(out[2]["value"]["id"], 4, "{out}");
    assert_eq!(out[3]["value"]["count"], 2, "a read in the group sees its writes: {out}");
    assert_eq!(rs(run_js("return self.flushes;", &name).await), json!(0), "the group's commit flushed");
    let listed = rs(m.call("list_entities", js(json!({"agent_id": "a"}))).unwrap());
    assert_eq!(listed["entities"][0]["name"], "Uno");
    assert!(m.integrity_check().unwrap().is_empty());
    m.checkpoint().unwrap();
    assert!(rs(run_js("return self.flushes;", &name).await).as_u64().unwrap() >= 1, "a checkpoint flushes");
    drop(m);

    let mut m = JsMemory::open_opfs(name, None, JsValue::UNDEFINED).await.unwrap();
    let contents = rs(m.call("get_contents", js(json!({"agent_id": "a", "refs": ["mem:3", "mem:4"]}))).unwrap());
    assert_eq!(contents["count"], 2);
    let stamped = rs(m.call("get_contents", js(json!({"agent_id": "a", "refs": ["mem:3"]}))).unwrap());
    assert_eq!(stamped["items"][0]["timestamp"], "2026-05-10T12:00:00+00:00", "the call's own clock reading stamped it");
}
