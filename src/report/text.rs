//! The text report, shaped like DiskSpd's: input parameters, CPU, per-thread totals for all,
//! read and write I/O, then the latency percentile table. Latencies are in microseconds.

use super::Exporter;
use crate::clock::ClockSource;
use crate::facts::Content;
use crate::result::fs::FsResult;
use crate::result::profile::ProfileResult;
use crate::result::{DirPair, DirResult, Mode, RunResult, TargetResult};
use crate::spec::{Distribution, EngineKind, JobSpec, Pattern, Rate, Stop, Trims};
use crate::stats::{LatencySummary, PERCENTILES};
use crate::units::{format_size, format_size_human};
use std::fmt::Write;

/// iogauge's text report: its latency tables show completion latency (submitted to completed).
pub struct Text;

/// The text report of `iogauge diskspd`: its latency tables show total latency (queued to
/// completed), which is what DiskSpd measures, from issue to completion.
pub struct DiskspdText;

/// The latency the I/O and percentile tables show.
#[derive(Clone, Copy, PartialEq)]
enum Headline {
    Completion,
    Total,
}

impl Exporter for Text {
    fn render(&self, r: &RunResult) -> String {
        Headline::Completion.render(r)
    }

    fn lists_warnings(&self) -> bool {
        true
    }
}

impl Exporter for DiskspdText {
    fn render(&self, r: &RunResult) -> String {
        Headline::Total.render(r)
    }

    fn lists_warnings(&self) -> bool {
        true
    }
}

/// A profile's text report is its table of passes.
impl Exporter<ProfileResult> for Text {
    fn render(&self, p: &ProfileResult) -> String {
        super::table::profile_text(p)
    }
}

impl Exporter<FsResult> for Text {
    fn render(&self, r: &FsResult) -> String {
        super::fs::text(r)
    }
}

fn secs(ns: u64) -> String {
    format!("{:.2}s", ns as f64 / 1e9)
}

fn us(ns: f64) -> String {
    format!("{:.2}", ns / 1000.0)
}

impl Headline {
    fn of(self, d: &DirResult) -> &Option<LatencySummary> {
        match self {
            Headline::Completion => &d.latency,
            Headline::Total => &d.latency_total,
        }
    }

    /// The report, section by section in DiskSpd's order: what was asked, on what, then
    /// what was measured.
    fn render(self, r: &RunResult) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "Command Line: {}", r.header.command_line.join(" "));
        run_parameters(&mut o, r, self);
        for t in &r.targets {
            target_parameters(&mut o, r, t);
        }
        system_facts(&mut o, r);
        for n in &r.notes {
            let _ = writeln!(o, "\nNote: {n}");
        }
        results_heading(&mut o, r);
        cpu_table(&mut o, r);
        for (title, pick) in [
            (
                "Total IO",
                (|p: &DirPair| p.all.clone()) as fn(&DirPair) -> DirResult,
            ),
            ("Read IO", |p: &DirPair| p.read.clone()),
            ("Write IO", |p: &DirPair| p.write.clone()),
            ("Trim IO", |p: &DirPair| p.trim.clone().unwrap_or_default()),
        ] {
            if title == "Trim IO" && r.total.trim.is_none() {
                continue;
            }
            io_table(&mut o, r, title, pick, self);
        }
        if let Some(l) = &r.limit {
            let _ = writeln!(o, "\n{}", l.lines().join("\n"));
        }
        errors_and_flushes(&mut o, r);
        if let Some(v) = &r.verify {
            o.push_str(&verify_lines(v));
        }
        stonewall_lines(&mut o, r);
        latency_target_line(&mut o, r);
        zones_line(&mut o, r);
        if let Some(c) = &r.cluster {
            ranks_table(&mut o, c, self);
        }
        let w = &r.waits;
        let _ = writeln!(
            o,
            "\nCompletions: {} by waiting ({} waits), {} by look-aside after a submission, {} empty look-asides",
            w.waited_completions, w.waits, w.lookaside_completions, w.empty_peeks
        );
        match r.mode {
            Mode::Latency => {
                percentile_table(&mut o, r, self);
                kinds_table(&mut o, r);
            }
            Mode::Iops => {
                let _ = writeln!(
                    o,
                    "\nLatency: not measured in IOPS mode; run again with -L to measure it."
                );
            }
        }
        throughput_over_time(&mut o, r);
        for w in r.warnings.iter().filter(|w| shown_with(w, self)) {
            let _ = writeln!(o, "\nWarning ({}): {}\n  fix: {}", w.code, w.message, w.fix);
        }
        let _ = writeln!(
            o,
            "\niogauge itself: {} peak memory, {} user + {} system CPU",
            format_size_human(r.iogauge_usage.max_rss_bytes),
            secs(r.iogauge_usage.user_cpu_ns),
            secs(r.iogauge_usage.system_cpu_ns)
        );
        o
    }
}

