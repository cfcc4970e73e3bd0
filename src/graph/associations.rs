//! Declaring the graph (design §2): entities with aliases, the records that mention them,
//! and subject–predicate–object relations; and retracting them.
//!
//! Declarations are read leniently: a malformed item is reported in `dropped` as
//! `{item, reason}` and skipped, never a reason to refuse the rest of the call or to lose
//! the memory a `store` carries it on. Every list is bounded ([`MAX_ITEMS`],
//! [`MAX_ALIASES`], [`MAX_TEXT`]) and whatever lies past a bound is reported, never cut
//! silently; what was cut on reading ([`Lenient`]) is counted at its length as written.
//! Two rules the schema cannot hold are held here: one normalized alias names
//! at most one entity a reader sees, and a record endpoint or anchor must be a record of
//! the declaring agent.

use crate::api::read::as_int;
use crate::api::{Conflict, DeclareReport, DeclaredEntity, Invalidated, Retracted, Validity};
// The bounds are declared with the other limits on what an operation takes.
use crate::api::error::Result;
use crate::api::lenient::{Cut, Lenient, MAX_FIELDS};
use crate::api::refs::Ref;
use crate::api::{canonical_time, MAX_ALIASES, MAX_ITEMS, MAX_TEXT, MAX_TIMESTAMP};
use crate::base::as_of::AsOf;
use crate::base::normalize::normalize;
use crate::base::scope::{ReadScope, WriteScope};
use crate::graph::entities::{register, resolve, Name};
use rusqlite::{params, params_from_iter, Connection, OptionalExtension};
use serde_json::{Map, Value};

/// Who declares, where, when and on what evidence: what every write of one call shares.
pub struct Declarer<'a> {
    /// The connection, inside the caller's transaction.
    pub conn: &'a Connection,
    /// The bucket declarations are filed in.
    pub scope: &'a WriteScope,
    /// `agent` or `operator`.
    pub declared_by: &'a str,
    /// The clock's now, one stamp for the whole call.
    pub now: &'a str,
}

/// A declared string within the bounds: trimmed, non-empty, at most [`MAX_TEXT`] characters
/// both as written and normalized, free of NUL.
pub(crate) fn name(v: Option<&Value>) -> std::result::Result<Name, String> {
    let name = match v {
        Some(Value::String(s)) => checked_name(s.trim(), MAX_TEXT)?,
        None | Some(Value::Null) => return Err("is required".into()),
        Some(_) => return Err("must be a string".into()),
    };
    if longer_than(&name.normalized, MAX_TEXT) {
        return Err(format!("is longer than {MAX_TEXT} characters once normalized (Unicode NFKC, case folded)"));
    }
    Ok(name)
}

/// The longest text a stored name, alias or predicate can hold: a declared one is at most
/// [`MAX_TEXT`] characters as written, and a stored predicate is normalized, which grows a
/// character at most eighteen-fold (U+FDFA). An imported image's are checked against it.
pub(crate) const MAX_STORED_TEXT: usize = 18 * MAX_TEXT;

/// A name of at most `max` characters as written, free of NUL, normalized to something.
/// The length is checked before the string is read further: normalization can grow a
/// text eighteen-fold, so a long name normalized first could take the whole heap before
/// its length was ever looked at.
pub(crate) fn checked_name(t: &str, max: usize) -> std::result::Result<Name, String> {
    if longer_than(t, max) {
        return Err(format!("is longer than {max} characters"));
    }
    if t.contains('\0') {
        // refused as in every option (`crate::api::text`), dropped here as declarations are
        return Err("must not contain a NUL character (U+0000)".into());
    }
    let normalized = normalize(t);
    if normalized.is_empty() {
        return Err("must be a nonempty string".into());
    }
    Ok(Name { text: t.to_owned(), normalized })
}

/// Whether `t` holds more than `max` characters, read no further than it takes to tell.
fn longer_than(t: &str, max: usize) -> bool {
    // at most 4 bytes a character: only a string of more than `max` bytes can be longer
    t.len() > max && t.chars().nth(max).is_some()
}

