//! The build's two products: the compact Unicode tables `src/base/nfkc.rs` normalizes with
//! (`build/nfkc.rs`), and, natively, SQLite itself (`build/sqlite.rs`).

#[path = "build/nfkc.rs"]
mod nfkc;
#[path = "build/sqlite.rs"]
mod sqlite;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    nfkc::write();
    sqlite::build();
}
