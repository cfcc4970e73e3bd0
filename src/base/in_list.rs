//! `IN (?, …)` lists of a few fixed lengths. A statement is prepared once and kept
//! (`prepare_cached`) only if its text repeats; a list as long as its values made a new
//! text for nearly every call, so reconstruct would prepare two statements on each. Lists
//! are padded to the next power of two by repeating their last value, which an `IN` does
//! not count twice.

use rusqlite::types::Value;

/// Values one list holds at most: a longer one is read in chunks of this many, so that a
/// statement stays far below SQLite's limit on its variables (32766) whatever else it binds.
pub const MAX: usize = 256;

/// `items` padded to a power of two by repeating the last. An empty list stays empty
/// (callers do not query with one).
pub fn pad<T: Clone>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.into_iter().collect();
    if let Some(last) = items.last().cloned() {
        items.resize(items.len().next_power_of_two(), last);
    }
    items
}

/// The placeholders for `values` padded to a power of two, and the values padded alike.
pub fn padded(values: impl IntoIterator<Item = Value>) -> (String, Vec<Value>) {
    let values = pad(values);
    (vec!["?"; values.len()].join(","), values)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn pads_to_a_power_of_two_with_the_last_value() {
        let (marks, values) = padded([1, 2, 3].map(Value::Integer));
        assert_eq!(marks, "?,?,?,?");
        assert_eq!(values, [1, 2, 3, 3].map(Value::Integer));
        assert_eq!(padded([Value::Integer(7)]).0, "?");
        assert_eq!(padded(Vec::new()), (String::new(), Vec::new()));
    }
}
