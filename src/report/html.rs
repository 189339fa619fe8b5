//! The report of saved results: one self-contained HTML file (inline CSS and SVG charts, no
//! scripts, no network requests), the same tables as Markdown, and the charts as PNG files.
//! Several results are overlaid: one colour per result in every chart.

use super::charts::{self, Chart, Kind, Line, Unit};
use super::markup::{esc, figure, grid_html};
use super::table::Grid;
use crate::dates::format_utc;
use crate::error::{Error, Result};
use crate::report::compare::{self, Column};
use crate::report::workload::compare::{self as workload_compare, WorkloadComparison};
use crate::report::workload::html::{self as workload_html, Shown};
use crate::result::fs::{FsResult, Group};
use crate::result::sweep::{SweepResult, Test};
use crate::result::{RunResult, Sample};
use crate::stats::LatencyHistogram;
use crate::store::figures::{format_count, format_ns, Figures};
use crate::store::record::Record;
use crate::store::Listed;
use crate::units::format_size_human;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// A saved result, loaded for the report.
pub struct Loaded {
    pub listed: Listed,
    pub record: Record,
    pub column: Column,
}

/// One workload (pass label) and, per loaded result, its run of that workload.
struct Section<'a> {
    label: String,
    runs: Vec<(usize, &'a RunResult)>,
}

/// One run's lines in the charts over time.
struct OverTime {
    iops: Line,
    mbps: Line,
    /// Mean and p99, where the intervals measured latency.
    latency: Vec<Line>,
}

pub struct Report<'a> {
    loaded: &'a [Loaded],
    sections: Vec<Section<'a>>,
}

