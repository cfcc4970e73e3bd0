//! One record kind's texts, a shelf per agent: each record's folded text, length and scope,
//! and, per word, the records holding it (postings). A query reads the postings of the words
//! that contain its phrases, so its cost follows the records that match, not the agent's
//! whole corpus.
//!
//! Records are numbered per shelf in the order they were added (their ordinal). A record
//! that is rewritten or deleted is marked dead in place, and its postings stay until the
//! shelf is compacted (once a quarter of it is dead): updates are rare, and a posting list
//! never has to be searched for one entry.

use super::vocabulary::Vocabulary;
use super::Search;
use crate::bm25::{Folded, Phrase, Stats};
use crate::error::Result;
use std::collections::BTreeMap;

/// A record's scope and text.
pub struct Doc {
    /// Its bucket number (`crate::buckets`).
    pub bucket: u32,
    /// Its source number, or [`crate::buckets::NO_SOURCE`].
    pub source: u32,
    pub folded: Folded,
}

/// One agent's records of one kind, by ordinal. What a search reads for every match (length,
/// scope) is held in arrays of its own, not beside the text: a search over 100k records
/// spent 45 % of its time loading a bucket number from each match's `Doc` (perf).
#[derive(Default)]
struct Shelf {
    ids: Vec<i64>,
    /// Length in trigram tokens.
    tokens: Vec<u32>,
    alive: Vec<bool>,
    buckets: Vec<u32>,
    sources: Vec<u32>,
    texts: Vec<Folded>,
    /// Per word number: (ordinal, occurrences of the word in the record), ordinals
    /// increasing.
    postings: BTreeMap<u32, Vec<(u32, u32)>>,
    dead: usize,
}

/// The shelf that holds an agent's records. Per agent, so that the statistics of a search
/// (how many records hold a phrase) are the agent's own.
fn shelf_key(agent: u32) -> u32 {
    agent
}

/// Reused between searches, so a search allocates nothing in proportion to the corpus:
/// `marks` and `acc` are zero outside a search.
#[derive(Default)]
pub struct Scratch {
    marks: Vec<u32>,
    acc: Vec<f64>,
    lists: Vec<Vec<(u32, u32)>>,
    union: Vec<u32>,
    words: Vec<(u32, u32)>,
}

impl Shelf {
    /// Appends a record; `word` numbers each of its words.
    fn add(&mut self, id: i64, doc: Doc, mut word: impl FnMut(&str) -> u32) -> u32 {
        let ord = self.ids.len() as u32;
        let mut words = Vec::new();
        doc.folded.words(|w| words.push(word(w)));
        crate::sort::sort(&mut words);
        for run in words.chunk_by(|a, b| a == b) {
            self.postings.entry(run[0]).or_default().push((ord, run.len() as u32));
        }
        self.ids.push(id);
        self.tokens.push(doc.folded.tokens() as u32);
        self.alive.push(true);
        self.buckets.push(doc.bucket);
        self.sources.push(doc.source);
        self.texts.push(doc.folded);
        ord
    }

