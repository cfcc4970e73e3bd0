//! The vector arm's index: every stored vector held contiguously in memory as one byte per
//! number (`crate::indexes::quantized`), one block per record kind, model and dimension,
//! and ranked exactly (SPEC §4). A query reads only the block of its own model and
//! dimension: two models of one dimension make vectors that look alike and mean nothing to
//! each other.
//!
//! A search scores every row by the cosine of its codes, which is within the row's slack
//! of its exact cosine; it then reads back from SQLite the exact vectors of only the rows
//! whose cosine could reach the `depth`-th best (their codes' cosine plus slack reaches the
//! `depth`-th best codes' cosine less slack), and ranks those by exact cosine. No other row
//! can rank among the best, so the rows and their cosines are exactly those of a scan of
//! every exact vector; the spread recall's fusion reads is of the codes' cosines (within
//! the largest slack of the exact one, about 0.01 for 384 dimensions).
//!
//! Held here so that a query does not read every blob back through SQLite, which costs far
//! more than the dot products themselves. The index is a cache, never a second source of
//! truth:
//!
//! - it is built from the database on first use (one `SELECT` per table, in id order);
//! - [`Memory`](crate::Memory) keeps it current after every committed write that adds or
//!   removes a record with a vector (it reads the committed row back, so an update holds
//!   exactly what a rebuild would read), and drops it on `import`;
//! - any failure while updating drops it too, so the next query rebuilds it.
//!
//! A rebuild gives the same content as the kept index (rows in id order, the same floats,
//! the same squared norms): `kept_index_equals_a_rebuild` below checks it after random
//! writes and deletes.
//!
//! Isolation is not re-implemented here: rows are grouped by bucket (agent, project,
//! channel), and each call reads the buckets the one isolation clause admits
//! (`crate::indexes::buckets`).
//!
//! Memory: dim bytes per vector plus 28 bytes per row (its id and its `Row`): 0.41 MB per
//! 1,000 vectors of 384 dimensions, where 32-bit floats took 1.56 MB. The squared norm is
//! computed once at insertion from the exact vector, so a query does one dot product per row.

use crate::api::error::Result;
use crate::api::refs::Kind;
use crate::api::QueryVector;
use crate::base::best::Best;
use crate::base::dot::dot;
use crate::base::scope::ReadScope;
use crate::base::sorted::SortedMap;
use crate::indexes::buckets::Buckets;
use crate::indexes::quantized::{dot_codes, quantize};
use rusqlite::{Connection, OptionalExtension};
use std::cell::RefCell;

/// A stored embedding's numbers: little-endian `f32`s.
pub(crate) fn decode(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
}

/// Cosine of the query (norm `qnorm`) and a stored vector with squared norm `square`.
pub fn cosine(query: &[f32], qnorm: f64, stored: &[f32], square: f32) -> f64 {
    let denom = qnorm * f64::from(square).sqrt();
    if denom == 0.0 {
        0.0
    } else {
        f64::from(dot(query, stored)) / denom
    }
}

/// The Euclidean norm of a query, in f64.
pub fn norm(v: &[f32]) -> f64 {
    v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt()
}

/// What the index keeps of one row besides its id and codes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Row {
    /// `x · x`, by [`dot`], of the exact vector.
    square: f32,
    /// Its bucket number (`crate::indexes::buckets`).
    bucket: u32,
    /// Its source number, or [`crate::indexes::buckets::NO_SOURCE`].
    source: u32,
    /// The value of one of its codes.
    step: f32,
    /// How far the cosine of its codes can be from its exact cosine.
    slack: f32,
}

/// The rows of one record kind, model and dimension, in id order.
#[derive(Debug, Default, Clone, PartialEq)]
struct Block {
    /// Kept apart from `rows`, which are found by id.
    ids: Vec<i64>,
    rows: Vec<Row>,
    /// The vectors' codes, `dim` per row, back to back.
    codes: Vec<i8>,
}

impl Block {
    /// Room for `n` more rows of `dim` numbers.
    fn reserve(&mut self, n: usize, dim: usize) {
        self.ids.reserve_exact(n);
        self.rows.reserve_exact(n);
        self.codes.reserve_exact(n * dim);
    }

