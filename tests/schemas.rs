//! Files written by every earlier schema version open, import and answer as the same writes
//! made today do.
//!
//! `tests/fixtures/schemas/` holds what the engine of each earlier version wrote, natively,
//! for the writes of `images::populated` (`tests/common/images.rs`): the database file
//! (`v1.db` to `v5.db`), the bytes `export()` gave (`v3.export`, `v5.export`) and the JSONL
//! `export_memories` gave for agent `a` (`v2.jsonl`, `v3.jsonl`; version 1 had no JSONL
//! export). `tests/fixtures/schemas/generate.rs` is the program that wrote them and says
//! from which commits; the files are never rewritten, since no later engine can write them.
//!
//! The oracle is the same writes replayed on today's engine: a migrated file holds the
//! rows a fresh database holds (every table but the derived FTS shadow tables, id counters
//! included), answers every probe as it does, and exports the same JSONL.

#[path = "common/images.rs"]
mod images;

use associative_memory::{FixedClock, Memory, SCHEMA_VERSION};
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const V1_DB: &[u8] = include_bytes!("fixtures/schemas/v1.db");
const V2_DB: &[u8] = include_bytes!("fixtures/schemas/v2.db");
const V3_DB: &[u8] = include_bytes!("fixtures/schemas/v3.db");
const V3_EXPORT: &[u8] = include_bytes!("fixtures/schemas/v3.export");
const V4_DB: &[u8] = include_bytes!("fixtures/schemas/v4.db");
const V5_DB: &[u8] = include_bytes!("fixtures/schemas/v5.db");
const V5_EXPORT: &[u8] = include_bytes!("fixtures/schemas/v5.export");
const V2_JSONL: &str = include_str!("fixtures/schemas/v2.jsonl");
const V3_JSONL: &str = include_str!("fixtures/schemas/v3.jsonl");

/// The fixtures' clock: every stamp they hold is this instant.
const NOW_MS: i64 = 1_767_225_600_000;

fn clock() -> Box<FixedClock> {
    Box::new(FixedClock::new(NOW_MS))
}

/// The probes of the crafted images, and the reads they leave out.
fn reads() -> Vec<(&'static str, Value)> {
    let mut reads = vec![
        ("list_memories", json!({"agent_id": "a"})),
        ("list_memories", json!({"agent_id": "b"})),
        ("list_entities", json!({"agent_id": "b"})),
        ("traverse", json!({"agent_id": "a", "entity": "キュー", "max_hops": 3})),
        ("traverse", json!({"agent_id": "b", "entity": "台帳"})),
        ("reconstruct", json!({"agent_id": "a", "query": "ingestion review", "trace": true})),
        ("get_contents", json!({"agent_id": "b", "refs": ["mem:4", "mem:6", "ep:2", "ep:1"]})),
        ("export_memories", json!({"agent_id": "a"})),
        ("export_memories", json!({"agent_id": "b"})),
    ];
    reads.extend(images::probes());
    reads
}

fn answers(m: &mut Memory) -> Vec<Value> {
    reads().iter().map(|(tool, args)| m.call(tool, args).unwrap_or_else(|e| panic!("{tool} {args}: {e}"))).collect()
}

/// Every row of every table of an exported database but the FTS indexes (derived, and
/// compared through the searches instead), sorted, by table.
fn rows(bytes: &[u8]) -> Vec<(String, Vec<Vec<String>>)> {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, bytes, bytes.len(), true).unwrap();
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE '%fts%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables
        .into_iter()
        .map(|table| {
            let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
            let n = stmt.column_count();
            let mut rows: Vec<Vec<String>> = stmt
                .query_map([], |r| (0..n).map(|i| r.get::<_, rusqlite::types::Value>(i).map(|v| format!("{v:?}"))).collect())
                .unwrap()
                .map(Result::unwrap)
                .collect();
            rows.sort();
            (table, rows)
        })
        .collect()
}

/// `m` holds what `today` holds, row for row, and answers every read as it does.
fn same_as_today(m: &mut Memory, what: &str) {
    let mut today = images::populated();
    assert_eq!(rows(&m.export().unwrap()), rows(&today.export().unwrap()), "{what}: the rows differ from today's");
    for ((tool, args), (got, want)) in reads().iter().zip(answers(m).into_iter().zip(answers(&mut today))) {
        assert_eq!(got, want, "{what}: {tool} {args} answers otherwise than today's engine");
    }
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "opens a database file: wasm32-unknown-unknown has no file system")]
fn files_of_every_earlier_version_open_as_the_same_writes_made_today() {
    for (version, bytes) in [(1, V1_DB), (2, V2_DB), (3, V3_DB), (4, V4_DB), (5, V5_DB)] {
        let stored: i64 = i64::from(u32::from_be_bytes(bytes[60..64].try_into().unwrap()));
        assert_eq!(stored, version, "v{version}.db holds schema version {version}");
        let path = std::env::temp_dir().join(format!("am-schema-v{version}-{}.db", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let mut m = Memory::open(&path, clock()).unwrap_or_else(|e| panic!("v{version}.db: {e}"));
        same_as_today(&mut m, &format!("v{version}.db opened"));
        drop(m);
        for suffix in ["", "-wal", "-shm"] {
            std::fs::remove_file(format!("{}{suffix}", path.display())).ok();
        }
    }
}

#[test]
fn exports_of_every_earlier_version_import_as_the_same_writes_made_today() {
    for (what, bytes) in [
        ("v1.db", V1_DB),
        ("v2.db", V2_DB),
        ("v3.db", V3_DB),
        ("v3.export", V3_EXPORT),
        ("v4.db", V4_DB),
        ("v5.db", V5_DB),
        ("v5.export", V5_EXPORT),
    ] {
        let mut m = Memory::open_in_memory_with_clock(clock()).unwrap();
        m.call("store", &json!({"agent_id": "z", "content": "replaced by the import"})).unwrap();
        m.import(bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        same_as_today(&mut m, &format!("{what} imported"));
    }
}

#[test]
fn jsonl_of_earlier_versions_imports_as_todays() {
    let mut today = images::populated();
    let jsonl = today.call("export_memories", &json!({"agent_id": "a"})).unwrap()["jsonl"].as_str().unwrap().to_owned();
    assert_eq!(jsonl, V3_JSONL, "today's JSONL of the same writes is the version 3 engine's, byte for byte");
    let import = |jsonl: &str| {
        let mut m = Memory::open_in_memory_with_clock(clock()).unwrap();
        let out = m.call("import_memories", &json!({"jsonl": jsonl})).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out["dropped"], json!([]), "nothing dropped: {out}");
        m
    };
    let mut want = import(&jsonl);
    let want_rows = rows(&want.export().unwrap());
    let want_answers = answers(&mut want);
    for (what, file) in [("v2.jsonl", V2_JSONL), ("v3.jsonl", V3_JSONL)] {
        let mut m = import(file);
        assert_eq!(rows(&m.export().unwrap()), want_rows, "{what}: the rows differ from today's JSONL imported");
        for ((tool, args), (got, want)) in reads().iter().zip(answers(&mut m).into_iter().zip(&want_answers)) {
            assert_eq!(&got, want, "{what}: {tool} {args} answers otherwise than today's JSONL imported");
        }
    }
}
