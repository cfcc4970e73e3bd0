//! What is kept, and how: the schema and its migrations, the records (memories and
//! episodes) and the operations that write, read and delete them, the cipher that encrypts
//! the file, the scratch file encrypted bytes are made in, the VFSs that keep a database in a
//! host's page store and in a host's files, and the write-back layer of the wasm binding's
//! OPFS files.

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
pub(crate) mod vfs;
/// Used by the wasm binding's OPFS memories; tested natively.
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) mod write_back;