    /// The live records in which `phrase` occurs, with how often, into `list` (in no
    /// particular order). `marks` is zero before and after.
    fn matching(&self, vocab: &Vocabulary, phrase: &Phrase, marks: &mut [u32], words: &mut Vec<(u32, u32)>, list: &mut Vec<(u32, u32)>) {
        list.clear();
        let alive = &self.alive[..];
        let chars = phrase.chars();
        let pieces: Vec<String> = chars.split(|c| !c.is_alphanumeric()).filter(|p| !p.is_empty()).map(|p| p.iter().collect()).collect();
        if let [piece] = &pieces[..] {
            if piece.chars().count() == chars.len() {
                // Letters and digits only: every occurrence is inside one word, so the
                // postings of the words containing it count them exactly.
                vocab.containing(piece, words);
                if let [(w, occ)] = words[..] {
                    // One word: each record appears once in its postings.
                    let postings = self.postings.get(&w).map_or(&[][..], Vec::as_slice);
                    list.extend(postings.iter().filter(|&&(o, _)| alive[o as usize]).map(|&(o, n)| (o, n * occ)));
                    return;
                }
                for &(w, occ) in words.iter() {
                    for &(ord, n) in self.postings.get(&w).into_iter().flatten() {
                        let o = ord as usize;
                        if !alive[o] {
                            continue;
                        }
                        if marks[o] == 0 {
                            list.push((ord, 0));
                        }
                        marks[o] += n * occ;
                    }
                }
                for e in list.iter_mut() {
                    e.1 = std::mem::take(&mut marks[e.0 as usize]);
                }
                return;
            }
        }
        // A phrase across words (a cue's "kaito mori") or of no letters at all: the records
        // holding its rarest piece, or every record, are searched.
        let mut best: Option<(usize, Vec<(u32, u32)>)> = None;
        for piece in &pieces {
            vocab.containing(piece, words);
            let postings: usize = words.iter().map(|(w, _)| self.postings.get(w).map_or(0, Vec::len)).sum();
            if best.as_ref().is_none_or(|(n, _)| postings < *n) {
                best = Some((postings, words.clone()));
            }
        }
        match best {
            Some((_, words)) => {
                for (w, _) in words {
                    for &(ord, _) in self.postings.get(&w).into_iter().flatten() {
                        let o = ord as usize;
                        if alive[o] && marks[o] == 0 {
                            marks[o] = 1;
                            list.push((ord, 0));
                        }
                    }
                }
            }
            None => list.extend((0..self.ids.len() as u32).filter(|&o| alive[o as usize]).map(|o| (o, 0))),
        }
        for e in list.iter_mut() {
            marks[e.0 as usize] = 0;
            e.1 = self.texts[e.0 as usize].occurrences(phrase) as u32;
        }
        list.retain(|e| e.1 > 0);
    }
}

/// The best records offered so far, best first: higher score, then lower id. Most offers
/// lose to the last of them with one comparison, so a search over tens of thousands of
/// matches never sorts or partitions them all (a tenth of a 100k recall in wasm).
struct Best(Vec<(f64, i64)>, usize);

/// Whether `a` ranks before `b`: a higher score, then a lower id. Inlined by force: the
/// wasm module is built for size, and there this stayed a call per match.
#[inline(always)]
fn before(a: &(f64, i64), b: &(f64, i64)) -> bool {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).is_lt()
}

impl Best {
    fn new(depth: usize) -> Self {
        Best(Vec::with_capacity(depth.min(100) + 1), depth)
    }

    /// Whether `x` would be kept: one comparison with the last kept, most of the time.
    #[inline(always)]
    fn wants(&self, x: &(f64, i64)) -> bool {
        self.0.len() < self.1 || self.0.last().is_some_and(|last| before(x, last))
    }

    /// Keeps `x`, which [`Best::wants`].
    fn keep(&mut self, x: (f64, i64)) {
        let at = self.0.partition_point(|y| before(y, &x));
        self.0.insert(at, x);
        self.0.truncate(self.1);
    }
}

/// Every record of one kind, on its agent's shelf.
#[derive(Default)]
pub struct Table {
    shelves: BTreeMap<u32, Shelf>,
    /// Where each live record is: shelf, ordinal.
    by_id: BTreeMap<i64, (u32, u32)>,
}

impl Table {
    /// Holds record `id` of agent `agent` as `doc`, replacing what it held before (nothing
    /// changes when the text and scope are the same: a record's other columns, such as its
    /// embedding, are written without touching its postings).
    pub fn put(&mut self, vocab: &mut Vocabulary, id: i64, agent: u32, doc: Doc) {
        let key = shelf_key(agent);
        if let Some(&(k, ord)) = self.by_id.get(&id) {
            let (held, o) = (&self.shelves[&k], ord as usize);
            if k == key && held.buckets[o] == doc.bucket && held.sources[o] == doc.source && held.texts[o] == doc.folded {
                return;
            }
            self.remove(vocab, id);
        }
        let ord = self.shelves.entry(key).or_default().add(id, doc, |w| vocab.intern(w));
        self.by_id.insert(id, (key, ord));
    }

