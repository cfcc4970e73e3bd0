//! Values across the boundary: JavaScript objects in, JSON-compatible objects out.

use super::error::to_js_error;
use crate::Error;
use js_sys::{Array, JsString, Object};
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

/// Options from JavaScript as JSON; `undefined` reads as an empty object.
///
/// A JavaScript string is UTF-16 and may hold a lone surrogate, which no Rust string can:
/// the conversion would replace it with U+FFFD and store something else than was given. Such
/// a string is refused instead (`invalid_value`, naming its field), as every engine refuses
/// what it cannot keep as given. The options are searched for one only when the converted
/// text holds a U+FFFD, so well-formed calls pay nothing.
pub fn options_from_js(value: JsValue) -> Result<serde_json::Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    let json: serde_json::Value = serde_wasm_bindgen::from_value(value.clone()).map_err(|e| {
        to_js_error(Error::WrongType { field: "options".into(), expected: "a plain JSON-compatible object", got: e.to_string() })
    })?;
    if holds_replacement(&json) {
        if let Some(field) = ill_formed(&value, "") {
            let field = if field.is_empty() { "options".to_owned() } else { field };
            let reason = "must be well-formed UTF-16: it holds a lone surrogate".to_owned();
            return Err(to_js_error(Error::Invalid { field, reason }));
        }
    }
    Ok(json)
}

/// Whether any string or key of `v` holds U+FFFD, the mark a lone surrogate leaves.
fn holds_replacement(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::String(s) => s.contains('\u{FFFD}'),
        serde_json::Value::Array(items) => items.iter().any(holds_replacement),
        serde_json::Value::Object(map) => map.iter().any(|(k, v)| k.contains('\u{FFFD}') || holds_replacement(v)),
        _ => false,
    }
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
/// as JSON here and read by the JavaScript engine's own `JSON.parse`. As fast as building
/// the object through `serde_wasm_bindgen` (Node, the scale bench at 1k and 10k, three
/// rounds each) and 3 KB smaller gzipped, without that serializer in the module.
pub fn response_to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let failed = |e: String| JsValue::from(js_sys::Error::new(&format!("response conversion failed: {e}")));
    let text = serde_json::to_string(value).map_err(|e| failed(e.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|_| failed("JSON.parse refused it".into()))
}
