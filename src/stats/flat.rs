//! fio's steady-state judgement ([`FlatRule`]) on a run's time series: the runner applies it
//! to the last window as intervals finish, and the reports replay it over the saved series
//! to show the window that decided (fio's `steadystate` object), so both see the same points.
//!
//! As in fio (steadystate.c): one point per check interval, the first one starting where the
//! ramp (`ss_ramp`) has passed; the window is the last `ss_dur / ss_interval` points; the
//! deviation is the largest distance of a point from the window's mean, the slope that of the
//! least-squares line through the points against their index; with a percentage limit both
//! are taken as a percentage of the mean. Met when the criterion is below the limit (the
//! slope by its size: a falling line counts as much as a rising one).

use serde::{Deserialize, Serialize};

/// What is sampled each check interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlatMetric {
    /// I/Os per second.
    Iops,
    /// Bytes per second.
    Bw,
    /// Mean completion latency over the interval, in nanoseconds.
    Lat,
}

/// How flatness is judged over the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlatTest {
    /// Every value within the limit of the window's mean.
    Deviation,
    /// The least-squares slope (per check interval) under the limit.
    Slope,
}

/// The limit: in the metric's own unit (per second, or nanoseconds for latency), or a
/// percentage of the window's mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlatLimit {
    Absolute(f64),
    Percent(f64),
}

impl FlatLimit {
    pub fn value(self) -> f64 {
        match self {
            FlatLimit::Absolute(v) | FlatLimit::Percent(v) => v,
        }
    }
    pub fn is_percent(self) -> bool {
        matches!(self, FlatLimit::Percent(_))
    }
}

/// fio's `steadystate=CRITERION:LIMIT`, `ss_dur`, `ss_ramp` and `ss_interval`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FlatRule {
    pub metric: FlatMetric,
    pub test: FlatTest,
    pub limit: FlatLimit,
    /// The rolling window judged: a whole number of check intervals, one or more.
    pub window_ns: u64,
    /// Time from the start of the measured window before the first sample is collected.
    pub ramp_ns: u64,
    /// One sample per check interval: a whole number of the time series' intervals.
    pub check_ns: u64,
}

// The limit is a finite number (parsing refuses anything else), so equality is total.
impl Eq for FlatRule {}

impl FlatRule {
    /// `steadystate`'s criterion as fio writes it: `iops_slope`, `bw`, `lat`.
    pub fn criterion_name(&self) -> String {
        let metric = match self.metric {
            FlatMetric::Iops => "iops",
            FlatMetric::Bw => "bw",
            FlatMetric::Lat => "lat",
        };
        match self.test {
            FlatTest::Deviation => metric.to_string(),
            FlatTest::Slope => format!("{metric}_slope"),
        }
    }

    /// The whole criterion as fio prints it in its JSON (`iops:10.000000%`).
    pub fn fio_text(&self) -> String {
        let pct = if self.limit.is_percent() { "%" } else { "" };
        format!("{}:{:.6}{pct}", self.criterion_name(), self.limit.value())
    }

    /// The criterion as a user writes it: `iops:5%`, `bw_slope:1048576`.
    pub fn text(&self) -> String {
        let pct = if self.limit.is_percent() { "%" } else { "" };
        format!("{}:{}{pct}", self.criterion_name(), self.limit.value())
    }

    /// Check intervals in the window.
    pub fn points(&self) -> usize {
        (self.window_ns / self.check_ns.max(1)) as usize
    }
}

/// One interval of the time series: what completed in it, both directions together.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Base {
    pub ios: u64,
    pub bytes: u64,
    /// Sum of completion latencies of the timed I/Os, and how many were timed.
    pub lat_ns_sum: f64,
    pub lat_ios: u64,
}

impl Base {
    /// `timed`: each direction's (mean latency, I/Os) where its latency was timed.
    pub fn new(ios: u64, bytes: u64, timed: [Option<(u64, u64)>; 2]) -> Base {
        let timed = timed.iter().flatten();
        Base {
            ios,
            bytes,
            lat_ns_sum: timed.clone().map(|&(mean, n)| mean as f64 * n as f64).sum(),
            lat_ios: timed.map(|&(_, n)| n).sum(),
        }
    }
}

/// One check interval's figures, as fio collects them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Point {
    pub iops: f64,
    /// Bytes per second.
    pub bw: f64,
    /// Mean completion latency, nanoseconds (0 when nothing was timed).
    pub lat_ns: f64,
}

impl Point {
    fn value(&self, metric: FlatMetric) -> f64 {
        match metric {
            FlatMetric::Iops => self.iops,
            FlatMetric::Bw => self.bw,
            FlatMetric::Lat => self.lat_ns,
        }
    }
}

