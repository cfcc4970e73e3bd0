//! The lexical arm's text held in memory: every record's searchable text folded as the
//! trigram tokenizer folds it, with its length in tokens, its bucket (agent, project,
//! channel) and, for memories, its source id, in id order per record kind.
//!
//! Before this index the arm asked FTS5 for every record matching any query phrase and read
//! each match's text back through SQLite to count occurrences (per-agent BM25 needs the
//! counts, which FTS5 only keeps table-wide): on the `bench_1000` replay FTS5's phrase
//! matching over trigram position lists and the row reads were 64 % of all the instructions
//! of a reconstruct (callgrind). Here a query scans the agent's folded texts with a SIMD
//! substring search (`crate::bm25::Folded`) and reads nothing back. A phrase matches a
//! record exactly when it occurs in the record's folded text, which is what a trigram
//! FTS5 phrase query matches (`recall::tests::one_agents_scores_are_fts5_bm25_exactly`
//! compares the two).
//!
//! It is a cache, never a second source of truth:
//!
//! - it is built from the database on first use (one `SELECT` per table, in id order);
//! - an SQLite update hook marks every record row written since (inserted, updated or
//!   deleted, whichever operation wrote it), and the next search reads those rows back
//!   from the database before it scans: a row that is gone is dropped, one that changed is
//!   folded again. Rows written inside a transaction stay marked until a search runs
//!   outside one, so a rollback (of a savepoint, or of a whole group of calls) can never
//!   leave its writes in the index;
//! - replacing the database (`Memory::import`) drops it.
//!
//! A rebuild gives the same content as the kept index (`kept_index_equals_a_rebuild`).
//!
//! Memory: each record's folded text (one byte per character for ASCII text, four
//! otherwise) plus about 100 bytes per record (its map node, bucket, source, lengths).
//!
//! The FTS5 tables are still written by their triggers but no longer read by retrieval;
//! they remain the oracle the lexical arm is tested against.

use crate::bm25::{Folded, Phrase};
use crate::buckets::Buckets;
use crate::error::Result;
use crate::refs::Kind;
use crate::scope::ReadScope;
use rusqlite::{Connection, OptionalExtension};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

/// One record's searchable text.
struct Entry {
    /// Its bucket number (`crate::buckets`).
    bucket: u32,
    /// Its source number, or [`crate::buckets::NO_SOURCE`].
    source: u32,
    folded: Folded,
    tokens: usize,
}

/// Every record's text.
#[derive(Default)]
struct Tables {
    memories: BTreeMap<i64, Entry>,
    episodes: BTreeMap<i64, Entry>,
    buckets: Buckets,
}

/// A record row as the database holds it.
struct Stored {
    id: i64,
    agent: String,
    project: String,
    channel: String,
    source: Option<String>,
    columns: [String; 2],
}

fn select(kind: Kind) -> &'static str {
    match kind {
        Kind::Mem => "SELECT id, agent_id, project_id, channel, source_id(source), content, '' FROM memories",
        Kind::Ep => "SELECT id, agent_id, project_id, channel, NULL, summary, keywords FROM episodes",
    }
}

fn read_row(r: &rusqlite::Row) -> rusqlite::Result<Stored> {
    Ok(Stored {
        id: r.get(0)?,
        agent: r.get(1)?,
        project: r.get(2)?,
        channel: r.get(3)?,
        source: r.get(4)?,
        columns: [r.get(5)?, r.get(6)?],
    })
}

impl Tables {
    fn build(conn: &Connection) -> Result<Tables> {
        let mut tables = Tables::default();
        for kind in [Kind::Mem, Kind::Ep] {
            let mut stmt = conn.prepare(&format!("{} ORDER BY id", select(kind)))?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                tables.insert(kind, read_row(r)?);
            }
        }
        Ok(tables)
    }

    fn table(&mut self, kind: Kind) -> &mut BTreeMap<i64, Entry> {
        match kind {
            Kind::Mem => &mut self.memories,
            Kind::Ep => &mut self.episodes,
        }
    }

    fn insert(&mut self, kind: Kind, row: Stored) {
        let bucket = self.buckets.bucket(&row.agent, &row.project, &row.channel);
        let source = self.buckets.source(row.source.as_deref());
        let mut folded = Folded::default();
        folded.set(&[&row.columns[0], &row.columns[1]]);
        let tokens = folded.tokens();
        self.table(kind).insert(row.id, Entry { bucket, source, folded, tokens });
    }

    /// Reads the marked rows back from the database.
    fn refresh(&mut self, conn: &Connection, kind: Kind, ids: &BTreeSet<i64>) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut stmt = conn.prepare_cached(&format!("{} WHERE id = ?", select(kind)))?;
        for &id in ids {
            match stmt.query_row([id], read_row).optional()? {
                Some(row) => self.insert(kind, row),
                None => {
                    self.table(kind).remove(&id);
                }
            }
        }
        Ok(())
    }
}

