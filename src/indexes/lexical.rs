//! The lexical arm's index, held in memory: every record's searchable text folded as the
//! trigram tokenizer folds it, its length in tokens, its bucket (agent, project, channel)
//! and, for memories, its source id; and, per agent and word, the records holding the word
//! (`lexical::shelf`), with the words reachable from any phrase through their trigrams
//! (`lexical::vocabulary`).
//!
//! Per-agent BM25 needs, for each query phrase, how many of the agent's records contain it
//! and how often each does, which FTS5 only keeps table-wide. Reading every match's text
//! back through SQLite, or scanning all of the agent's folded texts, would cost each query
//! time linear in the records matched or held. Here a phrase of letters and digits (every
//! term a query has) can only occur inside one word of a text, so its records and
//! occurrence counts are the postings of the words that contain it,
//! summed; a phrase across words (a cue's "kaito mori") is searched for in the records
//! holding its rarest piece. A phrase matches a record exactly when it occurs in the
//! record's folded text, which is what a trigram FTS5 phrase query matches
//! (`read::recall::tests::one_agents_scores_are_fts5_bm25_exactly` compares the two, and
//! `searches_equal_a_scan_of_every_text` compares with a plain scan).
//!
//! It is a cache, never a second source of truth:
//!
//! - it is built from the database on first use (one `SELECT` per table, in id order);
//! - the connection's update hook (`crate::indexes::watch`) marks every record row written since
//!   (inserted, updated or deleted, whichever operation wrote it), and the next search
//!   reads those rows back from the database before it searches: a row that is gone is
//!   dropped, one whose text or scope changed is indexed again. Rows written inside a transaction stay marked until a
//!   search runs outside one, so a rollback (of a savepoint, or of a whole group of calls)
//!   can never leave its writes in the index;
//! - replacing the database (`Memory::import`) drops it.
//!
//! A rebuild gives the same content as the kept index (`kept_index_equals_a_rebuild`).
//!
//! Memory: each record's folded text (one byte per character for ASCII text, four
//! otherwise), about 125 bytes per record (its id map entry, bucket, source, length) and 8
//! of scratch a search reuses, and 8 bytes per distinct word of each record (its posting);
//! each distinct word once, with 4 bytes per trigram it holds, and once per agent that
//! uses it, about 60 bytes (its postings' map entry, live count and bounds).
//!
//! The FTS5 tables are still written by their triggers but no longer read by retrieval;
//! they remain the oracle the lexical arm is tested against.

mod shelf;
mod vocabulary;

use crate::api::error::Result;
use crate::api::refs::Kind;
use crate::base::scope::ReadScope;
use crate::indexes::bm25::{Folded, Phrase, Stats};
use crate::indexes::buckets::Buckets;
use crate::indexes::watch::Watch;
use rusqlite::Connection;
use shelf::{Doc, Scratch, Table};
use std::cell::RefCell;
use vocabulary::Vocabulary;

/// Every record's text.
#[derive(Default)]
struct Tables {
    memories: Table,
    episodes: Table,
    buckets: Buckets,
    vocabulary: Vocabulary,
}

/// A record row as the database holds it, borrowed from SQLite's row: building the index
/// allocates nothing per row but what the index keeps (see `shelf::Shelf::counts`).
struct Stored<'a> {
    id: i64,
    agent: &'a str,
    project: &'a str,
    channel: &'a str,
    source: Option<&'a str>,
    columns: [&'a str; 2],
    /// When it stops holding (`crate::base::as_of::record_end`).
    end: i64,
}

fn select(kind: Kind) -> &'static str {
    match kind {
        Kind::Mem => "SELECT id, agent_id, project_id, channel, source_id(source), content, '', expires_at, invalid_at FROM memories",
        Kind::Ep => "SELECT id, agent_id, project_id, channel, NULL, summary, keywords, expires_at, invalid_at FROM episodes",
    }
}

