//! Encryption at rest (`Memory::open_encrypted`, `rekey`, encrypted exports): files and
//! exported bytes hold no plaintext, only the key opens them, and a wrong or missing key is
//! a typed error that changes nothing. Tests of files run natively (wasm32 has no file
//! system here; OPFS is tested through the package, www/test/package-encryption.test.mjs);
//! those in memory run in wasm too, where encrypted bytes pass through the in-memory VFS.

#[path = "common/place.rs"]
mod place;

use associative_memory::{Error, FixedClock, Key, Memory};
use place::Place;
use serde_json::{json, Value};
use std::path::Path;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Text that must never appear in an encrypted file or export: an ASCII marker and
/// Japanese (as UTF-8 bytes).
const MARKER: &str = "ZEBRA-7f3a-MARKER";
const JAPANESE: &str = "海斗はインジェストのキューを直した";

fn key(n: u8) -> Key {
    Key::Raw([n; 32])
}

fn clock() -> Box<FixedClock> {
    Box::new(FixedClock::new(1_780_000_000_000))
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

fn assert_no_plaintext(bytes: &[u8], what: &str) {
    assert!(!bytes.is_empty(), "{what}: no bytes");
    for needle in [MARKER, JAPANESE, "SQLite format 3", "memories"] {
        assert!(!contains(bytes, needle), "{what} holds {needle:?} in plain text");
    }
}

fn fill(memory: &mut Memory) {
    let store = |content: &str| {
        json!({"agent_id": "a", "content": content,
        "associations": {"entities": [{"name": "Kaito Mori", "aliases": ["海斗"]}]}})
    };
    memory.call("store", &store(&format!("{MARKER} the ingestion service drops events"))).unwrap();
    memory.call("store", &store(JAPANESE)).unwrap();
}

/// A new encrypted file memory at `place`, filled; with what it lists.
fn filled_file(place: &Place, key: Key) -> (Memory, Value) {
    let mut memory = Memory::open_encrypted(place.db(), key, clock()).unwrap();
    fill(&mut memory);
    let listed = contents(&mut memory);
    (memory, listed)
}

fn contents(memory: &mut Memory) -> Value {
    memory.call("list_memories", &json!({"agent_id": "a"})).unwrap()
}

fn code<T: std::fmt::Debug>(r: Result<T, Error>) -> &'static str {
    r.unwrap_err().code()
}

fn reopen(path: &Path, key: Option<Key>) -> Result<Memory, Error> {
    match key {
        Some(key) => Memory::open_encrypted(path, key, clock()),
        None => Memory::open(path, clock()),
    }
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "a file memory: wasm32-unknown-unknown has no file system (OPFS: www/test)")]
fn an_encrypted_file_holds_no_plaintext_and_opens_only_with_its_key() {
    let place = Place::new("enc-file");
    let (memory, expected) = filled_file(&place, key(1));
    assert_no_plaintext(&place.all_bytes(), "the file and its log while open");
    memory.checkpoint().unwrap();
    drop(memory);
    let at_rest = place.all_bytes();
    assert_no_plaintext(&at_rest, "the file at rest");

    assert_eq!(code(reopen(&place.db(), Some(key(2)))), "wrong_key");
    assert_eq!(code(reopen(&place.db(), None)), "encrypted");
    assert_eq!(place.all_bytes(), at_rest, "a refused open changed the file");

    let mut again = reopen(&place.db(), Some(key(1))).unwrap();
    assert!(again.is_encrypted());
    assert_eq!(contents(&mut again), expected);
    let recalled = again.call("recall", &json!({"agent_id": "a", "query": "キュー"})).unwrap();
    assert_eq!(recalled["messages"][0]["content"], JAPANESE);
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "a file memory: wasm32-unknown-unknown has no file system (OPFS: www/test)")]
fn a_passphrase_opens_what_it_encrypted_and_nothing_else() {
    let place = Place::new("enc-passphrase");
    let pass = || Key::passphrase("correct horse battery staple").unwrap();
    let mut memory = Memory::open_encrypted(place.db(), pass(), clock()).unwrap();
    fill(&mut memory);
    drop(memory);
    assert_no_plaintext(&place.all_bytes(), "a passphrase-encrypted file");
    assert_eq!(code(reopen(&place.db(), Some(Key::passphrase("correct horse battery stapler").unwrap()))), "wrong_key");
    // the same 32 bytes as a raw key are another key
    assert_eq!(code(reopen(&place.db(), Some(key(0)))), "wrong_key");
    assert_eq!(contents(&mut reopen(&place.db(), Some(pass())).unwrap())["total"], 2);
}

