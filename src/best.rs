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
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).is_lt()
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

    /// Keeps `x`, which [`Best::wants`].
    pub fn keep(&mut self, x: (f64, K)) {
        let at = self.0.partition_point(|y| before(y, &x));
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
