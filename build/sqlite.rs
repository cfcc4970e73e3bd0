//! Native builds compile SQLite3 Multiple Ciphers (`sqlite3mc-src`) into `libsqlite3.a`:
//! the SQLite the wasm build gets from sqlite-wasm-rs's `sqlite3mc` feature, so a memory
//! encrypted on one target opens on the other. libsqlite3-sys, without its `bundled`
//! feature, links `-lsqlite3`; the search path printed here puts this library ahead of
//! any system SQLite (`.cargo/config.toml` also keeps pkg-config from looking for one).
//!
//! The compile-time options are the wasm build's: the defines of `SQLITE_WASM_RS_FLAGS`
//! (`.cargo/config.toml`: the cipher chosen, the APIs omitted) over the base below. Its
//! `-U` entries undo sqlite-wasm-rs's own extras, which this build never enables.

/// What the engine needs of SQLite and sqlite-wasm-rs's base gives it too.
const BASE: &[&str] = &[
    "SQLITE_CORE",
    "SQLITE_THREADSAFE=1",
    "SQLITE_USE_URI=1",
    "SQLITE_TEMP_STORE=2",
    "SQLITE_OMIT_DEPRECATED",
    "SQLITE_OMIT_LOAD_EXTENSION",
    "SQLITE_OMIT_SHARED_CACHE",
    "SQLITE_ENABLE_API_ARMOR",
    "SQLITE_ENABLE_FTS5",
    "SQLITE_ENABLE_SESSION",
    "SQLITE_ENABLE_PREUPDATE_HOOK",
    "HAVE_USLEEP=1",
];

pub fn build() {
    println!("cargo::rerun-if-changed=build/sqlite.rs");
    println!("cargo::rerun-if-env-changed=SQLITE_WASM_RS_FLAGS");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        return;
    }
    let flags = std::env::var("SQLITE_WASM_RS_FLAGS").unwrap_or_default();
    let shared = flags.split_whitespace().filter_map(|f| {
        if let Some(define) = f.strip_prefix("-D") {
            Some(define)
        } else if f.starts_with("-U") {
            None
        } else {
            assert!(f.starts_with("SQLITE_"), "SQLITE_WASM_RS_FLAGS: cannot read {f}");
            Some(f)
        }
    });
    let mut build = cc::Build::new();
    build.file(sqlite3mc_src::source_dir().join(sqlite3mc_src::SOURCE_FILE)).warnings(false);
    for define in BASE.iter().copied().chain(shared) {
        match define.split_once('=') {
            Some((name, value)) => build.define(name, value),
            None => build.define(define, None),
        };
    }
    build.compile("sqlite3");
}
