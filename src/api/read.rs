//! Reading an operation's options from JSON into its declared type, with errors that name
//! the field.
//!
//! Options arrive as JSON (from JavaScript, [`crate::Memory::call`], a tool call). They are
//! read by serde into the option types of this module's siblings through a deserializer
//! of our own over `serde_json::Value`, so every failure is a typed [`Error`] naming the
//! field by its path (`source.type`, `embedding[1]`, `history[0].timestamp`), not a message
//! to be parsed back:
//!
//! - a key the type does not declare is [`Error::UnknownOption`] (`deny_unknown_fields`
//!   on every option type; serde hands over the accepted names);
//! - a value of the wrong JSON type is [`Error::WrongType`], in the words of the type the
//!   field asked for (`an integer`, `a string`…);
//! - an integer is any JSON number without a fraction (`3` and `3.0`; `2.5` is not);
//! - JSON `null` in an object reads as absent, as an `undefined` from JavaScript does.
//!
//! Ranges and the rest are each option type's `validate()`, which the typed methods run too.

use crate::api::error::{Error, Result};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Reads `T` from an options object.
pub(crate) fn from_json<T: DeserializeOwned>(value: &Value) -> Result<T> {
    if !value.is_object() {
        return Err(Error::WrongType { field: "options".into(), expected: "an object", got: type_name(value) });
    }
    T::deserialize(Reader { value, at: At::Root }).map_err(|e| e.into_error(&At::Root))
}

/// A JSON value's type, in words, for error messages.
pub(crate) fn type_name(v: &Value) -> String {
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

/// A JSON number that is an integer (`3` or `3.0`), as i64.
pub(crate) fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| f as i64)),
        _ => None,
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

/// Where a value is: a chain of keys and indexes up to the options object, on the stack of
/// the readers of the values that hold it. Written out as a path (`history[0].timestamp`)
/// only when a failure is placed there: reading allocates no path per field, and no
/// generic instance of the reader carries a `String` to drop.
#[derive(Clone, Copy)]
enum At<'p> {
    /// The options object.
    Root,
    /// The value under a key of the object at the first.
    Key(&'p At<'p>, &'p str),
    /// The item at an index of the array at the first.
    Item(&'p At<'p>, usize),
}

impl At<'_> {
    /// The path, as the error's `field` names it: `name`, `outer.name`, `list[1].name`; the
    /// options object itself is the empty path.
    fn path(&self) -> String {
        match self {
            At::Root => String::new(),
            At::Key(parent, name) => join(&parent.path(), name),
            At::Item(parent, index) => format!("{}[{index}]", parent.path()),
        }
    }
}

/// A failure while reading, before it knows the full path of its field: serde's visitors
/// raise `missing_field` and `unknown_field` with the bare name, and the reader of the
/// enclosing object places it.
///
/// Boxed: every generic instance (a `Result<T, ReadError>` per option type, field type and
/// visitor) moves it on each `?`; one pointer instead of the failure itself makes each
/// of those moves a word, and the failure is built by the non-generic functions below,
/// once in the module (BENCHMARKS-HISTORY.md, "Room for facts in time").
#[derive(Debug)]
pub(crate) struct ReadError(Box<Failure>);

#[derive(Debug)]
struct Failure {
    kind: Kind,
    /// The field's path once known, else the name relative to the object being read.
    field: Option<String>,
    placed: bool,
}

#[derive(Debug)]
enum Kind {
    Missing,
    Unknown { accepted: String },
    WrongType { expected: &'static str, got: String },
    Invalid { reason: String },
}

impl ReadError {
    fn new(kind: Kind, field: Option<String>, placed: bool) -> Self {
        ReadError(Box::new(Failure { kind, field, placed }))
    }

    fn wrong(at: &At, expected: &'static str, got: &Value) -> Self {
        Self::new(Kind::WrongType { expected, got: type_name(got) }, Some(at.path()), true)
    }

    /// Gives an unplaced error its path under the object at `at`.
    fn place(mut self, at: &At) -> Self {
        let failure = &mut *self.0;
        if !failure.placed {
            let path = at.path();
            failure.field = Some(match &failure.field {
                Some(name) => join(&path, name),
                None => path,
            });
            failure.placed = true;
        }
        self
    }

