//! Options that arrive as JSON text (the wasm binding's), read within the per-call budget
//! ([`MAX_CALL_BYTES`], [`MAX_CALL_VALUES`]) before anything else is done with them.
//!
//! The values are counted in the text before it is read, so a text of millions of tiny
//! values is refused before one of them is built: the heap such a call grows by is bounded,
//! whatever the text holds. Counted by a scan of the bytes rather than while reading, which
//! would need a second JSON reader in the wasm module.

use super::{MAX_CALL_BYTES, MAX_CALL_VALUES};
use crate::api::error::Error;
use serde_json::Value;

/// Why options could not be read from text.
#[derive(Debug)]
pub enum Unread {
    /// Past the per-call budget: `out_of_range`, field `options`.
    Budget(Error),
    /// Not JSON.
    Json(serde_json::Error),
}

/// The options `text` holds, within the per-call budget.
pub fn options_from_text(text: &str) -> Result<Value, Unread> {
    within(text, MAX_CALL_BYTES, MAX_CALL_VALUES)
}

/// The value `text` holds, if it is at most `bytes` long and holds at most `values` values
/// and keys.
fn within(text: &str, bytes: usize, values: usize) -> Result<Value, Unread> {
    let over = |got: String| {
        Unread::Budget(Error::OutOfRange {
            field: "options".into(),
            range: format!("at most {bytes} bytes of JSON holding at most {values} values and keys"),
            got,
        })
    };
    if text.len() > bytes {
        return Err(over(format!("{} bytes", text.len())));
    }
    let held = counted(text);
    if held > values {
        return Err(over(format!("{held} values and keys")));
    }
    serde_json::from_str(text).map_err(Unread::Json)
}

/// How many values and keys a JSON text holds: every one but the first follows a `[`, `{`,
/// `,` or `:` outside a string, so this counts those and one (an empty array or object
/// counts one more than it holds: a bound, exact for any text without one).
fn counted(text: &str) -> usize {
    let (mut n, mut in_string, mut escaped) = (1, false, false);
    for &b in text.as_bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'[' | b'{' | b',' | b':' => n += 1,
                _ => {}
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Within the budget the text reads as `serde_json` reads it, value for value.
    #[test]
    fn reads_as_serde_json_reads() {
        let text = r#"{"a": [1, -2, 3.5, 1e300, "é\u00e9", null, true, {"b": {}}], "c": "", "a2": []}"#;
        let got = options_from_text(text).unwrap();
        assert_eq!(got, serde_json::from_str::<Value>(text).unwrap());
        assert_eq!(serde_json::to_string(&got).unwrap(), serde_json::to_string(&serde_json::from_str::<Value>(text).unwrap()).unwrap());
        assert!(matches!(options_from_text("{"), Err(Unread::Json(e)) if e.is_eof()));
        assert!(matches!(options_from_text("{} x"), Err(Unread::Json(e)) if e.is_syntax()));
    }

    /// A text of more values than the budget is refused before it is read; exactly the
    /// budget is read. Brackets, commas and colons inside strings are text.
    #[test]
    fn more_values_than_the_budget_are_refused() {
        let zeros = |n: usize| format!("[{}]", vec!["0"; n].join(","));
        // the array is one value, its numbers the rest
        assert!(within(&zeros(999), 1 << 20, 1000).is_ok());
        assert!(within(&format!("{{\"a\": {}}}", zeros(997)), 1 << 20, 1000).is_ok());
        assert!(within(&format!("[\"{}\\\"[,:{{\", 0]", "[,:{".repeat(1000)), 1 << 20, 3).is_ok());
        match within(&zeros(1000), 1 << 20, 1000) {
            Err(Unread::Budget(e)) => assert_eq!((e.code(), e.field()), ("out_of_range", Some("options"))),
            other => panic!("{other:?}"),
        }
        assert_eq!(counted(r#"{"a": [1, {"b": null}], "c": "d,e"}"#), 9);
    }

    /// A text longer than the budget's bytes is refused before it is read.
    #[test]
    fn more_bytes_than_the_budget_are_refused() {
        let text = format!("\"{}\"", "a".repeat(1000));
        assert!(within(&text, 1002, 10).is_ok());
        match within(&text, 1001, 10) {
            Err(Unread::Budget(e)) => assert_eq!(e.field(), Some("options")),
            other => panic!("{other:?}"),
        }
    }
}
