//! A page store in a map, as a host keeps one (`Memory::open_pages`), every chunk write
//! counted: shared by `tests/pages.rs` and `benches/pages.rs`.

use associative_memory::{PageStore, PAGE_CHUNK};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Chunks by index, and the index of each write since the last `take_writes`.
#[derive(Default)]
pub struct MapStore {
    pub chunks: RefCell<BTreeMap<u64, Vec<u8>>>,
    pub writes: RefCell<Vec<u64>>,
}

impl MapStore {
    /// A copy of the chunks as they are now: what the host holds if the program dies here.
    pub fn copy(&self) -> Rc<MapStore> {
        Rc::new(MapStore { chunks: RefCell::new(self.chunks.borrow().clone()), writes: RefCell::default() })
    }

    /// The indexes written since the last call.
    pub fn take_writes(&self) -> Vec<u64> {
        std::mem::take(&mut *self.writes.borrow_mut())
    }

    /// Whether some chunk holds `needle`.
    pub fn holds(&self, needle: &[u8]) -> bool {
        self.chunks.borrow().values().any(|c| c.windows(needle.len()).any(|w| w == needle))
    }
}

impl PageStore for MapStore {
    fn read(&self, index: u64) -> Result<Option<Vec<u8>>, String> {
        Ok(self.chunks.borrow().get(&index).cloned())
    }
    fn write(&self, index: u64, bytes: &[u8]) -> Result<(), String> {
        assert!(bytes.len() as u64 <= PAGE_CHUNK);
        self.writes.borrow_mut().push(index);
        self.chunks.borrow_mut().insert(index, bytes.to_vec());
        Ok(())
    }
    fn truncate(&self, count: u64) -> Result<(), String> {
        self.chunks.borrow_mut().retain(|i, _| *i < count);
        Ok(())
    }
    fn count(&self) -> Result<u64, String> {
        Ok(self.chunks.borrow().keys().next_back().map_or(0, |i| i + 1))
    }
}
