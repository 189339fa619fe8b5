//! Reports of a workload (`iogauge workload`): a table of its steps, then each step's fastest
//! repetition in detail (what it did, how fast, CPU, cache, checks, throughput over time and
//! its phases), the system's tools side by side, and notes; as CSV, one row per repetition of
//! each step, iogauge's and the tools'.

pub mod compare;
pub mod html;

use super::table::{phase_grid, rate_value, sparkline, Grid};
use super::Exporter;
use crate::result::workload::{
    Compression, CopyUse, CpuUse, Rep, StepKind, StepResult, ToolResult, Verified, WorkloadResult,
};
use crate::units::{format_count, format_ns, format_size_human};
use std::fmt::Write;

pub struct Text;
pub struct Csv;

impl Exporter<WorkloadResult> for Text {
    fn render(&self, r: &WorkloadResult) -> String {
        text(r)
    }
}

impl Exporter<WorkloadResult> for Csv {
    fn render(&self, r: &WorkloadResult) -> String {
        csv(r)
    }
}

fn mb_s(bytes: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        bytes as f64 / ns as f64 * 1e3
    }
}

/// Where it ran, in a line: "tree /data/ds (3,001 files, 41 folders, 512.0MiB; ext4 on vda)".
fn place_line(p: &crate::result::workload::Place) -> String {
    let fs = p.facts.fs_type.as_deref().unwrap_or("?");
    let dev = p
        .facts
        .block_device
        .as_deref()
        .map_or(String::new(), |d| format!(" on {d}"));
    let what = match p.what.as_str() {
        "tree" => format!(
            " ({} files, {} folders, {}{}{})",
            format_count(p.files as f64),
            format_count(p.dirs as f64),
            format_size_human(p.bytes),
            if p.links > 0 {
                format!(", {} links", p.links)
            } else {
                String::new()
            },
            if p.counted == "manifest" {
                ", as its manifest lists"
            } else {
                ""
            }
        ),
        "folder" => String::new(),
        _ => format!(" ({})", format_size_human(p.bytes)),
    };
    format!("{} {}{what}; {fs}{dev}", p.what, p.path)
}

/// The fastest whole repetition of a step, else the one cut short.
pub fn fastest(s: &StepResult) -> Option<&Rep> {
    s.reps
        .iter()
        .filter(|r| !r.cut_short)
        .min_by_key(|r| r.elapsed_ns)
        .or_else(|| s.reps.iter().find(|r| r.cut_short))
}

/// The table of steps: one row each, from its fastest repetition and its summary.
pub fn steps_grid(r: &WorkloadResult) -> Grid {
    let mut g = Grid::new(
        [
            "STEP",
            "TIME",
            "MEDIAN",
            "SPREAD",
            "FILES/S",
            "READ MB/s",
            "WRITE MB/s",
            "CPU",
            "",
        ]
        .map(String::from)
        .to_vec(),
    );
    g.right = (1..8).collect();
    for s in &r.steps {
        let (Some(sum), Some(best)) = (&s.summary, fastest(s)) else {
            let why = match s.reps.is_empty() {
                true => "not run",
                false => "cut short",
            };
            g.push(vec![s.label.clone(), why.into()]);
            continue;
        };
        g.push(vec![
            s.label.clone(),
            format_ns(sum.min_ns as f64),
            format_ns(sum.median_ns as f64),
            format!("{:.0}%", sum.spread_pct),
            format_count(sum.files_per_s),
            format!("{:.1}", sum.read_bytes_per_s / 1e6),
            format!("{:.1}", sum.write_bytes_per_s / 1e6),
            format!("{:.0}%", best.cpu.busy_pct),
            best.cpu.bound.name().into(),
        ]);
    }
    g
}

pub fn text(r: &WorkloadResult) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "iogauge workload {}", r.params.workload);
    let _ = writeln!(o, "  source: {}", place_line(&r.source));
    if let Some(t) = &r.target {
        let _ = writeln!(o, "  target: {}", place_line(t));
    }
    let _ = writeln!(o, "  {}", r.header.system.host_line());
    let n = r.params.repeat;
    let _ = writeln!(
        o,
        "  {} repetition{}{}",
        n,
        if n == 1 { "" } else { "s: TIME is the fastest" },
        if r.partial {
            " (PARTIAL: stopped early)"
        } else {
            ""
        }
    );
    o.push('\n');
    o.push_str(&steps_grid(r).text());
    for s in &r.steps {
        if let Some(best) = fastest(s) {
            step_detail(&mut o, s, best, n > 1);
        }
    }
    tools(&mut o, r);
    if let Some(m) = &r.stop_message {
        let _ = writeln!(o, "\nStopped early: {m}");
    }
    if !r.notes.is_empty() {
        let _ = writeln!(o, "\nNotes:");
        for n in &r.notes {
            let _ = writeln!(o, "  - {n}");
        }
    }
    o
}

