//! export / import: the whole database as bytes, and back.

mod common;
use associative_memory::{FixedClock, Memory, SCHEMA_VERSION};
use common::fixture;
use serde_json::json;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn populated() -> common::Fixture {
    let mut f = fixture();
    f.ok(
        "store",
        json!({"agent_id": "a", "content": "Kaito Mori wrote the ingestion service.",
        "associations": {"entities": [{"name": "Kaito Mori", "aliases": ["海斗"]}],
                         "relations": [{"subject": "Kaito Mori", "predicate": "maintains", "object": "Ingestion"}]}}),
    );
    f.ok("store", json!({"agent_id": "a", "content": "インジェストはキューが満杯だとイベントを落とす。", "metadata": {"k": 1}}));
    f.ok("archive_episode", json!({"agent_id": "a", "summary": "ingest review", "keywords": "ingest queue"}));
    f
}

fn fts_hits(bytes: &[u8], query: &str) -> Vec<i64> {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, bytes, bytes.len(), true).unwrap();
    let mut stmt = conn.prepare("SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid").unwrap();
    stmt.query_map([query], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn an_import_of_export_bytes_answers_as_the_original_did() {
    let mut original = populated();
    let bytes = original.memory.export().unwrap();
    let clock = FixedClock::new(0);
    let mut copy = Memory::open_in_memory_with_clock(Box::new(clock)).unwrap();
    copy.call("store", &json!({"agent_id": "z", "content": "replaced by the import"})).unwrap();
    copy.import(&bytes).unwrap();

    for (tool, args) in [
        ("traverse", json!({"agent_id": "a", "entity": "海斗", "max_hops": 2})),
        ("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2", "ep:1", "mem:3"]})),
        ("list_entities", json!({"agent_id": "a"})),
        ("list_entities", json!({"agent_id": "z"})),
    ] {
        assert_eq!(copy.call(tool, &args).unwrap(), original.memory.call(tool, &args).unwrap(), "{tool}");
    }
    // FTS answers too: a trigram query in Japanese and one in Latin
    let copied = copy.export().unwrap();
    assert_eq!(fts_hits(&copied, "キュー"), vec![2]);
    assert_eq!(fts_hits(&copied, "ingestion"), vec![1]);
    // and both go on identically: the next ids and stamps match
    let next = json!({"agent_id": "a", "content": "next", "timestamp": "2026-02-01T00:00:00Z"});
    original.clock.set_ms(0);
    assert_eq!(copy.call("store", &next).unwrap(), original.memory.call("store", &next).unwrap());
}

#[test]
fn bad_bytes_are_refused_and_change_nothing() {
    let mut f = populated();
    let before = f.memory.export().unwrap();
    for bad in [&b"not a database"[..], &before[..before.len() / 2], &[]] {
        let e = f.memory.import(bad).unwrap_err();
        assert_eq!(e.code(), "not_a_memory", "{e}");
        assert!(f.memory.export().unwrap() == before, "a refused import changed the database");
    }
    // an SQLite database that is not ours
    let mut foreign = rusqlite::Connection::open_in_memory().unwrap();
    foreign.execute_batch("CREATE TABLE t (x)").unwrap();
    let foreign_bytes = foreign.serialize(rusqlite::MAIN_DB).unwrap().to_vec();
    assert_eq!(f.memory.import(&foreign_bytes).unwrap_err().code(), "not_a_memory");
    assert!(f.memory.export().unwrap() == before, "a refused import changed the database");
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "opens a database file: wasm32-unknown-unknown has no file system")]
fn a_newer_schema_is_a_clear_error() {
    let mut f = populated();
    let bytes = f.memory.export().unwrap();
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, &bytes[..], bytes.len(), false).unwrap();
    conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
    let newer = conn.serialize(rusqlite::MAIN_DB).unwrap().to_vec();
    let e = f.memory.import(&newer).unwrap_err();
    assert_eq!(e.code(), "newer_schema");
    assert!(e.to_string().contains("newer"), "{e}");

    let dir = std::env::temp_dir().join(format!("am-newer-{}.db", std::process::id()));
    std::fs::write(&dir, &newer).unwrap();
    let e = Memory::open(&dir, Box::new(FixedClock::new(0))).unwrap_err();
    std::fs::remove_file(&dir).ok();
    assert_eq!(e.code(), "newer_schema");
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "a file memory: wasm32-unknown-unknown has no file system (OPFS: tests/wasm_worker.rs)")]
fn a_file_memory_persists_across_opens() {
    let path = std::env::temp_dir().join(format!("am-file-{}.db", std::process::id()));
    std::fs::remove_file(&path).ok();
    {
        let mut m = Memory::open(&path, Box::new(FixedClock::new(0))).unwrap();
        m.call("store", &json!({"agent_id": "a", "content": "persisted", "associations": {"entities": [{"name": "P"}]}})).unwrap();
    }
    let mut m = Memory::open(&path, Box::new(FixedClock::new(0))).unwrap();
    let t = m.call("traverse", &json!({"agent_id": "a", "entity": "p"})).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(t["entities"][0]["mentions"], json!(["mem:1"]));
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "a file memory: wasm32-unknown-unknown has no file system (OPFS: www/test)")]
fn an_export_of_a_file_memory_in_wal_mode_imports() {
    let path = std::env::temp_dir().join(format!("am-wal-export-{}.db", std::process::id()));
    std::fs::remove_file(&path).ok();
    let mut m = Memory::open(&path, Box::new(FixedClock::new(0))).unwrap();
    m.call("store", &json!({"agent_id": "a", "content": "from a WAL file"})).unwrap();
    let bytes = m.export().unwrap();
    // an image has no log: it is marked as a rollback-journal database
    assert_eq!(bytes[18..20], [1, 1]);
    let mut copy = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(0))).unwrap();
    copy.import(&bytes).unwrap();
    // and SQLite's own serialization of a WAL file (marked 2, 2) imports too
    let mut raw = bytes.clone();
    raw[18..20].copy_from_slice(&[2, 2]);
    copy.import(&raw).unwrap();
    drop(m);
    std::fs::remove_file(&path).ok();
    let listed = copy.call("list_memories", &json!({"agent_id": "a"})).unwrap();
    assert_eq!(listed["memories"][0]["content"], "from a WAL file");
}

