//! Sync's state in the database (schema version 6): this device's number, its pending
//! changes, the log position it has applied, and the one procedure that brings the log in
//! (`apply_log`).
//!
//! The model (issue 42, after LiveStore's): a relay orders every device's changes into one
//! log. Each device's database is the log applied in order, from the same start, with the
//! change policy of [`Policy::Log`], plus its own changes the log has not taken yet on top.
//! To bring newer entries in, a device undoes its pending changes (what they did here,
//! exactly), applies the entries, and applies its pending changes again on top, recording
//! what they did this time. Every step is a function of the database and the log, so two
//! devices that applied the same log hold the same rows.

use super::changes::{self, Policy, Session};
use crate::api::error::{Error, Result};
use rusqlite::{Connection, OptionalExtension};

/// The highest device number: a record's id is `device × 2^32 + n`, below 2^53.
pub const MAX_DEVICE: u32 = (1 << 21) - 1;

/// A memory's sync: who this device is, how far into the log it is, and how many of its
/// changes the log has not taken yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncStatus {
    /// This device's number (1 to [`MAX_DEVICE`]), which the relay gives it.
    pub device: u32,
    /// The last log position applied (0: none).
    pub applied: u64,
    /// This device's changes the log has not taken yet.
    pub pending: u64,
}

/// One entry of the log: a device's change at the position the relay gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    /// Its position in the log, from 1, without gaps.
    pub position: u64,
    /// The device that made it.
    pub device: u32,
    /// Its number among that device's changes, from 1.
    pub seq: u64,
    /// The changeset.
    pub change: Vec<u8>,
}

/// A change of this device's the log has not taken yet: what it pushes, in `seq` order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingChange {
    /// Its number among this device's changes, from 1.
    pub seq: u64,
    /// The changeset, as it was captured.
    pub change: Vec<u8>,
}

/// The device number and applied position of a memory that syncs; `None` when it does not.
pub(crate) fn state(conn: &Connection) -> Result<Option<(u32, u64)>> {
    let row = conn.query_row("SELECT device, applied FROM sync_state", [], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?))).optional()?;
    Ok(row.map(|(device, applied)| (device, applied as u64)))
}

/// The status of a memory that syncs.
pub(crate) fn status(conn: &Connection) -> Result<Option<SyncStatus>> {
    let Some((device, applied)) = state(conn)? else { return Ok(None) };
    let pending: i64 = conn.query_row("SELECT count(*) FROM sync_pending", [], |r| r.get(0))?;
    Ok(Some(SyncStatus { device, applied, pending: pending as u64 }))
}

/// Starts sync as device `device`. Starting it again as the same device does nothing;
/// another device number is refused: a memory's device does not change.
pub(crate) fn start(conn: &Connection, device: u32) -> Result<()> {
    if device == 0 || device > MAX_DEVICE {
        return Err(Error::OutOfRange { field: "device".into(), range: format!("1 to {MAX_DEVICE}"), got: device.to_string() });
    }
    match state(conn)? {
        Some((d, _)) if d == device => Ok(()),
        Some((d, _)) => Err(Error::Invalid { field: "device".into(), reason: format!("cannot change: this memory syncs as device {d}") }),
        None => {
            conn.execute("INSERT INTO sync_state (device, next_record, next_seq, applied) VALUES (?, 1, 1, 0)", [device])?;
            Ok(())
        }
    }
}