    fn into_error(self, at: &At) -> Error {
        let Failure { field, kind, .. } = *self.place(at).0;
        let field = match field {
            Some(f) if !f.is_empty() => f,
            _ => "options".to_owned(),
        };
        match kind {
            Kind::Missing => Error::Missing { field },
            Kind::Unknown { accepted } => Error::UnknownOption { field, accepted },
            Kind::WrongType { expected, got } => Error::WrongType { field, expected, got },
            Kind::Invalid { reason } => Error::Invalid { field, reason },
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?} at {:?}", self.0.kind, self.0.field)
    }
}

impl std::error::Error for ReadError {}

impl de::Error for ReadError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Self::new(Kind::Invalid { reason: msg.to_string() }, None, false)
    }

    fn invalid_type(unexpected: de::Unexpected, expected: &dyn de::Expected) -> Self {
        // a type of ours read from more than one JSON type says what it takes
        let expected = if expected.to_string() == super::RECORD_ID_EXPECTED { super::RECORD_ID_EXPECTED } else { "another type" };
        Self::new(Kind::WrongType { expected, got: unexpected.to_string() }, None, false)
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let names: Vec<String> = expected.iter().map(|v| format!("'{v}'")).collect();
        let reason = format!("must be {}, got {variant:?}", names.join(" or "));
        Self::new(Kind::Invalid { reason }, None, false)
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Self::new(Kind::Unknown { accepted: expected.join(", ") }, Some(field.to_owned()), false)
    }

    fn missing_field(field: &'static str) -> Self {
        Self::new(Kind::Missing, Some(field.to_owned()), false)
    }
}

/// One value and where it is.
struct Reader<'de, 'p> {
    value: &'de Value,
    at: At<'p>,
}

impl<'de, 'p> Reader<'de, 'p> {
    fn wrong(&self, expected: &'static str) -> ReadError {
        ReadError::wrong(&self.at, expected, self.value)
    }

    fn object(&self, declared: &'static [&'static str]) -> Result<Fields<'de, 'p>, ReadError> {
        match self.value {
            Value::Object(map) => Ok(Fields { entries: map.iter(), pending: None, at: self.at, declared }),
            _ => Err(self.wrong("an object")),
        }
    }
}

macro_rules! integers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
            match as_int(self.value) {
                Some(n) => visitor.visit_i64(n).map_err(|e: ReadError| e.place(&self.at)),
                None => Err(self.wrong("an integer")),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Reader<'de, '_> {
    type Error = ReadError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        let out = match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => visitor.visit_u64(u),
                (_, Some(i)) => visitor.visit_i64(i),
                _ => visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visitor.visit_seq(Items { items: items.iter(), index: 0, at: self.at }),
            Value::Object(_) => visitor.visit_map(self.object(&[])?),
        };
        out.map_err(|e: ReadError| e.place(&self.at))
    }

    integers!(deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64);

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value.as_f64() {
            Some(f) => visitor.visit_f64(f).map_err(|e: ReadError| e.place(&self.at)),
            None => Err(self.wrong("a finite number")),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            Value::Bool(b) => visitor.visit_bool(*b).map_err(|e: ReadError| e.place(&self.at)),
            _ => Err(self.wrong("a boolean")),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            Value::String(s) => visitor.visit_borrowed_str(s).map_err(|e: ReadError| e.place(&self.at)),
            _ => Err(self.wrong("a string")),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        match self.value {
            Value::Array(items) => {
                visitor.visit_seq(Items { items: items.iter(), index: 0, at: self.at }).map_err(|e: ReadError| e.place(&self.at))
            }
            _ => Err(self.wrong("an array")),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ReadError> {
        visitor.visit_map(self.object(&[])?).map_err(|e: ReadError| e.place(&self.at))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        visitor.visit_map(self.object(fields)?).map_err(|e: ReadError| e.place(&self.at))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, ReadError> {
        match self.value {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()).map_err(|e: ReadError| e.place(&self.at)),
            _ => Err(self.wrong("a string")),
        }
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf unit unit_struct newtype_struct tuple tuple_struct identifier ignored_any
    }
}

/// The entries of an object. A `null` under a name the type declares is skipped (absent);
/// under any other name it is still an unknown option.
struct Fields<'de, 'p> {
    entries: serde_json::map::Iter<'de>,
    pending: Option<(&'de String, &'de Value)>,
    /// Where the object is.
    at: At<'p>,
    declared: &'static [&'static str],
}

