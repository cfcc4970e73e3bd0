//! One record kind's texts, a shelf per agent: each record's folded text, length and scope,
//! and, per word, the records holding it (postings). A query reads the postings of the words
//! that contain its phrases, so its cost follows the records that match, not the agent's
//! whole corpus; and of those, only the postings that can change its best few (MaxScore, in
//! [`Table::scored`]): a word in half of all records, whose share of a score is tiny, is
//! read only for the records the rarer words already found. Each word keeps how many live
//! records hold it, so a phrase's document count (BM25 needs it exactly) costs nothing when
//! the phrase lies in one word, and little when one of its words holds most of its records.
//!
//! Records are numbered per shelf in the order they were added (their ordinal). A record
//! that is rewritten or deleted is marked dead in place, and its postings stay until the
//! shelf is compacted (once a quarter of it is dead): updates are rare, and a posting list
//! never has to be searched for one entry.

use super::vocabulary::Vocabulary;
use super::Search;
use crate::api::error::Result;
use crate::base::best::Best;
use crate::indexes::bm25::{Folded, Phrase, Stats};
use std::collections::BTreeMap;

/// A record's scope and text.
pub struct Doc {
    /// Its bucket number (`crate::indexes::buckets`).
    pub bucket: u32,
    /// Its source number, or [`crate::indexes::buckets::NO_SOURCE`].
    pub source: u32,
    /// When it stops holding, epoch ms (`crate::base::as_of::record_end`; `i64::MAX`: never).
    pub end: i64,
    pub folded: Folded,
}

/// One agent's records of one kind, by ordinal. What a search reads for every match (length,
/// scope) is held in arrays of its own, not beside the text, so reading a match's bucket
/// number does not load its `Doc` from far in memory.
#[derive(Default)]
struct Shelf {
    ids: Vec<i64>,
    /// Length in trigram tokens.
    tokens: Vec<u32>,
    alive: Vec<bool>,
    buckets: Vec<u32>,
    sources: Vec<u32>,
    /// Per ordinal, when the record stops holding (`Doc::end`).
    ends: Vec<i64>,
    /// The ordinals given an end at some time, each once (some may since have died or lost
    /// it): what a
    /// read at an instant looks through, rather than every record, to find those that ended.
    timed: Vec<u32>,
    texts: Vec<Folded>,
    /// Per word number, the records holding it.
    postings: BTreeMap<u32, Postings>,
    dead: usize,
    /// The words of the record being added, with their counts; kept between records. A list
    /// allocated and freed per record leaves small free chunks scattered among the records'
    /// texts in the allocator's free lists, and every later call's allocations would walk
    /// them, out of cache.
    counts: Vec<(u32, u32)>,
}

/// The records holding one word.
#[derive(Default)]
struct Postings {
    /// (ordinal, occurrences of the word in the record), ordinals increasing; dead records
    /// stay until the shelf is compacted.
    list: Vec<(u32, u32)>,
    /// How many of them are alive: the word's document count, without reading the list.
    live: u32,
    /// The most occurrences any of them has, and the fewest tokens any of them is long
    /// (dead ones included): bounds, not always reached.
    most: u32,
    shortest: u32,
}

/// Where a phrase's matches are: in one word's postings (the phrase occurring `occ` times
/// in the word); in the postings of the words in the search's word list for it (each with
/// its `occ`); or in the search's match list for it, built from the records' texts.
enum Matches {
    Word { word: u32, occ: u32 },
    Words,
    List,
}

/// The shelf that holds an agent's records. Per agent, so that the statistics of a search
/// (how many records hold a phrase) are the agent's own.
fn shelf_key(agent: u32) -> u32 {
    agent
}