#[test]
fn keys_that_cannot_be_used_are_refused_by_field() {
    for bad in ["", "raw:0123", "x'00'", "X'00'"] {
        let e = Key::passphrase(bad).unwrap_err();
        assert_eq!((e.code(), e.field()), ("invalid_value", Some("key")), "{bad:?}");
    }
    let e = Key::raw(&[7; 31]).unwrap_err();
    assert_eq!((e.code(), e.field()), ("invalid_value", Some("key")));
    assert_eq!(Key::raw(&[7; 32]).unwrap(), Key::Raw([7; 32]));
}

#[test]
fn no_key_is_ever_in_a_debug_string_or_an_error() {
    let secret = "hunter2-passphrase";
    let pass = Key::passphrase(secret).unwrap();
    assert!(!format!("{pass:?}").contains(secret));
    assert!(!format!("{:?}", key(0xAB)).to_lowercase().contains("ab"));
    let mut memory = Memory::open_in_memory_with_clock(clock()).unwrap();
    fill(&mut memory);
    memory.rekey(Some(key(1))).unwrap();
    let bytes = memory.export().unwrap();
    let mut plain = Memory::open_in_memory_with_clock(clock()).unwrap();
    for e in [plain.import_decrypted(&bytes, &pass).unwrap_err(), plain.import_decrypted(&[1; 4096], &pass).unwrap_err()] {
        for text in [e.to_string(), format!("{e:?}")] {
            assert!(!text.contains(secret), "{text}");
        }
    }
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "a file memory: wasm32-unknown-unknown has no file system (OPFS: www/test)")]
fn an_encrypted_export_is_encrypted_and_imports_only_with_its_key() {
    let place = Place::new("enc-export");
    let (mut memory, expected) = filled_file(&place, key(1));
    let bytes = memory.export().unwrap();
    assert_no_plaintext(&bytes, "an encrypted export");

    let mut copy = Memory::open_in_memory_with_clock(clock()).unwrap();
    copy.call("store", &json!({"agent_id": "a", "content": "kept when an import fails"})).unwrap();
    let before = contents(&mut copy);
    assert_eq!(code(copy.import_decrypted(&bytes, &key(2))), "wrong_key");
    assert_eq!(code(copy.import(&bytes)), "not_a_memory");
    assert_eq!(contents(&mut copy), before, "a refused import changed the memory");
    copy.import_decrypted(&bytes, &key(1)).unwrap();
    assert_eq!(contents(&mut copy), expected);
    assert!(!copy.is_encrypted(), "an import does not change the memory's own key");

    // asked for, the plain bytes: an ordinary export
    let plain = memory.export_decrypted().unwrap();
    assert!(plain.starts_with(b"SQLite format 3\0") && contains(&plain, MARKER));
    let mut from_plain = Memory::open_in_memory_with_clock(clock()).unwrap();
    from_plain.import(&plain).unwrap();
    assert_eq!(contents(&mut from_plain), expected);
}

/// A memory with a key imports encrypted bytes with its own key unless given another, and
/// keeps its key; a memory without one takes encrypted bytes only when told to keep them
/// decrypted, so ciphertext never silently becomes a plain export.
#[test]
fn imports_use_the_memorys_key_and_never_make_ciphertext_plain_unasked() {
    let mut source = Memory::open_in_memory_with_clock(clock()).unwrap();
    fill(&mut source);
    let expected = contents(&mut source);
    source.rekey(Some(key(5))).unwrap();
    let bytes = source.export().unwrap();

    // the memory's own key, unless another is given
    let mut keyed = Memory::open_in_memory_with_clock(clock()).unwrap();
    keyed.rekey(Some(key(5))).unwrap();
    keyed.import(&bytes).unwrap();
    assert_eq!(contents(&mut keyed), expected, "a keyed memory imports its own export");
    let mut other = Memory::open_in_memory_with_clock(clock()).unwrap();
    other.rekey(Some(key(6))).unwrap();
    other.call("store", &json!({"agent_id": "a", "content": "kept when an import fails"})).unwrap();
    let before = contents(&mut other);
    assert_eq!(code(other.import(&bytes)), "wrong_key", "another key's bytes, imported without it");
    assert_eq!(contents(&mut other), before, "a refused import changed the memory");
    other.import_encrypted(&bytes, &key(5)).unwrap();
    assert_eq!(contents(&mut other), expected);
    let reexported = other.export().unwrap();
    assert_no_plaintext(&reexported, "a keyed memory's export after an import");
    assert_eq!(code(keyed.import_encrypted(&reexported, &key(5))), "wrong_key", "the memory kept its own key");

    // without a key: refused unless asked to decrypt, naming the option
    let mut plain = Memory::open_in_memory_with_clock(clock()).unwrap();
    plain.call("store", &json!({"agent_id": "a", "content": "kept when an import fails"})).unwrap();
    let before = contents(&mut plain);
    let refused = plain.import_encrypted(&bytes, &key(5)).unwrap_err();
    assert_eq!((refused.code(), refused.field()), ("invalid_value", Some("decrypt")), "{refused}");
    assert_eq!(contents(&mut plain), before, "a refused import changed the memory");
    assert!(plain.export().unwrap().starts_with(b"SQLite format 3\0"));
    plain.import_decrypted(&bytes, &key(5)).unwrap();
    assert_eq!(contents(&mut plain), expected);
    assert!(!plain.is_encrypted());
}

