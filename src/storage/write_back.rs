//! A VFS layered over another that hands each transaction's write-ahead-log frames to the
//! file below in one write, and a checkpoint's pages to the database file in runs.
//!
//! Why: in a browser context off the record, OPFS keeps its files in the browser process,
//! and every `FileSystemSyncAccessHandle.write()` is an IPC to it, a round trip each.
//! SQLite writes a log frame as two writes, its 24-byte header and its page, so a store
//! that commits a dozen pages would make 27 of them. A transaction's frames are appended
//! end to end, so this layer keeps them in memory and writes them in one call when the
//! commit frame is complete. That call happens inside SQLite's commit: if it fails, the
//! commit fails. A checkpoint likewise copied the log into the database one page per
//! write; its pages mostly follow each other, and the checkpoint syncs the database before
//! the log may be reused, so they are held until that sync.
//!
//! Before anything that could observe the file below, what is held is written: a sync, a
//! read of held bytes, a size, a truncate, a file control, closing, a write elsewhere in
//! the file, or more than [`HOLD_LIMIT`] bytes held. Only the log and the main database are
//! held; every other file (a rollback journal, temporary files) passes straight through.

use rusqlite::ffi;
use std::ffi::{c_char, c_int, c_void, CString};

/// Held bytes are written once they reach this (a spilled cache in a large transaction).
const HOLD_LIMIT: usize = 1 << 20;

/// A log frame's header: page number, then the database's size in pages after the commit
/// (zero unless the frame commits), then salts and checksums.
const FRAME_HEADER: usize = 24;

/// An open file: SQLite allocates `szOsFile` bytes, this at their start and the file below
/// at [`BELOW`].
#[repr(C)]
struct File {
    base: ffi::sqlite3_file,
    /// The held writes of the log or the main database; null for every other file.
    held: *mut Held,
    /// The most the file below takes in one write.
    largest_write: usize,
}

/// Where the file below starts, aligned as SQLite aligns its allocations.
const BELOW: usize = std::mem::size_of::<File>().next_multiple_of(8);

/// Bytes written to the log or the database and not yet to the file below: one run, from
/// `at`.
#[derive(Default)]
struct Held {
    /// The log, whose commit frames are written at once; else the main database.
    log: bool,
    at: i64,
    bytes: Vec<u8>,
    /// The last write was a commit frame's header: the page that follows completes it.
    commit_next: bool,
}

/// Makes `name`, a VFS over the registered VFS `below`, unless it exists, handing held
/// bytes down in writes of at most `largest_write` bytes. SQLite itself never writes more
/// than a page and a frame header at once, and some VFSs take no more (the platform's
/// natively takes at most 128 KiB − 1 per call); OPFS takes any length. The VFS lives as
/// long as the program (SQLite keeps a pointer to it).
pub(crate) fn register(name: &str, below: &str, largest_write: usize) -> Result<(), String> {
    let name = CString::new(name).map_err(|e| e.to_string())?;
    let below_name = CString::new(below).map_err(|e| e.to_string())?;
    // SAFETY: NUL-terminated names; the VFS list is only changed on this thread.
    unsafe {
        if !ffi::sqlite3_vfs_find(name.as_ptr()).is_null() {
            return Ok(());
        }
        let below_vfs = ffi::sqlite3_vfs_find(below_name.as_ptr());
        if below_vfs.is_null() {
            return Err(format!("no VFS named {below:?}"));
        }
        let vfs = Box::new(ffi::sqlite3_vfs {
            iVersion: (*below_vfs).iVersion.min(2),
            szOsFile: BELOW as c_int + (*below_vfs).szOsFile,
            mxPathname: (*below_vfs).mxPathname,
            pNext: std::ptr::null_mut(),
            zName: name.into_raw(),
            pAppData: Box::into_raw(Box::new(Below { vfs: below_vfs, largest_write })).cast(),
            xOpen: Some(open),
            xDelete: Some(delete),
            xAccess: Some(access),
            xFullPathname: Some(full_pathname),
            // Extensions are never loaded, nor system calls replaced, through this VFS.
            xDlOpen: None,
            xDlError: None,
            xDlSym: None,
            xDlClose: None,
            xRandomness: Some(randomness),
            xSleep: Some(sleep),
            xCurrentTime: Some(current_time),
            xGetLastError: Some(last_error),
            xCurrentTimeInt64: Some(current_time_int64),
            xSetSystemCall: None,
            xGetSystemCall: None,
            xNextSystemCall: None,
        });
        match ffi::sqlite3_vfs_register(Box::into_raw(vfs), 0) {
            ffi::SQLITE_OK => Ok(()),
            code => Err(format!("sqlite3_vfs_register failed ({code})")),
        }
    }
}

