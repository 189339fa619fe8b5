//! The last stage of a run: what the workers counted, turned into a [`RunResult`]: totals
//! per thread, target and run (histograms merged exactly), errors by errno, the time series.

use super::collect::SampleRec;
use super::finish::Finished;
use super::measure::{cpu_for, Measured};
use super::plan::RunPlan;
use super::prepare::{set_name, Prepared};
use super::target::OpenTarget;
use super::worker::{DirTotals, LatHists, WorkerOutcome};
use crate::result::*;
use crate::spec::JobSpec;

/// Turn what the run counted into its result; warnings are judged on it afterwards.
pub fn build(
    job: &JobSpec,
    plan: RunPlan,
    prepared: &Prepared,
    measured: Measured,
    finished: Finished,
    command_line: Vec<String>,
    keep: super::Keep,
) -> RunResult {
    build_result(BuildInput {
        job,
        clock: prepared.clock_info.clone(),
        command_line,
        started_unix_ns: measured.started_unix_ns,
        stop_reason: finished.stop_reason,
        stop_message: finished.stop_message,
        notes: plan.notes,
        engine: plan.engine.kind,
        qd: plan.queue_depth,
        measured_ns: finished.measured_ns,
        cpu: measured.cpu,
        signals: measured.signals,
        targets: &prepared.targets,
        collector: measured.collector,
        outcomes: finished.outcomes,
        stonewall: finished.stonewall,
        keep,
    })
}

struct BuildInput<'a> {
    job: &'a JobSpec,
    clock: crate::clock::ClockInfo,
    command_line: Vec<String>,
    started_unix_ns: u64,
    stop_reason: StopReason,
    stop_message: Option<String>,
    notes: Vec<String>,
    engine: crate::engine::EngineKind,
    qd: u32,
    measured_ns: u64,
    cpu: Vec<crate::stats::cpu::CpuUsage>,
    signals: Option<crate::os::vitals::Signals>,
    targets: &'a [OpenTarget],
    collector: super::collect::Collector,
    outcomes: Vec<WorkerOutcome>,
    stonewall: Option<StonewallResult>,
    keep: super::Keep,
}

/// `histograms`: serialize the latency histograms too. Done for targets and the run, not for
/// each thread: those merge exactly into their target's, and sixteen threads' worth would
/// make a saved result ten times larger for nothing a report uses. `every`: the submission
/// and scheduled histograms too (results merged later).
fn dir_result(
    t: &DirTotals,
    measured_ns: u64,
    async_engine: bool,
    histograms: bool,
    every: bool,
) -> DirResult {
    let secs = measured_ns as f64 / 1e9;
    let rate = |v: u64| if secs > 0.0 { v as f64 / secs } else { 0.0 };
    let lat = t.lat.as_deref();
    DirResult {
        ios: t.ios,
        bytes: t.bytes,
        iops: rate(t.ios),
        bytes_per_sec: rate(t.bytes),
        latency: lat.and_then(|l| l.completion.summary()),
        latency_submission: lat
            .filter(|_| async_engine)
            .and_then(|l| l.submission.summary()),
        latency_total: lat.and_then(|l| l.total.summary()),
        latency_scheduled: lat.and_then(|l| l.scheduled.summary()),
        latency_histogram: lat
            .filter(|l| histograms && l.completion.count() > 0)
            .map(|l| l.completion.to_base64()),
        latency_total_histogram: lat
            .filter(|l| histograms && l.total.count() > 0)
            .map(|l| l.total.to_base64()),
        latency_submission_histogram: lat
            .filter(|l| histograms && every && async_engine && l.submission.count() > 0)
            .map(|l| l.submission.to_base64()),
        latency_scheduled_histogram: lat
            .filter(|l| histograms && every && l.scheduled.count() > 0)
            .map(|l| l.scheduled.to_base64()),
    }
}

fn add_totals(into: &mut DirTotals, p: &DirTotals) {
    into.ios += p.ios;
    into.bytes += p.bytes;
    if let Some(l) = &p.lat {
        into.lat
            .get_or_insert_with(|| Box::new(LatHists::default()))
            .merge(l);
    }
}

/// Sum of directions/threads, merging histograms exactly.
/// `trims`: the job trims, so the result has trims (even none done).
fn pair(
    parts: &[&[DirTotals; 3]],
    (measured_ns, async_engine): (u64, bool),
    histograms: bool,
    every: bool,
    trims: bool,
) -> DirPair {
    let mut dirs: [DirTotals; 3] = Default::default();
    for p in parts {
        for d in 0..3 {
            add_totals(&mut dirs[d], &p[d]);
        }
    }
    let mut all = dirs[0].clone();
    add_totals(&mut all, &dirs[1]);
    add_totals(&mut all, &dirs[2]);
    let result = |d: &DirTotals| dir_result(d, measured_ns, async_engine, histograms, every);
    DirPair {
        read: result(&dirs[0]),
        write: result(&dirs[1]),
        trim: trims.then(|| result(&dirs[2])),
        all: result(&all),
    }
}

