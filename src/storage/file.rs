//! A VFS whose files are a host's files, reached through the synchronous calls of
//! [`FileSystem`]: `node:fs` in the wasm binding (`src/wasm/file.rs`), `std::fs` natively
//! ([`StdFileSystem`], what the native tests run it on).
//!
//! Why a VFS of our own: wasm32-unknown-unknown has no file system, so the module has no
//! SQLite VFS for files; this one asks the host for each open, read, write, sync and
//! truncate, and for nothing else (no locks, no shared memory, no memory mapping).
//!
//! Why WAL: a file is not written atomically, so, unlike the page store's
//! (`crate::storage::pages`), this VFS's journal cannot stay in memory. In WAL mode a
//! commit appends its pages to `<path>-wal` and ends with a commit frame; the database file
//! changes only at a checkpoint, which syncs the log first. A process killed mid-commit
//! leaves frames after the last commit frame, which the next open ignores (each frame's
//! checksum chains to the one before), so a transaction is there whole or not at all, and
//! one committed is in the host's files (its page cache) before the call returns. SQLite
//! runs WAL without the shared-memory file (`-shm`, which needs `mmap` and OS locks) when
//! the connection takes its lock exclusively before its first read (`locking_mode =
//! EXCLUSIVE`): the wal-index is then kept in the heap ("Use of WAL Without Shared-Memory",
//! <https://sqlite.org/wal.html>). A rollback journal (`<path>-journal`: the first
//! migrations, and `rekey`, which leaves WAL for its rewrite) is a file of the host's too.
//!
//! Locks are no-ops: in a program one connection holds a path ([`claim`]); other programs
//! are kept out by the package's lock file (`www/src/file.ts`).

use super::vfs::{self, Claim, Either, Kept};
use rsqlite_vfs::{AccessMode, OpenOptions, OpenRequest, OpenedFile, SyncOptions, VfsError, VfsErrorCode, VfsResult, VfsStore};
use std::cell::RefCell;
use std::rc::Rc;

/// The name of the VFS, registered once per program.
pub const VFS: &str = "associative-memory-file";

/// The synchronous file calls the VFS makes: on paths as the memory was opened with (the
/// package makes them absolute) and the journal's and log's beside it, and on the handles
/// `open` returns. Errors are the host's words; they fail the SQLite call that met them.
pub trait FileSystem {
    /// Opens `path` to read and write, creating it when `create` and absent; a handle.
    fn open(&self, path: &str, create: bool) -> Result<u64, String>;
    /// Reads into `buf` from `offset`: how many bytes were read, fewer only at the file's end.
    fn read(&self, file: u64, buf: &mut [u8], offset: u64) -> Result<usize, String>;
    /// Writes all of `buf` at `offset`.
    fn write(&self, file: u64, buf: &[u8], offset: u64) -> Result<(), String>;
    /// Makes what was written to the file durable (`fsync`).
    fn sync(&self, file: u64) -> Result<(), String>;
    /// Cuts the file to `size` bytes.
    fn truncate(&self, file: u64, size: u64) -> Result<(), String>;
    /// The file's length in bytes.
    fn size(&self, file: u64) -> Result<u64, String>;
    /// Closes the handle.
    fn close(&self, file: u64) -> Result<(), String>;
    /// Whether `path` exists.
    fn exists(&self, path: &str) -> Result<bool, String>;
    /// Removes `path`; one already absent is no error.
    fn delete(&self, path: &str) -> Result<(), String>;
    /// Makes the directory holding `path` durable, so that a file created or removed there
    /// stays so after a power loss; nothing where a directory cannot be synced (Windows).
    fn sync_directory(&self, path: &str) -> Result<(), String>;
}

thread_local! {
    /// The file systems of the memories open in this program, by their database's path.
    static FILES: RefCell<vfs::Named<Rc<dyn FileSystem>>> = const { RefCell::new(vfs::Named::new()) };
}

