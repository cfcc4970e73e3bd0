//! A memory kept in a page store (`Memory::open_pages`, what a Durable Object hosts): every
//! call's commit is in the store when it returns, each page reaches the store at most once
//! a call, the store reopens to the same memory, and memories of one program keep apart.

#[path = "common/page_store.rs"]
mod page_store;

use associative_memory::{FixedClock, Key, Memory};
use page_store::MapStore as Map;
use serde_json::{json, Value};
use std::rc::Rc;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn open(name: &str, store: &Rc<Map>, key: Option<Key>) -> Memory {
    Memory::open_pages(name, store.clone(), key, Box::new(FixedClock::new(1_700_000_000_000))).unwrap()
}

fn recall(m: &mut Memory, query: &str) -> Value {
    m.call("recall", &json!({"agent_id": "a", "query": query})).unwrap()
}

/// Each call's commit is in the store when the call returns: a copy of the store taken
/// then opens to a sound memory holding every write so far, and no page was written twice
/// in the call (the journal is in memory, never in the store).
#[test]
fn every_call_is_in_the_store_when_it_returns_each_page_written_once() {
    let store = Rc::new(Map::default());
    let mut m = open("every-call", &store, None);
    store.take_writes();
    for i in 0..30 {
        let content = format!("note {i} about the ledger service, kept at the edge");
        let associations = json!({"entities": [{"name": format!("service {}", i % 5)}]});
        m.call("store", &json!({"agent_id": "a", "content": content, "associations": associations})).unwrap();
        let writes = store.take_writes();
        let mut once = writes.clone();
        once.sort();
        once.dedup();
        assert_eq!(once.len(), writes.len(), "store {i} wrote a page twice: {writes:?}");
        let copy = store.copy();
        let mut crashed = open("every-call-copy", &copy, None);
        assert_eq!(crashed.integrity_check().unwrap(), Vec::<String>::new());
        assert_eq!(crashed.call("list_memories", &json!({"agent_id": "a", "limit": 1})).unwrap()["total"], i + 1);
    }
    let before = recall(&mut m, "ledger service");
    drop(m);
    let mut again = open("every-call", &store, None);
    assert_eq!(recall(&mut again, "ledger service"), before);
}

/// A rejected call writes nothing to the store; a store whose memory is open cannot be
/// opened a second time under its name, and can once it is closed.
#[test]
fn a_rejected_call_writes_nothing_and_a_name_is_held_once() {
    let store = Rc::new(Map::default());
    let mut m = open("held", &store, None);
    m.call("store", &json!({"agent_id": "a", "content": "kept"})).unwrap();
    store.take_writes();
    assert!(m.call("store", &json!({"agent_id": "a", "content": ""})).is_err());
    assert!(m.call("store_many", &json!({"agent_id": "a", "items": [{"content": "x"}, {"content": 3}]})).is_err());
    assert_eq!(store.take_writes(), Vec::<u64>::new());
    let err = Memory::open_pages("held", store.clone(), None, Box::new(FixedClock::new(0))).unwrap_err();
    assert_eq!((err.code(), err.field()), ("already_open", Some("name")));
    drop(m);
    let mut again = open("held", &store, None);
    assert_eq!(again.call("list_memories", &json!({"agent_id": "a"})).unwrap()["total"], 1);
}

/// With a key every chunk is ciphertext: no stored text is in the store, the key reopens
/// it, none or another does not. Two memories open at once keep their own stores.
#[test]
fn an_encrypted_store_holds_no_plaintext_and_memories_keep_apart() {
    let (secret, plain) = (Rc::new(Map::default()), Rc::new(Map::default()));
    let key = || Some(Key::passphrase("edge secret").unwrap());
    let mut a = open("secret", &secret, key());
    let mut b = open("plain", &plain, None);
    a.call("store", &json!({"agent_id": "a", "content": "MARKER-7f3a in the secret memory"})).unwrap();
    b.call("store", &json!({"agent_id": "a", "content": "the plain memory's note"})).unwrap();
    assert!(!secret.holds(b"MARKER-7f3a"));
    assert!(plain.holds(b"plain memory's note"));
    assert_eq!(recall(&mut b, "MARKER")["messages"], json!([]));
    drop(a);
    for (k, code) in [(None, "encrypted"), (Some(Key::passphrase("another").unwrap()), "wrong_key")] {
        let err = Memory::open_pages("secret", secret.clone(), k, Box::new(FixedClock::new(0))).unwrap_err();
        assert_eq!(err.code(), code);
    }
    let mut a = open("secret", &secret, key());
    assert_eq!(recall(&mut a, "MARKER")["messages"][0]["content"], "MARKER-7f3a in the secret memory");
}

/// `import` replaces the memory in its store, and `export` reads it from there.
#[test]
fn import_and_export_go_through_the_store() {
    let mut source = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(0))).unwrap();
    source.call("store", &json!({"agent_id": "a", "content": "moved to the edge"})).unwrap();
    let bytes = source.export().unwrap();
    let store = Rc::new(Map::default());
    let mut m = open("imported", &store, None);
    m.import(&bytes).unwrap();
    drop(m);
    let mut again = open("imported", &store, None);
    assert_eq!(recall(&mut again, "edge")["messages"][0]["content"], "moved to the edge");
    let mut back = Memory::open_in_memory_with_clock(Box::new(FixedClock::new(0))).unwrap();
    back.import(&again.export().unwrap()).unwrap();
    assert_eq!(recall(&mut back, "edge")["messages"][0]["content"], "moved to the edge");
}

/// An image of more than 1,024 pages imports into a page-store memory, and a keyed one of
/// that size exports and imports back. In wasm each copy trapped (`can't sleep`) past 1,024
/// pages, the step rusqlite's `run_to_completion` takes before it sleeps.
#[test]
fn images_of_more_than_1024_pages_import_and_export() {
    let big = "a ledger entry kept at the edge. ".repeat(30_000);
    let source = Rc::new(Map::default());
    let mut a = open("big-source", &source, None);
    for i in 0..5 {
        a.call("store", &json!({"agent_id": "a", "content": format!("{i} {big}")})).unwrap();
    }
    let bytes = a.export().unwrap();
    assert!(bytes.len() > 1024 * 4096, "{} bytes", bytes.len());
    let key = Key::Raw([7; 32]);
    let store = Rc::new(Map::default());
    let mut b = open("big-keyed", &store, Some(key.clone()));
    b.import(&bytes).unwrap();
    let listed = |m: &mut Memory| m.call("list_memories", &json!({"agent_id": "a", "limit": 10})).unwrap();
    assert_eq!(listed(&mut b), listed(&mut a));
    let sealed = b.export().unwrap();
    let mut c = open("big-back", &Rc::new(Map::default()), None);
    c.import_decrypted(&sealed, &key).unwrap();
    assert_eq!(listed(&mut c), listed(&mut a));
}