    /// The cosine of row `i`'s codes with the query (norm `qnorm`).
    #[inline(always)]
    fn approximate(&self, i: usize, dim: usize, query: &[f32], qnorm: f64) -> f64 {
        let row = &self.rows[i];
        let denom = qnorm * f64::from(row.square).sqrt();
        if denom == 0.0 {
            0.0
        } else {
            f64::from(row.step * dot_codes(query, &self.codes[i * dim..(i + 1) * dim])) / denom
        }
    }
}

/// Every vector of the database, by record kind, model (`None`: not named) and dimension.
#[derive(Debug, Default)]
struct Arena {
    /// A few entries (one per kind, model and dimension): a sorted list, not a B-tree of its own type.
    blocks: SortedMap<(Kind, Option<String>, usize), Block>,
    buckets: Buckets,
}

/// A row as the database holds it.
struct Stored {
    kind: Kind,
    id: i64,
    agent: String,
    project: String,
    channel: String,
    source: Option<String>,
    vector: Vec<f32>,
    model: Option<String>,
}

fn select(kind: Kind) -> &'static str {
    match kind {
        Kind::Mem => {
            "SELECT id, agent_id, project_id, channel, source_id(source), embedding, embedding_model FROM memories \
             WHERE embedding IS NOT NULL"
        }
        Kind::Ep => "SELECT id, agent_id, project_id, channel, NULL, embedding, embedding_model FROM episodes WHERE embedding IS NOT NULL",
    }
}

fn read_row(kind: Kind, r: &rusqlite::Row) -> rusqlite::Result<Stored> {
    let blob = r.get_ref(5)?.as_blob().unwrap_or(&[]);
    Ok(Stored {
        kind,
        id: r.get(0)?,
        agent: r.get(1)?,
        project: r.get(2)?,
        channel: r.get(3)?,
        source: r.get(4)?,
        vector: decode(blob),
        model: r.get(6)?,
    })
}

impl Arena {
    fn build(conn: &Connection) -> Result<Arena> {
        let mut arena = Arena::default();
        for kind in [Kind::Mem, Kind::Ep] {
            // Each block's rows counted first (`length` reads no blob), so that its lists are
            // allocated once at their size: grown by doubling, a block's copies held the
            // instance's memory (which never shrinks) at up to three times the block. Counted
            // here, not by SQL's GROUP BY, whose sorter held every blob (15 MB at 10k rows).
            let table = if kind == Kind::Mem { "memories" } else { "episodes" };
            let mut sizes: SortedMap<(Option<String>, usize), usize> = SortedMap::new();
            let mut stmt =
                conn.prepare(&format!("SELECT embedding_model, length(embedding) / 4 FROM {table} WHERE embedding IS NOT NULL"))?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                *sizes.entry((r.get(0)?, r.get::<_, i64>(1)? as usize)).or_default() += 1;
            }
            for ((model, dim), n) in sizes {
                arena.blocks.entry((kind, model, dim)).or_default().reserve(n, dim);
            }
            let mut stmt = conn.prepare(&format!("{} ORDER BY id", select(kind)))?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                arena.insert(read_row(kind, r)?);
            }
        }
        Ok(arena)
    }

    fn insert(&mut self, row: Stored) {
        let bucket = self.buckets.bucket(&row.agent, &row.project, &row.channel);
        let source = self.buckets.source(row.source.as_deref());
        let dim = row.vector.len();
        let block = self.blocks.entry((row.kind, row.model, dim)).or_default();
        // Ids only grow, so this is the end but for a row written back after a failure.
        let at = block.ids.partition_point(|&id| id < row.id);
        if block.ids.get(at) == Some(&row.id) {
            return;
        }
        let quantized = quantize(&row.vector);
        let square = dot(&row.vector, &row.vector);
        block.ids.insert(at, row.id);
        block.rows.insert(at, Row { square, bucket, source, step: quantized.step, slack: quantized.slack });
        block.codes.splice(at * dim..at * dim, quantized.codes);
    }

    fn remove(&mut self, kind: Kind, id: i64) {
        for ((k, _, dim), block) in self.blocks.iter_mut() {
            if *k != kind {
                continue;
            }
            if let Ok(at) = block.ids.binary_search(&id) {
                block.ids.remove(at);
                block.rows.remove(at);
                block.codes.drain(at * dim..(at + 1) * dim);
            }
        }
        self.blocks.retain(|_, b| !b.ids.is_empty());
    }
}

