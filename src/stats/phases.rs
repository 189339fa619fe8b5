//! Phases of a run: stretches of time at one throughput level (a burst, the baseline after it,
//! reads served from the page cache) found in the time series, so that a user need not read
//! them off a chart.
//!
//! The method is PELT (Killick, Fearnhead and Eckley 2012): the segmentation of the series
//! that minimises the summed cost of its segments plus a penalty per change, found exactly in
//! near-linear time by pruning starts that can never again be optimal. The cost is the normal
//! likelihood with its own mean and variance per segment, on log-throughput (a drop from 400
//! to 40 MB/s and from 40 to 4 MB/s are the same size of change). The penalty is the modified
//! BIC, the default of R's `changepoint` package: 4 ln n per change for two parameters, and
//! ln(length) per segment.
//!
//! A change point is a statistical fact, a phase is what a user acts on, so the segments are
//! then tidied: those shorter than [`min_phase`] (a spike, a stall of an interval or two) join
//! the neighbour nearest in level, and neighbours within [`SAME_LEVEL`] of each other are
//! one phase (a change in jitter alone is not a new phase).

use super::reps::median;
use serde::{Deserialize, Serialize};

/// Neighbouring segments whose mean throughputs differ by less than this factor are one
/// phase: closer than that, a level change is within what one device does from run to run.
pub const SAME_LEVEL: f64 = 1.15;

/// A level at least this factor above the last phase's is a burst (or cache) the run fell
/// from; the last phase is then its baseline.
pub const DROP: f64 = 1.3;

/// The series is averaged into at most this many bins before the search, so that a day at
/// one-second intervals costs what a half-hour does; change points are then placed back to
/// the interval.
const MAX_BINS: usize = 2048;

/// Interval-to-interval jitter under this (as a standard deviation of log-throughput, about
/// 1%) is measurement noise: without a floor, a perfectly quiet segment would have a variance
/// of zero and an infinitely good cost.
const NOISE_FLOOR: f64 = 0.01;

/// What a phase was, judged from its level against the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseLabel {
    /// The whole run at one level.
    Steady,
    /// A short stretch above even the burst that follows it.
    Peak,
    /// Above the level the run fell to, on direct I/O: the device's or service's burst.
    Burst,
    /// Above the level the run fell to, through the page cache.
    Cache,
    /// The level the run fell to and held, at its end.
    Baseline,
    /// Between levels: a ramp, a dip, a stall.
    Transition,
}

impl PhaseLabel {
    pub fn name(self) -> &'static str {
        match self {
            PhaseLabel::Steady => "steady",
            PhaseLabel::Peak => "peak",
            PhaseLabel::Burst => "burst",
            PhaseLabel::Cache => "cache",
            PhaseLabel::Baseline => "baseline",
            PhaseLabel::Transition => "transition",
        }
    }
}

/// A stretch of intervals `[start, end)` at one level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    /// Mean throughput over the span, in the series' units: what the span delivered.
    pub level: f64,
    /// Median throughput over the span: what phases are compared by, so that a spike inside
    /// a phase does not move it.
    pub typical: f64,
    pub label: PhaseLabel,
}

