//! Time: the one place the engine reads it, and the ISO-8601 forms it writes.
//!
//! Every write stamps `created_at` / `declared_at` from the memory's [`Clock`], and
//! nothing else reads time, so the same database, inputs and clock give byte-identical
//! output. The clock is a parameter, not a cfg: natively [`SystemClock`], in wasm the
//! binding passes `Date.now()`, and tests pass a [`FixedClock`].

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A source of the current time, in milliseconds since the Unix epoch (UTC).
pub trait Clock {
    /// The current time in epoch milliseconds.
    fn now_ms(&self) -> i64;
}

/// The operating system's clock. Not usable on `wasm32-unknown-unknown`, where the
/// binding supplies a clock of its own.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
    }
}

/// A clock that only moves when told to. Clones share one time, so a test can keep a
/// handle while the memory owns another.
#[derive(Debug, Clone, Default)]
pub struct FixedClock(Arc<AtomicI64>);

impl FixedClock {
    /// A clock standing at `ms` epoch milliseconds.
    pub fn new(ms: i64) -> Self {
        FixedClock(Arc::new(AtomicI64::new(ms)))
    }
    /// Sets the time to `ms`.
    pub fn set_ms(&self, ms: i64) {
        self.0.store(ms, Ordering::SeqCst)
    }
    /// Moves the time on by `ms`.
    pub fn advance_ms(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for FixedClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

impl<F: Fn() -> i64> Clock for F {
    fn now_ms(&self) -> i64 {
        self()
    }
}

const MS_PER_DAY: i64 = 86_400_000;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Formats epoch milliseconds as `YYYY-MM-DDTHH:MM:SS+00:00`, with `.mmm` only when the
/// time has a fractional second. One spelling per instant, so stored stamps sort as text.
pub fn format_iso(ms: i64) -> String {
    let days = ms.div_euclid(MS_PER_DAY);
    let rest = ms.rem_euclid(MS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, frac) = (rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000);
    if frac == 0 {
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}+00:00")
    } else {
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{frac:03}+00:00")
    }
}

/// Parses an ISO-8601 date or date-time into epoch milliseconds.
///
/// Accepts `YYYY-MM-DD`, then optionally `T` or a space and `HH:MM[:SS[.fff…]]`, then
/// optionally `Z` or `±HH:MM` (no zone means UTC). Returns `None` for anything else,
/// including impossible dates.
pub fn parse_iso(text: &str) -> Option<i64> {
    let b = text.trim().as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        if part.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(part).ok()?.parse().ok()
        } else {
            None
        }
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) {
        return None;
    }
    let mut ms = days_from_civil(y, mo, d) * MS_PER_DAY;
    let mut i = 10;
    if i < b.len() && (b[i] == b'T' || b[i] == b't' || b[i] == b' ') {
        if b.get(i + 3) != Some(&b':') {
            return None;
        }
        let (h, mi) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
        if h > 23 || mi > 59 {
            return None;
        }
        ms += h * 3_600_000 + mi * 60_000;
        i += 6;
        if b.get(i) == Some(&b':') {
            let s = num(i + 1..i + 3)?;
            if s > 59 {
                return None;
            }
            ms += s * 1000;
            i += 3;
            if b.get(i) == Some(&b'.') {
                let start = i + 1;
                i = start;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i == start {
                    return None;
                }
                let digits = &text.trim()[start..i.min(start + 3)];
                let scale = 10_i64.pow(3 - digits.len() as u32);
                ms += digits.parse::<i64>().ok()? * scale;
            }
        }
    }
    let utc = match b.get(i) {
        None => ms,
        Some(b'Z') | Some(b'z') if i + 1 == b.len() => ms,
        Some(&sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let offset = oh * 3_600_000 + om * 60_000;
            if sign == b'+' {
                ms - offset
            } else {
                ms + offset
            }
        }
        _ => return None,
    };
    // Only an instant [`format_iso`] writes with a four-digit year: `9999-12-31T23:59-01:00`
    // is in year 10000 in UTC, whose stored form would sort before year 2000 and parse no more.
    STORABLE.contains(&utc).then_some(utc)
}

/// The instants whose stored form has a four-digit year, 0000-01-01 to 9999-12-31 UTC.
const STORABLE: std::ops::Range<i64> = -62_167_219_200_000..253_402_300_800_000;

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn formats_and_parses_round_trip() {
        let ms = parse_iso("2026-05-10T12:00:00+00:00").unwrap();
        assert_eq!(format_iso(ms), "2026-05-10T12:00:00+00:00");
        assert_eq!(parse_iso("2026-05-10T14:00:00+02:00"), Some(ms));
        assert_eq!(parse_iso("2026-05-10 12:00:00Z"), Some(ms));
        assert_eq!(parse_iso("2026-05-10T12:00"), Some(ms));
        assert_eq!(format_iso(ms + 5), "2026-05-10T12:00:00.005+00:00");
        assert_eq!(parse_iso("2026-05-10T12:00:00.005123Z"), Some(ms + 5));
        assert_eq!(format_iso(0), "1970-01-01T00:00:00+00:00");
        assert_eq!(parse_iso("2024-02-29"), Some(days_from_civil(2024, 2, 29) * MS_PER_DAY));
    }

    #[test]
    fn rejects_what_is_not_a_time() {
        for bad in ["", "yesterday", "2026-13-01", "2025-02-29", "2026-05-10T25:00", "2026-05-10T12:00:00+0200", "2026-05-10T12:00:00.Z"] {
            assert_eq!(parse_iso(bad), None, "{bad}");
        }
    }

    /// Every instant accepted is stored in a form that parses back to it and sorts as text:
    /// one that falls outside years 0000–9999 once in UTC is refused.
    #[test]
    fn accepts_only_instants_whose_stored_form_round_trips() {
        assert_eq!(STORABLE.start, days_from_civil(0, 1, 1) * MS_PER_DAY);
        assert_eq!(STORABLE.end, days_from_civil(10000, 1, 1) * MS_PER_DAY);
        for bad in ["9999-12-31T23:59:59.999-23:59", "9999-12-31T23:00-01:00", "0000-01-01T00:00+00:01", "0000-01-01T00:30:00+01:00"] {
            assert_eq!(parse_iso(bad), None, "{bad}");
        }
        for good in ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999+23:59", "0000-01-01T00:00:00Z", "0000-01-01T00:00-23:59"] {
            let ms = parse_iso(good).unwrap_or_else(|| panic!("{good}"));
            let stored = format_iso(ms);
            assert_eq!(parse_iso(&stored), Some(ms), "{good} stored as {stored}");
            assert_eq!(stored.len(), if ms % 1000 == 0 { 25 } else { 29 }, "{stored}");
        }
    }
}