/// --zbd: the zones' resets, and a note where threads ended early for want of data or zones.
fn zones(b: &BuildInput, notes: &mut Vec<String>) -> Option<crate::result::ZonesResult> {
    let geo = b.job.shape.zbd?;
    let outs: Vec<_> = b.outcomes.iter().filter_map(|o| o.zbd).collect();
    let flag = b.job.name(crate::spec::Flag::Zbd);
    let read = outs.iter().filter(|o| o.nothing_to_read).count();
    let write = outs.iter().filter(|o| o.no_zone_to_write).count();
    if read > 0 {
        notes.push(format!(
            "{flag}: {read} thread(s) ended early: no zone held written data left to read (reads see only what lies below a write pointer, as fio's with read_beyond_wp=0)"
        ));
    }
    if write > 0 {
        notes.push(format!(
            "{flag}: {write} thread(s) ended early: no zone of the working set could be opened for writing"
        ));
    }
    Some(crate::result::ZonesResult {
        zone_size: geo.size,
        zone_capacity: geo.capacity,
        resets: outs.iter().map(|o| o.resets).sum(),
        threads_ended_early: (read + write) as u32,
    })
}

fn build_result(b: BuildInput) -> RunResult {
    let job = b.job;
    let async_engine = b.engine.is_async();
    let mut waits = WaitStats::default();
    let mut injected: Option<crate::stats::LatencyHistogram> = None;
    let mut all_errors: Vec<ErrorCount> = Vec::new();
    for o in &b.outcomes {
        waits.add(&o.waits);
        if let Some(h) = &o.injected {
            injected.get_or_insert_with(Default::default).merge(h);
        }
        crate::result::merge_errors(&mut all_errors, &o.errors);
    }
    let targets = b
        .targets
        .chunks(job.files_per_set())
        .enumerate()
        .map(|(ti, set)| target_result(&b, ti, set, async_engine))
        .collect();
    let parts: Vec<&[DirTotals; 3]> = b.outcomes.iter().map(|o| &o.totals).collect();
    let total = pair(
        &parts,
        (b.measured_ns, async_engine),
        true,
        b.keep.every_histogram,
        !job.shape.trim.is_none(),
    );
    let series = time_series(&b);
    let mut notes = b.notes.clone();
    if job.fill {
        let full = b.outcomes.iter().any(|o| o.filled_ns.is_some());
        notes.push(match full {
            true => format!(
                "--fill: the file system was full after {} bytes written",
                total.write.bytes
            ),
            false => format!(
                "--fill: {} bytes written without filling the file system",
                total.write.bytes
            ),
        });
    }
    let latency_target = latency_target(&b);
    let zones = zones(&b, &mut notes);
    RunResult {
        header: Header::new(
            SCHEMA_NAME,
            SCHEMA_VERSION,
            b.started_unix_ns,
            b.command_line.clone(),
        ),
        partial: b.stop_reason != StopReason::Completed,
        stop_reason: b.stop_reason,
        stop_message: b.stop_message.clone(),
        notes,
        warnings: Vec::new(),
        job: job.clone(),
        mode: if job.latency {
            Mode::Latency
        } else {
            Mode::Iops
        },
        engine: b.engine,
        queue_depth: b.qd,
        io_uring: b.outcomes.iter().find_map(|o| o.uring),
        clock: b.clock.clone(),
        waits,
        injected_latency: injected.and_then(|h| h.summary()),
        measured_ns: b.measured_ns,
        cpu: b.cpu.clone(),
        targets,
        total,
        errors: all_errors,
        phases: series.phases(RunResult::through_cache(job, b.engine)),
        time_series: series,
        iogauge_usage: SelfUsage::now(),
        flushes: flush_result(&b),
        cluster: None,
        stonewall: b.stonewall,
        verify: None,
        latency_target,
        zones,
        signals: b.signals.clone(),
        limit: None,
    }
}

/// --latency-target: the depth the threads' searches ended at.
fn latency_target(b: &BuildInput) -> Option<crate::result::LatencyTargetResult> {
    let l = b.job.limits.latency_target?;
    let depth = b.outcomes.iter().filter_map(|o| o.latency_depth).min()?;
    Some(crate::result::LatencyTargetResult {
        depth,
        target_ns: l.ns,
        window_ns: l.window_ns,
        pct: l.pct,
        settled: b.outcomes.iter().any(|o| o.settled_ns.is_some()),
    })
}

