//! Runs a [`JobSpec`]: opens the targets, starts one worker thread per target thread, keeps the
//! warm-up / measured / cool-down windows, stops on time, bytes, Ctrl-C or error, and turns
//! what the workers counted into a [`RunResult`].
//!
//! Timeline, on one monotonic clock shared by all threads:
//! start --warm-up--> m0 --measured--> m1 --cool-down--> stop. Only completions stamped in
//! [m0, m1) count.

pub mod collect;
pub mod offsets;
pub mod rng;
pub mod target;
pub mod worker;

use crate::engine::{null::NullEngine, sync::SyncEngine, uring::UringEngine};
use crate::error::{errno_name, Error, Result};
use crate::result::*;
use crate::spec::{EngineKind, JobSpec, Stop};
use crate::stats::{cpu, LatencyHistogram};
use collect::Collector;
use offsets::OffsetGen;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};
use target::{Cleanup, OpenTarget};
use worker::{DirTotals, HistPool, WorkerOutcome, WorkerPlan};

/// Nanoseconds since the start of the run, on the monotonic clock.
pub struct Clock {
    base: Instant,
}

impl Clock {
    fn new() -> Self {
        Clock {
            base: Instant::now(),
        }
    }
    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.base.elapsed().as_nanos() as u64
    }
}

/// Shared between the main thread and the workers.
pub struct Control {
    pub clock: Clock,
    pub ready: Barrier,
    pub go: Barrier,
    pub measure_start_ns: AtomicU64,
    pub measure_end_ns: AtomicU64,
    /// Workers stop issuing at this time; nothing after it counts.
    pub stop_ns: AtomicU64,
    pub interval_ns: u64,
    pub hist_pool: HistPool,
    failure: Mutex<Option<(String, u64)>>,
}

impl Control {
    /// Stop the run because of an error; the first error is the one reported.
    pub fn fail(&self, msg: String, at_ns: u64) {
        if let Ok(mut f) = self.failure.lock() {
            if f.is_none() {
                *f = Some((msg, at_ns));
            }
        }
        self.stop_ns.fetch_min(at_ns, Ordering::Relaxed);
    }
}

pub enum Msg {
    Interval(Box<worker::IntervalMsg>),
    Done(usize),
}

/// Decide the engine and queue depth that will really run, with a note for each change.
fn resolve_engine(job: &JobSpec, notes: &mut Vec<String>) -> Result<(EngineKind, u32)> {
    let engine = match job.engine {
        Some(EngineKind::IoUring) => {
            UringEngine::probe().map_err(|e| {
                Error::usage(format!(
                    "--engine io_uring: io_uring is not available here ({e}); use --engine sync"
                ))
            })?;
            EngineKind::IoUring
        }
        Some(e) => e,
        None => match UringEngine::probe() {
            Ok(()) => EngineKind::IoUring,
            Err(e) => {
                notes.push(format!(
                    "io_uring is not available here ({e}); using the sync engine"
                ));
                EngineKind::Sync
            }
        },
    };
    let mut qd = job.queue_depth;
    if engine == EngineKind::Sync && qd > 1 {
        notes.push(format!(
            "the sync engine keeps one I/O in flight per thread: queue depth {qd} runs as 1; use --engine io_uring or more --threads"
        ));
        qd = 1;
    }
    Ok((engine, qd))
}

