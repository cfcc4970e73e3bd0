//! Reading an operation's options object with errors that name the field.
//!
//! Options arrive as JSON (from JavaScript, from `call`, from a tool call). Each
//! operation lists the options it accepts; anything else is [`Error::UnknownOption`]
//! before any value is read, and every value is checked for type and range here, so an
//! operation body only ever sees valid input. JSON `null` reads as absent, as an
//! `undefined` from JavaScript does.

use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// An options object, checked against the names an operation accepts.
pub struct Args<'a> {
    obj: &'a Map<String, Value>,
}

/// A JSON value's type, in words, for error messages.
pub fn type_name(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) if s.chars().count() > 40 => "a string".into(),
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

impl<'a> Args<'a> {
    /// Checks that `value` is an object whose keys are all in `accepted`.
    pub fn new(value: &'a Value, accepted: &[&str]) -> Result<Self> {
        let obj =
            value.as_object().ok_or_else(|| Error::WrongType { field: "options".into(), expected: "an object", got: type_name(value) })?;
        if let Some(unknown) = obj.keys().find(|k| !accepted.contains(&k.as_str())) {
            return Err(Error::UnknownOption { field: unknown.clone(), accepted: accepted.join(", ") });
        }
        Ok(Args { obj })
    }

    /// The raw value of `name`, `None` when absent or null.
    pub fn value(&self, name: &str) -> Option<&'a Value> {
        self.obj.get(name).filter(|v| !v.is_null())
    }

    /// An optional string.
    pub fn string(&self, name: &str) -> Result<Option<String>> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(wrong(name, "a string", v)),
        }
    }

    /// A required string that is not empty after trimming.
    pub fn required_text(&self, name: &str) -> Result<String> {
        let s = self.string(name)?.ok_or_else(|| Error::Missing { field: name.into() })?;
        if s.trim().is_empty() {
            return Err(Error::Invalid { field: name.into(), reason: "must not be empty".into() });
        }
        Ok(s)
    }

    /// An optional integer within `min..=max`.
    pub fn int(&self, name: &str, min: i64, max: i64) -> Result<Option<i64>> {
        let Some(v) = self.value(name) else { return Ok(None) };
        let n = as_int(v).ok_or_else(|| wrong(name, "an integer", v))?;
        if n < min || n > max {
            return Err(Error::OutOfRange { field: name.into(), range: format!("{min}–{max}"), got: n.to_string() });
        }
        Ok(Some(n))
    }

    /// A required positive row id.
    pub fn id(&self, name: &str) -> Result<i64> {
        self.int(name, 1, i64::MAX)?.ok_or_else(|| Error::Missing { field: name.into() })
    }

    /// An optional boolean.
    pub fn boolean(&self, name: &str) -> Result<Option<bool>> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(wrong(name, "a boolean", v)),
        }
    }

    /// An optional integer of at least `min`, lowered to `cap`: `(value, lowered)`.
    pub fn capped(&self, name: &str, min: i64, cap: i64, default: i64) -> Result<(i64, bool)> {
        match self.int(name, min, i64::MAX)? {
            None => Ok((default, false)),
            Some(n) if n > cap => Ok((cap, true)),
            Some(n) => Ok((n, false)),
        }
    }

    /// An optional array.
    pub fn array(&self, name: &str) -> Result<Option<&'a Vec<Value>>> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(wrong(name, "an array", v)),
        }
    }

    /// An optional object.
    pub fn object(&self, name: &str) -> Result<Option<&'a Map<String, Value>>> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o)),
            Some(v) => Err(wrong(name, "an object", v)),
        }
    }
}

/// A JSON number that is an integer (`3` or `3.0`), as i64.
pub fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| f as i64)),
        _ => None,
    }
}

/// The error for a value of the wrong type.
pub fn wrong(field: &str, expected: &'static str, got: &Value) -> Error {
    Error::WrongType { field: field.into(), expected, got: type_name(got) }
}
