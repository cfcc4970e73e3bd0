//! What the engine's own VFSs share (`crate::storage::pages`, `crate::storage::file`): the
//! hold an open memory keeps on its name, a file that is either the VFS's own or held in
//! memory, the platform's randomness and clock, and registering a VFS once.

use rsqlite_vfs::{
    register_vfs, LockLevel, MemChunksFile, OsCallback, SQLiteIoMethods, SQLiteVfs, SyncOptions, VfsError, VfsErrorCode, VfsFile,
    VfsResult, VfsStore,
};
use std::cell::RefCell;
use std::rc::Rc;
use std::thread::LocalKey;
use std::time::Duration;

/// Values by name, in a list: the few names a program has open are found by looking at
/// each, and a `BTreeMap` of each value type would cost the wasm module its code (~8 KB).
pub(crate) struct Named<T>(Vec<(String, T)>);

impl<T: Clone> Named<T> {
    pub(crate) const fn new() -> Self {
        Named(Vec::new())
    }

    pub(crate) fn get(&self, name: &str) -> Option<T> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, value)| value.clone())
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.0.iter().any(|(n, _)| n == name)
    }

    /// Adds `value` as `name`, which is not there.
    pub(crate) fn add(&mut self, name: String, value: T) {
        self.0.push((name, value));
    }

    pub(crate) fn remove(&mut self, name: &str) {
        self.0.retain(|(n, _)| n != name);
    }
}

/// What each name held by an open memory is kept through, on this thread.
pub(crate) type Registry<T> = LocalKey<RefCell<Named<Rc<T>>>>;

/// A memory's hold on its name in a [`Registry`]: its VFS finds what keeps it there until
/// this is dropped, after the connection is closed.
pub(crate) struct Claim<T: ?Sized + 'static> {
    registry: &'static Registry<T>,
    name: String,
}

impl<T: ?Sized + 'static> Claim<T> {
    /// Registers `kept` under `name`; `None` when a memory open on this thread has it.
    pub(crate) fn take(registry: &'static Registry<T>, name: &str, kept: Rc<T>) -> Option<Claim<T>> {
        registry.with(|r| {
            let mut held = r.borrow_mut();
            if held.contains(name) {
                return None;
            }
            held.add(name.to_owned(), kept);
            Some(Claim { registry, name: name.to_owned() })
        })
    }
}

impl<T: ?Sized + 'static> Drop for Claim<T> {
    fn drop(&mut self) {
        self.registry.with(|r| r.borrow_mut().remove(&self.name));
    }
}

/// What `name` is kept through, if a memory holds it.
pub(crate) fn held<T: ?Sized + 'static>(registry: &'static Registry<T>, name: &str) -> Option<Rc<T>> {
    registry.with(|r| r.borrow().get(name))
}

/// A file a VFS keeps its own way: its bytes, without locks. One connection holds each name
/// a VFS of ours keeps ([`Claim`]), so locks have nothing to keep apart there.
pub(crate) trait Kept {
    /// As [`VfsFile::read`].
    fn read(&mut self, buf: &mut [u8], offset: u64) -> VfsResult<usize>;
    /// As [`VfsFile::write`].
    fn write(&mut self, buf: &[u8], offset: u64) -> VfsResult<()>;
    /// As [`VfsFile::truncate`].
    fn truncate(&mut self, size: u64) -> VfsResult<()>;
    /// As [`VfsFile::sync`].
    fn sync(&mut self, options: SyncOptions) -> VfsResult<()>;
    /// As [`VfsFile::size`].
    fn size(&self) -> VfsResult<u64>;
}

/// An open file: one a VFS keeps its own way, or one held in memory (a temporary file, a
/// statement journal).
pub(crate) enum Either<F> {
    Kept(F),
    Memory(Rc<RefCell<MemChunksFile>>),
}

impl<F: Kept> VfsFile for Either<F> {
    fn read(&mut self, buf: &mut [u8], offset: u64) -> VfsResult<usize> {
        match self {
            Either::Kept(f) => f.read(buf, offset),
            Either::Memory(f) => f.borrow_mut().read(buf, offset),
        }
    }

    fn write(&mut self, buf: &[u8], offset: u64) -> VfsResult<()> {
        match self {
            Either::Kept(f) => f.write(buf, offset),
            Either::Memory(f) => f.borrow_mut().write(buf, offset),
        }
    }

    fn truncate(&mut self, size: u64) -> VfsResult<()> {
        match self {
            Either::Kept(f) => f.truncate(size),
            Either::Memory(f) => f.borrow_mut().truncate(size),
        }
    }