/// Exact cosines with the query of rows read back from the database.
struct Exact<'a> {
    conn: &'a Connection,
    query: &'a [f32],
    qnorm: f64,
}

impl<'a> Exact<'a> {
    fn new(conn: &'a Connection, query: &'a [f32], qnorm: f64) -> Self {
        Exact { conn, query, qnorm }
    }

    /// The exact cosine of record `kind:id`, whose squared norm is `square`; `None` if it is
    /// gone (the index is kept in step, so it is not).
    fn cosine(&self, kind: Kind, id: i64, square: f32) -> Result<Option<f64>> {
        let sql = match kind {
            Kind::Mem => "SELECT embedding FROM memories WHERE id = ?",
            Kind::Ep => "SELECT embedding FROM episodes WHERE id = ?",
        };
        let vector = self.conn.prepare_cached(sql)?.query_row([id], |r| Ok(decode(r.get_ref(0)?.as_blob().unwrap_or(&[])))).optional()?;
        Ok(vector.map(|v| cosine(self.query, self.qnorm, &v, square)))
    }
}

/// One vector search.
pub struct Search<'a> {
    /// What the call may read.
    pub scope: &'a ReadScope,
    /// `''`, or the one source id whose memories are read (episodes are then not read).
    pub source_id: &'a str,
    /// The query vector.
    pub query: QueryVector<'a>,
    /// Rows to return.
    pub depth: usize,
    /// Records whose cosine is wanted whatever their rank (recall's lexical rows: its
    /// fusion scores every candidate against the query, not only the best `depth`).
    pub also: &'a [(Kind, i64)],
    /// Per kind (memories, episodes), the ids, in order, of the records the read's instant
    /// leaves out (`crate::indexes::lexical::LexicalIndex::ended`): never compared nor counted.
    pub ended: &'a [Vec<i64>; 2],
}

/// Readable records a search did not compare with the query.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// Stored with a vector of the query's model but another dimension.
    pub dimension: usize,
    /// Stored with a vector of another model (a named one when the query's is not, or
    /// the reverse).
    pub model: usize,
}

/// The best rows of a search, and the readable records it skipped.
#[derive(Debug, Default, PartialEq)]
pub struct Found {
    /// `(cosine, kind, id)`, best first; ties by kind (memories first), then lower id.
    pub rows: Vec<(f64, Kind, i64)>,
    /// `(cosine, kind, id)` of each record of [`Search::also`] compared (found by id in its
    /// block, so asking costs a lookup, not a pass), memories first, each kind in `also`'s
    /// order; none when the query has no floats (every cosine is then 0).
    pub also: Vec<(f64, Kind, i64)>,
    /// Mean and standard deviation of the cosine over every row compared (0 and 0 for
    /// none), in the one canonical order of the index (block, then id): recall's fusion
    /// reads a cosine as standard deviations above this mean.
    pub spread: (f64, f64),
    /// Readable records of another model or dimension.
    pub skipped: Skipped,
}

/// The index a [`Memory`](crate::Memory) keeps: empty until the first vector search.
#[derive(Debug, Default)]
pub struct VectorIndex {
    arena: RefCell<Option<Arena>>,
}

impl VectorIndex {
    fn with<T>(&self, conn: &Connection, f: impl FnOnce(&Arena) -> Result<T>) -> Result<T> {
        if self.arena.borrow().is_none() {
            let built = Arena::build(conn)?;
            *self.arena.borrow_mut() = Some(built);
        }
        f(self.arena.borrow().as_ref().expect("built above"))
    }

    /// After a committed write of record `kind:id`: adds its vector, if it has one and the
    /// index is built. On failure the index is dropped (rebuilt on the next search).
    pub fn stored(&self, conn: &Connection, kind: Kind, id: i64) {
        let mut arena = self.arena.borrow_mut();
        let Some(a) = arena.as_mut() else { return };
        let sql = format!("{} AND id = ?", select(kind));
        match conn.query_row(&sql, [id], |r| read_row(kind, r)).optional() {
            Ok(Some(row)) => a.insert(row),
            Ok(None) => {}
            Err(_) => *arena = None,
        }
    }

