//! The portable JSONL export: the reference implementation's `cpersona-export/1.1` format,
//! written by `export_memories` and read by `import_memories`.
//!
//! A header line (`{"_type":"header","version":"cpersona-export/1.1",…}`), then one JSON
//! object per record, `_type` saying which: `memory`, `episode`, `entity` (with its
//! `aliases`), `mention` (`entity` id, `ref`), `relation` (`subject_id`, `predicate`,
//! `object_id`, `anchor_ref`). Ids are the exporting database's; an import gives every record
//! a new id and points the declarations at the records as restored. Beside the reference's
//! fields an episode carries its `history` (the reference exports none; its importer ignores
//! the key). Facts in time (SPEC §5) ride on the same lines, each key only when it is set:
//! a record's `expires_at`, `invalid_at` and `invalid_reason`; a relation's `valid_from`,
//! `valid_to`, `closed_by`, `closed_at` and `closed_reason` (the same fact closed and declared
//! again is two lines); and a `predicate` line per predicate declared single-valued or
//! multi-valued again (`name`, `single`). The reference's importer ignores keys it does not
//! know and lists a `predicate` line as of an unknown type, importing the rest. What is not
//! kept on import: the reference's profiles, lock flags and recall
//! counters (this memory has none; a profile line is listed as dropped), creation and
//! declaration times (they become the import's) and embeddings (re-embed after import).
//!
//! An import trusts nothing in the file: every record is read into the option type of the
//! operation that would have written it (`store`, `archive_episode`) and checked as that
//! operation checks it, its errors named by line (`lines[12].content`); declarations go
//! through the same path as `declare_associations`, so a malformed or dangling one is
//! dropped and listed, never stored.

use crate::api::error::{Error, Result};
use crate::api::read::{as_int, from_json, type_name};
use crate::api::refs::{Kind, Ref};
use crate::api::*;
use crate::base::scope::WriteScope;
use crate::base::sorted::SortedMap;
use crate::graph::associations::Declarer;
use rusqlite::Connection;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The format written, and the family read.
const VERSION: &str = "cpersona-export/1.1";
const FAMILY: &str = "cpersona-export/1.";

