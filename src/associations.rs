//! Declaring the graph (design §2): entities with aliases, the records that mention them,
//! and subject–predicate–object relations; and retracting them.
//!
//! Declarations are read leniently: a malformed item is reported in `dropped` as
//! `{item, reason}` and skipped, never a reason to refuse the rest of the call or to lose
//! the memory a `store` carries it on. Every list is bounded ([`MAX_ITEMS`],
//! [`MAX_ALIASES`], [`MAX_TEXT`]) and whatever lies past a bound is reported, never cut
//! silently. Two rules the schema cannot hold are held here: one normalized alias names
//! at most one entity a reader sees, and a record endpoint or anchor must be a record of
//! the declaring agent.

use crate::api::read::as_int;
use crate::api::{DeclareReport, DeclaredEntity, Dropped, Retracted};
// The bounds are declared with the other limits on what an operation takes.
use crate::api::{MAX_ALIASES, MAX_ITEMS, MAX_TEXT};
use crate::entities::{register, resolve};
use crate::error::Result;
use crate::normalize::normalize;
use crate::refs::Ref;
use crate::scope::WriteScope;
use rusqlite::{params, Connection};
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

/// A declared string within the bounds: trimmed, non-empty, at most [`MAX_TEXT`] characters,
/// free of NUL.
fn text(v: Option<&Value>) -> std::result::Result<String, String> {
    match v {
        Some(Value::String(s)) => {
            let t = s.trim();
            if t.is_empty() || normalize(t).is_empty() {
                Err("must be a nonempty string".into())
            } else if t.chars().count() > MAX_TEXT {
                Err(format!("is longer than {MAX_TEXT} characters"))
            } else if t.contains('\0') {
                // refused as in every option (`crate::api::text`), dropped here as declarations are
                Err("must not contain a NUL character (U+0000)".into())
            } else {
                Ok(t.to_owned())
            }
        }
        None | Some(Value::Null) => Err("is required".into()),
        Some(_) => Err("must be a string".into()),
    }
}

/// An integer id from a lenient declaration item: a JSON integer, not a boolean.
fn item_id(v: Option<&Value>) -> Option<i64> {
    v.and_then(as_int).filter(|n| *n > 0)
}

fn drop(report: &mut DeclareReport, item: impl Into<String>, reason: impl Into<String>) {
    report.dropped.push(Dropped { item: item.into(), reason: reason.into() });
}

/// The list under `key` of an associations object, or a drop when it is not a list.
fn list<'v>(assoc: &'v Map<String, Value>, key: &str, report: &mut DeclareReport) -> &'v [Value] {
    match assoc.get(key) {
        None | Some(Value::Null) => &[],
        Some(Value::Array(items)) => items,
        Some(_) => {
            drop(report, key, "must be a list");
            &[]
        }
    }
}