/// Run the job. `interrupted` is set by the Ctrl-C/SIGTERM handler. Created files are removed
/// when `cleanup` is dropped by the caller, after the report is written.
pub fn run(
    job: &JobSpec,
    command_line: Vec<String>,
    interrupted: &AtomicBool,
    cleanup: &mut Cleanup,
) -> Result<RunResult> {
    let mut notes = Vec::new();
    let (engine, qd) = resolve_engine(job, &mut notes)?;
    let targets = target::open_targets(job, cleanup, interrupted)?;
    if interrupted.load(Ordering::Relaxed) {
        return Err(Error::Interrupted(
            "interrupted before the run started".into(),
        ));
    }

    let nthreads = job.total_threads();
    let gap_ns = match (job.rate_iops, job.rate_bytes_per_sec) {
        (Some(iops), _) => Some((1_000_000_000 / iops).max(1)),
        (_, Some(bw)) => {
            Some(((job.block_size as u128 * 1_000_000_000) / bw as u128).max(1) as u64)
        }
        _ => None,
    };
    let quota = match job.stop {
        Stop::TotalBytes { bytes } => {
            let per = (bytes / nthreads / job.block_size).max(1) * job.block_size;
            if per * nthreads != bytes {
                notes.push(format!(
                    "--total {bytes} bytes split over {nthreads} threads as {per} bytes each ({} in all)",
                    per * nthreads
                ));
            }
            Some(per)
        }
        Stop::Duration { .. } => None,
    };

    let ctl = Control {
        clock: Clock::new(),
        ready: Barrier::new(nthreads as usize + 1),
        go: Barrier::new(nthreads as usize + 1),
        measure_start_ns: AtomicU64::new(0),
        measure_end_ns: AtomicU64::new(u64::MAX),
        stop_ns: AtomicU64::new(u64::MAX),
        interval_ns: job.interval_ns,
        hist_pool: Mutex::new(Vec::new()),
        failure: Mutex::new(None),
    };
    // Bounded: if the collector ever falls behind, workers wait rather than memory growing.
    // Each message is one interval of one worker (about 0.5 MB of histograms at most).
    let (tx, rx) = sync_channel::<Msg>(4 * nthreads as usize + 8);
    let mut plans = Vec::new();
    for (ti, t) in targets.iter().enumerate() {
        let shared = Arc::new(AtomicU64::new(0));
        for th in 0..job.threads_per_target {
            plans.push((
                t.file.as_raw_fd(),
                WorkerPlan {
                    id: plans.len(),
                    target: ti,
                    thread: th,
                    queue_depth: qd,
                    block_size: job.block_size as u32,
                    write_pct: job.write_pct as u64,
                    seed: job.seed,
                    offsets: OffsetGen::new(&job.pattern, t.start, t.end, job.block_size, &shared),
                    gap_ns,
                    quota_bytes: quota,
                    continue_on_error: job.continue_on_error,
                    path: t.path.display().to_string(),
                },
            ));
        }
    }

    let mut started_unix_ns = 0;
    let mut collector = Collector::new(plans.len());
    let mut cpu_start = None;
    let mut cpu_end = None;
    let mut interrupted_at = None;
    let outcomes: Vec<WorkerOutcome> = std::thread::scope(|s| -> Result<Vec<WorkerOutcome>> {
        let mut handles = Vec::new();
        for (fd, plan) in plans {
            let tx = tx.clone();
            let ctl = &ctl;
            let h = std::thread::Builder::new()
                .name(format!("iogauge-t{}-{}", plan.target, plan.thread))
                .spawn_scoped(s, move || -> std::result::Result<WorkerOutcome, String> {
                    match engine {
                        EngineKind::IoUring => {
                            match UringEngine::new(fd, qd, job.submit_batch.min(qd)) {
                                Ok(e) => Ok(worker::run(e, plan, ctl, tx)),
                                Err(e) => {
                                    // Still pass both barriers so the others are not left waiting.
                                    ctl.fail(format!("cannot set up io_uring: {e}"), 0);
                                    ctl.ready.wait();
                                    ctl.go.wait();
                                    let _ = tx.send(Msg::Done(plan.id));
                                    Err(format!("cannot set up io_uring: {e}"))
                                }
                            }
                        }
                        EngineKind::Sync => Ok(worker::run(SyncEngine::new(fd), plan, ctl, tx)),
                        EngineKind::Null => Ok(worker::run(NullEngine::default(), plan, ctl, tx)),
                    }
                })
                .map_err(|e| Error::runtime(format!("cannot start a worker thread: {e}")))?;
            handles.push(h);
        }
        drop(tx);
        ctl.ready.wait();
        let start = ctl.clock.now_ns();
        let m0 = start + job.warmup_ns;
        let m1 = match job.stop {
            Stop::Duration { ns } => m0 + ns,
            Stop::TotalBytes { .. } => u64::MAX,
        };
        ctl.measure_start_ns.store(m0, Ordering::Relaxed);
        ctl.measure_end_ns.store(m1, Ordering::Relaxed);
        let planned_stop = m1.saturating_add(job.cooldown_ns);
        ctl.stop_ns.fetch_min(planned_stop, Ordering::Relaxed);
        started_unix_ns = unix_now_ns() + job.warmup_ns;
        ctl.go.wait();

        while !collector.all_done() {
            let now = ctl.clock.now_ns();
            if cpu_start.is_none() && now >= m0 {
                cpu_start = Some(cpu::sample());
            }
            if cpu_end.is_none() && now >= m1.min(ctl.stop_ns.load(Ordering::Relaxed)) {
                cpu_end = Some(cpu::sample());
            }
            if interrupted_at.is_none() && interrupted.load(Ordering::Relaxed) {
                interrupted_at = Some(now);
                ctl.stop_ns.fetch_min(now, Ordering::Relaxed);
            }
            // Wake for the next window edge, and often enough to see Ctrl-C.
            let next_edge = [m0, m1]
                .into_iter()
                .filter(|&e| e > now)
                .min()
                .unwrap_or(u64::MAX);
            let wait = (next_edge - now).min(50_000_000);
            match rx.recv_timeout(Duration::from_nanos(wait.max(100_000))) {
                Ok(Msg::Interval(m)) => collector.add(*m, &ctl.hist_pool),
                Ok(Msg::Done(w)) => collector.worker_done(w),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let end_sample = cpu::sample();
        if cpu_start.is_none() {
            cpu_start = Some(end_sample.clone());
        }
        cpu_end.get_or_insert(end_sample);
        let mut outcomes = Vec::new();
        let mut setup_error = None;
        for h in handles {
            match h.join() {
                Ok(Ok(o)) => outcomes.push(o),
                Ok(Err(e)) => {
                    setup_error.get_or_insert(e);
                    outcomes.push(WorkerOutcome {
                        totals: Default::default(),
                        errors: vec![],
                        quota_done_ns: None,
                    })
                }
                Err(_) => return Err(Error::runtime("a worker thread panicked")),
            }
        }
        if let Some(e) = setup_error {
            return Err(Error::runtime(e));
        }
        Ok(outcomes)
    })?;

    let m0 = ctl.measure_start_ns.load(Ordering::Relaxed);
    let m1 = ctl.measure_end_ns.load(Ordering::Relaxed);
    let failure = ctl.failure.lock().ok().and_then(|f| f.clone());
    let (stop_reason, stop_message, cut_at) = if let Some((msg, at)) = failure {
        (StopReason::IoError, Some(msg), Some(at))
    } else if let Some(at) = interrupted_at {
        (
            StopReason::Interrupted,
            Some("stopped by a signal (Ctrl-C or SIGTERM)".to_string()),
            Some(at),
        )
    } else {
        (StopReason::Completed, None, None)
    };
    let planned_end = if m1 == u64::MAX {
        outcomes
            .iter()
            .filter_map(|o| o.quota_done_ns)
            .max()
            .unwrap_or(m0)
    } else {
        m1
    };
    let measured_end = cut_at.map_or(planned_end, |c| c.min(planned_end));
    let measured_ns = measured_end.saturating_sub(m0);

    Ok(build_result(BuildInput {
        job,
        command_line,
        started_unix_ns,
        stop_reason,
        stop_message,
        notes,
        engine,
        qd,
        measured_ns,
        cpu: cpu::usage(
            cpu_start.as_ref().unwrap_or(&Default::default()),
            cpu_end.as_ref().unwrap_or(&Default::default()),
        ),
        targets: &targets,
        collector,
        outcomes,
    }))
}

fn unix_now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

struct BuildInput<'a> {
    job: &'a JobSpec,
    command_line: Vec<String>,
    started_unix_ns: u64,
    stop_reason: StopReason,
    stop_message: Option<String>,
    notes: Vec<String>,
    engine: EngineKind,
    qd: u32,
    measured_ns: u64,
    cpu: Vec<crate::stats::cpu::CpuUsage>,
    targets: &'a [OpenTarget],
    collector: Collector,
    outcomes: Vec<WorkerOutcome>,
}

fn dir_result(ios: u64, bytes: u64, hist: &LatencyHistogram, measured_ns: u64) -> DirResult {
    let secs = measured_ns as f64 / 1e9;
    let rate = |v: u64| if secs > 0.0 { v as f64 / secs } else { 0.0 };
    DirResult {
        ios,
        bytes,
        iops: rate(ios),
        bytes_per_sec: rate(bytes),
        latency: hist.summary(),
    }
}

/// Sum of directions/threads, merging histograms exactly.
fn pair(parts: &[&[DirTotals; 2]], measured_ns: u64) -> DirPair {
    let mut dirs: [DirTotals; 2] = Default::default();
    for p in parts {
        for d in 0..2 {
            dirs[d].ios += p[d].ios;
            dirs[d].bytes += p[d].bytes;
            dirs[d].hist.merge(&p[d].hist);
        }
    }
    let mut all = dirs[0].hist.clone();
    all.merge(&dirs[1].hist);
    DirPair {
        read: dir_result(dirs[0].ios, dirs[0].bytes, &dirs[0].hist, measured_ns),
        write: dir_result(dirs[1].ios, dirs[1].bytes, &dirs[1].hist, measured_ns),
        all: dir_result(
            dirs[0].ios + dirs[1].ios,
            dirs[0].bytes + dirs[1].bytes,
            &all,
            measured_ns,
        ),
    }
}

fn error_counts(errs: &[(i32, u64)]) -> Vec<ErrorCount> {
    let mut v: Vec<ErrorCount> = errs
        .iter()
        .map(|&(e, n)| ErrorCount {
            errno: e,
            name: errno_name(e),
            count: n,
        })
        .collect();
    v.sort_by_key(|e| e.errno);
    v
}

fn build_result(b: BuildInput) -> RunResult {
    let job = b.job;
    let tpt = job.threads_per_target as usize;
    let mut all_errors: Vec<(i32, u64)> = Vec::new();
    let mut targets = Vec::new();
    for (ti, t) in b.targets.iter().enumerate() {
        let ids = ti * tpt..(ti + 1) * tpt;
        let threads = ids
            .clone()
            .map(|w| {
                for &(e, n) in &b.outcomes[w].errors {
                    match all_errors.iter_mut().find(|x| x.0 == e) {
                        Some(x) => x.1 += n,
                        None => all_errors.push((e, n)),
                    }
                }
                ThreadResult {
                    thread: (w - ti * tpt) as u32,
                    total: pair(&[&b.outcomes[w].totals], b.measured_ns),
                    errors: error_counts(&b.outcomes[w].errors),
                }
            })
            .collect();
        let parts: Vec<&[DirTotals; 2]> = ids.map(|w| &b.outcomes[w].totals).collect();
        targets.push(TargetResult {
            path: t.path.display().to_string(),
            kind: t.kind,
            size_bytes: t.size,
            working_set_start: t.start,
            working_set_end: t.end,
            created: t.created,
            threads,
            total: pair(&parts, b.measured_ns),
        });
    }
    let parts: Vec<&[DirTotals; 2]> = b.outcomes.iter().map(|o| &o.totals).collect();
    let total = pair(&parts, b.measured_ns);

    let interval = job.interval_ns;
    let mut samples = Vec::new();
    for (i, s) in b.collector.samples.iter().enumerate() {
        let start_ns = i as u64 * interval;
        if start_ns >= b.measured_ns {
            break;
        }
        let dir = |d: usize| SampleDir {
            ios: s.ios[d],
            bytes: s.ios[d] * job.block_size,
            latency_mean_ns: s.mean_ns[d],
            latency_p99_ns: s.p99_ns[d],
        };
        samples.push(Sample {
            start_ns,
            duration_ns: interval.min(b.measured_ns - start_ns),
            read: dir(0),
            write: dir(1),
        });
    }
    RunResult {
        schema: SCHEMA_NAME,
        schema_version: SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        command_line: b.command_line,
        started_unix_ns: b.started_unix_ns,
        partial: b.stop_reason != StopReason::Completed,
        stop_reason: b.stop_reason,
        stop_message: b.stop_message,
        notes: b.notes,
        job: job.clone(),
        engine: b.engine,
        queue_depth: b.qd,
        system: SystemInfo::collect(),
        measured_ns: b.measured_ns,
        cpu: b.cpu,
        targets,
        total,
        errors: error_counts(&all_errors),
        time_series: TimeSeries {
            interval_ns: interval,
            samples,
        },
        iogauge_usage: SelfUsage::now(),
    }
}
