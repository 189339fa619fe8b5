//! Runs a [`JobSpec`]: opens the targets, starts one worker thread per target thread, keeps the
//! warm-up / measured / cool-down windows, stops on time, bytes, Ctrl-C or error, and turns
//! what the workers counted into a [`RunResult`].
//!
//! Timeline, on one monotonic clock shared by all threads:
//! start --warm-up--> m0 --measured--> m1 --cool-down--> stop. Only completions stamped in
//! [m0, m1) count.

pub mod collect;
pub mod descriptors;
pub mod offsets;
pub mod steady;
pub mod target;
pub mod worker;

use crate::clock::Clock;
use crate::engine::delay::DelayEngine;
use crate::engine::files::{FileOpEngine, FileOps};
use crate::engine::lazy::{Files, Lazy};
use crate::engine::mmap::{Mapping, MmapEngine};
use crate::engine::sync::{Pread, SyncEngine};
use crate::engine::uring::{UringEngine, UringOptions};
use crate::engine::{null::NullEngine, IoEngine};
use crate::error::{errno_name, Error, Result};
use crate::os::meta::MetaOp;
use crate::os::threads::Gate;
use crate::result::*;
use crate::spec::{Affinity, EngineKind, Flag, JobSpec, Stop};
use crate::stats::cpu;
use collect::Collector;
use offsets::OffsetGen;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use target::{Cleanup, OpenTarget};
use worker::{AlignedBuf, DirTotals, HistPool, LatHists, SizePick, WorkerOutcome, WorkerPlan};

/// Shared between the main thread and the workers.
pub struct Control {
    pub clock: Clock,
    /// Workers and the control thread meet here once every worker is set up, and again to go;
    /// called off when a worker cannot be started.
    pub ready: Gate,
    pub go: Gate,
    pub measure_start_ns: AtomicU64,
    pub measure_end_ns: AtomicU64,
    /// Workers stop issuing at this time; nothing after it counts.
    pub stop_ns: AtomicU64,
    pub interval_ns: u64,
    pub hist_pool: HistPool,
    failure: Mutex<Option<(String, u64)>>,
    /// One per worker, for live progress.
    pub live: Vec<LiveCounters>,
}

/// A worker's running totals of the measured window, published at most every 50 ms with
/// plain stores (one writer), read a few times a second for progress.
/// Aligned to its own cache lines so that workers do not share one.
#[repr(align(128))]
#[derive(Default)]
pub struct LiveCounters {
    pub ios: AtomicU64,
    pub bytes: AtomicU64,
    /// Sum of completion latencies (latency mode only).
    pub lat_sum_ns: AtomicU64,
}

/// Where a run stands, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LivePhase {
    Warmup,
    Measuring,
    Cooldown,
}

#[derive(Debug, Clone, Copy)]
pub struct Live {
    pub phase: LivePhase,
    /// Into the current phase.
    pub elapsed_ns: u64,
    /// Planned length of the current phase; `None` when it ends on a byte count.
    pub planned_ns: Option<u64>,
    /// Totals of the measured window so far, all workers.
    pub ios: u64,
    pub bytes: u64,
    pub lat_sum_ns: u64,
}

/// Watches a run from its control thread: progress bars, mostly.
pub trait Observer {
    /// A pass of a profile starts (`index` from 1 of `count`).
    fn begin(&mut self, _label: &str, _index: usize, _count: usize) {}
    /// A few times a second while the run goes.
    fn update(&mut self, _live: &Live) {}
    /// The targets are open and every worker is set up: the I/O starts next. Not called for a
    /// run that fails before, so an observer that makes files (fio's per-I/O logs) makes them
    /// here and a run refused at setup leaves none behind. An error stops the run before any
    /// I/O, as a failed setup does.
    fn ready(&mut self) -> std::result::Result<(), String> {
        Ok(())
    }
    /// The run has ended.
    fn end(&mut self) {}
    /// Whether to keep a record of every I/O (latency mode only) and hand it to `ios`.
    fn wants_ios(&self) -> bool {
        false
    }
    /// I/O records of worker `worker` (numbered as in the result: thread by thread, target by
    /// target), in completion order, a batch at a time.
    fn ios(&mut self, _worker: usize, _records: &[worker::IoRecord]) {}
}

/// Watches nothing.
pub struct NoObserver;
impl Observer for NoObserver {}

