//! Every entity name and alias, normalized, held in memory for reconstruct's stage 1
//! (`crate::read::reconstruct::candidates`), which matches a query against all the names its
//! scope can read. Held, not read from SQLite on every reconstruct: that read grows with
//! the entities an agent declares, and declarations are rare next to reads.
//!
//! A cache, never a second source of truth (`crate::indexes::watch::Kept`): built from the database
//! on first use, and read again in full after the connection's update hook saw a row of
//! `entities` or `entity_aliases` written (declarations are rare next to reads). Inside a
//! transaction the mark stays, so a rollback is read back too; replacing the database
//! (`Memory::import`) drops it.

use crate::api::error::Result;
use crate::base::scope::ReadScope;
use crate::indexes::buckets::Buckets;
use crate::indexes::watch::{Kept, Watch};
use rusqlite::Connection;

/// A name or alias of an entity.
pub struct Form {
    pub entity: i64,
    /// The entity's name.
    pub name: String,
    /// This form, normalized.
    pub normalized: String,
    /// This form as declared.
    pub written: String,
    bucket: u32,
}

/// Every form, longest first, then by normalized text, then by entity: the order stage 1
/// matches them in.
#[derive(Default)]
struct Names {
    forms: Vec<Form>,
    buckets: Buckets,
}

impl Names {
    fn build(conn: &Connection) -> Result<Names> {
        let mut names = Names::default();
        let sql = "SELECT e.id, e.name, e.normalized, e.name, e.agent_id, e.project_id, e.channel FROM entities e \
                   UNION ALL SELECT e.id, e.name, a.normalized, a.alias, e.agent_id, e.project_id, e.channel \
                   FROM entity_aliases a JOIN entities e ON e.id = a.entity_id";
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (agent, project, channel): (String, String, String) = (r.get(4)?, r.get(5)?, r.get(6)?);
            let bucket = names.buckets.bucket(&agent, &project, &channel);
            names.forms.push(Form { entity: r.get(0)?, name: r.get(1)?, normalized: r.get(2)?, written: r.get(3)?, bucket });
        }
        let length = |f: &Form| f.normalized.chars().count();
        crate::base::sort::sort_by(&mut names.forms, |a, b| {
            length(b).cmp(&length(a)).then(a.normalized.cmp(&b.normalized)).then(a.entity.cmp(&b.entity))
        });
        Ok(names)
    }
}

/// The names a [`Memory`](crate::Memory) keeps: empty until the first reconstruct.
pub struct NameIndex(Kept<Names>);

impl Default for NameIndex {
    fn default() -> Self {
        NameIndex::new(Watch::default())
    }
}

impl NameIndex {
    /// An index read again whenever `watch` saw a name written.
    pub fn new(watch: Watch) -> Self {
        NameIndex(Kept::new(watch, |w| &mut w.names, Names::build))
    }

    /// After the database was replaced (import): read again on next use.
    pub fn clear(&self) {
        self.0.clear();
    }

    /// `each` over the forms `scope` can read, in matching order.
    pub fn readable<R>(&self, conn: &Connection, scope: &ReadScope, each: impl FnOnce(&[&Form]) -> R) -> Result<R> {
        self.0.with(conn, |n| {
            let readable = n.buckets.readable(conn, scope)?;
            let forms: Vec<&Form> = n.forms.iter().filter(|f| readable[f.bucket as usize]).collect();
            Ok(each(&forms))
        })?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A name written in a savepoint or a transaction that is rolled back, read in between,
    /// is gone from the next read; one written outside stays.
    #[test]
    fn rolled_back_names_are_never_kept() {
        let (conn, watch) = crate::indexes::watch::watched_database();
        let names = NameIndex::new(watch);
        let scope = ReadScope { agent_id: "a".into(), project_id: None, channel: None };
        let read =
            |conn: &Connection| names.readable(conn, &scope, |forms| forms.iter().map(|f| f.written.clone()).collect::<Vec<_>>()).unwrap();
        let declare = |conn: &Connection, name: &str| {
            conn.execute(
                "INSERT INTO entities (agent_id, name, normalized, declared_by, created_at) VALUES ('a', ?1, lower(?1), 'agent', '')",
                [name],
            )
            .unwrap();
        };
        declare(&conn, "Kubernetes");
        assert_eq!(read(&conn), ["Kubernetes"]);
        conn.execute_batch("SAVEPOINT s").unwrap();
        declare(&conn, "Ledger");
        assert_eq!(read(&conn), ["Kubernetes", "Ledger"]);
        conn.execute_batch("ROLLBACK TO s; RELEASE s").unwrap();
        assert_eq!(read(&conn), ["Kubernetes"]);
        conn.execute_batch("BEGIN").unwrap();
        conn.execute("INSERT INTO entity_aliases (entity_id, alias, normalized) VALUES (1, 'k8s', 'k8s')", []).unwrap();
        assert_eq!(read(&conn), ["Kubernetes", "k8s"]);
        conn.execute_batch("ROLLBACK").unwrap();
        assert_eq!(read(&conn), ["Kubernetes"]);
        conn.execute("INSERT INTO entity_aliases (entity_id, alias, normalized) VALUES (1, 'k8s', 'k8s')", []).unwrap();
        assert_eq!(read(&conn), ["Kubernetes", "k8s"]);
    }
}