/// The rows written since the index last read them back, per record table.
#[derive(Debug, Default)]
struct Marked {
    memories: BTreeSet<i64>,
    episodes: BTreeSet<i64>,
}

/// What one lexical search found among the agent's records.
#[derive(Debug, Default, PartialEq)]
pub struct Matches {
    /// For each phrase, how many of the agent's records (readable or not) contain it.
    pub hits: Vec<i64>,
    /// The readable records containing a phrase, in id order: id, length in tokens.
    pub readable: Vec<(i64, usize)>,
    /// Each readable record's occurrences of every phrase, one record after another.
    pub counts: Vec<usize>,
}

impl Matches {
    /// The occurrences of every phrase in the `i`-th readable record.
    pub fn counts(&self, i: usize) -> &[usize] {
        let n = self.hits.len();
        &self.counts[i * n..(i + 1) * n]
    }
}

/// The index a [`Memory`](crate::Memory) keeps: empty until the first lexical search.
#[derive(Default)]
pub struct LexicalIndex {
    tables: RefCell<Option<Tables>>,
    /// Shared with the connection's update hook.
    marked: Arc<Mutex<Marked>>,
}

impl LexicalIndex {
    /// Marks the record rows `conn` writes from now on, for the next search to read back.
    /// Called on every connection the memory holds (a new one after `import`).
    pub fn watch(&self, conn: &mut Connection) -> Result<()> {
        let marked = Arc::clone(&self.marked);
        conn.update_hook(Some(move |_: rusqlite::hooks::Action, _: &str, table: &str, id: i64| {
            let mut m = marked.lock().unwrap_or_else(|e| e.into_inner());
            match table {
                "memories" => m.memories.insert(id),
                "episodes" => m.episodes.insert(id),
                _ => false,
            };
        }))?;
        Ok(())
    }

    /// After the database was replaced (import): rebuilt on the next search.
    pub fn clear(&self) {
        *self.tables.borrow_mut() = None;
        *self.marked.lock().unwrap_or_else(|e| e.into_inner()) = Marked::default();
    }

    /// The index brought up to date with the database.
    fn sync(&self, conn: &Connection) -> Result<()> {
        let mut tables = self.tables.borrow_mut();
        let mut marked = self.marked.lock().unwrap_or_else(|e| e.into_inner());
        let Some(t) = tables.as_mut() else {
            *tables = Some(Tables::build(conn)?);
            *marked = Marked::default();
            return Ok(());
        };
        let synced = t.refresh(conn, Kind::Mem, &marked.memories).and_then(|()| t.refresh(conn, Kind::Ep, &marked.episodes));
        if let Err(e) = synced {
            *tables = None;
            return Err(e);
        }
        // Inside a transaction what was read may still be rolled back: keep the marks.
        if conn.is_autocommit() {
            *marked = Marked::default();
        }
        Ok(())
    }

    /// The agent's `kind` records containing any of `phrases`: how many contain each
    /// phrase, and the ones `scope` may read (memories of source `source_id` only, unless
    /// it is `""`) with their occurrence counts and lengths.
    pub fn matches(&self, conn: &Connection, scope: &ReadScope, kind: Kind, source_id: &str, phrases: &[Phrase]) -> Result<Matches> {
        self.sync(conn)?;
        let tables = self.tables.borrow();
        let t = tables.as_ref().expect("synced above");
        let mut found = Matches { hits: vec![0; phrases.len()], readable: Vec::new(), counts: Vec::new() };
        let Some(agent) = t.buckets.agent(&scope.agent_id) else { return Ok(found) };
        let readable = t.buckets.readable(conn, scope)?;
        let source = t.buckets.source_filter(source_id);
        let rows = match kind {
            Kind::Mem => &t.memories,
            Kind::Ep => &t.episodes,
        };
        let mut freqs = vec![0; phrases.len()];
        for (&id, e) in rows {
            if t.buckets.agent_of(e.bucket) != agent {
                continue;
            }
            let mut any = false;
            for (f, p) in freqs.iter_mut().zip(phrases) {
                *f = e.folded.occurrences(p);
                any |= *f > 0;
            }
            if !any {
                continue;
            }
            for (hits, &f) in found.hits.iter_mut().zip(&freqs) {
                *hits += i64::from(f > 0);
            }
            if readable[e.bucket as usize] && source.is_none_or(|s| s == Some(e.source)) {
                found.readable.push((id, e.tokens));
                found.counts.extend_from_slice(&freqs);
            }
        }
        Ok(found)
    }

