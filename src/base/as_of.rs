//! Time on facts (SPEC §5): the instant a read sees the memory at, built here and nowhere
//! else. Every query that must leave out what did not hold takes its clause from [`AsOf`].
//!
//! A relation holds over `[valid_from, valid_to)`; a record holds until it expires
//! (`expires_at`) or is invalidated (`invalid_at`). Each is stored in `format_iso`'s one
//! spelling, `''` when not set, so the clauses compare text as SQLite compares the columns.
//!
//! - No `as_of` ([`AsOf::Current`]): what ended at or before the clock's now is left out, and
//!   nothing else changes, so a memory with no time declared reads exactly as before.
//! - `as_of: <instant>` ([`AsOf::At`]): only what held at that instant (a relation whose
//!   `valid_from` is later is left out too).
//! - `as_of: "all"` ([`AsOf::All`]): everything, each with its interval.

use super::clock::{format_iso, parse_iso};
use super::scope::Clause;
use rusqlite::types::Value;

/// The instant a read sees facts at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AsOf {
    /// The clock's now, in stored spelling: what ended by then is left out.
    Current(String),
    /// A given instant, in stored spelling: what held then.
    At(String),
    /// Everything, whatever its interval.
    All,
}

impl AsOf {
    /// The read's instant from its `as_of` option, `None` when the option is neither
    /// `"all"` nor an ISO-8601 date-time (the option's check refuses those first).
    pub fn parse(given: Option<&str>, now_ms: i64) -> Option<AsOf> {
        match given.map(str::trim) {
            None => Some(AsOf::Current(format_iso(now_ms))),
            Some("all") => Some(AsOf::All),
            Some(s) => parse_iso(s).map(|ms| AsOf::At(format_iso(ms))),
        }
    }

    /// Whether the read was given an `as_of`: only then do responses carry intervals of
    /// facts that have none, and only then do reads differ from the current state.
    pub fn is_current(&self) -> bool {
        matches!(self, AsOf::Current(_))
    }

    /// The predicate over relation alias `r`: the relation holds at the read's instant.
    pub fn relation_holds(&self, r: &str) -> Clause {
        match self {
            AsOf::Current(now) => Clause { sql: format!("({r}.valid_to = '' OR {r}.valid_to > ?)"), params: vec![text(now)] },
            AsOf::At(t) => {
                Clause { sql: format!("({r}.valid_from <= ? AND ({r}.valid_to = '' OR {r}.valid_to > ?))"), params: vec![text(t), text(t)] }
            }
            AsOf::All => Clause { sql: "1".into(), params: vec![] },
        }
    }

    /// The predicate over record alias `t` (a memory or an episode): the record had neither
    /// expired nor been invalidated by the read's instant.
    pub fn record_holds(&self, t: &str) -> Clause {
        match self {
            AsOf::Current(at) | AsOf::At(at) => Clause {
                sql: format!("(({t}.expires_at = '' OR {t}.expires_at > ?) AND ({t}.invalid_at = '' OR {t}.invalid_at > ?))"),
                params: vec![text(at), text(at)],
            },
            AsOf::All => Clause { sql: "1".into(), params: vec![] },
        }
    }
}

impl AsOf {
    /// The read's instant in epoch ms, for the in-memory indexes; `None` for [`AsOf::All`].
    pub fn instant_ms(&self) -> Option<i64> {
        match self {
            AsOf::Current(at) | AsOf::At(at) => parse_iso(at),
            AsOf::All => None,
        }
    }
}

/// When a record stops holding, in epoch ms: the earlier of its `expires_at` and
/// `invalid_at` that are set (stored spellings), `i64::MAX` when neither is. An index that
/// keeps records in memory keeps this one number per record; the record holds at instant
/// `t` ([`AsOf::instant_ms`]) exactly when it is greater than `t`, which is what
/// [`AsOf::record_holds`] says in SQL (`record_end_agrees_with_the_clause` compares the two).
pub fn record_end(expires_at: &str, invalid_at: &str) -> i64 {
    [expires_at, invalid_at].iter().filter_map(|s| parse_iso(s)).min().unwrap_or(i64::MAX)
}

/// Whether a record that stops holding at `end` ([`record_end`]) had ended by instant `at`
/// ([`AsOf::instant_ms`]): the in-memory form of [`AsOf::record_holds`], negated.
pub fn ended_by(end: i64, at: i64) -> bool {
    end <= at
}