impl Declarer<'_> {
    /// Applies an associations object anchored on `anchor` (which the caller has checked
    /// exists), returning what was declared and what was dropped.
    pub fn declare(&self, associations: &Value, anchor: Option<Ref>, report: &mut DeclareReport) -> Result<()> {
        let Some(assoc) = associations.as_object() else {
            drop(report, "associations", "must be an object");
            return Ok(());
        };
        for key in assoc.keys().filter(|k| *k != "entities" && *k != "relations") {
            drop(report, key.as_str(), "unknown field; associations take entities and relations");
        }
        let entities = list(assoc, "entities", report);
        let relations = list(assoc, "relations", report);
        self.items(entities, relations, anchor, report)
    }

    /// Applies declared entity and relation items anchored on `anchor`.
    pub fn items(&self, entities: &[Value], relations: &[Value], anchor: Option<Ref>, report: &mut DeclareReport) -> Result<()> {
        for (index, item) in entities.iter().enumerate() {
            self.entity(index, item, anchor, report)?;
        }
        for (index, item) in relations.iter().enumerate() {
            self.relation(index, item, anchor, report)?;
        }
        Ok(())
    }

    fn entity(&self, index: usize, item: &Value, anchor: Option<Ref>, report: &mut DeclareReport) -> Result<()> {
        let label = format!("entities[{index}]");
        if index >= MAX_ITEMS {
            drop(report, label, format!("beyond the {MAX_ITEMS}-item bound"));
            return Ok(());
        }
        let Some(obj) = item.as_object() else {
            drop(report, label, "must be an object with a name");
            return Ok(());
        };
        let name = match text(obj.get("name")) {
            Ok(name) => name,
            Err(reason) => {
                drop(report, format!("{label}.name"), reason);
                return Ok(());
            }
        };
        for key in obj.keys().filter(|k| *k != "name" && *k != "aliases") {
            drop(report, format!("{label}.{key}"), "unknown field; entities take name and aliases");
        }
        let aliases: &[Value] = match obj.get("aliases") {
            None | Some(Value::Null) => &[],
            Some(Value::Array(a)) => a,
            Some(_) => {
                drop(report, format!("{label}.aliases"), "must be a list");
                &[]
            }
        };
        let carries_aliases = aliases.iter().take(MAX_ALIASES).any(|a| text(Some(a)).is_ok());
        let (id, created) = register(self.conn, self.scope, &name, self.declared_by, self.now, carries_aliases)?;
        for (a_index, alias) in aliases.iter().enumerate() {
            let a_label = format!("{label}.aliases[{a_index}]");
            if a_index >= MAX_ALIASES {
                drop(report, a_label, format!("beyond the {MAX_ALIASES}-alias bound"));
                continue;
            }
            match text(Some(alias)) {
                Err(reason) => drop(report, a_label, reason),
                Ok(alias) => {
                    let normalized = normalize(&alias);
                    match resolve(self.conn, self.scope, &normalized, false)? {
                        Some(owner) if owner != id => drop(report, a_label, "already names another entity in this scope"),
                        _ => {
                            self.conn
                                .prepare_cached("INSERT OR IGNORE INTO entity_aliases (entity_id, alias, normalized) VALUES (?, ?, ?)")?
                                .execute(params![id, alias, normalized])?;
                        }
                    }
                }
            }
        }
        if let Some(anchor) = anchor {
            self.conn
                .prepare_cached("INSERT OR IGNORE INTO entity_mentions (entity_id, ref, declared_by, created_at) VALUES (?, ?, ?, ?)")?
                .execute(params![id, anchor.to_string(), self.declared_by, self.now])?;
            report.mentions += 1;
        }
        report.entities.push(DeclaredEntity { id, name, created });
        Ok(())
    }

    /// A relation endpoint: a record ref of this agent, or an entity name (registered if new).
    fn endpoint(&self, v: Option<&Value>) -> Result<std::result::Result<(&'static str, i64), String>> {
        if let Some(Value::String(s)) = v {
            let s = s.trim();
            if let Some(r) = Ref::parse(s) {
                return Ok(if r.exists(self.conn, &self.scope.owner())? {
                    Ok((r.kind.as_str(), r.id))
                } else {
                    Err(format!("{s} is not a record of this agent"))
                });
            }
            // Shaped as a ref but naming no record (`mem:`, `mem:-1`, `mem:1.5`, an id past
            // SQLite's integer range): registering the string as an entity name would invent
            // one. A kind prefix followed by a word (`ep:x`) is a name.
            let id = s.strip_prefix("mem:").or_else(|| s.strip_prefix("ep:"));
            if id.is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit() || b"+-.".contains(&b))) {
                return Ok(Err(format!("{s} is not a record of this agent")));
            }
        }
        match text(v) {
            Ok(name) => Ok(Ok(("entity", register(self.conn, self.scope, &name, self.declared_by, self.now, false)?.0))),
            Err(reason) => Ok(Err(format!("{reason}: an entity name or a record ref 'mem:<id>' / 'ep:<id>'"))),
        }
    }

    fn relation(&self, index: usize, item: &Value, anchor: Option<Ref>, report: &mut DeclareReport) -> Result<()> {
        let label = format!("relations[{index}]");
        if index >= MAX_ITEMS {
            drop(report, label, format!("beyond the {MAX_ITEMS}-item bound"));
            return Ok(());
        }
        let Some(obj) = item.as_object() else {
            drop(report, label, "must be an object with subject, predicate and object");
            return Ok(());
        };
        for key in obj.keys().filter(|k| !["subject", "predicate", "object"].contains(&k.as_str())) {
            drop(report, format!("{label}.{key}"), "unknown field; relations take subject, predicate and object");
        }
        let predicate = match text(obj.get("predicate")) {
            Ok(p) => normalize(&p),
            Err(reason) => {
                drop(report, format!("{label}.predicate"), reason);
                return Ok(());
            }
        };
        let subject = match self.endpoint(obj.get("subject"))? {
            Ok(s) => s,
            Err(reason) => {
                drop(report, format!("{label}.subject"), reason);
                return Ok(());
            }
        };
        let object = match self.endpoint(obj.get("object"))? {
            Ok(o) => o,
            Err(reason) => {
                drop(report, format!("{label}.object"), reason);
                return Ok(());
            }
        };
        let s = self.scope;
        let anchor = anchor.map(|a| a.to_string()).unwrap_or_default();
        let key = params![s.agent_id, s.project_id, s.channel, subject.0, subject.1, predicate, object.0, object.1, anchor];
        self.conn.prepare_cached(
            "INSERT OR IGNORE INTO relations (agent_id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id, anchor_ref, declared_by, declared_at) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )?
        .execute(params![s.agent_id, s.project_id, s.channel, subject.0, subject.1, predicate, object.0, object.1, anchor, self.declared_by, self.now])?;
        let id: i64 = self
            .conn
            .prepare_cached(
                "SELECT id FROM relations WHERE agent_id = ? AND project_id = ? AND channel = ? AND subject_kind = ? AND subject_id = ? \
             AND predicate = ? AND object_kind = ? AND object_id = ? AND anchor_ref = ?",
            )?
            .query_row(key, |r| r.get(0))?;
        report.relations.push(id);
        Ok(())
    }

    /// Removes this agent's relations by id and mentions by `{entity, ref}`; another
    /// agent's ids are left alone and count nothing.
    pub fn retract(&self, relations: &[Value], mentions: &[Value], report: &mut DeclareReport) -> Result<Retracted> {
        let mut done = Retracted::default();
        for (index, item) in relations.iter().enumerate() {
            let label = format!("retract.relations[{index}]");
            match item_id(Some(item)) {
                _ if index >= MAX_ITEMS => drop(report, label, format!("beyond the {MAX_ITEMS}-item bound")),
                None => drop(report, label, "must be an integer relation id"),
                Some(id) => {
                    done.relations +=
                        self.conn.execute("DELETE FROM relations WHERE id = ? AND agent_id = ?", params![id, self.scope.agent_id])? as u32
                }
            }
        }
        for (index, item) in mentions.iter().enumerate() {
            let label = format!("retract.mentions[{index}]");
            let entity = item_id(item.get("entity"));
            let r = item.get("ref").and_then(Value::as_str).and_then(Ref::parse);
            match (entity, r) {
                _ if index >= MAX_ITEMS => drop(report, label, format!("beyond the {MAX_ITEMS}-item bound")),
                (Some(entity), Some(r)) => {
                    done.mentions += self.conn.execute(
                        "DELETE FROM entity_mentions WHERE entity_id = ? AND ref = ? AND entity_id IN (SELECT id FROM entities WHERE agent_id = ?)",
                        params![entity, r.to_string(), self.scope.agent_id],
                    )? as u32
                }
                _ => drop(report, label, "needs an integer entity id and a record ref"),
            }
        }
        Ok(done)
    }
}
