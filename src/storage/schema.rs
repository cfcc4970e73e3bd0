//! The database schema and its migrations (SPEC §2, design §1).
//!
//! The version lives in `PRAGMA user_version`. Opening an older database migrates it
//! forward in one transaction; opening a newer one is [`Error::NewerSchema`]. There are
//! no foreign keys: consistency between records and declarations is held by the cascade
//! triggers below, so no declaration outlives its endpoints (invariant 8).

use crate::api::error::{Error, Result};
use rusqlite::Connection;

/// The schema version this library writes.
pub const SCHEMA_VERSION: i64 = 6;

/// Version 1: records, their trigram FTS indexes, the four association tables of
/// design §1 exactly, and the cascade triggers.
const V1: &str = r#"
CREATE TABLE memories (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id      TEXT NOT NULL,
    project_id    TEXT NOT NULL DEFAULT '',
    channel       TEXT NOT NULL DEFAULT '',
    content       TEXT NOT NULL,
    source        TEXT NOT NULL,
    timestamp     TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    metadata      TEXT,
    embedding     BLOB,
    embedding_dim INTEGER
);
CREATE INDEX idx_memories_scope ON memories (agent_id, project_id, channel);

CREATE TABLE episodes (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id      TEXT NOT NULL,
    project_id    TEXT NOT NULL DEFAULT '',
    channel       TEXT NOT NULL DEFAULT '',
    summary       TEXT NOT NULL,
    keywords      TEXT NOT NULL DEFAULT '',
    history       TEXT NOT NULL DEFAULT '[]',
    start_time    TEXT,
    end_time      TEXT,
    created_at    TEXT NOT NULL,
    embedding     BLOB,
    embedding_dim INTEGER
);
CREATE INDEX idx_episodes_scope ON episodes (agent_id, project_id, channel);

CREATE VIRTUAL TABLE memories_fts USING fts5(
    content, content='memories', content_rowid='id', tokenize='trigram');
CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (NEW.id, NEW.content);
END;
CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
END;
CREATE TRIGGER memories_fts_au AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
    INSERT INTO memories_fts (rowid, content) VALUES (NEW.id, NEW.content);
END;

CREATE VIRTUAL TABLE episodes_fts USING fts5(
    summary, keywords, content='episodes', content_rowid='id', tokenize='trigram');
CREATE TRIGGER episodes_fts_ai AFTER INSERT ON episodes BEGIN
    INSERT INTO episodes_fts (rowid, summary, keywords) VALUES (NEW.id, NEW.summary, NEW.keywords);
END;
CREATE TRIGGER episodes_fts_ad AFTER DELETE ON episodes BEGIN
    INSERT INTO episodes_fts (episodes_fts, rowid, summary, keywords)
        VALUES ('delete', OLD.id, OLD.summary, OLD.keywords);
END;
CREATE TRIGGER episodes_fts_au AFTER UPDATE OF summary, keywords ON episodes BEGIN
    INSERT INTO episodes_fts (episodes_fts, rowid, summary, keywords)
        VALUES ('delete', OLD.id, OLD.summary, OLD.keywords);
    INSERT INTO episodes_fts (rowid, summary, keywords) VALUES (NEW.id, NEW.summary, NEW.keywords);
END;

CREATE TABLE entities (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id    TEXT NOT NULL,
    project_id  TEXT NOT NULL DEFAULT '',
    channel     TEXT NOT NULL DEFAULT '',
    name        TEXT NOT NULL,
    normalized  TEXT NOT NULL,
    declared_by TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    UNIQUE (agent_id, project_id, channel, normalized)
);
CREATE INDEX idx_entities_normalized ON entities (normalized);

CREATE TABLE entity_aliases (
    entity_id   INTEGER NOT NULL,
    alias       TEXT NOT NULL,
    normalized  TEXT NOT NULL,
    PRIMARY KEY (entity_id, normalized)
);
CREATE INDEX idx_entity_aliases_normalized ON entity_aliases (normalized);

