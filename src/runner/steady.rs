//! The `--until-steady` rule: has throughput fallen from its peak and settled?

use crate::spec::SteadyRule;

/// What the rule saw when it was met, in bytes per interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settled {
    pub peak: f64,
    pub last: f64,
}

/// `bytes` per finished interval, oldest first; `n` intervals to a window. Met when the mean
/// of the last window is at least `drop_pct` below the best single interval and within
/// `tolerance_pct` of the mean of the window before it.
pub fn settled(bytes: &[u64], n: usize, rule: &SteadyRule) -> Option<Settled> {
    let n = n.max(1);
    if bytes.len() < 2 * n {
        return None;
    }
    let mean = |w: &[u64]| w.iter().sum::<u64>() as f64 / w.len() as f64;
    let last = mean(&bytes[bytes.len() - n..]);
    let prev = mean(&bytes[bytes.len() - 2 * n..bytes.len() - n]);
    let peak = *bytes.iter().max()? as f64;
    let dropped = last <= peak * (1.0 - rule.drop_pct as f64 / 100.0);
    let steady = (last - prev).abs() <= prev * rule.tolerance_pct as f64 / 100.0;
    (peak > 0.0 && dropped && steady).then_some(Settled { peak, last })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: SteadyRule = SteadyRule {
        window_ns: 0,
        drop_pct: 30,
        tolerance_pct: 10,
    };

    #[test]
    fn a_burst_then_a_baseline_is_settled() {
        let burst = [100, 100, 100, 100];
        let mut b = burst.to_vec();
        b.extend([50, 52, 49, 51]);
        assert!(settled(&b, 2, &RULE).is_some());
        // Still falling: the last window is 20% below the one before.
        let falling = [100, 100, 100, 90, 80, 70, 60, 50];
        assert!(settled(&falling, 2, &RULE).is_none());
        // Steady at the peak: no burst has ended.
        assert!(settled(&[100; 8], 2, &RULE).is_none());
        // Too few intervals for two windows.
        assert!(settled(&[100, 50, 50], 2, &RULE).is_none());
    }
}
