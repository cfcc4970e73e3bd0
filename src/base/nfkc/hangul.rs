//! Hangul syllables decompose and compose by arithmetic (Unicode §3.12), not by table:
//! `src/base/nfkc.rs` computes them from these, and `build/nfkc.rs` leaves the syllables out of
//! the tables it writes.

pub const S_BASE: u32 = 0xAC00;
pub const L_BASE: u32 = 0x1100;
pub const V_BASE: u32 = 0x1161;
pub const T_BASE: u32 = 0x11A7;
pub const L_COUNT: u32 = 19;
pub const V_COUNT: u32 = 21;
pub const T_COUNT: u32 = 28;
pub const N_COUNT: u32 = V_COUNT * T_COUNT;
pub const S_COUNT: u32 = L_COUNT * N_COUNT;

/// The precomposed syllables, U+AC00 to U+D7A3.
pub const SYLLABLES: std::ops::Range<u32> = S_BASE..S_BASE + S_COUNT;