#[test]
fn a_memory_held_in_memory_with_a_key_exports_encrypted_bytes() {
    let mut memory = Memory::open_in_memory_with_clock(clock()).unwrap();
    fill(&mut memory);
    let expected = contents(&mut memory);
    memory.rekey(Some(key(3))).unwrap();
    assert!(memory.is_encrypted());
    let bytes = memory.export().unwrap();
    assert_no_plaintext(&bytes, "an in-memory memory's encrypted export");

    let mut copy = Memory::open_in_memory_with_clock(clock()).unwrap();
    assert_eq!(code(copy.import_decrypted(&bytes, &key(4))), "wrong_key");
    copy.import_decrypted(&bytes, &key(3)).unwrap();
    assert_eq!(contents(&mut copy), expected);
    // the bytes are an encrypted database file: one opens natively with the key
    if cfg!(not(target_arch = "wasm32")) {
        let place = Place::new("enc-in-memory");
        std::fs::write(place.db(), &bytes).unwrap();
        assert_eq!(contents(&mut reopen(&place.db(), Some(key(3))).unwrap()), expected);
    }
    memory.rekey(None).unwrap();
    assert!(memory.export().unwrap().starts_with(b"SQLite format 3\0"));
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "a file memory: wasm32-unknown-unknown has no file system (OPFS: www/test)")]
fn rekey_encrypts_re_encrypts_and_decrypts_a_file_in_place() {
    let place = Place::new("enc-rekey");
    let mut memory = Memory::open(place.db(), clock()).unwrap();
    fill(&mut memory);
    let expected = contents(&mut memory);
    memory.rekey(Some(key(1))).unwrap();
    memory.checkpoint().unwrap();
    assert_no_plaintext(&place.all_bytes(), "a plain file after rekey");
    assert_eq!(contents(&mut memory), expected, "the open memory goes on after rekey");
    memory.call("store", &json!({"agent_id": "a", "content": "written after the rekey"})).unwrap();
    drop(memory);

    let mut memory = reopen(&place.db(), Some(key(1))).unwrap();
    memory.rekey(Some(key(2))).unwrap();
    drop(memory);
    assert_eq!(code(reopen(&place.db(), Some(key(1)))), "wrong_key");
    let mut memory = reopen(&place.db(), Some(key(2))).unwrap();
    assert_eq!(contents(&mut memory)["total"], 3);
    memory.rekey(None).unwrap();
    drop(memory);
    assert!(contains(&place.all_bytes(), MARKER), "rekey(None) leaves a plain file");
    assert_eq!(contents(&mut reopen(&place.db(), None).unwrap())["total"], 3);
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "a file memory: wasm32-unknown-unknown has no file system (OPFS: www/test)")]
fn an_import_into_an_encrypted_file_keeps_it_encrypted() {
    let mut source = Memory::open_in_memory_with_clock(clock()).unwrap();
    fill(&mut source);
    let expected = contents(&mut source);
    let plain = source.export().unwrap();

    let place = Place::new("enc-import-into");
    let mut memory = Memory::open_encrypted(place.db(), key(5), clock()).unwrap();
    memory.call("store", &json!({"agent_id": "z", "content": "replaced"})).unwrap();
    memory.import(&plain).unwrap();
    assert_eq!(contents(&mut memory), expected);
    memory.checkpoint().unwrap();
    drop(memory);
    assert_no_plaintext(&place.all_bytes(), "an encrypted file after an import");
    assert_eq!(contents(&mut reopen(&place.db(), Some(key(5))).unwrap()), expected);
}

