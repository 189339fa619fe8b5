//! The exact spread of a few latencies: count, minimum, maximum, mean and deviation, kept as
//! sums so that one interval's spreads from every thread merge exactly. DiskSpd reports these
//! per I/O bucket (`-D`); a histogram's buckets would round them.

/// Latencies in ns, as running sums. The square sum is f64: an interval's squares of
/// nanosecond latencies overflow u64 after a few I/Os of a second.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LatencySpread {
    pub count: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    sum_ns: f64,
    sum_sq: f64,
}

impl LatencySpread {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        if self.count == 0 || ns < self.min_ns {
            self.min_ns = ns;
        }
        self.max_ns = self.max_ns.max(ns);
        self.count += 1;
        let v = ns as f64;
        self.sum_ns += v;
        self.sum_sq += v * v;
    }

    pub fn merge(&mut self, other: &LatencySpread) {
        if other.count == 0 {
            return;
        }
        if self.count == 0 || other.min_ns < self.min_ns {
            self.min_ns = other.min_ns;
        }
        self.max_ns = self.max_ns.max(other.max_ns);
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.sum_sq += other.sum_sq;
    }

    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        self.sum_ns / self.count as f64
    }

    /// The population deviation (over every I/O, as DiskSpd's buckets give it).
    pub fn stdev_ns(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let n = self.count as f64;
        // Rounding can leave a hair below zero where every value is equal.
        ((self.sum_sq - self.sum_ns * self.sum_ns / n) / n)
            .max(0.0)
            .sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::LatencySpread;

    #[test]
    fn merged_spreads_equal_one_spread_of_every_value() {
        let mut a = LatencySpread::default();
        let mut b = LatencySpread::default();
        let mut all = LatencySpread::default();
        for (i, v) in [300u64, 100, 700, 200, 500].into_iter().enumerate() {
            if i % 2 == 0 {
                a.record(v);
            } else {
                b.record(v);
            }
            all.record(v);
        }
        a.merge(&b);
        assert_eq!((a.count, a.min_ns, a.max_ns), (5, 100, 700));
        assert_eq!(a.mean_ns(), 360.0);
        // Population deviation of 100, 200, 300, 500, 700: sqrt(46400).
        assert!((a.stdev_ns() - 46_400f64.sqrt()).abs() < 1e-9);
        assert_eq!(a, all);
    }

    #[test]
    fn an_empty_spread_merges_as_nothing() {
        let mut a = LatencySpread::default();
        a.record(42);
        a.merge(&LatencySpread::default());
        assert_eq!((a.count, a.min_ns, a.max_ns), (1, 42, 42));
        assert_eq!(a.stdev_ns(), 0.0);
    }
}