CREATE TABLE entity_mentions (
    entity_id   INTEGER NOT NULL,
    ref         TEXT NOT NULL,
    declared_by TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (entity_id, ref)
);
CREATE INDEX idx_entity_mentions_ref ON entity_mentions (ref);

CREATE TABLE relations (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id     TEXT NOT NULL,
    project_id   TEXT NOT NULL DEFAULT '',
    channel      TEXT NOT NULL DEFAULT '',
    subject_kind TEXT NOT NULL,
    subject_id   INTEGER NOT NULL,
    predicate    TEXT NOT NULL,
    object_kind  TEXT NOT NULL,
    object_id    INTEGER NOT NULL,
    anchor_ref   TEXT NOT NULL DEFAULT '',
    declared_by  TEXT NOT NULL,
    declared_at  TEXT NOT NULL,
    UNIQUE (agent_id, project_id, channel,
            subject_kind, subject_id, predicate, object_kind, object_id, anchor_ref)
);
CREATE INDEX idx_relations_subject ON relations (subject_kind, subject_id);
CREATE INDEX idx_relations_object ON relations (object_kind, object_id);
CREATE INDEX idx_relations_anchor ON relations (anchor_ref);

CREATE TRIGGER entities_cascade AFTER DELETE ON entities BEGIN
    DELETE FROM entity_aliases WHERE entity_id = OLD.id;
    DELETE FROM entity_mentions WHERE entity_id = OLD.id;
    DELETE FROM relations
     WHERE (subject_kind = 'entity' AND subject_id = OLD.id)
        OR (object_kind = 'entity' AND object_id = OLD.id);
END;
CREATE TRIGGER memories_cascade AFTER DELETE ON memories BEGIN
    DELETE FROM entity_mentions WHERE ref = 'mem:' || OLD.id;
    DELETE FROM relations
     WHERE anchor_ref = 'mem:' || OLD.id
        OR (subject_kind = 'mem' AND subject_id = OLD.id)
        OR (object_kind = 'mem' AND object_id = OLD.id);
END;
CREATE TRIGGER episodes_cascade AFTER DELETE ON episodes BEGIN
    DELETE FROM entity_mentions WHERE ref = 'ep:' || OLD.id;
    DELETE FROM relations
     WHERE anchor_ref = 'ep:' || OLD.id
        OR (subject_kind = 'ep' AND subject_id = OLD.id)
        OR (object_kind = 'ep' AND object_id = OLD.id);
END;
"#;

/// Version 2: each agent's record count and total trigram tokens per record kind, kept by
/// triggers, so lexical ranking uses the agent's own statistics (`src/indexes/bm25.rs`). A database
/// of version 1 gets them counted from its rows.
const V2: &str = r#"
CREATE TABLE text_stats (
    agent_id TEXT NOT NULL,
    kind     TEXT NOT NULL,
    records  INTEGER NOT NULL,
    tokens   INTEGER NOT NULL,
    PRIMARY KEY (agent_id, kind)
) WITHOUT ROWID;
INSERT INTO text_stats
    SELECT agent_id, 'mem', count(*), sum(max(length(content) - 2, 0)) FROM memories GROUP BY agent_id;
INSERT INTO text_stats
    SELECT agent_id, 'ep', count(*), sum(max(length(summary) - 2, 0) + max(length(keywords) - 2, 0)) FROM episodes GROUP BY agent_id;

CREATE TRIGGER memories_stats_ai AFTER INSERT ON memories BEGIN
    INSERT OR IGNORE INTO text_stats VALUES (NEW.agent_id, 'mem', 0, 0);
    UPDATE text_stats SET records = records + 1, tokens = tokens + max(length(NEW.content) - 2, 0)
     WHERE agent_id = NEW.agent_id AND kind = 'mem';
END;
CREATE TRIGGER memories_stats_ad AFTER DELETE ON memories BEGIN
    UPDATE text_stats SET records = records - 1, tokens = tokens - max(length(OLD.content) - 2, 0)
     WHERE agent_id = OLD.agent_id AND kind = 'mem';
