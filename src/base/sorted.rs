//! Maps and sets as sorted lists, for the engine's per-call collections.
//!
//! A `BTreeMap` compiles its tree code (search, insertion with node splits, the iterators,
//! the drop that walks the nodes) again for every key and value type: some 3–5 KB of wasm
//! each, about 150 KB of the size-built module for its 29 types (BENCHMARKS-HISTORY.md,
//! "Sorted lists for the per-call maps"). A read builds its maps and sets within one call
//! and bounds them (a neighbourhood, a result depth, a pool of records), so a sorted list
//! does as well: the keys in one `Vec`, the values in another at the same positions, found
//! by binary search. The search and the key insertion are compiled once per key type,
//! shared by every value type; what is left per value type is a `Vec` insertion.
//!
//! Iteration is in key order, as a `BTreeMap`'s; an insertion for a key already present
//! replaces the value and keeps the key, as `BTreeMap::insert` does. Insertion moves the
//! entries after the new key's place, so this is for collections of hundreds, built within
//! a call (entries that come in key order, as from an `ORDER BY`, are appended), and for
//! the few blocks of the vector index (one per kind, model and dimension). What can grow
//! with the database in any key order keeps its B-tree: the lexical index, the buckets'
//! strings, the update hook's ids, what an import reads.

use std::borrow::Borrow;
use std::fmt;

/// A map whose keys are kept in order: a `BTreeMap` for a collection a call builds.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct SortedMap<K, V> {
    keys: Vec<K>,
    values: Vec<V>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap { keys: Vec::new(), values: Vec::new() }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.keys.iter().zip(&self.values)).finish()
    }
}

/// Where `key` is in `keys` (`Ok`), or where it would go (`Err`): one instance per key type
/// (and per borrowed form looked up, `&str` for `String`).
fn find<K: Borrow<Q>, Q: Ord + ?Sized>(keys: &[K], key: &Q) -> Result<usize, usize> {
    // Entries often come in key order: the end first, then the binary search.
    match keys.last() {
        None => Err(0),
        Some(last) if last.borrow() < key => Err(keys.len()),
        _ => keys.binary_search_by(|k| k.borrow().cmp(key)),
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    pub(crate) const fn new() -> Self {
        SortedMap { keys: Vec::new(), values: Vec::new() }
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// `BTreeMap::insert`: the old value for `key` if there was one (the key kept).
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        match find(&self.keys, &key) {
            Ok(i) => Some(std::mem::replace(&mut self.values[i], value)),
            Err(i) => {
                self.keys.insert(i, key);
                self.values.insert(i, value);
                None
            }
        }
    }

    pub(crate) fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        find(&self.keys, key).ok().map(|i| &self.values[i])
    }

    pub(crate) fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        find(&self.keys, key).ok().map(|i| &mut self.values[i])
    }

    pub(crate) fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        find(&self.keys, key).is_ok()
    }

    /// `BTreeMap::entry`: `or_insert_with`, `or_default`, `or_insert` and `and_modify` on it.
    pub(crate) fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        let at = find(&self.keys, &key);
        Entry { map: self, key, at }
    }

    /// `BTreeMap::retain`: keeps the entries `keep` is true of, in order.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let mut i = 0;
        while i < self.keys.len() {
            if keep(&self.keys[i], &mut self.values[i]) {
                i += 1;
            } else {
                self.keys.remove(i);
                self.values.remove(i);
            }
        }
    }

    /// The entries in key order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator {
        self.keys.iter().zip(&self.values)
    }

    pub(crate) fn keys(&self) -> std::slice::Iter<'_, K> {
        self.keys.iter()
    }

    pub(crate) fn values(&self) -> std::slice::Iter<'_, V> {
        self.values.iter()
    }

    /// The entries in key order, the values changeable.
    pub(crate) fn iter_mut(&mut self) -> std::iter::Zip<std::slice::Iter<'_, K>, std::slice::IterMut<'_, V>> {
        self.keys.iter().zip(self.values.iter_mut())
    }

    pub(crate) fn values_mut(&mut self) -> std::slice::IterMut<'_, V> {
        self.values.iter_mut()
    }

    pub(crate) fn into_keys(self) -> std::vec::IntoIter<K> {
        self.keys.into_iter()
    }

    pub(crate) fn into_values(self) -> std::vec::IntoIter<V> {
        self.values.into_iter()
    }
}

impl<K: Ord, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::iter::Zip<std::vec::IntoIter<K>, std::vec::IntoIter<V>>;
    fn into_iter(self) -> Self::IntoIter {
        self.keys.into_iter().zip(self.values)
    }
}

impl<'a, K: Ord, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Zip<std::slice::Iter<'a, K>, std::slice::Iter<'a, V>>;
    fn into_iter(self) -> Self::IntoIter {
        self.keys.iter().zip(&self.values)
    }
}

/// A key's place in a [`SortedMap`], found once: `BTreeMap`'s `Entry`, for what the engine
/// does with one.
pub(crate) struct Entry<'a, K, V> {
    map: &'a mut SortedMap<K, V>,
    key: K,
    at: Result<usize, usize>,
}

