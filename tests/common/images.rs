//! Crafted database images, shared by the native suite (`tests/hostile_images.rs`) and the
//! wasm suites: an exported memory edited the way a person with the `sqlite3` shell (or
//! an attacker) would, each with what `import` must do with it. `tests/schemas.rs` reads
//! the memory they are crafted from and its probes only.
#![allow(dead_code)]

use associative_memory::{FixedClock, Memory};
use serde_json::{json, Value};

/// What importing a crafted image must do.
pub enum Outcome {
    /// Imports, and the memory answers every probe as the original does.
    BehavesAsOurs,
    /// Refused with `not_a_memory`, the message containing this text.
    Refused(&'static str),
    /// Refused with `newer_schema`.
    Newer,
}

/// One crafted image: a name, how it is made from a valid export, and the outcome.
pub struct Case {
    pub name: &'static str,
    pub craft: Craft,
    pub outcome: Outcome,
}

pub enum Craft {
    /// SQL run on a writable copy of the valid image.
    Sql(&'static str),
    /// SQL run on a writable copy of another image (one of an earlier schema version).
    SqlOn(&'static [u8], &'static str),
    /// The image's bytes, transformed.
    Bytes(fn(&[u8]) -> Vec<u8>),
}

pub fn cases() -> Vec<Case> {
    use Craft::*;
    use Outcome::*;
    vec![
        Case { name: "valid_export", craft: Sql(""), outcome: BehavesAsOurs },
        Case {
            name: "extra_trigger",
            craft: Sql("CREATE TRIGGER spy AFTER INSERT ON memories BEGIN UPDATE memories SET agent_id = 'thief' WHERE id = NEW.id; END;"),
            outcome: Refused("an extra trigger `spy`"),
        },
        Case { name: "dropped_cascade_trigger", craft: Sql("DROP TRIGGER memories_cascade;"), outcome: Refused("our trigger `memories_cascade` is missing") },
        Case {
            name: "altered_cascade_trigger",
            craft: Sql("DROP TRIGGER entities_cascade;
                CREATE TRIGGER entities_cascade AFTER DELETE ON entities BEGIN DELETE FROM entity_mentions WHERE entity_id = OLD.id; END;"),
            outcome: Refused("trigger `entities_cascade` differs from ours"),
        },
        Case { name: "view", craft: Sql("CREATE VIEW everything AS SELECT * FROM memories;"), outcome: Refused("an extra view `everything`") },
        Case { name: "extra_index", craft: Sql("CREATE INDEX by_content ON memories (content);"), outcome: Refused("an extra index `by_content`") },
        Case { name: "extra_table", craft: Sql("CREATE TABLE notes (x);"), outcome: Refused("an extra table `notes`") },
        Case {
            name: "table_with_extra_column",
            craft: Sql("ALTER TABLE memories ADD COLUMN owner TEXT DEFAULT 'thief';"),
            outcome: Refused("table `memories` differs from ours"),
        },
        Case {
            name: "fts_shadow_rows_tampered",
            craft: Sql("DELETE FROM memories_fts_data WHERE id > 10; DELETE FROM episodes_fts_docsize;"),
            outcome: Refused("fts5: corruption"),
        },
        Case {
            name: "fts_config_tampered",
            craft: Sql("INSERT INTO memories_fts_config (k, v) VALUES ('rank', 'bm25(100.0)');
                INSERT INTO episodes_fts_config (k, v) VALUES ('secure-delete', 1);"),
            outcome: BehavesAsOurs,
        },
        Case {
            name: "fts_shadow_table_redefined",
            craft: Sql("PRAGMA writable_schema = ON;
                UPDATE sqlite_schema SET sql = replace(sql, 'PRIMARY KEY', 'PRIMARY KEY, extra') WHERE name = 'memories_fts_docsize';
                PRAGMA writable_schema = OFF;"),
            outcome: Refused("table `memories_fts_docsize` differs from ours"),
        },
        Case { name: "text_stats_tampered", craft: Sql("UPDATE text_stats SET records = 1, tokens = 999999;"), outcome: BehavesAsOurs },
        // the same writes, made by the engines of earlier schema versions (`tests/schemas.rs`)
        Case { name: "file_of_schema_version_1", craft: Bytes(|_| include_bytes!("../fixtures/schemas/v1.db").to_vec()), outcome: BehavesAsOurs },
        Case { name: "file_of_schema_version_2", craft: Bytes(|_| include_bytes!("../fixtures/schemas/v2.db").to_vec()), outcome: BehavesAsOurs },
        Case { name: "export_of_schema_version_3", craft: Bytes(|_| include_bytes!("../fixtures/schemas/v3.export").to_vec()), outcome: BehavesAsOurs },
        Case { name: "older_user_version_on_newer_schema", craft: Sql("PRAGMA user_version = 1;"), outcome: Refused("the schema differs from version 1 of ours") },
        Case { name: "newer_user_version", craft: Sql("PRAGMA user_version = 99;"), outcome: Newer },
        Case { name: "negative_user_version", craft: Sql("PRAGMA user_version = -1;"), outcome: Refused("schema version -1") },
        Case { name: "no_user_version", craft: Sql("PRAGMA user_version = 0;"), outcome: Refused("without an associative-memory schema version") },
        Case {
            name: "trigger_edited_in_place",
            craft: Bytes(|b| replace(b, ENTITY_ALIAS_CASCADE, EDITED_ENTITY_ALIAS_CASCADE)),
            outcome: Refused("trigger `entities_cascade` differs from ours"),
        },
        Case { name: "truncated_file", craft: Bytes(|b| b[..b.len() / 3].to_vec()), outcome: Refused("") },
        Case { name: "not_sqlite", craft: Bytes(|_| b"name,content\nkaito,ingestion\n".to_vec()), outcome: Refused("not an SQLite database") },
        Case { name: "empty_file", craft: Bytes(|_| Vec::new()), outcome: Refused("the bytes are empty") },
        Case {
            name: "corrupt_page",
            craft: Bytes(|b| {
                let mut b = b.to_vec();
                for x in &mut b[4096 * 2..4096 * 2 + 64] {
                    *x = 0xff;
                }
                b
            }),
            outcome: Refused(""),
        },
        Case {
            name: "relation_naming_a_missing_record",
            craft: Sql("INSERT INTO relations (agent_id, subject_kind, subject_id, predicate, object_kind, object_id, declared_by, declared_at)
                VALUES ('a', 'mem', 999, 'corrects', 'mem', 1, 'agent', '2026-01-01T00:00:00+00:00');"),
            outcome: Refused("a relation's subject does not exist for its agent"),
        },
        Case {
            name: "relation_to_another_agents_record",
            craft: Sql("INSERT INTO memories (agent_id, content, source, timestamp, created_at) VALUES ('b', 'other', '{}', '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00');
                INSERT INTO relations (agent_id, subject_kind, subject_id, predicate, object_kind, object_id, declared_by, declared_at)
                VALUES ('a', 'mem', 1, 'corrects', 'mem', (SELECT max(id) FROM memories), 'agent', '2026-01-01T00:00:00+00:00');"),
            outcome: Refused("a relation's object does not exist for its agent"),
        },
        Case {
            name: "alias_claimed_by_two_entities_in_one_scope",
            craft: Sql("INSERT INTO entity_aliases (entity_id, alias, normalized) VALUES (2, '海斗', '海斗');"),
            outcome: Refused("one name or alias is claimed by two entities in one scope"),
        },
        Case {
            name: "mention_of_a_missing_record",
            craft: Sql("INSERT INTO entity_mentions (entity_id, ref_kind, ref_id, declared_by, created_at) VALUES (1, 'mem', 77, 'agent', '');"),
            outcome: Refused("a mention names a record that does not exist"),
        },
        Case {
            name: "mention_of_an_entity",
            craft: Sql("INSERT INTO entity_mentions (entity_id, ref_kind, ref_id, declared_by, created_at) VALUES (1, 'entity', 2, 'agent', '');"),
            outcome: Refused("a mention names a record that does not exist"),
        },
        Case {
            name: "anchor_id_without_a_kind",
            craft: Sql("UPDATE relations SET anchor_kind = '' WHERE anchor_kind = 'mem' AND anchor_id = 1;"),
            outcome: Refused("a relation's anchor is not a record of its agent"),
        },
        Case {
            name: "anchor_on_another_agents_record",
            craft: Sql("UPDATE relations SET anchor_id = 4 WHERE anchor_kind = 'mem' AND anchor_id = 1;"),
            outcome: Refused("a relation's anchor is not a record of its agent"),
        },
        Case {
            // version 3 stored refs as text, which the migration to 4 reads: `mem:01` would be read as `mem:1`
            name: "version_3_ref_not_written_as_ours",
            craft: SqlOn(include_bytes!("../fixtures/schemas/v3.export"), "UPDATE entity_mentions SET ref = 'mem:01' WHERE ref = 'mem:1';"),
            outcome: Refused("the record ref \"mem:01\" is not written as ours are"),
        },
        Case {
            name: "alias_of_a_missing_entity",
            craft: Sql("INSERT INTO entity_aliases (entity_id, alias, normalized) VALUES (42, 'ghost', 'ghost');"),
            outcome: Refused("an alias names a missing entity"),
        },
        Case {
            name: "normalized_twin_not_its_own",
            craft: Sql("UPDATE entities SET normalized = 'someone else' WHERE id = 1;"),
            outcome: Refused("is stored with a normalized form"),
        },
        Case {
            name: "embedding_shorter_than_its_dimension",
            craft: Sql("UPDATE memories SET embedding_dim = 4096 WHERE embedding IS NOT NULL;"),
            outcome: Refused("an embedding does not hold four bytes"),
        },
        Case {
            name: "model_without_an_embedding",
            craft: Sql("UPDATE memories SET embedding_model = 'm' WHERE embedding IS NULL;"),
            outcome: Refused("model is named without an embedding"),
        },
        Case {
            name: "model_name_past_its_limit",
            craft: Sql("UPDATE memories SET embedding_model = replace(hex(zeroblob(300)), '0', 'm') WHERE embedding IS NOT NULL;"),
            outcome: Refused("its name is not 1–256 characters"),
        },
        Case { name: "blob_where_text_belongs", craft: Sql("UPDATE memories SET content = x'00ff' WHERE id = 2;"), outcome: Refused("`memories.content` holds a value of type blob") },
        Case {
            name: "id_counter_past_javascript_numbers",
            craft: Sql("UPDATE sqlite_sequence SET seq = 9223372036854775807 WHERE name = 'memories';"),
            outcome: Refused("the id counter of `memories`"),
        },
        Case { name: "unknown_declarer", craft: Sql("UPDATE relations SET declared_by = 'root';"), outcome: Refused("`declared_by` is neither") },
        Case {
            // a million U+FDFA, eighteen million characters once normalized: refused by its
            // written length, never normalized
            name: "name_past_every_bound",
            craft: Sql("UPDATE entities SET name = replace(hex(zeroblob(1000000)), '00', char(65018)) WHERE id = 1;"),
            outcome: Refused("is longer than 4608 characters"),
        },
        Case {
            name: "embedding_not_a_number",
            craft: Sql("UPDATE memories SET embedding = x'0000c07f0000803f000000000000803f' WHERE embedding IS NOT NULL;"),
            outcome: Refused("an embedding holds a number that is not finite"),
        },
        Case {
            // four times 3e38: every number finite, the squared norm not
            name: "embedding_norm_overflows",
            craft: Sql("UPDATE memories SET embedding = x'e6b1617fe6b1617fe6b1617fe6b1617f' WHERE embedding IS NOT NULL;"),
            outcome: Refused("has a norm too large for 32-bit floats"),
        },
        // facts in time (issue 39): instants are compared as text, so only our spelling is taken
        Case {
            name: "expiry_not_canonical",
            craft: Sql("UPDATE memories SET expires_at = '2027-01-01T00:00:00Z' WHERE id = 2;"),
            outcome: Refused("the instant \"2027-01-01T00:00:00Z\" is not written as ours are (memories 2, expires_at)"),
        },
        Case {
            name: "invalidation_not_an_instant",
            craft: Sql("UPDATE episodes SET invalid_at = 'yesterday', invalid_reason = 'moved';"),
            outcome: Refused("the instant \"yesterday\" is not written as ours are (episodes 1, invalid_at)"),
        },
        Case {
            name: "validity_not_canonical",
            craft: Sql("UPDATE relations SET valid_to = '2027-01-01 00:00:00+00:00' WHERE id = (SELECT min(id) FROM relations);"),
            outcome: Refused("is not written as ours are (relations"),
        },
        Case {
            name: "interval_ends_before_it_starts",
            craft: Sql("UPDATE relations SET valid_from = '2027-01-01T00:00:00+00:00', valid_to = '2026-01-01T00:00:00+00:00' WHERE id = (SELECT min(id) FROM relations);"),
            outcome: Refused("ends at or before it starts"),
        },
    ]
}

/// A line of our entity cascade trigger, and the same number of bytes that delete nothing:
/// the edit a hex editor makes (`www/test/explorer.test.mjs` makes it too).
pub const ENTITY_ALIAS_CASCADE: &str = "\n    DELETE FROM entity_aliases WHERE entity_id = OLD.id;";
pub const EDITED_ENTITY_ALIAS_CASCADE: &str = "\n   DELETE FROM entity_aliases WHERE entity_id = -OLD.id;";

/// `bytes` with the first occurrence of `from` replaced by `to`, of the same length.
pub fn replace(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let at = bytes.windows(from.len()).position(|w| w == from.as_bytes()).expect("the text is in the image");
    let mut out = bytes.to_vec();
    out[at..at + to.len()].copy_from_slice(to.as_bytes());
    out
}

/// The memory every image is crafted from: records of two agents, an embedding, entities
/// with aliases, mentions of memories and of an episode, relations (entity and record
/// ones, anchored on a memory or an episode), episodes, and one deleted memory (so the id
/// counter is ahead of the rows). The fixtures of `tests/fixtures/schemas/` are these
/// writes as earlier versions of the engine made them (`tests/schemas.rs`).
pub fn populated() -> Memory {
    let mut m = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000))).unwrap();
    for (tool, args) in probe_writes() {
        m.call(&tool, &args).unwrap_or_else(|e| panic!("{tool}: {e}"));
    }
    m
}

/// The writes of `tests/fixtures/schemas/writes.json`, each a tool and its options.
fn probe_writes() -> Vec<(String, Value)> {
    serde_json::from_str(include_str!("../fixtures/schemas/writes.json")).expect("writes.json is a list of [tool, options]")
}

/// Reads (and one write) whose answers must be the original's after an import.
pub fn probes() -> Vec<(&'static str, Value)> {
    vec![
        ("recall", json!({"agent_id": "a", "query": "ingestion queue"})),
        ("recall", json!({"agent_id": "a", "query": "x", "query_embedding": [1.0, 0.0, 0.5, 0.0], "deep": true})),
        ("reconstruct", json!({"agent_id": "a", "query": "海斗 ingestion", "trace": true})),
        ("reconstruct", json!({"agent_id": "b", "query": "ingestion"})),
        ("traverse", json!({"agent_id": "a", "entity": "インジェスト", "max_hops": 2})),
        ("get_contents", json!({"agent_id": "a", "refs": ["mem:1", "mem:2", "mem:3", "mem:4", "mem:5", "ep:1"]})),
        ("list_entities", json!({"agent_id": "a"})),
        (
            "store",
            json!({"agent_id": "a", "content": "after the import", "timestamp": "2026-03-01T00:00:00Z",
            "associations": {"entities": [{"name": "海斗"}]}}),
        ),
        ("delete_entity", json!({"agent_id": "a", "entity_id": 1})),
        ("traverse", json!({"agent_id": "a", "entity": "Ingestion", "max_hops": 2})),
        ("recall", json!({"agent_id": "a", "query": "import"})),
    ]
}

/// The crafted image of `case`, from a valid `export`.
pub fn craft(case: &Case, export: &[u8]) -> Vec<u8> {
    match &case.craft {
        Craft::Bytes(f) => f(export),
        Craft::Sql(sql) => run(case, export, sql),
        Craft::SqlOn(image, sql) => run(case, image, sql),
    }
}

/// `sql` run on a writable copy of `image`.
fn run(case: &Case, image: &[u8], sql: &str) -> Vec<u8> {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, image, image.len(), false).unwrap();
    conn.execute_batch(sql).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    conn.serialize(rusqlite::MAIN_DB).unwrap().to_vec()
}

/// Imports every case into a memory holding other data and checks its outcome; returns
/// the names checked. Panics with the case's name on the first that does not hold.
pub fn check_all() -> Vec<&'static str> {
    let mut original = populated();
    let export = original.export().unwrap();
    let want: Vec<Value> = probes().iter().map(|(tool, args)| original.call(tool, args).unwrap()).collect();
    let mut names = Vec::new();
    for case in cases() {
        let bytes = craft(&case, &export);
        let mut target = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000))).unwrap();
        target.call("store", &json!({"agent_id": "z", "content": "what was here before"})).unwrap();
        let before = target.export().unwrap();
        let result = target.import(&bytes);
        match (&case.outcome, result) {
            (Outcome::BehavesAsOurs, Ok(())) => {
                for ((tool, args), want) in probes().iter().zip(&want) {
                    let got = target.call(tool, args).unwrap_or_else(|e| panic!("{}: {tool} after import: {e}", case.name));
                    assert_eq!(&got, want, "{}: {tool} {args} answers otherwise than the original", case.name);
                }
            }
            (Outcome::BehavesAsOurs, Err(e)) => panic!("{}: refused ({e}), should import", case.name),
            (_, Ok(())) => panic!("{}: imported, should be refused", case.name),
            (expected, Err(e)) => {
                let (code, text) = match expected {
                    Outcome::Refused(text) => ("not_a_memory", *text),
                    _ => ("newer_schema", "newer"),
                };
                assert_eq!(e.code(), code, "{}: {e}", case.name);
                assert!(e.to_string().contains(text), "{}: the message {:?} does not say {text:?}", case.name, e.to_string());
                assert!(target.export().unwrap() == before, "{}: a refused import changed the memory", case.name);
            }
        }
        names.push(case.name);
    }
    names
}