/// Writes every record of `agent_id` as JSONL.
pub fn export(conn: &Connection, opts: &ExportMemoriesOptions, now: &str) -> Result<ExportMemoriesResponse> {
    let agent = &opts.agent_id;
    let json_text = |t: Option<String>| t.and_then(|t| serde_json::from_str::<Value>(&t).ok());
    let mut lines: Vec<Value> = Vec::new();
    let mut stmt = conn.prepare(
        "SELECT id, content, source, timestamp, metadata, created_at, project_id, channel, expires_at, invalid_at, invalid_reason \
         FROM memories WHERE agent_id = ? ORDER BY id",
    )?;
    let memories = stmt.query_map([agent], |r| {
        let line = json!({"_type": "memory", "id": r.get::<_, i64>(0)?, "agent_id": agent, "msg_id": "", "content": r.get::<_, String>(1)?,
            "source": json_text(r.get(2)?).unwrap_or(Value::Null), "timestamp": r.get::<_, String>(3)?,
            "metadata": json_text(r.get(4)?).unwrap_or_else(|| json!({})), "created_at": r.get::<_, String>(5)?,
            "project_id": r.get::<_, String>(6)?, "channel": r.get::<_, String>(7)?, "locked": 0, "recall_count": 0, "last_recalled_at": null});
        times(line, r, 8, RECORD_TIMES)
    })?;
    let memories: Vec<Value> = memories.collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare(
        "SELECT id, summary, keywords, history, start_time, end_time, created_at, project_id, channel, expires_at, invalid_at, invalid_reason \
         FROM episodes WHERE agent_id = ? ORDER BY id",
    )?;
    let episodes = stmt.query_map([agent], |r| {
        let line = json!({"_type": "episode", "id": r.get::<_, i64>(0)?, "agent_id": agent, "summary": r.get::<_, String>(1)?,
            "keywords": r.get::<_, String>(2)?, "history": json_text(r.get(3)?).unwrap_or_else(|| json!([])),
            "start_time": r.get::<_, Option<String>>(4)?, "end_time": r.get::<_, Option<String>>(5)?, "created_at": r.get::<_, String>(6)?,
            "resolved": false, "project_id": r.get::<_, String>(7)?, "channel": r.get::<_, String>(8)?});
        times(line, r, 9, RECORD_TIMES)
    })?;
    let episodes: Vec<Value> = episodes.collect::<rusqlite::Result<_>>()?;
    // In entity order, so each is appended to the sorted list (`SortedMap`: no B-tree of its own).
    let mut aliases: SortedMap<i64, Vec<String>> = SortedMap::new();
    let mut stmt = conn.prepare(
        "SELECT a.entity_id, a.alias FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE e.agent_id = ? ORDER BY a.entity_id, a.rowid",
    )?;
    for row in stmt.query_map([agent], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))? {
        let (id, alias) = row?;
        aliases.entry(id).or_default().push(alias);
    }
    let mut stmt =
        conn.prepare("SELECT id, project_id, channel, name, declared_by, created_at FROM entities WHERE agent_id = ? ORDER BY id")?;
    let rows = stmt.query_map([agent], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, String>(5)?,
        ))
    })?;
    let mut entities = Vec::new();
    for row in rows {
        let (id, project, channel, name, by, at) = row?;
        // taken, not removed: the map is dropped whole (graph/traverse.rs)
        let names = aliases.get_mut(&id).map(std::mem::take).unwrap_or_default();
        entities.push(json!({"_type": "entity", "id": id, "agent_id": agent, "project_id": project, "channel": channel, "name": name,
            "declared_by": by, "created_at": at, "aliases": names}));
    }
    // Each entity's mentions in the order of their refs' spelling (`mem:10` before `mem:2`),
    // as exports listed them when the refs were stored as text.
    let mut stmt = conn.prepare(
        "SELECT m.entity_id, m.ref_kind, m.ref_id, m.declared_by, m.created_at FROM entity_mentions m JOIN entities e ON e.id = m.entity_id \
         WHERE e.agent_id = ? ORDER BY m.entity_id, m.ref_kind, CAST(m.ref_id AS TEXT)",
    )?;
    let mentions = stmt.query_map([agent], |r| {
        let at = Ref { kind: r.get(1)?, id: r.get(2)? };
        Ok(json!({"_type": "mention", "entity": r.get::<_, i64>(0)?, "ref": at.to_string(), "declared_by": r.get::<_, String>(3)?,
            "created_at": r.get::<_, String>(4)?}))
    })?;
    let mentions: Vec<Value> = mentions.collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare(
        "SELECT id, project_id, channel, subject_kind, subject_id, predicate, object_kind, object_id, anchor_kind, anchor_id, declared_by, \
         declared_at, valid_from, valid_to, closed_by, closed_at, closed_reason FROM relations WHERE agent_id = ? ORDER BY id",
    )?;
    let relations = stmt.query_map([agent], |r| {
        let anchor = Ref::stored(r.get_ref(8)?.as_str()?, r.get(9)?);
        let line = json!({"_type": "relation", "id": r.get::<_, i64>(0)?, "agent_id": agent, "project_id": r.get::<_, String>(1)?,
            "channel": r.get::<_, String>(2)?, "subject_kind": r.get::<_, String>(3)?, "subject_id": r.get::<_, i64>(4)?,
            "predicate": r.get::<_, String>(5)?, "object_kind": r.get::<_, String>(6)?, "object_id": r.get::<_, i64>(7)?,
            "anchor_ref": anchor.map_or(Value::Null, |a| Value::String(a.to_string())), "declared_by": r.get::<_, String>(10)?,
            "declared_at": r.get::<_, String>(11)?});
        times(line, r, 12, RELATION_TIMES)
    })?;
    let relations: Vec<Value> = relations.collect::<rusqlite::Result<_>>()?;
    let mut stmt = conn.prepare(
        "SELECT project_id, channel, name, single, declared_by, declared_at FROM predicates WHERE agent_id = ? ORDER BY project_id, channel, name",
    )?;
    let predicates = stmt.query_map([agent], |r| {
        Ok(json!({"_type": "predicate", "agent_id": agent, "project_id": r.get::<_, String>(0)?, "channel": r.get::<_, String>(1)?,
            "name": r.get::<_, String>(2)?, "single": r.get::<_, bool>(3)?, "declared_by": r.get::<_, String>(4)?,
            "declared_at": r.get::<_, String>(5)?}))
    })?;
    let predicates: Vec<Value> = predicates.collect::<rusqlite::Result<_>>()?;
    let count = |v: &Vec<Value>| v.len() as i64;
    lines.push(json!({"_type": "header", "version": VERSION, "agent_id": agent, "exported_at": now, "memory_count": count(&memories),
        "episode_count": count(&episodes), "has_profile": false, "profile_count": 0, "entity_count": count(&entities),
        "mention_count": count(&mentions), "relation_count": count(&relations)}));
    if !predicates.is_empty() {
        lines[0]["predicate_count"] = json!(count(&predicates));
    }
    let response = ExportMemoriesResponse {
        ok: true,
        jsonl: String::new(),
        memories: count(&memories),
        episodes: count(&episodes),
        entities: count(&entities),
        mentions: count(&mentions),
        relations: count(&relations),
        predicates: count(&predicates),
    };
    lines.extend(memories.into_iter().chain(episodes).chain(entities).chain(mentions).chain(relations).chain(predicates));
    let mut jsonl = String::new();
    for line in lines {
        jsonl.push_str(&line.to_string());
        jsonl.push('\n');
    }
    Ok(ExportMemoriesResponse { jsonl, ..response })
}