/// "Input parameters": how long, how measured, and with what engine and clock.
fn run_parameters(o: &mut String, r: &RunResult, headline: Headline) {
    let j = &r.job;
    let _ = writeln!(o, "\nInput parameters:\n");
    match j.timing.stop {
        Stop::Duration { ns } => {
            let _ = writeln!(o, "\tduration: {}", secs(ns));
        }
        Stop::TotalBytes { bytes, max_ns } => {
            if j.engine.kind.is_some_and(|e| e.is_file_op()) {
                let _ = writeln!(o, "\ttotal: {} operations, one per file", j.targets.len());
            } else {
                let _ = writeln!(o, "\ttotal: {} ({} bytes)", format_size(bytes), bytes);
            }
            if let Some(ns) = max_ns {
                let _ = writeln!(o, "\tor duration, if sooner: {}", secs(ns));
            }
            if let Some(w) = j.timing.stonewall {
                let how = if w.wear_out { ", then wear-out" } else { "" };
                let _ = writeln!(o, "\tstonewall: {}{how}", secs(w.ns));
            }
        }
    }
    let _ = writeln!(
        o,
        "\twarm up time: {}\n\tcool down time: {}",
        secs(j.timing.warmup_ns),
        secs(j.timing.cooldown_ns)
    );
    let _ = writeln!(
        o,
        "\tengine: {}\n\tinterval: {}ms\n\trandom seed: {}",
        r.engine.name(),
        j.timing.interval_ns / 1_000_000,
        j.seed
    );
    let mode = match r.mode {
        Mode::Iops => "IOPS (I/Os counted, not timed; measure latency in a separate run with -L)",
        Mode::Latency => "latency (-L: every I/O timed; measure IOPS in a separate run without -L)",
    };
    let _ = writeln!(o, "\tmode: {mode}");
    if r.mode == Mode::Latency && headline == Headline::Total {
        let _ = writeln!(
            o,
            "\tlatency: from issue to completion, as DiskSpd measures it (iogauge's total latency)"
        );
    }
    clock_and_ring(o, r);
}

/// The clock iogauge timed with, and the io_uring features it found.
fn clock_and_ring(o: &mut String, r: &RunResult) {
    let c = &r.clock;
    // The system's monotonic clock by its name there (a result may be read on another system).
    let (mono, call) = match r.header.system.kernel.starts_with("Windows") {
        true => ("QueryPerformanceCounter", "QueryPerformanceCounter"),
        false => ("CLOCK_MONOTONIC", "clock_gettime"),
    };
    let source = match c.source {
        ClockSource::Tsc => format!("invariant TSC, calibrated against {mono}"),
        ClockSource::Monotonic => mono.to_string(),
    };
    let _ = writeln!(
        o,
        "\tclock: {source}, {:.1} ns per read ({call}: {:.1} ns)",
        c.read_cost_ns, c.monotonic_cost_ns
    );
    if let Some(u) = &r.io_uring {
        let on = |b: bool| if b { "yes" } else { "no" };
        let w = &r.waits;
        let complete = match r.job.complete_batch {
            0 if w.batch_trials > 0 => format!(
                "auto (the warm-up kept batches on {} of {} threads)",
                w.batches_kept, w.batch_trials
            ),
            0 => "auto (one at a time: no warm-up to try batches in)".to_string(),
            k => k.to_string(),
        };
        let _ = writeln!(
            o,
            "\tio_uring: registered file {}, registered buffers {}, registered ring {}, deferred task run {}, sqpoll {}, polled completions {}, submit batch {}, complete batch {}",
            on(u.registered_file),
            on(u.registered_buffers),
            on(u.registered_ring),
            on(u.defer_taskrun),
            on(u.sqpoll),
            on(u.hipri),
            r.job.submit_batch,
            complete
        );
    }
}

