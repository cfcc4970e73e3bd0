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
#[derive(Default)]
pub struct Folded {
    chars: Vec<char>,
    /// Where each column ends in `chars`.
    ends: Vec<usize>,
}

impl Folded {
    /// Replaces the content with these columns.
    pub fn set(&mut self, columns: &[&str]) {
        self.chars.clear();
        self.ends.clear();
        for column in columns {
            self.chars.extend(column.chars().map(fold));
            self.ends.push(self.chars.len());
        }
    }

    /// The folded columns, one slice each.
    fn columns(&self) -> impl Iterator<Item = &[char]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.chars[start..end])
    }

    /// Tokens of every column together.
    pub fn tokens(&self) -> usize {
        self.columns().map(|c| c.len().saturating_sub(2)).sum()
    }

    /// Occurrences of `phrase` in the columns, overlapping ones included.
    pub fn occurrences(&self, phrase: &Phrase) -> usize {
        let m = phrase.0.len();
        self.columns().filter(|c| m > 0 && c.len() >= m).map(|c| c.windows(m).filter(|w| *w == phrase.0.as_slice()).count()).sum()
    }
}

/// A query phrase, folded once.
pub struct Phrase(Vec<char>);

impl Phrase {
    pub fn new(term: &str) -> Self {
        Phrase(term.chars().map(fold).collect())
    }
}

/// The statistics of the records a score is relative to.
pub struct Stats {
    avgdl: f64,
    idf: Vec<f64>,
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
    pub fn score(&self, freqs: &[usize], len: usize) -> f64 {
        let d = len as f64;
        let mut score = 0.0;
        for (idf, &f) in self.idf.iter().zip(freqs) {
            let f = f as f64;
            score += idf * ((f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / self.avgdl)));
        }
        score
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
    }
}
