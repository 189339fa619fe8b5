//! The compact table of a profile run (one row per pass, like CrystalDiskMark's), and the
//! throughput sparkline shared with the run report.

use crate::result::profile::{Measure, ProfileResult};
use crate::result::RunResult;
use crate::units::format_size_human;
use std::collections::BTreeMap;
use std::fmt::Write;

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// One character per value, scaled from zero to the largest value (not from the smallest, so
/// that a steady run looks steady rather than noisy). At most `width` characters: values are
/// averaged into that many groups.
pub fn sparkline(values: &[f64], width: usize) -> String {
    if values.is_empty() || width == 0 {
        return String::new();
    }
    let groups = values.len().div_ceil(width);
    let avg: Vec<f64> = values
        .chunks(groups)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    let max = avg.iter().cloned().fold(0.0, f64::max);
    avg.iter()
        .map(|&v| {
            if max <= 0.0 {
                BARS[0]
            } else {
                BARS[((v / max) * 7.0).round().clamp(0.0, 7.0) as usize]
            }
        })
        .collect()
}

/// Bytes per second of each full interval of a run.
pub fn throughput_series(r: &RunResult) -> Vec<f64> {
    let per_sec = 1e9 / r.time_series.interval_ns.max(1) as f64;
    r.time_series
        .full()
        .map(|s| s.read.bytes.saturating_add(s.write.bytes) as f64 * per_sec)
        .collect()
}

/// The unit a run's throughput is shown in: MB/s, or operations per second where no bytes
/// moved (file operations).
pub fn rate_unit(r: &RunResult) -> &'static str {
    if r.total.all.bytes == 0 && r.total.all.ios > 0 {
        "ops/s"
    } else {
        "MB/s"
    }
}

/// A throughput in [`rate_unit`]'s unit, without the unit.
pub fn rate_value(v: f64, unit: &str) -> String {
    if unit == "MB/s" {
        format!("{:.1}", v / 1e6)
    } else {
        crate::units::format_count(v)
    }
}

/// The cache profile's answer: the level from the page cache, the level from storage, their
/// ratio, and the sizes between which the working set outgrew memory.
fn cache_levels(p: &ProfileResult) -> Option<String> {
    if p.profile != "cache" {
        return None;
    }
    let [_, cached, whole] = p.passes.as_slice() else {
        return None;
    };
    let (c, s) = (cached.result.total.all.iops, whole.result.total.all.iops);
    if cached.result.partial || whole.result.partial || s <= 0.0 {
        return None;
    }
    let span = |r: &RunResult| {
        r.targets
            .first()
            .map_or(0, |t| t.working_set_end - t.working_set_start)
    };
    let mem = p.params.memory_bytes;
    let (small, large) = (span(&cached.result), span(&whole.result));
    if large <= mem {
        return Some(format!(
            "The whole file ({}) fits in this machine's memory ({}) too: both passes may read the cache, so their ratio ({:.1}x) is not the cache's. Give --size larger than memory.",
            format_size_human(large),
            format_size_human(mem),
            c / s
        ));
    }
    Some(format!(
        "From the cache {} IOPS, from storage {} IOPS: the cache gives {:.1}x. The working set outgrew this machine's memory ({}) between {} (fits) and {} (does not).",
        crate::units::format_count(c),
        crate::units::format_count(s),
        c / s,
        format_size_human(mem),
        format_size_human(small),
        format_size_human(large),
    ))
}

/// What a fall from a burst (or the cache) to a baseline comes to, in a line.
pub fn fall_line(f: &crate::result::Fall, unit: &str) -> String {
    format!(
        "{} for {:.1}s at {} {unit}, then a baseline of {} {unit} ({:.1}x lower)",
        f.high.name(),
        f.high_ns as f64 / 1e9,
        rate_value(f.high_bytes_per_sec, unit),
        rate_value(f.baseline_bytes_per_sec, unit),
        f.ratio
    )
}

/// One row per phase: when, what level, how it spread, what latency; `ops` heads the column
/// of operations per second ("IOPS", or "files/s" for a workload).
pub fn phase_grid(phases: &[crate::result::Phase], unit: &str, ops: &str, latency: bool) -> Grid {
    let value = |v: f64| rate_value(v, unit);
    let lat = |v: Option<u64>| v.map_or("-".into(), |ns| crate::units::format_ns(ns as f64));
    let mut header: Vec<String> = ["phase", "from", "to", unit, "p5", "p95", ops]
        .map(String::from)
        .to_vec();
    if latency {
        header.extend(["lat mean".into(), "lat p99*".into()]);
    }
    let mut g = Grid::new(header);
    g.right = (1..9).collect();
    for p in phases {
        let mut row = vec![
            p.label.name().into(),
            format!("{:.1}s", p.start_ns as f64 / 1e9),
            format!("{:.1}s", p.end_ns as f64 / 1e9),
            value(p.bytes_per_sec_mean),
            value(p.bytes_per_sec_p5),
            value(p.bytes_per_sec_p95),
            crate::units::format_count(p.iops_mean),
        ];
        if latency {
            row.extend([lat(p.latency_mean_ns), lat(p.latency_p99_ns)]);
        }
        g.push(row);
    }
    g
}