/// One target's parameters: its path, the I/O as asked, where it goes, and by how many.
fn target_parameters(o: &mut String, r: &RunResult, t: &TargetResult) {
    let j = &r.job;
    let _ = writeln!(
        o,
        "\tpath: '{}'{}",
        t.path,
        if t.created {
            " (created by iogauge)"
        } else {
            ""
        }
    );
    let _ = writeln!(o, "\t\tcaching: {}", j.cache.name());
    io_shape(o, j);
    if let Some(e) = j.engine.kind.filter(|e| e.is_file_op()) {
        file_operation(o, j, e, t);
    } else {
        access_pattern(o, j, t);
    }
    let _ = writeln!(
        o,
        "\t\tthreads: {}, outstanding I/O per thread: {}",
        j.threads_per_target, r.queue_depth
    );
    rate_limits(o, j);
}

/// Block sizes, each thread's start, flushes, think time and the data written.
fn io_shape(o: &mut String, j: &JobSpec) {
    match &j.shape.block_mix {
        None => {
            if !j.engine.kind.is_some_and(|e| e.is_file_op()) {
                let _ = writeln!(o, "\t\tblock size: {}", format_size(j.shape.block_size));
            }
        }
        Some(m) => {
            let _ = writeln!(
                o,
                "\t\tblock sizes: reads {}, writes {}",
                m.read.text(),
                m.write.text()
            );
        }
    }
    if j.shape.thread_start > 0 {
        let _ = writeln!(
            o,
            "\t\tthread stride: thread k starts k x {} in",
            format_size(j.shape.thread_start)
        );
    }
    if j.shape.thread_offset > 0 {
        let _ = writeln!(
            o,
            "\t\tthread offset: thread k's working set moved k x {}",
            format_size(j.shape.thread_offset)
        );
    }
    if let Some(p) = j.shape.random_pct {
        let _ = writeln!(
            o,
            "\t\t{p}% of I/Os at random offsets, the others after the one before"
        );
    }
    if let Some(f) = j.per_io.flush {
        let _ = writeln!(
            o,
            "\t\t{} every {} writes{}",
            if f.data_only { "fdatasync" } else { "fsync" },
            f.writes,
            if j.per_io.end_fsync {
                ", and at the end"
            } else {
                ""
            }
        );
    } else if j.per_io.end_fsync {
        let _ = writeln!(o, "\t\tfsync at the end");
    }
    if let Some(t) = j.per_io.think {
        let _ = writeln!(
            o,
            "\t\tthink time: {} us after every {} I/Os ({} us of it spinning)",
            t.ns / 1000,
            t.every,
            t.spin_ns / 1000
        );
    }
    if !j.per_io.buffers.is_default() {
        let _ = writeln!(
            o,
            "\t\twrite data: {}% zeros per 512 bytes{}{}",
            j.per_io.buffers.compress_pct,
            if j.per_io.buffers.refill {
                ", new for every write"
            } else {
                ""
            },
            j.per_io.buffers.dedupe.map_or(String::new(), dedupe_words)
        );
    }
}

/// What --dedupe repeats, after "new for every write".
fn dedupe_words(d: crate::spec::Dedupe) -> String {
    let from = match d.mode {
        crate::spec::DedupeMode::Repeat => "the latest new one".to_string(),
        crate::spec::DedupeMode::WorkingSet { pct } => format!(
            "one of a working set of {pct}% of the region{}",
            if d.global {
                ", shared by the threads"
            } else {
                ""
            }
        ),
    };
    format!(" or, for {}% of writes, an earlier write's: {from}", d.pct)
}

/// A file-operation engine's job: the operation, and how many times each file saw it.
fn file_operation(o: &mut String, j: &JobSpec, e: EngineKind, t: &TargetResult) {
    let caps = e.caps();
    let what = if caps.creates_files {
        "create (open with O_CREAT|O_EXCL, then close)"
    } else if caps.deletes_files {
        "delete (unlink)"
    } else {
        "stat"
    };
    let dir = if j.shape.write_pct == 100 {
        "writes"
    } else {
        "reads"
    };
    let _ = writeln!(
        o,
        "\t\toperation: {what}, once per file, counted as {dir}; no data moves"
    );
    for f in &t.files {
        let _ = writeln!(
            o,
            "\t\t\t'{}': {} operations",
            f.path,
            f.read.ios.saturating_add(f.write.ios)
        );
    }
}