    /// After a committed delete of record `kind:id`.
    pub fn removed(&self, kind: Kind, id: i64) {
        if let Some(a) = self.arena.borrow_mut().as_mut() {
            a.remove(kind, id);
        }
    }

    /// After the database was replaced (import): rebuilt on the next search.
    pub fn clear(&self) {
        *self.arena.borrow_mut() = None;
    }

    /// The `depth` readable rows closest to the query by exact cosine (see the module).
    pub fn search(&self, conn: &Connection, s: &Search) -> Result<Found> {
        self.with(conn, |arena| {
            let readable = &arena.buckets.readable(conn, s.scope)?;
            let source = arena.buckets.source_filter(s.source_id);
            let query = s.query.vector;
            let qnorm = norm(query);
            let mut found = Found::default();
            // The blocks the query compares with, and which of their rows it may read.
            let mut compared = Vec::new();
            for ((kind, model, dim), block) in &arena.blocks {
                let (kind, dim) = (*kind, *dim);
                if kind == Kind::Ep && source.is_some() {
                    continue;
                }
                // The rows of records that ended, marked once per block: nothing to mark
                // (and nothing more per row to test) when none did.
                let ended = &s.ended[kind as usize];
                let mut out = Vec::new();
                if !ended.is_empty() {
                    out.resize(block.ids.len(), false);
                    for id in ended {
                        if let Ok(i) = block.ids.binary_search(id) {
                            out[i] = true;
                        }
                    }
                }
                let admits = move |i: usize| {
                    readable[block.rows[i].bucket as usize]
                        && source.is_none_or(|src| src == Some(block.rows[i].source))
                        && (out.is_empty() || !out[i])
                };
                let other_model = model.as_deref() != s.query.model;
                if other_model || dim != query.len() {
                    let n = (0..block.ids.len()).filter(|&i| admits(i)).count();
                    *if other_model { &mut found.skipped.model } else { &mut found.skipped.dimension } += n;
                    continue;
                }
                compared.push((kind, dim, block, admits));
            }
            // The codes' cosine of every row compared, in the index's order (block, then id),
            // and the `depth`-th best of their lower bounds: the bar a row's exact cosine must
            // be able to reach.
            let mut cosines = Vec::new();
            let mut lower = Best::new(s.depth);
            for (kind, dim, block, admits) in &compared {
                for i in (0..block.ids.len()).filter(|&i| admits(i)) {
                    let c = block.approximate(i, *dim, query, qnorm);
                    cosines.push(c);
                    let floor = (c - f64::from(block.rows[i].slack), (*kind, block.ids[i]));
                    if lower.wants(&floor) {
                        lower.keep(floor);
                    }
                }
            }
            let bar = lower.least();
            let exact = Exact::new(conn, query, qnorm);
            let mut best = Best::new(s.depth);
            // The rows whose exact cosine could reach the bar: `(bound, (kind, id), square)`.
            let mut candidates = Vec::new();
            let mut at = 0;
            for (kind, dim, block, admits) in &compared {
                for i in (0..block.ids.len()).filter(|&i| admits(i)) {
                    let bound = cosines[at] + f64::from(block.rows[i].slack);
                    if *dim == 0 {
                        // No floats to compare: every such row scores 0 (as a zero vector does).
                        best.offer((0.0, (*kind, block.ids[i])));
                    } else if bound >= bar {
                        candidates.push((bound, (*kind, block.ids[i]), block.rows[i].square));
                    }
                    at += 1;
                }
                if *dim == 0 {
                    continue;
                }
                for &(k, id) in s.also {
                    if let (true, Ok(i)) = (k == *kind, block.ids.binary_search(&id)) {
                        if admits(i) {
                            if let Some(c) = exact.cosine(*kind, id, block.rows[i].square)? {
                                found.also.push((c, *kind, id));
                            }
                        }
                    }
                }
            }
            // Read highest bound first: once the best kept are `depth` and a bound is below the
            // last of them, no later row can be kept either.
            crate::base::sort::sort_by(&mut candidates, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            for (bound, (kind, id), square) in candidates {
                if bound < best.least() {
                    break;
                }
                if let Some(c) = exact.cosine(kind, id, square)? {
                    best.offer((c, (kind, id)));
                }
            }
            // Two plain passes in the index's order (block, then id), which a rebuild keeps:
            // the same records give the same bits.
            let n = cosines.len() as f64;
            let (mut sum, mut squares) = (0.0f64, 0.0f64);
            for c in &cosines {
                sum += c;
            }
            let mean = sum / n;
            for c in &cosines {
                squares += (c - mean) * (c - mean);
            }
            if n > 0.0 {
                found.spread = (mean, (squares / n).sqrt());
            }
            found.rows = best.0.into_iter().map(|(score, (kind, id))| (score, kind, id)).collect();
            Ok(found)
        })
    }

    /// A plain dot-product loop over the codes of every vector of dimension `query.len()`,
    /// whatever its record or scope: the floor the search is measured against
    /// (`plain_scan_ms` in the scale bench). Returns the sum of the dot products, so the loop
    /// cannot be elided.
    pub fn plain_scan(&self, conn: &Connection, query: &[f32]) -> Result<f32> {
        self.with(conn, |arena| {
            let mut sum = 0.0f32;
            for ((_, _, dim), block) in &arena.blocks {
                let dim = *dim;
                if dim == query.len() && dim > 0 {
                    for codes in block.codes.chunks_exact(dim) {
                        sum += dot_codes(query, codes);
                    }
                }
            }
            Ok(sum)
        })
    }

    /// The index's content with strings resolved, in a canonical order, for comparing a
    /// kept index with a rebuild.
    #[cfg(test)]
    #[allow(clippy::type_complexity)]
    fn snapshot(&self) -> Option<Vec<(Kind, i64, [String; 3], Option<String>, Option<String>, Vec<u32>, u32)>> {
        let arena = self.arena.borrow();
        let a = arena.as_ref()?;
        let mut out = Vec::new();
        for ((kind, model, dim), b) in &a.blocks {
            for (i, &id) in b.ids.iter().enumerate() {
                let row = b.rows[i];
                let (bucket, source) = a.buckets.names(row.bucket, row.source);
                let mut bits: Vec<u32> = b.codes[i * dim..(i + 1) * dim].iter().map(|&c| c as u8 as u32).collect();
                bits.extend([row.step.to_bits(), row.slack.to_bits()]);
                out.push((*kind, id, bucket, source, model.clone(), bits, row.square.to_bits()));
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FixedClock, Memory};
    use serde_json::json;

    fn vector(seed: u64, dim: usize) -> Vec<f32> {
        let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        (0..dim)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5
            })
            .collect()
    }

    /// Stores, archives and deletes in random order, with vectors of two dimensions and two
    /// models (one not named) and none, over two agents, projects and sources; after every step the kept index equals
    /// an index rebuilt from the database.
    #[test]
    fn kept_index_equals_a_rebuild() {
        let mut mem = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(0))).unwrap();
        let mut seed = 11u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let q = vector(99, 8);
        let scope = ReadScope { agent_id: "a".into(), project_id: None, channel: None };
        let query = QueryVector { vector: &q, model: None };
        let search = |mem: &Memory| {
            mem.vectors
                .search(&mem.conn, &Search { scope: &scope, source_id: "", query, depth: 5, also: &[], ended: &Default::default() })
                .unwrap()
        };
        search(&mem);
        let mut ids: Vec<(Kind, i64)> = Vec::new();
        for step in 0..120 {
            let agent = ["a", "b"][next(2) as usize];
            let project = ["", "p"][next(2) as usize];
            let mut args = json!({"agent_id": agent, "project_id": project});
            match next(8) {
                0 if !ids.is_empty() => {
                    let (kind, id) = ids.remove(next(ids.len() as u64) as usize);
                    let (tool, field) = if kind == Kind::Mem { ("delete_memory", "memory_id") } else { ("delete_episode", "episode_id") };
                    for agent in ["a", "b"] {
                        let _ = mem.call(tool, &json!({"agent_id": agent, field: id}));
                    }
                }
                1 => {
                    args["summary"] = json!(format!("episode {step}"));
                    args["history"] = json!([]);
                    args["embedding"] = json!(vector(step, 8));
                    let r = mem.call("archive_episode", &args).unwrap();
                    ids.push((Kind::Ep, r["episode_id"].as_i64().unwrap()));
                }
                _ => {
                    args["content"] = json!(format!("memory {step}"));
                    let source = ["u1", "u2"][next(2) as usize];
                    args["source"] = json!({"type": "User", "id": source, "name": ""});
                    match next(4) {
                        0 => args["embedding"] = json!(vector(step, 8)),
                        1 => args["embedding"] = json!(vector(step, 4)),
                        2 => {
                            args["embedding"] = json!(vector(step, 8));
                            args["embedding_model"] = json!("m");
                        }
                        _ => {}
                    }
                    let r = mem.call("store", &args).unwrap();
                    ids.push((Kind::Mem, r["id"].as_i64().unwrap()));
                }
            }
            let kept = mem.vectors.snapshot();
            assert!(kept.is_some(), "the index stays built across writes");
            let rebuilt = VectorIndex::default();
            rebuilt.plain_scan(&mem.conn, &q).unwrap();
            assert_eq!(kept, rebuilt.snapshot(), "step {step}");
        }
        // import drops the index; the next search rebuilds it, equal again
        let bytes = mem.export().unwrap();
        mem.import(&bytes).unwrap();
        assert_eq!(mem.vectors.snapshot(), None);
        search(&mem);
        let rebuilt = VectorIndex::default();
        rebuilt.plain_scan(&mem.conn, &q).unwrap();
        assert_eq!(mem.vectors.snapshot(), rebuilt.snapshot());
    }

    /// The index ranks as a scan of every readable row in SQL does (the arm before the
    /// index), scope by scope, for a query of each model: the same rows with the same exact
    /// cosines, a spread within the largest slack of the exact one; rows of another model
    /// are skipped and counted, and so are rows of the query's model and another dimension.
    #[test]
    fn search_equals_a_scan_of_the_database() {
        let mut mem = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(0))).unwrap();
        for i in 0..200u64 {
            let (agent, project) = (["a", "b"][(i % 2) as usize], ["", "p", "q"][(i % 3) as usize]);
            let (channel, source) = (["", "c"][(i / 3 % 2) as usize], ["u1", "u2"][(i / 5 % 2) as usize]);
            let mut args = json!({"agent_id": agent, "project_id": project, "channel": channel, "content": format!("m{i}"),
                "source": {"type": "User", "id": source, "name": ""}});
            if i % 7 != 0 {
                args["embedding"] = json!(vector(i % 50, if i % 11 == 0 { 4 } else { 8 }));
                if i % 4 == 1 {
                    args["embedding_model"] = json!("m");
                }
            }
            mem.call("store", &args).unwrap();
            if i % 9 == 0 {
                let ep = json!({"agent_id": "a", "summary": "e", "history": [], "embedding": vector(i, 8)});
                mem.call("archive_episode", &ep).unwrap();
            }
        }
        let q = vector(7, 8);
        let conn = &mem.conn;
        let index = VectorIndex::default();
        let cases = [(None, None), (Some(""), None), (Some("p"), Some("c")), (None, Some(""))];
        let mut seen = Skipped::default();
        for ((project, channel), model) in cases.into_iter().flat_map(|c| [(c, None), (c, Some("m"))]) {
            for source_id in ["", "u2", "nobody"] {
                let scope = ReadScope { agent_id: "a".into(), project_id: project.map(Into::into), channel: channel.map(Into::into) };
                let mut want: Vec<(f64, Kind, i64)> = Vec::new();
                let mut skipped = Skipped::default();
                // the largest slack of a row compared: the codes' spread is within it
                let mut slack = 0.0f64;
                for kind in [Kind::Mem, Kind::Ep] {
                    if kind == Kind::Ep && !source_id.is_empty() {
                        continue;
                    }
                    let iso = scope.clause("t");
                    let mut sql = format!(
                        "SELECT t.id, t.embedding, t.embedding_model FROM {} t WHERE t.embedding IS NOT NULL AND {}",
                        if kind == Kind::Mem { "memories" } else { "episodes" },
                        iso.sql
                    );
                    let mut params = iso.params.clone();
                    if !source_id.is_empty() {
                        sql.push_str(" AND source_id(t.source) = ?");
                        params.push(rusqlite::types::Value::Text(source_id.into()));
                    }
                    sql.push_str(" ORDER BY t.id");
                    let mut stmt = conn.prepare(&sql).unwrap();
                    let mut rows = stmt.query(rusqlite::params_from_iter(params)).unwrap();
                    while let Some(r) = rows.next().unwrap() {
                        let v: Vec<f32> = r
                            .get_ref(1)
                            .unwrap()
                            .as_blob()
                            .unwrap()
                            .chunks_exact(4)
                            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                            .collect();
                        if r.get::<_, Option<String>>(2).unwrap().as_deref() != model {
                            skipped.model += 1;
                            continue;
                        }
                        if v.len() != q.len() {
                            skipped.dimension += 1;
                            continue;
                        }
                        slack = slack.max(f64::from(quantize(&v).slack));
                        want.push((cosine(&q, norm(&q), &v, dot(&v, &v)), kind, r.get(0).unwrap()));
                    }
                }
                // `want` is in the index's order here (kind, then id): the spread sums alike
                let n = want.len() as f64;
                let mean = want.iter().map(|r| r.0).sum::<f64>() / n;
                let spread = if want.is_empty() {
                    (0.0, 0.0)
                } else {
                    (mean, (want.iter().map(|r| (r.0 - mean) * (r.0 - mean)).sum::<f64>() / n).sqrt())
                };
                // every third row compared and one that is not, whatever their rank
                let also_rows: Vec<(f64, Kind, i64)> = want.iter().step_by(3).copied().collect();
                let mut also: Vec<(Kind, i64)> = also_rows.iter().map(|r| (r.1, r.2)).collect();
                also.push((Kind::Ep, i64::MAX));
                want.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
                want.truncate(10);
                let query = QueryVector { vector: &q, model };
                let got = index
                    .search(conn, &Search { scope: &scope, source_id, query, depth: 10, also: &also, ended: &Default::default() })
                    .unwrap();
                seen.model += skipped.model;
                seen.dimension += skipped.dimension;
                let case = format!("{project:?} {channel:?} {source_id:?} {model:?}");
                assert!(
                    (got.spread.0 - spread.0).abs() <= slack && (got.spread.1 - spread.1).abs() <= slack,
                    "{case}: {:?} {spread:?}",
                    got.spread
                );
                let found = Found { rows: want, also: also_rows, spread: got.spread, skipped };
                assert_eq!(got, found, "{case}");
            }
        }
        assert!(seen.model > 0 && seen.dimension > 0, "both kinds of skip were exercised: {seen:?}");
    }

    /// Rows whose exact cosines differ by less than the codes can tell apart (the query
    /// plus noise far smaller than a code's step) rank by exact cosine, as a scan of their
    /// exact vectors ranks them, at every depth.
    #[test]
    fn rows_closer_than_the_codes_tell_apart_rank_exactly() {
        let mut mem = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(0))).unwrap();
        let q = vector(3, 16);
        let mut want = Vec::new();
        for i in 0..300u64 {
            let noise = vector(1000 + i, 16);
            let v: Vec<f32> = q.iter().zip(&noise).map(|(x, n)| x + n * 0.01).collect();
            let id =
                mem.call("store", &json!({"agent_id": "a", "content": format!("m{i}"), "embedding": v})).unwrap()["id"].as_i64().unwrap();
            want.push((cosine(&q, norm(&q), &v, dot(&v, &v)), Kind::Mem, id));
        }
        want.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)));
        let scope = ReadScope { agent_id: "a".into(), project_id: None, channel: None };
        for depth in [1, 5, 40] {
            let search = Search {
                scope: &scope,
                source_id: "",
                query: QueryVector { vector: &q, model: None },
                depth,
                also: &[],
                ended: &Default::default(),
            };
            let got = mem.vectors.search(&mem.conn, &search).unwrap();
            assert_eq!(got.rows, want[..depth], "depth {depth}");
        }
    }
}