/// The columns of a record's time (SPEC §5), in the order the export selects them.
const RECORD_TIMES: &[&str] = &["expires_at", "invalid_at", "invalid_reason"];
/// The columns of a relation's validity and closing, in the order the export selects them.
const RELATION_TIMES: &[&str] = &["valid_from", "valid_to", "closed_by", "closed_at", "closed_reason"];

/// `line` with each of `keys` set from the row's columns from `first` on, those that are
/// set only (`''` is not set): a memory with no time declared exports as it always did.
fn times(mut line: Value, r: &rusqlite::Row, first: usize, keys: &[&str]) -> rusqlite::Result<Value> {
    for (i, key) in keys.iter().enumerate() {
        let value: String = r.get(first + i)?;
        if !value.is_empty() {
            line[*key] = Value::String(value);
        }
    }
    Ok(line)
}

/// An entity of the file, as declared.
struct FileEntity {
    scope: WriteScope,
    /// Its id in this memory.
    id: i64,
}

/// Reads the export into the open transaction `tx`; the caller commits (or, dry, does not).
pub fn import(tx: &Connection, opts: &ImportMemoriesOptions, now: &str) -> Result<ImportMemoriesResponse> {
    let target = opts.target_agent_id.as_deref().filter(|t| !t.trim().is_empty());
    let mut out = ImportMemoriesResponse {
        ok: true,
        dry_run: opts.dry_run.unwrap_or(false),
        version: String::new(),
        memories: 0,
        episodes: 0,
        entities: 0,
        mentions: 0,
        relations: 0,
        predicates: 0,
        drops: Drops::default(),
    };
    // The file's ids, pointed at the rows as restored.
    let mut refs: BTreeMap<(Kind, i64), Ref> = BTreeMap::new();
    let mut entities: BTreeMap<i64, FileEntity> = BTreeMap::new();
    let mut declared: Vec<(usize, Map<String, Value>)> = Vec::new();
    for (i, line) in opts.jsonl.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("lines[{i}]");
        let record: Value =
            serde_json::from_str(line).map_err(|e| Error::Invalid { field: at.clone(), reason: format!("is not JSON: {e}") })?;
        let Value::Object(mut record) = record else {
            return Err(Error::WrongType { field: at, expected: "a JSON object", got: type_name(&record) });
        };
        let kind = match record.get("_type") {
            Some(Value::String(s)) => s.clone(),
            other => {
                let got = other.map_or("nothing".into(), type_name);
                return Err(Error::WrongType { field: format!("{at}._type"), expected: "a string", got });
            }
        };
        if out.version.is_empty() {
            match (kind.as_str(), record.get("version")) {
                ("header", Some(Value::String(v))) if v.starts_with(FAMILY) => {
                    out.version = v.clone();
                    continue;
                }
                _ => {
                    return Err(Error::Invalid {
                        field: format!("{at}.version"),
                        reason: format!("must be the header line of a {FAMILY}x export (\"_type\": \"header\")"),
                    })
                }
            }
        }
        let prefix = format!("{at}.");
        let agent = |record: &Map<String, Value>| -> Value {
            target.map_or_else(|| record.get("agent_id").cloned().unwrap_or(Value::Null), |t| Value::String(t.into()))
        };
        let id = |record: &Map<String, Value>, key: &str| {
            record.get(key).and_then(as_int).ok_or_else(|| Error::WrongType {
                field: format!("{prefix}{key}"),
                expected: "an integer",
                got: record.get(key).map_or("nothing".into(), type_name),
            })
        };
        let pick = |record: &mut Map<String, Value>, keys: &[&str]| -> Map<String, Value> {
            keys.iter().filter_map(|k| record.remove(*k).filter(|v| !v.is_null()).map(|v| ((*k).to_owned(), v))).collect()
        };
        match kind.as_str() {
            "memory" => {
                let old = id(&record, "id")?;
                let mut opts = pick(&mut record, &["project_id", "channel", "content", "timestamp", "source", "metadata", "expires_at"]);
                let invalid = invalidation(&record, &prefix)?;
                opts.insert("agent_id".into(), agent(&record));
                if opts.get("metadata").and_then(Value::as_object).is_some_and(Map::is_empty) {
                    opts.remove("metadata");
                }
                let store: StoreOptions = from_json(&Value::Object(opts)).map_err(|e| e.under(&prefix))?;
                store.validate().map_err(|e| e.under(&prefix))?;
                let new = crate::storage::records::insert_memory(tx, &store, now)?;
                invalidate(tx, Ref { kind: Kind::Mem, id: new }, invalid)?;
                refs.insert((Kind::Mem, old), Ref { kind: Kind::Mem, id: new });
                out.memories += 1;
            }
            "episode" => {
                let old = id(&record, "id")?;
                let mut opts = pick(&mut record, &["project_id", "channel", "summary", "keywords", "history", "expires_at"]);
                let invalid = invalidation(&record, &prefix)?;
                opts.insert("agent_id".into(), agent(&record));
                let episode: EpisodeOptions = from_json(&Value::Object(opts)).map_err(|e| e.under(&prefix))?;
                episode.validate().map_err(|e| e.under(&prefix))?;
                let new = crate::storage::records::archive_episode(tx, &episode, now)?.episode_id;
                invalidate(tx, Ref { kind: Kind::Ep, id: new }, invalid)?;
                refs.insert((Kind::Ep, old), Ref { kind: Kind::Ep, id: new });
                out.episodes += 1;
            }
            "entity" | "mention" | "relation" | "predicate" => declared.push((i, record)),
            other => out.drops.add(at, format_args!("a {other:?} record, which this memory does not keep")),
        }
    }
    if out.version.is_empty() {
        return Err(Error::Invalid { field: "jsonl".into(), reason: format!("holds no {FAMILY}x header line") });
    }
    // Declarations last, once every record they may point at is in.
    for (i, record) in declared {
        let at = format!("lines[{i}]");
        let text = |key: &str| record.get(key).and_then(Value::as_str).map(str::to_owned);
        let int = |key: &str| record.get(key).and_then(as_int);
        let by = match text("declared_by").as_deref() {
            Some("operator") => DeclaredBy::Operator.as_str(),
            _ => DeclaredBy::Agent.as_str(),
        };
        // An entity's or a relation's own scope (a mention is in its entity's), checked as a
        // declaration's options are.
        let scope = || -> Result<WriteScope> {
            let scope = WriteScope {
                agent_id: target.map_or_else(|| text("agent_id").unwrap_or_default(), str::to_owned),
                project_id: text("project_id").unwrap_or_default(),
                channel: text("channel").unwrap_or_default(),
            };
            let prefix = format!("{at}.");
            crate::api::id_text("agent_id", &scope.agent_id).map_err(|e| e.under(&prefix))?;
            crate::api::text("project_id", &scope.project_id, crate::api::MAX_ID).map_err(|e| e.under(&prefix))?;
            crate::api::text("channel", &scope.channel, crate::api::MAX_ID).map_err(|e| e.under(&prefix))?;
            Ok(scope)
        };
        let mut report = DeclareReport::default();
        let applied = match record.get("_type").and_then(Value::as_str) {
            Some("entity") => {
                let (Some(old), Some(name)) = (int("id"), text("name")) else {
                    out.drops.add(at, "an entity needs an integer id and a name");
                    continue;
                };
                let scope = scope()?;
                let aliases = record.get("aliases").cloned().unwrap_or(json!([]));
                let declarer = Declarer { conn: tx, scope: &scope, declared_by: by, now };
                declarer.restore_entity(&json!({"name": name, "aliases": aliases}), &mut report)?;
                if let Some(e) = report.entities.first() {
                    entities.insert(old, FileEntity { scope, id: e.id });
                }
                &mut out.entities
            }
            Some("mention") => {
                let target = text("ref").and_then(|r| Ref::parse(&r)).and_then(|r| refs.get(&(r.kind, r.id)).copied());
                match (int("entity").and_then(|e| entities.get(&e)), target) {
                    (Some(e), Some(r)) => {
                        let declarer = Declarer { conn: tx, scope: &e.scope, declared_by: by, now };
                        if !declarer.owns(r)? {
                            out.drops.add(at, "a mention of a record of another agent than its entity's");
                            continue;
                        }
                        declarer.mention(e.id, r)?;
                        &mut out.mentions
                    }
                    _ => {
                        out.drops.add(at, "a mention of an entity or a record the file does not hold");
                        continue;
                    }
                }
            }
            Some("predicate") => {
                let scope = scope()?;
                let single = record.get("single").and_then(Value::as_bool);
                match (crate::graph::associations::name(record.get("name")), single) {
                    (Ok(name), Some(single)) => {
                        tx.prepare_cached(
                            "INSERT INTO predicates (agent_id, project_id, channel, name, single, declared_by, declared_at) \
                             VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (agent_id, project_id, channel, name) \
                             DO UPDATE SET single = excluded.single, declared_by = excluded.declared_by, declared_at = excluded.declared_at",
                        )?
                        .execute(rusqlite::params![scope.agent_id, scope.project_id, scope.channel, name.normalized, single, by, now])?;
                        &mut out.predicates
                    }
                    (Err(reason), _) => {
                        out.drops.add(format_args!("{at}.name"), reason);
                        continue;
                    }
                    (_, None) => {
                        out.drops.add(format_args!("{at}.single"), "must be true or false");
                        continue;
                    }
                }
            }
            _ => {
                // Ends and anchor by the file's ids, as restored, held to what a declaration
                // could have made: an entity the relation's bucket reads, a record of its agent.
                let scope = scope()?;
                let declarer = Declarer { conn: tx, scope: &scope, declared_by: by, now };
                let buckets = scope.visible_buckets();
                let end = |kind: &str, id: &str| -> Result<Option<(&'static str, i64)>> {
                    let Some(id) = int(id) else { return Ok(None) };
                    Ok(match text(kind).as_deref() {
                        Some("entity") => entities
                            .get(&id)
                            .filter(|e| {
                                e.scope.agent_id == scope.agent_id
                                    && buckets.contains(&(e.scope.project_id.clone(), e.scope.channel.clone()))
                            })
                            .map(|e| ("entity", e.id)),
                        Some(k) => match Kind::parse(k).and_then(|k| refs.get(&(k, id)).copied()) {
                            Some(r) if declarer.owns(r)? => Some((r.kind.as_str(), r.id)),
                            _ => None,
                        },
                        None => None,
                    })
                };
                let anchor = match text("anchor_ref").filter(|a| !a.is_empty()) {
                    None => Some(None),
                    Some(a) => match Ref::parse(&a).and_then(|r| refs.get(&(r.kind, r.id)).copied()) {
                        Some(r) if declarer.owns(r)? => Some(Some(r)),
                        _ => None,
                    },
                };
                let predicate = crate::graph::associations::name(record.get("predicate"));
                let interval = match interval(&record) {
                    Ok(interval) => interval,
                    Err((key, reason)) => {
                        out.drops.add(format_args!("{at}.{key}"), reason);
                        continue;
                    }
                };
                match (end("subject_kind", "subject_id")?, end("object_kind", "object_id")?, anchor, predicate) {
                    (Some(subject), Some(object), Some(anchor), Ok(predicate)) => {
                        let [valid_from, valid_to, closed_by, closed_at, closed_reason] = interval;
                        let validity = Validity { valid_from, valid_to, closed_by, closed_at, closed_reason };
                        report.relations.push(declarer.relate(subject, &predicate.normalized, object, anchor, &validity)?);
                        &mut out.relations
                    }
                    (_, _, _, Err(reason)) => {
                        out.drops.add(format_args!("{at}.predicate"), reason);
                        continue;
                    }
                    _ => {
                        out.drops.add(
                            at,
                            "a relation whose ends or anchor are not records or entities of the file its agent could have declared it on",
                        );
                        continue;
                    }
                }
            }
        };
        if report.drops.is_empty() {
            *applied += 1;
        }
        out.drops.extend_under(&format!("{at}."), report.drops);
    }
    Ok(out)
}

