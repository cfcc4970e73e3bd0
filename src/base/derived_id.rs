//! Ids a row's unique key gives it, for memories that sync (`crate::storage::changes`): two
//! devices that declare the same entity or relation offline make the same row, so applying
//! one's changes on the other is the row already there, not a second one beside it.
//!
//! The id is a hash of the key's parts (FNV-1a over each part's length and bytes, then
//! SplitMix64's finalizer to spread it), placed in `[2^32, 2^53)`: above every id the
//! counters of a memory made before sync gave (a memory that starts syncing keeps its ids),
//! and below 2^53, so JavaScript numbers hold it exactly. Two keys of one table that derive one
//! id (among 10,000 rows, a chance of about 6 in a billion) make the second insert fail as a
//! constraint: two rows are never merged.

/// Whether the memory syncs, as an SQL expression: an insert takes the derived id when it
/// does, and SQLite's counter's (a NULL id) when not.
macro_rules! syncs {
    () => {
        "EXISTS (SELECT 1 FROM sync_state)"
    };
}
pub(crate) use syncs;

/// A part of a unique key.
pub(crate) enum Part<'a> {
    Text(&'a str),
    Int(i64),
}

/// The lowest derived id: 2^32.
pub(crate) const LOW: i64 = 1 << 32;

/// The id the key `parts` derives, after `table` (so two tables' keys never share one).
pub(crate) fn derived_id(table: &str, parts: &[Part<'_>]) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(table.as_bytes());
    for part in parts {
        match part {
            Part::Text(s) => eat(s.as_bytes()),
            Part::Int(i) => eat(&i.to_le_bytes()),
        }
    }
    let mut z = h;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    const SPAN: u64 = (1 << 53) - (1 << 32);
    LOW + (z % SPAN) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_same_key_gives_the_same_id_and_every_id_is_in_range() {
        let a = derived_id("entities", &[Part::Text("a"), Part::Text(""), Part::Text("kaito mori")]);
        assert_eq!(a, derived_id("entities", &[Part::Text("a"), Part::Text(""), Part::Text("kaito mori")]));
        // a part's boundary is part of the key: "ab","" is not "a","b"
        assert_ne!(derived_id("t", &[Part::Text("ab"), Part::Text("")]), derived_id("t", &[Part::Text("a"), Part::Text("b")]));
        assert_ne!(a, derived_id("relations", &[Part::Text("a"), Part::Text(""), Part::Text("kaito mori")]));
        assert_ne!(derived_id("t", &[Part::Int(1)]), derived_id("t", &[Part::Int(2)]));
        for i in 0..10_000 {
            let id = derived_id("t", &[Part::Int(i)]);
            assert!((LOW..1 << 53).contains(&id), "{id}");
        }
        // fixed: every device and every build derives this id
        assert_eq!(derived_id("entities", &[Part::Text("a")]), 4_599_663_104_570_479);
    }
}