/// Where the I/O goes: random or sequential, the write share, and the working set or the
/// files with what each received.
fn access_pattern(o: &mut String, j: &JobSpec, t: &TargetResult) {
    match &j.shape.pattern {
        Pattern::Random {
            align_bytes,
            distribution,
        } => {
            let dist = match distribution {
                Distribution::Uniform => "uniform".to_string(),
                Distribution::Zipf { theta } => format!("zipf, theta {theta}"),
                Distribution::Pareto { h } => format!("pareto, h {h}"),
                z @ Distribution::Zoned { .. } => z.text(),
            };
            let _ = writeln!(
                o,
                "\t\tusing random I/O (alignment: {}, distribution: {dist})",
                format_size(*align_bytes)
            );
        }
        Pattern::Sequential {
            stride_bytes,
            interlocked,
            backwards,
        } => {
            let _ = writeln!(
                o,
                "\t\tusing {}{}sequential I/O (stride: {})",
                if *interlocked { "interlocked " } else { "" },
                if *backwards { "backwards " } else { "" },
                format_size(*stride_bytes)
            );
        }
    }
    match j.shape.trim {
        Trims::None => {
            let _ = writeln!(o, "\t\twrite percentage: {}%", j.shape.write_pct);
        }
        Trims::Only => {
            let _ = writeln!(o, "\t\ttrims: every I/O ({})", trim_how(t));
        }
        Trims::ThenWrite => {
            let _ = writeln!(
                o,
                "\t\ttrims: each block trimmed ({}), then written",
                trim_how(t)
            );
        }
    }
    if t.files.is_empty() {
        let _ = writeln!(
            o,
            "\t\tworking set: {}..{} of {}",
            t.working_set_start,
            t.working_set_end,
            format_size(t.size_bytes)
        );
        return;
    }
    let service = j.file_sets.map(|f| f.service.text()).unwrap_or_default();
    let open = match j.open_files() {
        Some(n) => format!(", at most {n} open at once"),
        None => String::new(),
    };
    let _ = writeln!(
        o,
        "\t\tfiles: each thread works over all {} (file service: {service}{open})",
        t.files.len()
    );
    for f in &t.files {
        let _ = writeln!(
            o,
            "\t\t\t'{}': working set {}..{} of {}; {} reads, {} writes, {} in all",
            f.path,
            f.working_set_start,
            f.working_set_end,
            format_size(f.size_bytes),
            f.read.ios,
            f.write.ios,
            format_size(f.read.bytes.saturating_add(f.write.bytes))
        );
    }
}

/// How a trim is done on target `t`.
fn trim_how(t: &TargetResult) -> &'static str {
    match t.kind {
        crate::facts::TargetKind::BlockDevice => "BLKDISCARD",
        _ => "a hole punched",
    }
}

fn rate_limits(o: &mut String, j: &JobSpec) {
    if let Some(iops) = j.limits.rate_iops {
        let _ = writeln!(o, "\t\trate limit: {iops} IOPS per thread");
    }
    if let Some(bw) = j.limits.rate_bytes_per_sec {
        let _ = writeln!(o, "\t\trate limit: {}/s per thread", format_size(bw));
    }
    if let Some(d) = j.limits.rate_dirs {
        for (dir, r) in [("reads", d.read), ("writes", d.write)] {
            let limit = match r {
                Some(Rate::Iops { iops }) => format!("{iops} IOPS"),
                Some(Rate::Bytes { per_sec }) => format!("{}/s", format_size(per_sec)),
                None => "none".into(),
            };
            let _ = writeln!(o, "\t\trate limit of {dir}: {limit} per thread");
        }
    }
}

/// "Results": whether they are partial, how long was measured, by how many threads.
fn results_heading(o: &mut String, r: &RunResult) {
    let _ = writeln!(o, "\nResults:\n{}", "*".repeat(79));
    if r.partial {
        let _ = writeln!(
            o,
            "\n*** PARTIAL RESULTS: {} ***",
            r.stop_message
                .as_deref()
                .unwrap_or("the run did not complete")
        );
    }
    let _ = writeln!(o, "\nactual test time:\t{}", secs(r.measured_ns));
    let _ = writeln!(
        o,
        "thread count:\t\t{}\nproc count:\t\t{}",
        r.targets.iter().map(|t| t.threads.len()).sum::<usize>(),
        r.header.system.cpus
    );
}

