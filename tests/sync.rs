//! Sync in the engine (issue 42, item 1): each write's changes captured as a pending change,
//! a log of every device's changes applied in order with the written policy, a device's
//! pending changes undone and applied again on top, and devices that applied the same log
//! holding the same rows.
//!
//! The relay here is a simulation: an ordered log that takes each device's pushes in its
//! order and once (a repeat of a logged change is not logged again), and devices that
//! receive the log late, in pieces, repeated and out of order, and lose pushes. Every device
//! then holds the same rows (the canonical dump), its derived tables equal a rebuild, no
//! declaration outlives its endpoints (invariant 8), and reads answer alike.

use associative_memory::{FixedClock, LogEntry, Memory, SyncStatus, MAX_DEVICE};
use proptest::prelude::*;
use rusqlite::types::Value as Sql;
use serde_json::{json, Value};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A memory that does not sync (wasm32 has no system clock: every memory here has a fixed one).
fn plain() -> Memory {
    Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000))).unwrap()
}

fn device(n: u32) -> Memory {
    let mut m = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(1_767_225_600_000 + i64::from(n)))).unwrap();
    m.sync_start(n).unwrap();
    m
}

/// The memory's base tables, every row in key order, and sync's own state.
fn dump(m: &mut Memory) -> Vec<(String, Vec<Vec<String>>)> {
    let conn = open(m);
    ["memories", "episodes", "entities", "entity_aliases", "entity_mentions", "relations", "predicates"]
        .into_iter()
        .map(|table| {
            let mut all = rows(&conn, &format!("SELECT * FROM {table}"));
            all.sort();
            (table.to_owned(), all)
        })
        .collect()
}

/// The database's bytes, opened.
fn open(m: &mut Memory) -> rusqlite::Connection {
    let bytes = m.export_decrypted().unwrap();
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    conn.deserialize_read_exact(rusqlite::MAIN_DB, &bytes[..], bytes.len(), false).unwrap();
    conn
}

fn rows(conn: &rusqlite::Connection, sql: &str) -> Vec<Vec<String>> {
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| (0..n).map(|i| r.get::<_, Sql>(i).map(|v| format!("{v:?}"))).collect()).unwrap().map(Result::unwrap).collect()
}

/// The derived tables equal what the rows give, and no declaration outlives its endpoints.
fn derived_and_invariants_hold(m: &mut Memory, who: &str) {
    let conn = open(m);
    for fts in ["memories_fts", "episodes_fts"] {
        conn.execute(&format!("INSERT INTO {fts} ({fts}, rank) VALUES ('integrity-check', 1)"), [])
            .unwrap_or_else(|e| panic!("{who}: {fts} differs from its rows: {e}"));
    }
    let kept = rows(&conn, "SELECT agent_id, kind, records, tokens FROM text_stats WHERE records > 0 ORDER BY 1, 2");
    let recount = rows(
        &conn,
        "SELECT agent_id, 'mem', count(*), sum(max(length(content) - 2, 0)) FROM memories GROUP BY agent_id
         UNION ALL SELECT agent_id, 'ep', count(*), sum(max(length(summary) - 2, 0) + max(length(keywords) - 2, 0)) FROM episodes GROUP BY agent_id
         ORDER BY 1, 2",
    );
    assert_eq!(kept, recount, "{who}: text_stats differs from a recount");
    let orphans = rows(
        &conn,
        "SELECT 'alias', entity_id FROM entity_aliases WHERE entity_id NOT IN (SELECT id FROM entities)
         UNION ALL SELECT 'mention', entity_id FROM entity_mentions WHERE entity_id NOT IN (SELECT id FROM entities)
             OR (ref_kind = 'mem' AND ref_id NOT IN (SELECT id FROM memories)) OR (ref_kind = 'ep' AND ref_id NOT IN (SELECT id FROM episodes))
         UNION ALL SELECT 'relation', id FROM relations WHERE
             (subject_kind = 'entity' AND subject_id NOT IN (SELECT id FROM entities)) OR (object_kind = 'entity' AND object_id NOT IN (SELECT id FROM entities))
             OR (subject_kind = 'mem' AND subject_id NOT IN (SELECT id FROM memories)) OR (object_kind = 'mem' AND object_id NOT IN (SELECT id FROM memories))
             OR (subject_kind = 'ep' AND subject_id NOT IN (SELECT id FROM episodes)) OR (object_kind = 'ep' AND object_id NOT IN (SELECT id FROM episodes))
             OR (anchor_kind = 'mem' AND anchor_id NOT IN (SELECT id FROM memories)) OR (anchor_kind = 'ep' AND anchor_id NOT IN (SELECT id FROM episodes))",
    );
    assert!(orphans.is_empty(), "{who}: declarations outlive their endpoints: {orphans:?}");
    let twice = rows(
        &conn,
        "SELECT a.normalized FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
         JOIN entities o ON o.agent_id = e.agent_id AND o.project_id = e.project_id AND o.channel = e.channel AND o.id <> e.id
         WHERE o.normalized = a.normalized OR EXISTS (SELECT 1 FROM entity_aliases b WHERE b.entity_id = o.id AND b.normalized = a.normalized)",
    );
    assert!(twice.is_empty(), "{who}: an alias names two entities of a bucket: {twice:?}");
}

