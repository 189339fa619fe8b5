//! The `--until-steady` rule: has throughput fallen from a burst to a level that has held?
//! Judged by the same phase detection the report shows ([`crate::stats::phases`]), on the
//! intervals finished so far.

use crate::spec::SteadyRule;
use crate::stats::phases::{self, PhaseLabel};

/// What the rule saw when it was met, in bytes per interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settled {
    /// The burst's level: time-weighted over the phases above the baseline.
    pub burst: f64,
    /// The level the run fell to.
    pub baseline: f64,
    /// Intervals from the start to the end of the last burst phase.
    pub burst_intervals: usize,
}

/// `bytes` per finished interval, oldest first; `window` intervals the baseline must have
/// held. Met when the phases found end on a baseline at least `drop_pct` below the burst
/// before it, the baseline has lasted `window` intervals, and the two halves of the last
/// `window` intervals are within `tolerance_pct` of its level of each other (still falling or
/// rising is not held).
pub fn settled(bytes: &[u64], window: usize, rule: &SteadyRule, cached: bool) -> Option<Settled> {
    let window = window.max(1);
    let series: Vec<f64> = bytes.iter().map(|&b| b as f64).collect();
    let found = phases::find(&series, cached);
    let last = found.last()?;
    if last.label != PhaseLabel::Baseline || last.len() < window {
        return None;
    }
    let highs: Vec<_> = found
        .iter()
        .filter(|p| {
            matches!(
                p.label,
                PhaseLabel::Burst | PhaseLabel::Peak | PhaseLabel::Cache
            )
        })
        .collect();
    let burst_len: usize = highs.iter().map(|p| p.len()).sum();
    let burst = highs.iter().map(|p| p.level * p.len() as f64).sum::<f64>() / burst_len as f64;
    let dropped = last.level <= burst * (1.0 - rule.drop_pct as f64 / 100.0);
    // Held: the window's two halves agree, so the level is not still falling (or rising).
    let tail = &series[series.len() - window..];
    let half = (window / 2).max(1);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let (early, late) = (mean(&tail[..half]), mean(&tail[tail.len() - half..]));
    let held = (late - early).abs() <= last.level * rule.tolerance_pct as f64 / 100.0;
    (dropped && held).then_some(Settled {
        burst,
        baseline: last.level,
        burst_intervals: highs.last()?.end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: SteadyRule = SteadyRule {
        window_ns: 0,
        drop_pct: 30,
        tolerance_pct: 10,
    };

    /// `n` intervals around `level`, with a small alternating wobble.
    fn level(n: usize, level: u64) -> Vec<u64> {
        (0..n)
            .map(|i| level + (i as u64 % 3) * level / 50)
            .collect()
    }

    #[test]
    fn a_burst_then_a_held_baseline_is_settled() {
        let mut b = level(20, 100);
        b.extend(level(10, 40));
        let s = settled(&b, 5, &RULE, false).expect("settled");
        assert_eq!(s.burst_intervals, 20);
        assert!((s.baseline / 40.0 - 1.0).abs() < 0.05, "{s:?}");
        assert!((s.burst / 100.0 - 1.0).abs() < 0.05, "{s:?}");
    }

    #[test]
    fn not_settled_before_the_baseline_has_held_a_window() {
        let mut b = level(20, 100);
        b.extend(level(4, 40));
        assert!(settled(&b, 5, &RULE, false).is_none());
    }

    #[test]
    fn not_settled_while_still_falling_at_peak_or_on_a_small_drop() {
        let falling: Vec<u64> = (0..30).map(|i| 100 - 2 * i).collect();
        assert!(settled(&falling, 5, &RULE, false).is_none());
        assert!(settled(&level(30, 100), 5, &RULE, false).is_none());
        // 20% down is a baseline to the phase finder but less than the rule's 30%.
        let mut small = level(20, 100);
        small.extend(level(20, 80));
        assert!(settled(&small, 5, &RULE, false).is_none());
    }
}
