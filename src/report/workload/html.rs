//! The workloads' part of the HTML report (`iogauge report` of `iogauge workload` records):
//! each record's table of steps, each step's fastest repetition in figures and its throughput
//! over time with the phases found in it; several records' same steps side by side, as
//! `iogauge compare` shows them. Charts are [`Chart`] descriptions, so the PNGs are the same
//! pictures.

use super::compare::WorkloadComparison;
use super::{
    cache_words, compression_words, copy_words, cpu_words, fastest, steps_grid, tool_verdict,
    verify_words,
};
use crate::report::charts::{self, Chart, Kind, Line, Unit};
use crate::report::markup::{esc, figure, grid_html};
use crate::report::table::{phase_grid, Grid};
use crate::result::workload::{Rep, StepKind, StepResult, Work, WorkloadResult};
use crate::units::{format_count, format_ns, format_size_human};
use std::fmt::Write;

/// A workload record as the report shows it.
pub struct Shown<'a> {
    /// Its place among the report's results: its colour in every chart.
    pub index: usize,
    pub id: i64,
    /// "#3 mixed".
    pub name: String,
    pub result: &'a WorkloadResult,
}

/// The record's section: its steps, then each step's fastest repetition and its chart.
pub fn section(w: &Shown) -> String {
    let r = w.result;
    let mut o = format!(
        "<section class=\"steps\">\n<h2>{}: workload {}{}</h2>\n",
        esc(&w.name),
        esc(&r.params.workload),
        if r.partial { " (partial)" } else { "" }
    );
    let n = r.params.repeat;
    let _ = writeln!(
        o,
        "<p>{n} repetition{} of each step{}.</p>",
        if n == 1 { "" } else { "s" },
        if n == 1 {
            ""
        } else {
            ": TIME is the fastest, and the figures below are of the fastest repetition"
        }
    );
    o.push_str(&grid_html(&steps_grid(r), "steps"));
    for (pos, s) in r.steps.iter().enumerate() {
        let Some(best) = fastest(s) else { continue };
        let _ = writeln!(o, "<h3>{}. {}</h3>", pos + 1, esc(&s.label));
        o.push_str(&grid_html(&details(s, best), "facts"));
        match step_chart(w, pos, s, best) {
            Some(c) => o.push_str(&figure(&c)),
            None => {
                let _ = writeln!(
                    o,
                    "<p class=\"note\">Done within one interval ({} ms): no chart over time.</p>",
                    best.time_series.interval_ns / 1_000_000
                );
            }
        }
        if best.phases.len() > 1 {
            let (unit, ops) = units(s.step.kind);
            o.push_str(&grid_html(
                &phase_grid(&best.phases, unit, ops, false),
                "phases",
            ));
        }
    }
    o.push_str("</section>\n");
    o
}

/// Every step's chart over time (those over within one interval have none).
pub fn charts(w: &Shown) -> Vec<Chart> {
    w.result
        .steps
        .iter()
        .enumerate()
        .filter_map(|(pos, s)| step_chart(w, pos, s, fastest(s)?))
        .collect()
}

/// The unit of a step's throughput, and of its operations.
fn units(kind: StepKind) -> (&'static str, &'static str) {
    match kind.work() {
        Work::Entries => ("entries/s", "entries/s"),
        Work::Read | Work::Written => ("MB/s", "files/s"),
    }
}

/// The step's own work over time ([`Work::series`]: a copy's bytes read, not read and written
/// summed), its phases as bands, as run charts draw theirs.
fn step_chart(w: &Shown, pos: usize, s: &StepResult, b: &Rep) -> Option<Chart> {
    let work = s.step.kind.work();
    let series = work.series(&b.time_series);
    if series.samples.len() < 2 {
        return None;
    }
    let points = charts::intervals(&series.samples, |x| {
        Some(match work {
            Work::Entries => charts::per_second(x, x.read.ios.saturating_add(x.write.ios)),
            Work::Read | Work::Written => {
                charts::per_second(x, x.read.bytes.saturating_add(x.write.bytes)) / 1e6
            }
        })
    });
    let (y_desc, y_unit, what) = match work {
        Work::Entries => ("entries/s", Unit::Count, "entries".to_string()),
        _ => (
            "MB/s",
            Unit::MegaBytes,
            format!("throughput ({})", work.name()),
        ),
    };
    let reps = s.reps.len();
    Some(Chart {
        id: format!("wl{}-step{}-{}", w.id, pos + 1, s.step.kind.name()),
        title: format!("{}. {}: {what} over time", pos + 1, s.step.kind.name()),
        x_desc: match (b.cut_short, reps) {
            (true, _) => "seconds into the step (cut short)".into(),
            (false, 1) => "seconds into the step".into(),
            (false, n) => format!("seconds into the step (the fastest of {n} repetitions)"),
        },
        y_desc: y_desc.into(),
        kind: Kind::Time,
        y_unit,
        lines: vec![Line {
            name: w.name.clone(),
            color: w.index,
            secondary: false,
            points,
            widths: Vec::new(),
        }],
        bands: charts::phase_bands(&b.phases),
    })
}