impl<'a, K, V> Entry<'a, K, V> {
    pub(crate) fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        let i = match self.at {
            Ok(i) => i,
            Err(i) => {
                self.map.keys.insert(i, self.key);
                self.map.values.insert(i, make());
                i
            }
        };
        &mut self.map.values[i]
    }

    pub(crate) fn or_insert(self, value: V) -> &'a mut V {
        self.or_insert_with(|| value)
    }

    pub(crate) fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    pub(crate) fn and_modify(self, change: impl FnOnce(&mut V)) -> Self {
        if let Ok(i) = self.at {
            change(&mut self.map.values[i]);
        }
        self
    }
}

/// `map[&key]`: panics when `key` is absent, as a `BTreeMap`'s index does.
impl<K: Ord, V> std::ops::Index<&K> for SortedMap<K, V> {
    type Output = V;
    fn index(&self, key: &K) -> &V {
        self.get(key).expect("key in the map")
    }
}

/// Inserted one by one: a later entry for a key replaces an earlier one, as in `collect`.
impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut out = Self::new();
        for (k, v) in entries {
            out.insert(k, v);
        }
        out
    }
}

/// Inserted one by one, as `BTreeMap::extend`.
impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, entries: I) {
        for (k, v) in entries {
            self.insert(k, v);
        }
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for SortedMap<K, V> {
    fn from(entries: [(K, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

/// A set whose items are kept in order: a `BTreeSet` for a collection a call builds.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct SortedSet<T> {
    items: Vec<T>,
}

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        SortedSet { items: Vec::new() }
    }
}

impl<T: fmt::Debug> fmt::Debug for SortedSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(&self.items).finish()
    }
}

impl<T: Ord> SortedSet<T> {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// `BTreeSet::insert`: whether `item` was new (an equal item already there is kept).
    pub(crate) fn insert(&mut self, item: T) -> bool {
        match find(&self.items, &item) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, item);
                true
            }
        }
    }

    pub(crate) fn contains(&self, item: &T) -> bool {
        find(&self.items, item).is_ok()
    }

    /// The items in order.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }
}

impl<T: Ord> IntoIterator for SortedSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, T: Ord> IntoIterator for &'a SortedSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

/// Inserted one by one: the first of equal items is kept, as in `collect`.
impl<T: Ord> FromIterator<T> for SortedSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut out = Self::new();
        for item in items {
            out.insert(item);
        }
        out
    }
}

impl<T: Ord> Extend<T> for SortedSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for item in items {
            self.insert(item);
        }
    }
}

impl<T: Ord, const N: usize> From<[T; N]> for SortedSet<T> {
    fn from(items: [T; N]) -> Self {
        items.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{SortedMap, SortedSet};
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    proptest! {
        /// Every operation answers as a `BTreeMap`'s does, and iteration is in the same order.
        #[test]
        fn map_is_a_btree_map(ops in proptest::collection::vec((0u8..6, -20i64..20, any::<u16>()), 0..200)) {
            let (mut ours, mut theirs) = (SortedMap::new(), BTreeMap::new());
            for (op, k, v) in ops {
                match op {
                    0 => prop_assert_eq!(ours.insert(k, v), theirs.insert(k, v)),
                    1 => prop_assert_eq!(ours.get(&k), theirs.get(&k)),
                    2 => {
                        let (a, b) = (ours.entry(k).or_default(), theirs.entry(k).or_default());
                        *a = a.wrapping_add(v);
                        *b = b.wrapping_add(v);
                        prop_assert_eq!(a, b);
                    }
                    3 => {
                        ours.entry(k).and_modify(|x| *x = x.wrapping_mul(3)).or_insert(v);
                        theirs.entry(k).and_modify(|x| *x = x.wrapping_mul(3)).or_insert(v);
                    }
                    4 => {
                        ours.retain(|key, x| (key + i64::from(*x)) % 3 != 0);
                        theirs.retain(|key, x| (key + i64::from(*x)) % 3 != 0);
                    }
                    _ => prop_assert_eq!(ours.contains_key(&k), theirs.contains_key(&k)),
                }
                prop_assert_eq!(ours.len(), theirs.len());
            }
            prop_assert_eq!(ours.iter().collect::<Vec<_>>(), theirs.iter().collect::<Vec<_>>());
            prop_assert_eq!(ours.into_iter().collect::<Vec<_>>(), theirs.into_iter().collect::<Vec<_>>());
        }

        /// `insert`, `contains` and the order as a `BTreeSet`'s.
        #[test]
        fn set_is_a_btree_set(items in proptest::collection::vec(-50i64..50, 0..200)) {
            let (mut ours, mut theirs) = (SortedSet::new(), BTreeSet::new());
            for &x in &items {
                prop_assert_eq!(ours.insert(x), theirs.insert(x));
                prop_assert_eq!(ours.contains(&(x + 1)), theirs.contains(&(x + 1)));
            }
            prop_assert_eq!(ours.iter().collect::<Vec<_>>(), theirs.iter().collect::<Vec<_>>());
        }
    }

    /// A key inserted again keeps the first key and takes the new value, as `BTreeMap` does.
    #[test]
    fn insert_again_replaces_the_value() {
        let mut m = SortedMap::from([(3, "a"), (1, "b")]);
        assert_eq!(m.insert(3, "c"), Some("a"));
        assert_eq!(m.iter().collect::<Vec<_>>(), [(&1, &"b"), (&3, &"c")]);
    }
}
