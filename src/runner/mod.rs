//! Runs a [`JobSpec`]: opens the targets, starts one worker thread per target thread, keeps the
//! warm-up / measured / cool-down windows, stops on time, bytes, Ctrl-C or error, and turns
//! what the workers counted into a [`RunResult`].
//!
//! Timeline, on one monotonic clock shared by all threads:
//! start --warm-up--> m0 --measured--> m1 --cool-down--> stop. Only completions stamped in
//! [m0, m1) count.

pub mod build;
pub mod collect;
pub mod dedupe;
pub mod descriptors;
pub mod finish;
pub mod flow;
mod gather;
pub mod lat_target;
pub mod measure;
pub mod offsets;
pub mod plan;
pub mod prepare;
pub mod steady;
pub mod target;
pub mod together;
#[cfg(target_os = "linux")]
mod uring_probe;
pub mod verifying;
pub mod wall;
pub mod worker;
pub mod zbd;

use crate::clock::Clock;
use crate::error::Result;
use crate::os::owned::Cleanup;
use crate::os::threads::Gate;
use crate::result::RunResult;
use crate::spec::JobSpec;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Mutex;
use worker::HistPool;

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
    /// Where the workers meet at a stonewall with wear-out.
    pub wall: wall::Wall,
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
    /// Stonewalling with wear-out: every thread has stopped at the deadline (or ended), the
    /// busiest having done `most` bytes. Returns the bytes every thread is to reach (the most
    /// of every rank, for an MPI job), or `None` to stop (the agreement failed: Ctrl-C).
    fn stonewall(&mut self, most: u64) -> Option<u64> {
        Some(most)
    }
    /// Whether something outside the run has ended it (another fio job's end, with exitall):
    /// asked a few times a second, and the run then stops as at the end of its time.
    fn halted(&mut self) -> bool {
        false
    }
}

/// Watches nothing.
pub struct NoObserver;
impl Observer for NoObserver {}

/// Another observer with more done at two of its steps; everything else passes through.
pub struct Hooked<'a> {
    pub inner: &'a mut dyn Observer,
    /// After the inner observer is ready: what must happen before the first I/O (meet the
    /// other runs or ranks).
    pub ready: &'a mut dyn FnMut() -> std::result::Result<(), String>,
    /// Given the inner observer's stonewall verdict, the one the run gets.
    pub stonewall: &'a mut dyn FnMut(u64) -> Option<u64>,
    /// Whether the run is to stop now, beside the inner observer's say.
    pub halted: &'a dyn Fn() -> bool,
}

impl Observer for Hooked<'_> {
    fn begin(&mut self, label: &str, index: usize, count: usize) {
        self.inner.begin(label, index, count)
    }
    fn update(&mut self, live: &Live) {
        self.inner.update(live)
    }
    fn ready(&mut self) -> std::result::Result<(), String> {
        self.inner.ready()?;
        (self.ready)()
    }
    fn end(&mut self) {
        self.inner.end()
    }
    fn wants_ios(&self) -> bool {
        self.inner.wants_ios()
    }
    fn ios(&mut self, worker: usize, records: &[worker::IoRecord]) {
        self.inner.ios(worker, records)
    }
    fn stonewall(&mut self, most: u64) -> Option<u64> {
        let mine = self.inner.stonewall(most)?;
        (self.stonewall)(mine)
    }
    fn halted(&mut self) -> bool {
        self.inner.halted() || (self.halted)()
    }
}

impl Control {
    fn new(clock: Clock, workers: usize, interval_ns: u64) -> Control {
        Control {
            clock,
            ready: Gate::new(workers + 1),
            go: Gate::new(workers + 1),
            measure_start_ns: AtomicU64::new(0),
            measure_end_ns: AtomicU64::new(u64::MAX),
            stop_ns: AtomicU64::new(u64::MAX),
            interval_ns,
            hist_pool: Mutex::new(Vec::new()),
            failure: Mutex::new(None),
            live: (0..workers).map(|_| LiveCounters::default()).collect(),
            wall: wall::Wall::default(),
        }
    }

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
    run_full(
        job,
        command_line,
        interrupted,
        cleanup,
        observer,
        Keep::default(),
    )
}