/// What the step's fastest repetition did, how fast, with what, and whether it made the right
/// tree.
fn details(s: &StepResult, b: &Rep) -> Grid {
    let mut g = Grid::new(vec!["figure".into(), "value".into()]);
    let mut add = |k: &str, v: String| g.push(vec![k.to_string(), v]);
    add("time", time(s, b));
    if let Some(ns) = b.sync_ns {
        add(
            "written back",
            format!("{} (syncfs), not counted in the time", format_ns(ns as f64)),
        );
    }
    let links = match b.links {
        0 => String::new(),
        n => format!(", {} links", format_count(n as f64)),
    };
    add(
        "done",
        format!(
            "{} files, {} folders{links}",
            format_count(b.files as f64),
            format_count(b.dirs as f64)
        ),
    );
    add(
        units(s.step.kind).1,
        format_count(b.files_per_s(s.step.kind)),
    );
    // Scan and delete move no bytes: no rows of zeros.
    for (k, bytes) in [("read", b.bytes_read), ("written", b.bytes_written)] {
        if bytes > 0 {
            add(k, bytes_at(bytes, b.elapsed_ns));
        }
    }
    add("CPU", cpu_words(&b.cpu));
    if let Some(l) = &b.limit {
        add(
            "limited by",
            format!("{}: {}", l.label, l.evidence.join("; ")),
        );
    }
    add("cache at the start", cache_words(b));
    for (k, v) in made(s, b) {
        add(k, v);
    }
    if let Some(t) = tool(s) {
        add("the system's tool", t);
    }
    g
}

fn time(s: &StepResult, b: &Rep) -> String {
    let t = format_ns(b.elapsed_ns as f64);
    if b.cut_short {
        return format!("{t}, CUT SHORT: the figures are of what it did before it stopped");
    }
    match &s.summary {
        Some(sum) if s.reps.len() > 1 => format!(
            "{t}, the fastest of {} (median {}, spread {:.0}%)",
            s.reps.len(),
            format_ns(sum.median_ns as f64),
            sum.spread_pct
        ),
        _ => t,
    }
}

fn bytes_at(bytes: u64, ns: u64) -> String {
    let mb_s = if ns == 0 {
        0.0
    } else {
        bytes as f64 * 1e3 / ns as f64
    };
    format!("{} at {mb_s:.1} MB/s", format_size_human(bytes))
}

/// How a copy moved its bytes, what compression saved, and the check of the tree made.
fn made(s: &StepResult, b: &Rep) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(c) = &b.copy {
        out.push(("bytes moved by", copy_words(c)));
    }
    if let Some(z) = &b.compression {
        out.push(("compression", compression_words(s.step.kind, z)));
    }
    if let Some(v) = &b.verify {
        out.push(("checked", verify_words(v)));
    }
    out
}

/// The system's tool on the same work: its time against iogauge's, and which was faster.
fn tool(s: &StepResult) -> Option<String> {
    let t = s.tool.as_ref()?;
    if let Some(why) = &t.not_run {
        return Some(format!("{} not run: {why}", t.tool));
    }
    Some(format!(
        "{} {} (the fastest of {}): {}; {}",
        t.tool,
        format_ns(t.min_ns? as f64),
        t.elapsed_ns.len(),
        tool_verdict(t),
        t.command
    ))
}

/// Several workloads side by side: the time of each step against the first's as bars, then
/// `iogauge compare`'s table and its legend.
pub fn compared(shown: &[Shown], c: &WorkloadComparison) -> String {
    let mut o = format!(
        "<section class=\"workloads-compared\">\n<h2>Workloads compared with #{}</h2>\n",
        c.reference_id
    );
    if let Some(chart) = compared_chart(shown, c) {
        o.push_str(&figure(&chart));
    }
    o.push_str(&grid_html(&c.grid(), "comparison"));
    let _ = writeln!(o, "<p class=\"note\">{}</p>", esc(&c.key()));
    if !c.differences.is_empty() {
        o.push_str("<p>Where they differ:</p>\n<ul class=\"notes\">\n");
        for d in &c.differences {
            let _ = writeln!(o, "<li>{}</li>", esc(d));
        }
        o.push_str("</ul>\n");
    }
    o.push_str("</section>\n");
    o
}