/// Registers `files` for `path` (and its journal and log) until the claim is dropped;
/// `None` when a memory open in this program has the path.
pub(crate) fn claim(path: &str, files: Rc<dyn FileSystem>) -> Option<Claim<dyn FileSystem>> {
    Claim::take(&FILES, path, files)
}

/// The file system of the memory whose database, journal or log `name` is.
fn owner(name: &str) -> Option<Rc<dyn FileSystem>> {
    let main = ["-wal", "-journal"].iter().find_map(|suffix| name.strip_suffix(suffix));
    vfs::held(&FILES, name).or_else(|| vfs::held(&FILES, main?))
}

fn unowned(name: &str) -> VfsError {
    VfsError::new(VfsErrorCode::CantOpen, format!("no memory open in this program holds {name:?}").into())
}

/// The host's words, as SQLite's `code`.
fn failed(code: VfsErrorCode) -> impl Fn(String) -> VfsError {
    move |message| VfsError::new(code, message.into())
}

/// A file of the host's, open.
struct HostFile {
    files: Rc<dyn FileSystem>,
    handle: u64,
    path: String,
    /// Its length, read once: one connection writes it.
    size: u64,
    /// Created by this open: its first sync syncs its directory too, so that its name
    /// outlives a power loss with its bytes (as SQLite's own VFS does for a new journal).
    created: bool,
}

impl Kept for HostFile {
    fn read(&mut self, buf: &mut [u8], offset: u64) -> VfsResult<usize> {
        self.files.read(self.handle, buf, offset).map_err(failed(VfsErrorCode::IoRead))
    }

    fn write(&mut self, buf: &[u8], offset: u64) -> VfsResult<()> {
        self.files.write(self.handle, buf, offset).map_err(failed(VfsErrorCode::IoWrite))?;
        self.size = self.size.max(offset + buf.len() as u64);
        Ok(())
    }

    fn truncate(&mut self, size: u64) -> VfsResult<()> {
        self.files.truncate(self.handle, size).map_err(failed(VfsErrorCode::IoTruncate))?;
        self.size = size;
        Ok(())
    }

    fn sync(&mut self, _: SyncOptions) -> VfsResult<()> {
        self.files.sync(self.handle).map_err(failed(VfsErrorCode::IoSync))?;
        if self.created {
            self.files.sync_directory(&self.path).map_err(failed(VfsErrorCode::IoDirectorySync))?;
            self.created = false;
        }
        Ok(())
    }

    fn size(&self) -> VfsResult<u64> {
        Ok(self.size)
    }
}

struct Store;

impl VfsStore for Store {
    type File = Either<HostFile>;
    type AppData = ();

    fn open_file(_: &(), request: OpenRequest<'_>) -> VfsResult<OpenedFile<Self::File>> {
        let options = request.options;
        // temporary files and statement journals (SQLite gives them no name) stay in memory
        let Some(path) = request.filename.map(|f| f.path().to_owned()) else {
            return Ok(OpenedFile { file: Either::Memory(Rc::default()), access: options.access() });
        };
        let files = owner(&path).ok_or_else(|| unowned(&path))?;
        let created = options.create() && !files.exists(&path).map_err(failed(VfsErrorCode::CantOpen))?;
        let handle = files.open(&path, options.create()).map_err(failed(VfsErrorCode::CantOpen))?;
        let size = files.size(handle).map_err(failed(VfsErrorCode::IoStat));
        let size = size.inspect_err(|_| drop(files.close(handle)))?;
        Ok(OpenedFile { file: Either::Kept(HostFile { files, handle, path, size, created }), access: options.access() })
    }

    fn close_file(_: &(), name: Option<&str>, file: Self::File, options: OpenOptions) -> VfsResult<()> {
        let Either::Kept(file) = file else { return Ok(()) };
        file.files.close(file.handle).map_err(failed(VfsErrorCode::IoClose))?;
        match name {
            Some(name) if options.delete_on_close() => file.files.delete(name).map_err(failed(VfsErrorCode::IoDelete)),
            _ => Ok(()),
        }
    }