fn step_detail(o: &mut String, s: &StepResult, b: &Rep, several: bool) {
    let which = match (b.cut_short, several) {
        (true, _) => ", CUT SHORT: what it did before it stopped",
        (false, true) => ", the fastest repetition",
        (false, false) => "",
    };
    let _ = writeln!(o, "\n{}{which}:", s.label);
    let links = if b.links > 0 {
        format!(", {}", count(b.links, "link"))
    } else {
        String::new()
    };
    let _ = writeln!(
        o,
        "  {}, {}{links} in {}{}",
        count(b.files, "file"),
        count(b.dirs, "folder"),
        format_ns(b.elapsed_ns as f64),
        b.sync_ns.map_or(String::new(), |ns| format!(
            ", then written back (syncfs) in {}, not counted",
            format_ns(ns as f64)
        ))
    );
    let per_s = match s.step.kind {
        StepKind::Scan | StepKind::Delete => "entries/s",
        _ => "files/s",
    };
    let _ = writeln!(
        o,
        "  {} {per_s}; read {} ({:.1} MB/s), wrote {} ({:.1} MB/s)",
        format_count(b.files_per_s(s.step.kind)),
        format_size_human(b.bytes_read),
        mb_s(b.bytes_read, b.elapsed_ns),
        format_size_human(b.bytes_written),
        mb_s(b.bytes_written, b.elapsed_ns),
    );
    let _ = writeln!(o, "  CPU: {}", cpu_words(&b.cpu));
    if let Some(l) = &b.limit {
        let _ = writeln!(o, "  {}", l.lines().join("\n  "));
    }
    let _ = writeln!(o, "  at the start: {}", cache_words(b));
    if let Some(c) = &b.copy {
        let _ = writeln!(o, "  bytes moved by: {}", copy_words(c));
    }
    if let Some(z) = &b.compression {
        let _ = writeln!(o, "  {}", compression_words(s.step.kind, z));
    }
    if let Some(v) = &b.verify {
        let _ = writeln!(o, "  checked: {}", verify_words(v));
    }
    over_time(o, s.step.kind, b);
}

/// The throughput sparkline and the phases found in it.
fn over_time(o: &mut String, kind: StepKind, b: &Rep) {
    let work = kind.work();
    let rates = work.series(&b.time_series).rates();
    if rates.len() < 2 {
        return;
    }
    let bytes = work != crate::result::workload::Work::Entries;
    let unit = if bytes { "MB/s" } else { "entries/s" };
    let max = rates.iter().cloned().fold(0.0, f64::max);
    let min = rates.iter().cloned().fold(f64::MAX, f64::min);
    let _ = writeln!(
        o,
        "  {} over time ({} intervals of {}ms, {} to {} {unit}):\n    {}",
        if bytes {
            format!("Throughput ({})", work.name())
        } else {
            "Entries".into()
        },
        rates.len(),
        b.time_series.interval_ns / 1_000_000,
        rate_value(min, unit),
        rate_value(max, unit),
        sparkline(&rates, 60)
    );
    match b.phases.as_slice() {
        [] => {}
        [p] => {
            let _ = writeln!(
                o,
                "  Phases: one level over the step ({} {unit}, p5 {} p95 {}).",
                rate_value(p.bytes_per_sec_mean, unit),
                rate_value(p.bytes_per_sec_p5, unit),
                rate_value(p.bytes_per_sec_p95, unit)
            );
        }
        many => {
            let _ = writeln!(o, "  Phases ({}, where the level changed):", many.len());
            let ops = if bytes { "files/s" } else { "entries/s" };
            for line in phase_grid(many, unit, ops, false).text().lines() {
                let _ = writeln!(o, "    {line}");
            }
            if let Some(f) = crate::result::fall(many) {
                let _ = writeln!(o, "    {}", super::table::fall_line(&f, unit));
            }
        }
    }
}

fn tools(o: &mut String, r: &WorkloadResult) {
    let with: Vec<&StepResult> = r.steps.iter().filter(|s| s.tool.is_some()).collect();
    if with.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "\nThe system's tools on the same work (alternating with iogauge, caches dropped before \
         each):"
    );
    for s in with {
        let t = s.tool.as_ref().expect("filtered");
        if let Some(why) = &t.not_run {
            let _ = writeln!(o, "  {}: {} not run: {why}", s.step.kind.name(), t.tool);
            continue;
        }
        let (Some(tool), Some(ours)) = (t.min_ns, s.summary.as_ref()) else {
            continue;
        };
        let _ = writeln!(
            o,
            "  {}: {} {} against iogauge {} (fastest of {} and {}): {}",
            s.step.kind.name(),
            t.tool,
            format_ns(tool as f64),
            format_ns(ours.min_ns as f64),
            t.elapsed_ns.len(),
            s.reps.len(),
            tool_verdict(t)
        );
        let _ = writeln!(o, "    {}", t.command);
    }
}

/// "1 file", "2,501 files".
fn count(n: u64, what: &str) -> String {
    format!(
        "{} {what}{}",
        format_count(n as f64),
        if n == 1 { "" } else { "s" }
    )
}