    /// Drops record `id`, if held.
    pub fn remove(&mut self, vocab: &Vocabulary, id: i64) {
        let Some((key, ord)) = self.by_id.remove(&id) else { return };
        let shelf = self.shelves.get_mut(&key).expect("a held record's shelf");
        shelf.alive[ord as usize] = false;
        shelf.dead += 1;
        if shelf.dead * 4 < shelf.ids.len() {
            return;
        }
        // Compaction: the live records again, numbered afresh.
        let old = std::mem::take(shelf);
        let docs = old.buckets.into_iter().zip(old.sources).zip(old.texts).map(|((bucket, source), folded)| Doc { bucket, source, folded });
        for ((id, doc), alive) in old.ids.into_iter().zip(docs).zip(old.alive) {
            if alive {
                let ord = shelf.add(id, doc, |w| vocab.get(w).expect("interned when first added"));
                self.by_id.insert(id, (key, ord));
            }
        }
    }

    /// The best `depth` of the agent's records in which any of `phrases` occurs, among
    /// those `readable` admits (by bucket and source), best first (then lower id), with
    /// their score: BM25 over the agent's own records, with `stats` made from how many of
    /// them (readable or not) hold each phrase. Nothing when no readable record matches (and
    /// then `stats` is not called).
    pub fn scored(
        &self,
        vocab: &Vocabulary,
        scratch: &mut Scratch,
        agent: u32,
        search: &Search,
        readable: impl Fn(u32, u32) -> bool,
        stats: impl FnOnce(&[i64]) -> Result<Stats>,
    ) -> Result<Vec<(f64, i64)>> {
        let Search { phrases, depth, .. } = *search;
        let Some(shelf) = self.shelves.get(&shelf_key(agent)) else { return Ok(Vec::new()) };
        let n = shelf.ids.len();
        // Slices, not vectors, in the loops below: the wasm module is built for size, and
        // there `Vec`'s indexing stayed a call (9 % of a 100k recall in wasm, `--cpu-prof`).
        let (ids, tokens, buckets, sources) = (&shelf.ids[..], &shelf.tokens[..], &shelf.buckets[..], &shelf.sources[..]);
        let admits = |o: u32| readable(buckets[o as usize], sources[o as usize]);
        let Scratch { marks, acc, lists, union, words } = scratch;
        if marks.len() < n {
            marks.resize(n, 0);
            acc.resize(n, 0.0);
        }
        let (marks, acc) = (&mut marks[..], &mut acc[..]);
        lists.resize_with(lists.len().max(phrases.len()), Vec::new);
        let lists = &mut lists[..phrases.len()];
        let mut hits = Vec::with_capacity(phrases.len());
        for (list, phrase) in lists.iter_mut().zip(phrases) {
            shelf.matching(vocab, phrase, marks, words, list);
            hits.push(list.len() as i64);
        }
        if !lists.iter().flatten().any(|&(o, _)| admits(o)) {
            return Ok(Vec::new());
        }
        let stats = stats(&hits)?;
        union.clear();
        for (p, list) in lists.iter().enumerate() {
            for &(ord, f) in list {
                let o = ord as usize;
                if marks[o] == 0 {
                    marks[o] = 1;
                    union.push(ord);
                }
                acc[o] += stats.term(p, f as usize, tokens[o] as usize);
            }
        }
        let mut best = Best::new(depth);
        for &ord in union.iter() {
            let o = ord as usize;
            let x = (acc[o], ids[o]);
            (marks[o], acc[o]) = (0, 0.0);
            // The scope is checked only for a record that would be kept.
            if best.wants(&x) && admits(ord) {
                best.keep(x);
            }
        }
        Ok(best.0)
    }

    /// Each live record: id, bucket, source, folded text, tokens; in id order.
    #[cfg(test)]
    pub fn records(&self) -> impl Iterator<Item = (i64, u32, u32, &Folded, u32)> {
        self.by_id.iter().map(|(&id, &(k, ord))| {
            let (shelf, o) = (&self.shelves[&k], ord as usize);
            (id, shelf.buckets[o], shelf.sources[o], &shelf.texts[o], shelf.tokens[o])
        })
    }
}
