//! The one conversion of errors into JavaScript errors.

use crate::Error;
use wasm_bindgen::{JsCast, JsValue};

/// A JavaScript `Error` named `AssociativeMemoryError` with a stable `code` and the
/// `field` it concerns (or `undefined`), so callers can branch on `err.code` and keep a
/// stack trace.
pub fn js_error(message: &str, code: &str, field: Option<&str>) -> JsValue {
    let err = js_sys::Error::new(message);
    err.set_name("AssociativeMemoryError");
    let obj: &JsValue = err.as_ref();
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(obj, &"code".into(), &code.into());
    let _ = js_sys::Reflect::set(obj, &"field".into(), &field.map(JsValue::from).unwrap_or(JsValue::UNDEFINED));
    err.into()
}

/// An engine error as a JavaScript error (see [`js_error`]).
pub fn to_js_error(e: Error) -> JsValue {
    js_error(&e.to_string(), e.code(), e.field())
}

/// The words of a failure a host's object threw (a page store's, a file system's).
pub fn host_message(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map_or_else(|| format!("{e:?}"), |e| String::from(e.message()))
}