/// Where the latency target's search ended (`--latency-target`).
fn latency_target_line(o: &mut String, r: &RunResult) {
    let Some(l) = &r.latency_target else {
        return;
    };
    let window = match l.window_ns {
        0 => "every batch of completions".to_string(),
        ns => crate::units::format_ns(ns as f64),
    };
    let how = if l.settled {
        "settled at"
    } else {
        "at the end of the run, at"
    };
    let _ = writeln!(
        o,
        "\nLatency target: {:.2}% of I/Os within {} over {window}: {how} queue depth {}",
        l.pct,
        crate::units::format_ns(l.target_ns as f64),
        l.depth
    );
}

/// What the zones with write pointers came to (`--zbd`).
fn zones_line(o: &mut String, r: &RunResult) {
    let Some(z) = &r.zones else {
        return;
    };
    let capacity = match z.zone_capacity == z.zone_size {
        true => String::new(),
        false => format!(" ({} writable)", format_size(z.zone_capacity)),
    };
    let _ = writeln!(
        o,
        "\nZones: {} each{capacity}; {} zone resets; {} thread(s) ended early",
        format_size(z.zone_size),
        z.resets,
        z.threads_ended_early
    );
}

/// How the stonewall went (`--stonewall`): whether the deadline cut the work, what was done
/// by then and at what rate, and over an MPI job how far apart the ranks were.
fn stonewall_lines(o: &mut String, r: &RunResult) {
    let Some(w) = &r.stonewall else {
        return;
    };
    let how = if w.wear_out { " with wear-out" } else { "" };
    if !w.reached {
        let _ = writeln!(
            o,
            "\nStonewall at {}{how}: not reached, every thread had done its bytes by {}",
            secs(w.deadline_ns),
            secs(w.stopped_ns)
        );
        return;
    }
    let _ = writeln!(
        o,
        "\nStonewall at {}{how}: reached; {:.2} MiB done by then, {:.2} MiB/s over the \
         stonewalled window (until every thread had stopped, {})",
        secs(w.deadline_ns),
        w.bytes_at_deadline as f64 / MIB,
        w.bytes_per_sec() / MIB,
        secs(w.stopped_ns)
    );
    if let Some(q) = w.bytes_per_thread {
        let _ = writeln!(
            o,
            "\tevery thread then went on to {:.2} MiB, the most one had done: equal work, \
             so the totals above include the slowest",
            q as f64 / MIB
        );
    }
    let Some(c) = &r.cluster else {
        return;
    };
    let done: Vec<u64> = c
        .rank_rows
        .iter()
        .filter_map(|row| Some(row.stonewall.as_ref()?.bytes_at_deadline))
        .collect();
    let (Some(&min), Some(&max)) = (done.iter().min(), done.iter().max()) else {
        return;
    };
    let mean = done.iter().sum::<u64>() as f64 / done.len() as f64;
    let _ = writeln!(
        o,
        "\tdone by the deadline per rank: min {:.2} MiB, max {:.2} MiB, mean {:.2} MiB \
         (the slowest did {:.0}% of the fastest)",
        min as f64 / MIB,
        max as f64 / MIB,
        mean / MIB,
        if max > 0 {
            min as f64 * 100.0 / max as f64
        } else {
            100.0
        }
    );
}

/// An MPI job's ranks and hosts, each over its own window beside the aggregate over the
/// job's, to spot a slow client.
fn ranks_table(o: &mut String, c: &crate::result::ClusterResult, h: Headline) {
    let _ = writeln!(
        o,
        "\nMPI ranks: {} on {} host(s); starts within {}, ends within {}; the totals above \
         count every rank over the window from the first start to the last end \
         (the ranks' own rates add up to {:.2} MiB/s)",
        c.ranks,
        c.hosts,
        ms(c.start_skew_ns),
        ms(c.end_skew_ns),
        c.sum_of_rank_bytes_per_sec / MIB
    );
    let row = |o: &mut String, who: &str, d: &DirResult| {
        let lat = h.of(d).as_ref().map_or("-".to_string(), |l| {
            let p99 = l
                .at(99.0)
                .map_or("-".into(), |v| format!("{:.3}", v as f64 / 1e6));
            format!("{:>10.3} {:>10}", l.mean_ns / 1e6, p99)
        });
        let _ = writeln!(
            o,
            "  {who:<28} {:>12} {:>12.2} {:>12.2} {lat}",
            d.ios,
            d.iops,
            d.bytes_per_sec / MIB
        );
    };
    let _ = writeln!(
        o,
        "  {:<28} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "rank (host)", "I/Os", "IOPS", "MiB/s", "mean ms", "p99 ms"
    );
    for r in &c.rank_rows {
        row(o, &format!("{} ({})", r.rank, r.host), &r.total.all);
    }
    if c.hosts > 1 {
        for hr in &c.host_rows {
            row(o, &format!("host {}", hr.host), &hr.total.all);
        }
    }
}