impl<'de> MapAccess<'de> for Fields<'de, '_> {
    type Error = ReadError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, ReadError> {
        let Some(key) = self.next_key() else { return Ok(None) };
        seed.deserialize(key.into_deserializer()).map(Some).map_err(|e: ReadError| e.place(&self.at))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, ReadError> {
        seed.deserialize(self.next_value())
    }
}

/// The halves of [`MapAccess`] that do not depend on the type read, apart from its generic
/// methods, which are compiled once per option type (27 in the wasm module): there each
/// would be a copy of these.
impl<'de, 'p> Fields<'de, 'p> {
    /// The next entry's key, its value held for [`Self::next_value`].
    fn next_key(&mut self) -> Option<&'de str> {
        let declared = self.declared;
        let (key, value) = self.entries.by_ref().find(|(k, v)| !(v.is_null() && declared.contains(&k.as_str())))?;
        self.pending = Some((key, value));
        Some(key.as_str())
    }

    /// The reader of the value whose key was read last.
    fn next_value(&mut self) -> Reader<'de, '_> {
        let (key, value) = self.pending.take().expect("serde asks for a value after its key");
        Reader { value, at: At::Key(&self.at, key) }
    }
}

/// The items of an array, each at `path[index]`.
struct Items<'de, 'p> {
    items: std::slice::Iter<'de, Value>,
    index: usize,
    /// Where the array is.
    at: At<'p>,
}

impl<'de> SeqAccess<'de> for Items<'de, '_> {
    type Error = ReadError;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, ReadError> {
        let Some(reader) = self.next_reader() else { return Ok(None) };
        seed.deserialize(reader).map(Some)
    }
}

impl<'de, 'p> Items<'de, 'p> {
    /// The reader of the next item: apart from the generic method, compiled once per type of
    /// item, which would each carry a copy.
    fn next_reader(&mut self) -> Option<Reader<'de, '_>> {
        let value = self.items.next()?;
        self.index += 1;
        Some(Reader { value, at: At::Item(&self.at, self.index - 1) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        n: Option<i64>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        name: String,
        inner: Option<Inner>,
        list: Option<Vec<Inner>>,
        any: Option<Value>,
    }

    fn err(v: Value) -> (String, String) {
        let e = from_json::<Outer>(&v).unwrap_err();
        (e.code().to_owned(), e.field().unwrap_or_default().to_owned())
    }

    #[test]
    fn errors_name_the_field_by_its_path() {
        assert_eq!(err(json!({})), ("missing_field".into(), "name".into()));
        assert_eq!(err(json!({"name": 1})), ("wrong_type".into(), "name".into()));
        assert_eq!(err(json!({"name": "x", "inner": {"m": 1}})), ("unknown_option".into(), "inner.m".into()));
        assert_eq!(err(json!({"name": "x", "inner": {"n": 2.5}})), ("wrong_type".into(), "inner.n".into()));
        assert_eq!(err(json!({"name": "x", "list": [{}, {"n": "1"}]})), ("wrong_type".into(), "list[1].n".into()));
        assert_eq!(err(json!({"name": "x", "list": [{}, {}, {"m": 1}]})), ("unknown_option".into(), "list[2].m".into()));
        assert_eq!(err(json!({"name": "x", "list": {}})), ("wrong_type".into(), "list".into()));
        assert_eq!(err(json!({"name": "x", "inner": []})), ("wrong_type".into(), "inner".into()));
        assert_eq!(err(json!({"name": "x", "extra": null})), ("unknown_option".into(), "extra".into()), "a null key is still a key");
        assert_eq!(err(json!([1])), ("wrong_type".into(), "options".into()));
    }

    #[test]
    fn null_is_absent_and_integers_may_carry_a_zero_fraction() {
        let got: Outer = from_json(&json!({"name": "x", "inner": {"n": 3.0}, "list": null, "any": {"k": null}})).unwrap();
        assert_eq!(got.inner, Some(Inner { n: Some(3) }));
        assert_eq!(got.list, None);
        assert_eq!(got.any, Some(json!({"k": null})), "inside a free-form value null is kept");
    }
}
