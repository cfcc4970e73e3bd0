//! Unicode NFKC (UAX #15): full compatibility decomposition, canonical ordering, canonical
//! composition. The tables are the `unicode-normalization` crate's data, written compactly
//! by `build/nfkc.rs` and decoded here on first use; written out by hand only because the crate's
//! own tables were about 55 KB of the gzipped wasm module and these are about 14 KB
//! (BENCHMARKS.md). The tests check that this equals the crate's NFKC on every code point.

use std::sync::OnceLock;

static DATA: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/nfkc.bin"));

mod hangul;
use hangul::*;

/// Code points `first..first + len` decompose: to `chars[at..at + seq]`, or, in a run
/// (`len > 1`, `seq == 1`), code point `first + i` to the one character `chars[at] + i`.
struct Run {
    first: u32,
    len: u32,
    at: u32,
    seq: u32,
}

struct Tables {
    runs: Vec<Run>,
    chars: Vec<char>,
    /// Each code point where the canonical combining class changes, with the new class.
    classes: Vec<(u32, u8)>,
    /// The primary composites by their two characters, sorted.
    composites: Vec<((char, char), char)>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut r = Reader(DATA);
        let ch = |n: i64| char::from_u32(n as u32).expect("build/nfkc.rs writes characters");
        let (mut runs, mut chars) = (Vec::new(), Vec::new());
        let (mut end, mut target) = (0, 0);
        for _ in 0..r.leb() {
            let first = end + r.leb() as u32;
            let shape = r.leb() as u32;
            let (len, seq) = (shape / 32, shape % 32);
            runs.push(Run { first, len, at: chars.len() as u32, seq });
            target += r.zigzag();
            let mut c = target;
            chars.push(ch(c));
            for _ in 1..seq {
                c += r.zigzag();
                chars.push(ch(c));
            }
            end = first + len;
        }
        let mut classes = vec![(0, 0)];
        let mut at = 0;
        for _ in 0..r.leb() {
            at += r.leb() as u32;
            classes.push((at, r.byte()));
        }
        let mut composites = Vec::new();
        let mut at = 0;
        for _ in 0..r.leb() {
            at += r.leb() as i64;
            let a = ch(at + r.zigzag());
            let b = ch(0x300 + r.zigzag());
            composites.push(((a, b), ch(at)));
        }
        crate::base::sort::sort(&mut composites);
        Tables { runs, chars, classes, composites }
    })
}