/// The simulated relay: one ordered log.
#[derive(Default)]
struct Relay {
    log: Vec<LogEntry>,
}

impl Relay {
    /// Takes `m`'s pending changes in order, each once; `keep(i)` false loses push `i`
    /// (and, since a device pushes in order, every later one of this round).
    fn push(&mut self, m: &Memory, mut keep: impl FnMut(usize) -> bool) {
        let device = m.sync_status().unwrap().unwrap().device;
        for (i, p) in m.sync_pending(0).unwrap().into_iter().enumerate() {
            if !keep(i) {
                return;
            }
            let last = self.log.iter().filter(|e| e.device == device).map(|e| e.seq).max().unwrap_or(0);
            if p.seq <= last {
                continue;
            }
            assert_eq!(p.seq, last + 1, "a device pushes its changes in order");
            self.log.push(LogEntry { position: self.log.len() as u64 + 1, device, seq: p.seq, change: p.change });
        }
    }

    /// Everything past what `m` applied, in order.
    fn pull(&self, m: &mut Memory) -> u64 {
        let applied = m.sync_status().unwrap().unwrap().applied as usize;
        m.sync_apply(&self.log[applied..]).unwrap()
    }
}

fn store(m: &mut Memory, agent: &str, content: &str) -> i64 {
    m.call("store", &json!({"agent_id": agent, "content": content})).unwrap()["id"].as_i64().unwrap()
}

fn contents(m: &mut Memory, agent: &str) -> Vec<String> {
    let listed = m.call("list_memories", &json!({"agent_id": agent, "limit": 100})).unwrap();
    let mut out: Vec<String> = listed["memories"].as_array().unwrap().iter().map(|r| r["content"].as_str().unwrap().to_owned()).collect();
    out.sort();
    out
}

#[test]
fn a_write_is_kept_as_a_pending_change_and_reaches_another_device() {
    let (mut a, mut b) = (device(1), device(2));
    assert_eq!(a.sync_status().unwrap(), Some(SyncStatus { device: 1, applied: 0, pending: 0 }));
    let id = store(&mut a, "u", "the ledger service moved to Rust");
    // device 1's first record: 1 × 2^32 + 1
    assert_eq!(id, (1 << 32) + 1);
    assert_eq!(a.sync_pending(0).unwrap().len(), 1);
    // a read keeps nothing
    a.call("recall", &json!({"agent_id": "u", "query": "ledger"})).unwrap();
    assert_eq!(a.sync_pending(0).unwrap().len(), 1);
    let mut relay = Relay::default();
    relay.push(&a, |_| true);
    assert_eq!(relay.pull(&mut b), 1);
    assert_eq!(contents(&mut b, "u"), ["the ledger service moved to Rust"]);
    // and b finds it by its words (the lexical index followed the apply)
    let found = b.call("recall", &json!({"agent_id": "u", "query": "ledger service"})).unwrap();
    assert_eq!(found["messages"][0]["ref"], json!(format!("mem:{id}")), "{found}");
    // a takes its own change back from the log: no longer pending
    assert_eq!(relay.pull(&mut a), 1);
    assert_eq!(a.sync_status().unwrap(), Some(SyncStatus { device: 1, applied: 1, pending: 0 }));
    assert_eq!(dump(&mut a), dump(&mut b));
}

