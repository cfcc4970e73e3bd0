//! A VFS whose main database lives in a store of fixed-size chunks the host provides: a
//! Durable Object's storage through the binding, a map in tests.
//!
//! Why: the edge's own SQLite (`ctx.storage.sql`) refuses what the engine runs (custom
//! functions, `SAVEPOINT`, `PRAGMA user_version`, more than 100 parameters), so the engine
//! runs unchanged over its own SQLite, whose file is kept in the host's storage chunk by
//! chunk. Only the main database is kept there. Its rollback journal stays in memory
//! (`journal_mode = MEMORY`), so no page reaches the store twice: a call's writes are made
//! atomic by the host, which commits every write of one synchronous call together (a Durable
//! Object's `transactionSync`) or none of them. Every other file (temporary tables, a
//! statement journal) lives in memory too.
//!
//! Each store is registered under the name the connection opens, so memories of one
//! program (objects of one isolate) share the VFS and never each other's chunks.

use super::vfs::{self, Claim, Either, Kept, Named};
use rsqlite_vfs::{
    AccessMode, FileKind, MemChunksFile, OpenOptions, OpenRequest, OpenedFile, SyncOptions, VfsError, VfsErrorCode, VfsResult, VfsStore,
};
use std::cell::RefCell;
use std::rc::Rc;

/// The bytes of one chunk: the engine's page size, so a page is one chunk.
pub const CHUNK: u64 = 4096;

/// The page cache of a memory kept in a store, in KiB: SQLite's own default (the wasm
/// build's is 16 MiB). The objects of an isolate share its memory, 128 MB in all, and the
/// in-memory indexes answer most reads; 16 MiB per memory was as much as a 10k-memory's
/// indexes (BENCHMARKS.md, "A memory in a page store").
pub const CACHE_KIB: i64 = 2048;

/// The name of the VFS, registered once per program.
pub const VFS: &str = "associative-memory-pages";

/// Where a database's bytes live: chunks of [`CHUNK`] bytes by index from 0, the last one
/// possibly shorter. Errors are the host's words; they fail the SQLite call that met them.
pub trait PageStore {
    /// Chunk `index`, `None` past the end.
    fn read(&self, index: u64) -> Result<Option<Vec<u8>>, String>;
    /// Sets chunk `index` to `bytes` (at most [`CHUNK`]).
    fn write(&self, index: u64, bytes: &[u8]) -> Result<(), String>;
    /// Removes every chunk from `count` on.
    fn truncate(&self, count: u64) -> Result<(), String>;
    /// How many chunks there are.
    fn count(&self) -> Result<u64, String>;
}

thread_local! {
    /// The stores of the memories open in this program, by the name their connection opens.
    static STORES: RefCell<Named<Rc<dyn PageStore>>> = const { RefCell::new(Named::new()) };
}

/// Registers `store` under `name` until the claim is dropped; `None` when a memory open in
/// this program has it.
pub(crate) fn claim(name: &str, store: Rc<dyn PageStore>) -> Option<Claim<dyn PageStore>> {
    Claim::take(&STORES, name, store)
}

fn io(message: String) -> VfsError {
    VfsError::new(VfsErrorCode::Io, message.into())
}

/// The main database of a registered store.
struct PagesFile {
    store: Rc<dyn PageStore>,
    /// The file's length, read once from the store.
    size: u64,
}

impl PagesFile {
    fn open(store: Rc<dyn PageStore>) -> VfsResult<Self> {
        let size = match store.count().map_err(io)? {
            0 => 0,
            n => (n - 1) * CHUNK + store.read(n - 1).map_err(io)?.map_or(0, |c| c.len() as u64),
        };
        Ok(PagesFile { store, size })
    }

    /// Chunk `index` as stored, zero-padded to `len` bytes when shorter.
    fn chunk(&self, index: u64, len: usize) -> VfsResult<Vec<u8>> {
        let mut bytes = self.store.read(index).map_err(io)?.unwrap_or_default();
        if bytes.len() < len {
            bytes.resize(len, 0);
        }
        Ok(bytes)
    }
}