/// The id of a new record of a memory that syncs (`device × 2^32 + n`, `n` this device's
/// counter, never reused); `None` when it does not (SQLite's counter gives it).
pub(crate) fn new_record_id(conn: &Connection) -> Result<Option<i64>> {
    let next = conn
        .prepare_cached("UPDATE sync_state SET next_record = next_record + 1 RETURNING device, next_record - 1")?
        .query_row([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
        .optional()?;
    match next {
        None => Ok(None),
        Some((_, n)) if n >= 1 << 32 => Err(Error::Storage("this device has made 2^32 records: its ids are spent".into())),
        Some((device, n)) => Ok(Some((device << 32) + n)),
    }
}

/// Keeps `change`, captured by this device, as its next pending change.
pub(crate) fn record(conn: &Connection, change: &[u8]) -> Result<()> {
    let seq: i64 = conn.query_row("UPDATE sync_state SET next_seq = next_seq + 1 RETURNING next_seq - 1", [], |r| r.get(0))?;
    conn.execute("INSERT INTO sync_pending (seq, change) VALUES (?, ?)", rusqlite::params![seq, change])?;
    Ok(())
}

/// This device's changes the log has not taken, after seq `after`, in order.
pub(crate) fn pending(conn: &Connection, after: u64) -> Result<Vec<PendingChange>> {
    let mut stmt = conn.prepare("SELECT seq, change FROM sync_pending WHERE seq > ? ORDER BY seq")?;
    let rows = stmt.query_map([after as i64], |r| Ok(PendingChange { seq: r.get::<_, i64>(0)? as u64, change: r.get(1)? }))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Brings the log's `entries` in (those past the applied position; the rest were applied
/// before): undoes the pending changes, applies the entries in order, drops the pending
/// changes the log took, and applies the rest again. The caller holds the transaction.
/// Entries must follow the applied position without a gap; otherwise nothing is applied.
/// Returns how many entries were applied.
pub(crate) fn apply_log(conn: &Connection, entries: &[LogEntry]) -> Result<u64> {
    let Some((device, applied)) = state(conn)? else {
        return Err(Error::Invalid { field: "entries".into(), reason: "cannot be applied: this memory does not sync".into() });
    };
    let mut next = applied + 1;
    let mut new = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if entry.position < next && new.is_empty() {
            continue;
        }
        if entry.position != next {
            return Err(Error::Invalid {
                field: format!("entries[{i}].position"),
                reason: format!("must be {next}: the log is applied in order, without gaps (got {})", entry.position),
            });
        }
        new.push(entry);
        next += 1;
    }
    if new.is_empty() {
        return Ok(0);
    }
    let mut pending = pending_rows(conn)?;
    // This device's own changes, taken by the log in the order they were made and before
    // any other device's: the rows already hold them (each did here, on the same rows, what
    // it does as an entry), so they only stop being pending. Pushing n changes then costs n,
    // not n undos and n replays each.
    let own = new.iter().zip(&pending).take_while(|(e, p)| e.device == device && e.seq == p.seq as u64 && e.change == p.change).count();
    if own > 0 {
        for entry in &new[..own] {
            conn.execute("DELETE FROM sync_pending WHERE seq = ?", [entry.seq as i64])?;
        }
        pending.drain(..own);
    }
    let new = &new[own..];
    if new.is_empty() {
        conn.execute("UPDATE sync_state SET applied = ?", [(next - 1) as i64])?;
        return Ok(own as u64);
    }
    undo(conn, &pending)?;
    for entry in new {
        changes::apply(conn, &entry.change, Policy::Log)?;
        changes::drop_orphans(conn, &entry.change)?;
        if entry.device == device {
            conn.execute("DELETE FROM sync_pending WHERE seq = ?", [entry.seq as i64])?;
            pending.retain(|p| p.seq as u64 != entry.seq);
        }
    }
    conn.execute("UPDATE sync_state SET applied = ?", [(next - 1) as i64])?;
    replay(conn, &pending)?;
    Ok((own + new.len()) as u64)
}

/// A pending change as kept: its seq, as captured, and what applying it again last did.
struct Pending {
    seq: i64,
    change: Vec<u8>,
    effect: Option<Vec<u8>>,
}

fn pending_rows(conn: &Connection) -> Result<Vec<Pending>> {
    let mut stmt = conn.prepare("SELECT seq, change, effect FROM sync_pending ORDER BY seq")?;
    let rows = stmt.query_map([], |r| Ok(Pending { seq: r.get(0)?, change: r.get(1)?, effect: r.get(2)? }))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Undoes the pending changes, newest first: the rows are then the log's as applied.
fn undo(conn: &Connection, pending: &[Pending]) -> Result<()> {
    for p in pending.iter().rev() {
        changes::apply(conn, &changes::invert(conn, p.effect.as_deref().unwrap_or(&p.change))?, Policy::Undo)?;
    }
    Ok(())
}

/// Applies the pending changes again, in order, on top of the log, and records what each
/// did (what undoing it undoes next time).
fn replay(conn: &Connection, pending: &[Pending]) -> Result<()> {
    for p in pending {
        let session = Session::new(conn)?;
        changes::apply(conn, &p.change, Policy::Log)?;
        changes::drop_orphans(conn, &p.change)?;
        let effect = session.changeset(conn)?;
        let effect = (effect != p.change).then_some(effect);
        conn.execute("UPDATE sync_pending SET effect = ? WHERE seq = ?", rusqlite::params![effect, p.seq])?;
    }
    Ok(())
}

/// The memory as the log left it at the applied position, as plain database bytes: a copy
/// of `image` (this memory's plain bytes) with the pending changes undone and no device
/// state; its FTS indexes rebuilt and its free pages dropped, so no text a change deleted
/// is left in it.
pub(crate) fn snapshot(image: &[u8]) -> Result<Vec<u8>> {
    let mut copy = Connection::open_in_memory()?;
    copy.deserialize_read_exact(rusqlite::MAIN_DB, image, image.len(), false)?;
    undo(&copy, &pending_rows(&copy)?)?;
    copy.execute_batch(
        "DELETE FROM sync_state; DELETE FROM sync_pending;
         INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
         INSERT INTO episodes_fts (episodes_fts) VALUES ('rebuild');
         VACUUM;",
    )?;
    Ok(copy.serialize(rusqlite::MAIN_DB)?.to_vec())
}

/// What a device keeps of its sync across a join: its counters and pending changes.
pub(crate) struct Kept {
    next_record: i64,
    next_seq: i64,
    pending: Vec<(i64, Vec<u8>)>,
}

/// This device's counters and its pending changes after `logged` (none, and counters from 1,
/// when the memory did not sync): a change the relay logged is in the snapshot or in the log
/// after it, and applying it again on top would undo what came after it.
pub(crate) fn keep(conn: &Connection, logged: u64) -> Result<Kept> {
    let counters = conn.query_row("SELECT next_record, next_seq FROM sync_state", [], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
    let (next_record, next_seq) = counters.unwrap_or((1, 1));
    let mut stmt = conn.prepare("SELECT seq, change FROM sync_pending WHERE seq > ? ORDER BY seq")?;
    let pending = stmt.query_map([logged as i64], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
    Ok(Kept { next_record, next_seq, pending })
}

/// Makes a memory just replaced by a snapshot of `position` sync as `device`: its counters
/// past every id it made (in the snapshot or before), its pending changes kept and applied
/// again on top. The caller holds the transaction.
pub(crate) fn join(conn: &Connection, device: u32, position: u64, kept: &Kept) -> Result<()> {
    let low = i64::from(device) << 32;
    let made: i64 = conn.query_row(
        "SELECT max(coalesce((SELECT max(id) FROM memories WHERE id > ?1 AND id < ?2), 0),
                    coalesce((SELECT max(id) FROM episodes WHERE id > ?1 AND id < ?2), 0))",
        [low, low + (1 << 32)],
        |r| r.get(0),
    )?;
    let next_record = kept.next_record.max(if made > 0 { made - low + 1 } else { 1 });
    conn.execute(
        "INSERT INTO sync_state (device, next_record, next_seq, applied) VALUES (?, ?, ?, ?)",
        rusqlite::params![device, next_record, kept.next_seq, position as i64],
    )?;
    for (seq, change) in &kept.pending {
        conn.execute("INSERT INTO sync_pending (seq, change) VALUES (?, ?)", rusqlite::params![seq, change])?;
    }
    replay(conn, &pending_rows(conn)?)
}