/// How busy the CPUs were and what that says limited the step, in words.
pub fn cpu_words(c: &CpuUse) -> String {
    let plural = |n: u32, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let on = match c.usable {
        u if u > 0 && u < c.threads => {
            format!("{} on {}", plural(c.threads, "thread"), plural(u, "CPU"))
        }
        _ => plural(c.threads, "thread"),
    };
    format!(
        "{:.0}% busy, {on} (user {}, system {}): {}",
        c.busy_pct,
        format_ns(c.user_ns as f64),
        format_ns(c.system_ns as f64),
        c.bound.name()
    )
}

/// The page cache a repetition started from, in words.
pub fn cache_words(b: &Rep) -> String {
    let dropped = if b.cache.dropped {
        "after dropping caches"
    } else {
        "caches not dropped"
    };
    match b.cache.resident_pct {
        Some(p) => format!(
            "{p:.1}% of the input in the page cache ({} file{} sampled), {dropped}",
            b.cache.sampled_files,
            if b.cache.sampled_files == 1 { "" } else { "s" },
        ),
        None => dropped.into(),
    }
}

/// How a copy moved its bytes, in words.
pub fn copy_words(c: &CopyUse) -> String {
    let shared = match c.shared_extents {
        Some(true) => "; the copy shares its extents with the source (a reflink)",
        Some(false) => "; the copy has extents of its own",
        None => "",
    };
    format!(
        "{} (the kernel: {} files, read and write: {}, io_uring: {}){shared}",
        c.method.name(),
        c.kernel_files,
        c.read_write_files,
        c.io_uring_files
    )
}

/// What compression made of the tree, in words.
pub fn compression_words(kind: StepKind, z: &Compression) -> String {
    let how = match kind {
        StepKind::Archive => format!("{} level {}", z.format.name(), z.level),
        _ => format!("{} archive", z.format.name()),
    };
    format!(
        "{how}: {:.2}x smaller ({} of files, {} of archive, {:.1}% saved)",
        z.ratio(),
        format_size_human(z.tree_bytes),
        format_size_human(z.archive_bytes),
        z.saving_pct()
    )
}

/// The check of a made tree, in words.
pub fn verify_words(v: &Verified) -> String {
    if v.ok {
        let files = match v.files {
            0 => String::new(),
            n => format!(" ({n} files)"),
        };
        return format!("the same{files}, against {}", v.against);
    }
    format!(
        "DIFFERENT, against {}: {} missing, {} of another size, {} with other content, {} \
         extra ({})",
        v.against,
        v.missing,
        v.wrong_size,
        v.wrong_content,
        v.extra,
        v.first.join(", ")
    )
}

/// Which was faster, the tool or iogauge, and by how much.
pub fn tool_verdict(t: &ToolResult) -> String {
    let ratio = t.speed_ratio.unwrap_or(0.0);
    if ratio >= 1.0 {
        format!("iogauge {ratio:.2}x as fast")
    } else {
        format!(
            "{} {:.2}x as fast",
            t.tool,
            1.0 / ratio.max(f64::MIN_POSITIVE)
        )
    }
}

pub const CSV_HEADER: &str = "step,label,who,repetition,elapsed_ns,sync_ns,files,dirs,links,bytes_read,bytes_written,files_per_s,read_bytes_per_s,write_bytes_per_s,cpu_user_ns,cpu_system_ns,busy_pct,bound,cache_resident_pct,archive_bytes,verified";

pub fn csv(r: &WorkloadResult) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    let q = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    for (i, s) in r.steps.iter().enumerate() {
        for (k, b) in s.reps.iter().enumerate() {
            let secs = b.elapsed_ns as f64 / 1e9;
            let rate = |v: u64| if secs > 0.0 { v as f64 / secs } else { 0.0 };
            let _ =
                writeln!(
                out,
                "{},{},iogauge,{},{},{},{},{},{},{},{},{:.1},{:.1},{:.1},{},{},{:.1},{},{},{},{}",
                i + 1,
                q(&s.label),
                k + 1,
                b.elapsed_ns,
                b.sync_ns.map_or(String::new(), |v| v.to_string()),
                b.files,
                b.dirs,
                b.links,
                b.bytes_read,
                b.bytes_written,
                b.files_per_s(s.step.kind),
                rate(b.bytes_read),
                rate(b.bytes_written),
                b.cpu.user_ns,
                b.cpu.system_ns,
                b.cpu.busy_pct,
                b.cpu.bound.name(),
                b.cache
                    .resident_pct
                    .map_or(String::new(), |p| format!("{p:.1}")),
                b.compression
                    .as_ref()
                    .map_or(String::new(), |z| z.archive_bytes.to_string()),
                b.verify.as_ref().map_or(String::new(), |v| v.ok.to_string()),
            );
        }
        if let Some(t) = &s.tool {
            for (k, ns) in t.elapsed_ns.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "{},{},{},{},{ns},,,,,,,,,,,,,,,,",
                    i + 1,
                    q(&s.label),
                    q(&t.tool),
                    k + 1
                );
            }
        }
    }
    out
}