impl<'a> Report<'a> {
    pub fn new(loaded: &'a [Loaded]) -> Report<'a> {
        // Results of one pass each are shown together whatever their labels (as compare
        // does); otherwise passes with the same label are.
        let single = loaded.iter().all(|l| l.record.passes().len() == 1);
        let mut sections: Vec<Section<'a>> = Vec::new();
        for (i, l) in loaded.iter().enumerate() {
            let passes = match &l.record {
                Record::Run(r) => vec![(crate::store::record::describe(&r.job), &**r)],
                Record::Profile(p) => p
                    .passes
                    .iter()
                    .map(|x| (x.label.clone(), &x.result))
                    .collect(),
                // The suite, sweeps and workloads have sections of their own, not passes.
                Record::Fs(_) | Record::Sweep(_) | Record::Workload(_) => Vec::new(),
            };
            for (label, r) in passes {
                let key = if single { String::new() } else { label.clone() };
                match sections.iter_mut().find(|s| s.label == key) {
                    Some(s) => s.runs.push((i, r)),
                    None => sections.push(Section {
                        label: key,
                        runs: vec![(i, r)],
                    }),
                }
            }
        }
        if single {
            if let Some(s) = sections.first_mut() {
                let mut labels: Vec<String> = loaded
                    .iter()
                    .filter_map(|l| l.record.passes().first().map(|p| p.label.clone()))
                    .collect();
                labels.dedup();
                s.label = labels.join(" vs ");
            }
        }
        Report { loaded, sections }
    }

    fn name(&self, i: usize) -> String {
        let l = &self.loaded[i];
        format!("#{} {}", l.listed.id, l.record.name())
    }

    /// Every result's every pass with its figures.
    fn summary(&self) -> Grid {
        let mut g = Grid::new(
            [
                "run",
                "pass",
                "mode",
                "IOPS",
                "MB/s",
                "lat mean",
                "p50",
                "p99",
                "p99.9",
                "measured",
                "limited by",
            ]
            .map(String::from)
            .to_vec(),
        );
        g.right = (3..10).collect();
        for (i, l) in self.loaded.iter().enumerate() {
            for p in l.record.passes() {
                let f = Figures::of(p.result);
                let ns = |v: Option<u64>| v.map_or("-".into(), |v| format_ns(v as f64));
                let mut pass = p.label.clone();
                if p.result.partial {
                    pass.push_str(" (partial)");
                }
                g.push(vec![
                    self.name(i),
                    pass,
                    if p.result.job.latency {
                        "latency".into()
                    } else {
                        "IOPS".into()
                    },
                    format_count(f.iops),
                    format!("{:.1}", f.bps / 1e6),
                    f.lat_mean_ns.map_or("-".into(), format_ns),
                    ns(f.lat_p50_ns),
                    ns(f.lat_p99_ns),
                    ns(f.lat_p999_ns),
                    format!("{:.1} s", p.result.measured_ns as f64 / 1e9),
                    p.result
                        .limit
                        .as_ref()
                        .map_or("-", |l| l.verdict.tag())
                        .into(),
                ]);
            }
        }
        g
    }

    fn comparison(&self) -> Option<compare::Comparison> {
        let workloads: Vec<&Loaded> = self
            .loaded
            .iter()
            .filter(|l| {
                !matches!(
                    l.record,
                    Record::Fs(_) | Record::Sweep(_) | Record::Workload(_)
                )
            })
            .collect();
        (workloads.len() > 1).then(|| {
            let cols: Vec<Column> = workloads
                .iter()
                .map(|l| Column {
                    id: l.column.id,
                    title: l.column.title.clone(),
                    passes: l.column.passes.clone(),
                    limits: l.column.limits.clone(),
                    repeats: l.column.repeats.clone(),
                })
                .collect();
            compare::compare(&cols)
        })
    }

    /// The charts of one section: IOPS, throughput and latency over time, then the latency
    /// distribution (by percentile, histogram) where the runs measured latency.
    fn charts(&self, n: usize, s: &Section) -> Vec<Chart> {
        let slug = format!("s{}", n + 1);
        let (mut iops, mut mbps, mut lat) = (Vec::new(), Vec::new(), Vec::new());
        let mut latencies = Vec::new();
        for &(i, r) in &s.runs {
            let over_time = self.over_time(i, r);
            iops.push(over_time.iops);
            mbps.push(over_time.mbps);
            lat.extend(over_time.latency);
            if let Some(h) = r
                .total
                .all
                .latency_histogram
                .as_deref()
                .and_then(|t| LatencyHistogram::from_base64(t).ok())
            {
                latencies.push((i, h));
            }
        }
        // One run's phases shade its charts; with several runs overlaid, whose would they be?
        let bands = match s.runs.as_slice() {
            [(_, r)] => charts::phase_bands(&r.phases),
            _ => Vec::new(),
        };
        let time = |id: &str, title: &str, y: &str, unit: Unit, lines: Vec<Line>| Chart {
            id: format!("{slug}-{id}"),
            title: title.to_string(),
            x_desc: "seconds into the measured window".into(),
            y_desc: y.to_string(),
            kind: Kind::Time,
            y_unit: unit,
            lines,
            bands: bands.clone(),
        };
        let mut out = vec![
            time("iops", "IOPS over time", "IOPS", Unit::Count, iops),
            time(
                "bandwidth",
                "Throughput over time",
                "MB/s",
                Unit::MegaBytes,
                mbps,
            ),
        ];
        if !lat.is_empty() {
            out.push(time(
                "latency",
                "Completion latency over time (mean, p99)",
                "latency",
                Unit::Nanos,
                lat,
            ));
        }
        if !latencies.is_empty() {
            out.push(self.percentile_chart(&slug, &latencies));
            out.push(self.histogram_chart(&slug, &latencies));
        }
        out
    }

    /// Run `i`'s lines over time: each interval's average, drawn flat over it
    /// ([`charts::intervals`]).
    fn over_time(&self, i: usize, r: &RunResult) -> OverTime {
        let name = self.name(i);
        let line = |suffix: &str, secondary: bool, points: Vec<(f64, f64)>| Line {
            name: format!("{name}{suffix}"),
            color: i,
            secondary,
            points,
            widths: Vec::new(),
        };
        let samples = &r.time_series.samples;
        let steps = |f: &dyn Fn(&Sample) -> Option<f64>| charts::intervals(samples, f);
        let rate = charts::per_second;
        let iops = steps(&|st| Some(rate(st, st.read.ios.saturating_add(st.write.ios))));
        let mbps = steps(&|st| Some(rate(st, st.read.bytes.saturating_add(st.write.bytes)) / 1e6));
        // Latency per interval: the I/O-weighted mean of both directions, and the higher of
        // their p99s.
        let mean = steps(&|st| {
            let (sum, n) = [&st.read, &st.write].iter().fold((0.0, 0u64), |(s, n), d| {
                match d.latency_mean_ns {
                    Some(m) => (s + m as f64 * d.ios as f64, n.saturating_add(d.ios)),
                    None => (s, n),
                }
            });
            (n > 0).then(|| sum / n as f64)
        });
        let p99 = steps(&|st| {
            st.read
                .latency_p99_ns
                .max(st.write.latency_p99_ns)
                .map(|v| v as f64)
        });
        let latency = if mean.is_empty() {
            Vec::new()
        } else {
            vec![line(" mean", false, mean), line(" p99", true, p99)]
        };
        OverTime {
            iops: line("", false, iops),
            mbps: line("", false, mbps),
            latency,
        }
    }

    /// Completion latency by percentile, with as many nines as the I/O count supports:
    /// beyond 1/count a percentile is the max.
    fn percentile_chart(&self, slug: &str, latencies: &[(usize, LatencyHistogram)]) -> Chart {
        let max_count = latencies.iter().map(|(_, h)| h.count()).max().unwrap_or(0);
        let max_nines = (max_count as f64).log10().floor().clamp(2.0, 6.0);
        Chart {
            id: format!("{slug}-percentiles"),
            title: "Completion latency by percentile".into(),
            x_desc: "percentile".into(),
            y_desc: "latency".into(),
            kind: Kind::Nines { max_nines },
            y_unit: Unit::Nanos,
            lines: latencies
                .iter()
                .map(|(i, h)| Line {
                    name: self.name(*i),
                    color: *i,
                    secondary: false,
                    points: h
                        .nines_curve(max_nines, 120)
                        .into_iter()
                        .map(|(x, v)| (x, v as f64))
                        .collect(),
                    widths: Vec::new(),
                })
                .collect(),
            bands: Vec::new(),
        }
    }

    /// Completion latency as a histogram: each run's share of I/Os in each of 48 bins.
    fn histogram_chart(&self, slug: &str, latencies: &[(usize, LatencyHistogram)]) -> Chart {
        let lines = latencies
            .iter()
            .map(|(i, h)| {
                let total = h.count().max(1) as f64;
                let bins = h.log_bins(48);
                Line {
                    name: self.name(*i),
                    color: *i,
                    secondary: false,
                    points: bins
                        .iter()
                        .map(|b| (b.0 as f64, 100.0 * b.2 as f64 / total))
                        .collect(),
                    widths: bins.iter().map(|b| (b.1 - b.0) as f64).collect(),
                }
            })
            .collect();
        Chart {
            id: format!("{slug}-histogram"),
            title: "Completion latency histogram".into(),
            x_desc: "latency".into(),
            y_desc: "share of I/Os".into(),
            kind: Kind::Histogram,
            y_unit: Unit::Percent,
            lines,
            bands: Vec::new(),
        }
    }

    /// The suite's bar charts: one per group of tests, the times relative to the reference.
    fn fs_charts(&self, i: usize, r: &FsResult) -> Vec<Chart> {
        let reference = crate::report::fs::reference_label(r);
        let mut out = Vec::new();
        for group in [Group::Metadata, Group::PageIo] {
            let tests: Vec<&crate::result::fs::TestResult> =
                r.tests.iter().filter(|t| t.group == group).collect();
            if tests.is_empty() {
                continue;
            }
            let lines = r
                .filesystems
                .iter()
                .enumerate()
                .map(|(f, fs)| Line {
                    name: fs.label.clone(),
                    color: f,
                    secondary: false,
                    points: tests
                        .iter()
                        .enumerate()
                        .filter_map(|(g, t)| {
                            let ratio = t.cells.get(f)?.summary.as_ref()?.ratio?;
                            Some((g as f64, ratio))
                        })
                        .collect(),
                    widths: Vec::new(),
                })
                .collect();
            out.push(Chart {
                id: format!(
                    "fs{}-{}",
                    self.loaded[i].listed.id,
                    if group == Group::Metadata {
                        "file"
                    } else {
                        "rdwr"
                    }
                ),
                title: format!(
                    "{} (time, {reference} = 1.00; shorter is faster)",
                    group.title()
                ),
                x_desc: format!(
                    "fastest of {} repetitions, relative to {reference}",
                    r.params.repeat
                ),
                y_desc: String::new(),
                kind: Kind::Bars {
                    groups: tests.iter().map(|t| t.name.clone()).collect(),
                },
                y_unit: Unit::Ratio,
                lines,
                bands: Vec::new(),
            });
        }
        out
    }

    fn fs_section(&self, i: usize, r: &FsResult) -> String {
        let mut o = format!(
            "<section class=\"fs\">\n<h2>{}: file-system suite{}</h2>\n",
            esc(&self.name(i)),
            if r.partial { " (partial)" } else { "" }
        );
        for c in self.fs_charts(i, r) {
            o.push_str(&figure(&c));
        }
        for (title, g) in crate::report::fs::grids(r) {
            let _ = writeln!(o, "<p>{}</p>", esc(&title));
            o.push_str(&grid_html(&g, "fs"));
        }
        o.push_str("</section>\n");
        o
    }

    /// The sweeps loaded, with their index in `loaded`.
    fn sweeps(&self) -> Vec<(usize, &'a SweepResult)> {
        self.loaded
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match &l.record {
                Record::Sweep(s) => Some((i, &**s)),
                _ => None,
            })
            .collect()
    }