#[test]
fn two_devices_declaring_the_same_entity_offline_make_one_entity_with_both_mentions() {
    let (mut a, mut b) = (device(1), device(2));
    let decl = |content: &str| json!({"agent_id": "u", "content": content, "associations": {"entities": [{"name": "Kaito Mori"}]}});
    a.call("store", &decl("Kaito Mori joined the ledger team")).unwrap();
    // b registers another entity first: an id from a counter would be another on each device
    b.call("store", &json!({"agent_id": "u", "content": "the night shift", "associations": {"entities": [{"name": "Night Shift"}]}}))
        .unwrap();
    b.call("store", &decl("Kaito Mori reviews on Fridays")).unwrap();
    let mut relay = Relay::default();
    relay.push(&a, |_| true);
    relay.push(&b, |_| true);
    relay.pull(&mut a);
    relay.pull(&mut b);
    assert_eq!(dump(&mut a), dump(&mut b));
    let graph = a.call("traverse", &json!({"agent_id": "u", "entity": "kaito mori"})).unwrap();
    let listed = a.call("list_entities", &json!({"agent_id": "u"})).unwrap();
    let names: Vec<&str> = listed["entities"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names.iter().filter(|n| **n == "Kaito Mori").count(), 1, "one Kaito Mori: {listed}");
    assert_eq!(names.len(), 2, "{listed}");
    assert_eq!(contents(&mut a, "u").len(), 3);
    let kaito = listed["entities"].as_array().unwrap().iter().find(|e| e["name"] == "Kaito Mori").unwrap();
    assert_eq!(kaito["mentions"], json!(2), "both mentions kept: {graph}");
}

#[test]
fn an_alias_two_devices_gave_two_entities_offline_stays_with_the_first_in_the_log() {
    let (mut a, mut b) = (device(1), device(2));
    let aliased = |name: &str| json!({"agent_id": "u", "content": format!("about {name}"), "associations": {"entities": [{"name": name, "aliases": ["KM"]}]}});
    a.call("store", &aliased("Kaito Mori")).unwrap();
    b.call("store", &aliased("Kenji Maeda")).unwrap();
    let mut relay = Relay::default();
    relay.push(&a, |_| true);
    relay.push(&b, |_| true);
    relay.pull(&mut a);
    relay.pull(&mut b);
    assert_eq!(dump(&mut a), dump(&mut b));
    let listed = b.call("list_entities", &json!({"agent_id": "u"})).unwrap();
    let aliases: Vec<(String, Value)> =
        listed["entities"].as_array().unwrap().iter().map(|e| (e["name"].as_str().unwrap().to_owned(), e["aliases"].clone())).collect();
    assert!(aliases.contains(&("Kaito Mori".into(), json!(["KM"]))), "{listed}");
    assert!(aliases.contains(&("Kenji Maeda".into(), json!([]))), "{listed}");
    let graph = b.call("traverse", &json!({"agent_id": "u", "entity": "KM"})).unwrap();
    assert_eq!(graph["entities"][0]["name"], "Kaito Mori", "{graph}");
}

#[test]
fn a_declaration_on_a_record_deleted_elsewhere_goes_on_every_device() {
    let (mut a, mut b) = (device(1), device(2));
    let mut relay = Relay::default();
    let id = store(&mut a, "u", "the queue drains at night");
    let ledger =
        a.call("store", &json!({"agent_id": "u", "content": "the ledger", "associations": {"entities": [{"name": "Ledger"}]}})).unwrap();
    let ledger = ledger["associations"]["entities"][0]["id"].as_i64().unwrap();
    relay.push(&a, |_| true);
    relay.pull(&mut a);
    relay.pull(&mut b);
    // offline: a deletes the memory and an entity; b declares an entity mentioned by the
    // memory, a relation anchored on it, and an alias of the entity
    a.call("delete_memory", &json!({"agent_id": "u", "memory_id": id})).unwrap();
    a.call("delete_entity", &json!({"agent_id": "u", "entity_id": ledger})).unwrap();
    b.call("declare_associations", &json!({"agent_id": "u", "associations": {"entities": [{"name": "Ledger", "aliases": ["the books"]}]}}))
        .unwrap();
    assert_eq!(rows(&open(&mut b), "SELECT count(*) FROM entity_aliases"), [["Integer(1)"]], "b aliased a's entity");
    b.call(
        "declare_associations",
        &json!({"agent_id": "u", "anchor_ref": format!("mem:{id}"), "associations": {
            "entities": [{"name": "Queue"}, {"name": "Night"}],
            "relations": [{"subject": "Queue", "predicate": "drains_at", "object": "Night"}]}}),
    )
    .unwrap();
    relay.push(&a, |_| true);
    relay.push(&b, |_| true);
    relay.pull(&mut a);
    relay.pull(&mut b);
    assert_eq!(dump(&mut a), dump(&mut b));
    for (m, who) in [(&mut a, "a"), (&mut b, "b")] {
        derived_and_invariants_hold(m, who);
        assert_eq!(contents(m, "u"), ["the ledger"], "{who}");
        let conn = open(m);
        assert_eq!(rows(&conn, "SELECT count(*) FROM entity_mentions"), [["Integer(0)"]], "{who}");
        assert_eq!(rows(&conn, "SELECT count(*) FROM entity_aliases"), [["Integer(0)"]], "{who}: the alias went with its entity");
        // the relation's anchor is gone: it went with it
        assert_eq!(rows(&conn, "SELECT count(*) FROM relations"), [["Integer(0)"]], "{who}");
    }
}

