//! The one conversion of engine errors into JavaScript errors.

use crate::Error;
use wasm_bindgen::JsValue;

/// A JavaScript `Error` named `AssociativeMemoryError`, with the engine's message, its
/// stable `code`, and the `field` it concerns (or `undefined`), so callers can branch on
/// `err.code` and keep a stack trace.
pub fn to_js_error(e: Error) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("AssociativeMemoryError");
    let obj: &JsValue = err.as_ref();
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(obj, &"code".into(), &e.code().into());
    let _ = js_sys::Reflect::set(obj, &"field".into(), &e.field().map(JsValue::from).unwrap_or(JsValue::UNDEFINED));
    err.into()
}