END;
CREATE TRIGGER memories_stats_au AFTER UPDATE OF agent_id, content ON memories BEGIN
    UPDATE text_stats SET records = records - 1, tokens = tokens - max(length(OLD.content) - 2, 0)
     WHERE agent_id = OLD.agent_id AND kind = 'mem';
    INSERT OR IGNORE INTO text_stats VALUES (NEW.agent_id, 'mem', 0, 0);
    UPDATE text_stats SET records = records + 1, tokens = tokens + max(length(NEW.content) - 2, 0)
     WHERE agent_id = NEW.agent_id AND kind = 'mem';
END;
CREATE TRIGGER episodes_stats_ai AFTER INSERT ON episodes BEGIN
    INSERT OR IGNORE INTO text_stats VALUES (NEW.agent_id, 'ep', 0, 0);
    UPDATE text_stats SET records = records + 1,
           tokens = tokens + max(length(NEW.summary) - 2, 0) + max(length(NEW.keywords) - 2, 0)
     WHERE agent_id = NEW.agent_id AND kind = 'ep';
END;
CREATE TRIGGER episodes_stats_ad AFTER DELETE ON episodes BEGIN
    UPDATE text_stats SET records = records - 1,
           tokens = tokens - max(length(OLD.summary) - 2, 0) - max(length(OLD.keywords) - 2, 0)
     WHERE agent_id = OLD.agent_id AND kind = 'ep';
END;
CREATE TRIGGER episodes_stats_au AFTER UPDATE OF agent_id, summary, keywords ON episodes BEGIN
    UPDATE text_stats SET records = records - 1,
           tokens = tokens - max(length(OLD.summary) - 2, 0) - max(length(OLD.keywords) - 2, 0)
     WHERE agent_id = OLD.agent_id AND kind = 'ep';
    INSERT OR IGNORE INTO text_stats VALUES (NEW.agent_id, 'ep', 0, 0);
    UPDATE text_stats SET records = records + 1,
           tokens = tokens + max(length(NEW.summary) - 2, 0) + max(length(NEW.keywords) - 2, 0)
     WHERE agent_id = NEW.agent_id AND kind = 'ep';
END;
"#;

/// Version 3: the model each embedding was made with (NULL: not named), so that vectors of
/// two models of the same dimension are never compared.
const V3: &str = r#"
ALTER TABLE memories ADD COLUMN embedding_model TEXT;
ALTER TABLE episodes ADD COLUMN embedding_model TEXT;
"#;

/// Version 4: one spelling of a record. A mention's record and a relation's anchor, stored
/// as text (`'mem:12'`) before, are a kind (`'mem'`, `'ep'`; an anchor's `''` when there is
/// none) and an id, as a relation's ends always were; the cascade triggers compare columns.
/// (A memory's `source` stays JSON text: the id in it, which `source_id` filters compare
/// through the SQL function `source_id()`, names who a memory came from, not a record.)
/// The rows are carried over with their ids, and the relations' id counter with them (its
/// row of `sqlite_sequence`, which dropping the table would delete, is set aside under the
/// copy's name). The copies are tables of the database itself, not temporary ones: a
/// connection that has used its temporary database fails `PRAGMA wal_checkpoint` with
/// `SQLITE_LOCKED` once it is put in WAL mode.
const V4: &str = r#"
CREATE TABLE v3_mentions AS SELECT * FROM entity_mentions;
CREATE TABLE v3_relations AS SELECT * FROM relations;
UPDATE sqlite_sequence SET name = 'v3_relations' WHERE name = 'relations';
DROP TRIGGER memories_cascade;
DROP TRIGGER episodes_cascade;
DROP TABLE entity_mentions;
DROP TABLE relations;

CREATE TABLE entity_mentions (
    entity_id   INTEGER NOT NULL,
    ref_kind    TEXT NOT NULL,
    ref_id      INTEGER NOT NULL,
    declared_by TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (entity_id, ref_kind, ref_id)
);
CREATE INDEX idx_entity_mentions_ref ON entity_mentions (ref_kind, ref_id);