impl Kept for PagesFile {
    fn read(&mut self, buf: &mut [u8], offset: u64) -> VfsResult<usize> {
        let end = self.size.min(offset.saturating_add(buf.len() as u64));
        let mut at = offset;
        while at < end {
            let (index, within) = (at / CHUNK, (at % CHUNK) as usize);
            let n = (CHUNK as usize - within).min((end - at) as usize);
            let chunk = self.chunk(index, within + n)?;
            let to = (at - offset) as usize;
            buf[to..to + n].copy_from_slice(&chunk[within..within + n]);
            at += n as u64;
        }
        Ok(end.saturating_sub(offset) as usize)
    }

    fn write(&mut self, buf: &[u8], offset: u64) -> VfsResult<()> {
        let mut at = offset;
        for piece in split(buf, offset) {
            let (index, within) = (at / CHUNK, (at % CHUNK) as usize);
            if within == 0 && (piece.len() as u64 == CHUNK || at + piece.len() as u64 >= self.size) {
                // the whole chunk, or all that is left of the file from its start
                self.store.write(index, piece).map_err(io)?;
            } else {
                let kept = (self.size.saturating_sub(index * CHUNK)).min(CHUNK) as usize;
                let mut chunk = self.chunk(index, kept.max(within + piece.len()))?;
                chunk[within..within + piece.len()].copy_from_slice(piece);
                self.store.write(index, &chunk).map_err(io)?;
            }
            at += piece.len() as u64;
        }
        self.size = self.size.max(at);
        Ok(())
    }

    fn truncate(&mut self, size: u64) -> VfsResult<()> {
        if size >= self.size {
            return Ok(());
        }
        self.store.truncate(size.div_ceil(CHUNK)).map_err(io)?;
        if size % CHUNK != 0 {
            let (index, len) = (size / CHUNK, (size % CHUNK) as usize);
            let mut last = self.chunk(index, len)?;
            last.truncate(len);
            self.store.write(index, &last).map_err(io)?;
        }
        self.size = size;
        Ok(())
    }

    fn sync(&mut self, _: SyncOptions) -> VfsResult<()> {
        // durability is the host's: it commits a call's writes when the call returns
        Ok(())
    }

    fn size(&self) -> VfsResult<u64> {
        Ok(self.size)
    }
}

/// `buf`, written at `offset`, cut where chunks end.
fn split(buf: &[u8], offset: u64) -> impl Iterator<Item = &[u8]> {
    let first = ((CHUNK - offset % CHUNK) as usize).min(buf.len());
    let (head, tail) = buf.split_at(first);
    std::iter::once(head).filter(|h| !h.is_empty()).chain(tail.chunks(CHUNK as usize))
}

/// An open file: a store's main database, or a file held in memory.
type File = Either<PagesFile>;

/// The files held in memory, by name (a journal SQLite opens and deletes by name).
struct Files(RefCell<Named<Rc<RefCell<MemChunksFile>>>>);

impl Default for Files {
    fn default() -> Self {
        Files(RefCell::new(Named::new()))
    }
}

struct Store;

impl VfsStore for Store {
    type File = File;
    type AppData = Files;

    fn open_file(files: &Files, request: OpenRequest<'_>) -> VfsResult<OpenedFile<File>> {
        let options = request.options;
        let opened = |file| Ok(OpenedFile { file, access: options.access() });
        let Some(name) = request.filename.map(|f| f.path().to_owned()) else {
            return opened(Either::Memory(Rc::default()));
        };
        if options.kind() == Some(FileKind::MainDb) {
            return match vfs::held(&STORES, &name) {
                Some(store) => opened(Either::Kept(PagesFile::open(store)?)),
                None => Err(VfsError::new(VfsErrorCode::CantOpen, format!("no page store is registered as {name:?}").into())),
            };
        }
        let mut files = files.0.borrow_mut();
        let file = match files.get(&name) {
            Some(file) => file,
            None if options.create() => {
                let file = Rc::<RefCell<MemChunksFile>>::default();
                files.add(name, file.clone());
                file
            }
            None => return Err(VfsError::new(VfsErrorCode::CantOpen, format!("no file {name:?}").into())),
        };
        opened(Either::Memory(file))
    }

