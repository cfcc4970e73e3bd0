//! Databases of other page sizes, shared by the native and the wasm suites: every memory
//! this crate creates has 4096-byte pages, but bytes made elsewhere (an older wasm build
//! used SQLite's wasm default, 8192) must still import.

use associative_memory::{FixedClock, Memory};

/// The page size an SQLite database image declares (header bytes 16–17; 1 means 65536).
pub fn page_size_of(bytes: &[u8]) -> u32 {
    match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65536,
        n => u32::from(n),
    }
}

/// An empty memory on a database with `size`-byte pages.
pub fn memory_with_page_size(size: u32) -> Memory {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    // a first table fixes the page size; dropping it leaves a database with no schema
    conn.execute_batch(&format!("PRAGMA page_size = {size}; CREATE TABLE fix(x); DROP TABLE fix;")).unwrap();
    Memory::from_connection(conn, Box::new(FixedClock::new(0))).unwrap()
}
