//! Stable sorting through one instance of the standard library's sort.
//!
//! Every `sort_by` on another element or comparator type compiles the whole stable sort
//! again, about 4.5 KB of wasm each (twenty-one of them were over 100 KB of the module,
//! BENCHMARKS.md). Here the standard sort runs once, on positions, with the comparison
//! behind a `dyn` call, and the elements are then moved into that order. The result is
//! exactly `slice::sort_by`'s: sorting positions stably by the same comparison gives the
//! same permutation. The engine sorts short lists (at most a result depth, a neighbourhood,
//! an item's claims), so the extra work is small.
//!
//! Collecting into a `BTreeMap` or `BTreeSet` sorts too (then builds the tree from the
//! sorted items), with another instance of the stable sort for each item type: in wasm the
//! engine builds its maps by inserting instead ([`map_from`]); the maps and sets a call
//! builds are sorted lists (`crate::base::sorted`), which insert.

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// `v.sort_by(cmp)`: stable.
pub(crate) fn sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let mut order: Vec<usize> = (0..v.len()).collect();
    sort_positions(&mut order, &|a, b| cmp(&v[a], &v[b]));
    // Position i takes the element at order[i]: each cycle of the permutation is rotated
    // by swaps along it, the element that started the cycle carried to where it belongs.
    let mut placed = vec![false; v.len()];
    for start in 0..v.len() {
        let mut i = start;
        while !placed[i] {
            placed[i] = true;
            let from = order[i];
            if from == start {
                break;
            }
            v.swap(i, from);
            i = from;
        }
    }
}

/// `v.sort_by_key(key)`: stable.
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// `v.sort()`: stable.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// `entries.collect::<BTreeMap<_, _>>()`. In wasm the entries are inserted one by one: the
/// same map (a later entry for a key replaces an earlier one), without the stable sort
/// `collect` runs before building the map, which it compiles again for each entry type
/// (about 4 KB of wasm each). Natively, where size does not matter, `collect` as before.
pub(crate) fn map_from<K: Ord, V>(entries: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    #[cfg(target_arch = "wasm32")]
    return inserted(entries);
    #[cfg(not(target_arch = "wasm32"))]
    return entries.into_iter().collect();
}

/// A collection of `items`, inserted one by one.
#[cfg(any(target_arch = "wasm32", test))]
fn inserted<T, C: Default + Extend<T>>(items: impl IntoIterator<Item = T>) -> C {
    let mut out = C::default();
    out.extend(items);
    out
}

/// The one instance of the standard stable sort.
fn sort_positions(order: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    order.sort_by(|a, b| cmp(*a, *b));
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The same order as the standard library's stable sort, ties included.
        #[test]
        fn equals_the_standard_stable_sort(mut v in proptest::collection::vec((0u8..6, any::<u16>()), 0..200)) {
            let mut want = v.clone();
            want.sort_by_key(|p| p.0);
            super::sort_by_key(&mut v, |p| p.0);
            prop_assert_eq!(v, want);
        }

        /// Inserted, the same map and set as `collect`'s, keys given more than once included.
        #[test]
        fn maps_and_sets_inserted_equal_collected_ones(v in proptest::collection::vec((0u8..20, any::<u16>()), 0..100)) {
            use std::collections::{BTreeMap, BTreeSet};
            prop_assert_eq!(super::inserted::<_, BTreeMap<_, _>>(v.iter().copied()), v.iter().copied().collect::<BTreeMap<_, _>>());
            prop_assert_eq!(super::inserted::<_, BTreeSet<_>>(v.iter().copied()), v.iter().copied().collect::<BTreeSet<_>>());
        }
    }
}
