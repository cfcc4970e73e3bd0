//! Values across the boundary: JavaScript objects in, JSON-compatible objects out.

use super::error::to_js_error;
use crate::api::{options_from_text, Unread};
use crate::{Error, MAX_CALL_BYTES};
use js_sys::{Array, JsString, Object};
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

/// Options from JavaScript as JSON; `undefined` reads as an empty object. Options past the
/// per-call budget (`MAX_CALL_BYTES`, `MAX_CALL_VALUES`) are refused (`out_of_range`, field
/// `options`) before they are read.
///
/// They are read as the text `JSON.stringify` makes of them, by the engine's own JSON
/// reader, so the module carries one deserializer (BENCHMARKS.md, "Package size"). As in
/// JSON, a member that is `undefined` or a function is absent and a typed array is an
/// object (an embedding must be an array of numbers; `Array.from` makes one); a `BigInt`
/// or a cycle is refused.
///
/// A JavaScript string is UTF-16 and may hold a lone surrogate, which no Rust string can:
/// `JSON.stringify` writes it as an escape the JSON reader refuses. Such a string is refused
/// (`invalid_value`), naming its field, as every engine refuses what it cannot keep as
/// given; the options are searched for it only when reading failed, so well-formed calls
/// pay nothing.
pub fn options_from_js(value: JsValue) -> Result<serde_json::Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    let wrong = |got: String| to_js_error(Error::WrongType { field: "options".into(), expected: "a plain JSON-compatible object", got });
    let text = js_sys::JSON::stringify(&value).map_err(|e| wrong(String::from(js_sys::Error::from(e).message())))?;
    // a UTF-16 unit is at least one byte of UTF-8: a text past the budget in units is
    // refused before it is copied into the heap
    if text.length() as usize > MAX_CALL_BYTES {
        let range = format!("at most {MAX_CALL_BYTES} bytes of JSON");
        return Err(to_js_error(Error::OutOfRange { field: "options".into(), range, got: format!("{} UTF-16 units", text.length()) }));
    }
    options_from_text(&String::from(text)).map_err(|unread| match unread {
        Unread::Budget(e) => to_js_error(e),
        Unread::Json(e) => match ill_formed(&value, "") {
            Some(field) => {
                let field = if field.is_empty() { "options".to_owned() } else { field };
                to_js_error(Error::Invalid { field, reason: "must be well-formed UTF-16: it holds a lone surrogate".to_owned() })
            }
            None => wrong(e.to_string()),
        },
    })
}

/// The path of the first string or key under `v` that is not well-formed UTF-16.
fn ill_formed(v: &JsValue, path: &str) -> Option<String> {
    if let Some(s) = v.dyn_ref::<JsString>() {
        return (!s.is_valid_utf16()).then(|| path.to_owned());
    }
    if let Some(items) = v.dyn_ref::<Array>() {
        return items.iter().enumerate().find_map(|(i, item)| ill_formed(&item, &format!("{path}[{i}]")));
    }
    if v.is_object() {
        let entries = Object::entries(v.unchecked_ref());
        return entries.iter().find_map(|entry| {
            let pair: Array = entry.unchecked_into();
            let key = pair.get(0);
            let name = key.as_string().unwrap_or_default();
            let at = if path.is_empty() { name } else { format!("{path}.{name}") };
            match key.dyn_ref::<JsString>() {
                Some(k) if !k.is_valid_utf16() => Some(at),
                _ => ill_formed(&pair.get(1), &at),
            }
        });
    }
    None
}

/// A response as a plain JavaScript object (maps as objects, integers as numbers): written
/// as JSON here and read by the JavaScript engine's own `JSON.parse`, so the module carries
/// no serializer to JavaScript objects (`serde_wasm_bindgen`) besides its JSON writer.
pub fn response_to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value).map_err(|e| failed(&e.to_string()))?;
    text_to_js(&text)
}

/// A response already written as JSON text (`Memory::call_text`), as a JavaScript value.
pub fn text_to_js(text: &str) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(text).map_err(|_| failed("JSON.parse refused it"))
}

fn failed(e: &str) -> JsValue {
    JsValue::from(js_sys::Error::new(&format!("response conversion failed: {e}")))
}

/// `n`, a count a host's object returned (of chunks, of bytes, a handle), as a whole number;
/// else an error saying what `what` returned instead.
pub(super) fn whole(n: f64, what: &str) -> Result<u64, String> {
    if n.is_finite() && n >= 0.0 && n.fract() == 0.0 {
        Ok(n as u64)
    } else {
        Err(format!("{what} returned {n}, not a whole number"))
    }
}
