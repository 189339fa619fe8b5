//! Medians, and the summary of a measurement repeated (fastest, median, slowest, spread) that
//! the file-system suite and the workloads give their repetitions.

/// The median of `v`, in any order: the mean of the middle two where their number is even;
/// 0 for none.
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// The median of `sorted` (ascending); None for none. The middle two's mean is taken in
/// u128: their sum may not fit in u64.
pub fn median_ns(sorted: &[u64]) -> Option<u64> {
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[n / 2]),
        n => Some(((sorted[n / 2 - 1] as u128 + sorted[n / 2] as u128) / 2) as u64),
    }
}

/// Repetitions of one measurement in a few figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Repeated {
    /// The fastest: the least disturbed repetition.
    pub min_ns: u64,
    pub median_ns: u64,
    pub max_ns: u64,
    /// (max - min) / median, in percent; 0 where the median is 0.
    pub spread_pct: f64,
}

/// [`Repeated`] of the times of every repetition (any order); None for none.
pub fn repeated(times: &[u64]) -> Option<Repeated> {
    let mut v = times.to_vec();
    v.sort_unstable();
    let (min, max) = (*v.first()?, *v.last()?);
    let median = median_ns(&v)?;
    let spread_pct = if median > 0 {
        (max - min) as f64 / median as f64 * 100.0
    } else {
        0.0
    };
    Some(Repeated {
        min_ns: min,
        median_ns: median,
        max_ns: max,
        spread_pct,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_take_the_middle_or_the_mean_of_the_middle_two() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median_ns(&[1, 2, 4]), Some(2));
        assert_eq!(median_ns(&[u64::MAX - 1, u64::MAX]), Some(u64::MAX - 1));
        assert_eq!(median_ns(&[]), None);
    }

    #[test]
    fn repetitions_give_fastest_median_slowest_and_spread() {
        let r = repeated(&[300, 100, 200, 400]).unwrap();
        assert_eq!((r.min_ns, r.median_ns, r.max_ns), (100, 250, 400));
        assert!((r.spread_pct - 120.0).abs() < 1e-9);
        assert_eq!(repeated(&[0, 0]).unwrap().spread_pct, 0.0);
        assert!(repeated(&[]).is_none());
    }
}