fn read_row<'a>(r: &'a rusqlite::Row) -> rusqlite::Result<Stored<'a>> {
    let not_text = |i: usize| move |e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e));
    let text = |i: usize| r.get_ref(i)?.as_str().map_err(not_text(i));
    let source = r.get_ref(4)?.as_str_or_null().map_err(not_text(4))?;
    let end = crate::base::as_of::record_end(text(7)?, text(8)?);
    Ok(Stored { id: r.get(0)?, agent: text(1)?, project: text(2)?, channel: text(3)?, source, columns: [text(5)?, text(6)?], end })
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

    fn table(&self, kind: Kind) -> &Table {
        match kind {
            Kind::Mem => &self.memories,
            Kind::Ep => &self.episodes,
        }
    }

    /// The `kind` table, with the vocabulary its postings number words by.
    fn table_mut(&mut self, kind: Kind) -> (&mut Table, &mut Vocabulary) {
        let table = match kind {
            Kind::Mem => &mut self.memories,
            Kind::Ep => &mut self.episodes,
        };
        (table, &mut self.vocabulary)
    }

    fn insert(&mut self, kind: Kind, row: Stored) {
        let bucket = self.buckets.bucket(row.agent, row.project, row.channel);
        let source = self.buckets.source(row.source);
        let agent = self.buckets.agent_of(bucket);
        let mut folded = Folded::default();
        folded.set(&row.columns);
        let (table, vocabulary) = self.table_mut(kind);
        table.put(vocabulary, row.id, agent, Doc { bucket, source, end: row.end, folded });
    }

    /// Reads the marked rows back from the database.
    fn refresh(&mut self, conn: &Connection, kind: Kind, ids: &[i64]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut stmt = conn.prepare_cached(&format!("{} WHERE id = ?", select(kind)))?;
        for &id in ids {
            let mut rows = stmt.query([id])?;
            match rows.next()? {
                Some(row) => self.insert(kind, read_row(row)?),
                None => {
                    let (table, vocabulary) = self.table_mut(kind);
                    table.remove(vocabulary, id);
                }
            }
        }
        Ok(())
    }
}

/// One lexical search.
pub struct Search<'a> {
    /// Whose records, and which of them may be returned.
    pub scope: &'a ReadScope,
    pub kind: Kind,
    /// Memories of this source id only, unless it is `""`.
    pub source_id: &'a str,
    pub phrases: &'a [Phrase],
    /// How many records to return at most.
    pub depth: usize,
    /// The read's instant in epoch ms (`crate::base::as_of::AsOf::instant_ms`): a record
    /// that ended by then is left out. `None`: every record, whatever its time.
    pub at: Option<i64>,
}

/// The index a [`Memory`](crate::Memory) keeps: empty until the first lexical search.
#[derive(Default)]
pub struct LexicalIndex {
    tables: RefCell<Option<Tables>>,
    scratch: RefCell<Scratch>,
    /// The record rows written since the index last read them back.
    watch: Watch,
}

impl LexicalIndex {
    /// An index that reads back the rows `watch` saw written.
    pub fn new(watch: Watch) -> Self {
        LexicalIndex { watch, ..Default::default() }
    }

    /// After the database was replaced (import): rebuilt on the next search.
    pub fn clear(&self) {
        *self.tables.borrow_mut() = None;
        let mut w = self.watch.lock();
        w.memories.clear();
        w.episodes.clear();
    }

    /// The index brought up to date with the database.
    fn sync(&self, conn: &Connection) -> Result<()> {
        let mut tables = self.tables.borrow_mut();
        let mut w = self.watch.lock();
        let Some(t) = tables.as_mut() else {
            *tables = Some(Tables::build(conn)?);
            w.memories.clear();
            w.episodes.clear();
            return Ok(());
        };
        let crate::indexes::watch::Written { memories, episodes, .. } = &mut *w;
        let synced = t.refresh(conn, Kind::Mem, memories.sorted()).and_then(|()| t.refresh(conn, Kind::Ep, episodes.sorted()));
        if let Err(e) = synced {
            *tables = None;
            return Err(e);
        }
        // Inside a transaction what was read may still be rolled back: keep the marks.
        if conn.is_autocommit() {
            w.memories.clear();
            w.episodes.clear();
        }
        Ok(())
    }