    /// Each record's bucket, source and folded text, for comparing the kept index with a
    /// rebuild.
    #[cfg(test)]
    fn snapshot(&self) -> Vec<(Kind, i64, [String; 3], Option<String>, String, usize)> {
        let tables = self.tables.borrow();
        let Some(t) = tables.as_ref() else { return Vec::new() };
        let mut out = Vec::new();
        for (kind, rows) in [(Kind::Mem, &t.memories), (Kind::Ep, &t.episodes)] {
            for (&id, e) in rows {
                let (bucket, source) = t.buckets.names(e.bucket, e.source);
                out.push((kind, id, bucket, source, format!("{:?}", e.folded), e.tokens));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// After stores, updates, deletes, a rolled-back savepoint and a rolled-back
    /// transaction, searches in between, the kept index holds what a rebuild reads.
    #[test]
    fn kept_index_equals_a_rebuild() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::records::register_source_id(&conn).unwrap();
        crate::schema::migrate(&mut conn).unwrap();
        let kept = LexicalIndex::default();
        kept.watch(&mut conn).unwrap();
        let scope = ReadScope { agent_id: "a".into(), project_id: None, channel: None };
        let search = |conn: &Connection| kept.matches(conn, &scope, Kind::Mem, "", &[Phrase::new("ledger")]).unwrap();
        let insert = |conn: &Connection, agent: &str, text: &str| {
            conn.execute(
                "INSERT INTO memories (agent_id, project_id, channel, content, source, timestamp, created_at) \
                 VALUES (?, 'p', '', ?, '{\"id\":\"kaito\"}', '', '')",
                [agent, text],
            )
            .unwrap();
        };
        for i in 0..30 {
            insert(&conn, ["a", "b"][i % 2], &format!("Ledger note {i} über Straße"));
        }
        conn.execute("INSERT INTO episodes (agent_id, project_id, channel, summary, keywords, created_at) VALUES ('a', '', '', 'ledger retro', 'x', '')", [])
            .unwrap();
        assert_eq!(search(&conn).readable.len(), 15);
        conn.execute("UPDATE memories SET content = 'no match here' WHERE id % 3 = 0", []).unwrap();
        conn.execute("DELETE FROM memories WHERE id % 5 = 0", []).unwrap();
        insert(&conn, "a", "台帳 ledger");
        // agent a's 15 (odd ids), less 3, 9, 15, 21, 27 (updated) and 5, 25 (deleted), plus one
        assert_eq!(search(&conn).readable.len(), 9);
        // A savepoint rolled back after a search inside it saw its write.
        conn.execute_batch("SAVEPOINT s").unwrap();
        insert(&conn, "a", "ledger, rolled back");
        assert_eq!(search(&conn).readable.len(), 10);
        conn.execute_batch("ROLLBACK TO s; RELEASE s").unwrap();
        assert_eq!(search(&conn).readable.len(), 9);
        // A whole transaction rolled back.
        conn.execute_batch("BEGIN").unwrap();
        conn.execute("DELETE FROM memories WHERE agent_id = 'a'", []).unwrap();
        assert_eq!(search(&conn).readable.len(), 0);
        conn.execute_batch("ROLLBACK").unwrap();
        assert_eq!(search(&conn).readable.len(), 9);

        let rebuilt = LexicalIndex::default();
        rebuilt.sync(&conn).unwrap();
        kept.sync(&conn).unwrap();
        assert!(!kept.snapshot().is_empty());
        assert_eq!(kept.snapshot(), rebuilt.snapshot());
    }
}