#[test]
#[cfg_attr(
    target_arch = "wasm32",
    ignore = "imports into a WAL file memory too: wasm32-unknown-unknown has no file system (in memory: tests/wasm_common)"
)]
fn bytes_of_any_page_size_import_into_any_memory() {
    use common::pages::{memory_with_page_size, page_size_of};
    let traverse = json!({"agent_id": "a", "entity": "海斗"});
    let mut native = populated();
    let want = native.ok("traverse", traverse.clone());
    let bytes = native.memory.export().unwrap();
    assert_eq!(page_size_of(&bytes), 4096, "every memory this crate creates has 4096-byte pages");
    let path = std::env::temp_dir().join(format!("am-pages-{}.db", std::process::id()));
    for size in [1024, 8192, 65536] {
        // bytes of another page size, into an in-memory memory and into a WAL file memory
        let mut odd = memory_with_page_size(size);
        odd.import(&bytes).unwrap();
        let odd_bytes = odd.export().unwrap();
        assert_eq!(page_size_of(&odd_bytes), 4096, "a 4096-page image imports into a {size}-page memory");
        let mut odd = memory_with_page_size(size);
        odd.call(
            "store",
            &json!({"agent_id": "a", "content": "odd", "associations": {"entities": [{"name": "Kaito Mori", "aliases": ["海斗"]}]}}),
        )
        .unwrap();
        let odd_bytes = odd.export().unwrap();
        assert_eq!(page_size_of(&odd_bytes), size);
        for file in [false, true] {
            std::fs::remove_file(&path).ok();
            let mut m = if file { Memory::open(&path, Box::new(FixedClock::new(0))).unwrap() } else { Memory::open_in_memory().unwrap() };
            m.import(&odd_bytes).unwrap_or_else(|e| panic!("{size}-byte pages into {}: {e}", if file { "a file" } else { "memory" }));
            let t = m.call("traverse", &traverse).unwrap();
            assert_eq!(t["entities"][0]["mentions"], json!(["mem:1"]), "{size} {file}");
            // and it keeps working: a write after the import, then the original back
            m.call("store", &json!({"agent_id": "a", "content": "after", "associations": {"entities": [{"name": "海斗"}]}})).unwrap();
            assert_eq!(m.call("traverse", &traverse).unwrap()["entities"][0]["mentions"], json!(["mem:1", "mem:2"]));
            m.import(&bytes).unwrap();
            assert_eq!(m.call("traverse", &traverse).unwrap(), want);
            if file {
                let journal: String =
                    rusqlite::Connection::open(&path).unwrap().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
                assert_eq!(journal, "wal", "the file is back in WAL mode");
            }
        }
    }
    std::fs::remove_file(&path).ok();
}