CREATE TABLE relations (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id     TEXT NOT NULL,
    project_id   TEXT NOT NULL DEFAULT '',
    channel      TEXT NOT NULL DEFAULT '',
    subject_kind TEXT NOT NULL,
    subject_id   INTEGER NOT NULL,
    predicate    TEXT NOT NULL,
    object_kind  TEXT NOT NULL,
    object_id    INTEGER NOT NULL,
    anchor_kind  TEXT NOT NULL DEFAULT '',
    anchor_id    INTEGER NOT NULL DEFAULT 0,
    declared_by  TEXT NOT NULL,
    declared_at  TEXT NOT NULL,
    UNIQUE (agent_id, project_id, channel,
            subject_kind, subject_id, predicate, object_kind, object_id, anchor_kind, anchor_id)
);
CREATE INDEX idx_relations_subject ON relations (subject_kind, subject_id);
CREATE INDEX idx_relations_object ON relations (object_kind, object_id);
CREATE INDEX idx_relations_anchor ON relations (anchor_kind, anchor_id);

INSERT INTO entity_mentions (entity_id, ref_kind, ref_id, declared_by, created_at)
    SELECT entity_id, substr(ref, 1, instr(ref, ':') - 1), CAST(substr(ref, instr(ref, ':') + 1) AS INTEGER), declared_by, created_at
      FROM v3_mentions;
INSERT INTO relations (id, agent_id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id,
                       anchor_kind, anchor_id, declared_by, declared_at)
    SELECT id, agent_id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id,
           substr(anchor_ref, 1, instr(anchor_ref, ':') - 1), CAST(substr(anchor_ref, instr(anchor_ref, ':') + 1) AS INTEGER),
           declared_by, declared_at
      FROM v3_relations;
DELETE FROM sqlite_sequence WHERE name = 'relations';
UPDATE sqlite_sequence SET name = 'relations' WHERE name = 'v3_relations';
DROP TABLE v3_mentions;
DROP TABLE v3_relations;

CREATE TRIGGER memories_cascade AFTER DELETE ON memories BEGIN
    DELETE FROM entity_mentions WHERE ref_kind = 'mem' AND ref_id = OLD.id;
    DELETE FROM relations
     WHERE (anchor_kind = 'mem' AND anchor_id = OLD.id)
        OR (subject_kind = 'mem' AND subject_id = OLD.id)
        OR (object_kind = 'mem' AND object_id = OLD.id);
END;
CREATE TRIGGER episodes_cascade AFTER DELETE ON episodes BEGIN
    DELETE FROM entity_mentions WHERE ref_kind = 'ep' AND ref_id = OLD.id;
    DELETE FROM relations
     WHERE (anchor_kind = 'ep' AND anchor_id = OLD.id)
        OR (subject_kind = 'ep' AND subject_id = OLD.id)
        OR (object_kind = 'ep' AND object_id = OLD.id);
END;
"#;

/// Version 5: facts in time (SPEC §5). A relation holds over `[valid_from, valid_to)`, each
/// end `''` when not declared (since always, until further notice), and may have been closed
/// by an invalidation: who closed it, when, and why. A relation's identity takes its
/// `valid_from`, so the same fact declared again from a later instant is a second row beside
/// the closed one, and the history keeps both. A record may expire (`expires_at`) or be
/// invalidated (`invalid_at`, with a reason); `''` when not. Every instant is stored in the
/// one spelling of `format_iso`, so comparing them as text compares the instants. Predicates
/// declared single-valued, per agent and scope, live in `predicates`. The relations are
/// rebuilt as version 4 rebuilt them, keeping their ids and the id counter; the cascade
/// triggers, which name only columns both versions have, stay.
const V5: &str = r#"
CREATE TABLE v4_relations AS SELECT * FROM relations;
UPDATE sqlite_sequence SET name = 'v4_relations' WHERE name = 'relations';
DROP TABLE relations;

