//! Record references: `mem:<id>` and `ep:<id>`, the one way every operation names a
//! record. A [`Ref`] is carried typed through the engine (the candidate pool, the walk, the
//! links between records), stored as a kind column and an id column (schema version 4:
//! `entity_mentions.ref_kind, ref_id`, `relations.anchor_kind, anchor_id` beside the
//! relations' ends), bound to SQL as the two, and spelled as text only at the edges: what
//! a call gives, what a response or an export says.

use crate::api::error::Result;
use crate::base::scope::ReadScope;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{params_from_iter, Connection, OptionalExtension};

/// The two kinds of record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A memory, `mem:<id>`.
    Mem,
    /// An episode, `ep:<id>`.
    Ep,
}

impl Kind {
    /// The ref prefix and the `relations.*_kind` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Mem => "mem",
            Kind::Ep => "ep",
        }
    }
    /// The kind a stored spelling (`mem`, `ep`) names.
    pub(crate) fn parse(text: &str) -> Option<Kind> {
        match text {
            "mem" => Some(Kind::Mem),
            "ep" => Some(Kind::Ep),
            _ => None,
        }
    }

    pub(crate) fn table(self) -> &'static str {
        match self {
            Kind::Mem => "memories",
            Kind::Ep => "episodes",
        }
    }

    /// What a record of this kind is called in a message.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Kind::Mem => "memory",
            Kind::Ep => "episode",
        }
    }
}

/// A kind column (`ref_kind`, `anchor_kind`, a relation end's `*_kind`) binds and reads as
/// its spelling, `mem` or `ep`.
impl ToSql for Kind {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Text(self.as_str().as_bytes())))
    }
}

impl FromSql for Kind {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        Kind::parse(value.as_str()?).ok_or(FromSqlError::InvalidType)
    }
}

/// A record reference in its one canonical spelling (`mem:007` reads as `mem:7`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ref {
    /// Memory or episode.
    pub kind: Kind,
    /// The row id.
    pub id: i64,
}

impl Ref {
    /// Parses `mem:<digits>` or `ep:<digits>` (surrounding whitespace allowed); `None` for
    /// anything else, including ids past SQLite's integer range.
    pub fn parse(text: &str) -> Option<Ref> {
        let (prefix, digits) = text.trim().split_once(':')?;
        let kind = Kind::parse(prefix)?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let id = digits.parse::<i64>().ok()?;
        Some(Ref { kind, id })
    }

    /// The record a stored kind and id name, `None` where the kind names no record: an
    /// anchor's `''`, a relation end's `entity`.
    pub(crate) fn stored(kind: &str, id: i64) -> Option<Ref> {
        Kind::parse(kind).map(|kind| Ref { kind, id })
    }

    /// Whether the record exists and belongs to the agent of `scope`, in a bucket `scope` reads.
    pub fn exists(&self, conn: &Connection, scope: &ReadScope) -> Result<bool> {
        let iso = scope.clause("t");
        let sql = format!("SELECT 1 FROM {} t WHERE t.id = ? AND {}", self.kind.table(), iso.sql);
        let mut params = vec![rusqlite::types::Value::Integer(self.id)];
        params.extend(iso.params);
        Ok(conn.query_row(&sql, params_from_iter(params), |_| Ok(())).optional()?.is_some())
    }
}

impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.kind.as_str(), self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn refs_parse_in_one_spelling() {
        assert_eq!(Ref::parse(" mem:007 ").map(|r| r.to_string()), Some("mem:7".into()));
        assert_eq!(Ref::parse("ep:3"), Some(Ref { kind: Kind::Ep, id: 3 }));
        for bad in ["mem:", "mem:-1", "mem:1a", "memo:1", "mem:99999999999999999999", "1", ""] {
            assert_eq!(Ref::parse(bad), None, "{bad}");
        }
    }
}
