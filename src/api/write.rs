//! Writing a response as JSON text: serde's data model over a byte buffer, byte for byte
//! what `serde_json::to_string` writes (compact; strings escaped as it escapes them; numbers
//! written by serde_json itself). The conformance runner compares the two over every
//! recorded op, and the tests below over generated values.
//!
//! Why not serde_json's serializer: the wasm module is built for size, and there its string
//! escaping (generic code, so compiled at this crate's opt-level) stayed a function call per
//! byte and several per string, on every string of every response. Here a string with
//! nothing to escape is one copy.

use serde::ser::{self, Serialize};

/// `value` as compact JSON text.
pub(crate) fn to_text<T: Serialize + ?Sized>(value: &T) -> Result<String, Unwritable> {
    let mut w = Writer { out: Vec::with_capacity(1024) };
    value.serialize(&mut w)?;
    Ok(String::from_utf8(w.out).expect("JSON text of UTF-8 strings"))
}

/// What cannot be written as JSON: a map key that is not a string, a number or a boolean
/// (serde_json refuses the same keys), or a type's own serialization error.
#[derive(Debug)]
pub struct Unwritable(String);

impl std::fmt::Display for Unwritable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unwritable {}

impl ser::Error for Unwritable {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Unwritable(msg.to_string())
    }
}

struct Writer {
    out: Vec<u8>,
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Writer {
    /// `s` as a JSON string: `"` and `\` escaped, control characters as serde_json writes
    /// them (`\n`, `\t`, `\r`, `\b`, `\f`, else `\u00xx`), everything else as it is.
    fn string(&mut self, s: &str) {
        let bytes = s.as_bytes();
        self.out.reserve(bytes.len() + 2);
        self.out.push(b'"');
        let (mut start, mut i) = (0, 0);
        while i < bytes.len() {
            let b = bytes[i];
            i += 1;
            if b >= 0x20 && b != b'"' && b != b'\\' {
                continue;
            }
            self.out.extend_from_slice(&bytes[start..i - 1]);
            start = i;
            let short = match b {
                b'"' => b'"',
                b'\\' => b'\\',
                0x08 => b'b',
                0x09 => b't',
                0x0A => b'n',
                0x0C => b'f',
                0x0D => b'r',
                _ => {
                    self.out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xF)]]);
                    continue;
                }
            };
            self.out.extend_from_slice(&[b'\\', short]);
        }
        self.out.extend_from_slice(&bytes[start..]);
        self.out.push(b'"');
    }

    /// A number, written by serde_json (its integer and shortest-float formats; `null` for
    /// a float that is not finite). Narrower integers come as `i64` or `u64`, whose text is
    /// the same: one instantiation of serde_json's writer each, not one per width.
    fn number<N: Serialize>(&mut self, n: N) -> Result<(), Unwritable> {
        serde_json::to_writer(&mut self.out, &n).map_err(ser::Error::custom)
    }

    /// Opens `{"variant":` for an enum variant with content.
    fn variant(&mut self, variant: &str) {
        self.out.push(b'{');
        self.string(variant);
        self.out.push(b':');
    }

    fn open(&mut self, open: u8, close: &'static [u8]) -> Compound<'_> {
        self.out.push(open);
        Compound { w: self, first: true, close }
    }
}

/// A sequence, map or struct being written: whether a comma comes before the next element,
/// and what closes it (`]`, `}`, or `]}` / `}}` for a variant's content).
struct Compound<'a> {
    w: &'a mut Writer,
    first: bool,
    close: &'static [u8],
}