    fn access(_: &(), name: &str, _: AccessMode) -> VfsResult<bool> {
        owner(name).map_or(Ok(false), |files| files.exists(name).map_err(failed(VfsErrorCode::IoAccess)))
    }

    fn full_pathname(_: &(), name: &str) -> VfsResult<String> {
        Ok(name.to_owned())
    }

    fn delete_file(_: &(), name: &str, sync_dir: bool) -> VfsResult<()> {
        let files = owner(name).ok_or_else(|| unowned(name))?;
        files.delete(name).map_err(failed(VfsErrorCode::IoDelete))?;
        if sync_dir {
            files.sync_directory(name).map_err(failed(VfsErrorCode::IoDirectorySync))?;
        }
        Ok(())
    }
}

/// Registers [`VFS`] unless it is registered.
pub fn register() -> Result<(), String> {
    vfs::register::<Store>(VFS, ())
}

/// [`FileSystem`] over `std::fs`: what the native tests and benches run the VFS on. (A
/// native program opens a file with `Memory::open`, SQLite's own VFS with the platform's
/// locks.)
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
pub struct StdFileSystem {
    open: RefCell<std::collections::BTreeMap<u64, std::fs::File>>,
    next: std::cell::Cell<u64>,
}

#[cfg(not(target_arch = "wasm32"))]
impl StdFileSystem {
    fn with<T>(&self, file: u64, f: impl FnOnce(&mut std::fs::File) -> std::io::Result<T>) -> Result<T, String> {
        let mut open = self.open.borrow_mut();
        let handle = open.get_mut(&file).ok_or_else(|| format!("no open file {file}"))?;
        f(handle).map_err(|e| e.to_string())
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl FileSystem for StdFileSystem {
    fn open(&self, path: &str, create: bool) -> Result<u64, String> {
        let file = std::fs::OpenOptions::new().read(true).write(true).create(create).truncate(false).open(path);
        let handle = self.next.get() + 1;
        self.next.set(handle);
        self.open.borrow_mut().insert(handle, file.map_err(|e| format!("{path}: {e}"))?);
        Ok(handle)
    }

    fn read(&self, file: u64, buf: &mut [u8], offset: u64) -> Result<usize, String> {
        use std::io::{Read, Seek, SeekFrom};
        self.with(file, |f| {
            f.seek(SeekFrom::Start(offset))?;
            let mut read = 0;
            while read < buf.len() {
                match f.read(&mut buf[read..])? {
                    0 => break,
                    n => read += n,
                }
            }
            Ok(read)
        })
    }

    fn write(&self, file: u64, buf: &[u8], offset: u64) -> Result<(), String> {
        use std::io::{Seek, SeekFrom, Write};
        self.with(file, |f| f.seek(SeekFrom::Start(offset)).and_then(|_| f.write_all(buf)))
    }

    fn sync(&self, file: u64) -> Result<(), String> {
        self.with(file, |f| f.sync_all())
    }

    fn truncate(&self, file: u64, size: u64) -> Result<(), String> {
        self.with(file, |f| f.set_len(size))
    }

    fn size(&self, file: u64) -> Result<u64, String> {
        self.with(file, |f| Ok(f.metadata()?.len()))
    }

    fn close(&self, file: u64) -> Result<(), String> {
        self.open.borrow_mut().remove(&file).map(drop).ok_or_else(|| format!("no open file {file}"))
    }

    fn exists(&self, path: &str) -> Result<bool, String> {
        std::fs::exists(path).map_err(|e| format!("{path}: {e}"))
    }

    fn delete(&self, path: &str) -> Result<(), String> {
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("{path}: {e}")),
            _ => Ok(()),
        }
    }

    fn sync_directory(&self, path: &str) -> Result<(), String> {
        #[cfg(unix)]
        if let Some(dir) = std::path::Path::new(path).parent() {
            let dir = if dir.as_os_str().is_empty() { std::path::Path::new(".") } else { dir };
            std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        #[cfg(not(unix))]
        let _ = path;
        Ok(())
    }
}