    /// One chart per test: throughput over file size, a line per record size (the seed's
    /// figures); a second sweep overlaid in thinner lines of the same colours.
    fn sweep_charts(&self) -> Vec<Chart> {
        let sweeps = self.sweeps();
        let several = sweeps.len() > 1;
        // Every test any of them ran, in iozone's order.
        Test::ALL
            .into_iter()
            .filter(|t| sweeps.iter().any(|(_, s)| s.params.tests.contains(t)))
            .map(|test| {
                let mut lines = Vec::new();
                for (n, (i, s)) in sweeps.iter().enumerate() {
                    for (ri, &rec) in s.params.record_sizes.iter().enumerate() {
                        let points: Vec<(f64, f64)> = s
                            .of(test)
                            .filter(|c| c.record_size == rec)
                            .filter_map(|c| {
                                Some(((c.file_size as f64).log2(), c.bytes_per_sec()? / 1e6))
                            })
                            .collect();
                        if points.is_empty() {
                            continue;
                        }
                        let size = crate::units::format_size(rec);
                        lines.push(Line {
                            name: if several {
                                format!("{} {size}", self.name(*i))
                            } else {
                                size
                            },
                            color: ri,
                            secondary: n > 0,
                            points,
                            widths: Vec::new(),
                        });
                    }
                }
                Chart {
                    id: format!("sweep-{}", test.name()),
                    title: format!(
                        "{}: throughput by file size, a line per record size",
                        test.name()
                    ),
                    x_desc: "file size".into(),
                    y_desc: "MB/s".into(),
                    kind: Kind::Sizes,
                    y_unit: Unit::MegaBytes,
                    lines,
                    bands: Vec::new(),
                }
            })
            .collect()
    }