#[test]
fn the_later_update_in_the_log_wins_and_a_delete_wins_over_an_update() {
    let (mut a, mut b) = (device(1), device(2));
    let mut relay = Relay::default();
    let x = store(&mut a, "u", "draft one");
    let y = store(&mut a, "u", "to be deleted");
    relay.push(&a, |_| true);
    relay.pull(&mut a);
    relay.pull(&mut b);
    a.call("update_memory", &json!({"agent_id": "u", "memory_id": x, "content": "a's edit"})).unwrap();
    b.call("update_memory", &json!({"agent_id": "u", "memory_id": x, "content": "b's edit"})).unwrap();
    a.call("update_memory", &json!({"agent_id": "u", "memory_id": y, "content": "a's edit of y"})).unwrap();
    b.call("delete_memory", &json!({"agent_id": "u", "memory_id": y})).unwrap();
    // b pushes first: a's changes come later in the log and win the update; b's delete stands
    relay.push(&b, |_| true);
    relay.push(&a, |_| true);
    relay.pull(&mut a);
    relay.pull(&mut b);
    assert_eq!(dump(&mut a), dump(&mut b));
    assert_eq!(contents(&mut a, "u"), ["a's edit"]);
    derived_and_invariants_hold(&mut b, "b");
}

#[test]
fn pending_changes_are_applied_again_on_top_of_the_log_and_stay_pending() {
    let (mut a, mut b) = (device(1), device(2));
    let mut relay = Relay::default();
    store(&mut a, "u", "from a");
    store(&mut b, "u", "from b, not yet pushed");
    relay.push(&a, |_| true);
    relay.pull(&mut b);
    // b sees a's memory and still its own, which is still pending
    assert_eq!(contents(&mut b, "u"), ["from a", "from b, not yet pushed"]);
    assert_eq!(b.sync_status().unwrap().unwrap().pending, 1);
    derived_and_invariants_hold(&mut b, "b");
    let found = b.call("recall", &json!({"agent_id": "u", "query": "pushed"})).unwrap();
    assert_eq!(found["messages"].as_array().unwrap().len(), 1, "{found}");
    relay.push(&b, |_| true);
    relay.pull(&mut a);
    relay.pull(&mut b);
    assert_eq!(b.sync_status().unwrap().unwrap().pending, 0);
    assert_eq!(dump(&mut a), dump(&mut b));
}

#[test]
fn a_gap_in_the_log_or_a_memory_that_does_not_sync_applies_nothing() {
    let (mut a, mut b) = (device(1), device(2));
    let mut relay = Relay::default();
    store(&mut a, "u", "one");
    store(&mut a, "u", "two");
    relay.push(&a, |_| true);
    let before = dump(&mut b);
    let err = b.sync_apply(&relay.log[1..]).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_value", Some("entries[0].position")), "{err}");
    assert_eq!(dump(&mut b), before);
    // a changeset that is not one: an error, nothing applied
    let bad = LogEntry { position: 1, device: 1, seq: 1, change: b"not a changeset at all".to_vec() };
    assert!(b.sync_apply(&[bad]).is_err());
    assert_eq!(b.sync_status().unwrap().unwrap().applied, 0);
    assert_eq!(dump(&mut b), before);
    // repeats are skipped
    assert_eq!(relay.pull(&mut b), 2);
    assert_eq!(b.sync_apply(&relay.log).unwrap(), 0);
    let mut plain = plain();
    assert_eq!(plain.sync_status().unwrap(), None);
    assert_eq!(plain.sync_apply(&relay.log).unwrap_err().field(), Some("entries"));
    assert_eq!(plain.sync_start(0).unwrap_err().field(), Some("device"));
    assert_eq!(plain.sync_start(MAX_DEVICE + 1).unwrap_err().field(), Some("device"));
    plain.sync_start(7).unwrap();
    plain.sync_start(7).unwrap();
    assert_eq!(plain.sync_start(8).unwrap_err().code(), "invalid_value");
}

