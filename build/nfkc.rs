//! Writes `$OUT_DIR/nfkc.bin`, the tables `src/base/nfkc.rs` normalizes with, from the
//! `unicode-normalization` crate's data (a build dependency: the engine does not link it).
//! The crate keeps its tables as hash tables of 32-bit entries, about 55 KB of the gzipped
//! wasm module; written here as deltas in LEB128 they are about 14 KB gzipped.
//!
//! The file is three sections, each a count and then its entries in code point order:
//! - decompositions: runs of code points with a compatibility decomposition, each as the
//!   gap from the end of the previous run, `run length × 32 + sequence length`, the first
//!   character of the sequence as a zigzag delta from the previous run's, and each next
//!   character as a zigzag delta from the one before. A run longer than one maps code point
//!   `first + i` to the one character `target + i`. Hangul syllables are left out: they
//!   decompose by arithmetic.
//! - combining classes: each code point where the class changes, as the gap from the
//!   previous one, then the class byte.
//! - primary composites: each composite as the gap from the previous one, then its two
//!   characters as zigzag deltas (the first from the composite, the second from U+0300).

use std::io::Write;
use unicode_normalization::char::{canonical_combining_class, compose, decompose_compatible};
use unicode_normalization::UnicodeNormalization;

#[allow(dead_code)] // the arithmetic is src/base/nfkc.rs's; only the range is needed here
#[path = "../src/base/nfkc/hangul.rs"]
mod hangul;

/// Writes `$OUT_DIR/nfkc.bin`.
pub fn write() {
    println!("cargo::rerun-if-changed=build/nfkc.rs");
    println!("cargo::rerun-if-changed=src/base/nfkc/hangul.rs");
    let chars = || (0..=0x10FFFF).filter_map(char::from_u32);
    let mut out = Vec::new();

    let mut decomposed: Vec<(u32, Vec<u32>)> = Vec::new();
    for c in chars().filter(|c| !hangul::SYLLABLES.contains(&(*c as u32))) {
        let mut d = Vec::new();
        decompose_compatible(c, |x| d.push(x as u32));
        if d != [c as u32] {
            decomposed.push((c as u32, d));
        }
    }
    let mut runs: Vec<(u32, u32, &[u32])> = Vec::new();
    let mut i = 0;
    while i < decomposed.len() {
        let (first, seq) = (decomposed[i].0, &decomposed[i].1);
        let mut len = 1;
        if seq.len() == 1 {
            while let Some((c, d)) = decomposed.get(i + len as usize) {
                if *c != first + len || d.len() != 1 || d[0] != seq[0] + len {
                    break;
                }
                len += 1;
            }
        }
        runs.push((first, len, seq));
        i += len as usize;
    }
    leb(&mut out, runs.len() as u64);
    let (mut end, mut target) = (0, 0);
    for (first, len, seq) in &runs {
        assert!(seq.len() < 32, "a decomposition longer than the format holds");
        leb(&mut out, (first - end) as u64);
        leb(&mut out, (*len as u64) * 32 + seq.len() as u64);
        zigzag(&mut out, seq[0] as i64 - target as i64);
        for pair in seq.windows(2) {
            zigzag(&mut out, pair[1] as i64 - pair[0] as i64);
        }
        end = first + len;
        target = seq[0];
    }

    let mut changes = Vec::new();
    let mut class = 0;
    for c in chars() {
        let k = canonical_combining_class(c);
        if k != class {
            changes.push((c as u32, k));
            class = k;
        }
    }
    leb(&mut out, changes.len() as u64);
    let mut at = 0;
    for (c, k) in changes {
        leb(&mut out, (c - at) as u64);
        out.push(k);
        at = c;
    }

    // A primary composite composes from the NFC of its canonical decomposition without its
    // last character, and that last character.
    let mut composites = Vec::new();
    for c in chars().filter(|c| !hangul::SYLLABLES.contains(&(*c as u32))) {
        let d: Vec<char> = std::iter::once(c).nfd().collect();
        let Some((&last, rest)) = d.split_last() else { continue };
        let mut first = rest.iter().copied().nfc();
        if let (Some(a), None) = (first.next(), first.next()) {
            if compose(a, last) == Some(c) {
                composites.push((c as u32, a as u32, last as u32));
            }
        }
    }
    leb(&mut out, composites.len() as u64);
    let mut at = 0;
    for (c, a, b) in composites {
        leb(&mut out, (c - at) as u64);
        zigzag(&mut out, a as i64 - c as i64);
        zigzag(&mut out, b as i64 - 0x300);
        at = c;
    }

    let path = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("nfkc.bin");
    std::fs::File::create(path).and_then(|mut f| f.write_all(&out)).expect("OUT_DIR is writable");
}

fn leb(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn zigzag(out: &mut Vec<u8>, n: i64) {
    leb(out, ((n << 1) ^ (n >> 63)) as u64);
}