/// A window judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    pub mean: f64,
    /// Largest distance of a point from the mean, in the metric's unit.
    pub deviation: f64,
    /// Least-squares slope, in the metric's unit per check interval.
    pub slope: f64,
    /// What was held against the limit: deviation or slope, absolute or in percent of the
    /// mean, with its sign (fio prints it so).
    pub criterion: f64,
    pub attained: bool,
}

/// Base intervals per check interval, and check intervals skipped for the ramp.
fn grouping(rule: &FlatRule, interval_ns: u64) -> (usize, usize) {
    let k = (rule.check_ns / interval_ns.max(1)).max(1) as usize;
    // fio starts collecting at the first check after the ramp: a point is used only if it
    // begins at or after the ramp's end.
    let skip = rule.ramp_ns.div_ceil(rule.check_ns.max(1)) as usize;
    (k, skip)
}

fn point(group: &[Base], check_ns: u64) -> Point {
    let secs = check_ns as f64 / 1e9;
    let ios: u64 = group.iter().map(|b| b.ios).sum();
    let bytes: u64 = group.iter().map(|b| b.bytes).sum();
    let lat_ios: u64 = group.iter().map(|b| b.lat_ios).sum();
    let lat_sum: f64 = group.iter().map(|b| b.lat_ns_sum).sum();
    Point {
        iops: ios as f64 / secs,
        bw: bytes as f64 / secs,
        lat_ns: if lat_ios > 0 {
            lat_sum / lat_ios as f64
        } else {
            0.0
        },
    }
}

/// Every whole check interval of `base` after the ramp, oldest first.
pub fn points(base: &[Base], rule: &FlatRule, interval_ns: u64) -> Vec<Point> {
    let (k, skip) = grouping(rule, interval_ns);
    base.get(skip * k..)
        .unwrap_or_default()
        .chunks_exact(k)
        .map(|g| point(g, rule.check_ns))
        .collect()
}

/// How many whole check intervals `len` base intervals hold after the ramp.
pub fn point_count(len: usize, rule: &FlatRule, interval_ns: u64) -> usize {
    let (k, skip) = grouping(rule, interval_ns);
    len.saturating_sub(skip * k) / k
}

/// The last full window of a series of `len` intervals, `at(i)` the i-th, without touching
/// the intervals before it: what the runner judges each time a check interval finishes.
pub fn last_window(
    len: usize,
    at: impl Fn(usize) -> Base,
    rule: &FlatRule,
    interval_ns: u64,
) -> Option<Vec<Point>> {
    let (k, skip) = grouping(rule, interval_ns);
    let n = rule.points();
    let count = point_count(len, rule, interval_ns);
    if n == 0 || count < n {
        return None;
    }
    let from = (skip + count - n) * k;
    let bases: Vec<Base> = (from..from + n * k).map(at).collect();
    Some(
        bases
            .chunks_exact(k)
            .map(|g| point(g, rule.check_ns))
            .collect(),
    )
}

/// Judge one window.
pub fn judge(window: &[Point], rule: &FlatRule) -> Verdict {
    let y: Vec<f64> = window.iter().map(|p| p.value(rule.metric)).collect();
    let n = y.len() as f64;
    let mean = y.iter().sum::<f64>() / n.max(1.0);
    let deviation = y.iter().map(|v| (v - mean).abs()).fold(0.0, f64::max);
    let x_mean = (n - 1.0) / 2.0;
    let sxx: f64 = (0..y.len()).map(|i| (i as f64 - x_mean).powi(2)).sum();
    let sxy: f64 = y
        .iter()
        .enumerate()
        .map(|(i, v)| (i as f64 - x_mean) * (v - mean))
        .sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let raw = match rule.test {
        FlatTest::Deviation => deviation,
        FlatTest::Slope => slope,
    };
    let criterion = if rule.limit.is_percent() {
        100.0 * raw / mean
    } else {
        raw
    };
    // No I/O at all is not steady: a percentage of nothing means nothing. One point (a
    // window of one check interval, as fio allows) has no spread but no slope either: a
    // deviation rule holds on it, a slope rule never does, as in fio.
    let enough = match rule.test {
        FlatTest::Deviation => !y.is_empty(),
        FlatTest::Slope => y.len() >= 2,
    };
    let attained = enough && mean > 0.0 && criterion.abs() < rule.limit.value();
    Verdict {
        mean,
        deviation,
        slope,
        criterion,
        attained,
    }
}

/// The rule replayed over a finished run: the first window that was flat (where the run
/// stopped) or else the last one, with how many check intervals had passed by then.
pub struct Replay {
    pub window: Vec<Point>,
    pub verdict: Option<Verdict>,
    /// Check intervals from the ramp's end to the end of the judged window.
    pub at_point: usize,
}