#[test]
fn a_memory_that_does_not_sync_keeps_no_changes_and_its_ids_as_before() {
    let mut m = plain();
    assert_eq!(store(&mut m, "u", "one"), 1);
    let out = m.call("store", &json!({"agent_id": "u", "content": "two", "associations": {"entities": [{"name": "E"}]}})).unwrap();
    assert_eq!(out["id"], json!(2));
    assert_eq!(out["associations"]["entities"][0]["id"], json!(1));
    assert!(m.sync_pending(0).unwrap().is_empty());
    // an existing memory that starts syncing keeps its rows' ids; new ones are the device's
    m.sync_start(3).unwrap();
    assert_eq!(store(&mut m, "u", "three"), (3 << 32) + 1);
    assert_eq!(m.sync_pending(0).unwrap().len(), 1);
}

#[test]
fn an_import_never_brings_sync_in_or_replaces_a_memory_that_syncs() {
    let mut a = device(1);
    store(&mut a, "u", "one");
    let bytes = a.export().unwrap();
    // the copy holds the rows, but not device 1's sync: it would be a second device 1
    let mut copy = plain();
    copy.import(&bytes).unwrap();
    assert_eq!(contents(&mut copy, "u"), ["one"]);
    assert_eq!(copy.sync_status().unwrap(), None);
    assert!(copy.sync_pending(0).unwrap().is_empty());
    // a memory that syncs refuses to be replaced, and keeps what it had
    let err = a.import(&bytes).unwrap_err();
    assert_eq!((err.code(), err.field()), ("invalid_value", Some("bytes")), "{err}");
    assert_eq!(a.sync_status().unwrap().unwrap().pending, 1);
}

#[test]
fn a_new_device_starts_from_a_snapshot_and_one_behind_it_keeps_its_pending_changes() {
    let (mut a, mut b) = (device(1), device(2));
    let mut relay = Relay::default();
    store(&mut a, "u", "first, from a");
    let gone = store(&mut a, "u", "a secret marker-7f3a that a delete takes");
    relay.push(&a, |_| true);
    relay.pull(&mut a);
    relay.pull(&mut b);
    // b goes offline with a change of its own
    store(&mut b, "u", "from b, offline");
    a.call("delete_memory", &json!({"agent_id": "u", "memory_id": gone})).unwrap();
    store(&mut a, "u", "second, from a");
    relay.push(&a, |_| true);
    relay.pull(&mut a);
    // a change of a's still pending: not in the snapshot
    store(&mut a, "u", "pending on a");
    let (position, bytes) = a.sync_snapshot().unwrap();
    assert_eq!(position, relay.log.len() as u64);
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(!find(&bytes, b"marker-7f3a"), "a deleted memory's text is not in the snapshot");
    assert!(!find(&bytes, b"pending on a"), "a pending change is not in the snapshot");
    // the relay keeps the snapshot and drops the log before it
    // c joins from it, from nothing
    let mut c = plain();
    c.sync_join(&bytes, position, 3, 0).unwrap();
    assert_eq!(c.sync_status().unwrap(), Some(SyncStatus { device: 3, applied: position, pending: 0 }));
    assert_eq!(contents(&mut c, "u"), ["first, from a", "second, from a"]);
    // b, behind it, joins too: its own change stays pending, applied on top
    b.sync_join(&bytes, position, 2, 0).unwrap();
    assert_eq!(b.sync_status().unwrap().unwrap().pending, 1);
    assert_eq!(contents(&mut b, "u"), ["first, from a", "from b, offline", "second, from a"]);
    // another device number is refused, and bad bytes change nothing
    assert_eq!(b.sync_join(&bytes, position, 9, 0).unwrap_err().field(), Some("device"));
    assert_eq!(b.sync_join(b"not a database", position, 2, 0).unwrap_err().code(), "not_a_memory");
    assert_eq!(b.sync_status().unwrap().unwrap().pending, 1);
    // everyone pushes and pulls: one state, and c's next record is its own
    let c_id = store(&mut c, "u", "from c");
    assert_eq!(c_id, (3 << 32) + 1);
    for _ in 0..2 {
        for m in [&mut a, &mut b, &mut c] {
            relay.push(m, |_| true);
        }
        for m in [&mut a, &mut b, &mut c] {
            let applied = m.sync_status().unwrap().unwrap().applied as usize;
            m.sync_apply(&relay.log[applied..]).unwrap();
        }
    }
    assert_eq!(dump(&mut a), dump(&mut b));
    assert_eq!(dump(&mut a), dump(&mut c));
    derived_and_invariants_hold(&mut c, "c");
    assert_eq!(plain().sync_snapshot().unwrap_err().field(), Some("sync"));
}