impl Span {
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// The shortest phase, in intervals: three, or one hundredth of the run if that is more.
/// Anything shorter is a spike or a stall inside a phase.
pub fn min_phase(n: usize) -> usize {
    3.max(n / 100)
}

/// The phases of a throughput series (any unit, one value per interval, oldest first), each
/// labelled; `cached` says the I/O went through the page cache (a level above the last is
/// then the cache, not a burst). Empty for an empty series.
pub fn find(series: &[f64], cached: bool) -> Vec<Span> {
    if series.is_empty() {
        return Vec::new();
    }
    let cuts = change_points(series, 2);
    let mut spans = spans_of(series, &cuts);
    tidy(series, &mut spans, min_phase(series.len()));
    label(&mut spans, cached);
    spans
}

/// Where the level changes: the starts of every segment but the first, ascending. `min_len`
/// (at least 2) is the shortest segment considered.
pub fn change_points(series: &[f64], min_len: usize) -> Vec<usize> {
    let logs = log_series(series);
    let smooth = median5(&logs);
    let bin = logs.len().div_ceil(MAX_BINS).max(1);
    let binned: Vec<f64> = smooth
        .chunks(bin)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    let cuts = pelt(&binned, min_len.max(2));
    // Each change back at the interval, on the raw values: the median filter can move a
    // noisy edge by one, and a bin hides where in it the change was.
    let sums = Sums::new(&logs);
    let mut starts: Vec<usize> = cuts.iter().map(|&c| c * bin).collect();
    for i in 0..starts.len() {
        let lo = if i == 0 { 0 } else { starts[i - 1] };
        let hi = starts.get(i + 1).copied().unwrap_or(logs.len());
        starts[i] = refine(&sums, lo, starts[i], hi, bin.max(2));
    }
    starts
}

/// Each value replaced by the median of the five around it: a spike or a stall of one or two
/// intervals is gone, while a step keeps its edge exactly where it was.
fn median5(y: &[f64]) -> Vec<f64> {
    (0..y.len())
        .map(|i| {
            let w = &y[i.saturating_sub(2)..(i + 3).min(y.len())];
            let mut v = w.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        })
        .collect()
}

/// ln of each value; zeros (a stalled interval) become a level far below the others rather
/// than minus infinity.
fn log_series(series: &[f64]) -> Vec<f64> {
    let top = series.iter().cloned().fold(0.0, f64::max);
    let floor = if top > 0.0 { top * 1e-6 } else { 1.0 };
    series.iter().map(|&v| v.max(floor).ln()).collect()
}

/// Prefix sums of values and squares, for a segment's cost in constant time.
struct Sums {
    s1: Vec<f64>,
    s2: Vec<f64>,
}

impl Sums {
    fn new(y: &[f64]) -> Self {
        let mut s1 = Vec::with_capacity(y.len() + 1);
        let mut s2 = Vec::with_capacity(y.len() + 1);
        let (mut a, mut b) = (0.0, 0.0);
        s1.push(0.0);
        s2.push(0.0);
        for &v in y {
            a += v;
            b += v * v;
            s1.push(a);
            s2.push(b);
        }
        Sums { s1, s2 }
    }