/// What a VFS made by [`register`] knows of the one below it.
struct Below {
    vfs: *mut ffi::sqlite3_vfs,
    largest_write: usize,
}

unsafe fn below_vfs(vfs: *mut ffi::sqlite3_vfs) -> *mut ffi::sqlite3_vfs {
    (*(*vfs).pAppData.cast::<Below>()).vfs
}

unsafe fn below(file: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file {
    file.cast::<u8>().add(BELOW).cast()
}

unsafe fn methods<'a>(file: *mut ffi::sqlite3_file) -> &'a ffi::sqlite3_io_methods {
    &*(*below(file)).pMethods
}

unsafe extern "C" fn open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    let ours = file.cast::<File>();
    (*ours).base.pMethods = std::ptr::null();
    (*ours).held = std::ptr::null_mut();
    (*ours).largest_write = (*(*vfs).pAppData.cast::<Below>()).largest_write.max(1);
    let below_file = below(file);
    (*below_file).pMethods = std::ptr::null();
    let below_vfs = below_vfs(vfs);
    let rc = ((*below_vfs).xOpen.expect("a VFS opens files"))(below_vfs, name, below_file, flags, out_flags);
    // SQLite closes a file whose open failed if it has methods: ours then close the one below.
    if (*below_file).pMethods.is_null() {
        return rc;
    }
    if rc == ffi::SQLITE_OK && flags & (ffi::SQLITE_OPEN_WAL | ffi::SQLITE_OPEN_MAIN_DB) != 0 {
        let log = flags & ffi::SQLITE_OPEN_WAL != 0;
        (*ours).held = Box::into_raw(Box::new(Held { log, ..Held::default() }));
    }
    (*ours).base.pMethods = &METHODS[((*(*below_file).pMethods).iVersion.clamp(1, 3) - 1) as usize];
    rc
}

/// The held writes, if `file` is the log or the main database.
unsafe fn held<'a>(file: *mut ffi::sqlite3_file) -> Option<&'a mut Held> {
    (*file.cast::<File>()).held.as_mut()
}

/// Writes what is held to the file below. The held bytes are dropped either way: a
/// failed write fails the call that needed it, and SQLite then treats the transaction as
/// not written.
unsafe fn write_out(held: &mut Held, file: *mut ffi::sqlite3_file) -> c_int {
    if held.bytes.is_empty() {
        return ffi::SQLITE_OK;
    }
    #[cfg(all(test, not(target_arch = "wasm32")))]
    tests::WRITES.with(|w| w.borrow_mut().push((held.log, held.at)));
    let write = methods(file).xWrite.expect("files are written");
    let mut rc = ffi::SQLITE_OK;
    let mut at = held.at;
    for chunk in held.bytes.chunks((*file.cast::<File>()).largest_write) {
        rc = write(below(file), chunk.as_ptr().cast(), chunk.len() as c_int, at);
        if rc != ffi::SQLITE_OK {
            break;
        }
        at += chunk.len() as i64;
    }
    held.bytes.clear();
    held.commit_next = false;
    rc
}

/// [`write_out`] for any file: only the log and the main database hold anything.
unsafe fn write_held(file: *mut ffi::sqlite3_file) -> c_int {
    held(file).map_or(ffi::SQLITE_OK, |held| write_out(held, file))
}

/// Whether a write to the log commits, read from its length and frame header: a header
/// alone (its page comes next), a whole frame, or neither (the log's header, a page).
enum Commit {
    No,
    WithNextWrite,
    Now,
}

