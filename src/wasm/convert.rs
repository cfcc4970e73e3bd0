//! Values across the boundary: JavaScript objects in, JSON-compatible objects out.

use super::error::to_js_error;
use crate::Error;
use serde::Serialize;
use wasm_bindgen::JsValue;

/// Options from JavaScript as JSON; `undefined` reads as an empty object.
pub fn options_from_js(value: JsValue) -> Result<serde_json::Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        to_js_error(Error::WrongType { field: "options".into(), expected: "a plain JSON-compatible object", got: e.to_string() })
    })
}

/// A response as a plain JavaScript object (maps as objects, integers as numbers).
pub fn response_to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsValue::from(js_sys::Error::new(&format!("response conversion failed: {e}"))))
}