    fn sweep_section(&self) -> String {
        let sweeps = self.sweeps();
        if sweeps.is_empty() {
            return String::new();
        }
        let mut o = String::from("<section class=\"sweep\">\n<h2>Sweeps</h2>\n");
        for c in self.sweep_charts() {
            o.push_str(&figure(&c));
        }
        for (i, s) in sweeps {
            let _ = writeln!(
                o,
                "<h3>{}{}</h3>",
                esc(&self.name(i)),
                if s.partial { " (partial)" } else { "" }
            );
            for &test in &s.params.tests {
                let _ = writeln!(o, "<p>{} (MB/s): {}</p>", test.name(), esc(test.about()));
                o.push_str(&grid_html(&crate::report::sweep::matrix(s, test), "sweep"));
                let knees: Vec<String> = s
                    .knees
                    .iter()
                    .filter(|k| k.test == test)
                    .map(crate::report::sweep::knee_line)
                    .collect();
                if !knees.is_empty() {
                    let _ = writeln!(o, "<p class=\"note\">{}</p>", esc(&knees.join("; ")));
                }
            }
        }
        o.push_str("</section>\n");
        o
    }

    /// The workloads loaded, as their section shows them.
    fn workloads(&self) -> Vec<Shown<'a>> {
        self.loaded
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match &l.record {
                Record::Workload(w) => Some(Shown {
                    index: i,
                    id: l.listed.id,
                    name: self.name(i),
                    result: w,
                }),
                _ => None,
            })
            .collect()
    }

    /// Several workloads' same steps side by side, as `iogauge compare` has them.
    fn workload_comparison(shown: &[Shown]) -> Option<WorkloadComparison> {
        (shown.len() > 1).then(|| {
            let pairs: Vec<(i64, &crate::result::workload::WorkloadResult)> =
                shown.iter().map(|w| (w.id, w.result)).collect();
            workload_compare::compare(&pairs)
        })
    }

    fn workload_section(&self) -> String {
        let shown = self.workloads();
        let mut o = String::new();
        if let Some(c) = Self::workload_comparison(&shown) {
            o.push_str(&workload_html::compared(&shown, &c));
        }
        for w in &shown {
            o.push_str(&workload_html::section(w));
        }
        o
    }

    pub fn markdown(&self) -> String {
        let mut o = String::from("## iogauge results\n\n");
        for l in self.loaded.iter() {
            if let Record::Fs(r) = &l.record {
                o.push_str(&crate::report::fs::markdown(r));
                o.push('\n');
            }
            if let Record::Sweep(s) = &l.record {
                let _ = write!(o, "```\n{}```\n\n", crate::report::sweep::text(s));
            }
            if let Record::Workload(w) = &l.record {
                let _ = write!(o, "```\n{}```\n\n", crate::report::workload::text(w));
            }
        }
        if let Some(c) = Self::workload_comparison(&self.workloads()) {
            let _ = write!(
                o,
                "### Workloads compared with #{}\n\n{}\n{}\n\n",
                c.reference_id,
                c.grid().markdown(),
                c.legend().replace('\n', " ")
            );
        }
        o.push_str(&self.summary().markdown());
        if let Some(c) = self.comparison() {
            let _ = write!(o, "\n### Compared with #{}\n\n", self.loaded[0].listed.id);
            o.push_str(&c.grid().markdown());
            let _ = writeln!(o, "\n{}", c.legend().replace('\n', " "));
        }
        for (i, l) in self.loaded.iter().enumerate() {
            let _ = write!(o, "\n### {}\n\n", self.name(i));
            o.push_str(&facts_grid(l).markdown());
            let _ = write!(o, "\n```\n{}\n```\n", l.record.command_line());
        }
        o
    }

    /// Every chart as a PNG in `dir` (created if missing); returns the files written.
    pub fn pngs(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::runtime(format!("cannot create the folder '{}': {e}", dir.display()))
        })?;
        let mut files = Vec::new();
        let fs_charts = self
            .loaded
            .iter()
            .enumerate()
            .flat_map(|(i, l)| match &l.record {
                Record::Fs(r) => self.fs_charts(i, r),
                _ => Vec::new(),
            })
            .chain(self.sweep_charts())
            .chain(self.workload_charts());
        for c in fs_charts {
            let path = dir.join(format!("{}.png", c.id));
            charts::png(&c, &path)
                .map_err(|e| Error::runtime(format!("cannot write '{}': {e}", path.display())))?;
            files.push(path);
        }
        for (n, s) in self.sections.iter().enumerate() {
            for c in self.charts(n, s) {
                let path = dir.join(format!("{}.png", c.id));
                charts::png(&c, &path).map_err(|e| {
                    Error::runtime(format!("cannot write '{}': {e}", path.display()))
                })?;
                files.push(path);
            }
        }
        Ok(files)
    }

    /// Each workload's steps over time, and the bars of several side by side.
    fn workload_charts(&self) -> Vec<Chart> {
        let shown = self.workloads();
        let compared = Self::workload_comparison(&shown)
            .and_then(|c| workload_html::compared_chart(&shown, &c));
        compared
            .into_iter()
            .chain(shown.iter().flat_map(workload_html::charts))
            .collect()
    }

    pub fn html(&self) -> String {
        let mut o = String::new();
        let title = format!(
            "iogauge report: {}",
            self.loaded
                .iter()
                .enumerate()
                .map(|(i, _)| self.name(i))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = write!(
            o,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
            esc(&title),
            esc(&title)
        );
        let _ = writeln!(
            o,
            "<p class=\"meta\">Made by iogauge {} on {} UTC. Dates are UTC; MB/s are 10<sup>6</sup> bytes per second.</p>",
            env!("CARGO_PKG_VERSION"),
            format_utc(crate::dates::now_unix_ns())
        );
        let summary = self.summary();
        if summary.rows.len() > 1 {
            o.push_str("<h2>Summary</h2>\n");
            o.push_str(&grid_html(&summary, "summary"));
        }
        if let Some(c) = self.comparison() {
            let _ = writeln!(o, "<h2>Compared with #{}</h2>", self.loaded[0].listed.id);
            o.push_str(&grid_html(&c.grid(), "comparison"));
            let _ = writeln!(o, "<p class=\"note\">{}</p>", esc(&c.legend()));
        }
        for (n, s) in self.sections.iter().enumerate() {
            let _ = writeln!(
                o,
                "<section class=\"workload\">\n<h2>{}</h2>",
                esc(&s.label)
            );
            for c in self.charts(n, s) {
                o.push_str(&figure(&c));
            }
            o.push_str("</section>\n");
        }
        for (i, l) in self.loaded.iter().enumerate() {
            if let Record::Fs(r) = &l.record {
                o.push_str(&self.fs_section(i, r));
            }
        }
        o.push_str(&self.sweep_section());
        o.push_str(&self.workload_section());
        for (i, l) in self.loaded.iter().enumerate() {
            let _ = writeln!(
                o,
                "<section class=\"run\">\n<h2>{}: {}{}</h2>",
                esc(&self.name(i)),
                format_utc(l.listed.started_unix_ns),
                if l.record.partial() { " (partial)" } else { "" }
            );
            o.push_str(&grid_html(&facts_grid(l), "facts"));
            let _ = writeln!(
                o,
                "<p>To reproduce:</p>\n<pre><code>{}</code></pre>",
                esc(&l.record.command_line())
            );
            let mut notes: Vec<String> = Vec::new();
            if let Record::Fs(r) = &l.record {
                notes.extend(r.notes.iter().map(|n| format!("Note: {n}")));
                notes.extend(r.failures().into_iter().map(|f| format!("FAILED: {f}")));
            }
            if let Record::Sweep(r) = &l.record {
                notes.extend(r.notes.iter().map(|n| format!("Note: {n}")));
                notes.extend(r.failures().into_iter().map(|f| format!("FAILED: {f}")));
            }
            if let Record::Workload(r) = &l.record {
                notes.extend(r.stop_message.iter().map(|m| format!("Stopped early: {m}")));
                notes.extend(r.notes.iter().map(|n| format!("Note: {n}")));
                notes.extend(
                    r.verify_failures()
                        .into_iter()
                        .map(|f| format!("FAILED: {f}")),
                );
            }
            let passes = l.record.passes();
            for p in &passes {
                let pass = match passes.len() {
                    1 => String::new(),
                    _ => format!("{}: ", p.label),
                };
                let limit = p.result.limit.iter().flat_map(|l| l.lines());
                notes.extend(limit.map(|line| format!("{pass}{}", line.trim_start())));
                for w in &p.result.warnings {
                    let s = format!("Warning ({}): {} Fix: {}", w.code, w.message, w.fix);
                    if !notes.contains(&s) {
                        notes.push(s);
                    }
                }
                for n in &p.result.notes {
                    let s = format!("Note: {n}");
                    if !notes.contains(&s) {
                        notes.push(s);
                    }
                }
            }
            if !notes.is_empty() {
                o.push_str("<ul class=\"notes\">\n");
                for n in notes {
                    let _ = writeln!(o, "<li>{}</li>", esc(&n));
                }
                o.push_str("</ul>\n");
            }
            o.push_str("</section>\n");
        }
        o.push_str("</body>\n</html>\n");
        o
    }
}