struct Reader(&'static [u8]);

impl Reader {
    fn byte(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().expect("build/nfkc.rs writes whole tables");
        self.0 = rest;
        *b
    }

    fn leb(&mut self) -> u64 {
        let mut n = 0;
        for shift in (0..).step_by(7) {
            let b = self.byte();
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
        }
        n
    }

    fn zigzag(&mut self) -> i64 {
        let n = self.leb();
        (n >> 1) as i64 ^ -((n & 1) as i64)
    }
}

impl Tables {
    fn class(&self, c: char) -> u8 {
        let i = self.classes.partition_point(|&(first, _)| first <= c as u32);
        self.classes[i - 1].1
    }

    fn decompose(&self, c: char, emit: &mut impl FnMut(char)) {
        let cp = c as u32;
        if SYLLABLES.contains(&cp) {
            let s = cp - S_BASE;
            let jamo = [L_BASE + s / N_COUNT, V_BASE + (s % N_COUNT) / T_COUNT, T_BASE + s % T_COUNT];
            let n = if s % T_COUNT == 0 { 2 } else { 3 };
            jamo[..n].iter().filter_map(|&j| char::from_u32(j)).for_each(emit);
            return;
        }
        let i = self.runs.partition_point(|r| r.first <= cp);
        match i.checked_sub(1).map(|i| &self.runs[i]) {
            Some(r) if cp < r.first + r.len && r.len > 1 => {
                emit(char::from_u32(self.chars[r.at as usize] as u32 + (cp - r.first)).expect("runs stay in characters"))
            }
            Some(r) if cp < r.first + r.len => self.chars[r.at as usize..][..r.seq as usize].iter().copied().for_each(emit),
            _ => emit(c),
        }
    }

    fn compose(&self, a: char, b: char) -> Option<char> {
        let (a32, b32) = (a as u32, b as u32);
        if (L_BASE..L_BASE + L_COUNT).contains(&a32) && (V_BASE..V_BASE + V_COUNT).contains(&b32) {
            return char::from_u32(S_BASE + ((a32 - L_BASE) * V_COUNT + (b32 - V_BASE)) * T_COUNT);
        }
        if SYLLABLES.contains(&a32) && (a32 - S_BASE) % T_COUNT == 0 && (T_BASE + 1..T_BASE + T_COUNT).contains(&b32) {
            return char::from_u32(a32 + (b32 - T_BASE));
        }
        let i = self.composites.binary_search_by_key(&(a, b), |&(pair, _)| pair).ok()?;
        Some(self.composites[i].1)
    }
}

/// `text` in Unicode Normalization Form KC.
pub fn nfkc(text: &str) -> String {
    if text.is_ascii() {
        return text.to_owned();
    }
    let t = tables();
    // Decomposed, each character with its combining class, then in canonical order: each
    // run of marks (class not 0) sorted by class, stably.
    let mut decomposed: Vec<(char, u8)> = Vec::with_capacity(text.len());
    for c in text.chars() {
        t.decompose(c, &mut |d| decomposed.push((d, t.class(d))));
    }
    for run in decomposed.split_mut(|&(_, class)| class == 0) {
        crate::base::sort::sort_by_key(run, |&(_, class)| class);
    }
    // A character composes with the last starter unless a character between them is a
    // starter or has a class at least its own.
    let mut out: Vec<char> = Vec::with_capacity(decomposed.len());
    let mut starter: Option<usize> = None;
    let mut last_class: Option<u8> = None;
    for (c, class) in decomposed {
        if let Some(s) = starter {
            if last_class.is_none_or(|last| last < class) {
                if let Some(composite) = t.compose(out[s], c) {
                    out[s] = composite;
                    continue;
                }
            }
        }
        if class == 0 {
            starter = Some(out.len());
            last_class = None;
        } else {
            last_class = Some(class);
        }
        out.push(c);
    }
    out.into_iter().collect()
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::nfkc;
    use unicode_normalization::UnicodeNormalization;

    fn theirs(s: &str) -> String {
        s.nfkc().collect()
    }

    /// Every code point alone, and its canonical decomposition (which recomposes every
    /// primary composite), normalize as the crate normalizes them.
    #[test]
    fn equals_the_crate_on_every_code_point() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let alone = c.to_string();
            assert_eq!(nfkc(&alone), theirs(&alone), "U+{:04X}", c as u32);
            let nfd: String = alone.nfd().collect();
            assert_eq!(nfkc(&nfd), theirs(&nfd), "NFD of U+{:04X}", c as u32);
        }
    }

    /// Random strings of starters that compose, marks of many classes (in and out of
    /// canonical order, so ordering and blocking are exercised), Hangul jamo and syllables,
    /// and compatibility characters.
    #[test]
    fn equals_the_crate_on_mixed_sequences() {
        let pool: Vec<char> = "aAeEoOuUiIcCsSnNzZ\u{3b1}\u{3c9}\u{391}\u{415}\u{3bf}\u{306f}\u{30cf}\u{ff8a}\u{ff9e}\u{ff9f}\
            \u{300}\u{301}\u{302}\u{303}\u{304}\u{306}\u{307}\u{308}\u{30a}\u{30b}\u{30c}\u{323}\u{327}\u{328}\u{331}\u{345}\u{342}\u{313}\u{314}\
            \u{5b0}\u{5bc}\u{94d}\u{93c}\u{e48}\u{e38}\u{1dce}\u{302a}\u{3099}\u{309a}\u{20d2}\u{338}\
            \u{1100}\u{1161}\u{11a8}\u{11a7}\u{11c2}\u{ac00}\u{ac01}\u{d7a3}\u{1112}\u{1175}\
            \u{fb01}\u{2126}\u{212b}\u{1e9b}\u{fdfa}\u{3250}\u{2460}\u{ff21}\u{1d400}\u{2f800}\u{b47}\u{b3e}\u{b57}\u{dd9}\u{dcf}\u{ddf}\u{1b05}\u{1b35} "
            .chars()
            .collect();
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..200_000 {
            let len = 1 + next(8);
            let s: String = (0..len).map(|_| pool[next(pool.len())]).collect();
            assert_eq!(nfkc(&s), theirs(&s), "{:?}", s.chars().map(|c| format!("U+{:04X}", c as u32)).collect::<Vec<_>>());
        }
    }
}