    fn sync(&mut self, options: SyncOptions) -> VfsResult<()> {
        match self {
            Either::Kept(f) => f.sync(options),
            Either::Memory(f) => f.borrow_mut().sync(options),
        }
    }

    fn size(&self) -> VfsResult<u64> {
        match self {
            Either::Kept(f) => f.size(),
            Either::Memory(f) => f.borrow().size(),
        }
    }

    // A kept file is one connection's, a file in memory its own: no lock is ever contended.
    fn lock(&mut self, _: LockLevel) -> VfsResult<()> {
        Ok(())
    }

    fn unlock(&mut self, _: LockLevel) -> VfsResult<()> {
        Ok(())
    }

    fn check_reserved_lock(&self) -> VfsResult<bool> {
        Ok(false)
    }
}

/// Randomness, time and sleep from the program's default VFS (the platform's natively,
/// sqlite-wasm-rs's in wasm).
pub(crate) struct DefaultOs;

impl DefaultOs {
    fn vfs() -> *mut rusqlite::ffi::sqlite3_vfs {
        // SAFETY: a lookup; SQLite always has a default VFS once initialized.
        unsafe { rusqlite::ffi::sqlite3_vfs_find(std::ptr::null()) }
    }
}

impl OsCallback for DefaultOs {
    fn sleep(&self, dur: Duration) {
        let vfs = Self::vfs();
        // SAFETY: the default VFS's own method, on itself.
        if let Some(sleep) = unsafe { (*vfs).xSleep } {
            unsafe { sleep(vfs, dur.as_micros().min(i32::MAX as u128) as i32) };
        }
    }

    fn random(&self, buf: &mut [u8]) -> usize {
        let vfs = Self::vfs();
        match unsafe { (*vfs).xRandomness } {
            // SAFETY: as above, into a buffer of its length.
            Some(random) => unsafe { random(vfs, buf.len().min(i32::MAX as usize) as i32, buf.as_mut_ptr().cast()) as usize },
            None => 0,
        }
    }

    fn epoch_timestamp_in_ms(&self) -> VfsResult<i64> {
        let vfs = Self::vfs();
        let mut julian_ms: i64 = 0;
        // SAFETY: as above; version 2 VFSs (every one SQLite ships) have the method.
        match unsafe { ((*vfs).iVersion >= 2).then_some((*vfs).xCurrentTimeInt64).flatten() } {
            Some(now) if unsafe { now(vfs, &mut julian_ms) } == 0 => Ok(julian_ms - 210_866_760_000_000),
            _ => Err(VfsError::new(VfsErrorCode::Error, "the default VFS has no clock".into())),
        }
    }
}

/// The io methods of a VFS whose files are `S`'s.
pub(crate) struct Io<S>(std::marker::PhantomData<S>);

impl<S: VfsStore> SQLiteIoMethods for Io<S> {
    type Store = S;
}

/// A VFS of `S`'s files, with the default VFS's clock and randomness.
pub(crate) struct Vfs<S>(std::marker::PhantomData<S>);

impl<S: VfsStore> SQLiteVfs<Io<S>> for Vfs<S> {
    type Os = DefaultOs;

    fn os(_: &S::AppData) -> &DefaultOs {
        &DefaultOs
    }

    const MAX_PATH_SIZE: std::ffi::c_int = 4096;
}

/// Registers a VFS of `S`'s files as `name`, with its app data, unless a VFS of that name is
/// registered. The registration lives as long as the program (SQLite keeps a pointer to it).
pub(crate) fn register<S: VfsStore>(name: &str, data: S::AppData) -> Result<(), String> {
    // One registration at a time: natively, two threads opening their first memories at once
    // both found the name free, and the second failed ("VFS name is already registered").
    static REGISTERING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = REGISTERING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let c_name = std::ffi::CString::new(name).map_err(|_| format!("a VFS name holds NUL: {name:?}"))?;
    // SAFETY: a lookup by a NUL-terminated name.
    if !unsafe { rusqlite::ffi::sqlite3_vfs_find(c_name.as_ptr()) }.is_null() {
        return Ok(());
    }
    // SAFETY: the VFS's types agree (one store, its io methods, its app data); wasm is
    // single-threaded, and natively registrations are one at a time (above), before opening.
    unsafe { register_vfs::<Io<S>, Vfs<S>>(name, data, false) }
        .map(|r| {
            r.into_raw();
        })
        .map_err(|e| e.to_string())
}