/// Where and on what a result ran.
fn facts_grid(l: &Loaded) -> Grid {
    let mut g = Grid::new(vec!["fact".into(), "value".into()]);
    let (s, version, targets) = match &l.record {
        Record::Fs(r) => (
            &r.header.system,
            r.header.tool_version.clone(),
            r.filesystems
                .iter()
                .map(|f| (format!("{} = {}", f.label, f.dir), &f.facts))
                .collect::<Vec<_>>(),
        ),
        Record::Sweep(r) => (
            &r.header.system,
            r.header.tool_version.clone(),
            vec![(r.dir.clone(), &r.target)],
        ),
        Record::Workload(r) => (
            &r.header.system,
            r.header.tool_version.clone(),
            std::iter::once(&r.source)
                .chain(&r.target)
                .map(|p| (place(p), &p.facts))
                .collect(),
        ),
        _ => {
            let Some(p) = l.record.passes().into_iter().next() else {
                return g;
            };
            let r = p.result;
            (
                &r.header.system,
                r.header.tool_version.clone(),
                r.targets
                    .iter()
                    .map(|t| {
                        (
                            format!("{} ({})", t.path, format_size_human(t.size_bytes)),
                            &t.facts,
                        )
                    })
                    .collect(),
            )
        }
    };
    let mut add = |k: &str, v: String| g.push(vec![k.to_string(), v]);
    add("host", s.hostname.clone());
    add("kernel", format!("Linux {}", s.kernel));
    add("CPU", s.cpu_line());
    add("memory", s.memory_line());
    add("iogauge", version);
    if !l.listed.tags.is_empty() {
        add("tags", l.listed.tags.join(", "));
    }
    for (target, f) in targets {
        add("target", target);
        add(
            "file system",
            format!(
                "{} on {} ({})",
                f.fs_type.as_deref().unwrap_or("?"),
                f.mount_point.as_deref().unwrap_or("?"),
                f.mount_options.as_deref().unwrap_or("")
            ),
        );
        if let Some(dev) = &f.block_device {
            add(
                "device",
                format!(
                    "{dev}: {}{}, scheduler {}, nr_requests {}",
                    f.device_model.as_deref().unwrap_or("?"),
                    match f.rotational {
                        Some(true) => ", rotational",
                        Some(false) => ", non-rotational",
                        None => "",
                    },
                    f.scheduler.as_deref().unwrap_or("?"),
                    f.nr_requests.map_or("?".into(), |n| n.to_string())
                ),
            );
        }
        add("O_DIRECT", f.direct_io.to_string());
    }
    g
}