pub fn replay(base: &[Base], rule: &FlatRule, interval_ns: u64) -> Replay {
    let all = points(base, rule, interval_ns);
    let n = rule.points();
    if n == 0 || all.len() < n {
        return Replay {
            verdict: None,
            at_point: all.len(),
            window: all,
        };
    }
    let mut last = None;
    for end in n..=all.len() {
        let v = judge(&all[end - n..end], rule);
        last = Some((end, v));
        if v.attained {
            break;
        }
    }
    let (end, v) = last.expect("at least one window");
    Replay {
        window: all[end - n..end].to_vec(),
        verdict: Some(v),
        at_point: end,
    }
}

/// What a verdict says, in words: "IOPS within 3.2% of their mean of 12345 (limit 10%)".
pub fn describe(rule: &FlatRule, v: &Verdict) -> String {
    let (what, unit): (&str, fn(f64) -> String) = match rule.metric {
        FlatMetric::Iops => ("IOPS", |v| format!("{v:.0}")),
        FlatMetric::Bw => ("bandwidth", |v| format!("{:.2} MB/s", v / 1e6)),
        FlatMetric::Lat => ("mean latency", |v| format!("{:.1}us", v / 1e3)),
    };
    let limit = match rule.limit {
        FlatLimit::Percent(p) => format!("{p}%"),
        FlatLimit::Absolute(a) => unit(a),
    };
    let amount = |raw: f64| match rule.limit {
        FlatLimit::Percent(_) => format!("{:.3}%", v.criterion.abs()),
        FlatLimit::Absolute(_) => unit(raw.abs()),
    };
    match rule.test {
        FlatTest::Deviation => format!(
            "{what} within {} of their mean of {} (limit {limit})",
            amount(v.deviation),
            unit(v.mean)
        ),
        FlatTest::Slope => format!(
            "{what} {} by {} per {}s interval, mean {} (limit {limit})",
            if v.slope < 0.0 { "falling" } else { "rising" },
            amount(v.slope),
            rule.check_ns as f64 / 1e9,
            unit(v.mean)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    fn rule(metric: FlatMetric, test: FlatTest, limit: FlatLimit, window_s: u64) -> FlatRule {
        FlatRule {
            metric,
            test,
            limit,
            window_ns: window_s * S,
            ramp_ns: 0,
            check_ns: S,
        }
    }

    fn ios(v: &[u64]) -> Vec<Base> {
        v.iter()
            .map(|&n| Base {
                ios: n,
                bytes: n * 4096,
                lat_ns_sum: n as f64 * 1000.0,
                lat_ios: n,
            })
            .collect()
    }

    #[test]
    fn deviation_in_percent_and_absolute() {
        // Mean 100, largest distance 5.
        let w = points(
            &ios(&[95, 100, 105, 100]),
            &rule(
                FlatMetric::Iops,
                FlatTest::Deviation,
                FlatLimit::Percent(10.0),
                4,
            ),
            S,
        );
        let r = rule(
            FlatMetric::Iops,
            FlatTest::Deviation,
            FlatLimit::Percent(5.0),
            4,
        );
        let v = judge(&w, &r);
        assert_eq!((v.mean, v.deviation), (100.0, 5.0));
        // The limit is strict, as fio's: 5% is not under 5%.
        assert!(!v.attained);
        assert!(
            judge(
                &w,
                &FlatRule {
                    limit: FlatLimit::Percent(5.1),
                    ..r
                }
            )
            .attained
        );
        assert!(
            judge(
                &w,
                &FlatRule {
                    limit: FlatLimit::Absolute(6.0),
                    ..r
                }
            )
            .attained
        );
        assert!(
            !judge(
                &w,
                &FlatRule {
                    limit: FlatLimit::Absolute(4.0),
                    ..r
                }
            )
            .attained
        );
    }

    #[test]
    fn slope_is_least_squares_per_check_interval_either_sign() {
        let r = rule(FlatMetric::Bw, FlatTest::Slope, FlatLimit::Percent(1.0), 5);
        // Bandwidth 4096 * (100, 102, ..., 108) per second: slope 2*4096 per interval.
        let rising = points(&ios(&[100, 102, 104, 106, 108]), &r, S);
        let v = judge(&rising, &r);
        assert!((v.slope - 2.0 * 4096.0).abs() < 1e-6, "{v:?}");
        assert!((v.criterion - 100.0 * 2.0 / 104.0).abs() < 1e-9);
        assert!(!v.attained);
        let falling = points(&ios(&[108, 106, 104, 102, 100]), &r, S);
        let v = judge(&falling, &r);
        assert!(v.criterion < 0.0 && !v.attained);
        let loose = FlatRule {
            limit: FlatLimit::Percent(2.0),
            ..r
        };
        assert!(judge(&falling, &loose).attained);
    }

    #[test]
    fn one_point_has_no_spread_and_no_slope() {
        let dev = rule(
            FlatMetric::Iops,
            FlatTest::Deviation,
            FlatLimit::Percent(10.0),
            1,
        );
        let one = points(&ios(&[100]), &dev, S);
        assert_eq!(one.len(), 1);
        assert!(
            judge(&one, &dev).attained,
            "a deviation rule holds on one point"
        );
        let slope = FlatRule {
            test: FlatTest::Slope,
            ..dev
        };
        assert!(!judge(&one, &slope).attained, "one point has no slope");
    }

    #[test]
    fn no_io_is_never_steady() {
        let r = rule(
            FlatMetric::Iops,
            FlatTest::Deviation,
            FlatLimit::Percent(10.0),
            3,
        );
        assert!(!judge(&points(&ios(&[0, 0, 0]), &r, S), &r).attained);
        assert!(
            !judge(
                &points(&ios(&[0, 0, 0]), &r, S),
                &FlatRule {
                    limit: FlatLimit::Absolute(1.0),
                    ..r
                }
            )
            .attained
        );
    }

    #[test]
    fn check_intervals_group_the_series_after_the_ramp() {
        // 250 ms series, 1 s checks, a 1.5 s ramp: points start at 2 s (the first check after
        // the ramp), four series intervals each; a trailing part is left out.
        let r = FlatRule {
            ramp_ns: 1_500_000_000,
            ..rule(
                FlatMetric::Iops,
                FlatTest::Deviation,
                FlatLimit::Percent(10.0),
                2,
            )
        };
        let base = ios(&[9, 9, 9, 9, 9, 9, 9, 9, 1, 1, 1, 1, 2, 2, 2, 2, 7]);
        let p = points(&base, &r, 250_000_000);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].iops, 4.0);
        assert_eq!(p[1].iops, 8.0);
        assert_eq!(point_count(base.len(), &r, 250_000_000), 2);
        assert_eq!(
            last_window(base.len(), |i| base[i], &r, 250_000_000).unwrap(),
            p
        );
        assert!(last_window(15, |i| base[i], &r, 250_000_000).is_none());
    }

    #[test]
    fn latency_is_the_timed_mean_over_the_check_interval() {
        let r = rule(
            FlatMetric::Lat,
            FlatTest::Deviation,
            FlatLimit::Absolute(1.0),
            2,
        );
        let base = vec![
            Base {
                ios: 10,
                bytes: 0,
                lat_ns_sum: 10_000.0,
                lat_ios: 10,
            },
            Base {
                ios: 30,
                bytes: 0,
                lat_ns_sum: 90_000.0,
                lat_ios: 30,
            },
        ];
        let two = FlatRule {
            check_ns: 2 * S,
            window_ns: 4 * S,
            ..r
        };
        assert_eq!(points(&base, &two, S)[0].lat_ns, 2500.0);
    }

    #[test]
    fn replay_finds_the_first_flat_window_or_keeps_the_last() {
        let r = rule(
            FlatMetric::Iops,
            FlatTest::Deviation,
            FlatLimit::Percent(5.0),
            3,
        );
        let base = ios(&[50, 80, 100, 101, 99, 100, 60]);
        let rp = replay(&base, &r, S);
        assert_eq!(rp.at_point, 5);
        assert!(rp.verdict.unwrap().attained);
        assert_eq!(
            rp.window.iter().map(|p| p.iops).collect::<Vec<_>>(),
            [100.0, 101.0, 99.0]
        );
        let never = ios(&[50, 80, 100, 60, 120]);
        let rp = replay(&never, &r, S);
        assert_eq!(rp.at_point, 5);
        assert!(!rp.verdict.unwrap().attained);
        assert_eq!(
            describe(&r, &replay(&base, &r, S).verdict.unwrap()),
            "IOPS within 1.000% of their mean of 100 (limit 5%)"
        );
        let slope = FlatRule {
            test: FlatTest::Slope,
            limit: FlatLimit::Absolute(3.0),
            ..r
        };
        let v = judge(&points(&ios(&[104, 102, 100]), &slope, S), &slope);
        assert_eq!(
            describe(&slope, &v),
            "IOPS falling by 2 per 1s interval, mean 102 (limit 3)"
        );
        let short = replay(&ios(&[1, 2]), &r, S);
        assert!(short.verdict.is_none());
        assert_eq!(short.window.len(), 2);
    }
}
