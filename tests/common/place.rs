//! A directory of its own for a test's database files, removed when dropped: shared by
//! `tests/encryption.rs` and `tests/file.rs`.

use std::path::PathBuf;

pub struct Place(pub PathBuf);

impl Place {
    /// A fresh, empty directory named for the test and this process.
    pub fn new(name: &str) -> Place {
        let dir = std::env::temp_dir().join(format!("am-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Place(dir)
    }
    /// The database's path.
    pub fn db(&self) -> PathBuf {
        self.0.join("memory.sqlite3")
    }
    /// Every byte of the database's files (the database, its log, a journal).
    pub fn all_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&self.0).unwrap() {
            out.extend(std::fs::read(entry.unwrap().path()).unwrap());
        }
        out
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