/// The encrypted files native and wasm builds exchange (`tests/fixtures/encrypted/`):
/// `native.sqlite3`, exported here under a passphrase, which the package imports in
/// www/test/package-node.test.mjs; `wasm.sqlite3`, exported by the package under a raw key,
/// opened here. `UPDATE_FIXTURES=1` rewrites the one each side makes.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/encrypted");
const FIXTURE_PASSPHRASE: &str = "associative-memory fixture passphrase";
const FIXTURE_RAW_KEY: [u8; 32] = [0x2a; 32];

const FROM_WASM: &[u8] = include_bytes!("fixtures/encrypted/wasm.sqlite3");
const FROM_NATIVE: &[u8] = include_bytes!("fixtures/encrypted/native.sqlite3");

fn texts(memory: &mut Memory) -> Vec<String> {
    let listed = contents(memory);
    listed["memories"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().to_owned()).collect()
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "a file memory: wasm32-unknown-unknown has no file system (OPFS: www/test)")]
fn a_file_encrypted_by_the_wasm_build_opens_natively() {
    assert_no_plaintext(FROM_WASM, "the wasm build's encrypted export");
    let place = Place::new("enc-from-wasm");
    std::fs::write(place.db(), FROM_WASM).unwrap();
    assert_eq!(code(reopen(&place.db(), Some(key(1)))), "wrong_key");
    let mut memory = reopen(&place.db(), Some(Key::Raw(FIXTURE_RAW_KEY))).unwrap();
    assert_eq!(texts(&mut memory), [JAPANESE.to_owned(), format!("{MARKER} written by the wasm build")]);
}

#[test]
fn encrypted_exports_of_either_build_import_in_this_one() {
    let mut memory = Memory::open_in_memory_with_clock(clock()).unwrap();
    memory.import_decrypted(FROM_WASM, &Key::Raw(FIXTURE_RAW_KEY)).unwrap();
    assert_eq!(texts(&mut memory), [JAPANESE.to_owned(), format!("{MARKER} written by the wasm build")]);
    memory.import_decrypted(FROM_NATIVE, &Key::passphrase(FIXTURE_PASSPHRASE).unwrap()).unwrap();
    assert_eq!(texts(&mut memory), [JAPANESE.to_owned(), format!("{MARKER} written natively")]);
}

#[test]
#[cfg_attr(
    target_arch = "wasm32",
    ignore = "writes the native build's file: the wasm build's is written by www/test/package-node.test.mjs"
)]
fn the_file_this_build_encrypts_for_the_wasm_build_is_current() {
    let mut memory = Memory::open_in_memory_with_clock(clock()).unwrap();
    memory.call("store", &json!({"agent_id": "a", "content": format!("{MARKER} written natively")})).unwrap();
    memory.call("store", &json!({"agent_id": "a", "content": JAPANESE})).unwrap();
    memory.rekey(Some(Key::passphrase(FIXTURE_PASSPHRASE).unwrap())).unwrap();
    let path = format!("{FIXTURES}/native.sqlite3");
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::write(&path, memory.export().unwrap()).unwrap();
    }
    // Encrypted bytes differ on every export (a fresh salt and nonces): the committed file
    // must hold what this build writes today.
    let committed = std::fs::read(&path).unwrap();
    assert_no_plaintext(&committed, "the native build's encrypted export");
    let mut copy = Memory::open_in_memory_with_clock(clock()).unwrap();
    copy.import_decrypted(&committed, &Key::passphrase(FIXTURE_PASSPHRASE).unwrap()).unwrap();
    assert_eq!(contents(&mut copy), contents(&mut memory));
}

#[test]
#[cfg_attr(target_arch = "wasm32", ignore = "a file memory: wasm32-unknown-unknown has no file system (OPFS: www/test)")]
fn a_tampered_page_is_an_error_not_a_silent_read() {
    let place = Place::new("tamper");
    let (memory, expected) = filled_file(&place, key(1));
    memory.checkpoint().unwrap();
    drop(memory);
    let mut bytes = std::fs::read(place.db()).unwrap();
    let pages = bytes.len() / 4096;
    assert!(pages > 3);
    // one bit of every page but the first: whichever page a read needs, its tag fails
    for page in 1..pages {
        bytes[page * 4096 + 100] ^= 1;
    }
    std::fs::write(place.db(), &bytes).unwrap();
    let opened = reopen(&place.db(), Some(key(1)));
    let read = opened.and_then(|mut m| m.call("list_memories", &json!({"agent_id": "a"})));
    assert!(read.is_err(), "a tampered file was read: {read:?}");
    assert_ne!(read.ok(), Some(expected));
}