/// How often observers are updated.
const OBSERVE_EVERY_NS: u64 = 200_000_000;

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
    /// A worker's I/O records (per-I/O logs).
    Ios(usize, Vec<worker::IoRecord>),
    Done(usize),
}

/// Decide the engine and queue depth that will really run, with a note for each change.
fn resolve_engine(job: &JobSpec, notes: &mut Vec<String>) -> Result<(EngineKind, u32)> {
    let engine = match job.engine {
        Some(EngineKind::IoUring) => {
            UringEngine::probe().map_err(|e| {
                Error::usage(format!(
                    "{}: io_uring is not available here ({e}); use {}",
                    job.dialect.assign(Flag::Engine, "io_uring"),
                    job.dialect.assign(Flag::Engine, "sync")
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
    if engine.is_inline() && qd > 1 {
        notes.push(format!(
            "the {} engine keeps one I/O in flight per thread: {} runs as 1; use {} or more {}",
            engine.name(),
            job.dialect.assign(Flag::QueueDepth, &qd.to_string()),
            job.dialect.assign(Flag::Engine, "io_uring"),
            job.name(Flag::Threads)
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
    run_observed(job, command_line, interrupted, cleanup, &mut NoObserver)
}

/// [`run`], with `observer` told how the run goes a few times a second.
pub fn run_observed(
    job: &JobSpec,
    command_line: Vec<String>,
    interrupted: &AtomicBool,
    cleanup: &mut Cleanup,
    observer: &mut dyn Observer,
) -> Result<RunResult> {
    run_full(job, command_line, interrupted, cleanup, observer, false)
}

/// [`run_observed`]; `thread_histograms` keeps each thread's latency histograms in the
/// result too (for reports per thread, such as fio's per-clone jobs). Callers that save the
/// result should drop them first: they merge exactly into the target's.
pub fn run_full(
    job: &JobSpec,
    command_line: Vec<String>,
    interrupted: &AtomicBool,
    cleanup: &mut Cleanup,
    observer: &mut dyn Observer,
    thread_histograms: bool,
) -> Result<RunResult> {
    descriptors::check(job)?;
    let mut notes = Vec::new();
    let (engine, qd) = resolve_engine(job, &mut notes)?;
    let mut service = job.file_sets.map(|f| f.service);
    if let Some(f) = job.file_sets {
        if f.service == crate::spec::FileService::Slots && qd % f.files != 0 {
            notes.push(format!(
                "{} slots needs a queue depth that splits over the {} files; at queue depth {qd} each thread goes round robin instead",
                job.name(Flag::FileService),
                f.files
            ));
            service = Some(crate::spec::FileService::RoundRobin { every: 1 });
        }
    }
    let mut targets = target::open_targets(job, cleanup, interrupted)?;
    if interrupted.load(Ordering::Relaxed) {
        return Err(Error::Interrupted(
            "interrupted before the run started".into(),
        ));
    }

    let nthreads = job.total_threads();
    // A rate in I/Os is a fixed gap between starts; a rate in bytes, a gap that follows each
    // I/O's length (validation allows one of the two).
    let (read_sizes, write_sizes) = job.sizes();
    let quota = match job.stop {
        Stop::TotalBytes { bytes, .. } => {
            // Whole blocks where every I/O is one size; with a mix the last I/O may pass it.
            let unit = if job.block_mix.is_some() {
                1
            } else {
                job.block_size
            };
            let per = (bytes / nthreads / unit).max(1) * unit;
            if per * nthreads != bytes {
                notes.push(format!(
                    "{} {bytes} bytes split over {nthreads} threads as {per} bytes each ({} in all)",
                    job.name(Flag::Total),
                    per * nthreads
                ));
            }
            Some(per)
        }
        Stop::Duration { .. } => None,
    };

    if let Some(Affinity::Cpus { cpus }) = &job.affinity {
        let allowed = allowed_cpus();
        if let Some(bad) = cpus.iter().find(|c| !allowed.contains(c)) {
            return Err(Error::usage(format!(
                "{}: CPU {bad} is not available to this process (it may use {})",
                job.name(Flag::Affinity),
                allowed
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            )));
        }
    }
    let (clock, clock_info) = Clock::calibrated();
    let uring_opts = UringOptions {
        sqpoll: job.sqpoll,
        hipri: job.hipri,
        register: job.register,
        changing_files: job.open_files().is_some(),
    };
    if engine == EngineKind::IoUring && (job.sqpoll || job.hipri) {
        for t in &targets {
            probe_uring_options(t, job, uring_opts)?;
        }
    }
    let ctl = Control {
        clock,
        ready: Gate::new(nthreads as usize + 1),
        go: Gate::new(nthreads as usize + 1),
        measure_start_ns: AtomicU64::new(0),
        measure_end_ns: AtomicU64::new(u64::MAX),
        stop_ns: AtomicU64::new(u64::MAX),
        interval_ns: job.interval_ns,
        hist_pool: Mutex::new(Vec::new()),
        failure: Mutex::new(None),
        live: (0..nthreads).map(|_| LiveCounters::default()).collect(),
    };
    // Bounded: if the collector ever falls behind, workers wait rather than memory growing.
    // Each message is one interval of one worker (about 0.5 MB of histograms at most).
    let (tx, rx) = sync_channel::<Msg>(4 * nthreads as usize + 8);
    let trace = observer.wants_ios();
    if trace && !job.latency {
        notes.push(format!(
            "per-I/O records need latency mode ({}): none were kept",
            job.name(Flag::Latency)
        ));
    }
    let file_op = match engine {
        EngineKind::FileCreate => Some(MetaOp::Create),
        EngineKind::FileStat => Some(MetaOp::Stat),
        EngineKind::FileDelete => Some(MetaOp::Delete),
        _ => None,
    };
    // Which files an operation succeeded on: a create that did not happen (stopped before it,
    // or the name taken meanwhile) leaves the name to whoever holds it.
    let done: Vec<AtomicBool> = match file_op {
        Some(_) => targets.iter().map(|_| AtomicBool::new(false)).collect(),
        None => Vec::new(),
    };
    let mut plans = Vec::new();
    // Each thread works on one set of files: one target, or `--file-set` of them.
    let per_set = job.files_per_set();
    for (si, set) in targets.chunks(per_set).enumerate() {
        // Interlocked I/O: the threads of a file share its counter.
        let shared: Vec<Arc<AtomicU64>> = set.iter().map(|_| Arc::new(AtomicU64::new(0))).collect();
        // A file operation is one "block" per file: its offset means nothing, and each file
        // gets one before the next (validation allows round robin or sequential only).
        let region = |t: &OpenTarget| match file_op {
            Some(_) => (0, job.block_size),
            None => (t.start, t.end),
        };
        // With --open-files, each thread opens the set's files itself, into `open` places.
        let lazy = match job.open_files() {
            Some(open) => Some((lazy_files(job, set)?, open)),
            None => None,
        };
        for th in 0..job.threads_per_target {
            let files: Vec<(std::os::fd::RawFd, u64)> = match &lazy {
                Some((_, open)) => vec![(-1, 0); *open as usize],
                None => set
                    .iter()
                    .map(|t| (t.file.as_ref().map_or(-1, |f| f.as_raw_fd()), t.size))
                    .collect(),
            };
            let offsets = set
                .iter()
                .zip(&shared)
                .map(|(t, shared)| {
                    let (start, end) = region(t);
                    OffsetGen::new(
                        &job.pattern,
                        start + th as u64 * job.thread_offset,
                        end + th as u64 * job.thread_offset,
                        job.block_size,
                        shared,
                        offsets::Walk {
                            random_pct: job.random_pct,
                            random_every: job.random_every,
                            mixed: job.block_mix.is_some(),
                            start: th as u64 * job.thread_start,
                        },
                    )
                })
                .collect();
            let pick = service.map(|f| {
                let sizes = set.iter().map(&region).map(|(s, e)| e - s).collect();
                offsets::FilePick::new(f, sizes)
            });
            // The names a file-operation engine works on, as the system calls take them.
            let names: Vec<std::ffi::CString> = match file_op {
                Some(_) => set
                    .iter()
                    .map(|t| {
                        std::ffi::CString::new(t.path.as_os_str().as_encoded_bytes()).map_err(
                            |_| {
                                Error::usage(format!(
                                    "target '{}' has a NUL byte in its name",
                                    t.path.display()
                                ))
                            },
                        )
                    })
                    .collect::<Result<_>>()?,
                None => Vec::new(),
            };
            let done = match file_op {
                Some(_) => &done[si * per_set..(si + 1) * per_set],
                None => &[][..],
            };
            plans.push((
                (files, lazy.clone()),
                (names, done),
                WorkerPlan {
                    id: plans.len(),
                    target: si,
                    thread: th,
                    queue_depth: qd,
                    submit_batch: job.submit_batch.min(qd),
                    latency: job.latency,
                    trace,
                    block_size: job.block_size as u32,
                    sizes: [SizePick::new(&read_sizes), SizePick::new(&write_sizes)],
                    write_pct: job.write_pct as u64,
                    seed: job.seed,
                    offsets,
                    pick,
                    pacer: worker::Pacer::new(job.rate_both(), job.rate_dirs, job.write_pct),
                    flush: job.flush,
                    end_fsync: job.end_fsync,
                    think: job.think,
                    refill: job.buffers.refill,
                    min_rate: job.min_rate,
                    compress_pct: job.buffers.compress_pct,
                    quota_bytes: quota,
                    continue_on_error: job.continue_on_error,
                    path: set_name(set),
                    paths: set.iter().map(|t| t.path.display().to_string()).collect(),
                },
            ));
        }
    }

    let mut started_unix_ns = 0;
    let mut collector = Collector::new(plans.len());
    let mut cpu_start = None;
    let mut cpu_end = None;
    let mut interrupted_at = None;
    let mut steady_at: Option<(u64, steady::Settled)> = None;
    let mut samples_seen = 0;
    let mut observer_error = None;
    let outcomes = std::thread::scope(|s| -> Result<Vec<WorkerOutcome>> {
        let mut handles = Vec::new();
        for ((files, lazy), (names, done), plan) in plans {
            let fds: Vec<std::os::fd::RawFd> = files.iter().map(|f| f.0).collect();
            let tx = tx.clone();
            let cpu = cpu_for(job.affinity.as_ref(), plan.id);
            let ctl = &ctl;
            let index = plan.id;
            let h = std::thread::Builder::new()
                .name(format!("iogauge-t{}-{}", plan.target, plan.thread))
                .stack_size(crate::os::threads::STACK_BYTES)
                .spawn_scoped(s, move || -> std::result::Result<WorkerOutcome, String> {
                    let setup = || -> std::result::Result<(AlignedBuf, crate::rng::Rng), String> {
                        if let Some(cpu) = cpu {
                            worker::pin_to_cpu(cpu)?;
                        }
                        let mut rng = crate::rng::Rng::new(
                            plan.seed,
                            &[plan.target as u64, plan.thread as u64],
                        );
                        let bufs = worker::buffers(
                            plan.queue_depth as usize,
                            plan.block_size as usize,
                            &mut rng,
                            plan.compress_pct,
                        )?;
                        Ok((bufs, rng))
                    };
                    let give_up = |e: String| {
                        // Still pass both barriers so the others are not left waiting.
                        ctl.fail(e.clone(), 0);
                        ctl.ready.wait();
                        ctl.go.wait();
                        let _ = tx.send(Msg::Done(plan.id));
                        Err(e)
                    };
                    let (bufs, rng) = match setup() {
                        Ok(x) => x,
                        Err(e) => return give_up(e),
                    };
                    match engine {
                        EngineKind::IoUring => {
                            match UringEngine::new(&fds, qd, uring_opts, &bufs.slots()) {
                                Ok(e) => {
                                    let features = e.features();
                                    let mut out = drive(e, lazy, bufs, rng, plan, ctl, tx);
                                    out.uring = Some(features);
                                    Ok(out)
                                }
                                Err(e) => give_up(format!("cannot set up io_uring: {e}")),
                            }
                        }
                        EngineKind::Sync => Ok(drive(
                            SyncEngine::new(Pread(fds)),
                            lazy,
                            bufs,
                            rng,
                            plan,
                            ctl,
                            tx,
                        )),
                        EngineKind::Mmap => {
                            let random = matches!(job.pattern, crate::spec::Pattern::Random { .. });
                            let maps: std::io::Result<Vec<Mapping>> = files
                                .iter()
                                .map(|&(fd, size)| {
                                    Mapping::new(fd, size, job.write_pct > 0)
                                        .map(|m| m.advise(random))
                                })
                                .collect();
                            match maps {
                                Ok(m) => {
                                    Ok(worker::run(MmapEngine::new(m), bufs, rng, plan, ctl, tx))
                                }
                                Err(e) => {
                                    give_up(format!("cannot map the target into memory: {e}"))
                                }
                            }
                        }
                        EngineKind::Null => {
                            Ok(drive(NullEngine::default(), lazy, bufs, rng, plan, ctl, tx))
                        }
                        EngineKind::FileCreate | EngineKind::FileStat | EngineKind::FileDelete => {
                            let op = file_op.expect("a file-operation engine");
                            let e = FileOpEngine::new(FileOps::new(op, names, done));
                            Ok(worker::run(e, bufs, rng, plan, ctl, tx))
                        }
                        EngineKind::Delay => {
                            let dist = job.delay.expect("validated: --engine delay has --delay");
                            let e = DelayEngine::new(
                                ctl.clock,
                                dist,
                                job.delay_step,
                                job.seed,
                                plan.id as u64,
                            );
                            Ok(drive(e, lazy, bufs, rng, plan, ctl, tx))
                        }
                    }
                });
            match h {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // Those started wait for the others: release them, then say why.
                    ctl.ready.abort();
                    ctl.go.abort();
                    let threads = nthreads as usize;
                    let asked = job
                        .dialect
                        .assign(Flag::Threads, &job.threads_per_target.to_string());
                    return Err(Error::runtime(crate::os::threads::start_error(
                        index, threads, &asked, &e,
                    )));
                }
            }
        }
        drop(tx);
        ctl.ready.wait();
        // A worker that failed its setup has said so before the barrier.
        let set_up = ctl.failure.lock().is_ok_and(|f| f.is_none());
        if let Err(e) = if set_up { observer.ready() } else { Ok(()) } {
            ctl.fail(e.clone(), 0);
            observer_error = Some(e);
        }
        let start = ctl.clock.now_ns();
        let m0 = start + job.warmup_ns;
        let m1 = match job.stop {
            Stop::Duration { ns } => m0 + ns,
            Stop::TotalBytes { .. } => u64::MAX,
        };
        // A run by bytes with a time limit: the workers stop at the limit as at a signal,
        // but the run counts as completed.
        if let Stop::TotalBytes {
            max_ns: Some(limit),
            ..
        } = job.stop
        {
            ctl.stop_ns
                .fetch_min(m0.saturating_add(limit), Ordering::Relaxed);
        }
        ctl.measure_start_ns.store(m0, Ordering::Relaxed);
        ctl.measure_end_ns.store(m1, Ordering::Relaxed);
        let planned_stop = m1.saturating_add(job.cooldown_ns);
        ctl.stop_ns.fetch_min(planned_stop, Ordering::Relaxed);
        started_unix_ns = unix_now_ns() + job.warmup_ns;
        ctl.go.wait();
        let mut next_observe = 0;

        while !collector.all_done() {
            let now = ctl.clock.now_ns();
            if cpu_start.is_none() && now >= m0 {
                cpu_start = Some(cpu::sample());
            }
            if cpu_end.is_none() && now >= m1.min(ctl.stop_ns.load(Ordering::Relaxed)) {
                cpu_end = Some(cpu::sample());
            }
            if now >= next_observe {
                next_observe = now + OBSERVE_EVERY_NS;
                observer.update(&live_view(&ctl, job, start, m0, m1, now));
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
                Ok(Msg::Ios(w, records)) => observer.ios(w, &records),
                Ok(Msg::Done(w)) => collector.worker_done(w),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if let (Some(rule), None) = (job.until_steady, steady_at) {
                if collector.samples.len() > samples_seen {
                    samples_seen = collector.samples.len();
                    let bytes: Vec<u64> = collector
                        .samples
                        .iter()
                        .map(|r| r.bytes[0] + r.bytes[1])
                        .collect();
                    let n = (rule.window_ns / job.interval_ns) as usize;
                    if let Some(s) = steady::settled(&bytes, n, &rule) {
                        let now = ctl.clock.now_ns();
                        steady_at = Some((now, s));
                        ctl.stop_ns.fetch_min(now, Ordering::Relaxed);
                    }
                }
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
                        flushes: Default::default(),
                        errors: vec![],
                        quota_done_ns: None,
                        waits: WaitStats::default(),
                        injected: None,
                        uring: None,
                        files: Vec::new(),
                    })
                }
                Err(_) => return Err(Error::runtime("a worker thread panicked")),
            }
        }
        if let Some(e) = setup_error {
            return Err(Error::runtime(e));
        }
        Ok(outcomes)
    });
    if file_op == Some(MetaOp::Create) {
        for (t, made) in targets.iter_mut().zip(&done) {
            t.created = made.load(Ordering::Relaxed);
        }
        // Only the creates that happened made iogauge's files: a name taken meanwhile is not.
        for t in targets.iter().filter(|t| t.created) {
            if let Err(e) = cleanup.created_named(&t.path) {
                notes.push(format!("{e}; it is left in place"));
            }
        }
    }
    let outcomes = outcomes?;
    if let Some(e) = observer_error {
        return Err(Error::runtime(e));
    }

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
    } else if let Some((at, _)) = steady_at {
        (StopReason::Completed, None, Some(at))
    } else {
        (StopReason::Completed, None, None)
    };
    if let Some(rule) = job.until_steady {
        let secs = |ns: u64| ns as f64 / 1e9;
        notes.push(match steady_at {
            Some((at, s)) => format!(
                "stopped after {:.1}s of {:.1}s: throughput over the last {:.1}s held within {}% of the {:.1}s before, {:.0}% below its peak interval",
                secs(at.saturating_sub(m0)),
                secs(m1.saturating_sub(m0)),
                secs(rule.window_ns),
                rule.tolerance_pct,
                secs(rule.window_ns),
                100.0 * (1.0 - s.last / s.peak)
            ),
            None => format!(
                "throughput did not fall {}% below its peak and settle within the {:.1}s maximum: the burst may last longer (raise {})",
                rule.drop_pct,
                secs(m1.saturating_sub(m0)),
                job.name(Flag::Duration)
            ),
        });
    }
    let planned_end = if m1 == u64::MAX {
        let done = outcomes.iter().filter_map(|o| o.quota_done_ns).max();
        match job.stop {
            // Some worker did not finish its bytes: the time limit ended the run.
            Stop::TotalBytes {
                max_ns: Some(limit),
                ..
            } if outcomes.iter().any(|o| o.quota_done_ns.is_none()) => {
                if cut_at.is_none() {
                    notes.push(format!(
                        "the duration limit of {:.1}s ended the run before every thread had done its bytes",
                        limit as f64 / 1e9
                    ));
                }
                m0 + limit
            }
            _ => done.unwrap_or(m0),
        }
    } else {
        m1
    };
    let measured_end = cut_at.map_or(planned_end, |c| c.min(planned_end));
    let measured_ns = measured_end.saturating_sub(m0);

    let mut result = build_result(BuildInput {
        job,
        clock: clock_info,
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
        thread_histograms,
    });
    result.warnings = crate::warnings::check(&result);
    Ok(result)
}

fn live_view(ctl: &Control, job: &JobSpec, start: u64, m0: u64, m1: u64, now: u64) -> Live {
    let stop = ctl.stop_ns.load(Ordering::Relaxed);
    let end = m1.min(stop);
    let (phase, elapsed_ns, planned_ns) = if now < m0 {
        (LivePhase::Warmup, now - start, Some(m0 - start))
    } else if now < end {
        let planned = (m1 != u64::MAX).then(|| m1 - m0);
        (LivePhase::Measuring, now - m0, planned)
    } else {
        (LivePhase::Cooldown, now - end, Some(job.cooldown_ns))
    };
    let sum = |f: fn(&LiveCounters) -> &AtomicU64| {
        ctl.live.iter().map(|l| f(l).load(Ordering::Relaxed)).sum()
    };
    Live {
        phase,
        elapsed_ns,
        planned_ns,
        ios: sum(|l| &l.ios),
        bytes: sum(|l| &l.bytes),
        lat_sum_ns: sum(|l| &l.lat_sum_ns),
    }
}

/// The files of `set` as each of its threads opens them (`--open-files`).
fn lazy_files(job: &JobSpec, set: &[OpenTarget]) -> Result<Arc<Files>> {
    let names = set
        .iter()
        .map(|t| {
            std::ffi::CString::new(t.path.as_os_str().as_encoded_bytes()).map_err(|_| {
                Error::usage(format!(
                    "target '{}' has a NUL byte in its name",
                    t.path.display()
                ))
            })
        })
        .collect::<Result<_>>()?;
    Ok(Arc::new(Files {
        names,
        ids: set.iter().map(|t| t.id).collect(),
        flags: target::open_flags(job),
    }))
}

/// Run a worker on engine `e`, through [`Lazy`] where its thread keeps at most `open` files
/// open; a thread that keeps every file open drives its engine directly.
fn drive<E: IoEngine>(
    e: E,
    lazy: Option<(Arc<Files>, u32)>,
    bufs: AlignedBuf,
    rng: crate::rng::Rng,
    plan: WorkerPlan,
    ctl: &Control,
    tx: std::sync::mpsc::SyncSender<Msg>,
) -> WorkerOutcome {
    match lazy {
        Some((files, open)) => {
            let e = Lazy::new(e, files, open, plan.queue_depth);
            worker::run(e, bufs, rng, plan, ctl, tx)
        }
        None => worker::run(e, bufs, rng, plan, ctl, tx),
    }
}

/// The CPUs this process may run on.
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity fills a cpu_set_t we own; CPU_ISSET reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1))
                .collect();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// The CPU worker `id` is pinned to, if any.
fn cpu_for(affinity: Option<&Affinity>, id: usize) -> Option<usize> {
    match affinity? {
        Affinity::Auto => Some(
            id % std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
        ),
        Affinity::Cpus { cpus } => Some(cpus[id % cpus.len()]),
    }
}

/// Check --sqpoll and --hipri on the target before the run: one read (never a write) through
/// a ring set up as the run's will be, so that a refusal is a clear error, not a failed run.
fn probe_uring_options(t: &OpenTarget, job: &JobSpec, opts: UringOptions) -> Result<()> {
    let shown = t.path.display();
    let flag = job.name(if job.hipri { Flag::Hipri } else { Flag::Sqpoll });
    let mut rng = crate::rng::Rng::new(1, &[]);
    let buf = worker::buffers(1, job.block_size as usize, &mut rng, 0).map_err(Error::runtime)?;
    // A target checked and closed (--open-files) is opened again for the test.
    let again = match &t.file {
        Some(_) => None,
        None => Some(target::reopen(job, t)?),
    };
    let fd = t
        .file
        .as_ref()
        .or(again.as_ref())
        .map_or(-1, |f| f.as_raw_fd());
    let mut e = UringEngine::new(&[fd], 1, opts, &buf.slots()).map_err(|e| {
        Error::usage(format!(
            "{flag}: this kernel refuses the io_uring set-up ({e}); drop {flag}"
        ))
    })?;
    e.queue(crate::engine::Sqe {
        slot: 0,
        op: crate::engine::Op::Read,
        file: 0,
        offset: t.start,
        len: job.block_size as u32,
        buf: buf.slot(0),
    });
    let mut out = Vec::new();
    e.reap(1, Some(1_000_000_000), &mut out).map_err(|err| {
        Error::usage(format!(
            "{flag}: io_uring failed on '{shown}' ({err}); drop {flag}"
        ))
    })?;
    match out.first() {
        Some(c) if c.result == job.block_size as i32 => Ok(()),
        Some(c) if job.hipri && (c.result == -libc::EOPNOTSUPP || c.result == -libc::EINVAL) => Err(Error::usage(format!(
            "{flag}: '{shown}' does not support polled I/O (its device has no poll queues; for NVMe see nvme.poll_queues); drop {flag}"
        ))),
        Some(c) => Err(Error::usage(format!(
            "{flag}: a test read of '{shown}' failed ({}); drop {flag}",
            std::io::Error::from_raw_os_error(-c.result.min(-1))
        ))),
        None => {
            // The read may still be in the kernel's hands: never free its buffer.
            drop(e);
            std::mem::forget(buf);
            let why = if job.hipri {
                "its device has no poll queues (for NVMe see nvme.poll_queues)"
            } else {
                "the submission thread did not pick it up"
            };
            Err(Error::usage(format!("{flag}: a test read of '{shown}' did not complete within 1 s: {why}; drop {flag}")))
        }
    }
}

/// A set of files as one target's name: their paths joined with ':', as fio lists them.
fn set_name(set: &[OpenTarget]) -> String {
    set.iter()
        .map(|t| t.path.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

fn unix_now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

struct BuildInput<'a> {
    job: &'a JobSpec,
    clock: crate::clock::ClockInfo,
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
    thread_histograms: bool,
}

/// `histograms`: serialize the latency histograms too. Done for targets and the run, not for
/// each thread: those merge exactly into their target's, and sixteen threads' worth would
/// make a saved result ten times larger for nothing a report uses.
fn dir_result(t: &DirTotals, measured_ns: u64, async_engine: bool, histograms: bool) -> DirResult {
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
fn pair(
    parts: &[&[DirTotals; 2]],
    measured_ns: u64,
    async_engine: bool,
    histograms: bool,
) -> DirPair {
    let mut dirs: [DirTotals; 2] = Default::default();
    for p in parts {
        for d in 0..2 {
            add_totals(&mut dirs[d], &p[d]);
        }
    }
    let mut all = dirs[0].clone();
    add_totals(&mut all, &dirs[1]);
    DirPair {
        read: dir_result(&dirs[0], measured_ns, async_engine, histograms),
        write: dir_result(&dirs[1], measured_ns, async_engine, histograms),
        all: dir_result(&all, measured_ns, async_engine, histograms),
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
    let async_engine = matches!(b.engine, EngineKind::IoUring | EngineKind::Delay);
    let mut waits = WaitStats::default();
    let mut injected: Option<crate::stats::LatencyHistogram> = None;
    for o in &b.outcomes {
        waits.add(&o.waits);
        if let Some(h) = &o.injected {
            injected.get_or_insert_with(Default::default).merge(h);
        }
    }
    let flushes = (job.flush.is_some() || job.end_fsync).then(|| {
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
    });
    let tpt = job.threads_per_target as usize;
    let mut all_errors: Vec<(i32, u64)> = Vec::new();
    let mut targets = Vec::new();
    for (ti, set) in b.targets.chunks(job.files_per_set()).enumerate() {
        let t = &set[0];
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
                    cpu: cpu_for(job.affinity.as_ref(), w),
                    total: pair(
                        &[&b.outcomes[w].totals],
                        b.measured_ns,
                        async_engine,
                        b.thread_histograms,
                    ),
                    errors: error_counts(&b.outcomes[w].errors),
                    waits: b.outcomes[w].waits,
                    files: b.outcomes[w]
                        .files
                        .iter()
                        .map(|f| FileCounts {
                            read: IoCount {
                                ios: f[0].0,
                                bytes: f[0].1,
                            },
                            write: IoCount {
                                ios: f[1].0,
                                bytes: f[1].1,
                            },
                        })
                        .collect(),
                }
            })
            .collect();
        let files: Vec<FileShare> = if set.len() > 1 {
            set.iter()
                .enumerate()
                .map(|(fi, f)| {
                    let mut dirs = [IoCount::default(); 2];
                    for o in &b.outcomes[ids.clone()] {
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
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        let parts: Vec<&[DirTotals; 2]> = ids.map(|w| &b.outcomes[w].totals).collect();
        targets.push(TargetResult {
            path: set_name(set),
            kind: t.kind,
            size_bytes: set.iter().map(|f| f.size).sum(),
            working_set_start: t.start,
            working_set_end: t.end,
            created: set.iter().all(|f| f.created),
            facts: t.facts.clone(),
            threads,
            total: pair(&parts, b.measured_ns, async_engine, true),
            files,
        });
    }
    let parts: Vec<&[DirTotals; 2]> = b.outcomes.iter().map(|o| &o.totals).collect();
    let total = pair(&parts, b.measured_ns, async_engine, true);

    let interval = job.interval_ns;
    let mut samples = Vec::new();
    for (i, s) in b.collector.samples.iter().enumerate() {
        let start_ns = i as u64 * interval;
        if start_ns >= b.measured_ns {
            break;
        }
        let dir = |d: usize| SampleDir {
            ios: s.ios[d],
            bytes: s.bytes[d],
            latency_mean_ns: (job.latency && s.ios[d] > 0).then_some(s.mean_ns[d]),
            latency_p99_ns: (job.latency && s.ios[d] > 0).then_some(s.p99_ns[d]),
        };
        samples.push(Sample {
            start_ns,
            duration_ns: interval.min(b.measured_ns - start_ns),
            read: dir(0),
            write: dir(1),
        });
    }
    RunResult {
        schema: SCHEMA_NAME.into(),
        schema_version: SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        command_line: b.command_line,
        started_unix_ns: b.started_unix_ns,
        partial: b.stop_reason != StopReason::Completed,
        stop_reason: b.stop_reason,
        stop_message: b.stop_message,
        notes: b.notes,
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
        clock: b.clock,
        waits,
        injected_latency: injected.and_then(|h| h.summary()),
        system: crate::facts::SystemFacts::collect(),
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
        flushes,
    }
}
