//! BM25 over one agent's records, computed exactly as FTS5's `bm25()` computes it (k1 1.2,
//! b 0.75, every column weighted 1, IDF floored at 1e-6) but with the statistics — row
//! count, average length, rows matching each phrase — of the agent's own records instead
//! of the whole table's. FTS5 only knows table-wide statistics, so with `bm25()` another
//! agent's writes reordered this agent's results; here they cannot (isolation, design §1).
//! For a database holding one agent the scores are FTS5's, bit for bit (tested).
//!
//! Lengths and term frequencies are those of the trigram tokenizer: a text of n characters
//! is n − 2 tokens, and a phrase occurs once per position where its folded characters
//! appear in the folded text (overlapping occurrences count).

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Folds case per character as the trigram tokenizer does (`case_sensitive 0`): one
/// character maps to one character, so positions stay aligned.
fn fold(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// A record's text folded as the trigram tokenizer folds it, one column after another
/// (a phrase never spans two columns); reused from row to row.
///
/// Text that is all ASCII (most of it, in every corpus measured here) is folded and
/// searched as bytes: one byte is one character there, so positions, lengths and
/// occurrences are the same as over characters, without decoding into a `Vec<char>` four
/// times the size.
#[derive(Debug, Default, PartialEq)]
pub struct Folded {
    /// Whether every column is ASCII: then `bytes` holds the text, else `chars`.
    ascii: bool,
    bytes: Vec<u8>,
    chars: Vec<char>,
    /// Where each column ends in `bytes` or `chars`.
    ends: Vec<usize>,
}

impl Folded {
    /// Replaces the content with these columns.
    pub fn set(&mut self, columns: &[&str]) {
        self.bytes.clear();
        self.chars.clear();
        self.ends.clear();
        self.ascii = columns.iter().all(|c| c.is_ascii());
        for column in columns {
            if self.ascii {
                self.bytes.extend(column.bytes().map(|b| b.to_ascii_lowercase()));
                self.ends.push(self.bytes.len());
            } else {
                self.chars.extend(column.chars().map(fold));
                self.ends.push(self.chars.len());
            }
        }
    }

    /// The column spans, start to end.
    fn spans(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        std::iter::once(0).chain(self.ends.iter().copied()).zip(self.ends.iter().copied())
    }

    /// Each maximal run of letters and digits in the columns, in order, repeats included.
    /// A phrase of letters and digits only occurs inside one run, never across two; this
    /// is what `crate::indexes::lexical` indexes.
    pub fn words(&self, mut each: impl FnMut(&str)) {
        let mut run = String::new();
        for (start, end) in self.spans() {
            if self.ascii {
                let column = &self.bytes[start..end];
                for word in column.split(|b| !b.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
                    each(std::str::from_utf8(word).expect("ASCII"));
                }
            } else {
                for word in self.chars[start..end].split(|c| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
                    run.clear();
                    run.extend(word);
                    each(&run);
                }
            }
        }
    }

    /// Tokens of every column together.
    pub fn tokens(&self) -> usize {
        self.spans().map(|(start, end)| (end - start).saturating_sub(2)).sum()
    }

    /// Occurrences of `phrase` in the columns, overlapping ones included.
    pub fn occurrences(&self, phrase: &Phrase) -> usize {
        // Compares the rest of the phrase only where its first character is, rather than
        // calling `memcmp` on the window at every position.
        fn count<T: PartialEq>(column: &[T], phrase: &[T]) -> usize {
            let Some((first, rest)) = phrase.split_first() else { return 0 };
            if column.len() < phrase.len() {
                return 0;
            }
            let last_start = column.len() - phrase.len();
            column[..=last_start].iter().enumerate().filter(|(i, c)| *c == first && column[i + 1..i + phrase.len()] == *rest).count()
        }
        if self.ascii {
            // A phrase with a non-ASCII character (after folding) occurs in no ASCII text.
            let Some(finder) = &phrase.1 else { return 0 };
            self.spans().map(|(start, end)| overlapping(&self.bytes[start..end], finder)).sum()
        } else {
            self.spans().map(|(start, end)| count(&self.chars[start..end], &phrase.0)).sum()
        }
    }
}

/// Occurrences of `finder`'s needle in `hay`, overlapping ones included (0 for an empty
/// needle).
pub fn overlapping(hay: &[u8], finder: &memchr::memmem::Finder) -> usize {
    if finder.needle().is_empty() {
        return 0;
    }
    let (mut n, mut at) = (0, 0);
    while let Some(i) = finder.find(&hay[at..]) {
        n += 1;
        at += i + 1;
    }
    n
}

/// A query phrase, folded once: as characters, and, when the folded phrase is ASCII, as a
/// SIMD substring searcher (`memchr::memmem`, already a dependency of `serde_json`), so that
/// a phrase is folded once per query, not once per record, and an ASCII one is found by SIMD
/// rather than a character at a time.
pub struct Phrase(Vec<char>, Option<memchr::memmem::Finder<'static>>);

impl Phrase {
    pub fn new(term: &str) -> Self {
        let chars: Vec<char> = term.chars().map(fold).collect();
        let bytes: Option<Vec<u8>> = chars.iter().all(char::is_ascii).then(|| chars.iter().map(|&c| c as u8).collect());
        Phrase(chars, bytes.map(|b| memchr::memmem::Finder::new(&b).into_owned()))
    }

    /// The folded characters.
    pub fn chars(&self) -> &[char] {
        &self.0
    }
}

/// The statistics of the records a score is relative to.
pub struct Stats {
    avgdl: f64,
    /// A boxed slice, not a `Vec`: [`Stats::share`] indexes it per posting, and in the
    /// size-built wasm module `Vec`'s indexing stayed a call.
    idf: Box<[f64]>,
}

impl Stats {
    /// From the record count, their total tokens, and how many records match each phrase.
    pub fn new(rows: i64, total_tokens: i64, hits: &[i64]) -> Self {
        let n = rows as f64;
        let idf = hits
            .iter()
            .map(|&h| {
                let idf = ((n - h as f64 + 0.5) / (h as f64 + 0.5)).ln();
                if idf <= 0.0 {
                    1e-6
                } else {
                    idf
                }
            })
            .collect();
        Stats { avgdl: total_tokens as f64 / n, idf }
    }

    /// The score of a record `len` tokens long in which phrase i occurs `freqs[i]` times;
    /// higher is more relevant (FTS5's `bm25()` is its negation).
    #[cfg(test)]
    pub fn score(&self, freqs: &[usize], len: usize) -> f64 {
        let mut score = 0.0;
        for (i, &f) in freqs.iter().enumerate() {
            score += self.share(i, f, self.norm(len));
        }
        score
    }

    /// The part of a share's denominator that depends on the record's length alone.
    #[inline(always)]
    pub fn norm(&self, len: usize) -> f64 {
        K1 * (1.0 - B + B * len as f64 / self.avgdl)
    }

    /// Phrase i's share of the score of a record of [`Stats::norm`] `norm` in which it
    /// occurs `f` times; a record's score is the sum of its phrases' shares in phrase order,
    /// from 0.0. A phrase that does not occur adds exactly 0.0, so leaving it out of the sum
    /// changes no bit. Inlined by force: a search calls it per posting, and the wasm module
    /// is built for size.
    #[inline(always)]
    pub fn share(&self, i: usize, f: usize, norm: f64) -> f64 {
        let f = f as f64;
        self.idf[i] * ((f * (K1 + 1.0)) / (f + norm))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn trigram_lengths_and_overlapping_occurrences() {
        let mut f = Folded::default();
        let count = |f: &mut Folded, columns: &[&str], phrase: &str| {
            f.set(columns);
            f.occurrences(&Phrase::new(phrase))
        };
        f.set(&["ab", "Straße", ""]);
        assert_eq!(f.tokens(), 4, "per column: 0 + 4 + 0");
        assert_eq!(count(&mut f, &["aAaAa"], "aaa"), 3);
        assert_eq!(count(&mut f, &["ÜBER über"], "über"), 2);
        assert_eq!(count(&mut f, &["Kaito Mori, kaito  mori"], "kaito mori"), 1);
        assert_eq!(count(&mut f, &["kai", "to"], "kaito"), 0, "a phrase never spans two columns");
        // ASCII text and a phrase whose non-ASCII character folds to ASCII (the Kelvin sign)
        assert_eq!(count(&mut f, &["Kelvin KELVIN"], "\u{212A}elvin"), 2);
        assert_eq!(count(&mut f, &["uber"], "über"), 0);
        f.set(&["ab", "Ledger", ""]);
        assert_eq!(f.tokens(), 4, "ASCII columns: 0 + 4 + 0");
    }
}