fn mbs(bytes_per_sec: f64) -> String {
    format!("{:.1} MB/s", bytes_per_sec / 1e6)
}

fn iops(v: f64) -> String {
    format!("{} IOPS", crate::units::format_count(v))
}

fn us(ns: u64) -> String {
    let v = ns as f64 / 1e3;
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The figure a pass is about.
fn headline(measure: Measure, r: &RunResult) -> String {
    let all = &r.total.all;
    match measure {
        Measure::Throughput => mbs(all.bytes_per_sec),
        Measure::Iops => format!("{}  {}", iops(all.iops), mbs(all.bytes_per_sec)),
        // Queued to completed: what an application waits. Completion latency alone leaves out
        // I/Os that finish inside the submission call (O_DIRECT writes on some file systems).
        Measure::Latency => match all.latency_total.as_ref().or(all.latency.as_ref()) {
            Some(l) => {
                let p = |q: f64| l.at(q).map_or("-".into(), us);
                format!(
                    "p50 {} / p99 {} / p99.9 {} us  ({})",
                    p(50.0),
                    p(99.0),
                    p(99.9),
                    iops(all.iops)
                )
            }
            None => "no latency measured".into(),
        },
    }
}

pub fn profile_text(p: &ProfileResult) -> String {
    let mut o = String::new();
    let first = p.passes.first().map(|x| &x.result);
    let where_ = first
        .and_then(|r| r.targets.first())
        .map(|t| {
            let f = &t.facts;
            let fs = f.fs_type.as_deref().unwrap_or("?");
            let dev = f
                .block_device
                .as_deref()
                .map_or(String::new(), |d| format!(" on {d}"));
            format!("{fs}{dev}, O_DIRECT {}", f.direct_io)
        })
        .unwrap_or_default();
    let _ = writeln!(
        o,
        "iogauge {}: {} test file {} ({where_})",
        p.profile,
        format_size_human(p.size_bytes),
        p.target
    );
    if let Some(r) = first {
        let s = &r.header.system;
        let _ = writeln!(o, "{}", s.host_line());
    }
    let label_w = p
        .passes
        .iter()
        .map(|x| x.label.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let rows: Vec<(String, String, &str, String)> = p
        .passes
        .iter()
        .map(|x| {
            let r = &x.result;
            let mut fig = headline(x.measure, r);
            if r.partial {
                fig.push_str(" (partial)");
            }
            let series = throughput_series(r);
            let spark = if series.len() > 1 {
                sparkline(&series, 30)
            } else {
                "-".into()
            };
            let secs = format!("{:.1}s", r.measured_ns as f64 / 1e9);
            let limit = r.limit.as_ref().map_or("-", |l| l.verdict.tag());
            (x.label.clone(), fig, limit, format!("{secs:>7}  {spark}"))
        })
        .collect();
    let fig_w = rows
        .iter()
        .map(|r| r.1.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "{:<label_w$}  {:<fig_w$}  {:<10}  {:>7}  throughput over time",
        "test", "result", "limited by", "time"
    );
    let _ = writeln!(o, "{}", "-".repeat(label_w + fig_w + 53));
    for (label, fig, limit, spark) in &rows {
        let _ = writeln!(o, "{label:<label_w$}  {fig:<fig_w$}  {limit:<10}  {spark}");
    }
    let mut tags: Vec<crate::result::limit::Verdict> = p
        .passes
        .iter()
        .filter_map(|x| x.result.limit.as_ref().map(|l| l.verdict))
        .collect();
    tags.dedup();
    tags.sort_by_key(|v| v.tag());
    tags.dedup();
    if !tags.is_empty() {
        let said: Vec<String> = tags
            .iter()
            .map(|v| format!("{} = {}", v.tag(), v.label()))
            .collect();
        let _ = writeln!(
            o,
            "\nlimited by: {} (each pass's evidence is in its JSON's limit)",
            said.join("; ")
        );
    }
    for x in &p.passes {
        if let Some(f) = crate::result::fall(&x.result.phases) {
            let _ = writeln!(o, "\n{}: {}", x.label, fall_line(&f, rate_unit(&x.result)));
        }
    }
    if let Some(line) = cache_levels(p) {
        let _ = writeln!(o, "\n{line}");
    }
    // The same warning often applies to several passes: say it once, naming them.
    let mut warned: BTreeMap<&str, (String, String, Vec<usize>)> = BTreeMap::new();
    for (i, x) in p.passes.iter().enumerate() {
        for w in &x.result.warnings {
            warned
                .entry(w.code.as_str())
                .or_insert_with(|| (w.message.clone(), w.fix.clone(), Vec::new()))
                .2
                .push(i + 1);
        }
    }
    for (code, (msg, fix, passes)) in &warned {
        let which: Vec<String> = passes.iter().map(|n| n.to_string()).collect();
        let _ = writeln!(
            o,
            "\nWarning ({code}, pass {}): {msg}\n  fix: {fix}",
            which.join(", ")
        );
    }
    if p.partial {
        let _ = writeln!(
            o,
            "\n*** PARTIAL: {} ***",
            p.stop_message
                .as_deref()
                .unwrap_or("the profile did not complete")
        );
    }
    let _ = writeln!(
        o,
        "\nEach pass on its own: iogauge explain {}; full results: --output json",
        p.profile
    );
    o
}

/// A table of text cells, rendered aligned for terminals or as Markdown for tickets.
/// The first row is the header.
#[derive(Debug, Default, Clone)]
pub struct Grid {
    pub rows: Vec<Vec<String>>,
    /// Columns (by index) aligned right: figures.
    pub right: Vec<usize>,
}

impl Grid {
    pub fn new(header: Vec<String>) -> Grid {
        Grid {
            rows: vec![header],
            right: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    fn widths(&self) -> Vec<usize> {
        let n = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        (0..n)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    pub fn text(&self) -> String {
        let w = self.widths();
        let total = w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
        // Written straight into one buffer: listings run to 10,000 rows.
        let mut o = String::with_capacity((total + 1) * (self.rows.len() + 1));
        for (i, row) in self.rows.iter().enumerate() {
            let start = o.len();
            for (c, &width) in w.iter().enumerate() {
                if c > 0 {
                    o.push_str("  ");
                }
                let cell = row.get(c).map(String::as_str).unwrap_or("");
                let pad = width.saturating_sub(cell.chars().count());
                if self.right.contains(&c) {
                    o.extend(std::iter::repeat_n(' ', pad));
                    o.push_str(cell);
                } else {
                    o.push_str(cell);
                    o.extend(std::iter::repeat_n(' ', pad));
                }
            }
            let end = o[start..].trim_end().len() + start;
            o.truncate(end);
            o.push('\n');
            if i == 0 {
                o.extend(std::iter::repeat_n('-', total));
                o.push('\n');
            }
        }
        o
    }

    pub fn markdown(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
        let n = self.widths().len();
        let mut o = String::new();
        for (i, row) in self.rows.iter().enumerate() {
            let cells: Vec<String> = (0..n)
                .map(|c| esc(row.get(c).map(String::as_str).unwrap_or("")))
                .collect();
            let _ = writeln!(o, "| {} |", cells.join(" | "));
            if i == 0 {
                let rule: Vec<&str> = (0..n)
                    .map(|c| {
                        if self.right.contains(&c) {
                            "---:"
                        } else {
                            "---"
                        }
                    })
                    .collect();
                let _ = writeln!(o, "| {} |", rule.join(" | "));
            }
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_align_and_escape() {
        let mut g = Grid::new(vec!["pass".into(), "IOPS".into()]);
        g.right = vec![1];
        g.push(vec!["a|b".into(), "12.3K".into()]);
        g.push(vec!["longer name".into(), "7".into()]);
        let t = g.text();
        assert!(t.contains("longer name      7\n"), "{t}");
        assert!(t.contains("a|b          12.3K\n"), "{t}");
        let m = g.markdown();
        assert!(m.contains("| --- | ---: |"), "{m}");
        assert!(m.contains("| a\\|b | 12.3K |"), "{m}");
    }

    #[test]
    fn sparkline_scales_from_zero_and_fits_the_width() {
        assert_eq!(sparkline(&[0.0, 50.0, 100.0], 10), "▁▅█");
        assert_eq!(sparkline(&[100.0; 4], 10), "████");
        assert_eq!(sparkline(&[1.0; 100], 10).chars().count(), 10);
        assert_eq!(sparkline(&[], 10), "");
    }
}