    /// The best `search.depth` of the agent's `search.kind` records containing any of its
    /// phrases that its scope may read, each with its BM25 score under the statistics
    /// `stats` makes from how many of the agent's records (readable or not) contain each
    /// phrase; best first, then lower id. `stats` is called only when a readable record
    /// matches.
    pub fn scored(&self, conn: &Connection, search: &Search, stats: impl FnOnce(&[i64]) -> Result<Stats>) -> Result<Vec<(f64, i64)>> {
        self.sync(conn)?;
        let tables = self.tables.borrow();
        let t = tables.as_ref().expect("synced above");
        let Some(agent) = t.buckets.agent(&search.scope.agent_id) else { return Ok(Vec::new()) };
        let readable = t.buckets.readable(conn, search.scope)?;
        let source = t.buckets.source_filter(search.source_id);
        // A record's end is one load beside its scope's, tested only when some record of the
        // agent had ended by the instant.
        let at = search.at.filter(|&at| t.table(search.kind).any_ended(agent, at));
        let admits = |bucket: u32, s: u32, end: i64| {
            readable[bucket as usize]
                && source.is_none_or(|want| want == Some(s))
                && at.is_none_or(|at| !crate::base::as_of::ended_by(end, at))
        };
        let every = source.is_none() && at.is_none() && t.buckets.every(agent, &readable);
        t.table(search.kind).scored(&t.vocabulary, &mut self.scratch.borrow_mut(), agent, search, (!every).then_some(admits), stats)
    }

    /// How many records `scope` may read, of source `source_id` (`""`: any), had expired or
    /// been invalidated by the instant of `as_of`: what a read at that instant leaves out;
    /// with `ids`, which, per kind (memories, then episodes), in id order. Looks only at the
    /// records given an end, not at every record; nothing for
    /// [`AsOf::All`](crate::base::as_of::AsOf::All).
    pub fn ended(
        &self,
        conn: &Connection,
        scope: &ReadScope,
        source_id: &str,
        as_of: &crate::base::as_of::AsOf,
        ids: bool,
    ) -> Result<(usize, [Vec<i64>; 2])> {
        let mut out: [Vec<i64>; 2] = Default::default();
        let Some(at) = as_of.instant_ms() else { return Ok((0, out)) };
        self.sync(conn)?;
        let tables = self.tables.borrow();
        let t = tables.as_ref().expect("synced above");
        let Some(agent) = t.buckets.agent(&scope.agent_id) else { return Ok((0, out)) };
        // Most memories have nothing that ended: then the scope is not even asked.
        if ![Kind::Mem, Kind::Ep].iter().any(|&kind| t.table(kind).any_ended(agent, at)) {
            return Ok((0, out));
        }
        let readable = t.buckets.readable(conn, scope)?;
        let source = t.buckets.source_filter(source_id);
        let admits = |bucket: u32, s: u32| readable[bucket as usize] && source.is_none_or(|want| want == Some(s));
        let [memories, episodes] = &mut out;
        let mut count = t.table(Kind::Mem).ended(agent, at, admits, ids.then_some(memories));
        if source.is_none() {
            count += t.table(Kind::Ep).ended(agent, at, admits, ids.then_some(episodes));
        }
        Ok((count, out))
    }