CREATE TABLE relations (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id      TEXT NOT NULL,
    project_id    TEXT NOT NULL DEFAULT '',
    channel       TEXT NOT NULL DEFAULT '',
    subject_kind  TEXT NOT NULL,
    subject_id    INTEGER NOT NULL,
    predicate     TEXT NOT NULL,
    object_kind   TEXT NOT NULL,
    object_id     INTEGER NOT NULL,
    anchor_kind   TEXT NOT NULL DEFAULT '',
    anchor_id     INTEGER NOT NULL DEFAULT 0,
    declared_by   TEXT NOT NULL,
    declared_at   TEXT NOT NULL,
    valid_from    TEXT NOT NULL DEFAULT '',
    valid_to      TEXT NOT NULL DEFAULT '',
    closed_by     TEXT NOT NULL DEFAULT '',
    closed_at     TEXT NOT NULL DEFAULT '',
    closed_reason TEXT NOT NULL DEFAULT '',
    UNIQUE (agent_id, project_id, channel,
            subject_kind, subject_id, predicate, object_kind, object_id, anchor_kind, anchor_id, valid_from)
);
CREATE INDEX idx_relations_subject ON relations (subject_kind, subject_id);
CREATE INDEX idx_relations_object ON relations (object_kind, object_id);
CREATE INDEX idx_relations_anchor ON relations (anchor_kind, anchor_id);

INSERT INTO relations (id, agent_id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id,
                       anchor_kind, anchor_id, declared_by, declared_at)
    SELECT id, agent_id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id,
           anchor_kind, anchor_id, declared_by, declared_at
      FROM v4_relations;
DELETE FROM sqlite_sequence WHERE name = 'relations';
UPDATE sqlite_sequence SET name = 'relations' WHERE name = 'v4_relations';
DROP TABLE v4_relations;

ALTER TABLE memories ADD COLUMN expires_at TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN invalid_at TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN invalid_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE episodes ADD COLUMN expires_at TEXT NOT NULL DEFAULT '';
ALTER TABLE episodes ADD COLUMN invalid_at TEXT NOT NULL DEFAULT '';
ALTER TABLE episodes ADD COLUMN invalid_reason TEXT NOT NULL DEFAULT '';
CREATE INDEX idx_memories_expires ON memories (expires_at) WHERE expires_at <> '';
CREATE INDEX idx_episodes_expires ON episodes (expires_at) WHERE expires_at <> '';

CREATE TABLE predicates (
    agent_id    TEXT NOT NULL,
    project_id  TEXT NOT NULL DEFAULT '',
    channel     TEXT NOT NULL DEFAULT '',
    name        TEXT NOT NULL,
    single      INTEGER NOT NULL,
    declared_by TEXT NOT NULL,
    declared_at TEXT NOT NULL,
    PRIMARY KEY (agent_id, project_id, channel, name)
) WITHOUT ROWID;
"#;

/// Version 6: sync (`crate::storage::changes`). A memory that syncs has one row in
/// `sync_state`: this device's number, the counter its record ids are made of
/// (`device × 2^32 + next_record`), the next sequence number of its own changes, and the
/// last position of the log it has applied. `sync_pending` holds its changes the log has not
/// yet taken, in order: each as captured (what is sent) and, once they were applied again on
/// top of newer changes from the log, what applying them did (what undoing them undoes).
/// Neither table is synced. A memory that does not sync has no row: nothing else changes.
const V6: &str = r#"
CREATE TABLE sync_state (
    device      INTEGER NOT NULL,
    next_record INTEGER NOT NULL,
    next_seq    INTEGER NOT NULL,
    applied     INTEGER NOT NULL
);
CREATE TABLE sync_pending (
    seq    INTEGER PRIMARY KEY,
    change BLOB NOT NULL,
    effect BLOB
);
"#;

/// Every migration, in order: `MIGRATIONS[n]` takes version `n` to `n + 1`.
const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6];