fn commit_in(bytes: &[u8]) -> Commit {
    let page = bytes.len().saturating_sub(FRAME_HEADER);
    let whole_frame = page >= 512 && page.is_power_of_two();
    if !(bytes.len() == FRAME_HEADER || whole_frame) || bytes[4..8] == [0; 4] {
        Commit::No
    } else if whole_frame {
        Commit::Now
    } else {
        Commit::WithNextWrite
    }
}

unsafe extern "C" fn write(file: *mut ffi::sqlite3_file, data: *const c_void, amount: c_int, offset: i64) -> c_int {
    let held = match held(file) {
        Some(held) if amount > 0 => held,
        _ => return (methods(file).xWrite.expect("files are written"))(below(file), data, amount, offset),
    };
    if !held.bytes.is_empty() && offset != held.at + held.bytes.len() as i64 {
        let rc = write_out(held, file);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
    }
    let bytes = std::slice::from_raw_parts(data.cast::<u8>(), amount as usize);
    if held.bytes.is_empty() {
        held.at = offset;
    }
    held.bytes.extend_from_slice(bytes);
    let completes_commit = std::mem::take(&mut held.commit_next);
    match if held.log { commit_in(bytes) } else { Commit::No } {
        Commit::Now => return write_out(held, file),
        Commit::WithNextWrite => held.commit_next = true,
        Commit::No => {}
    }
    if completes_commit || held.bytes.len() >= HOLD_LIMIT {
        return write_out(held, file);
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn read(file: *mut ffi::sqlite3_file, data: *mut c_void, amount: c_int, offset: i64) -> c_int {
    if let Some(held) = held(file) {
        let end = held.at + held.bytes.len() as i64;
        if !held.bytes.is_empty() && offset < end && offset + amount as i64 > held.at {
            let rc = write_out(held, file);
            if rc != ffi::SQLITE_OK {
                return rc;
            }
        }
    }
    (methods(file).xRead.expect("files are read"))(below(file), data, amount, offset)
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    let written = write_held(file);
    let ours = file.cast::<File>();
    if !(*ours).held.is_null() {
        drop(Box::from_raw((*ours).held));
        (*ours).held = std::ptr::null_mut();
    }
    let closed = (methods(file).xClose.expect("files are closed"))(below(file));
    if written != ffi::SQLITE_OK {
        written
    } else {
        closed
    }
}

unsafe extern "C" fn truncate(file: *mut ffi::sqlite3_file, size: i64) -> c_int {
    match write_held(file) {
        ffi::SQLITE_OK => (methods(file).xTruncate.expect("files are truncated"))(below(file), size),
        rc => rc,
    }
}

unsafe extern "C" fn sync(file: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    match write_held(file) {
        ffi::SQLITE_OK => (methods(file).xSync.expect("files are synced"))(below(file), flags),
        rc => rc,
    }
}

unsafe extern "C" fn file_size(file: *mut ffi::sqlite3_file, size: *mut i64) -> c_int {
    match write_held(file) {
        ffi::SQLITE_OK => (methods(file).xFileSize.expect("files have sizes"))(below(file), size),
        rc => rc,
    }
}

unsafe extern "C" fn file_control(file: *mut ffi::sqlite3_file, op: c_int, arg: *mut c_void) -> c_int {
    match write_held(file) {
        ffi::SQLITE_OK => (methods(file).xFileControl.expect("files take controls"))(below(file), op, arg),
        rc => rc,
    }
}

unsafe extern "C" fn lock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    (methods(file).xLock.expect("files lock"))(below(file), level)
}

unsafe extern "C" fn unlock(file: *mut ffi::sqlite3_file, level: c_int) -> c_int {
    (methods(file).xUnlock.expect("files unlock"))(below(file), level)
}

unsafe extern "C" fn check_reserved_lock(file: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    (methods(file).xCheckReservedLock.expect("files report locks"))(below(file), out)
}

unsafe extern "C" fn sector_size(file: *mut ffi::sqlite3_file) -> c_int {
    methods(file).xSectorSize.map_or(4096, |f| f(below(file)))
}

unsafe extern "C" fn device_characteristics(file: *mut ffi::sqlite3_file) -> c_int {
    methods(file).xDeviceCharacteristics.map_or(0, |f| f(below(file)))
}

unsafe extern "C" fn shm_map(file: *mut ffi::sqlite3_file, region: c_int, size: c_int, extend: c_int, out: *mut *mut c_void) -> c_int {
    methods(file).xShmMap.map_or(ffi::SQLITE_IOERR_SHMMAP, |f| f(below(file), region, size, extend, out))
}

unsafe extern "C" fn shm_lock(file: *mut ffi::sqlite3_file, offset: c_int, n: c_int, flags: c_int) -> c_int {
    methods(file).xShmLock.map_or(ffi::SQLITE_IOERR_SHMLOCK, |f| f(below(file), offset, n, flags))
}

unsafe extern "C" fn shm_barrier(file: *mut ffi::sqlite3_file) {
    if let Some(f) = methods(file).xShmBarrier {
        f(below(file))
    }
}

unsafe extern "C" fn shm_unmap(file: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    methods(file).xShmUnmap.map_or(ffi::SQLITE_OK, |f| f(below(file), delete))
}

unsafe extern "C" fn fetch(file: *mut ffi::sqlite3_file, offset: i64, amount: c_int, out: *mut *mut c_void) -> c_int {
    match methods(file).xFetch {
        Some(f) => f(below(file), offset, amount, out),
        None => {
            *out = std::ptr::null_mut();
            ffi::SQLITE_OK
        }
    }
}

unsafe extern "C" fn unfetch(file: *mut ffi::sqlite3_file, offset: i64, page: *mut c_void) -> c_int {
    methods(file).xUnfetch.map_or(ffi::SQLITE_OK, |f| f(below(file), offset, page))
}

/// One table per `iVersion`, so SQLite sees the shared-memory and mapping methods only
/// where the file below has them.
static METHODS: [ffi::sqlite3_io_methods; 3] =
    [ffi::sqlite3_io_methods { iVersion: 1, ..METHODS_3 }, ffi::sqlite3_io_methods { iVersion: 2, ..METHODS_3 }, METHODS_3];

const METHODS_3: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 3,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock),
    xUnlock: Some(unlock),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
    xFetch: Some(fetch),
    xUnfetch: Some(unfetch),
};

