//! Whether anything is declared: whether the database has the association tables, and
//! whether they hold any relation and any mention. Reconstruct reads the links and the graph
//! only where there is something to read (with nothing declared it answers as without the
//! tables, invariant 2). Kept, not asked of SQLite on every call: the answer changes only
//! when a declaration is written, and reconstructs far outnumber declarations.
//!
//! Kept in memory (`crate::indexes::watch::Kept`) as the entity names are: read on first use, read
//! again after the connection's update hook saw a row of `relations` or `entity_mentions`
//! written (the mark kept inside a transaction, so that a rollback is read back too), and
//! dropped when the database is replaced (`Memory::import`). A delete the hook does not
//! see (SQLite's truncation of a whole table) can only leave it saying that something is
//! declared, which costs the reads and changes no answer. The tables themselves only
//! appear by our migrations, which run when the connection is opened.

use crate::api::error::Result;
use crate::indexes::watch::{Kept, Watch};
use rusqlite::Connection;

/// What is declared, whatever its scope.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Declared {
    /// The database has the four association tables. A database written before the graph
    /// existed has none; reconstruct then answers exactly as it would on an empty graph.
    pub tables: bool,
    pub relations: bool,
    pub mentions: bool,
}

impl Declared {
    /// What a [`Memory`](crate::Memory) keeps: read on its first reconstruct, and again
    /// whenever `watch` saw a relation or a mention written.
    pub fn kept(watch: Watch) -> Kept<Declared> {
        Kept::new(watch, |w| &mut w.declared, Declared::read)
    }

    fn read(conn: &Connection) -> Result<Declared> {
        let sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' \
                   AND name IN ('entities', 'entity_aliases', 'entity_mentions', 'relations')";
        let n: i64 = conn.prepare_cached(sql)?.query_row([], |r| r.get(0))?;
        if n != 4 {
            return Ok(Declared::default());
        }
        let sql = "SELECT EXISTS (SELECT 1 FROM relations), EXISTS (SELECT 1 FROM entity_mentions)";
        Ok(conn.prepare_cached(sql)?.query_row([], |r| Ok(Declared { tables: true, relations: r.get(0)?, mentions: r.get(1)? }))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A relation or mention written after the first read, inside a savepoint or a
    /// transaction, rolled back or kept, and deleted, is what the next read says.
    #[test]
    fn follows_every_write_and_rollback() {
        let (conn, watch) = crate::indexes::watch::watched_database();
        let declared = Declared::kept(watch);
        let read = |conn: &Connection| {
            let d = declared.with(conn, |d| *d).unwrap();
            assert!(d.tables);
            (d.relations, d.mentions)
        };
        let entity = "INSERT INTO entities (agent_id, name, normalized, declared_by, created_at) VALUES ('a', 'A', 'a', 'agent', '')";
        conn.execute(entity, []).unwrap();
        conn.execute(&entity.replace("'A', 'a'", "'B', 'b'"), []).unwrap();
        let relate =
            "INSERT INTO relations (agent_id, subject_kind, subject_id, predicate, object_kind, object_id, declared_by, declared_at) \
                      VALUES ('a', 'entity', 1, 'knows', 'entity', 2, 'agent', '')";
        let mention =
            "INSERT INTO entity_mentions (entity_id, ref_kind, ref_id, declared_by, created_at) VALUES (1, 'mem', 1, 'agent', '')";
        assert_eq!(read(&conn), (false, false));
        conn.execute_batch("SAVEPOINT s").unwrap();
        conn.execute(relate, []).unwrap();
        assert_eq!(read(&conn), (true, false));
        conn.execute_batch("ROLLBACK TO s; RELEASE s").unwrap();
        assert_eq!(read(&conn), (false, false));
        conn.execute_batch("BEGIN").unwrap();
        conn.execute(mention, []).unwrap();
        assert_eq!(read(&conn), (false, true));
        conn.execute_batch("ROLLBACK").unwrap();
        assert_eq!(read(&conn), (false, false));
        conn.execute(relate, []).unwrap();
        conn.execute(mention, []).unwrap();
        assert_eq!(read(&conn), (true, true));
        conn.execute("DELETE FROM relations WHERE predicate = 'knows'", []).unwrap();
        assert_eq!(read(&conn), (false, true));
    }

    /// A database without the association tables reads as nothing declared.
    #[test]
    fn no_tables_no_declarations() {
        let (conn, watch) = crate::indexes::watch::watched_database();
        conn.execute_batch(
            "DROP TRIGGER entities_cascade; DROP TRIGGER memories_cascade; DROP TRIGGER episodes_cascade;
             DROP TABLE entities; DROP TABLE entity_aliases; DROP TABLE entity_mentions; DROP TABLE relations;",
        )
        .unwrap();
        assert_eq!(Declared::kept(watch).with(&conn, |d| *d).unwrap(), Declared::default());
    }
}
