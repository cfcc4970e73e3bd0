//! A memory kept in a file through the file VFS (`Memory::open_file`, storage 'file' of the
//! package), here over real files with `std::fs` (`StdFileSystem`): it reopens whole, a path
//! is held once, with a key its files hold no plaintext, a process killed at any write keeps
//! every commit and no half of one, and after a checkpoint every commit outlives a power
//! loss. Natively only: wasm32 has no file system here (the package's Node suite,
//! `www/test/package-file.test.mjs`, runs the same VFS over `node:fs`).

#[path = "common/place.rs"]
mod place;

use associative_memory::{Error, FileSystem, FixedClock, Key, Memory, StdFileSystem};
use place::Place;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

const MARKER: &str = "ZEBRA-7f3a-MARKER";

fn clock() -> Box<FixedClock> {
    Box::new(FixedClock::new(1_780_000_000_000))
}

/// The database's path in `place`, as the VFS takes it.
fn db(place: &Place) -> String {
    place.db().to_string_lossy().into_owned()
}

/// The names of the files in `place`.
fn names(place: &Place) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(&place.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn open(path: &str, files: Rc<dyn FileSystem>, key: Option<Key>) -> Result<Memory, Error> {
    Memory::open_file(path, files, key, clock())
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

fn total(memory: &mut Memory, agent: &str) -> u64 {
    memory.call("list_memories", &json!({"agent_id": agent, "limit": 1})).unwrap()["total"].as_u64().unwrap()
}

fn kaito(content: &str) -> Value {
    json!({"agent_id": "a", "content": content, "associations": {
        "entities": [{"name": "Kaito Mori", "aliases": ["森 海斗"]}, {"name": "Ledger Service"}],
        "relations": [{"subject": "Kaito Mori", "predicate": "maintains", "object": "Ledger Service"}]}})
}

/// Closed and opened again, a file memory answers as before, checks sound, and leaves no log
/// beside it; while it is open its path cannot be opened again in this program
/// (`already_open`, field `path`), and after it can. The file is an SQLite database of the
/// usual kind: SQLite's own VFS (`Memory::open`) opens it to the same answers.
#[test]
fn a_file_memory_reopens_whole_and_its_path_is_held_once() {
    let place = Place::new("file-reopen");
    let path = db(&place);
    let mut memory = open(&path, Rc::new(StdFileSystem::default()), None).unwrap();
    memory.call("store", &kaito("Kaito Mori took over the ledger service.")).unwrap();
    let items: Vec<Value> = (0..200).map(|i| json!({"content": format!("note {i} on the ledger")})).collect();
    memory.call("store_many", &json!({"agent_id": "a", "items": items})).unwrap();
    let traverse = json!({"agent_id": "a", "entity": "森 海斗", "max_hops": 2});
    let (graph, recall) =
        (memory.call("traverse", &traverse).unwrap(), memory.call("recall", &json!({"agent_id": "a", "query": "ledger"})).unwrap());
    assert_eq!(names(&place), ["memory.sqlite3", "memory.sqlite3-wal"], "WAL, and no shared-memory file");

    let err = open(&path, Rc::new(StdFileSystem::default()), None).unwrap_err();
    assert_eq!((err.code(), err.field()), ("already_open", Some("path")), "{err}");
    drop(memory);
    assert_eq!(names(&place), ["memory.sqlite3"], "closing checkpoints the log into the database");

    let mut again = open(&path, Rc::new(StdFileSystem::default()), None).unwrap();
    assert_eq!(again.integrity_check().unwrap(), Vec::<String>::new());
    assert_eq!(total(&mut again, "a"), 201);
    assert_eq!(again.call("traverse", &traverse).unwrap(), graph);
    assert_eq!(again.call("recall", &json!({"agent_id": "a", "query": "ledger"})).unwrap(), recall);
    drop(again);
    let mut native = Memory::open(&path, clock()).unwrap();
    assert_eq!(native.call("traverse", &traverse).unwrap(), graph);
}

/// With a key, no file beside the memory holds a stored text, while it is open (the text is
/// in the log then) or after; only the key opens it (here, and through SQLite's own VFS),
/// and `rekey` and `import` (which write through a rollback journal, and a backup) keep it
/// so. Without a key the same text is in the files: the check can fail.
#[test]
fn an_encrypted_file_holds_no_plaintext_and_opens_only_with_its_key() {
    let place = Place::new("file-encrypted");
    let path = db(&place);
    let files: Rc<dyn FileSystem> = Rc::new(StdFileSystem::default());
    let key = || Some(Key::passphrase("file secret").unwrap());
    let mut memory = open(&path, files.clone(), key()).unwrap();
    memory.call("store", &kaito(&format!("{MARKER} in the encrypted file"))).unwrap();
    let bytes = place.all_bytes();
    assert!(bytes.len() > 4096 && !contains(&bytes, MARKER) && !contains(&bytes, "Kaito") && !contains(&bytes, "SQLite format 3"));
    drop(memory);
    assert!(!contains(&place.all_bytes(), MARKER));
    assert_eq!(open(&path, files.clone(), None).unwrap_err().code(), "encrypted");
    assert_eq!(open(&path, files.clone(), Some(Key::Raw([7; 32]))).unwrap_err().code(), "wrong_key");

    let mut memory = open(&path, files.clone(), key()).unwrap();
    let plain = Memory::open_in_memory_with_clock(clock()).unwrap().export().unwrap();
    memory.import(&plain).unwrap();
    memory.call("store", &kaito(&format!("{MARKER} after the import"))).unwrap();
    memory.rekey(Some(Key::Raw([9; 32]))).unwrap();
    memory.call("store", &kaito(&format!("{MARKER} after the rekey"))).unwrap();
    assert!(!contains(&place.all_bytes(), MARKER));
    drop(memory);
    assert_eq!(open(&path, files.clone(), key()).unwrap_err().code(), "wrong_key");
    let mut native = Memory::open_encrypted(&path, Key::Raw([9; 32]), clock()).unwrap();
    assert_eq!(total(&mut native, "a"), 2, "SQLite's own VFS opens the encrypted file");
    drop(native);
    let mut memory = open(&path, files.clone(), Some(Key::Raw([9; 32]))).unwrap();
    assert_eq!(total(&mut memory, "a"), 2);
    assert_eq!(memory.integrity_check().unwrap(), Vec::<String>::new());
    memory.rekey(None).unwrap();
    memory.call("store", &kaito(&format!("{MARKER} in the plain file"))).unwrap();
    assert!(contains(&place.all_bytes(), MARKER), "decrypted, the file holds the text");
}

/// `StdFileSystem`, keeping what a crash would leave of its files: every write as the
/// operating system has it (what a killed process leaves), and each file as it was last
/// synced (what a power loss leaves, at worst). Every `every`-th write, an image of each.
struct Recording {
    files: StdFileSystem,
    paths: RefCell<BTreeMap<u64, String>>,
    written: RefCell<BTreeMap<String, Vec<u8>>>,
    synced: RefCell<BTreeMap<String, Vec<u8>>>,
    writes: Cell<usize>,
    every: usize,
    /// What the test had acknowledged when an image was taken; set by the test.
    acknowledged: Cell<(u64, bool)>,
    killed: RefCell<Vec<Image>>,
    powered_off: RefCell<Vec<Image>>,
}

/// The files at a moment, by name, and what had been acknowledged then.
struct Image {
    files: BTreeMap<String, Vec<u8>>,
    acknowledged: (u64, bool),
}

impl Recording {
    fn new(every: usize) -> Recording {
        Recording {
            files: StdFileSystem::default(),
            paths: RefCell::default(),
            written: RefCell::default(),
            synced: RefCell::default(),
            writes: Cell::new(0),
            every,
            acknowledged: Cell::new((0, false)),
            killed: RefCell::default(),
            powered_off: RefCell::default(),
        }
    }

    fn path(&self, file: u64) -> String {
        self.paths.borrow()[&file].clone()
    }

    fn image(&self, of: &RefCell<BTreeMap<String, Vec<u8>>>) -> Image {
        let files = of.borrow().iter().map(|(p, b)| (p.rsplit('/').next().unwrap().to_owned(), b.clone())).collect();
        Image { files, acknowledged: self.acknowledged.get() }
    }

    /// Both images now.
    fn crash_here(&self) {
        self.killed.borrow_mut().push(self.image(&self.written));
        self.powered_off.borrow_mut().push(self.image(&self.synced));
    }
}

impl FileSystem for Recording {
    fn open(&self, path: &str, create: bool) -> Result<u64, String> {
        let file = self.files.open(path, create)?;
        self.paths.borrow_mut().insert(file, path.to_owned());
        let on_disk = std::fs::read(path).unwrap();
        self.written.borrow_mut().entry(path.to_owned()).or_insert_with(|| on_disk.clone());
        self.synced.borrow_mut().entry(path.to_owned()).or_insert(on_disk);
        Ok(file)
    }
    fn read(&self, file: u64, buf: &mut [u8], offset: u64) -> Result<usize, String> {
        self.files.read(file, buf, offset)
    }
    fn write(&self, file: u64, buf: &[u8], offset: u64) -> Result<(), String> {
        self.files.write(file, buf, offset)?;
        let mut written = self.written.borrow_mut();
        let bytes = written.get_mut(&self.path(file)).unwrap();
        let end = offset as usize + buf.len();
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        bytes[offset as usize..end].copy_from_slice(buf);
        drop(written);
        self.writes.set(self.writes.get() + 1);
        if self.writes.get().is_multiple_of(self.every) {
            self.crash_here();
        }
        Ok(())
    }
    fn sync(&self, file: u64) -> Result<(), String> {
        self.files.sync(file)?;
        let path = self.path(file);
        let now = self.written.borrow()[&path].clone();
        self.synced.borrow_mut().insert(path, now);
        Ok(())
    }
    fn truncate(&self, file: u64, size: u64) -> Result<(), String> {
        self.files.truncate(file, size)?;
        self.written.borrow_mut().get_mut(&self.path(file)).unwrap().truncate(size as usize);
        Ok(())
    }
    fn size(&self, file: u64) -> Result<u64, String> {
        self.files.size(file)
    }
    fn close(&self, file: u64) -> Result<(), String> {
        self.files.close(file)
    }
    fn exists(&self, path: &str) -> Result<bool, String> {
        self.files.exists(path)
    }
    fn delete(&self, path: &str) -> Result<(), String> {
        self.files.delete(path)?;
        self.written.borrow_mut().remove(path);
        self.synced.borrow_mut().remove(path);
        Ok(())
    }
    fn sync_directory(&self, path: &str) -> Result<(), String> {
        self.files.sync_directory(path)
    }
}

/// Writes `image` into a fresh directory and opens it there: the memory after that crash.
fn reopened(image: &Image, place: &Place) -> Memory {
    for entry in std::fs::read_dir(&place.0).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    for (name, bytes) in &image.files {
        std::fs::write(place.0.join(name), bytes).unwrap();
    }
    open(&db(place), Rc::new(StdFileSystem::default()), None).unwrap()
}

const BATCH: u64 = 300;

/// Single stores, a `store_many` of [`BATCH`] and single stores again, each acknowledged
/// only once it returns, on `files`; the images its writes took are kept there.
fn stores_and_a_batch(path: &str, files: &Rc<Recording>) -> Memory {
    let mut memory = open(path, files.clone(), None).unwrap();
    let single = |memory: &mut Memory, k: u64| {
        memory.call("store", &json!({"agent_id": "one", "content": format!("single {k}")})).unwrap();
        let (acknowledged, batch) = files.acknowledged.get();
        files.acknowledged.set((acknowledged + 1, batch));
    };
    for k in 0..6 {
        single(&mut memory, k);
    }
    let items: Vec<Value> = (0..BATCH)
        .map(|i| json!({"content": format!("batched {i} of the import"), "associations": {"entities": [{"name": format!("E{i}")}]}}))
        .collect();
    memory.call("store_many", &json!({"agent_id": "many", "items": items})).unwrap();
    files.acknowledged.set((files.acknowledged.get().0, true));
    for k in 6..12 {
        single(&mut memory, k);
    }
    memory
}

/// What a crash must not do, in the memory `image` reopens to: fail its integrity check,
/// lose an acknowledged store, or keep part of the batch.
fn assert_whole(image: &Image, place: &Place, what: &str) {
    let mut memory = reopened(image, place);
    let (singles, batch_done) = image.acknowledged;
    assert_eq!(memory.integrity_check().unwrap(), Vec::<String>::new(), "{what}");
    assert!(total(&mut memory, "one") >= singles, "{what}: an acknowledged store is lost");
    let batched = total(&mut memory, "many");
    assert!(batched == 0 || batched == BATCH, "{what}: {batched} of the batch's {BATCH}");
    assert!(!batch_done || batched == BATCH, "{what}: the acknowledged batch is lost");
    let entities = memory.call("list_entities", &json!({"agent_id": "many", "limit": 1})).unwrap()["total"].as_u64().unwrap();
    assert_eq!(entities, batched, "{what}: the batch's declarations are not whole");
}

/// A process killed at any write (the images of `Recording`: what the operating system has
/// of the files) leaves a sound memory with every store acknowledged before it and the batch
/// whole or absent: each commit ends with its commit frame in the log, and a log without it
/// is read as if the transaction never began.
#[test]
fn a_crash_at_any_write_keeps_every_commit_and_no_half_batch() {
    let (place, scratch) = (Place::new("file-killed"), Place::new("file-killed-copy"));
    let files = Rc::new(Recording::new(5));
    drop(stores_and_a_batch(&db(&place), &files));
    let killed = files.killed.borrow();
    let (during, after) = (killed.iter().filter(|i| !i.acknowledged.1).count(), killed.iter().filter(|i| i.acknowledged.1).count());
    assert!(during >= 10 && after >= 2, "images while the batch ran ({during}) and after ({after})");
    for (n, image) in killed.iter().enumerate() {
        assert_whole(image, &scratch, &format!("killed at image {n}"));
    }
}

/// After a checkpoint, every commit is in what a power loss leaves (the files as last
/// synced); before, a power loss may take the last commits but leaves a sound memory, whole
/// batch or none.
#[test]
fn after_a_checkpoint_every_commit_outlives_a_power_loss() {
    let (place, scratch) = (Place::new("file-power"), Place::new("file-power-copy"));
    let files = Rc::new(Recording::new(23));
    let memory = stores_and_a_batch(&db(&place), &files);
    memory.checkpoint().unwrap();
    files.crash_here();
    let images = files.powered_off.borrow();
    let last = images.last().unwrap();
    let mut after = reopened(last, &scratch);
    assert_eq!((total(&mut after, "one"), total(&mut after, "many")), (12, BATCH), "a checkpointed commit is lost");
    drop(after);
    for (n, image) in images.iter().enumerate() {
        let mut memory = reopened(image, &scratch);
        assert_eq!(memory.integrity_check().unwrap(), Vec::<String>::new(), "power lost at image {n}");
        let batched = total(&mut memory, "many");
        assert!(batched == 0 || batched == BATCH, "power lost at image {n}: {batched} of the batch");
    }
}