    /// Twice the negative log-likelihood of `y[s..t]` as one normal segment, with the MBIC's
    /// ln(length) per segment.
    fn cost(&self, s: usize, t: usize) -> f64 {
        let n = (t - s) as f64;
        let sum = self.s1[t] - self.s1[s];
        let var = ((self.s2[t] - self.s2[s]) - sum * sum / n) / n;
        let var = var.max(NOISE_FLOOR * NOISE_FLOOR);
        n * ((2.0 * std::f64::consts::PI).ln() + var.ln() + 1.0) + n.ln()
    }
}

/// The optimal segmentation's change points (starts of segments after the first).
fn pelt(y: &[f64], min_len: usize) -> Vec<usize> {
    let n = y.len();
    if n < 2 * min_len {
        return Vec::new();
    }
    let sums = Sums::new(y);
    let pen = 4.0 * (n as f64).ln();
    let mut best = vec![f64::INFINITY; n + 1];
    let mut prev = vec![0usize; n + 1];
    best[0] = -pen;
    let mut starts: Vec<usize> = Vec::new();
    for t in min_len..=n {
        let s_new = t - min_len;
        if best[s_new].is_finite() {
            starts.push(s_new);
        }
        let costs: Vec<f64> = starts.iter().map(|&s| best[s] + sums.cost(s, t)).collect();
        let (i, &c) = costs
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .expect("a start is always eligible");
        best[t] = c + pen;
        prev[t] = starts[i];
        // A start that cannot beat the best now, even with the penalty paid, never will.
        let bound = best[t];
        let mut k = 0;
        starts.retain(|_| {
            k += 1;
            costs[k - 1] <= bound
        });
    }
    let mut cuts = Vec::new();
    let mut t = n;
    while prev[t] > 0 {
        cuts.push(prev[t]);
        t = prev[t];
    }
    cuts.reverse();
    cuts
}

/// Place a change at the interval within `radius` of `at` that splits `[lo, hi)` best.
fn refine(sums: &Sums, lo: usize, at: usize, hi: usize, radius: usize) -> usize {
    let from = at.saturating_sub(radius).max(lo + 2);
    let to = (at + radius).min(hi.saturating_sub(2));
    (from..=to)
        .min_by(|&a, &b| {
            let ca = sums.cost(lo, a) + sums.cost(a, hi);
            let cb = sums.cost(lo, b) + sums.cost(b, hi);
            ca.total_cmp(&cb)
        })
        .unwrap_or(at)
}

fn spans_of(series: &[f64], cuts: &[usize]) -> Vec<Span> {
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(series.len());
    bounds
        .windows(2)
        .map(|w| Span {
            start: w[0],
            end: w[1],
            level: mean(&series[w[0]..w[1]]),
            typical: median(&series[w[0]..w[1]]),
            label: PhaseLabel::Steady,
        })
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// How far apart two levels are, as a factor of at least 1.
fn ratio(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo <= 0.0 {
        f64::INFINITY
    } else {
        hi / lo
    }
}

/// Join spans shorter than `min_len` to their nearest neighbour in level, then neighbours at
/// the same level, closest pair first.
fn tidy(series: &[f64], spans: &mut Vec<Span>, min_len: usize) {
    while let Some(i) = shortest_below(spans, min_len) {
        let j = nearest_neighbour(spans, i);
        join(series, spans, i.min(j));
    }
    loop {
        let closest = (0..spans.len().saturating_sub(1))
            .map(|i| (i, ratio(spans[i].typical, spans[i + 1].typical)))
            .filter(|&(_, r)| r < SAME_LEVEL)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match closest {
            Some((i, _)) => join(series, spans, i),
            None => break,
        }
    }
}

fn shortest_below(spans: &[Span], min_len: usize) -> Option<usize> {
    if spans.len() < 2 {
        return None;
    }
    (0..spans.len())
        .filter(|&i| spans[i].len() < min_len)
        .min_by_key(|&i| spans[i].len())
}

fn nearest_neighbour(spans: &[Span], i: usize) -> usize {
    let before = i.checked_sub(1);
    let after = (i + 1 < spans.len()).then_some(i + 1);
    match (before, after) {
        (Some(b), Some(a)) => {
            if ratio(spans[i].typical, spans[b].typical)
                <= ratio(spans[i].typical, spans[a].typical)
            {
                b
            } else {
                a
            }
        }
        (Some(b), None) => b,
        (None, Some(a)) => a,
        (None, None) => i,
    }
}

/// Join span `i` and span `i + 1`.
fn join(series: &[f64], spans: &mut Vec<Span>, i: usize) {
    let end = spans[i + 1].end;
    spans[i].end = end;
    spans[i].level = mean(&series[spans[i].start..end]);
    spans[i].typical = median(&series[spans[i].start..end]);
    spans.remove(i + 1);
}

/// Name each phase by its level against the last one's.
fn label(spans: &mut [Span], cached: bool) {
    let Some(last) = spans.last().map(|s| s.typical) else {
        return;
    };
    if spans.len() == 1 {
        spans[0].label = PhaseLabel::Steady;
        return;
    }
    let high = |s: &Span| ratio(s.typical, last) >= DROP && s.typical > last;
    let fell = spans.iter().any(high);
    let above = if cached {
        PhaseLabel::Cache
    } else {
        PhaseLabel::Burst
    };
    let highs: Vec<bool> = spans.iter().map(high).collect();
    for (s, is_high) in spans.iter_mut().zip(highs) {
        s.label = if is_high {
            above
        } else if fell {
            PhaseLabel::Baseline
        } else {
            PhaseLabel::Steady
        };
    }
    mark_transitions(spans);
    mark_peak(spans);
}

/// Phases not at the level of the end are transitions when the run did not settle on them:
/// a baseline-level stretch between two bursts, a short ramp before the end's level, a dip.
fn mark_transitions(spans: &mut [Span]) {
    let n = spans.len();
    let last = spans[n - 1];
    for i in 0..n - 1 {
        let s = spans[i];
        let later_high = spans[i + 1..]
            .iter()
            .any(|x| matches!(x.label, PhaseLabel::Burst | PhaseLabel::Cache));
        let at_end_level = ratio(s.typical, last.typical) < SAME_LEVEL;
        if matches!(s.label, PhaseLabel::Baseline | PhaseLabel::Steady)
            && (later_high || !at_end_level)
        {
            spans[i].label = PhaseLabel::Transition;
        }
    }
}

/// The highest burst, when short and well above the other bursts, is the peak.
fn mark_peak(spans: &mut [Span]) {
    let highs: Vec<usize> = (0..spans.len())
        .filter(|&i| matches!(spans[i].label, PhaseLabel::Burst | PhaseLabel::Cache))
        .collect();
    if highs.len() < 2 {
        return;
    }
    let top = *highs
        .iter()
        .max_by(|&&a, &&b| spans[a].typical.total_cmp(&spans[b].typical))
        .expect("two or more");
    let others = highs.iter().filter(|&&i| i != top);
    let next = others
        .clone()
        .map(|&i| spans[i].typical)
        .fold(0.0, f64::max);
    let longest_other = others.map(|&i| spans[i].len()).max().unwrap_or(0);
    if ratio(spans[top].typical, next) >= SAME_LEVEL && spans[top].len() <= longest_other {
        spans[top].label = PhaseLabel::Peak;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// `parts` of (intervals, level) with relative Gaussian-ish noise `jitter`.
    fn series(parts: &[(usize, f64)], jitter: f64, seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed, &[]);
        let mut out = Vec::new();
        for &(n, level) in parts {
            for _ in 0..n {
                // The sum of four uniforms: close enough to normal, bounded.
                let u: f64 = (0..4).map(|_| rng.unit() - 0.5).sum::<f64>() / 0.577;
                out.push(level * (1.0 + jitter * u));
            }
        }
        out
    }

    fn labels(spans: &[Span]) -> Vec<&'static str> {
        spans.iter().map(|s| s.label.name()).collect()
    }

    #[test]
    fn one_level_is_one_steady_phase() {
        for seed in 1..20 {
            let s = series(&[(300, 100.0)], 0.05, seed);
            let p = find(&s, false);
            assert_eq!(labels(&p), ["steady"], "seed {seed}: {p:?}");
        }
    }

    #[test]
    fn a_burst_then_a_baseline_is_found_where_it_ends() {
        for seed in 1..20 {
            let s = series(&[(120, 287.5), (180, 32.0)], 0.05, seed);
            let p = find(&s, false);
            assert_eq!(labels(&p), ["burst", "baseline"], "seed {seed}: {p:?}");
            assert!((118..=122).contains(&p[1].start), "seed {seed}: {p:?}");
            assert!((p[0].level / 287.5 - 1.0).abs() < 0.03);
            assert!((p[1].level / 32.0 - 1.0).abs() < 0.03);
        }
    }

    #[test]
    fn the_fsx_profile_peak_burst_baseline() {
        // The FSx seed: peaks of 400 MB/s, a sustained burst of 287.5, then 32 baseline.
        let s = series(&[(10, 400.0), (100, 287.5), (150, 32.0)], 0.04, 7);
        let p = find(&s, false);
        assert_eq!(labels(&p), ["peak", "burst", "baseline"], "{p:?}");
        assert!((9..=11).contains(&p[1].start), "{p:?}");
        assert!((108..=112).contains(&p[2].start), "{p:?}");
    }

    #[test]
    fn through_the_page_cache_the_high_level_is_the_cache() {
        let s = series(&[(50, 625.0), (100, 120.0)], 0.05, 3);
        assert_eq!(labels(&find(&s, true)), ["cache", "baseline"]);
    }

    #[test]
    fn spikes_and_stalls_of_an_interval_or_two_are_not_phases() {
        let mut s = series(&[(200, 100.0)], 0.05, 5);
        for i in (10..200).step_by(25) {
            s[i] = 400.0;
        }
        s[100] = 0.0;
        s[101] = 0.0;
        let p = find(&s, false);
        assert_eq!(labels(&p), ["steady"], "{p:?}");
    }

    #[test]
    fn a_change_in_jitter_alone_is_not_a_new_phase() {
        let mut s = series(&[(100, 100.0)], 0.01, 9);
        s.extend(series(&[(100, 100.0)], 0.15, 10));
        assert_eq!(labels(&find(&s, false)), ["steady"]);
    }

    #[test]
    fn a_slow_drift_is_not_cut_into_many_phases() {
        // 100 down to 90 over the run: within one device's variation.
        let mut s = series(&[(300, 1.0)], 0.03, 11);
        for (i, v) in s.iter_mut().enumerate() {
            *v *= 100.0 - 10.0 * i as f64 / 300.0;
        }
        assert_eq!(find(&s, false).len(), 1);
    }

    #[test]
    fn a_ramp_up_ends_steady() {
        let s = series(&[(30, 20.0), (200, 100.0)], 0.05, 12);
        let p = find(&s, false);
        assert_eq!(labels(&p), ["transition", "steady"], "{p:?}");
    }

    #[test]
    fn a_dip_between_two_equal_levels_is_a_transition() {
        let s = series(&[(100, 100.0), (20, 40.0), (100, 100.0)], 0.05, 13);
        let p = find(&s, false);
        assert_eq!(labels(&p), ["steady", "transition", "steady"], "{p:?}");
    }

    #[test]
    fn zeros_and_tiny_series_do_not_panic() {
        assert!(find(&[], false).is_empty());
        assert_eq!(find(&[0.0], false).len(), 1);
        assert_eq!(find(&[0.0; 50], false).len(), 1);
        assert_eq!(find(&[5.0, 0.0, 5.0], false).len(), 1);
        let p = find(&[f64::MAX, 1.0, f64::MAX, 1.0, f64::MAX], false);
        assert!(!p.is_empty());
    }

    #[test]
    fn a_day_at_one_second_intervals_is_cut_at_its_changes() {
        let s = series(&[(30_000, 300.0), (56_400, 40.0)], 0.05, 14);
        let p = find(&s, false);
        assert_eq!(labels(&p), ["burst", "baseline"], "{p:?}");
        assert!((29_990..=30_010).contains(&p[1].start), "{p:?}");
    }
}
