//! What the connection's one update hook has seen written since the in-memory indexes last
//! looked: the record rows (for `crate::indexes::lexical`), whether any entity name or alias
//! changed (for `crate::indexes::names`), and whether any relation or mention did (for
//! `crate::indexes::declared`). SQLite allows one update hook per connection, so the
//! indexes share this one; each clears only what it read, and only outside a transaction,
//! so that a rollback can never leave rolled-back writes in an index.

use crate::api::error::Result;
use rusqlite::Connection;
use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard};

/// Written since last read.
#[derive(Debug, Default)]
pub struct Written {
    pub memories: Ids,
    pub episodes: Ids,
    /// A row of `entities` or `entity_aliases` was inserted, updated or deleted.
    pub names: bool,
    /// A row of `relations` or `entity_mentions` was (`crate::indexes::declared`).
    pub declared: bool,
}

/// The ids of one table's rows written since last read, as the hook saw them: listed, then
/// sorted with their repeats dropped when read, and whenever the list has doubled since it
/// last was (so it never holds more than twice the ids it names, and the hook's cost per row
/// stays a push and, spread over the pushes, a sort). A `BTreeSet<i64>` did the same with a
/// B-tree of its own type in the wasm module; the rows come in any order (a purge deletes by
/// expiry), so a sorted list inserting each would move the list on every row.
#[derive(Debug, Default)]
pub struct Ids {
    ids: Vec<i64>,
    /// How many ids the list held after its last sort.
    sorted: usize,
}

impl Ids {
    pub fn insert(&mut self, id: i64) {
        self.ids.push(id);
        if self.ids.len() >= 2 * self.sorted.max(32) {
            self.sort();
        }
    }

    fn sort(&mut self) {
        crate::base::sort::sort(&mut self.ids);
        self.ids.dedup();
        self.sorted = self.ids.len();
    }

    /// Every id written, once, lowest first: what the `BTreeSet` iterated.
    pub fn sorted(&mut self) -> &[i64] {
        if self.sorted != self.ids.len() {
            self.sort();
        }
        &self.ids
    }

    pub fn clear(&mut self) {
        self.ids.clear();
        self.sorted = 0;
    }
}

/// Shared between the hook and the indexes.
#[derive(Clone, Default)]
pub struct Watch(Arc<Mutex<Written>>);

impl Watch {
    /// Hooks `conn`: called on every connection the memory holds (a new one after
    /// `import`).
    pub fn install(&self, conn: &mut Connection) -> Result<()> {
        let written = Arc::clone(&self.0);
        conn.update_hook(Some(move |_: rusqlite::hooks::Action, _: &str, table: &str, id: i64| {
            let mut w = written.lock().unwrap_or_else(|e| e.into_inner());
            match table {
                "memories" => w.memories.insert(id),
                "episodes" => w.episodes.insert(id),
                "entities" | "entity_aliases" => w.names = true,
                "relations" | "entity_mentions" => w.declared = true,
                _ => {}
            }
        }))?;
        Ok(())
    }

    pub fn lock(&self) -> MutexGuard<'_, Written> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A value read from the database and kept in memory: read on first use, read again after
/// the hook set its mark among [`Written`]'s, dropped by [`Kept::clear`]. The entity names
/// (`crate::indexes::names`) and whether anything is declared (`crate::indexes::declared`) are kept so.
pub struct Kept<T> {
    value: RefCell<Option<T>>,
    watch: Watch,
    mark: fn(&mut Written) -> &mut bool,
    read: fn(&Connection) -> Result<T>,
}

impl<T> Kept<T> {
    /// Read by `read`, again whenever `watch` set `mark`.
    pub fn new(watch: Watch, mark: fn(&mut Written) -> &mut bool, read: fn(&Connection) -> Result<T>) -> Self {
        Kept { value: RefCell::new(None), watch, mark, read }
    }

    /// After the database was replaced (import): read again on next use.
    pub fn clear(&self) {
        *self.value.borrow_mut() = None;
        *(self.mark)(&mut self.watch.lock()) = false;
    }

    /// `each` of the value, read first when none is kept or the kept one is marked.
    pub fn with<R>(&self, conn: &Connection, each: impl FnOnce(&T) -> R) -> Result<R> {
        let mut value = self.value.borrow_mut();
        {
            let mut w = self.watch.lock();
            let mark = (self.mark)(&mut w);
            if value.is_none() || *mark {
                // Dropped first: a read that fails leaves nothing stale to be used next time.
                *value = None;
                *value = Some((self.read)(conn)?);
                // Inside a transaction what was read may still be rolled back: keep the mark.
                if conn.is_autocommit() {
                    *mark = false;
                }
            }
        }
        Ok(each(value.as_ref().expect("read above")))
    }
}

/// A fresh in-memory database with the schema, and a watch on it.
#[cfg(test)]
pub fn watched_database() -> (Connection, Watch) {
    let mut conn = Connection::open_in_memory().unwrap();
    crate::storage::records::register_source_id(&conn).unwrap();
    crate::storage::schema::migrate(&mut conn).unwrap();
    let watch = Watch::default();
    watch.install(&mut conn).unwrap();
    (conn, watch)
}
#[cfg(test)]
mod tests {
    use super::Ids;
    use proptest::prelude::*;

    proptest! {
        /// Read at any point, the list names each id written since the last clear once, in
        /// order (what the set it replaces iterated), and holds at most twice as many.
        #[test]
        fn ids_read_as_a_set(writes in proptest::collection::vec((-40i64..40, 0u8..8), 0..300)) {
            let (mut ids, mut set) = (Ids::default(), std::collections::BTreeSet::new());
            for (id, action) in writes {
                match action {
                    0 => prop_assert_eq!(ids.sorted().to_vec(), set.iter().copied().collect::<Vec<_>>()),
                    1 if id % 5 == 0 => {
                        ids.clear();
                        set.clear();
                    }
                    _ => {
                        ids.insert(id);
                        set.insert(id);
                    }
                }
                prop_assert!(ids.ids.len() <= 2 * set.len().max(32));
            }
            prop_assert_eq!(ids.sorted().to_vec(), set.iter().copied().collect::<Vec<_>>());
        }
    }
}
