//! The knee of a sweep: for one test and record size, the file size where throughput falls
//! off the cache. The seed's "Wall", found by the tool rather than by eye on a chart.
//!
//! Over the file sizes in order, every split into "smaller" and "larger" is tried; the knee is
//! the split that leaves the least spread of log-throughput on its two sides (two-segment least
//! squares: where the level changes most cleanly), kept only where the larger side's level is
//! at least the threshold below the smaller side's. The levels are medians: one slow small
//! file (a pass of microseconds, disturbed once) or one lucky large one does not move them.

use super::{SweepResult, Test};
use crate::stats::reps::median;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knee {
    pub test: Test,
    pub record_size: u64,
    /// The largest file size still on the cached plateau.
    pub last_cached_size: u64,
    /// The first file size past it.
    pub first_uncached_size: u64,
    /// Median throughput of the file sizes up to the knee, and of those past it.
    pub cached_bytes_per_sec: f64,
    pub uncached_bytes_per_sec: f64,
    /// cached / uncached.
    pub ratio: f64,
    /// How many file sizes each level is the median of.
    pub cached_points: usize,
    pub uncached_points: usize,
}

/// Every test's every record size's knees, smallest file size first.
pub fn all(r: &SweepResult) -> Vec<Knee> {
    let mut out = Vec::new();
    for &test in &r.params.tests {
        for &record in &r.params.record_sizes {
            let series: Vec<(u64, f64)> = r
                .of(test)
                .filter(|c| c.record_size == record)
                .filter_map(|c| c.bytes_per_sec().map(|b| (c.file_size, b)))
                .collect();
            for k in find_all(&series, r.params.knee_drop_pct) {
                out.push(Knee {
                    test,
                    record_size: record,
                    ..k
                });
            }
        }
    }
    out
}

/// Every knee of one series: the largest, then within each side of it, where that side has
/// two sizes or more on each side of its own knee (a CPU cache's edge below the page
/// cache's, a device's cache above it). Smallest file size first.
pub fn find_all(series: &[(u64, f64)], drop_pct: f64) -> Vec<Knee> {
    let Some(k) = find(series, drop_pct) else {
        return Vec::new();
    };
    let split = k.cached_points;
    let inner = |part: &[(u64, f64)]| -> Vec<Knee> {
        find_all(part, drop_pct)
            .into_iter()
            .filter(|k| k.cached_points >= 2 && k.uncached_points >= 2)
            .collect()
    };
    let mut out = inner(&series[..split]);
    out.push(k);
    out.extend(inner(&series[split..]));
    out
}

/// The knee of one series of (file size, bytes per second), ascending by size; `drop_pct` is
/// how far below the plateau the larger sizes must be. `test` and `record_size` are left for
/// the caller.
pub fn find(series: &[(u64, f64)], drop_pct: f64) -> Option<Knee> {
    if series.iter().any(|p| p.1.is_nan() || p.1 <= 0.0) {
        return None;
    }
    let logs: Vec<f64> = series.iter().map(|p| p.1.ln()).collect();
    // The split that leaves the least squared spread of log-throughput on its two sides:
    // where the level changes most cleanly.
    let k = (1..logs.len()).min_by(|&a, &b| spread(&logs, a).total_cmp(&spread(&logs, b)))?;
    let rates: Vec<f64> = series.iter().map(|p| p.1).collect();
    let (before, after) = (median(&rates[..k]), median(&rates[k..]));
    if after > before * (1.0 - drop_pct / 100.0) {
        return None;
    }
    Some(Knee {
        test: Test::Write,
        record_size: 0,
        last_cached_size: series[k - 1].0,
        first_uncached_size: series[k].0,
        cached_bytes_per_sec: before,
        uncached_bytes_per_sec: after,
        ratio: before / after,
        cached_points: k,
        uncached_points: rates.len() - k,
    })
}

/// Sum of squared deviations from their own mean of `v[..k]` and of `v[k..]`.
fn spread(v: &[f64], k: usize) -> f64 {
    let sq = |part: &[f64]| {
        let m = part.iter().sum::<f64>() / part.len() as f64;
        part.iter().map(|x| (x - m) * (x - m)).sum::<f64>()
    };
    sq(&v[..k]) + sq(&v[k..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(rates: &[f64]) -> Vec<(u64, f64)> {
        rates
            .iter()
            .enumerate()
            .map(|(i, &r)| ((64u64 << 10) << i, r))
            .collect()
    }

    #[test]
    fn a_cliff_is_found_between_the_two_sizes_around_it() {
        let s = series(&[900.0, 2000.0, 2100.0, 1950.0, 2050.0, 300.0, 280.0, 310.0]);
        let k = find(&s, 30.0).unwrap();
        assert_eq!(k.last_cached_size, 64 << 14);
        assert_eq!(k.first_uncached_size, 64 << 15);
        assert!((k.cached_bytes_per_sec - 2000.0).abs() < 1.0, "{k:?}");
        assert!((k.uncached_bytes_per_sec - 300.0).abs() < 1.0, "{k:?}");
        assert!(k.ratio > 6.0);
    }

    #[test]
    fn a_gradual_fall_is_cut_where_the_levels_differ_most() {
        let s = series(&[2000.0, 2000.0, 2000.0, 1200.0, 500.0, 480.0, 500.0]);
        let k = find(&s, 30.0).unwrap();
        assert!(
            [64u64 << 13, 64 << 14].contains(&k.first_uncached_size),
            "{k:?}"
        );
    }

    #[test]
    fn noise_a_single_dip_and_a_rise_are_not_knees() {
        assert_eq!(
            find(&series(&[1000.0, 1100.0, 950.0, 1050.0, 980.0]), 30.0),
            None
        );
        assert_eq!(
            find(&series(&[1000.0, 1000.0, 200.0, 1000.0, 1000.0]), 30.0),
            None
        );
        assert_eq!(find(&series(&[100.0, 500.0, 1000.0, 2000.0]), 30.0), None);
        assert_eq!(find(&series(&[1000.0]), 30.0), None);
        assert_eq!(find(&[], 30.0), None);
    }

    #[test]
    fn a_cpu_cache_edge_below_the_page_cache_edge_is_a_second_knee() {
        let s = series(&[
            8000.0, 8100.0, 7900.0, 4000.0, 4100.0, 3900.0, 4000.0, 300.0, 310.0, 290.0,
        ]);
        let all = find_all(&s, 30.0);
        assert_eq!(all.len(), 2, "{all:?}");
        assert_eq!(all[0].first_uncached_size, 64 << 13);
        assert_eq!(all[1].first_uncached_size, 64 << 17);
        assert!(all[1].ratio > all[0].ratio);
    }

    #[test]
    fn the_threshold_decides_a_small_drop() {
        let s = series(&[1000.0, 1000.0, 1000.0, 750.0, 750.0, 750.0]);
        assert!(find(&s, 20.0).is_some());
        assert!(find(&s, 30.0).is_none());
    }
}