impl Compound<'_> {
    fn comma(&mut self) {
        if !self.first {
            self.w.out.push(b',');
        }
        self.first = false;
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unwritable> {
        self.comma();
        value.serialize(&mut *self.w)
    }

    /// A map key, written as a value and then held to what serde_json accepts as a key: a
    /// string as it is; an integer, a finite float or a boolean quoted; anything else
    /// (`null`, an array, an object, a float that is not finite) refused.
    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unwritable> {
        self.comma();
        let at = self.w.out.len();
        key.serialize(&mut *self.w)?;
        match self.w.out.get(at) {
            Some(b'"') => {}
            Some(b'-' | b'0'..=b'9' | b't' | b'f') => {
                self.w.out.insert(at, b'"');
                self.w.out.push(b'"');
            }
            _ => return Err(Unwritable("key must be a string".into())),
        }
        self.w.out.push(b':');
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Unwritable> {
        self.comma();
        self.w.string(key);
        self.w.out.push(b':');
        value.serialize(&mut *self.w)
    }

    fn close(self) -> Result<(), Unwritable> {
        self.w.out.extend_from_slice(self.close);
        Ok(())
    }
}

/// serde's number methods, each writing its value through [`Writer::number`] widened to the
/// type named (integers of any width print alike).
macro_rules! numbers {
    ($($method:ident($ty:ty) as $wide:ty),*) => {$(
        fn $method(self, v: $ty) -> Result<(), Unwritable> {
            self.number(<$wide>::from(v))
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Writer {
    type Ok = ();
    type Error = Unwritable;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Unwritable> {
        self.out.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    numbers!(
        serialize_i8(i8) as i64,
        serialize_i16(i16) as i64,
        serialize_i32(i32) as i64,
        serialize_i64(i64) as i64,
        serialize_i128(i128) as i128,
        serialize_u8(u8) as u64,
        serialize_u16(u16) as u64,
        serialize_u32(u32) as u64,
        serialize_u64(u64) as u64,
        serialize_u128(u128) as u128,
        serialize_f32(f32) as f32,
        serialize_f64(f64) as f64
    );
    fn serialize_char(self, v: char) -> Result<(), Unwritable> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Unwritable> {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Unwritable> {
        ser::Serializer::collect_seq(self, v)
    }
    fn serialize_none(self) -> Result<(), Unwritable> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unwritable> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unwritable> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unwritable> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<(), Unwritable> {
        self.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<(), Unwritable> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Unwritable> {
        self.variant(variant);
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open(b'[', b"]"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open(b'[', b"]"))
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open(b'[', b"]"))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Unwritable> {
        self.variant(variant);
        Ok(self.open(b'[', b"]}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open(b'{', b"}"))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'a>, Unwritable> {
        Ok(self.open(b'{', b"}"))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Unwritable> {
        self.variant(variant);
        Ok(self.open(b'{', b"}}"))
    }
}

/// The traits of serde's compound values but maps, which differ here only in their
/// method's name and whether it takes a key: elements (sequences, tuples) or fields (structs,
/// struct variants).
macro_rules! compounds {
    ($($kind:ident::$method:ident($($key:ident)?) => $how:ident;)*) => {$(
        impl ser::$kind for Compound<'_> {
            type Ok = ();
            type Error = Unwritable;
            fn $method<T: Serialize + ?Sized>(&mut self, $($key: &'static str,)? value: &T) -> Result<(), Unwritable> {
                self.$how($($key,)? value)
            }
            fn end(self) -> Result<(), Unwritable> {
                self.close()
            }
        }
    )*};
}
compounds! {
    SerializeSeq::serialize_element() => element;
    SerializeTuple::serialize_element() => element;
    SerializeTupleStruct::serialize_field() => element;
    SerializeTupleVariant::serialize_field() => element;
    SerializeStruct::serialize_field(key) => field;
    SerializeStructVariant::serialize_field(key) => field;
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Unwritable;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unwritable> {
        self.key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unwritable> {
        value.serialize(&mut *self.w)
    }
    fn end(self) -> Result<(), Unwritable> {
        self.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::{json, Value};
    use std::collections::BTreeMap;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn same<T: Serialize + ?Sized>(value: &T) {
        assert_eq!(to_text(value).unwrap(), serde_json::to_string(value).unwrap());
    }

    #[derive(Serialize)]
    enum Shape {
        Unit,
        Newtype(u8),
        Tuple(i32, String),
        Struct { at: f64, of: Option<Vec<bool>> },
    }

    #[derive(Serialize)]
    struct Record<'a> {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        absent: Option<u32>,
        none: Option<u32>,
        pair: (i64, u64),
        empty: Vec<u8>,
        bytes: serde_bytes_like::Bytes<'a>,
        unit: (),
        shapes: Vec<Shape>,
        by_number: BTreeMap<i64, &'a str>,
        by_flag: BTreeMap<bool, char>,
        nested: Value,
    }

    /// `serialize_bytes`, which no std type calls.
    mod serde_bytes_like {
        pub struct Bytes<'a>(pub &'a [u8]);
        impl serde::Serialize for Bytes<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(self.0)
            }
        }
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let controls: String = (0u8..0x20).map(char::from).chain("\"\\/\u{7f}é台😀".chars()).collect();
        same(&Record {
            text: &controls,
            absent: None,
            none: None,
            pair: (i64::MIN, u64::MAX),
            empty: vec![],
            bytes: serde_bytes_like::Bytes(&[0, 7, 255]),
            unit: (),
            shapes: vec![
                Shape::Unit,
                Shape::Newtype(3),
                Shape::Tuple(-1, "x\"y".into()),
                Shape::Struct { at: 0.1, of: Some(vec![true, false]) },
                Shape::Struct { at: f64::NAN, of: None },
            ],
            by_number: BTreeMap::from([(-3, "minus"), (0, "zero"), (12, "twelve")]),
            by_flag: BTreeMap::from([(false, 'n'), (true, '\n')]),
            nested: json!({"b": [1.5e300, -0.0, 1e-7, 123456789.0, 2.5, 100, -7], "a": {}, "c": [], "d": null}),
        });
        for x in [f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE, 5e-324, 1e21, 1e15, 0.30000000000000004] {
            same(&x);
            same(&(x as f32));
        }
        same(&(i128::MIN, u128::MAX));
        same(&BTreeMap::from([(1.5f64.to_bits(), 'k')]));
    }

    #[test]
    fn refuses_the_keys_serde_json_refuses() {
        for bad in [json!(null), json!([1]), json!({"a": 1})] {
            let mut map = serde_json::Map::new();
            map.insert("k".into(), bad.clone());
            let keyed: Vec<(Value, u8)> = vec![(bad, 1)];
            let as_map = KeyedBy(keyed);
            assert!(to_text(&as_map).is_err() && serde_json::to_string(&as_map).is_err());
            same(&map);
        }
        let float_key = KeyedBy(vec![(f64::NAN, 1)]);
        assert!(to_text(&float_key).is_err() && serde_json::to_string(&float_key).is_err());
        same(&KeyedBy(vec![(2.5f64, 1)]));
    }

    /// A map whose keys may be anything.
    struct KeyedBy<K>(Vec<(K, u8)>);
    impl<K: Serialize> Serialize for KeyedBy<K> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
        }
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any::<String>().prop_map(Value::String),
            "[\\x00-\\x1f\"\\\\a-z]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[\\x00-\\x1f\"a-z]{0,6}", inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn writes_any_json_value_as_serde_json_does(value in any_json()) {
            prop_assert_eq!(to_text(&value).unwrap(), serde_json::to_string(&value).unwrap());
        }
    }
}