/// --fsync / --end-fsync: how many flushes, how long they took, the longest end flush.
fn flush_result(b: &BuildInput) -> Option<FlushResult> {
    (b.job.per_io.flush.is_some() || b.job.per_io.end_fsync).then(|| {
        let mut lat = crate::stats::LatencyHistogram::new();
        let mut count = 0;
        let mut end = None;
        for o in &b.outcomes {
            count += o.flushes.count;
            lat.merge(&o.flushes.lat);
            end = end.max(o.flushes.end_ns);
        }
        FlushResult {
            count,
            latency: lat.summary(),
            end_fsync_max_ns: end,
        }
    })
}

/// Target (or set of files) `ti`: its threads, its files' shares, its totals.
fn target_result(
    b: &BuildInput,
    ti: usize,
    set: &[OpenTarget],
    async_engine: bool,
) -> TargetResult {
    let tpt = b.job.threads_per_target as usize;
    let ids = ti * tpt..(ti + 1) * tpt;
    let threads = ids
        .clone()
        .map(|w| thread_result(b, w, w - ti * tpt, async_engine))
        .collect();
    let files = if set.len() > 1 {
        file_shares(set, &b.outcomes[ids.clone()])
    } else {
        Vec::new()
    };
    let parts: Vec<&[DirTotals; 3]> = ids.map(|w| &b.outcomes[w].totals).collect();
    let t = &set[0];
    TargetResult {
        path: set_name(set),
        kind: t.kind,
        size_bytes: set.iter().map(|f| f.size).sum(),
        working_set_start: t.start,
        working_set_end: t.end,
        created: set.iter().all(|f| f.created),
        facts: t.facts.clone(),
        threads,
        total: pair(
            &parts,
            (b.measured_ns, async_engine),
            true,
            b.keep.every_histogram,
            !b.job.shape.trim.is_none(),
        ),
        files,
    }
}

/// Worker `w`, thread `thread` of its target.
fn thread_result(b: &BuildInput, w: usize, thread: usize, async_engine: bool) -> ThreadResult {
    let o = &b.outcomes[w];
    let count = |c: (u64, u64)| IoCount {
        ios: c.0,
        bytes: c.1,
    };
    ThreadResult {
        thread: thread as u32,
        cpu: cpu_for(b.job.affinity.as_ref(), w),
        total: pair(
            &[&o.totals],
            (b.measured_ns, async_engine),
            b.keep.per_thread,
            false,
            !b.job.shape.trim.is_none(),
        ),
        errors: {
            let mut e = o.errors.clone();
            e.sort_by_key(|e| e.errno);
            e
        },
        waits: o.waits,
        files: o
            .files
            .iter()
            .map(|f| FileCounts {
                read: count(f[0]),
                write: count(f[1]),
                trim: count(f[2]),
            })
            .collect(),
        time_series: b
            .collector
            .per_worker
            .as_ref()
            .map_or_else(Vec::new, |series| samples(b, &series[w])),
    }
}

/// Each file of a set: what its threads did to it.
fn file_shares(set: &[OpenTarget], outcomes: &[WorkerOutcome]) -> Vec<FileShare> {
    set.iter()
        .enumerate()
        .map(|(fi, f)| {
            let mut dirs = [IoCount::default(); 3];
            for o in outcomes {
                for (d, c) in dirs.iter_mut().enumerate() {
                    if let Some(share) = o.files.get(fi) {
                        c.ios += share[d].0;
                        c.bytes += share[d].1;
                    }
                }
            }
            FileShare {
                path: f.path.display().to_string(),
                size_bytes: f.size,
                working_set_start: f.start,
                working_set_end: f.end,
                created: f.created,
                read: dirs[0],
                write: dirs[1],
                trim: dirs[2],
            }
        })
        .collect()
}

/// The intervals of the measured window (the last one cut at its end).
fn time_series(b: &BuildInput) -> TimeSeries {
    TimeSeries {
        interval_ns: b.job.timing.interval_ns,
        samples: samples(b, &b.collector.samples),
    }
}

/// `recs`, the collector's records of the whole run or of one worker, as samples.
fn samples(b: &BuildInput, recs: &[SampleRec]) -> Vec<Sample> {
    let interval = b.job.timing.interval_ns;
    let latency = b.job.latency;
    let mut samples = Vec::new();
    for (i, s) in recs.iter().enumerate() {
        let start_ns = i as u64 * interval;
        if start_ns >= b.measured_ns {
            break;
        }
        let timed = |d: usize| latency && s.ios[d] > 0;
        let dir = |d: usize| SampleDir {
            ios: s.ios[d],
            bytes: s.bytes[d],
            latency_mean_ns: timed(d).then_some(s.mean_ns[d]),
            latency_p99_ns: timed(d).then_some(s.p99_ns[d]),
            latency_spread: timed(d).then_some(s.total[d]),
        };
        samples.push(Sample {
            start_ns,
            duration_ns: interval.min(b.measured_ns - start_ns),
            read: dir(0),
            write: dir(1),
            trim: (!b.job.shape.trim.is_none()).then(|| dir(2)),
        });
    }
    samples
}