#[test]
fn a_deleted_memory_leaves_no_text_on_any_device_once_the_log_is_in() {
    let (mut a, mut b) = (device(1), device(2));
    let mut relay = Relay::default();
    for i in 0..20 {
        store(&mut a, "u", &format!("filler memory number {i} about the ledger"));
    }
    let gone = store(&mut a, "u", "a secret marker-7f3a that a delete takes");
    relay.push(&a, |_| true);
    relay.pull(&mut b);
    a.call("delete_memory", &json!({"agent_id": "u", "memory_id": gone})).unwrap();
    relay.push(&a, |_| true);
    relay.pull(&mut b);
    relay.pull(&mut a);
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    for (m, who) in [(&mut a, "a"), (&mut b, "b")] {
        assert!(!find(&m.export().unwrap(), b"marker-7f3a"), "{who}'s database still holds the deleted text");
    }
}

#[test]
fn a_device_whose_change_a_snapshot_holds_does_not_apply_it_again() {
    let (mut a, mut b) = (device(1), device(2));
    let mut relay = Relay::default();
    let x = store(&mut a, "u", "draft");
    relay.push(&a, |_| true);
    relay.pull(&mut a);
    relay.pull(&mut b);
    // a's edit reaches the log, but a never hears so (its acknowledgement is lost)
    a.call("update_memory", &json!({"agent_id": "u", "memory_id": x, "content": "a's edit"})).unwrap();
    relay.push(&a, |_| true);
    // b applies it, edits after it, and snapshots; the relay compacts the log behind that
    relay.pull(&mut b);
    b.call("update_memory", &json!({"agent_id": "u", "memory_id": x, "content": "b's later edit"})).unwrap();
    relay.push(&b, |_| true);
    relay.pull(&mut b);
    let (position, bytes) = b.sync_snapshot().unwrap();
    // a is behind the floor: it joins, told that the relay logged its changes up to seq 2
    let logged = relay.log.iter().filter(|e| e.device == 1).map(|e| e.seq).max().unwrap();
    a.sync_join(&bytes, position, 1, logged).unwrap();
    assert_eq!(a.sync_status().unwrap().unwrap().pending, 0, "a's edit is in the snapshot, not pending");
    assert_eq!(contents(&mut a, "u"), ["b's later edit"], "a's edit is not applied again over b's later one");
    assert_eq!(dump(&mut a), dump(&mut b));
}

#[test]
fn a_device_taking_back_its_own_changes_only_stops_them_pending() {
    let (mut a, mut b) = (device(1), device(2));
    let mut relay = Relay::default();
    for i in 0..3 {
        store(&mut a, "u", &format!("note {i}"));
    }
    assert_eq!(a.sync_pending(1).unwrap().iter().map(|p| p.seq).collect::<Vec<_>>(), [2, 3], "the changes after seq 1");
    relay.push(&a, |_| true);
    let before = dump(&mut a);
    // the log's first two entries are a's first two changes: they stop being pending
    assert_eq!(a.sync_apply(&relay.log[..2]).unwrap(), 2);
    assert_eq!(a.sync_status().unwrap(), Some(SyncStatus { device: 1, applied: 2, pending: 1 }));
    assert_eq!(dump(&mut a), before);
    // then another device's change, and a's third after it
    store(&mut b, "u", "from b");
    relay.push(&b, |_| true);
    relay.log.swap(2, 3);
    for (i, e) in relay.log.iter_mut().enumerate() {
        e.position = i as u64 + 1;
    }
    relay.pull(&mut a);
    relay.pull(&mut b);
    assert_eq!(a.sync_status().unwrap().unwrap().pending, 0);
    assert_eq!(dump(&mut a), dump(&mut b));
    derived_and_invariants_hold(&mut a, "a");
}