/// A record line's invalidation (`invalid_at` and `invalid_reason`, both or neither),
/// checked as `declare_associations`' `invalidate` checks one: an ISO-8601 instant, stored
/// in its canonical spelling, and a reason of 1–256 characters. `None` when the line has
/// none (an export writes them only when set).
fn invalidation(record: &Map<String, Value>, prefix: &str) -> Result<Option<(String, String)>> {
    let text = |key: &str| -> Result<Option<String>> {
        match record.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(Error::WrongType { field: format!("{prefix}{key}"), expected: "a string", got: type_name(other) }),
        }
    };
    let (at, reason) = match (text("invalid_at")?, text("invalid_reason")?) {
        (None, None) => return Ok(None),
        (None, Some(_)) => return Err(Error::Missing { field: format!("{prefix}invalid_at") }),
        (Some(_), None) => return Err(Error::Missing { field: format!("{prefix}invalid_reason") }),
        (Some(at), Some(reason)) => (at, reason),
    };
    let Some(at) = canonical_time(&at) else {
        return Err(Error::Invalid {
            field: format!("{prefix}invalid_at"),
            reason: format!("must be an ISO-8601 date-time such as 2026-05-10T12:00:00Z, got {at:?}"),
        });
    };
    crate::api::id_text("invalid_reason", &reason).map_err(|e| e.under(prefix))?;
    Ok(Some((at, reason)))
}