fn text(s: &str) -> Value {
    Value::Text(s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::{params_from_iter, Connection};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Which of `rows` (valid_from, valid_to) the relation clause keeps.
    fn kept(as_of: &AsOf, rows: &[(&str, &str)]) -> Vec<i64> {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE r (n INTEGER, valid_from TEXT, valid_to TEXT)").unwrap();
        for (n, (from, to)) in rows.iter().enumerate() {
            conn.execute("INSERT INTO r VALUES (?, ?, ?)", rusqlite::params![n as i64, from, to]).unwrap();
        }
        let c = as_of.relation_holds("r");
        let mut stmt = conn.prepare(&format!("SELECT n FROM r WHERE {} ORDER BY n", c.sql)).unwrap();
        stmt.query_map(params_from_iter(c.params), |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    }

    #[test]
    fn relations_hold_over_half_open_intervals() {
        let t = |s: &str| format_iso(parse_iso(s).unwrap());
        let (march, june) = (t("2026-03-01"), t("2026-06-01"));
        let rows = [("", ""), ("", march.as_str()), (march.as_str(), ""), (march.as_str(), june.as_str()), (june.as_str(), "")];
        let now = parse_iso("2026-04-15").unwrap();
        // now: only what ended by now goes; what starts later stays
        assert_eq!(kept(&AsOf::parse(None, now).unwrap(), &rows), [0, 2, 3, 4]);
        // at an instant: the interval holds it, the end excluded, the start included
        assert_eq!(kept(&AsOf::parse(Some("2026-04-15"), 0).unwrap(), &rows), [0, 2, 3]);
        assert_eq!(kept(&AsOf::parse(Some("2026-03-01T00:00:00Z"), 0).unwrap(), &rows), [0, 2, 3]);
        assert_eq!(kept(&AsOf::parse(Some("2026-02-28T23:59:59.999+00:00"), 0).unwrap(), &rows), [0, 1]);
        assert_eq!(kept(&AsOf::parse(Some("2026-06-01"), 0).unwrap(), &rows), [0, 2, 4]);
        assert_eq!(kept(&AsOf::parse(Some("all"), 0).unwrap(), &rows), [0, 1, 2, 3, 4]);
    }

    /// The in-memory form ([`record_end`] against [`AsOf::instant_ms`]) keeps exactly the
    /// records the SQL clause keeps, at every instant and for every pair of ends.
    #[test]
    fn record_end_agrees_with_the_clause() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (n INTEGER, expires_at TEXT, invalid_at TEXT)").unwrap();
        let t = |s: &str| format_iso(parse_iso(s).unwrap());
        let ends = ["".to_string(), t("2026-03-01"), t("2026-03-01T00:00:00.001Z"), t("2026-06-01")];
        let mut pairs = Vec::new();
        for e in &ends {
            for i in &ends {
                conn.execute("INSERT INTO t VALUES (?, ?, ?)", rusqlite::params![pairs.len() as i64, e, i]).unwrap();
                pairs.push((e.clone(), i.clone()));
            }
        }
        for at in [
            None,
            Some("2026-02-01"),
            Some("2026-03-01"),
            Some("2026-03-01T00:00:00.001Z"),
            Some("2026-04-01"),
            Some("2026-06-01"),
            Some("all"),
        ] {
            let as_of = AsOf::parse(at, parse_iso("2026-03-01").unwrap()).unwrap();
            let c = as_of.record_holds("t");
            let mut stmt = conn.prepare(&format!("SELECT n FROM t WHERE {} ORDER BY n", c.sql)).unwrap();
            let by_sql: Vec<i64> = stmt.query_map(params_from_iter(c.params), |r| r.get(0)).unwrap().map(Result::unwrap).collect();
            let in_memory: Vec<i64> = (0..pairs.len() as i64)
                .filter(|&n| {
                    let (e, i) = &pairs[n as usize];
                    as_of.instant_ms().is_none_or(|at| !ended_by(record_end(e, i), at))
                })
                .collect();
            assert_eq!(in_memory, by_sql, "{at:?}");
        }
    }

    #[test]
    fn an_instant_is_read_in_its_stored_spelling_and_nonsense_is_none() {
        assert_eq!(AsOf::parse(Some(" 2026-05-10T14:00+02:00 "), 0), Some(AsOf::At("2026-05-10T12:00:00+00:00".into())));
        assert_eq!(AsOf::parse(None, 1_000), Some(AsOf::Current("1970-01-01T00:00:01+00:00".into())));
        assert!(AsOf::parse(None, 0).unwrap().is_current());
        for bad in ["", "ALL", "yesterday", "2026-13-01"] {
            assert_eq!(AsOf::parse(Some(bad), 0), None, "{bad:?}");
        }
    }
}