/// One random write on a device, by what it can see.
#[derive(Debug, Clone)]
enum Op {
    Store { agent: u8, words: u8, entity: Option<u8> },
    Declare { pick: u8, entity: u8, other: u8 },
    Update { pick: u8, words: u8 },
    Delete { pick: u8 },
    DeleteEntity { pick: u8 },
    Retract { pick: u8 },
    Episode { agent: u8, words: u8 },
    DeleteAgent { agent: u8 },
}

const WORDS: [&str; 8] = ["ledger", "queue", "night", "rust", "review", "friday", "cache", "drain"];
const NAMES: [&str; 3] = ["Kaito Mori", "Ledger", "Queue"];

fn words(n: u8) -> String {
    (0..3).map(|i| WORDS[(usize::from(n) + i * 3) % WORDS.len()]).collect::<Vec<_>>().join(" ")
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..2u8, any::<u8>(), proptest::option::of(0..3u8)).prop_map(|(agent, words, entity)| Op::Store { agent, words, entity }),
        3 => (any::<u8>(), 0..3u8, 0..3u8).prop_map(|(pick, entity, other)| Op::Declare { pick, entity, other }),
        2 => (any::<u8>(), any::<u8>()).prop_map(|(pick, words)| Op::Update { pick, words }),
        1 => any::<u8>().prop_map(|pick| Op::Delete { pick }),
        1 => any::<u8>().prop_map(|pick| Op::DeleteEntity { pick }),
        1 => any::<u8>().prop_map(|pick| Op::Retract { pick }),
        1 => (0..2u8, any::<u8>()).prop_map(|(agent, words)| Op::Episode { agent, words }),
        1 => Just(Op::DeleteAgent { agent: 1 }),
    ]
}

/// The ids a device's `list` call lists under `key`, for agent "a0".
fn ids(m: &mut Memory, tool: &str, key: &str, field: &str) -> Vec<i64> {
    let out = m.call(tool, &json!({"agent_id": "a0", "limit": 100})).unwrap();
    out[key].as_array().map(|a| a.iter().map(|r| r[field].as_i64().unwrap()).collect()).unwrap_or_default()
}

fn run(m: &mut Memory, op: &Op) {
    let pick = |list: Vec<i64>, p: u8| (!list.is_empty()).then(|| list[usize::from(p) % list.len()]);
    let result = match op {
        Op::Store { agent, words: w, entity } => {
            let mut args = json!({"agent_id": format!("a{agent}"), "content": words(*w),
                "embedding": [f32::from(*w % 7), 1.0, f32::from(*w % 3), 0.5]});
            if let Some(e) = entity {
                args["associations"] =
                    json!({"entities": [{"name": NAMES[usize::from(*e)], "aliases": [format!("alias {}", (*w % 2) + *e % 2)]}]});
            }
            m.call("store", &args)
        }
        Op::Declare { pick: p, entity, other } => match pick(ids(m, "list_memories", "memories", "id"), *p) {
            None => return,
            Some(id) => m.call(
                "declare_associations",
                &json!({"agent_id": "a0", "anchor_ref": format!("mem:{id}"), "associations": {
                "entities": [{"name": NAMES[usize::from(*entity)]}],
                "relations": [
                    {"subject": NAMES[usize::from(*entity)], "predicate": "works_with", "object": NAMES[usize::from(*other)]},
                    {"subject": format!("mem:{id}"), "predicate": "about", "object": NAMES[usize::from(*other)]}
                ]}}),
            ),
        },
        Op::Update { pick: p, words: w } => match pick(ids(m, "list_memories", "memories", "id"), *p) {
            None => return,
            Some(id) => m.call("update_memory", &json!({"agent_id": "a0", "memory_id": id, "content": words(*w)})),
        },
        Op::Delete { pick: p } => match pick(ids(m, "list_memories", "memories", "id"), *p) {
            None => return,
            Some(id) => m.call("delete_memory", &json!({"agent_id": "a0", "memory_id": id})),
        },
        Op::DeleteEntity { pick: p } => match pick(ids(m, "list_entities", "entities", "id"), *p) {
            None => return,
            Some(id) => m.call("delete_entity", &json!({"agent_id": "a0", "entity_id": id})),
        },
        Op::Retract { pick: p } => {
            let conn = open(m);
            let relations: Vec<i64> = rows(&conn, "SELECT id FROM relations WHERE agent_id = 'a0' ORDER BY id")
                .into_iter()
                .map(|r| r[0].trim_start_matches("Integer(").trim_end_matches(')').parse().unwrap())
                .collect();
            match pick(relations, *p) {
                None => return,
                Some(id) => m.call("declare_associations", &json!({"agent_id": "a0", "retract": {"relations": [id]}})),
            }
        }
        Op::Episode { agent, words: w } => {
            m.call("archive_episode", &json!({"agent_id": format!("a{agent}"), "summary": words(*w), "keywords": "sync"}))
        }
        Op::DeleteAgent { agent } => m.call("delete_agent_data", &json!({"agent_id": format!("a{agent}")})),
    };
    result.unwrap_or_else(|e| panic!("{op:?}: {e}"));
}

