//! The JavaScript binding: the only code that knows about JavaScript.
//!
//! One class, `Memory`, exposes every operation. Options go in and responses come out
//! as plain JavaScript objects, crossing as JSON text ([`convert`]); every engine
//! error becomes a real JavaScript `Error` with `code` and `field` in one place
//! ([`error`]).

mod convert;
mod error;
#[cfg(feature = "file")]
mod file;
mod memory;
mod pages;

pub use memory::JsMemory;