    fn close_file(files: &Files, name: Option<&str>, _: File, options: OpenOptions) -> VfsResult<()> {
        if let (Some(name), true) = (name, options.delete_on_close()) {
            files.0.borrow_mut().remove(name);
        }
        Ok(())
    }

    fn access(files: &Files, name: &str, _: AccessMode) -> VfsResult<bool> {
        Ok(files.0.borrow().contains(name) || vfs::held(&STORES, name).is_some())
    }

    fn full_pathname(_: &Files, name: &str) -> VfsResult<String> {
        Ok(name.to_owned())
    }

    fn delete_file(files: &Files, name: &str, _: bool) -> VfsResult<()> {
        files.0.borrow_mut().remove(name);
        Ok(())
    }
}

/// Registers [`VFS`] unless it is registered.
pub fn register() -> Result<(), String> {
    vfs::register::<Store>(VFS, Files::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsqlite_vfs::VfsFile;
    use std::collections::BTreeMap;

    /// Chunks in a map, as a host keeps them.
    #[derive(Default)]
    struct Map(RefCell<BTreeMap<u64, Vec<u8>>>);

    impl PageStore for Map {
        fn read(&self, index: u64) -> Result<Option<Vec<u8>>, String> {
            Ok(self.0.borrow().get(&index).cloned())
        }
        fn write(&self, index: u64, bytes: &[u8]) -> Result<(), String> {
            assert!(bytes.len() as u64 <= CHUNK);
            self.0.borrow_mut().insert(index, bytes.to_vec());
            Ok(())
        }
        fn truncate(&self, count: u64) -> Result<(), String> {
            self.0.borrow_mut().retain(|i, _| *i < count);
            Ok(())
        }
        fn count(&self) -> Result<u64, String> {
            Ok(self.0.borrow().keys().next_back().map_or(0, |i| i + 1))
        }
    }

    /// Reads and writes at every alignment equal a file held in memory, byte for byte.
    #[test]
    fn reads_and_writes_at_any_offset_equal_a_plain_file() {
        let mut pages = PagesFile::open(Rc::new(Map::default())).unwrap();
        let mut plain = MemChunksFile::new(512);
        let mut draw = crate::base::seeded::seeded(7);
        let mut next = |n: u64| draw(n as usize) as u64;
        for step in 0..400 {
            let (offset, len) = (next(5 * CHUNK), next(2 * CHUNK + 3) as usize);
            match next(3) {
                0 => {
                    let bytes: Vec<u8> = (0..len).map(|i| (i as u64 + step) as u8).collect();
                    pages.write(&bytes, offset).unwrap();
                    plain.write(&bytes, offset).unwrap();
                }
                1 => {
                    // truncation only shrinks a file (SQLite never asks more)
                    let size = next(pages.size().unwrap() + 1);
                    pages.truncate(size).unwrap();
                    plain.truncate(size).unwrap();
                }
                _ => {
                    let (mut a, mut b) = (vec![0; len], vec![0; len]);
                    assert_eq!(pages.read(&mut a, offset).unwrap(), plain.read(&mut b, offset).unwrap(), "step {step}");
                    assert_eq!(a, b, "step {step}");
                }
            }
            assert_eq!(pages.size().unwrap(), plain.size().unwrap(), "step {step}");
        }
        // reopened, the store gives the same length
        let store = pages.store.clone();
        assert_eq!(PagesFile::open(store).unwrap().size, pages.size);
    }
}