/// What a device's reads answer, for comparing devices.
fn answers(m: &mut Memory) -> Vec<Value> {
    let mut out = Vec::new();
    for agent in ["a0", "a1"] {
        out.push(m.call("list_memories", &json!({"agent_id": agent, "limit": 100})).unwrap());
        out.push(m.call("list_entities", &json!({"agent_id": agent})).unwrap());
        out.push(m.call("recall", &json!({"agent_id": agent, "query": "ledger queue"})).unwrap());
        out.push(m.call("recall", &json!({"agent_id": agent, "query": "drain", "query_embedding": [2.0, 1.0, 1.0, 0.5]})).unwrap());
        out.push(m.call("reconstruct", &json!({"agent_id": agent, "query": "Kaito Mori ledger"})).unwrap());
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, .. ProptestConfig::default() })]

    /// Devices that write offline and receive the log late, in pieces, repeated, out of
    /// order and with pushes lost end with the same rows and the same answers.
    #[test]
    fn devices_converge_whatever_the_delivery(
        devices in 3..6u32,
        rounds in proptest::collection::vec(
            (proptest::collection::vec((0..5u32, op()), 1..10), proptest::collection::vec((0..5u32, any::<u8>(), any::<bool>()), 1..8)),
            2..8,
        ),
    ) {
        let mut ms: Vec<Memory> = (1..=devices).map(device).collect();
        let mut relay = Relay::default();
        for (writes, deliveries) in &rounds {
            for (d, op) in writes {
                run(&mut ms[(*d % devices) as usize], op);
            }
            for (d, cut, lose) in deliveries {
                let m = &mut ms[(*d % devices) as usize];
                // a push loses its tail (the relay never saw it), or arrives whole
                let keep = usize::from(*cut % 4);
                relay.push(m, |i| !*lose || i < keep);
                // the log arrives in a piece that starts anywhere at or before the device's
                // position (a repeat), and reaches some way past it
                let applied = m.sync_status().unwrap().unwrap().applied as usize;
                let start = applied.saturating_sub(usize::from(*cut % 3));
                let end = (applied + usize::from(*cut % 5) + 1).min(relay.log.len());
                if start < end {
                    m.sync_apply(&relay.log[start..end]).unwrap();
                }
                // and a piece past a gap is refused, changing nothing
                if end + 1 < relay.log.len() {
                    prop_assert!(m.sync_apply(&relay.log[end + 1..]).is_err());
                }
            }
        }
        // a device joins late, from device 1's snapshot, behind the rest
        let (position, bytes) = ms[0].sync_snapshot().unwrap();
        let mut late = plain();
        late.sync_join(&bytes, position, devices + 1, 0).unwrap();
        ms.push(late);
        // online at last: every device pushes and pulls until nothing is pending
        for _ in 0..2 {
            for m in ms.iter_mut() {
                relay.push(m, |_| true);
            }
            for m in ms.iter_mut() {
                relay.pull(m);
            }
        }
        let first = dump(&mut ms[0]);
        let first_answers = answers(&mut ms[0]);
        for (i, m) in ms.iter_mut().enumerate() {
            prop_assert_eq!(m.sync_status().unwrap().unwrap().pending, 0);
            prop_assert_eq!(&dump(m), &first, "device {} differs from device 1", i + 1);
            derived_and_invariants_hold(m, &format!("device {}", i + 1));
            prop_assert_eq!(&answers(m), &first_answers, "device {} answers otherwise", i + 1);
            // and its indexes, kept through every apply, answer as ones rebuilt from its rows
            let mut rebuilt = plain();
            rebuilt.import(&m.export().unwrap()).unwrap();
            prop_assert_eq!(&answers(&mut rebuilt), &first_answers, "device {}'s indexes differ from a rebuild", i + 1);
        }
    }
}
