//! What the fuzz targets share: a JSON generator that speaks the engine's option names, a
//! small populated memory, and the checks every call must pass.

use arbitrary::{Result, Unstructured};
use associative_memory::{FixedClock, Memory};
use serde_json::{json, Map, Number, Value};

/// Every tool `Memory::call` knows, and one it does not.
pub const TOOLS: &[&str] = &[
    "store",
    "archive_episode",
    "declare_associations",
    "traverse",
    "get_contents",
    "delete_memory",
    "delete_episode",
    "delete_entity",
    "list_entities",
    "recall",
    "reconstruct",
    "no_such_tool",
];

/// Option and field names the engine reads, so generated objects reach past the
/// unknown-option check.
const KEYS: &[&str] = &[
    "agent_id",
    "project_id",
    "channel",
    "content",
    "timestamp",
    "source",
    "type",
    "id",
    "name",
    "metadata",
    "embedding",
    "associations",
    "entities",
    "aliases",
    "relations",
    "subject",
    "predicate",
    "object",
    "anchor_ref",
    "retract",
    "mentions",
    "entity",
    "ref",
    "refs",
    "summary",
    "keywords",
    "history",
    "role",
    "start_time",
    "end_time",
    "query",
    "query_embedding",
    "limit",
    "offset",
    "deep",
    "count",
    "top_k",
    "max_hops",
    "max_evidence",
    "budget",
    "trace",
    "source_id",
    "memory_id",
    "episode_id",
    "entity_id",
    "declared_by",
];

/// Strings worth trying where the engine expects text.
const WORDS: &[&str] = &[
    "a",
    "b",
    "",
    " ",
    "mem:1",
    "mem:2",
    "ep:1",
    "mem:0",
    "mem:-1",
    "ep:99999999999999999999",
    "entity",
    "Kaito Mori",
    "海斗",
    "ﾐｽﾞｱｲ",
    "ミズアイ",
    "maintains",
    "corrects",
    "supersedes",
    "ingestion",
    "queue",
    "\"",
    "NEAR(",
    "*",
    "content:x",
    "AND",
    "OR NOT",
    "%",
    "_",
    "\\",
    "2026-01-01T00:00:00Z",
    "2026-13-45T99:99:99Z",
    "agent",
    "operator",
    "p",
    "c",
    "\u{0}",
    "ß",
    "İ",
    "\u{feff}",
    "\u{200b}",
];

/// An arbitrary JSON value, biased towards the shapes the engine reads.
pub fn value(u: &mut Unstructured, depth: u32) -> Result<Value> {
    let pick = if depth == 0 { u.int_in_range(0..=5)? } else { u.int_in_range(0..=7)? };
    Ok(match pick {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(u.int_in_range(-3i64..=12)?),
        3 => match u.int_in_range(0..=4)? {
            0 => json!(u.arbitrary::<i64>()?),
            1 => Number::from_f64(u.arbitrary::<f64>()?).map_or(Value::Null, Value::Number),
            2 => json!(u.arbitrary::<u64>()?),
            3 => json!(0.5),
            _ => json!(1e300),
        },
        4 => json!(u.choose(WORDS)?.to_string()),
        5 => json!(u.arbitrary::<String>()?),
        6 => {
            let n = u.int_in_range(0..=5)?;
            Value::Array((0..n).map(|_| value(u, depth - 1)).collect::<Result<_>>()?)
        }
        _ => Value::Object(object(u, depth - 1)?),
    })
}

/// An arbitrary object, keys mostly from the engine's vocabulary.
pub fn object(u: &mut Unstructured, depth: u32) -> Result<Map<String, Value>> {
    let n = u.int_in_range(0..=6)?;
    let mut map = Map::new();
    for _ in 0..n {
        let key = if u.ratio(7, 8)? { u.choose(KEYS)?.to_string() } else { u.arbitrary::<String>()? };
        map.insert(key, value(u, depth)?);
    }
    Ok(map)
}