unsafe extern "C" fn delete(vfs: *mut ffi::sqlite3_vfs, name: *const c_char, sync_dir: c_int) -> c_int {
    let below = below_vfs(vfs);
    ((*below).xDelete.expect("a VFS deletes files"))(below, name, sync_dir)
}

unsafe extern "C" fn access(vfs: *mut ffi::sqlite3_vfs, name: *const c_char, flags: c_int, out: *mut c_int) -> c_int {
    let below = below_vfs(vfs);
    ((*below).xAccess.expect("a VFS answers access"))(below, name, flags, out)
}

unsafe extern "C" fn full_pathname(vfs: *mut ffi::sqlite3_vfs, name: *const c_char, n: c_int, out: *mut c_char) -> c_int {
    let below = below_vfs(vfs);
    ((*below).xFullPathname.expect("a VFS names paths"))(below, name, n, out)
}

unsafe extern "C" fn randomness(vfs: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    let below = below_vfs(vfs);
    ((*below).xRandomness.expect("a VFS gives randomness"))(below, n, out)
}

unsafe extern "C" fn sleep(vfs: *mut ffi::sqlite3_vfs, microseconds: c_int) -> c_int {
    let below = below_vfs(vfs);
    ((*below).xSleep.expect("a VFS sleeps"))(below, microseconds)
}

unsafe extern "C" fn current_time(vfs: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    let below = below_vfs(vfs);
    ((*below).xCurrentTime.expect("a VFS tells the time"))(below, out)
}

unsafe extern "C" fn last_error(vfs: *mut ffi::sqlite3_vfs, n: c_int, out: *mut c_char) -> c_int {
    let below = below_vfs(vfs);
    (*below).xGetLastError.map_or(0, |f| f(below, n, out))
}

unsafe extern "C" fn current_time_int64(vfs: *mut ffi::sqlite3_vfs, out: *mut ffi::sqlite3_int64) -> c_int {
    // Called only at `iVersion` 2, which this VFS has only over a VFS that has it.
    let below = below_vfs(vfs);
    ((*below).xCurrentTimeInt64.expect("a version 2 VFS tells the time in ms"))(below, out)
}