/// Writes a restored record's invalidation, if it had one.
fn invalidate(tx: &Connection, r: Ref, invalid: Option<(String, String)>) -> Result<()> {
    if let Some((at, reason)) = invalid {
        let sql = format!("UPDATE {} SET invalid_at = ?, invalid_reason = ? WHERE id = ?", r.kind.table());
        tx.prepare_cached(&sql)?.execute(rusqlite::params![at, reason, r.id])?;
    }
    Ok(())
}

/// A relation line's validity and closing ([`RELATION_TIMES`]), canonical, `''` where not
/// set; or the key that is malformed and why (the relation is then dropped, as a
/// declaration of it would be): an instant that is not ISO-8601, an interval that ends at or
/// before it starts, a closer that is neither `agent` nor `operator`, a reason past 256
/// characters.
fn interval(record: &Map<String, Value>) -> std::result::Result<[String; 5], (&'static str, String)> {
    let mut out: [String; 5] = Default::default();
    for (slot, key) in out.iter_mut().zip(RELATION_TIMES) {
        *slot = match record.get(*key) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) if s.is_empty() => String::new(),
            Some(Value::String(s)) => match *key {
                "closed_by" if s == DeclaredBy::Agent.as_str() || s == DeclaredBy::Operator.as_str() => s.clone(),
                "closed_by" => return Err((key, "must be \"agent\" or \"operator\"".into())),
                "closed_reason" if s.chars().count() <= crate::api::MAX_ID => s.clone(),
                "closed_reason" => return Err((key, format!("is longer than {} characters", crate::api::MAX_ID))),
                _ => canonical_time(s).ok_or_else(|| (*key, format!("must be an ISO-8601 date-time, got {s:?}")))?,
            },
            Some(other) => return Err((key, format!("must be a string, got {}", type_name(other)))),
        };
    }
    let [from, to, ..] = &out;
    if !from.is_empty() && !to.is_empty() && to <= from {
        return Err(("valid_to", "must be later than valid_from".into()));
    }
    Ok(out)
}