/// Reused between searches, so a search allocates nothing in proportion to the corpus:
/// `marks` and `sums` are zero outside a search. The arrays that a search fills as it goes
/// (`touched`, `met`, `parts`) are as long as the shelf, each with a count of its own: the
/// wasm module is built for size, and there `Vec::push` stays a call per record.
#[derive(Default)]
pub struct Scratch {
    marks: Vec<u32>,
    /// A bit per record: those a phrase's word lists have met.
    seen: Vec<u64>,
    /// A bit per record: those met that the phrases left are counted for.
    open: Vec<u64>,
    /// Per phrase: its words (`Matches::Words`) or its matches (`Matches::List`).
    lists: Vec<Vec<(u32, u32)>>,
    words: Vec<(u32, u32)>,
    /// Per ordinal: a phrase's occurrences summed over its words while a list is read.
    sums: Vec<u32>,
    met: Vec<u32>,
    parts: Vec<f64>,
    touched: Vec<u32>,
    /// Per length in tokens: [`Stats::norm`] of it, or −1 until a search needs it.
    norms: Vec<f64>,
}

#[cfg(test)]
thread_local! {
    /// Searches that left some phrase's postings unread, for the tests to know they ran.
    pub static PRUNED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Lengths whose [`Stats::norm`] a search keeps (longer ones are computed each time).
const NORMS: usize = 1024;

/// Whether a score of at most `upper` surely ends below `bar`, by more than rounding could
/// make up: the sums compared here are added in another order than a score is.
#[inline(always)]
fn below(upper: f64, bar: f64) -> bool {
    upper * (1.0 + 1e-9) < bar
}

/// Each distinct word of `text`, numbered by `word`, with how many times it occurs there; in
/// word-number order, into `out`.
fn counted(text: &Folded, word: &mut dyn FnMut(&str) -> u32, out: &mut Vec<(u32, u32)>) {
    out.clear();
    text.words(|w| out.push((word(w), 1)));
    crate::base::sort::sort(out);
    out.dedup_by(|later, kept| {
        later.0 == kept.0 && {
            kept.1 += 1;
            true
        }
    });
}

impl Shelf {
    /// Appends a record; `word` numbers each of its words.
    fn add(&mut self, id: i64, doc: Doc, word: &mut dyn FnMut(&str) -> u32) -> u32 {
        let ord = self.ids.len() as u32;
        let tokens = doc.folded.tokens() as u32;
        let mut counts = std::mem::take(&mut self.counts);
        counted(&doc.folded, word, &mut counts);
        for &(w, n) in &counts {
            let p = self.postings.entry(w).or_default();
            p.shortest = if p.list.is_empty() { tokens } else { p.shortest.min(tokens) };
            p.list.push((ord, n));
            p.live += 1;
            p.most = p.most.max(n);
        }
        self.ids.push(id);
        self.tokens.push(tokens);
        self.alive.push(true);
        self.buckets.push(doc.bucket);
        self.sources.push(doc.source);
        self.ends.push(doc.end);
        if doc.end != i64::MAX {
            self.timed.push(ord);
        }
        self.texts.push(doc.folded);
        self.counts = counts;
        ord
    }

    /// Marks record `ord` dead, and takes it out of its words' live counts.
    fn kill(&mut self, vocab: &Vocabulary, ord: u32) {
        let o = ord as usize;
        self.alive[o] = false;
        self.dead += 1;
        let mut counts = Vec::new();
        counted(&self.texts[o], &mut |w| vocab.get(w).expect("interned when added"), &mut counts);
        for (w, _) in counts {
            self.postings.get_mut(&w).expect("a held record's word").live -= 1;
        }
    }

    /// The postings of word `w` (none if no record holds it).
    fn list(&self, w: u32) -> &[(u32, u32)] {
        self.postings.get(&w).map_or(&[][..], |p| &p.list[..])
    }

    /// Where the live records in which `phrase` occurs are: in the postings of the words
    /// containing it (one word, or the words put into `list`), or in `list` (in no
    /// particular order) with how often each holds it. `marks` is zero before and after.
    fn matching(
        &self,
        vocab: &Vocabulary,
        phrase: &Phrase,
        marks: &mut [u32],
        words: &mut Vec<(u32, u32)>,
        list: &mut Vec<(u32, u32)>,
    ) -> Matches {
        list.clear();
        let alive = &self.alive[..];
        let chars = phrase.chars();
        let pieces: Vec<String> = chars.split(|c| !c.is_alphanumeric()).filter(|p| !p.is_empty()).map(|p| p.iter().collect()).collect();
        if let [piece] = &pieces[..] {
            if piece.chars().count() == chars.len() {
                // Letters and digits only: every occurrence is inside one word, so the
                // postings of the words containing it count them exactly.
                vocab.containing(piece, list);
                if let [(word, occ)] = list[..] {
                    return Matches::Word { word, occ };
                }
                return Matches::Words;
            }
        }
        // A phrase across words (a cue's "kaito mori") or of no letters at all: the records
        // holding its rarest piece, or every record, are searched.
        let mut best: Option<(usize, Vec<(u32, u32)>)> = None;
        for piece in &pieces {
            vocab.containing(piece, words);
            let postings: usize = words.iter().map(|&(w, _)| self.list(w).len()).sum();
            if best.as_ref().is_none_or(|(n, _)| postings < *n) {
                best = Some((postings, words.clone()));
            }
        }
        match best {
            Some((_, words)) => {
                for (w, _) in words {
                    for &(ord, _) in self.list(w) {
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
        Matches::List
    }
}

/// Adds each live record's occurrences of one phrase, from its runs (a posting list and
/// what each of its occurrences counts for), into `sums`, listing at the start of `touched`
/// the records first counted and returning how many; with `open` (a bit per record), only
/// the records whose bit is set, else only the live ones. A record holding two of the
/// phrase's words comes once per word.
///
/// A loop, not a callback per posting: the wasm module is built for size, and there each
/// closure stays a call per posting.
#[inline(always)]
fn gather(runs: &[(&[(u32, u32)], u32)], alive: &[bool], sums: &mut [u32], touched: &mut [u32], open: Option<&[u64]>) -> usize {
    let mut count = 0;
    for &(list, occ) in runs {
        for &(ord, k) in list {
            let o = ord as usize;
            let skip = match open {
                Some(open) => open[o / 64] & 1 << (ord % 64) == 0,
                None => !alive[o],
            };
            if skip {
                continue;
            }
            if sums[o] == 0 {
                touched[count] = ord;
                count += 1;
            }
            sums[o] += k * occ;
        }
    }
    count
}

/// How many live records hold any of the words whose postings are `held` (each with what
/// an occurrence in it counts, unused here). `seen` is a bit per record, so that what the
/// lists touch stays in the nearest cache.
///
/// Where one list is most of them ("kalo" in "kalo", "kalomi", "tukalo": a common word is
/// inside many longer ones), it is not read through: its live count, plus the live records
/// of the others that a search of it for each does not find. Where the lists are alike, a
/// search per posting costs more than reading them, so a list is searched only when it is
/// eight times the others.
fn united(held: &[(&Postings, u32)], alive: &[bool], seen: &mut Vec<u64>) -> u32 {
    let lengths = held.iter().map(|(p, _)| p.list.len());
    let (big, longest) = lengths.clone().enumerate().fold((usize::MAX, 0), |m, (i, l)| if l > m.1 { (i, l) } else { m });
    let skip = if longest >= 8 * (lengths.sum::<usize>() - longest) { big } else { usize::MAX };
    seen.clear();
    seen.resize(alive.len().div_ceil(64), 0);
    // A slice, not the vector: in the size-built wasm module `Vec`'s indexing stayed a call.
    let seen = &mut seen[..];
    let mut h = 0;
    for (p, _) in held.iter().enumerate().filter(|&(i, _)| i != skip).map(|(_, e)| e) {
        for &(ord, _) in &p.list {
            let (o, bit) = (ord as usize, 1u64 << (ord % 64));
            let word = &mut seen[o / 64];
            h += u32::from(alive[o] && *word & bit == 0);
            *word |= bit;
        }
    }
    let Some((p, _)) = held.get(skip) else { return h };
    // The records counted above that the longest list holds, found in order, are not new.
    let (list, mut at) = (&p.list[..], 0);
    for (i, &bits) in seen.iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let o = (i * 64) as u32 + bits.trailing_zeros();
            bits &= bits - 1;
            if alive[o as usize] {
                at = gallop(list, at, o);
                h -= u32::from(list.get(at).is_some_and(|e| e.0 == o));
            }
        }
    }
    h + p.live
}

/// The first index from `at` on whose ordinal is at least `ord`, in `list` (ordinals
/// increasing): by steps that double, then halving, so that ordinals close together cost a
/// step or two and far apart a logarithm of the gap.
fn gallop(list: &[(u32, u32)], at: usize, ord: u32) -> usize {
    let (mut lo, mut step) = (at, 1);
    while lo + step <= list.len() && list[lo + step - 1].0 < ord {
        lo += step;
        step *= 2;
    }
    let mut hi = (lo + step).min(list.len());
    // A loop, not `partition_point`: in the size-built wasm module its closure stayed a call
    // per step.
    while lo < hi {
        let mid = (lo + hi) / 2;
        if list[mid].0 < ord {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// [`Stats::norm`] of a record `len` tokens long, kept in `norms` (−1 until first needed).
#[inline(always)]
fn norm(norms: &mut [f64], stats: &Stats, len: u32) -> f64 {
    match norms.get_mut(len as usize) {
        Some(v) if *v >= 0.0 => *v,
        Some(v) => {
            *v = stats.norm(len as usize);
            *v
        }
        None => stats.norm(len as usize),
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
                // Only its end may differ (an expiry or invalidation written): set in place.
                let shelf = self.shelves.get_mut(&k).expect("a held record's shelf");
                if shelf.ends[o] != doc.end {
                    if doc.end != i64::MAX && !shelf.timed.contains(&ord) {
                        shelf.timed.push(ord);
                    }
                    shelf.ends[o] = doc.end;
                }
                return;
            }
            self.remove(vocab, id);
        }
        let ord = self.shelves.entry(key).or_default().add(id, doc, &mut |w| vocab.intern(w));
        self.by_id.insert(id, (key, ord));
    }

    /// Whether some live record of agent `agent` here had ended by `at` (epoch ms): what a
    /// read at an instant checks before it asks which of them its scope reads.
    pub fn any_ended(&self, agent: u32, at: i64) -> bool {
        let Some(shelf) = self.shelves.get(&shelf_key(agent)) else { return false };
        shelf.timed.iter().any(|&ord| shelf.alive[ord as usize] && crate::base::as_of::ended_by(shelf.ends[ord as usize], at))
    }

    /// How many of agent `agent`'s live records here ended at or before `at` (epoch ms) and
    /// are admitted by `readable` (by bucket and source); with `ids`, their ids too, in id
    /// order (left out when only the count is wanted: sorting them is most of the cost).
    pub fn ended(&self, agent: u32, at: i64, readable: impl Fn(u32, u32) -> bool, ids: Option<&mut Vec<i64>>) -> usize {
        let Some(shelf) = self.shelves.get(&shelf_key(agent)) else { return 0 };
        let mut out: Vec<i64> = Vec::new();
        let mut count = 0;
        for &ord in &shelf.timed {
            let o = ord as usize;
            if shelf.alive[o] && crate::base::as_of::ended_by(shelf.ends[o], at) && readable(shelf.buckets[o], shelf.sources[o]) {
                count += 1;
                if ids.is_some() {
                    out.push(shelf.ids[o]);
                }
            }
        }
        if let Some(ids) = ids {
            crate::base::sort::sort(&mut out);
            *ids = out;
        }
        count
    }

    /// Whether agent `agent` holds any live record here.
    pub fn holds(&self, agent: u32) -> bool {
        self.shelves.get(&shelf_key(agent)).is_some_and(|shelf| shelf.ids.len() > shelf.dead)
    }

    /// Drops record `id`, if held.
    pub fn remove(&mut self, vocab: &Vocabulary, id: i64) {
        let Some((key, ord)) = self.by_id.remove(&id) else { return };
        let shelf = self.shelves.get_mut(&key).expect("a held record's shelf");
        shelf.kill(vocab, ord);
        if shelf.dead * 4 < shelf.ids.len() {
            return;
        }
        // Compaction: the live records again, numbered afresh.
        let old = std::mem::take(shelf);
        let docs = old.buckets.into_iter().zip(old.sources).zip(old.ends).zip(old.texts).map(|(((bucket, source), end), folded)| Doc {
            bucket,
            source,
            end,
            folded,
        });
        for ((id, doc), alive) in old.ids.into_iter().zip(docs).zip(old.alive) {
            if alive {
                let ord = shelf.add(id, doc, &mut |w| vocab.get(w).expect("interned when first added"));
                self.by_id.insert(id, (key, ord));
            }
        }
    }

    /// The best `depth` of the agent's records in which any of `phrases` occurs, among
    /// those `readable` admits (by bucket, source and end; every one when it is `None`), best
    /// first (then lower id), with their score: BM25 over the agent's own records, with
    /// `stats` made from how many of them (readable or not) hold each phrase. Nothing when
    /// no readable record matches (and `stats` is called only when some record matches).
    ///
    /// The phrases are read rarest first, by the most each can add to a score (MaxScore,
    /// Turtle and Flood 1995). Once the records not yet met could not reach the `depth`-th
    /// best score even with every phrase left, the postings of the phrases left (the common
    /// words, whose lists are the longest) are not read: only the records met so far that
    /// could still reach it are looked up in their text. The scores returned are still
    /// summed in phrase order, so they are the bits a reading of every posting gives.
    pub fn scored(
        &self,
        vocab: &Vocabulary,
        scratch: &mut Scratch,
        agent: u32,
        search: &Search,
        readable: Option<impl Fn(u32, u32, i64) -> bool>,
        stats: impl FnOnce(&[i64]) -> Result<Stats>,
    ) -> Result<Vec<(f64, i64)>> {
        let Search { phrases, depth, .. } = *search;
        let Some(shelf) = self.shelves.get(&shelf_key(agent)) else { return Ok(Vec::new()) };
        if depth == 0 {
            return Ok(Vec::new());
        }
        let (n, np) = (shelf.ids.len(), phrases.len());
        // Slices, not vectors, in the loops below: the wasm module is built for size, and
        // there `Vec`'s indexing stays a call.
        let (ids, tokens, buckets, sources, alive) =
            (&shelf.ids[..], &shelf.tokens[..], &shelf.buckets[..], &shelf.sources[..], &shelf.alive[..]);
        // A record's scope, two loads from far in memory, is read only when some record of
        // the agent is out of it, not for each of the thousands of records a search meets.
        let ends = &shelf.ends[..];
        let admits = |o: u32| readable.as_ref().is_none_or(|r| r(buckets[o as usize], sources[o as usize], ends[o as usize]));
        let Scratch { marks, seen, open, lists, words, sums, met, parts, touched, norms } = scratch;
        if marks.len() < n {
            marks.resize(n, 0);
            sums.resize(n, 0);
            touched.resize(n, 0);
            met.resize(n, 0);
            parts.resize(n, 0.0);
        }
        let (marks, sums, touched, met, parts) = (&mut marks[..], &mut sums[..], &mut touched[..], &mut met[..], &mut parts[..]);
        lists.resize_with(lists.len().max(np), Vec::new);
        let lists = &mut lists[..np];
        // Per phrase: how many records hold it, the most times one does and the fewest
        // tokens one is long; and its runs, `runs[starts[p]..starts[p + 1]]`: the postings of
        // its words (each occurrence of the phrase in a word counting `occ` times), or its
        // match list (each already counted).
        let (mut hits, mut most) = (Vec::with_capacity(np), Vec::with_capacity(np));
        let mut runs: Vec<(&[(u32, u32)], u32)> = Vec::new();
        let mut starts = vec![0];
        for (list, phrase) in lists.iter_mut().zip(phrases) {
            let m = shelf.matching(vocab, phrase, marks, words, list);
            let list: &Vec<(u32, u32)> = list;
            let (h, f, d) = match m {
                Matches::Word { word, occ } => match shelf.postings.get(&word) {
                    Some(p) => {
                        runs.push((&p.list[..], occ));
                        (p.live, p.most * occ, p.shortest)
                    }
                    None => (0, 0, 0),
                },
                Matches::Words => {
                    let (mut f, mut d) = (0, u32::MAX);
                    let held: Vec<(&Postings, u32)> = list.iter().filter_map(|&(w, occ)| Some((shelf.postings.get(&w)?, occ))).collect();
                    for &(p, occ) in &held {
                        runs.push((&p.list[..], occ));
                        f += p.most * occ;
                        d = d.min(p.shortest);
                    }
                    (united(&held, alive, seen), f, d)
                }
                Matches::List => {
                    runs.push((&list[..], 1));
                    let d = list.iter().map(|e| tokens[e.0 as usize]).min();
                    (list.len() as u32, list.iter().map(|e| e.1).max().unwrap_or(0), d.unwrap_or(0))
                }
            };
            starts.push(runs.len());
            hits.push(i64::from(h));
            most.push((f as usize, d));
        }
        if hits.iter().all(|&h| h == 0) {
            return Ok(Vec::new());
        }
        let stats = stats(&hits)?;
        // A share's denominator depends on the record's length alone: computed once per
        // length (the corpus has a few hundred), it leaves one division per posting.
        norms.clear();
        norms.resize(NORMS, -1.0);
        let norms = &mut norms[..];
        // The most each phrase adds to a score: its share at the most occurrences and the
        // shortest length (a share grows with the one and shrinks with the other).
        let bounds: Vec<f64> =
            (0..np).map(|p| if hits[p] == 0 { 0.0 } else { stats.share(p, most[p].0, norm(norms, &stats, most[p].1)) }).collect();
        let mut order: Vec<usize> = (0..np).filter(|&p| hits[p] > 0).collect();
        crate::base::sort::sort_by(&mut order, |&a, &b| bounds[b].total_cmp(&bounds[a]));
        // rest[k]: the most a record can score from the phrases order[k..].
        let mut rest = vec![0.0; order.len() + 1];
        for k in (0..order.len()).rev() {
            rest[k] = rest[k + 1] + bounds[order[k]];
        }
        let (rest, order, hits) = (&rest[..], &order[..], &hits[..]);
        // Each record met, in `met[..found]` (its slot, plus one, in `marks`), with its score
        // so far, summed in the order read, in `parts`; a record dropped from the search has
        // its part below zero, and leaves `met` once the phrases left are counted.
        let mut found = 0;
        // The `depth`-th best score so far of a readable record met: none can end below it.
        // It only grows (parts grow, records only leave below it), so a part below the last
        // one found (`from`) is not looked at, rather than ranking thousands of parts from
        // zero each time.
        let bar = |met: &[u32], parts: &[f64], from: Option<f64>| {
            if met.len() < depth {
                return None;
            }
            let mut best = Best::new(depth);
            // Below `low` a part is dropped (below zero) or surely not kept: one comparison
            // for most of the thousands of records met. What is found is a part, the same
            // whichever of records tied on it is kept, so the key is none: a tie never
            // displaces a record kept, and no record's id is read (a load from far in memory
            // for each part at or above `low`, where a corpus's many equal scores sit).
            // Indexed, and compared rather than `f64::max`ed: in the size-built module the
            // zipped iterator's steps and `max` stayed calls.
            let mut low = from.unwrap_or(0.0);
            for i in 0..met.len().min(parts.len()) {
                let (ord, part) = (met[i], parts[i]);
                if part < low {
                    continue;
                }
                let x = (part, 0);
                if best.wants(&x) && admits(ord) {
                    best.keep(x);
                    let least = best.least();
                    if least > low {
                        low = least;
                    }
                }
            }
            best.0.get(depth - 1).map(|x| x.0)
        };
        let (runs, starts) = (&runs[..], &starts[..]);
        let postings = |p: usize| &runs[starts[p]..starts[p + 1]];
        let (mut read, mut top, mut floor) = (0, 0.0f64, None);
        while read < order.len() {
            // The floor is at most the best part: worth finding only if it can stop the
            // reading or keep records out.
            if read > 0 && below(rest[read + 1], top) {
                floor = bar(&met[..found], &parts[..found], floor);
                if floor.is_some_and(|f| below(rest[read], f)) {
                    break;
                }
            }
            let p = order[read];
            let (after, fl) = (rest[read + 1], floor.unwrap_or(f64::NEG_INFINITY));
            // Its occurrences in each record, summed over its words, then scored.
            let count = gather(postings(p), alive, sums, touched, None);
            for &ord in &touched[..count] {
                let o = ord as usize;
                let share = stats.share(p, std::mem::take(&mut sums[o]) as usize, norm(norms, &stats, tokens[o]));
                if marks[o] == 0 {
                    // A record first met here scores at most this share and the phrases
                    // after it: below the floor, it is never met.
                    if below(share + after, fl) {
                        continue;
                    }
                    met[found] = ord;
                    parts[found] = 0.0;
                    found += 1;
                    marks[o] = found as u32;
                }
                let part = &mut parts[marks[o] as usize - 1];
                *part += share;
                if *part > top {
                    top = *part;
                }
            }
            read += 1;
        }
        if let Some(mut floor) = floor.filter(|_| read < order.len()) {
            #[cfg(test)]
            PRUNED.with(|n| n.set(n.get() + 1));
            // The phrases left are counted only for the records met that are readable and
            // could still reach the floor: their postings are read, but nothing is scored or
            // met for the records outside (records' texts, scattered in memory, cost a cache
            // miss each, so counting a common word there for thousands of records costs
            // more than reading its postings). Those records are a bit each in `open`, which a
            // posting tests in the nearest cache, rather than testing whether it was met and
            // not dropped: two loads from arrays as long as the shelf.
            open.clear();
            open.resize(n.div_ceil(64), 0);
            let open = &mut open[..];
            for (part, &ord) in parts[..found].iter_mut().zip(&met[..found]) {
                if admits(ord) {
                    open[ord as usize / 64] |= 1 << (ord % 64);
                } else {
                    *part = -1.0;
                }
            }
            for (k, &p) in order.iter().enumerate().skip(read) {
                // The records that can no longer reach the floor leave the search, and those
                // left move to the front of `met`, so that this pass and `bar` read only them.
                let (rest, mut kept) = (rest[k], 0);
                for i in 0..found {
                    let (ord, part) = (met[i], parts[i]);
                    let o = ord as usize;
                    if part < 0.0 || below(part + rest, floor) {
                        marks[o] = 0;
                        open[o / 64] &= !(1 << (ord % 64));
                    } else {
                        (met[kept], parts[kept]) = (ord, part);
                        kept += 1;
                        marks[o] = kept as u32;
                    }
                }
                found = kept;
                let count = gather(postings(p), alive, sums, touched, Some(open));
                for &ord in &touched[..count] {
                    let o = ord as usize;
                    let f = std::mem::take(&mut sums[o]);
                    parts[marks[o] as usize - 1] += stats.share(p, f as usize, norm(norms, &stats, tokens[o]));
                }
                floor = bar(&met[..found], &parts[..found], Some(floor)).map_or(floor, |f| f.max(floor));
            }
        }
        // `parts` are the scores summed in another order, within rounding of them: only the
        // records not surely below the `depth`-th best part are scored again.
        let cut = bar(&met[..found], &parts[..found], floor).unwrap_or(f64::NEG_INFINITY);
        let mut best = Best::new(depth);
        for (&ord, &part) in met[..found].iter().zip(&parts[..found]) {
            let o = ord as usize;
            marks[o] = 0;
            if part < 0.0 || below(part, cut) {
                continue;
            }
            // The score as a reading of every posting sums it: in phrase order, from 0, with
            // each phrase's occurrences counted in the text (the postings' count, tested).
            let mut score = 0.0;
            for (p, phrase) in phrases.iter().enumerate().filter(|&(p, _)| hits[p] > 0) {
                let f = shelf.texts[o].occurrences(phrase);
                if f > 0 {
                    score += stats.share(p, f, norm(norms, &stats, tokens[o]));
                }
            }
            let x = (score, ids[o]);
            // The scope is checked only for a record that would be kept.
            if best.wants(&x) && admits(ord) {
                best.keep(x);
            }
        }
        Ok(best.0)
    }

    /// Each live record: id, bucket, source, folded text, tokens, end; in id order.
    #[cfg(test)]
    pub fn records(&self) -> impl Iterator<Item = (i64, u32, u32, &Folded, u32, i64)> {
        self.by_id.iter().map(|(&id, &(k, ord))| {
            let (shelf, o) = (&self.shelves[&k], ord as usize);
            (id, shelf.buckets[o], shelf.sources[o], &shelf.texts[o], shelf.tokens[o], shelf.ends[o])
        })
    }
}