/// Brings the database on `conn` to [`SCHEMA_VERSION`], in one transaction.
///
/// A fresh database gets the whole schema; a database of a newer version, or a
/// non-empty database that is not ours, is refused without being touched.
pub fn migrate(conn: &mut Connection) -> Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        return Err(Error::NewerSchema { found: version, supported: SCHEMA_VERSION });
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    if version == 0 {
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        if tables > 0 {
            return Err(Error::NotAMemory("the database has tables but no associative-memory schema version".into()));
        }
    }
    apply(conn, version as usize, MIGRATIONS.len())
}

/// Gives an empty database the schema our migrations give `version`: what an image of that
/// version is compared against on import (`src/transfer/import.rs`).
pub(crate) fn create_at_version(conn: &mut Connection, version: i64) -> Result<()> {
    apply(conn, 0, version as usize)
}

/// Runs migrations `from..to` in one transaction, stamping `user_version` after each.
fn apply(conn: &mut Connection, from: usize, to: usize) -> Result<()> {
    let tx = conn.transaction()?;
    for (i, sql) in MIGRATIONS.iter().enumerate().take(to).skip(from) {
        tx.execute_batch(sql)?;
        crate::storage::set_pragma(&tx, "user_version", i as i64 + 1)?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The statistics as a recount from the rows gives them.
    fn recount(conn: &Connection) -> Vec<(String, String, i64, i64)> {
        let sql = "SELECT agent_id, 'mem', count(*), sum(max(length(content) - 2, 0)) FROM memories GROUP BY agent_id
                   UNION ALL SELECT agent_id, 'ep', count(*), sum(max(length(summary) - 2, 0) + max(length(keywords) - 2, 0)) FROM episodes GROUP BY agent_id
                   ORDER BY 1, 2";
        rows(conn, sql)
    }

    /// The statistics the triggers keep.
    fn stats(conn: &Connection) -> Vec<(String, String, i64, i64)> {
        rows(conn, "SELECT agent_id, kind, records, tokens FROM text_stats WHERE records > 0 ORDER BY 1, 2")
    }

    fn rows(conn: &Connection, sql: &str) -> Vec<(String, String, i64, i64)> {
        conn.prepare(sql)
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    fn write(conn: &Connection, agent: &str, text: &str) {
        conn.execute("INSERT INTO memories (agent_id, content, source, timestamp, created_at) VALUES (?, ?, '{}', '', '')", [agent, text])
            .unwrap();
        conn.execute(
            "INSERT INTO episodes (agent_id, summary, keywords, created_at) VALUES (?, ?, ?, '')",
            [agent, text, &text.chars().take(3).collect::<String>()],
        )
        .unwrap();
    }

    #[test]
    fn text_statistics_are_counted_on_migration_and_kept_by_the_triggers() {
        // a version 1 database with rows, then migrated: the statistics are counted
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(V1).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        for (agent, text) in [("a", "ledger service"), ("a", "ab"), ("b", "Straße über"), ("a", "")] {
            write(&conn, agent, text);
        }
        migrate(&mut conn).unwrap();
        assert_eq!(stats(&conn), recount(&conn));
        // then kept through inserts, updates (content and agent) and deletes
        write(&conn, "c", "台帳の更新");
        conn.execute("UPDATE memories SET content = 'a much longer text' WHERE id = 1", []).unwrap();
        conn.execute("UPDATE episodes SET agent_id = 'c', keywords = 'kw' WHERE id = 2", []).unwrap();
        conn.execute("DELETE FROM memories WHERE id = 3", []).unwrap();
        conn.execute("DELETE FROM episodes WHERE agent_id = 'b'", []).unwrap();
        assert_eq!(stats(&conn), recount(&conn));
        assert_eq!(stats(&conn).len(), 4, "b's memories are gone, b's episodes too");
    }

    /// Every row of a table, each value as SQLite gives it, in rowid order.
    fn table(conn: &Connection, sql: &str) -> Vec<Vec<rusqlite::types::Value>> {
        let mut stmt = conn.prepare(sql).unwrap();
        let n = stmt.column_count();
        stmt.query_map([], |r| (0..n).map(|i| r.get(i)).collect()).unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn version_4_stores_each_ref_as_a_kind_and_an_id_and_keeps_the_relation_ids() {
        // a version 3 database with mentions and anchors of both kinds, and a last relation
        // deleted, so the id counter is ahead of the rows
        let mut conn = Connection::open_in_memory().unwrap();
        create_at_version(&mut conn, 3).unwrap();
        conn.execute_batch(
            "INSERT INTO memories (agent_id, content, source, timestamp, created_at) VALUES ('a', 'one', '{}', '', ''), ('a', 'two', '{}', '', '');
             INSERT INTO episodes (agent_id, summary, created_at) VALUES ('a', 'ep', '');
             INSERT INTO entities (agent_id, name, normalized, declared_by, created_at) VALUES ('a', 'E', 'e', 'agent', ''), ('a', 'F', 'f', 'agent', '');
             INSERT INTO entity_mentions VALUES (1, 'mem:2', 'agent', 't1'), (1, 'ep:1', 'operator', 't2'), (2, 'mem:1', 'agent', 't3');
             INSERT INTO relations (agent_id, subject_kind, subject_id, predicate, object_kind, object_id, anchor_ref, declared_by, declared_at)
                 VALUES ('a', 'entity', 1, 'knows', 'entity', 2, 'mem:2', 'agent', 't4'),
                        ('a', 'mem', 2, 'corrects', 'mem', 1, '', 'agent', 't5'),
                        ('a', 'entity', 2, 'part_of', 'entity', 1, 'ep:1', 'operator', 't6'),
                        ('a', 'entity', 2, 'gone', 'entity', 1, '', 'agent', 't7');
             DELETE FROM relations WHERE id = 4;",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let text = |t: &str| rusqlite::types::Value::Text(t.into());
        let int = rusqlite::types::Value::Integer;
        assert_eq!(
            table(&conn, "SELECT entity_id, ref_kind, ref_id, declared_by, created_at FROM entity_mentions ORDER BY entity_id, ref_kind"),
            [
                vec![int(1), text("ep"), int(1), text("operator"), text("t2")],
                vec![int(1), text("mem"), int(2), text("agent"), text("t1")],
                vec![int(2), text("mem"), int(1), text("agent"), text("t3")],
            ]
        );
        assert_eq!(
            table(&conn, "SELECT id, predicate, anchor_kind, anchor_id, declared_by, declared_at FROM relations ORDER BY id"),
            [
                vec![int(1), text("knows"), text("mem"), int(2), text("agent"), text("t4")],
                vec![int(2), text("corrects"), text(""), int(0), text("agent"), text("t5")],
                vec![int(3), text("part_of"), text("ep"), int(1), text("operator"), text("t6")],
            ]
        );
        // the next relation is 5, as it was before the migration
        conn.execute(
            "INSERT INTO relations (agent_id, subject_kind, subject_id, predicate, object_kind, object_id, declared_by, declared_at)
             VALUES ('a', 'entity', 1, 'next', 'entity', 2, 'agent', '')",
            [],
        )
        .unwrap();
        assert_eq!(conn.last_insert_rowid(), 5);
        // and the triggers compare the columns: deleting memory 2 takes its mention, the
        // relation it anchors and the one it is an end of
        conn.execute("DELETE FROM memories WHERE id = 2", []).unwrap();
        assert_eq!(table(&conn, "SELECT entity_id, ref_kind, ref_id FROM entity_mentions ORDER BY 1, 2").len(), 2);
        assert_eq!(table(&conn, "SELECT id FROM relations ORDER BY id"), [vec![int(3)], vec![int(5)]]);
        conn.execute("DELETE FROM episodes WHERE id = 1", []).unwrap();
        assert_eq!(table(&conn, "SELECT entity_id, ref_kind, ref_id FROM entity_mentions"), [vec![int(2), text("mem"), int(1)]]);
        assert_eq!(table(&conn, "SELECT id FROM relations ORDER BY id"), [vec![int(5)]]);
    }
}
