//! Every distinct word (maximal run of folded letters and digits) the index has seen, and
//! which of them contain a query phrase.
//!
//! A query term is matched as a substring (the trigram tokenizer's phrase semantics), so
//! "serv" finds "service" and "observer". The words containing a phrase are found through
//! the words' trigrams: the phrase's rarest trigram names the few words worth comparing,
//! instead of every word. Words are never removed: a word no record holds any more has
//! empty postings and costs a few bytes.

use crate::indexes::bm25::overlapping;
use memchr::memmem::Finder;
use std::collections::BTreeMap;

/// Three characters as one key (21 bits each). A map keyed by `i64` shares its code with
/// the engine's other `i64`-keyed maps in the wasm module.
fn trigram(w: &[char]) -> i64 {
    w.iter().fold(0, |key, &c| key << 21 | i64::from(u32::from(c)))
}

/// A word's key in [`Vocabulary::ids`]: its FNV-1a hash, so a lookup compares integers
/// down the tree and the text once at the end, not texts (`memcmp`) at every step of
/// interning every word of every record. FNV-1a, five lines, and not std's
/// `DefaultHasher`: that one added its SipHash to the wasm module, past 700 KB.
fn hashed(word: &str) -> i64 {
    word.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)) as i64
}

/// The interned words and, for each trigram, the words holding it.
#[derive(Default)]
pub struct Vocabulary {
    words: Vec<Box<str>>,
    /// Word numbers by [`hashed`] word (more than one only where two words collide).
    ids: BTreeMap<i64, Vec<u32>>,
    /// Word numbers in increasing order, per three-character sequence ([`trigram`]).
    trigrams: BTreeMap<i64, Vec<u32>>,
}

impl Vocabulary {
    /// The number of `word`, given one (and its trigrams indexed) if new.
    pub fn intern(&mut self, word: &str) -> u32 {
        let same = self.ids.entry(hashed(word)).or_default();
        if let Some(&id) = same.iter().find(|&&id| *self.words[id as usize] == *word) {
            return id;
        }
        let id = self.words.len() as u32;
        same.push(id);
        self.words.push(word.into());
        let chars: Vec<char> = word.chars().collect();
        let mut trigrams: Vec<i64> = chars.windows(3).map(trigram).collect();
        crate::base::sort::sort(&mut trigrams);
        trigrams.dedup();
        for t in trigrams {
            self.trigrams.entry(t).or_default().push(id);
        }
        id
    }

    /// The number of `word`, if it was ever interned.
    pub fn get(&self, word: &str) -> Option<u32> {
        self.ids.get(&hashed(word))?.iter().copied().find(|&id| *self.words[id as usize] == *word)
    }

    /// Each word containing `piece` (folded letters and digits), with how many times it
    /// does (overlapping occurrences count), in word-number order, into `out`.
    pub fn containing(&self, piece: &str, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let finder = Finder::new(piece.as_bytes());
        let test = |id: u32| {
            let n = overlapping(self.words[id as usize].as_bytes(), &finder);
            if n > 0 {
                out.push((id, n as u32));
            }
        };
        let chars: Vec<char> = piece.chars().collect();
        if chars.len() < 3 {
            (0..self.words.len() as u32).for_each(test);
            return;
        }
        let mut rarest: Option<&Vec<u32>> = None;
        for w in chars.windows(3) {
            let Some(list) = self.trigrams.get(&trigram(w)) else { return };
            if rarest.is_none_or(|r| list.len() < r.len()) {
                rarest = Some(list);
            }
        }
        rarest.into_iter().flatten().copied().for_each(test);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn finds_every_word_containing_a_piece() {
        let mut v = Vocabulary::default();
        let words = ["service", "observer", "serve", "aaaa", "台帳台帳", "ab", "über"];
        let ids: Vec<u32> = words.iter().map(|w| v.intern(w)).collect();
        assert_eq!(v.intern("serve"), ids[2], "interned once");
        let mut out = Vec::new();
        let mut found = |piece: &str| {
            v.containing(piece, &mut out);
            out.iter().map(|&(id, n)| (words[id as usize], n)).collect::<Vec<_>>()
        };
        assert_eq!(found("serv"), [("service", 1), ("observer", 1), ("serve", 1)]);
        assert_eq!(found("aaa"), [("aaaa", 2)], "overlapping");
        assert_eq!(found("台帳"), [("台帳台帳", 2)], "under three characters: every word compared");
        assert_eq!(found("帳台帳"), [("台帳台帳", 1)]);
        assert_eq!(found("übe"), [("über", 1)]);
        assert_eq!(found("xyz"), []);
        assert_eq!(found("b"), [("observer", 1), ("ab", 1), ("über", 1)]);
    }
}