    /// Whether the agent holds any record of `kind`, readable by the search or not: a
    /// lexical fallback over an agent's records finds nothing when it holds none.
    pub fn holds(&self, conn: &Connection, agent_id: &str, kind: Kind) -> Result<bool> {
        self.sync(conn)?;
        let tables = self.tables.borrow();
        let t = tables.as_ref().expect("synced above");
        Ok(t.buckets.agent(agent_id).is_some_and(|agent| t.table(kind).holds(agent)))
    }

    /// Each record's bucket, source and folded text, for comparing the kept index with a
    /// rebuild.
    #[cfg(test)]
    fn snapshot(&self) -> Vec<(Kind, i64, [String; 3], Option<String>, String, u32, i64)> {
        let tables = self.tables.borrow();
        let Some(t) = tables.as_ref() else { return Vec::new() };
        let mut out = Vec::new();
        for kind in [Kind::Mem, Kind::Ep] {
            for (id, bucket, source, folded, tokens, end) in t.table(kind).records() {
                let (bucket, source) = t.buckets.names(bucket, source);
                out.push((kind, id, bucket, source, format!("{folded:?}"), tokens, end));
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

    use crate::base::seeded::seeded as draws;

    /// A fresh database and an index watching it.
    fn watched() -> (Connection, LexicalIndex) {
        let (conn, watch) = crate::indexes::watch::watched_database();
        (conn, LexicalIndex::new(watch))
    }

    /// After stores, updates, deletes, a rolled-back savepoint and a rolled-back
    /// transaction, searches in between, the kept index holds what a rebuild reads.
    #[test]
    fn kept_index_equals_a_rebuild() {
        let (conn, kept) = watched();
        let scope = ReadScope { agent_id: "a".into(), project_id: None, channel: None };
        let search = |conn: &Connection| {
            let search =
                Search { scope: &scope, kind: Kind::Mem, source_id: "", phrases: &[Phrase::new("ledger")], depth: usize::MAX, at: None };
            kept.scored(conn, &search, |h| Ok(Stats::new(99, 999, h))).unwrap()
        };
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
        assert_eq!(search(&conn).len(), 15);
        conn.execute("UPDATE memories SET content = 'no match here' WHERE id % 3 = 0", []).unwrap();
        conn.execute("DELETE FROM memories WHERE id % 5 = 0", []).unwrap();
        insert(&conn, "a", "台帳 ledger");
        // agent a's 15 (odd ids), less 3, 9, 15, 21, 27 (updated) and 5, 25 (deleted), plus one
        assert_eq!(search(&conn).len(), 9);
        // A savepoint rolled back after a search inside it saw its write.
        conn.execute_batch("SAVEPOINT s").unwrap();
        insert(&conn, "a", "ledger, rolled back");
        assert_eq!(search(&conn).len(), 10);
        conn.execute_batch("ROLLBACK TO s; RELEASE s").unwrap();
        assert_eq!(search(&conn).len(), 9);
        // A whole transaction rolled back.
        conn.execute_batch("BEGIN").unwrap();
        conn.execute("DELETE FROM memories WHERE agent_id = 'a'", []).unwrap();
        assert_eq!(search(&conn).len(), 0);
        conn.execute_batch("ROLLBACK").unwrap();
        assert_eq!(search(&conn).len(), 9);
        // Ends written without touching the text are kept too, and what they leave out is
        // found without a search.
        conn.execute("UPDATE memories SET expires_at = '2026-01-01T00:00:00+00:00' WHERE id % 4 = 1", []).unwrap();
        conn.execute("UPDATE memories SET invalid_at = '2025-01-01T00:00:00+00:00', invalid_reason = 'r' WHERE id % 7 = 0", []).unwrap();
        conn.execute("UPDATE memories SET expires_at = '' WHERE id = 1", []).unwrap();
        let at = crate::base::as_of::AsOf::parse(Some("2026-01-01"), 0).unwrap();
        let ended = kept.ended(&conn, &scope, "", &at, true).unwrap();
        assert_eq!(ended, (6, [vec![7, 9, 13, 17, 21, 29], vec![]]));
        let before = crate::base::as_of::AsOf::parse(Some("2025-12-31"), 0).unwrap();
        assert_eq!(kept.ended(&conn, &scope, "", &before, false).unwrap(), (2, [vec![], vec![]]));

        let rebuilt = LexicalIndex::default();
        rebuilt.sync(&conn).unwrap();
        kept.sync(&conn).unwrap();
        assert!(!kept.snapshot().is_empty());
        assert_eq!(kept.snapshot(), rebuilt.snapshot());
    }

    #[test]
    fn holds_says_whether_the_agent_has_a_live_record_of_the_kind() {
        let (conn, index) = watched();
        let holds = |agent: &str, kind| index.holds(&conn, agent, kind).unwrap();
        assert!(!holds("a", Kind::Mem), "an empty database");
        conn.execute(
            "INSERT INTO memories (agent_id, project_id, channel, content, source, timestamp, created_at) VALUES ('a', 'p', '', 'x', '{}', '', '')",
            [],
        )
        .unwrap();
        assert!(holds("a", Kind::Mem));
        assert!(!holds("a", Kind::Ep), "no episode");
        assert!(!holds("b", Kind::Mem), "another agent's record");
        conn.execute("DELETE FROM memories", []).unwrap();
        assert!(!holds("a", Kind::Mem), "deleted");
    }

    /// A phrase held by one common word and a few rare ones ("kalo" in "kalo", "kalomi",
    /// "tukalo"): the common word's postings are not read through to count the records
    /// holding it (`shelf::united`), and still each live record counts once, before and after
    /// deletes.
    #[test]
    fn a_phrase_in_a_common_word_and_rare_ones_counts_each_record_once() {
        let (conn, index) = watched();
        for i in 1..=104 {
            let text = match i {
                101.. => "tukalo x",
                _ if i % 15 == 0 => "kalo kalomi",
                _ => "kalo y",
            };
            conn.execute(
                "INSERT INTO memories (id, agent_id, project_id, channel, content, source, timestamp, created_at) VALUES (?, 'a', 'p', '', ?, '{}', '', '')",
                rusqlite::params![i, text],
            )
            .unwrap();
        }
        let scope = ReadScope { agent_id: "a".into(), project_id: None, channel: None };
        let phrases = [Phrase::new("kalo")];
        let counted = |conn: &Connection| {
            let hits = std::cell::Cell::new(0);
            let search = Search { scope: &scope, kind: Kind::Mem, source_id: "", phrases: &phrases, depth: 3, at: None };
            index
                .scored(conn, &search, |h| {
                    hits.set(h[0]);
                    Ok(Stats::new(104, 500, h))
                })
                .unwrap();
            let scan: i64 = conn.query_row("SELECT count(*) FROM memories WHERE content LIKE '%kalo%'", [], |r| r.get(0)).unwrap();
            (hits.get(), scan)
        };
        assert_eq!(counted(&conn), (104, 104));
        // Gone: "kalo kalomi" 30, 60, 90 (15, 45, 75 stay), "kalo y" 10, 20, …, 100, "tukalo" 101.
        conn.execute("DELETE FROM memories WHERE id % 10 = 0 OR id = 101", []).unwrap();
        assert_eq!(counted(&conn), (93, 93));
    }

    /// A corpus of rare, middling and very common words (some twice in a record, records
    /// of every length, two projects, a second agent, some records deleted): the best few
    /// of every search, which leaves the common words' postings unread, are the best few of
    /// a search that reads every posting, to the bit.
    #[test]
    fn best_few_equal_the_best_of_every_match() {
        let (conn, index) = watched();
        let mut next = draws(7);
        // Word i is in about one record of 2 + i²: "w0" in half of them, "w29" in one of 800.
        let word = |i: usize| format!("w{i}x");
        for _ in 0..1500 {
            let mut text = Vec::new();
            for i in 0..30 {
                if next(2 + i * i) == 0 {
                    for _ in 0..1 + next(2) * next(5) {
                        text.push(word(i));
                    }
                }
            }
            for _ in 0..next(2) * next(30) {
                text.push("filler".into());
            }
            let agent = ["a", "a", "a", "b"][next(4)];
            let project = ["p", "q"][next(2)];
            conn.execute(
                "INSERT INTO memories (agent_id, project_id, channel, content, source, timestamp, created_at) VALUES (?, ?, '', ?, '{}', '', '')",
                [agent, project, &text.join(" ")],
            )
            .unwrap();
        }
        conn.execute("DELETE FROM memories WHERE id % 9 = 0", []).unwrap();
        let pruned = shelf::PRUNED.with(|n| n.get());
        for _ in 0..300 {
            let query: Vec<Phrase> = (0..1 + next(5)).map(|_| Phrase::new(&word(next(30)))).collect();
            let scope = ReadScope { agent_id: "a".into(), project_id: [None, Some("p".to_string())][next(2)].clone(), channel: None };
            let search = Search { scope: &scope, kind: Kind::Mem, source_id: "", phrases: &query, depth: usize::MAX, at: None };
            let stats = |hits: &[i64]| Ok(Stats::new(1000, 20000, hits));
            let mut every = index.scored(&conn, &search, stats).unwrap();
            every.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
            for depth in [1, 3, 10] {
                let few = index.scored(&conn, &Search { depth, ..search }, stats).unwrap();
                let bits = |v: &[(f64, i64)]| v.iter().map(|(s, id)| (s.to_bits(), *id)).collect::<Vec<_>>();
                assert_eq!(
                    bits(&few),
                    bits(&every[..every.len().min(depth)]),
                    "{depth} of {:?}",
                    query.iter().map(|p| p.chars().iter().collect::<String>()).collect::<Vec<_>>()
                );
            }
        }
        let pruned = shelf::PRUNED.with(|n| n.get()) - pruned;
        assert!(pruned > 100, "searches that left postings unread: {pruned}");
    }

    /// Random stores, rewrites (of text and of scope) and deletes by two agents, in texts of
    /// shared syllables, accents, CJK and punctuation, one and two columns; after each step
    /// a search for random phrases (inside words, across words, of no letters) gives what a
    /// scan of every row's text gives, to the bit: the same records, the same scores.
    #[test]
    fn searches_equal_a_scan_of_every_text() {
        let (conn, index) = watched();
        let mut next = draws(11);
        let syllables = ["ka", "to", "Mi", "ra", "ü", "台", "帳", "A", "a", "9"];
        let gaps = [" ", " ", ", ", "-", "", "  ", "..."];
        let phrases = ["kat", "tomi", "ka to", "üka", "台帳", "...", "a-k", "mira", "kato mira", "aaa", "- -", "9a", "ka", "ra, mi"];
        let text = |next: &mut dyn FnMut(usize) -> usize| {
            let mut t = String::new();
            for _ in 0..next(9) {
                for _ in 0..1 + next(3) {
                    t.push_str(syllables[next(syllables.len())]);
                }
                t.push_str(gaps[next(gaps.len())]);
            }
            t
        };
        for step in 0..400 {
            let agent = ["a", "b"][next(2)];
            let project = ["p", "q"][next(2)];
            match next(10) {
                0..=5 => {
                    let t = text(&mut next);
                    if next(4) == 0 {
                        let k = text(&mut next);
                        conn.execute("INSERT INTO episodes (agent_id, project_id, channel, summary, keywords, created_at) VALUES (?, ?, '', ?, ?, '')", [agent, project, &t, &k]).unwrap();
                    } else {
                        let source = ["{}", "{\"id\":\"s\"}"][next(2)];
                        conn.execute("INSERT INTO memories (agent_id, project_id, channel, content, source, timestamp, created_at) VALUES (?, ?, '', ?, ?, '', '')", [agent, project, &t, source]).unwrap();
                    }
                }
                6 => {
                    let t = text(&mut next);
                    conn.execute("UPDATE memories SET content = ? WHERE id % 7 = ?", rusqlite::params![t, next(7) as i64]).unwrap();
                }
                7 => {
                    conn.execute(
                        "UPDATE memories SET agent_id = ?, project_id = ? WHERE id % 5 = ?",
                        rusqlite::params![agent, project, next(5) as i64],
                    )
                    .unwrap();
                }
                8 => {
                    conn.execute("DELETE FROM memories WHERE id % 6 = ?", [next(6) as i64]).unwrap();
                    conn.execute("DELETE FROM episodes WHERE id % 4 = ?", [next(4) as i64]).unwrap();
                }
                _ => {}
            }
            let query: Vec<&str> = (0..1 + next(3)).map(|_| phrases[next(phrases.len())]).collect();
            let query: Vec<Phrase> = query.iter().map(|p| Phrase::new(p)).collect();
            let scope = ReadScope { agent_id: agent.into(), project_id: [None, Some("p".to_string())][next(2)].clone(), channel: None };
            let source_id = ["", "s"][next(2)];
            for kind in [Kind::Mem, Kind::Ep] {
                let stats = |hits: &[i64]| Ok(Stats::new(50, 900, hits));
                let search = Search { scope: &scope, kind, source_id, phrases: &query, depth: usize::MAX, at: None };
                let mut got = index.scored(&conn, &search, stats).unwrap();
                got.sort_by_key(|x| x.1); // best first from the index; by id to compare
                                          // The scan: every row of the agent, read from the database and folded.
                let (table, source_sql) = match kind {
                    Kind::Mem => ("memories", "source_id(source)"),
                    Kind::Ep => ("episodes", "NULL"),
                };
                let sql = format!(
                    "SELECT id, project_id, {source_sql}, {} FROM {table} WHERE agent_id = ? ORDER BY id",
                    match kind {
                        Kind::Mem => "content, ''",
                        Kind::Ep => "summary, keywords",
                    }
                );
                let rows: Vec<(i64, String, Option<String>, String, String)> = conn
                    .prepare(&sql)
                    .unwrap()
                    .query_map([agent], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                let mut hits = vec![0i64; query.len()];
                let mut found = Vec::new();
                for (id, project, source, c0, c1) in rows {
                    let mut f = Folded::default();
                    f.set(&[&c0, &c1]);
                    let freqs: Vec<usize> = query.iter().map(|p| f.occurrences(p)).collect();
                    if freqs.iter().all(|&n| n == 0) {
                        continue;
                    }
                    for (h, &n) in hits.iter_mut().zip(&freqs) {
                        *h += i64::from(n > 0);
                    }
                    let in_scope = scope.project_id.as_ref().is_none_or(|p| *p == project);
                    let of_source = source_id.is_empty() || (kind == Kind::Mem && source.as_deref() == Some(source_id));
                    if in_scope && of_source {
                        found.push((id, f.tokens(), freqs));
                    }
                }
                let want: Vec<(f64, i64)> = if found.is_empty() {
                    Vec::new()
                } else {
                    let s = Stats::new(50, 900, &hits);
                    found.iter().map(|(id, len, freqs)| (s.score(freqs, *len), *id)).collect()
                };
                let bits = |v: &[(f64, i64)]| v.iter().map(|(s, id)| (s.to_bits(), *id)).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "step {step}, {kind:?}");
                // The best three, best first (then lower id), as a sort of the scan gives.
                let mut ranked = want.clone();
                ranked.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
                let top = index.scored(&conn, &Search { depth: 3, ..search }, stats).unwrap();
                assert_eq!(bits(&top), bits(&ranked[..ranked.len().min(3)]), "step {step}, {kind:?}, top 3");
            }
        }
    }
}