/// An integer id from a lenient declaration item: a JSON integer, not a boolean.
fn item_id(v: Option<&Value>) -> Option<i64> {
    v.and_then(as_int).filter(|n| *n > 0)
}

/// An optional declared instant in its stored spelling (`crate::api::canonical_time`).
fn instant(v: Option<&Value>) -> std::result::Result<Option<String>, String> {
    const EXPECTED: &str = "must be an ISO-8601 date-time such as 2026-05-10T12:00:00Z";
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !longer_than(s, MAX_TIMESTAMP) => {
            canonical_time(s).map(Some).ok_or_else(|| format!("{EXPECTED}, got {s:?}"))
        }
        Some(Value::String(_)) => Err(format!("{EXPECTED}, at most {MAX_TIMESTAMP} characters")),
        Some(_) => Err(format!("{EXPECTED} (a string)")),
    }
}

/// A declared reason: a string of 1–[`MAX_TEXT`] characters once trimmed, free of NUL.
fn reason(v: Option<&Value>) -> std::result::Result<String, String> {
    match v {
        Some(Value::String(s)) => {
            let s = s.trim();
            if s.is_empty() {
                Err("must be a nonempty string".into())
            } else if longer_than(s, MAX_TEXT) {
                Err(format!("is longer than {MAX_TEXT} characters"))
            } else if s.contains('\0') {
                Err("must not contain a NUL character (U+0000)".into())
            } else {
                Ok(s.to_owned())
            }
        }
        None | Some(Value::Null) => Err("is required: why it stopped holding".into()),
        Some(_) => Err("must be a string".into()),
    }
}

/// Drops what of the list at `path` lies past its first `max` (its length as written:
/// `items` may have been cut on reading), the `i`-th named `{path}[i]`: listed while the
/// report has room, counted past it, so a list of millions costs no more than its count.
fn past_bound(items: &[Value], cut: &Cut, path: &str, max: usize, what: &str, report: &mut DeclareReport) {
    let len = cut.len(path, items.len());
    if len > max {
        report.drops.add_run(len - max, |k| format!("{path}[{}]", max + k), &format!("beyond the {max}-{what} bound"));
    }
}

/// Item `label` of a declaration list as an object, or `None` once it is dropped: not an
/// object (`shape` says what it must be), or cut on reading for its fields. Each field
/// besides `fields` is dropped as unknown (`takes` says what the item takes).
fn object<'v>(
    item: &'v Value,
    label: &str,
    (fields, shape, takes): (&[&str], &str, &str),
    cut: &Cut,
    report: &mut DeclareReport,
) -> Option<&'v Map<String, Value>> {
    let Some(obj) = item.as_object() else {
        report.drops.add(label, shape);
        return None;
    };
    if too_many_fields(cut, label, takes, report) {
        return None;
    }
    for key in obj.keys().filter(|k| !fields.contains(&k.as_str())) {
        report.drops.add(format_args!("{label}.{key}"), format_args!("unknown field; {takes}"));
    }
    Some(obj)
}

/// Drops an object cut on reading: it had more fields than any declaration takes.
fn too_many_fields(cut: &Cut, path: &str, takes: &str, report: &mut DeclareReport) -> bool {
    match cut.at(path) {
        Some(n) => {
            report
                .drops
                .add(if path.is_empty() { "associations" } else { path }, format_args!("has {n} fields, more than {MAX_FIELDS}; {takes}"));
            true
        }
        None => false,
    }
}

/// The list under `key` of an associations object, or a drop when it is not a list.
fn list<'v>(assoc: &'v Map<String, Value>, key: &str, report: &mut DeclareReport) -> &'v [Value] {
    match assoc.get(key) {
        None | Some(Value::Null) => &[],
        Some(Value::Array(items)) => items,
        Some(_) => {
            report.drops.add(key, "must be a list");
            &[]
        }
    }
}