/// A workload's source or target: "/data/ds (source: a tree of 3001 files, 512.0MiB)".
fn place(p: &crate::result::workload::Place) -> String {
    match p.what.as_str() {
        "folder" => format!("{} (the folder written in)", p.path),
        _ => format!("{} (source: {})", p.path, workload_compare::source_words(p)),
    }
}

const STYLE: &str = "
body { font-family: 'DejaVu Sans', Arial, sans-serif; margin: 2em auto; max-width: 60em;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #eee; text-align: left; }
th { background: #f4f4f4; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure.chart { margin: 1em 0; } figure.chart svg { max-width: 100%; height: auto; display: block; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; }
.meta, .note { color: #555; font-size: 0.9em; white-space: pre-line; }
.error { color: #b00; }
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::workload::compare::fixture::workload;
    use crate::result::workload::StepKind::{Archive, Copy, Scan};

    fn loaded(id: i64, w: crate::result::workload::WorkloadResult) -> Loaded {
        Loaded {
            listed: Listed {
                id,
                started_unix_ns: w.header.started_unix_ns,
                kind: "workload".into(),
                name: w.params.workload.clone(),
                target: w.source.path.clone(),
                hostname: w.header.system.hostname.clone(),
                partial: false,
                workload_key: "k".into(),
                tags: vec![],
                passes: vec![],
            },
            record: Record::Workload(Box::new(w)),
            column: Column {
                id,
                title: format!("#{id}"),
                passes: vec![],
                limits: vec![],
                repeats: vec![],
            },
        }
    }

    #[test]
    fn workload_records_have_sections_a_comparison_and_charts() {
        let mut second = workload(&[(Copy, &[300, 320]), (Scan, &[20])]);
        second.partial = true;
        second.stop_message = Some("interrupted".into());
        let all = [
            loaded(3, workload(&[(Copy, &[400, 450]), (Archive, &[900])])),
            loaded(4, second),
        ];
        let report = Report::new(&all);
        let html = report.html();
        for want in [
            "<h2>Workloads compared with #3</h2>",
            "<figure class=\"chart\" id=\"workloads-compared\">",
            "<h2>#3 mixed: workload mixed</h2>",
            "<h2>#4 mixed: workload mixed (partial)</h2>",
            "id=\"wl3-step1-copy\"",
            "id=\"wl4-step1-copy\"",
            "/data/tree (source: a tree of 1000 files, 15.6MiB)",
            "/data/folder (the folder written in)",
            "<li>Stopped early: interrupted</li>",
            "<li>Note: caches dropped before each measurement</li>",
        ] {
            assert!(html.contains(want), "lacks {want:?}");
        }
        // No run's summary or comparison of passes: workloads have none.
        assert!(!html.contains("<h2>Summary</h2>") && !html.contains("class=\"summary\""));
        for bad in ["<script", "src=\"http", "href=\"http", "url(http"] {
            assert!(!html.contains(bad), "not self-contained: {bad}");
        }
        let md = report.markdown();
        assert!(
            md.contains("iogauge workload mixed") && md.contains("### Workloads compared with #3")
        );
        let dir = tempfile::tempdir().unwrap();
        let files = report.pngs(dir.path()).unwrap();
        let names: Vec<String> = files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        // Bars of the two, then each step over more than one interval.
        assert_eq!(
            names,
            [
                "workloads-compared.png",
                "wl3-step1-copy.png",
                "wl3-step2-archive.png",
                "wl4-step1-copy.png"
            ]
        );
    }
}
