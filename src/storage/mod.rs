//! What is kept, and how: the schema and its migrations, the records (memories and
//! episodes) and the operations that write, read and delete them, sync's changesets and
//! its state, the cipher that encrypts
//! the file, the scratch file encrypted bytes are made in, the VFSs that keep a database in a
//! host's page store and in a host's files, and the write-back layer of the wasm binding's
//! OPFS files.

pub(crate) mod changes;
pub(crate) mod cipher;
pub(crate) mod data;
/// Natively (for tests and benches) and in the module built for Node (cargo feature `file`):
/// the browsers' module has no use for it.
#[cfg(any(not(target_arch = "wasm32"), feature = "file"))]
pub mod file;
pub mod pages;
pub(crate) mod records;
pub(crate) mod schema;
pub(crate) mod scratch;
pub mod sync;
pub(crate) mod vfs;
/// Used by the wasm binding's OPFS memories; tested natively.
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) mod write_back;

/// A pragma's value, written as rusqlite's `pragma_update` writes it: an integer, or a
/// string literal.
pub(crate) enum PragmaValue<'a> {
    Int(i64),
    Text(&'a str),
}

impl From<i64> for PragmaValue<'_> {
    fn from(i: i64) -> Self {
        PragmaValue::Int(i)
    }
}

impl From<bool> for PragmaValue<'_> {
    fn from(b: bool) -> Self {
        PragmaValue::Int(b.into())
    }
}

impl<'a> From<&'a str> for PragmaValue<'a> {
    fn from(s: &'a str) -> Self {
        PragmaValue::Text(s)
    }
}

/// Runs `PRAGMA name=value`, the statement rusqlite's `pragma_update` builds and runs, and
/// fails as it fails. Written out because `pragma_update` takes any `ToSql`: its checks and
/// formatting of any value (the `Debug` of rusqlite's value types among them) were code the
/// wasm module carried for a few integers and words.
pub(crate) fn set_pragma<'a>(conn: &rusqlite::Connection, name: &str, value: impl Into<PragmaValue<'a>>) -> rusqlite::Result<()> {
    let value = match value.into() {
        PragmaValue::Int(i) => i.to_string(),
        PragmaValue::Text(s) => format!("'{}'", s.replace('\'', "''")),
    };
    conn.execute_batch(&format!("PRAGMA {name}={value}"))
}

/// Copies every page of `from` over `to` with SQLite's online backup, in one step. One
/// step because rusqlite's `run_to_completion` sleeps between steps, even for a pause of
/// zero, and a thread cannot sleep in wasm: there it panicked, and so trapped, every copy of
/// more than the 1,024 pages it took a step.
pub(crate) fn copy_database(from: &rusqlite::Connection, to: &mut rusqlite::Connection) -> crate::api::error::Result<()> {
    let backup = rusqlite::backup::Backup::new(from, to)?;
    match backup.step(-1)? {
        rusqlite::backup::StepResult::Done => Ok(()),
        // Busy or locked: another connection holds the destination, which none of ours do.
        other => Err(crate::Error::Storage(format!("the copy of the database stopped: {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    /// Each kind of value the engine passes has the effect `pragma_update` gives it.
    #[test]
    fn set_pragma_does_what_pragma_update_does() {
        let (ours, theirs) = (Connection::open_in_memory().unwrap(), Connection::open_in_memory().unwrap());
        super::set_pragma(&ours, "user_version", -7).unwrap();
        theirs.pragma_update(None, "user_version", -7).unwrap();
        super::set_pragma(&ours, "cell_size_check", true).unwrap();
        theirs.pragma_update(None, "cell_size_check", true).unwrap();
        super::set_pragma(&ours, "journal_mode", "MEMORY").unwrap();
        theirs.pragma_update(None, "journal_mode", "MEMORY").unwrap();
        super::set_pragma(&ours, "application_id", "4'2").unwrap();
        theirs.pragma_update(None, "application_id", "4'2").unwrap();
        for name in ["user_version", "cell_size_check", "journal_mode", "application_id"] {
            let read = |c: &Connection| c.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, rusqlite::types::Value>(0)).unwrap();
            assert_eq!(read(&ours), read(&theirs), "{name}");
        }
    }
}
