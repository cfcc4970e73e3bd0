//! The one error type of the engine.
//!
//! Every failure a caller can act on has its own variant, a stable [`Error::code`] and,
//! for bad input, the [`Error::field`] it concerns. The wasm binding converts it in one
//! place into a JavaScript `Error` carrying `code` and `field`.

/// Everything that can go wrong in an operation.
///
/// A call that returns an error has written nothing: options are validated before a
/// transaction opens, and a failure inside one rolls it back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A required option was not given.
    #[error("`{field}` is required")]
    Missing {
        /// The option's name, as a dotted path for nested fields.
        field: String,
    },
    /// None of the options a call needs one of was given (`update_memory` with nothing to
    /// change); `field` names the first of them, `among` all of them.
    #[error("at least one of {among} is required")]
    MissingOneOf {
        /// The first of the options.
        field: String,
        /// The options, in words.
        among: &'static str,
    },
    /// An option had the wrong JSON type.
    #[error("`{field}` must be {expected}, got {got}")]
    WrongType {
        /// The option's name.
        field: String,
        /// What the option must be, in words.
        expected: &'static str,
        /// What was given, in words.
        got: String,
    },
    /// A number, list or string was outside the accepted range.
    #[error("`{field}` must be {range}, got {got}")]
    OutOfRange {
        /// The option's name.
        field: String,
        /// The accepted range, in words.
        range: String,
        /// What was given.
        got: String,
    },
    /// A record reference was not of the form `mem:<id>` or `ep:<id>`.
    #[error("`{field}` must be a record ref 'mem:<id>' or 'ep:<id>', got {got:?}")]
    BadRef {
        /// The option's name.
        field: String,
        /// What was given.
        got: String,
    },
    /// An option the operation does not know was given (a typo, most often).
    #[error("unknown option `{field}`; this operation accepts: {accepted}")]
    UnknownOption {
        /// The unknown option's name.
        field: String,
        /// The options the operation accepts, comma-separated.
        accepted: String,
    },
    /// An option had the right type but a value that cannot be used.
    #[error("`{field}` {reason}")]
    Invalid {
        /// The option's name.
        field: String,
        /// Why the value cannot be used.
        reason: String,
    },
    /// The row the call names does not exist for this agent.
    #[error("{what} not found for this agent")]
    NotFound {
        /// The option that named the row.
        field: String,
        /// The row, in words (`memory 7`).
        what: String,
    },
    /// `call` was given a tool name the engine does not have.
    #[error("unknown tool `{0}`; tools: {tools}", tools = crate::api::operations::tool_names())]
    UnknownTool(String),
    /// The database was written by a newer version of this library.
    #[error("database schema version {found} is newer than this library supports ({supported}); open it with a newer associative-memory")]
    NewerSchema {
        /// The database's `user_version`.
        found: i64,
        /// The newest version this library knows.
        supported: i64,
    },
    /// The bytes or file given are not an associative-memory database.
    #[error("not an associative-memory database: {0}")]
    NotAMemory(String),
    /// The memory is encrypted and was opened (or its bytes imported) without a key.
    #[error("the memory is encrypted (or is not an SQLite database): give its key")]
    Encrypted,
    /// The key given does not open the memory: another key, or a memory that is not
    /// encrypted. The key itself is never part of the message.
    #[error("the key does not open this memory (a wrong key, or a memory that is not encrypted)")]
    WrongKey,
    /// A memory of this name is open already (a page store's, see
    /// [`crate::Memory::open_pages`]; a file's, see `Memory::open_file`); close it first.
    #[error("the memory {name:?} is already open here; close it first")]
    AlreadyOpen {
        /// The option that named it: `name` (a page store's), `path` (a file's).
        field: String,
        /// Its name or path.
        name: String,
    },
    /// The storage a memory is kept in failed: it could not be set up, or a copy of the
    /// database into it stopped.
    #[error("storage: {0}")]
    Storage(String),
    /// SQLite failed; the call was rolled back.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// Matches the variants that name a field (`$field` bound to it) against `$then`, every
/// other variant against `$else`: the one list of them, for [`Error::field`] and
/// [`Error::under`].
macro_rules! with_field {
    ($value:expr, $field:ident => $then:expr, _ => $else:expr) => {
        match $value {
            Error::Missing { $field }
            | Error::MissingOneOf { $field, .. }
            | Error::WrongType { $field, .. }
            | Error::OutOfRange { $field, .. }
            | Error::BadRef { $field, .. }
            | Error::UnknownOption { $field, .. }
            | Error::Invalid { $field, .. }
            | Error::NotFound { $field, .. }
            | Error::AlreadyOpen { $field, .. } => $then,
            _ => $else,
        }
    };
}

impl Error {
    /// The same error with its field named under `prefix` (`lines[3].` and `content`), for
    /// options read from inside a larger input.
    pub(crate) fn under(mut self, prefix: &str) -> Error {
        with_field!(&mut self, field => field.insert_str(0, prefix), _ => {});
        self
    }

    /// A stable, machine-readable name for the kind of error, for callers to branch on.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Missing { .. } | Error::MissingOneOf { .. } => "missing_field",
            Error::WrongType { .. } => "wrong_type",
            Error::OutOfRange { .. } => "out_of_range",
            Error::BadRef { .. } => "bad_ref",
            Error::UnknownOption { .. } => "unknown_option",
            Error::Invalid { .. } => "invalid_value",
            Error::NotFound { .. } => "not_found",
            Error::UnknownTool(_) => "unknown_tool",
            Error::NewerSchema { .. } => "newer_schema",
            Error::NotAMemory(_) => "not_a_memory",
            Error::Encrypted => "encrypted",
            Error::WrongKey => "wrong_key",
            Error::AlreadyOpen { .. } => "already_open",
            Error::Storage(_) => "storage",
            Error::Sqlite(_) => "sqlite",
        }
    }

    /// The option the error concerns, when it concerns one.
    pub fn field(&self) -> Option<&str> {
        with_field!(self, field => Some(field), _ => None)
    }
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