const MIB: f64 = 1024.0 * 1024.0;

fn ms(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

/// The I/O errors by name, and the flushes with their latency.
fn errors_and_flushes(o: &mut String, r: &RunResult) {
    if !r.errors.is_empty() {
        let _ = writeln!(o, "\nI/O errors:");
        for e in &r.errors {
            let at: Vec<String> = e.offsets.iter().map(|o| o.to_string()).collect();
            let _ = match at.is_empty() {
                true => writeln!(o, "\t{:>10}: {}", e.name, e.count),
                false => writeln!(
                    o,
                    "\t{:>10}: {} (at offsets {}{})",
                    e.name,
                    e.count,
                    at.join(", "),
                    if e.count as usize > at.len() {
                        ", ..."
                    } else {
                        ""
                    }
                ),
            };
        }
    }
    let Some(f) = &r.flushes else {
        return;
    };
    let _ = write!(o, "\nFlushes: {}", f.count);
    if let Some(l) = &f.latency {
        let p99 = l
            .percentiles
            .iter()
            .find(|p| p.percentile == 99.0)
            .map_or(0, |p| p.ns);
        let _ = write!(
            o,
            ", latency mean {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            l.mean_ns / 1e6,
            p99 as f64 / 1e6,
            l.max_ns as f64 / 1e6
        );
    }
    if let Some(ns) = f.end_fsync_max_ns {
        let _ = write!(o, "; end fsync {:.3} ms", ns as f64 / 1e6);
    }
    let _ = writeln!(o);
}

/// What data verification found: units checked while the run read them, the read-back pass,
/// the state kept, and the first mismatches.
pub fn verify_lines(v: &crate::verify::VerifyResult) -> String {
    let mut o = String::new();
    let verdict = match v.mismatch_count {
        0 => "no mismatch".to_string(),
        n => format!("{n} MISMATCH{}", if n == 1 { "" } else { "ES" }),
    };
    let _ = writeln!(
        o,
        "\nVerification ({} units, generations in {}): {verdict}",
        crate::units::format_size(v.unit),
        crate::units::format_size_human(v.map_bytes)
    );
    let _ = writeln!(
        o,
        "\tduring the run: {} units checked as they were read{}",
        v.checked,
        match v.unjudged {
            0 => String::new(),
            n => format!(", {n} not judged (never written with verification)"),
        }
    );
    if let Some(p) = &v.pass {
        let _ = writeln!(
            o,
            "\tread back at the end: {} units ({}) in {:.2} s, {} mismatch{}",
            p.checked,
            crate::units::format_size_human(p.bytes),
            p.elapsed_ns as f64 / 1e9,
            p.mismatches,
            if p.mismatches == 1 { "" } else { "es" }
        );
    }
    if !v.states.is_empty() {
        let _ = writeln!(
            o,
            "\tstate kept for iogauge verify: {} ({} checkpoint{} during the run)",
            v.states.join(", "),
            v.checkpoints,
            if v.checkpoints == 1 { "" } else { "s" }
        );
    }
    for m in v.mismatches.iter().take(10) {
        let _ = writeln!(o, "\t{}", m.line());
    }
    if v.mismatch_count > 10 {
        let _ = writeln!(
            o,
            "\t... and {} more (all of the first 100 in --output json)",
            v.mismatch_count - 10
        );
    }
    o
}

/// A sparkline of the throughput per interval, when there is more than one, and the phases
/// found in it.
fn throughput_over_time(o: &mut String, r: &RunResult) {
    let series = super::table::throughput_series(r);
    if series.len() > 1 {
        let max = series.iter().cloned().fold(0.0, f64::max);
        let min = series.iter().cloned().fold(f64::MAX, f64::min);
        let _ = writeln!(
            o,
            "\nThroughput over time ({} intervals of {}ms, {:.1} to {:.1} MB/s):\n  {}",
            series.len(),
            r.time_series.interval_ns / 1_000_000,
            min / 1e6,
            max / 1e6,
            super::table::sparkline(&series, 60)
        );
        phases(o, r);
    }
}

/// The phases under the sparkline, and what a fall from a burst comes to.
fn phases(o: &mut String, r: &RunResult) {
    let unit = super::table::rate_unit(r);
    match r.phases.as_slice() {
        [] => {}
        [p] => {
            let _ = writeln!(
                o,
                "Phases: one: throughput held one level over the run ({} {unit}, p5 {} p95 {}).",
                super::table::rate_value(p.bytes_per_sec_mean, unit),
                super::table::rate_value(p.bytes_per_sec_p5, unit),
                super::table::rate_value(p.bytes_per_sec_p95, unit),
            );
        }
        many => {
            let _ = writeln!(o, "Phases ({}, where the level changed):", many.len());
            let latency = r.mode == Mode::Latency;
            for line in super::table::phase_grid(many, unit, "IOPS", latency)
                .text()
                .lines()
            {
                let _ = writeln!(o, "  {line}");
            }
            if latency {
                let _ = writeln!(o, "  * the median of the phase's interval p99s");
            }
            if let Some(f) = crate::result::fall(many) {
                let _ = writeln!(o, "  {}", super::table::fall_line(&f, unit));
            }
        }
    }
}

fn system_facts(o: &mut String, r: &RunResult) {
    let sys = &r.header.system;
    let _ = writeln!(
        o,
        "\nSystem information:\n\n\thost: {}\n\tkernel: {}\n\tcpu: {}\n\tmemory: {}",
        sys.hostname,
        sys.kernel,
        sys.cpu_line(),
        sys.memory_line()
    );
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    for t in &r.targets {
        let f = &t.facts;
        let _ = writeln!(o, "\ttarget {}:", t.path);
        if let Some(fs) = &f.fs_type {
            let _ = writeln!(
                o,
                "\t\tfile system: {fs} on {} at {} ({})",
                opt(&f.mount_source),
                opt(&f.mount_point),
                opt(&f.mount_options)
            );
        }
        if let Some(r) = &f.remote {
            let _ = writeln!(o, "\t\tprotocol: {}", r.line());
        }
        match &f.block_device {
            Some(dev) => {
                let _ = writeln!(
                    o,
                    "\t\tblock device: {dev} ({}), {}, scheduler {}, queue limits: {} requests, {} in the device",
                    opt(&f.device_model),
                    match f.rotational {
                        Some(true) => "rotational",
                        Some(false) => "non-rotational",
                        None => "rotational: unknown",
                    },
                    opt(&f.scheduler),
                    f.nr_requests.map_or("-".into(), |n| n.to_string()),
                    f.device_queue_depth.map_or("-".into(), |n| n.to_string()),
                );
            }
            None => {
                let _ = writeln!(o, "\t\tblock device: none");
            }
        }
        let _ = writeln!(o, "\t\tO_DIRECT: {}", f.direct_io);
        let content = match f.content {
            Content::Created => "incompressible data written by iogauge",
            Content::Varied => "varied (16 blocks sampled)",
            Content::Zeros => "zeros (16 blocks sampled)",
            Content::Repeating => "a repeating pattern (16 blocks sampled)",
            Content::NotSampled => "not sampled",
        };
        let _ = writeln!(o, "\t\tcontent: {content}");
        if let Some(free) = f.free_bytes {
            let _ = writeln!(o, "\t\tfree space: {}", format_size_human(free));
        }
    }
}

fn cpu_table(o: &mut String, r: &RunResult) {
    let _ = writeln!(
        o,
        "\nCPU |  Usage |  User  | Kernel |  Idle\n{}",
        "-".repeat(42)
    );
    let (mut u, mut k, mut i) = (0.0, 0.0, 0.0);
    for c in &r.cpu {
        let (pu, pk, pi) = (c.pct(c.user_ns), c.pct(c.kernel_ns), c.pct(c.idle_ns));
        u += pu;
        k += pk;
        i += pi;
        let _ = writeln!(
            o,
            "{:>4}| {:>6.2}%| {:>6.2}%| {:>6.2}%| {:>6.2}%",
            c.cpu,
            pu + pk,
            pu,
            pk,
            pi
        );
    }
    let n = r.cpu.len().max(1) as f64;
    let _ = writeln!(
        o,
        "{}\navg.| {:>6.2}%| {:>6.2}%| {:>6.2}%| {:>6.2}%",
        "-".repeat(42),
        (u + k) / n,
        u / n,
        k / n,
        i / n
    );
}

/// Whether `w` applies to a report that shows total latency: the warning that completion
/// latency leaves out the submission call does not.
pub fn applies_to_total(w: &crate::result::Warning) -> bool {
    w.code != "inline-completion"
}

fn shown_with(w: &crate::result::Warning, headline: Headline) -> bool {
    headline == Headline::Completion || applies_to_total(w)
}

fn io_table(
    o: &mut String,
    r: &RunResult,
    title: &str,
    pick: fn(&DirPair) -> DirResult,
    headline: Headline,
) {
    let _ = writeln!(o, "\n{title}");
    let _ = writeln!(
        o,
        "thread |          bytes |        I/Os |     MiB/s |      MB/s |   I/O per s | AvgLat(us) | LatStdDev(us) | file"
    );
    let _ = writeln!(o, "{}", "-".repeat(118));
    let row = |o: &mut String, label: &str, d: &DirResult, file: &str| {
        let (avg, sd) = headline
            .of(d)
            .as_ref()
            .map(|l| (us(l.mean_ns), us(l.stdev_ns)))
            .unwrap_or(("N/A".into(), "N/A".into()));
        let _ = writeln!(
            o,
            "{:>6} | {:>14} | {:>11} | {:>9.2} | {:>9.2} | {:>11.2} | {:>10} | {:>13} | {}",
            label,
            d.bytes,
            d.ios,
            d.bytes_per_sec / (1u64 << 20) as f64,
            d.bytes_per_sec / 1e6,
            d.iops,
            avg,
            sd,
            file
        );
    };
    let mut n = 0;
    for t in &r.targets {
        for th in &t.threads {
            row(o, &n.to_string(), &pick(&th.total), &t.path);
            n += 1;
        }
    }
    let _ = writeln!(o, "{}", "-".repeat(118));
    row(o, "total:", &pick(&r.total), "");
}

/// Submission, completion, total and scheduled latency side by side, and the delay engine's
/// injected latency where there is one.
fn kinds_table(o: &mut String, r: &RunResult) {
    let a = &r.total.all;
    let rows = [
        ("submission", &a.latency_submission),
        ("completion", &a.latency),
        ("total", &a.latency_total),
        ("scheduled", &a.latency_scheduled),
        ("injected", &r.injected_latency),
    ];
    let _ = writeln!(o, "\nLatency kinds, all I/O (us)");
    let _ = writeln!(
        o,
        "      kind |       mean |        p50 |        p99 |      p99.9\n{}",
        "-".repeat(60)
    );
    for (name, l) in rows {
        if let Some(l) = l {
            let p = |q: f64| us(l.at(q).unwrap_or(0) as f64);
            let _ = writeln!(
                o,
                "{:>10} | {:>10} | {:>10} | {:>10} | {:>10}",
                name,
                us(l.mean_ns),
                p(50.0),
                p(99.0),
                p(99.9)
            );
        }
    }
}

fn percentile_table(o: &mut String, r: &RunResult, headline: Headline) {
    let _ = writeln!(o, "\nLatency (us)");
    let mut dirs = vec![
        ("Read", headline.of(&r.total.read)),
        ("Write", headline.of(&r.total.write)),
    ];
    if let Some(t) = &r.total.trim {
        dirs.push(("Trim", headline.of(t)));
    }
    dirs.push(("Total", headline.of(&r.total.all)));
    let mut head = "    %-ile".to_string();
    for (name, _) in &dirs {
        let _ = write!(head, " | {name:>10}");
    }
    let _ = writeln!(o, "{head}\n{}", "-".repeat(head.len()));
    let cell = |l: &Option<LatencySummary>, f: &dyn Fn(&LatencySummary) -> f64| -> String {
        l.as_ref().map(|l| us(f(l))).unwrap_or_else(|| "N/A".into())
    };
    let line = |o: &mut String, label: &str, f: &dyn Fn(&LatencySummary) -> f64| {
        let mut s = format!("{label:>9}");
        for (_, l) in &dirs {
            let _ = write!(s, " | {:>10}", cell(l, f));
        }
        let _ = writeln!(o, "{s}");
    };
    line(o, "min", &|l| l.min_ns as f64);
    for p in PERCENTILES {
        let label = format!("{p}th");
        line(o, &label, &|l| l.at(p).unwrap_or(0) as f64);
    }
    line(o, "max", &|l| l.max_ns as f64);
    line(o, "mean", &|l| l.mean_ns);
    line(o, "stdev", &|l| l.stdev_ns);
}