/// Natively, over files: the test reads the files as a crash would leave them.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::{FixedClock, Key, Memory};
    use serde_json::json;
    use std::cell::RefCell;
    use std::path::Path;

    thread_local! {
        /// Each write this layer made from what it held, on this thread: whether to the log,
        /// and where it started.
        pub(super) static WRITES: RefCell<Vec<(bool, i64)>> = const { RefCell::new(Vec::new()) };
    }

    fn take_writes() -> Vec<(bool, i64)> {
        WRITES.with(|w| std::mem::take(&mut *w.borrow_mut()))
    }

    /// The files a process leaves if it dies now: whatever this layer holds is lost.
    fn crash_copy(db: &Path, to: &Path) {
        for suffix in ["", "-wal"] {
            let from = format!("{}{suffix}", db.display());
            let copy = format!("{}{suffix}", to.display());
            let _ = std::fs::remove_file(&copy);
            if Path::new(&from).exists() {
                std::fs::copy(&from, &copy).unwrap();
            }
        }
    }

    /// The OPFS worker's stack natively: the cipher's VFS over this one over the platform's,
    /// a file in WAL under an exclusive lock, checkpointed every ten stores. Every
    /// acknowledged store is in the files at once (a copy taken then opens with it), each
    /// commit reached the log in one write (two when it began the log: SQLite syncs a new
    /// log's header before its frames), and a checkpoint wrote the database in runs.
    #[test]
    fn each_commit_reaches_the_log_in_one_write() {
        // SAFETY: the default VFS outlives the program; its name is NUL-terminated.
        let platform = unsafe { std::ffi::CStr::from_ptr((*ffi::sqlite3_vfs_find(std::ptr::null())).zName) };
        register("write-back-test", platform.to_str().unwrap(), 1 << 16).unwrap();
        let cipher = crate::storage::cipher::over("write-back-test").unwrap();
        for key in [None, Some(Key::passphrase("held frames").unwrap())] {
            let dir = std::env::temp_dir().join(format!("am-write-back-{}-{}", std::process::id(), key.is_some()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let db = dir.join("memory.sqlite3");
            let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_CREATE;
            let conn = rusqlite::Connection::open_with_flags_and_vfs(&db, flags, cipher.as_str()).unwrap();
            conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE").unwrap();
            let mut memory = Memory::from_keyed_connection(conn, key.clone(), Box::new(FixedClock::new(0))).unwrap();
            memory.use_wal().unwrap();
            let copy = dir.join("crashed.sqlite3");
            let survives = |stored: i64| {
                crash_copy(&db, &copy);
                let copied = rusqlite::Connection::open(&copy).unwrap();
                if let Some(key) = &key {
                    crate::storage::cipher::apply(&copied, key).unwrap();
                }
                let sql = "SELECT (SELECT count(*) FROM memories), (SELECT quick_check FROM pragma_quick_check)";
                let (n, check): (i64, String) = copied.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
                assert_eq!((n, check.as_str()), (stored, "ok"));
            };
            take_writes();
            for i in 0..40 {
                let content = format!("stored {i}: {}", "a longer text to fill pages ".repeat(i * 20));
                let entities: Vec<_> = (0..3).map(|e| json!({"name": format!("E{i}-{e}")})).collect();
                let associations = json!({"entities": entities});
                memory.call("store", &json!({"agent_id": "a", "content": content, "associations": associations})).unwrap();
                let writes = take_writes();
                let one = writes.len() == 1 || writes.len() == 2 && writes[0] == (true, 0);
                assert!(one && writes.iter().all(|w| w.0), "store {i} wrote {writes:?}");
                survives(i as i64 + 1);
                if i % 10 == 9 {
                    let frames = std::fs::metadata(format!("{}-wal", db.display())).unwrap().len() / (4096 + 24);
                    memory.checkpoint().unwrap();
                    let writes = take_writes();
                    assert!(!writes.is_empty() && writes.iter().all(|w| !w.0), "the checkpoint wrote {writes:?}");
                    assert!(writes.len() * 4 < frames as usize, "the checkpoint wrote {} runs of {frames} frames", writes.len());
                    survives(i as i64 + 1);
                }
            }
            drop(memory);
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}