/// What a result carries beyond the run's and each target's completion and total histograms
/// and the run's time series.
#[derive(Debug, Clone, Copy, Default)]
pub struct Keep {
    /// Each thread's histograms, for reports per thread (fio's per-clone jobs). Callers that
    /// save the result should drop them first: they merge exactly into the target's.
    pub per_thread: bool,
    /// The submission and scheduled histograms too, for results merged later (the ranks of
    /// an MPI job), so that every figure of the merge is exact.
    pub every_histogram: bool,
    /// Each thread's own time series (DiskSpd's `-D`, which reports every target of every
    /// thread interval by interval).
    pub per_thread_series: bool,
}

/// [`run_observed`], keeping the histograms `keep` names.
///
/// The stages, in order; each is a function of its own so that a caller can put a step
/// between two (a barrier before the I/O starts, a verify pass after it ends).
pub fn run_full(
    job: &JobSpec,
    command_line: Vec<String>,
    interrupted: &AtomicBool,
    cleanup: &mut Cleanup,
    observer: &mut dyn Observer,
    keep: Keep,
) -> Result<RunResult> {
    descriptors::check(job)?;
    let mut plan = plan::plan(job, &plan::Host::probe(job), observer.wants_ios())?;
    let mut prepared = prepare::prepare(job, &plan, cleanup, interrupted)?;
    plan.notes.append(&mut prepared.notes);
    let ctl = Control::new(
        prepared.clock,
        plan.threads as usize,
        job.timing.interval_ns,
    );
    let (outcomes, measured) = run_workers(
        job,
        &plan,
        &prepared,
        &ctl,
        interrupted,
        observer,
        keep.per_thread_series,
    );
    finish::adopt_created(plan.engine.kind, &mut prepared, cleanup, &mut plan.notes);
    let (outcomes, measured) = (outcomes?, measured.expect("measured once the workers ran"));
    if let Some(e) = &measured.observer_error {
        return Err(crate::error::Error::runtime(e.clone()));
    }
    let finished = finish::finish(job, &ctl, &measured, outcomes, &mut plan.notes);
    // --verify: the read-back pass and the last state, after the measured window.
    let verified = match &prepared.verify {
        Some(v) => {
            plan.notes.extend(v.notes.iter().cloned());
            let stopped = finished.stop_reason != crate::result::StopReason::Completed;
            Some(verifying::finish(
                v,
                job,
                &prepared.targets,
                stopped,
                interrupted,
            )?)
        }
        None => None,
    };
    let mut result = build::build(job, plan, &prepared, measured, finished, command_line, keep);
    result.verify = verified;
    result.warnings = crate::warnings::check(&result);
    result.limit = Some(crate::result::limit::judge(&result));
    Ok(result)
}

/// `start` and `measure` in one thread scope, then every worker joined. The measurement is
/// there whenever the workers started, even where one of them failed, so that the files a
/// file-create engine made are still handed to clean-up.
fn run_workers(
    job: &JobSpec,
    plan: &plan::RunPlan,
    prepared: &prepare::Prepared,
    ctl: &Control,
    interrupted: &AtomicBool,
    observer: &mut dyn Observer,
    per_thread_series: bool,
) -> (
    Result<Vec<worker::WorkerOutcome>>,
    Option<measure::Measured>,
) {
    let setups = match prepare::workers(job, plan, prepared) {
        Ok(s) => s,
        Err(e) => return (Err(e), None),
    };
    let n = setups.len();
    // Bounded: if the collector ever falls behind, workers wait rather than memory growing.
    // Each message is one interval of one worker (about 0.5 MB of histograms at most).
    let (tx, rx) = sync_channel::<Msg>(4 * n + 8);
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let workers = match measure::start(s, job, plan, ctl, setups, &tx) {
            Ok(w) => w,
            Err(e) => return (Err(e), None),
        };
        drop(tx);
        // --verify with a target that outlives the run: its state, checkpointed as it goes.
        if let Some(v) = &prepared.verify {
            let (targets, done) = (&prepared.targets, &done);
            s.spawn(move || verifying::checkpoints(v, targets, done));
        }
        let collector = collect::Collector::new(n, per_thread_series);
        let paths: Vec<&std::path::Path> =
            prepared.targets.iter().map(|t| t.path.as_path()).collect();
        let measured = measure::measure(job, ctl, rx, collector, interrupted, observer, &paths);
        let joined = finish::join(workers);
        done.store(true, Ordering::Relaxed);
        (joined, Some(measured))
    })
}
