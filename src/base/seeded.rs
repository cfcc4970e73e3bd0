//! Seeded draws for unit tests: the same corpus, offsets and orders on every run.

/// A stream of draws, each below its argument (a 64-bit LCG from `seed`).
pub(crate) fn seeded(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    }
}
