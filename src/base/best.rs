//! The best few of many scored records, kept as they are offered.
//!
//! Most offers lose to the last record kept with one comparison, so a search over tens of
//! thousands of matches never sorts or partitions them all: in the lexical arm, selecting
//! over every match was a tenth of a 100k recall in wasm; in the vector arm, the standard
//! selection (`select_nth_unstable_by`) was about 3 KB of the wasm module.

/// The best `depth` offered so far, best first: a higher score, then a lower key.
pub struct Best<K>(pub Vec<(f64, K)>, usize);

/// Whether `a` ranks before `b`. Inlined by force: the wasm module is built for size, and
/// there this stayed a call per match.
#[inline(always)]
fn before<K: Ord>(a: &(f64, K), b: &(f64, K)) -> bool {
    ordered(b.0).cmp(&ordered(a.0)).then(a.1.cmp(&b.1)).is_lt()
}

/// `x` as an integer in the order of [`f64::total_cmp`] (the standard library's own
/// definition of that order), inlined by force: in the size-built module `total_cmp` stays
/// a call, made for every score [`Best::keep`] compares.
#[inline(always)]
fn ordered(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

impl<K: Ord> Best<K> {
    pub fn new(depth: usize) -> Self {
        Best(Vec::with_capacity(depth.min(100) + 1), depth)
    }

    /// Whether `x` would be kept: one comparison with the last kept, most of the time.
    #[inline(always)]
    pub fn wants(&self, x: &(f64, K)) -> bool {
        self.0.len() < self.1 || self.0.last().is_some_and(|last| before(x, last))
    }

    /// The score below which a record is surely not kept, whatever its key: the last
    /// kept's once `depth` are kept, and −∞ before.
    #[inline(always)]
    pub fn least(&self) -> f64 {
        if self.0.len() == self.1 {
            self.0.last().map_or(f64::NEG_INFINITY, |last| last.0)
        } else {
            f64::NEG_INFINITY
        }
    }

    /// Keeps `x`, which [`Best::wants`]. A binary search written out, not `partition_point`:
    /// in the size-built module its closure stayed a call per step.
    #[inline(always)]
    pub fn keep(&mut self, x: (f64, K)) {
        let kept = &self.0[..];
        let (mut at, mut end) = (0, kept.len());
        while at < end {
            let mid = (at + end) / 2;
            if before(&kept[mid], &x) {
                at = mid + 1;
            } else {
                end = mid;
            }
        }
        self.0.insert(at, x);
        self.0.truncate(self.1);
    }

    /// Keeps `x` if it is among the best so far.
    pub fn offer(&mut self, x: (f64, K)) {
        if self.wants(&x) {
            self.keep(x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn ordered_is_the_order_of_total_cmp() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            1.0,
            2.5,
            1e300,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(ordered(a).cmp(&ordered(b)), a.total_cmp(&b), "{a} against {b}");
            }
        }
    }

    #[test]
    fn keeps_the_best_few_in_order_as_a_sort_does() {
        let mut seed = 11u64;
        let offers: Vec<(f64, i64)> = (0..500)
            .map(|i| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (((seed >> 40) % 37) as f64 / 4.0 - 2.0, i % 50)
            })
            .collect();
        for depth in [0, 1, 7, 100, 600] {
            let mut best = Best::new(depth);
            offers.iter().for_each(|&x| best.offer(x));
            let mut sorted = offers.clone();
            sorted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            sorted.truncate(depth);
            assert_eq!(best.0, sorted, "depth {depth}");
        }
    }
}