/// Options for `tool` that usually pass validation: the required fields filled in, then
/// arbitrary extra fields on top.
pub fn options(u: &mut Unstructured, tool: &str) -> Result<Value> {
    let mut map = Map::new();
    if u.ratio(15, 16)? {
        map.insert("agent_id".into(), json!(*u.choose(&["a", "a", "b", ""])?));
    }
    let required: &[&str] = match tool {
        "store" => &["content"],
        "archive_episode" => &["summary"],
        "traverse" => &["entity"],
        "get_contents" => &["refs"],
        "delete_memory" => &["memory_id"],
        "delete_episode" => &["episode_id"],
        "delete_entity" => &["entity_id"],
        "recall" | "reconstruct" => &["query"],
        _ => &[],
    };
    for key in required {
        let v = match *key {
            "refs" => json!([u.choose(WORDS)?.to_string(), "mem:1", "ep:1"]),
            k if k.ends_with("_id") => json!(u.int_in_range(0i64..=6)?),
            _ if u.ratio(1, 2)? => json!(u.choose(WORDS)?.to_string()),
            _ => json!(u.arbitrary::<String>()?),
        };
        map.insert((*key).into(), v);
    }
    for (k, v) in object(u, 3)? {
        if u.ratio(1, 3)? || !map.contains_key(&k) {
            map.insert(k, v);
        }
    }
    Ok(Value::Object(map))
}

/// A memory on a fixed clock with records, entities, aliases and relations of two agents,
/// two projects and a channel.
pub fn populated() -> Memory {
    let mut m = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000))).unwrap();
    let writes = [
        (
            "store",
            json!({"agent_id": "a", "content": "Kaito Mori wrote the ingestion service.", "embedding": [1.0, 0.0, 0.5, 0.25],
            "associations": {"entities": [{"name": "Kaito Mori", "aliases": ["海斗"]}],
                             "relations": [{"subject": "Kaito Mori", "predicate": "maintains", "object": "Ingestion"}]}}),
        ),
        ("store", json!({"agent_id": "a", "content": "インジェストはキューが満杯だとイベントを落とす。", "project_id": "p"})),
        (
            "store",
            json!({"agent_id": "a", "content": "The ingestion queue was resized to 4096.", "channel": "c",
            "associations": {"entities": [{"name": "Ingestion", "aliases": ["インジェスト"]}], "relations": [{"subject": "mem:3", "predicate": "corrects", "object": "mem:2"}]}}),
        ),
        (
            "store",
            json!({"agent_id": "b", "content": "Agent b keeps its own ingestion notes.", "associations": {"entities": [{"name": "Kaito Mori"}]}}),
        ),
        ("archive_episode", json!({"agent_id": "a", "summary": "ingestion review", "keywords": "ingest queue"})),
    ];
    for (tool, args) in writes {
        m.call(tool, &args).unwrap();
    }
    m
}

/// A copy of [`populated`], opened from its bytes (cheaper than writing it again).
pub fn populated_copy() -> Memory {
    static IMAGE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let image = IMAGE.get_or_init(|| populated().export().unwrap());
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, &image[..], image.len(), false).unwrap();
    Memory::from_connection(conn, Box::new(FixedClock::new(1_767_225_600_000))).unwrap()
}

/// The checks every call must pass: an error is typed, never SQLite failing on input (an
/// accident, not a contract); a refused call writes nothing.
pub fn checked_call(m: &mut Memory, tool: &str, args: &Value) -> Option<Value> {
    let before = m.export().unwrap();
    match m.call(tool, args) {
        Ok(v) => Some(v),
        Err(e) => {
            assert_ne!(e.code(), "sqlite", "{tool} {args}: SQLite failed on input: {e}");
            assert!(m.export().unwrap() == before, "{tool} {args}: a refused call ({e}) changed the memory");
            None
        }
    }
}