impl Declarer<'_> {
    /// Applies an associations object anchored on `anchor` (which the caller has checked
    /// exists), returning what was declared and what was dropped.
    pub fn declare(&self, associations: &Lenient, anchor: Option<Ref>, report: &mut DeclareReport) -> Result<()> {
        const TAKES: &str = "associations take entities and relations";
        let Some(assoc) = associations.value.as_object() else {
            report.drops.add("associations", "must be an object");
            return Ok(());
        };
        if too_many_fields(&associations.cut, "", TAKES, report) {
            return Ok(());
        }
        for key in assoc.keys().filter(|k| *k != "entities" && *k != "relations") {
            report.drops.add(key.as_str(), format_args!("unknown field; {TAKES}"));
        }
        let entities = list(assoc, "entities", report);
        let relations = list(assoc, "relations", report);
        self.items(entities, relations, &associations.cut, anchor, report)
    }

    /// Applies declared entity and relation items anchored on `anchor`. An anchor that is
    /// not a record of the declaring agent is dropped (`anchor_ref`), and the items are
    /// declared without it: every door that declares (a tool call, a store, an import) goes
    /// through this check, so no declaration points at another agent's record.
    /// `cut` is what reading them cut, by path from `entities` and `relations`.
    pub fn items(&self, entities: &[Value], relations: &[Value], cut: &Cut, anchor: Option<Ref>, report: &mut DeclareReport) -> Result<()> {
        let anchor = match anchor {
            Some(a) if !self.owns(a)? => {
                report.drops.add("anchor_ref", format_args!("{a} is not a record of this agent"));
                None
            }
            a => a,
        };
        for (index, item) in entities.iter().take(MAX_ITEMS).enumerate() {
            self.entity(index, item, cut, anchor, false, report)?;
        }
        past_bound(entities, cut, "entities", MAX_ITEMS, "item", report);
        for (index, item) in relations.iter().take(MAX_ITEMS).enumerate() {
            self.relation(index, item, cut, anchor, report)?;
        }
        past_bound(relations, cut, "relations", MAX_ITEMS, "item", report);
        Ok(())
    }

    /// An entity restored from an export: registered in the declaring bucket itself unless
    /// an entity of that bucket has its name, so two entities an export keeps apart (one in
    /// a project, one it reads from the global pool by an alias) stay apart.
    pub(crate) fn restore_entity(&self, item: &Value, report: &mut DeclareReport) -> Result<()> {
        self.entity(0, item, Cut::NONE, None, true, report)
    }

    /// Declares entity `item`, the `index`-th of its list. With `exact` (or aliases to
    /// attach, see [`register`]) only an entity of the declaring bucket is reused.
    fn entity(&self, index: usize, item: &Value, cut: &Cut, anchor: Option<Ref>, exact: bool, report: &mut DeclareReport) -> Result<()> {
        const TAKES: &str = "entities take name and aliases";
        let label = format!("entities[{index}]");
        let Some(obj) = item.as_object() else {
            report.drops.add(label, "must be an object with a name");
            return Ok(());
        };
        if too_many_fields(cut, &label, TAKES, report) {
            return Ok(());
        }
        let entity = match name(obj.get("name")) {
            Ok(name) => name,
            Err(reason) => {
                report.drops.add(format_args!("{label}.name"), reason);
                return Ok(());
            }
        };
        for key in obj.keys().filter(|k| *k != "name" && *k != "aliases") {
            report.drops.add(format_args!("{label}.{key}"), format_args!("unknown field; {TAKES}"));
        }
        let aliases: &[Value] = match obj.get("aliases") {
            None | Some(Value::Null) => &[],
            Some(Value::Array(a)) => a,
            Some(_) => {
                report.drops.add(format_args!("{label}.aliases"), "must be a list");
                &[]
            }
        };
        let checked: Vec<std::result::Result<Name, String>> = aliases.iter().take(MAX_ALIASES).map(|a| name(Some(a))).collect();
        let carries_aliases = checked.iter().any(|a| a.is_ok());
        let (id, created) = register(self.conn, self.scope, &entity, self.declared_by, self.now, exact || carries_aliases)?;
        for (a_index, alias) in checked.into_iter().enumerate() {
            match alias {
                Err(reason) => report.drops.add(format_args!("{label}.aliases[{a_index}]"), reason),
                // restored (`exact`), an alias is checked against its own bucket only: a file
                // may hold the same alias in a project and in the global pool when the global
                // one was declared after the project's, which reads from the global pool
                // could not see
                Ok(alias) => match resolve(self.conn, self.scope, &alias.normalized, exact)? {
                    Some(owner) if owner != id => {
                        report.drops.add(format_args!("{label}.aliases[{a_index}]"), "already names another entity in this scope")
                    }
                    _ => {
                        self.conn
                            .prepare_cached("INSERT OR IGNORE INTO entity_aliases (entity_id, alias, normalized) VALUES (?, ?, ?)")?
                            .execute(params![id, alias.text, alias.normalized])?;
                    }
                },
            }
        }
        past_bound(aliases, cut, &format!("{label}.aliases"), MAX_ALIASES, "alias", report);
        if let Some(anchor) = anchor {
            self.mention(id, anchor)?;
            report.mentions += 1;
        }
        report.entities.push(DeclaredEntity { id, name: entity.text, created });
        Ok(())
    }

    /// Records that `record` (checked by the caller) mentions entity `id`.
    pub(crate) fn mention(&self, id: i64, record: Ref) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR IGNORE INTO entity_mentions (entity_id, ref_kind, ref_id, declared_by, created_at) VALUES (?, ?, ?, ?, ?)",
            )?
            .execute(params![id, record.kind, record.id, self.declared_by, self.now])?;
        Ok(())
    }

    /// A relation endpoint: a record ref of this agent, or an entity name (registered if new).
    fn endpoint(&self, v: Option<&Value>) -> Result<std::result::Result<(&'static str, i64), String>> {
        if let Some(Value::String(s)) = v {
            let s = s.trim();
            if let Some(r) = Ref::parse(s) {
                return Ok(if self.owns(r)? { Ok((r.kind.as_str(), r.id)) } else { Err(format!("{s} is not a record of this agent")) });
            }
            // Shaped as a ref but naming no record (`mem:`, `mem:-1`, `mem:1.5`, an id past
            // SQLite's integer range): registering the string as an entity name would invent
            // one. A kind prefix followed by a word (`ep:x`) is a name.
            let id = s.strip_prefix("mem:").or_else(|| s.strip_prefix("ep:"));
            if id.is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit() || b"+-.".contains(&b))) {
                return Ok(Err(format!("{s} is not a record of this agent")));
            }
        }
        match name(v) {
            Ok(name) => Ok(Ok(("entity", register(self.conn, self.scope, &name, self.declared_by, self.now, false)?.0))),
            Err(reason) => Ok(Err(format!("{reason}: an entity name or a record ref 'mem:<id>' / 'ep:<id>'"))),
        }
    }

    fn relation(&self, index: usize, item: &Value, cut: &Cut, anchor: Option<Ref>, report: &mut DeclareReport) -> Result<()> {
        const TAKES: &str = "relations take subject, predicate, object, valid_from and valid_to";
        const FIELDS: [&str; 5] = ["subject", "predicate", "object", "valid_from", "valid_to"];
        let label = format!("relations[{index}]");
        let shape = (&FIELDS[..], "must be an object with subject, predicate and object", TAKES);
        let Some(obj) = object(item, &label, shape, cut, report) else { return Ok(()) };
        let predicate = match name(obj.get("predicate")) {
            Ok(p) => p.normalized,
            Err(reason) => {
                report.drops.add(format_args!("{label}.predicate"), reason);
                return Ok(());
            }
        };
        let subject = match self.endpoint(obj.get("subject"))? {
            Ok(s) => s,
            Err(reason) => {
                report.drops.add(format_args!("{label}.subject"), reason);
                return Ok(());
            }
        };
        let object = match self.endpoint(obj.get("object"))? {
            Ok(o) => o,
            Err(reason) => {
                report.drops.add(format_args!("{label}.object"), reason);
                return Ok(());
            }
        };
        let mut validity = Validity::default();
        for (key, end) in [("valid_from", &mut validity.valid_from), ("valid_to", &mut validity.valid_to)] {
            match instant(obj.get(key)) {
                Ok(at) => *end = at.unwrap_or_default(),
                Err(reason) => {
                    report.drops.add(format_args!("{label}.{key}"), reason);
                    return Ok(());
                }
            }
        }
        let (from, to) = (&validity.valid_from, &validity.valid_to);
        if !from.is_empty() && !to.is_empty() && to <= from {
            report.drops.add(format_args!("{label}.valid_to"), format_args!("must be after valid_from ({from}), got {to}"));
            return Ok(());
        }
        let (id, kept) = self.relate_kept(subject, &predicate, object, anchor, &validity)?;
        report.relations.push(id);
        // The same fact from the same instant is the relation already declared, kept as it
        // is, and its id returned: a declared end it does not have is set by `invalidate`
        // (with a reason), and one it was closed at is reopened by a declaration from a later
        // valid_from. Either is said, never done silently.
        if kept != *to {
            let reason = if to.is_empty() {
                format!("relation {id} states this fact from this valid_from and ended at {kept}; declare it with a later valid_from to say it holds again")
            } else if kept.is_empty() {
                format!("relation {id} states this fact from this valid_from with no end; invalidate ends it, with a reason")
            } else {
                format!("relation {id} states this fact from this valid_from and ends at {kept}; invalidate ends it earlier")
            };
            report.drops.add(format_args!("{label}.valid_to"), reason);
        }
        // a fact that ended before now is history: it contradicts nothing current
        if kept.is_empty() || kept.as_str() > self.now {
            self.conflicts(id, subject, &predicate, object, report)?;
        }
        Ok(())
    }

    /// The current relations that declared relation `id` may contradict, added to the
    /// report: when `predicate` is single-valued for the declaring bucket (declared so in
    /// the most specific bucket a reader of it sees that declares it at all), those with
    /// the same subject and another object that a reader of the bucket sees and that hold
    /// now (begun, and not ended). Nothing is closed: the agent decides.
    fn conflicts(&self, id: i64, subject: (&str, i64), predicate: &str, object: (&str, i64), report: &mut DeclareReport) -> Result<()> {
        let s = self.scope;
        let single: Option<bool> = self
            .conn
            .prepare_cached(
                "SELECT single FROM predicates WHERE agent_id = ? AND name = ? AND project_id IN (?, '') AND channel IN (?, '') \
                 ORDER BY project_id = '', channel = '' LIMIT 1",
            )?
            .query_row(params![s.agent_id, predicate, s.project_id, s.channel], |r| r.get(0))
            .optional()?;
        if single != Some(true) {
            return Ok(());
        }
        let reader = ReadScope { agent_id: s.agent_id.clone(), project_id: Some(s.project_id.clone()), channel: Some(s.channel.clone()) };
        let (iso, holds) = (reader.clause("r"), AsOf::Current(self.now.to_owned()).relation_holds("r"));
        let sql = format!(
            "SELECT r.id, r.object_kind, r.object_id FROM relations r WHERE r.subject_kind = ? AND r.subject_id = ? AND r.predicate = ? \
             AND NOT (r.object_kind = ? AND r.object_id = ?) AND r.id <> ? AND {} AND {} AND (r.valid_from = '' OR r.valid_from <= ?) \
             ORDER BY r.id",
            iso.sql, holds.sql
        );
        let head = [
            rusqlite::types::Value::Text(subject.0.into()),
            rusqlite::types::Value::Integer(subject.1),
            rusqlite::types::Value::Text(predicate.into()),
            rusqlite::types::Value::Text(object.0.into()),
            rusqlite::types::Value::Integer(object.1),
            rusqlite::types::Value::Integer(id),
        ];
        let params: Vec<rusqlite::types::Value> =
            head.into_iter().chain(iso.params).chain(holds.params).chain([rusqlite::types::Value::Text(self.now.into())]).collect();
        let current = self
            .conn
            .prepare_cached(&sql)?
            .query_map(params_from_iter(params), |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for (other, kind, object_id) in current {
            report.conflicts.push(Conflict {
                relation_id: id,
                conflicts_with: other,
                subject: self.end_name(subject.0, subject.1)?,
                predicate: predicate.to_owned(),
                object: self.end_name(&kind, object_id)?,
            });
        }
        Ok(())
    }

    /// A relation end as a reader names it: an entity's name, or a record's ref.
    fn end_name(&self, kind: &str, id: i64) -> Result<String> {
        match Ref::stored(kind, id) {
            Some(r) => Ok(r.to_string()),
            None => Ok(self.conn.prepare_cached("SELECT name FROM entities WHERE id = ?")?.query_row([id], |r| r.get(0))?),
        }
    }

    /// Declares predicates single-valued or multi-valued again for the declaring bucket,
    /// from `{name, single}` items.
    pub fn predicates(&self, items: &[Value], cut: &Cut, report: &mut DeclareReport) -> Result<()> {
        const TAKES: &str = "predicates take name and single";
        for (index, item) in items.iter().take(MAX_ITEMS).enumerate() {
            let label = format!("predicates[{index}]");
            let shape = (&["name", "single"][..], "must be an object with name and single", TAKES);
            let Some(obj) = object(item, &label, shape, cut, report) else { continue };
            let predicate = match name(obj.get("name")) {
                Ok(p) => p.normalized,
                Err(reason) => {
                    report.drops.add(format_args!("{label}.name"), reason);
                    continue;
                }
            };
            let Some(single) = obj.get("single").and_then(Value::as_bool) else {
                report.drops.add(format_args!("{label}.single"), "must be true or false");
                continue;
            };
            let s = self.scope;
            self.conn
                .prepare_cached(
                    "INSERT INTO predicates (agent_id, project_id, channel, name, single, declared_by, declared_at) VALUES (?, ?, ?, ?, ?, ?, ?) \
                     ON CONFLICT (agent_id, project_id, channel, name) DO UPDATE SET \
                     single = excluded.single, declared_by = excluded.declared_by, declared_at = excluded.declared_at",
                )?
                .execute(params![s.agent_id, s.project_id, s.channel, predicate, single, self.declared_by, self.now])?;
        }
        past_bound(items, cut, "predicates", MAX_ITEMS, "item", report);
        Ok(())
    }

    /// Closes relations and invalidates records of this agent at each item's `at` (default
    /// now), with its reason, keeping them as history. Another agent's id or ref is "no such
    /// relation" or "no such record", as one that never existed.
    pub fn invalidate(&self, items: &[Value], cut: &Cut, report: &mut DeclareReport) -> Result<Invalidated> {
        const TAKES: &str = "invalidate takes relation_id or ref, at and reason";
        let mut done = Invalidated::default();
        for (index, item) in items.iter().take(MAX_ITEMS).enumerate() {
            let label = format!("invalidate[{index}]");
            let shape = (&["relation_id", "ref", "at", "reason"][..], "must be an object with relation_id or ref, and reason", TAKES);
            let Some(obj) = object(item, &label, shape, cut, report) else { continue };
            let at = match instant(obj.get("at")) {
                Ok(at) => at.unwrap_or_else(|| self.now.to_owned()),
                Err(reason) => {
                    report.drops.add(format_args!("{label}.at"), reason);
                    continue;
                }
            };
            let why = match reason(obj.get("reason")) {
                Ok(why) => why,
                Err(reason) => {
                    report.drops.add(format_args!("{label}.reason"), reason);
                    continue;
                }
            };
            match (obj.get("relation_id"), obj.get("ref")) {
                (Some(id), None) => match item_id(Some(id)) {
                    None => report.drops.add(format_args!("{label}.relation_id"), "must be an integer relation id"),
                    Some(id) => match self.close(id, &at, &why)? {
                        Ok(()) => done.relations.push(id),
                        Err((field, reason)) => report.drops.add(format_args!("{label}.{field}"), reason),
                    },
                },
                (None, Some(r)) => match r.as_str().and_then(Ref::parse) {
                    None => report.drops.add(format_args!("{label}.ref"), "must be a record ref 'mem:<id>' or 'ep:<id>'"),
                    Some(r) => match self.invalidate_record(r, &at, &why)? {
                        Ok(()) => done.records.push(r.to_string()),
                        Err((field, reason)) => report.drops.add(format_args!("{label}.{field}"), reason),
                    },
                },
                _ => report.drops.add(label, "needs exactly one of relation_id and ref"),
            }
        }
        past_bound(items, cut, "invalidate", MAX_ITEMS, "item", report);
        Ok(done)
    }

    /// Ends relation `id` of this agent at `at`: after its start, before an end it has.
    fn close(&self, id: i64, at: &str, why: &str) -> Result<std::result::Result<(), (&'static str, String)>> {
        let found: Option<(String, String)> = self
            .conn
            .prepare_cached("SELECT valid_from, valid_to FROM relations WHERE id = ? AND agent_id = ?")?
            .query_row(params![id, self.scope.agent_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((from, to)) = found else { return Ok(Err(("relation_id", format!("no such relation: {id}")))) };
        if !from.is_empty() && at <= from.as_str() {
            return Ok(Err(("at", format!("must be after the relation's valid_from ({from}), got {at}"))));
        }
        if !to.is_empty() && to.as_str() <= at {
            return Ok(Err(("at", format!("relation {id} already ended at {to}"))));
        }
        self.conn
            .prepare_cached("UPDATE relations SET valid_to = ?, closed_by = ?, closed_at = ?, closed_reason = ? WHERE id = ?")?
            .execute(params![at, self.declared_by, self.now, why, id])?;
        Ok(Ok(()))
    }

    /// Marks record `r` of this agent invalid from `at`, before an invalidation it has.
    fn invalidate_record(&self, r: Ref, at: &str, why: &str) -> Result<std::result::Result<(), (&'static str, String)>> {
        if !self.owns(r)? {
            return Ok(Err(("ref", format!("no such record: {r}"))));
        }
        let table = r.kind.table();
        let was: String =
            self.conn.prepare_cached(&format!("SELECT invalid_at FROM {table} WHERE id = ?"))?.query_row([r.id], |x| x.get(0))?;
        if !was.is_empty() && was.as_str() <= at {
            return Ok(Err(("at", format!("{r} was already invalidated at {was}"))));
        }
        self.conn
            .prepare_cached(&format!("UPDATE {table} SET invalid_at = ?, invalid_reason = ? WHERE id = ?"))?
            .execute(params![at, why, r.id])?;
        Ok(Ok(()))
    }

    /// Whether `record` is a record of the declaring agent: the one check every anchor and
    /// record endpoint passes, whichever door declares it.
    pub(crate) fn owns(&self, record: Ref) -> Result<bool> {
        record.exists(self.conn, &self.scope.owner())
    }

    /// Stores a relation between two checked ends (`entity`, `mem` or `ep` and an id) with
    /// a normalized predicate, anchored on a checked record, holding over `validity` (checked
    /// canonical); its id, new or existing. The same fact from the same `valid_from` is the
    /// relation already declared, returned as it is.
    pub(crate) fn relate(
        &self,
        subject: (&str, i64),
        predicate: &str,
        object: (&str, i64),
        anchor: Option<Ref>,
        validity: &Validity,
    ) -> Result<i64> {
        Ok(self.relate_kept(subject, predicate, object, anchor, validity)?.0)
    }

    /// [`Self::relate`], with the `valid_to` the stored relation has: another than the one
    /// declared when the fact was declared before from the same `valid_from`.
    fn relate_kept(
        &self,
        subject: (&str, i64),
        predicate: &str,
        object: (&str, i64),
        anchor: Option<Ref>,
        validity: &Validity,
    ) -> Result<(i64, String)> {
        let s = self.scope;
        // no anchor is kind '' and id 0, which the unique key compares as it compares any
        let (anchor_kind, anchor_id) = anchor.map_or(("", 0), |a| (a.kind.as_str(), a.id));
        let Validity { valid_from, valid_to, closed_by, closed_at, closed_reason } = validity;
        let key = params![
            s.agent_id,
            s.project_id,
            s.channel,
            subject.0,
            subject.1,
            predicate,
            object.0,
            object.1,
            anchor_kind,
            anchor_id,
            valid_from
        ];
        use crate::base::derived_id::{derived_id, syncs, Part};
        let id = derived_id(
            "relations",
            &[
                Part::Text(&s.agent_id),
                Part::Text(&s.project_id),
                Part::Text(&s.channel),
                Part::Text(subject.0),
                Part::Int(subject.1),
                Part::Text(predicate),
                Part::Text(object.0),
                Part::Int(object.1),
                Part::Text(anchor_kind),
                Part::Int(anchor_id),
                Part::Text(valid_from),
            ],
        );
        self.conn.prepare_cached(concat!(
            "INSERT OR IGNORE INTO relations (id, agent_id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id, anchor_kind, \
             anchor_id, declared_by, declared_at, valid_from, valid_to, closed_by, closed_at, closed_reason) \
             VALUES (CASE WHEN ",
            syncs!(),
            " THEN ? END, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ))?
        .execute(params![id, s.agent_id, s.project_id, s.channel, subject.0, subject.1, predicate, object.0, object.1, anchor_kind, anchor_id, self.declared_by,
            self.now, valid_from, valid_to, closed_by, closed_at, closed_reason])?;
        let kept = self
            .conn
            .prepare_cached(
                "SELECT id, valid_to FROM relations WHERE agent_id = ? AND project_id = ? AND channel = ? AND subject_kind = ? AND subject_id = ? \
             AND predicate = ? AND object_kind = ? AND object_id = ? AND anchor_kind = ? AND anchor_id = ? AND valid_from = ?",
            )?
            .query_row(key, |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(kept)
    }

    /// Removes this agent's relations by id and mentions by `{entity, ref}`; another
    /// agent's ids are left alone and count nothing.
    /// `cut` is what reading them cut, by path from `retract`.
    pub fn retract(&self, relations: &[Value], mentions: &[Value], cut: &Cut, report: &mut DeclareReport) -> Result<Retracted> {
        let mut done = Retracted::default();
        for (index, item) in relations.iter().take(MAX_ITEMS).enumerate() {
            match item_id(Some(item)) {
                None => report.drops.add(format_args!("retract.relations[{index}]"), "must be an integer relation id"),
                Some(id) => {
                    done.relations +=
                        self.conn.execute("DELETE FROM relations WHERE id = ? AND agent_id = ?", params![id, self.scope.agent_id])? as u32
                }
            }
        }
        past_bound(relations, cut, "retract.relations", MAX_ITEMS, "item", report);
        for (index, item) in mentions.iter().take(MAX_ITEMS).enumerate() {
            let entity = item_id(item.get("entity"));
            let r = item.get("ref").and_then(Value::as_str).and_then(Ref::parse);
            match (entity, r) {
                (Some(entity), Some(r)) => {
                    done.mentions += self.conn.execute(
                        "DELETE FROM entity_mentions WHERE entity_id = ? AND ref_kind = ? AND ref_id = ? \
                         AND entity_id IN (SELECT id FROM entities WHERE agent_id = ?)",
                        params![entity, r.kind, r.id, self.scope.agent_id],
                    )? as u32
                }
                _ => report.drops.add(format_args!("retract.mentions[{index}]"), "needs an integer entity id and a record ref"),
            }
        }
        past_bound(mentions, cut, "retract.mentions", MAX_ITEMS, "item", report);
        Ok(done)
    }
}
