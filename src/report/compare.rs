//! Comparing saved results: side by side with ratios to a reference, judged against the
//! run-to-run noise of repeated workloads, and the baseline check's pass/fail rule.

use crate::report::table::Grid;
use crate::result::limit::Verdict as Limited;
use crate::store::figures::{Figures, Metric};
use crate::store::Listed;
use serde::Serialize;

/// One result in a comparison: its passes' figures, and the figures of every saved repeat of
/// its workload (itself included), from which its noise is estimated.
pub struct Column {
    pub id: i64,
    pub title: String,
    pub passes: Vec<(String, Figures)>,
    /// What limited each pass, where judged (`result::limit`).
    pub limits: Vec<Option<Limited>>,
    pub repeats: Vec<Listed>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Reference,
    /// Neither run's workload was repeated: the noise is unknown.
    NoRepeats,
    WithinNoise,
    BeyondNoise,
}

impl Verdict {
    fn text(self) -> &'static str {
        match self {
            Verdict::Reference => "",
            Verdict::NoRepeats => "",
            Verdict::WithinNoise => "within noise",
            Verdict::BeyondNoise => "beyond noise",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub id: i64,
    pub value: Option<f64>,
    /// value / reference value.
    pub ratio: Option<f64>,
    /// Coefficient of variation over the saved repeats of this workload (n >= 2).
    pub noise_cv: Option<f64>,
    pub repeats: usize,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub pass: String,
    pub metric: &'static str,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub titles: Vec<String>,
    pub rows: Vec<Row>,
    /// Passes whose runs were limited by different things: their ratio compares those.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The pass labels to compare, and for each column which of its passes is that label.
/// Runs of one pass each are compared by position, whatever their labels; otherwise passes
/// are matched by label, in the order they first appear.
fn align(columns: &[Column]) -> Vec<(String, Vec<Option<usize>>)> {
    if columns.iter().all(|c| c.passes.len() == 1) {
        let mut labels: Vec<&str> = columns.iter().map(|c| c.passes[0].0.as_str()).collect();
        labels.dedup();
        return vec![(labels.join(" vs "), vec![Some(0); columns.len()])];
    }
    let mut out: Vec<(String, Vec<Option<usize>>)> = Vec::new();
    for c in columns {
        for (label, _) in &c.passes {
            if !out.iter().any(|(l, _)| l == label) {
                let idx = columns
                    .iter()
                    .map(|c| c.passes.iter().position(|(l, _)| l == label))
                    .collect();
                out.push((label.clone(), idx));
            }
        }
    }
    out
}

/// Mean and coefficient of variation (sample standard deviation / mean) of a metric over the
/// repeats of a column's workload, for the pass at `pos` (by label, or by position for
/// single-pass runs).
fn noise(c: &Column, label: &str, single: bool, m: Metric) -> (Option<f64>, usize) {
    let values: Vec<f64> = c
        .repeats
        .iter()
        .filter_map(|r| {
            let p = if single {
                r.passes.first()
            } else {
                r.passes.iter().find(|p| p.label == label)
            };
            p.and_then(|p| m.of(&p.figures))
        })
        .collect();
    let n = values.len();
    if n < 2 {
        return (None, n);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return (None, n);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (Some(var.sqrt() / mean), n)
}

/// A difference is beyond noise when it exceeds twice the combined coefficient of variation
/// of the two workloads' repeats (about a 95% band for roughly normal run-to-run spread).
/// Where only one side was repeated, its noise stands for both.
fn judge(ratio: f64, ref_cv: Option<f64>, cv: Option<f64>) -> Verdict {
    let combined = match (ref_cv, cv) {
        (Some(a), Some(b)) => (a * a + b * b).sqrt(),
        (Some(a), None) | (None, Some(a)) => a * std::f64::consts::SQRT_2,
        (None, None) => return Verdict::NoRepeats,
    };
    if (ratio - 1.0).abs() > 2.0 * combined {
        Verdict::BeyondNoise
    } else {
        Verdict::WithinNoise
    }
}

pub fn compare(columns: &[Column]) -> Comparison {
    let single = columns.iter().all(|c| c.passes.len() == 1);
    let mut rows = Vec::new();
    let mut warnings = Vec::new();
    for (label, idx) in align(columns) {
        warnings.extend(limited_apart(columns, &label, &idx));
        for m in Metric::ALL {
            let values: Vec<Option<f64>> = columns
                .iter()
                .zip(&idx)
                .map(|(c, i)| i.and_then(|i| m.of(&c.passes[i].1)))
                .collect();
            if values.iter().all(Option::is_none) {
                continue;
            }
            let reference = values[0];
            let (ref_cv, _) = noise(&columns[0], &label, single, m);
            let cells = columns
                .iter()
                .zip(&values)
                .enumerate()
                .map(|(j, (c, v))| {
                    let (cv, n) = noise(c, &label, single, m);
                    let ratio = match (v, reference) {
                        (Some(v), Some(r)) if r > 0.0 => Some(v / r),
                        _ => None,
                    };
                    let verdict = if j == 0 {
                        Verdict::Reference
                    } else {
                        ratio.map_or(Verdict::NoRepeats, |r| judge(r, ref_cv, cv))
                    };
                    Cell {
                        id: c.id,
                        value: *v,
                        ratio,
                        noise_cv: cv,
                        repeats: n,
                        verdict,
                    }
                })
                .collect();
            rows.push(Row {
                pass: label.clone(),
                metric: m.name(),
                cells,
            });
        }
    }
    Comparison {
        titles: columns.iter().map(|c| c.title.clone()).collect(),
        rows,
        warnings,
    }
}

/// A warning for each column whose pass `label` was limited by something else than the
/// reference's: the storage is then not what the ratio compares.
fn limited_apart(columns: &[Column], label: &str, idx: &[Option<usize>]) -> Vec<String> {
    let of = |j: usize| idx[j].and_then(|i| columns[j].limits.get(i).copied().flatten());
    let Some(first) = of(0) else {
        return Vec::new();
    };
    (1..columns.len())
        .filter_map(|j| {
            let other = of(j).filter(|v| *v != first && *v != Limited::NotDetermined)?;
            (first != Limited::NotDetermined).then(|| {
                format!(
                    "{label}: {} was limited by {}, {} by {}: not a comparison of storage",
                    columns[0].title,
                    first.label(),
                    columns[j].title,
                    other.label()
                )
            })
        })
        .collect()
}

impl Comparison {
    pub fn grid(&self) -> Grid {
        let mut header = vec!["pass".to_string(), "metric".to_string()];
        header.extend(self.titles.iter().cloned());
        let mut g = Grid::new(header);
        g.right = (2..2 + self.titles.len()).collect();
        let mut last_pass = "";
        for r in &self.rows {
            let metric = Metric::ALL
                .into_iter()
                .find(|m| m.name() == r.metric)
                .expect("rows name known metrics");
            let mut row = vec![
                if r.pass == last_pass {
                    String::new()
                } else {
                    r.pass.clone()
                },
                r.metric.to_string(),
            ];
            last_pass = &r.pass;
            for c in &r.cells {
                let mut s = c.value.map_or("-".into(), |v| metric.format(v));
                if c.verdict != Verdict::Reference {
                    if let Some(ratio) = c.ratio {
                        s.push_str(&format!(" ({ratio:.2})"));
                    }
                }
                if let Some(cv) = c.noise_cv {
                    s.push_str(&format!(" ±{:.0}%", cv * 100.0));
                }
                let v = c.verdict.text();
                if !v.is_empty() {
                    s.push_str(&format!(" {v}"));
                }
                row.push(s);
            }
            g.push(row);
        }
        g
    }

    /// The note under the table: what the numbers in parentheses and after ± mean.
    pub fn legend(&self) -> String {
        let repeated = self
            .rows
            .iter()
            .flat_map(|r| &r.cells)
            .any(|c| c.noise_cv.is_some());
        let mut s = String::from("(ratio to the first run; latency: lower is better)");
        for w in &self.warnings {
            s.push_str(&format!("\nWarning: {w}"));
        }
        if repeated {
            s.push_str(
                "\n±: run-to-run spread (coefficient of variation) over the saved repeats of \
                 that workload; beyond noise: the difference exceeds twice the combined spread",
            );
        } else {
            s.push_str(
                "\nNo workload here was saved more than once, so run-to-run noise is unknown: \
                 repeat a run to judge a difference",
            );
        }
        s
    }
}

/// One figure of a baseline check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckRow {
    pub pass: String,
    pub metric: &'static str,
    pub baseline: f64,
    pub now: f64,
    /// now / baseline - 1.
    pub change: f64,
    pub failed: bool,
}

/// The baseline check: IOPS and throughput may not fall, mean and p99 latency may not rise,
/// by more than `tolerance` (0.10 = 10%). Passes are matched by label.
pub fn check(
    baseline: &[(String, Figures)],
    now: &[(String, Figures)],
    tolerance: f64,
) -> Vec<CheckRow> {
    const CHECKED: [Metric; 8] = [
        Metric::Iops,
        Metric::ReadIops,
        Metric::WriteIops,
        Metric::Bps,
        Metric::ReadBps,
        Metric::WriteBps,
        Metric::LatMean,
        Metric::LatP99,
    ];
    let mut rows = Vec::new();
    for (label, b) in baseline {
        let Some((_, n)) = now.iter().find(|(l, _)| l == label) else {
            continue;
        };
        for m in CHECKED {
            let (Some(bv), Some(nv)) = (m.of(b), m.of(n)) else {
                continue;
            };
            if bv <= 0.0 {
                continue;
            }
            let change = nv / bv - 1.0;
            let failed = if m.lower_is_better() {
                change > tolerance
            } else {
                change < -tolerance
            };
            rows.push(CheckRow {
                pass: label.clone(),
                metric: m.name(),
                baseline: bv,
                now: nv,
                change,
                failed,
            });
        }
    }
    rows
}

pub fn check_grid(rows: &[CheckRow]) -> Grid {
    let mut g = Grid::new(
        ["pass", "metric", "baseline", "now", "change", ""]
            .map(String::from)
            .to_vec(),
    );
    g.right = vec![2, 3, 4];
    for r in rows {
        let m = Metric::ALL
            .into_iter()
            .find(|m| m.name() == r.metric)
            .expect("rows name known metrics");
        g.push(vec![
            r.pass.clone(),
            r.metric.to_string(),
            m.format(r.baseline),
            m.format(r.now),
            format!("{:+.1}%", r.change * 100.0),
            if r.failed { "FAIL".into() } else { "ok".into() },
        ]);
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ListedPass;

    fn figs(iops: f64, p99: Option<u64>) -> Figures {
        Figures {
            iops,
            read_iops: iops,
            bps: iops * 4096.0,
            read_bps: iops * 4096.0,
            lat_p99_ns: p99,
            lat_mean_ns: p99.map(|v| v as f64 / 2.0),
            ..Default::default()
        }
    }

    fn listed(id: i64, iops: f64) -> Listed {
        Listed {
            id,
            started_unix_ns: 0,
            kind: "run".into(),
            name: "run".into(),
            target: "t".into(),
            hostname: "h".into(),
            partial: false,
            workload_key: "k".into(),
            tags: vec![],
            passes: vec![ListedPass {
                label: "RND4K Q1T1 read".into(),
                figures: figs(iops, None),
            }],
        }
    }

    fn column(id: i64, iops: f64, repeats: &[f64]) -> Column {
        Column {
            id,
            title: format!("#{id}"),
            passes: vec![("RND4K Q1T1 read".into(), figs(iops, None))],
            limits: vec![None],
            repeats: repeats
                .iter()
                .enumerate()
                .map(|(i, &v)| listed(i as i64, v))
                .collect(),
        }
    }

    #[test]
    fn differences_are_judged_against_the_repeats_spread() {
        // Reference repeats spread about 1%: 20% lower is beyond noise, 1% is within.
        let base = column(1, 1000.0, &[990.0, 1000.0, 1010.0]);
        let c = compare(&[
            base,
            column(2, 800.0, &[800.0, 805.0, 795.0]),
            column(3, 990.0, &[]),
        ]);
        let iops = c.rows.iter().find(|r| r.metric == "IOPS").unwrap();
        assert_eq!(iops.cells[0].verdict, Verdict::Reference);
        assert_eq!(iops.cells[1].verdict, Verdict::BeyondNoise);
        assert!((iops.cells[1].ratio.unwrap() - 0.8).abs() < 1e-9);
        assert_eq!(iops.cells[2].verdict, Verdict::WithinNoise);
        // No latency in IOPS mode: no latency rows.
        assert!(c.rows.iter().all(|r| !r.metric.starts_with("latency")));
        let text = c.grid().text();
        assert!(text.contains("800 (0.80) ±1% beyond noise"), "{text}");
        // Without repeats, nothing is judged.
        let c = compare(&[column(1, 1000.0, &[]), column(2, 500.0, &[])]);
        assert_eq!(c.rows[0].cells[1].verdict, Verdict::NoRepeats);
        assert!(c.legend().contains("noise is unknown"));
    }

    #[test]
    fn a_check_fails_on_a_fall_or_a_rise_beyond_tolerance() {
        let base = vec![("p".to_string(), figs(1000.0, Some(100_000)))];
        let ok = check(&base, &[("p".into(), figs(950.0, Some(105_000)))], 0.10);
        assert!(!ok.is_empty() && ok.iter().all(|r| !r.failed), "{ok:?}");
        let slow = check(&base, &[("p".into(), figs(850.0, Some(100_000)))], 0.10);
        assert!(slow.iter().any(|r| r.failed && r.metric == "IOPS"));
        let laggy = check(&base, &[("p".into(), figs(1000.0, Some(130_000)))], 0.10);
        let failed: Vec<_> = laggy
            .iter()
            .filter(|r| r.failed)
            .map(|r| r.metric)
            .collect();
        assert_eq!(failed, vec!["latency mean", "latency p99"]);
        // Faster is never a failure.
        let fast = check(&base, &[("p".into(), figs(5000.0, Some(10_000)))], 0.10);
        assert!(fast.iter().all(|r| !r.failed));
    }
}