/// One group of bars per step the first workload timed, one bar per record: its fastest time
/// over the first's.
pub fn compared_chart(shown: &[Shown], c: &WorkloadComparison) -> Option<Chart> {
    let rows: Vec<_> = c
        .steps
        .iter()
        .filter(|r| {
            r.cells
                .first()
                .is_some_and(|x| x.as_ref().is_some_and(|x| x.min_ns.is_some()))
        })
        .collect();
    if rows.is_empty() || shown.len() < 2 {
        return None;
    }
    let lines = shown
        .iter()
        .enumerate()
        .map(|(j, w)| Line {
            name: w.name.clone(),
            color: w.index,
            secondary: false,
            points: rows
                .iter()
                .enumerate()
                .filter_map(|(g, r)| Some((g as f64, r.cells.get(j)?.as_ref()?.ratio?)))
                .collect(),
            widths: Vec::new(),
        })
        .collect();
    let first = &shown[0].name;
    Some(Chart {
        id: "workloads-compared".into(),
        title: format!("Time of each step ({first} = 1.00; shorter is faster)"),
        x_desc: format!("fastest repetition, relative to {first}"),
        y_desc: String::new(),
        kind: Kind::Bars {
            groups: rows
                .iter()
                .map(|r| format!("{}. {}", r.position, r.kind.name()))
                .collect(),
        },
        y_unit: Unit::Ratio,
        lines,
        bands: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::workload::compare::fixture::{workload, FILE, FILES};
    use crate::result::workload::StepKind::{Archive, Copy, Delete, Extract, Scan};

    fn shown(index: usize, id: i64, r: &WorkloadResult) -> Shown<'_> {
        Shown {
            index,
            id,
            name: format!("#{id} {}", r.params.workload),
            result: r,
        }
    }

    #[test]
    fn each_step_is_shown_with_its_figures_and_its_work_over_time() {
        let mut r = workload(&[
            (Copy, &[450, 400]),
            (Archive, &[800]),
            (Extract, &[600]),
            (Scan, &[30]),
            (Delete, &[300]),
        ]);
        r.steps[0].tool = Some(crate::result::workload::ToolResult {
            tool: "cp -r".into(),
            command: "cp -r /data/tree/. /out/1-tool-copy".into(),
            elapsed_ns: vec![800_000_000, 900_000_000],
            min_ns: None,
            median_ns: None,
            speed_ratio: None,
            not_run: None,
        });
        r.summarize();
        let w = shown(0, 5, &r);
        let html = section(&w);
        for want in [
            "<h2>#5 mixed: workload mixed</h2>",
            "<h3>1. copy (copy_file_range, 2 threads)</h3>",
            "400.00 ms, the fastest of 2 (median 425.00 ms, spread 12%)",
            "15.6MiB at 41.0 MB/s",
            "25% busy, 2 threads (user",
            "0.0% of the input in the page cache (32 files sampled), after dropping caches",
            "zip level 6: 2.00x smaller",
            "the same (1000 files), against the source's files",
            "cp -r 800.00 ms (the fastest of 2): iogauge 2.00x as fast",
            "Done within one interval (100 ms): no chart over time.",
            "<th>phase</th>",
        ] {
            assert!(html.contains(want), "lacks {want:?}:\n{html}");
        }
        // Scan and delete move no bytes: no rows of zeros.
        let scan = &html[html.find("4. scan").unwrap()..html.find("5. delete").unwrap()];
        assert!(!scan.contains("<td>read</td>"), "{scan}");
        // A chart per step longer than an interval, each of its own work.
        let cs = charts(&w);
        let ids: Vec<&str> = cs.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "wl5-step1-copy",
                "wl5-step2-archive",
                "wl5-step3-extract",
                "wl5-step5-delete"
            ]
        );
        let copy = &cs[0];
        let top = copy.lines[0].points.iter().map(|p| p.1).fold(0.0, f64::max);
        let read = (FILES * FILE) as f64 / 0.4 / 1e6;
        assert!((top - read).abs() < 0.5, "bytes read only: {top} vs {read}");
        assert_eq!(copy.bands.len(), 2, "its phases as bands");
        assert_eq!(copy.bands[1].label, "steady");
        assert!(copy.title.contains("bytes read"), "{}", copy.title);
        assert!(cs[2].title.contains("bytes written"), "{}", cs[2].title);
        assert_eq!(cs[3].y_desc, "entries/s");
        for c in &cs {
            let svg = charts::svg(c).expect("drawn");
            assert!(svg.contains("<svg"));
        }
    }

    #[test]
    fn several_workloads_are_compared_in_bars_and_a_table() {
        let a = workload(&[(Copy, &[100, 110]), (Archive, &[200])]);
        let b = workload(&[(Copy, &[50, 60]), (Scan, &[10])]);
        let both = [shown(0, 1, &a), shown(1, 2, &b)];
        let c = crate::report::workload::compare::compare(&[(1, &a), (2, &b)]);
        let html = compared(&both, &c);
        assert!(
            html.contains("<h2>Workloads compared with #1</h2>"),
            "{html}"
        );
        assert!(html.contains("50.00 ms (0.50)*"), "{html}");
        assert!(html.contains("<li>step 2: archive (zip, 2 threads) in #1; scan"));
        let chart = compared_chart(&both, &c).expect("a chart");
        match &chart.kind {
            Kind::Bars { groups } => assert_eq!(groups, &["1. copy", "2. archive"]),
            k => panic!("{k:?}"),
        }
        assert_eq!(chart.lines[1].points, vec![(0.0, 0.5)]);
        assert_eq!(chart.lines[1].color, 1);
        assert!(charts::svg(&chart).is_ok());
        assert!(compared_chart(&both[..1], &c).is_none());
    }
}
