//! Declarations read within their bounds: what lies past a bound is counted as it is read,
//! never copied.
//!
//! Declarations are read leniently (an item past a bound is dropped and reported, not a
//! reason to refuse the call), so a list of two million aliases is a legal argument. Read
//! into a [`Value`] it would cost the heap about fifty bytes an item before the declaring
//! looked at its length. A [`Lenient`] keeps of each list its first [`MAX_ITEMS`] items
//! (the largest bound of any declaration list), of each object its first [`MAX_FIELDS`]
//! fields (no declaration object takes more than three), nothing under [`MAX_DEPTH`]
//! levels, and the length of every list or object it cut, by path, for the report.

use super::MAX_ITEMS;
use crate::base::sorted::SortedMap;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::cell::RefCell;

/// The fields of one object kept.
pub const MAX_FIELDS: usize = 8;

/// How deep a value is kept: a list or object this many levels under the root is read as
/// an empty one (an alias, the deepest thing a declaration holds, is four levels under a
/// `store`'s `associations`).
pub const MAX_DEPTH: usize = 4;

/// A declaration value within bounds, and the length of each list or object it cut.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lenient {
    /// The value with every list and object cut to its bound.
    pub value: Value,
    /// The lengths of what was cut.
    pub cut: Cut,
}

/// The length, as written, of each list or object of a [`Lenient`] that was cut, by path
/// (`entities[3].aliases`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cut(SortedMap<String, usize>);

impl Cut {
    /// No cut: for a value made here, within its bounds.
    pub const NONE: &'static Cut = &Cut(SortedMap::new());

    /// The length as written of the list or object at `path`, of which `kept` were kept.
    pub fn len(&self, path: &str, kept: usize) -> usize {
        self.0.get(path).copied().unwrap_or(kept)
    }

    /// Whether the list or object at `path` was cut.
    pub fn at(&self, path: &str) -> Option<usize> {
        self.0.get(path).copied()
    }

    /// These cuts, their paths under `prefix` (the field the value was read from).
    pub fn under(&self, prefix: &str) -> Cut {
        Cut(SortedMap::from_iter(self.0.iter().map(|(path, n)| (join(prefix, path), *n))))
    }

    /// Adds `other`'s cuts.
    pub fn extend(&mut self, other: Cut) {
        self.0.extend(other.0);
    }
}

/// `path` under `prefix`: `[3]` joins without a dot.
fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty() || path.starts_with('[')) {
        (true, _) => path.to_owned(),
        (false, true) => format!("{prefix}{path}"),
        (false, false) => format!("{prefix}.{path}"),
    }
}

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let cut = RefCell::new(SortedMap::new());
        let value = Bounded { depth: 0, path: String::new(), cut: &cut }.deserialize(deserializer)?;
        Ok(Lenient { value, cut: Cut(cut.into_inner()) })
    }
}

/// Reads one value at `path`, `depth` levels under the root.
struct Bounded<'c> {
    depth: usize,
    path: String,
    cut: &'c RefCell<SortedMap<String, usize>>,
}

impl Bounded<'_> {
    fn child(&self, path: String) -> Self {
        Bounded { depth: self.depth + 1, path, cut: self.cut }
    }

    /// How many items a list or object here keeps.
    fn keeps(&self, bound: usize) -> usize {
        if self.depth >= MAX_DEPTH {
            0
        } else {
            bound
        }
    }

    fn record(&self, len: usize, kept: usize) {
        if len > kept {
            self.cut.borrow_mut().insert(self.path.clone(), len);
        }
    }
}

impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let keeps = self.keeps(MAX_ITEMS);
        let mut items = Vec::new();
        while items.len() < keeps {
            match seq.next_element_seed(self.child(format!("{}[{}]", self.path, items.len())))? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
        let mut len = items.len();
        while seq.next_element::<IgnoredAny>()?.is_some() {
            len += 1;
        }
        self.record(len, items.len());
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let keeps = self.keeps(MAX_FIELDS);
        let mut fields = Map::new();
        let mut len = 0;
        while len < keeps {
            let Some(key) = map.next_key::<String>()? else {
                return Ok(Value::Object(fields));
            };
            let value = map.next_value_seed(self.child(join(&self.path, &key)))?;
            fields.insert(key, value);
            len += 1;
        }
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
            len += 1;
        }
        self.record(len, keeps);
        Ok(Value::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Lenient {
        Lenient::deserialize(&v).unwrap()
    }

    #[test]
    fn a_value_within_its_bounds_is_read_whole() {
        let v = json!({"entities": [{"name": "Ada", "aliases": ["A", "Lovelace"]}], "relations": [], "x": [1, 2.5, null, true]});
        assert_eq!(read(v.clone()), Lenient { value: v, cut: Cut::default() });
    }

    #[test]
    fn lists_and_objects_past_their_bound_keep_the_first_and_count_the_rest() {
        let aliases: Vec<String> = (0..1000).map(|i| format!("a{i}")).collect();
        let fields: Map<String, Value> = (0..20).map(|i| (format!("f{i:02}"), json!(i))).collect();
        let l = read(json!({"entities": [{"name": "n", "aliases": aliases}, fields]}));
        let kept = l.value["entities"][0]["aliases"].as_array().unwrap();
        assert_eq!(kept.len(), MAX_ITEMS);
        assert_eq!(kept[MAX_ITEMS - 1], json!(format!("a{}", MAX_ITEMS - 1)));
        assert_eq!(l.cut.len("entities[0].aliases", kept.len()), 1000);
        assert_eq!(l.value["entities"][1].as_object().unwrap().len(), MAX_FIELDS);
        assert_eq!(l.cut.at("entities[1]"), Some(20));
        assert_eq!(l.cut.at("entities"), None);
        assert_eq!(l.cut.under("x").at("x.entities[0].aliases"), Some(1000));
    }

    #[test]
    fn nothing_deeper_than_the_bound_is_kept() {
        let l = read(json!([[[["leaf", ["deeper", 1], {"k": 1}, {}]]]]));
        assert_eq!(l.value, json!([[[["leaf", [], {}, {}]]]]));
        assert_eq!(l.cut.at("[0][0][0][1]"), Some(2));
        assert_eq!(l.cut.at("[0][0][0][2]"), Some(1));
        assert_eq!(l.cut.at("[0][0][0][3]"), None);
    }
}
