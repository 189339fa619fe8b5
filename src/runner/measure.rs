//! The stages that run the I/O: `start` spawns one worker thread per target thread, each of
//! which makes its engine and waits at the ready gate; `measure` releases them together,
//! keeps the warm-up / measured / cool-down windows, collects intervals, watches for Ctrl-C
//! and a settled burst, and tells observers how it goes. Both run inside one thread scope, so
//! a caller can put its own step between them (see [`super::Observer::ready`]).

use super::collect::{Collector, SampleRec};
use super::plan::RunPlan;
use super::prepare::WorkerSetup;
use super::worker::{self, WorkerOutcome};
use super::{steady, Control, Live, LiveCounters, LivePhase, Msg, Observer};
use crate::engine::build::{self, Drive, ThreadIo};
use crate::error::{Error, Result};
use crate::os::vitals;
use crate::spec::{Affinity, Flag, JobSpec, Stop};
use crate::stats::{cpu, flat};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::thread::{Scope, ScopedJoinHandle};
use std::time::Duration;

/// How often observers are updated.
const OBSERVE_EVERY_NS: u64 = 200_000_000;

pub type Worker<'scope> = ScopedJoinHandle<'scope, std::result::Result<WorkerOutcome, String>>;

/// What the control thread saw while the workers ran.
pub struct Measured {
    pub collector: Collector,
    pub started_unix_ns: u64,
    pub cpu: Vec<cpu::CpuUsage>,
    pub interrupted_at: Option<u64>,
    pub steady_at: Option<(u64, steady::Settled)>,
    /// When the flat-window rule (fio's steadystate=) was met.
    pub flat_at: Option<u64>,
    /// When the observer said the run was ended from outside ([`Observer::halted`]).
    pub halted_at: Option<u64>,
    /// An observer that could not get ready (it stops the run before any I/O).
    pub observer_error: Option<String>,
    /// What the system did over the measured window (`os::vitals`), for the verdict on what
    /// limited the run; None where it is not read (another system, IOGAUGE_SIGNALS=off).
    pub signals: Option<vitals::Signals>,
}

/// Spawn the workers; each sets up its buffers and engine and waits at `ctl.ready`. A thread
/// the system will not start calls the run off: those started are released, and the error
/// names the limit.
pub fn start<'scope, 'env>(
    s: &'scope Scope<'scope, 'env>,
    job: &'env JobSpec,
    plan: &'env RunPlan,
    ctl: &'env Control,
    setups: Vec<WorkerSetup<'env>>,
    tx: &SyncSender<Msg>,
) -> Result<Vec<Worker<'scope>>> {
    let mut handles = Vec::new();
    for w in setups {
        let index = w.plan.id;
        let cpu = cpu_for(job.affinity.as_ref(), index);
        let tx = tx.clone();
        let h = std::thread::Builder::new()
            .name(format!("iogauge-t{}-{}", w.plan.target, w.plan.thread))
            .stack_size(crate::os::threads::STACK_BYTES)
            .spawn_scoped(s, move || run_worker(plan, ctl, w, cpu, tx));
        match h {
            Ok(h) => handles.push(h),
            Err(e) => {
                // Those started wait for the others: release them, then say why.
                ctl.ready.abort();
                ctl.go.abort();
                let asked = job
                    .dialect
                    .assign(Flag::Threads, &job.threads_per_target.to_string());
                return Err(Error::runtime(crate::os::threads::start_error(
                    index,
                    plan.threads as usize,
                    &asked,
                    &e,
                )));
            }
        }
    }
    Ok(handles)
}

/// The worker loop of one thread, on the engine the plan names.
struct Loop<'a> {
    bufs: worker::AlignedBuf,
    rng: crate::rng::Rng,
    plan: worker::WorkerPlan,
    ctl: &'a Control,
    tx: SyncSender<Msg>,
}

impl Drive for Loop<'_> {
    type Out = WorkerOutcome;
    fn drive<E: crate::engine::IoEngine>(self, e: E) -> WorkerOutcome {
        worker::run(e, self.bufs, self.rng, self.plan, self.ctl, self.tx)
    }
}

fn run_worker(
    plan: &RunPlan,
    ctl: &Control,
    w: WorkerSetup,
    cpu: Option<usize>,
    tx: SyncSender<Msg>,
) -> std::result::Result<WorkerOutcome, String> {
    let id = w.plan.id;
    let give_up = |e: String, tx: SyncSender<Msg>| {
        // Still pass both barriers so the others are not left waiting.
        ctl.fail(e.clone(), 0);
        ctl.ready.wait();
        ctl.go.wait();
        let _ = tx.send(Msg::Done(id));
        Err(e)
    };
    let setup = || -> std::result::Result<_, String> {
        // The nodes' CPUs first: a pinned CPU (cpus_allowed, --affinity) is the narrower ask.
        if let Some(cpus) = &plan.numa.cpus {
            crate::os::numa::set_cpus(cpus)?;
        }
        if let Some(cpu) = cpu {
            crate::os::numa::pin_to_cpu(cpu)?;
        }
        // Before the buffers: they are allocated under the policy.
        if let Some((policy, nodes)) = &plan.numa.memory {
            crate::os::numa::set_mem_policy(policy, nodes)?;
        }
        // Before any I/O or memory is charged: fio joins its cgroup first thing in a job.
        if let Some(cg) = w.cgroup {
            cg.enter_thread()?;
        }
        let p = &w.plan;
        // Before the engine's ring is made, as fio's ioprio_set before td_io_init.
        if let Some(prio) = p.prio.ioprio {
            crate::os::ioprio::set_thread(prio)?;
        }
        let mut rng = crate::rng::Rng::new(p.seed, &[p.target as u64, p.thread as u64]);
        // Verifying: a second buffer per slot, to write from (verify::worker).
        let per_slot = if p.features.verify.is_some() { 2 } else { 1 };
        let bufs = worker::buffers(
            per_slot * p.queue_depth as usize,
            p.block_size as usize,
            &mut rng,
            p.content.compress_pct,
            p.content.pattern.as_ref(),
        )?;
        Ok((bufs, rng))
    };
    let (bufs, rng) = match setup() {
        Ok(x) => x,
        Err(e) => return give_up(e, tx),
    };
    let io = ThreadIo {
        files: w.files,
        lazy: w.lazy,
        queue_depth: plan.queue_depth,
        buffers: bufs.slots(),
        names: w.names,
        done: w.done,
        clock: ctl.clock,
        worker: id as u64,
    };
    let worker_loop = Loop {
        bufs,
        rng,
        plan: w.plan,
        ctl,
        tx: tx.clone(),
    };
    match build::build(&plan.engine, io, worker_loop) {
        Ok((mut out, features)) => {
            out.uring = features;
            Ok(out)
        }
        Err(e) => give_up(e, tx),
    }
}

/// Release the workers together and run the control loop until every worker is done.
pub fn measure(
    job: &JobSpec,
    ctl: &Control,
    rx: Receiver<Msg>,
    collector: Collector,
    interrupted: &AtomicBool,
    observer: &mut dyn Observer,
    paths: &[&std::path::Path],
) -> Measured {
    let workers = collector.workers();
    ctl.ready.wait();
    // The workers are started and named: the sampler finds them, before the clock runs.
    let sampler = signals_wanted().then(|| vitals::Sampler::new(paths));
    // A worker that failed its setup has said so before the barrier.
    let set_up = ctl.failure.lock().is_ok_and(|f| f.is_none());
    let mut observer_error = None;
    if let Err(e) = if set_up { observer.ready() } else { Ok(()) } {
        ctl.fail(e.clone(), 0);
        observer_error = Some(e);
    }
    let (start, m0, m1) = set_windows(job, ctl);
    let started_unix_ns = unix_now_ns() + job.timing.warmup_ns;
    ctl.go.wait();
    let mut l = Watch {
        collector,
        cpu_start: None,
        cpu_end: None,
        interrupted_at: None,
        steady_at: None,
        samples_seen: 0,
        flat_at: None,
        flat_points: 0,
        halted_at: None,
        vitals: Vitals {
            sampler,
            next_ns: 0,
            signals: None,
        },
    };
    let mut next_observe = 0;
    while !l.collector.all_done() {
        let now = ctl.clock.now_ns();
        if now >= next_observe {
            next_observe = now + OBSERVE_EVERY_NS;
            observer.update(&live_view(ctl, job, start, m0, m1, now));
        }
        if !l.tick(ctl, job, &rx, interrupted, observer, m0, m1) {
            break;
        }
        wall_verdict(job, ctl, workers, observer);
    }
    // Every worker may have ended before the deadline: this rank still takes its part.
    wall_verdict(job, ctl, workers, observer);
    let end_sample = cpu::sample();
    let cpu_start = l.cpu_start.unwrap_or_else(|| end_sample.clone());
    let cpu_end = l.cpu_end.unwrap_or(end_sample);
    l.vitals.end();
    Measured {
        collector: l.collector,
        started_unix_ns,
        cpu: cpu::usage(&cpu_start, &cpu_end),
        interrupted_at: l.interrupted_at,
        steady_at: l.steady_at,
        flat_at: l.flat_at,
        halted_at: l.halted_at,
        observer_error,
        signals: l.vitals.signals,
    }
}

/// Whether to sample the system's signals: always, unless IOGAUGE_SIGNALS=off (to measure
/// what sampling costs, bench/README.md).
fn signals_wanted() -> bool {
    std::env::var("IOGAUGE_SIGNALS").map_or(true, |v| v != "off")
}

/// The sampler of the measured window: opened at its start, read every
/// [`vitals::PERIOD_NS`], closed at its end.
struct Vitals {
    sampler: Option<vitals::Sampler>,
    next_ns: u64,
    signals: Option<vitals::Signals>,
}

impl Vitals {
    fn tick(&mut self, now: u64, m0: u64) {
        if now < m0 || now < self.next_ns {
            return;
        }
        if let Some(s) = self.sampler.as_mut() {
            s.sample();
            self.next_ns = now + vitals::PERIOD_NS;
        }
    }

    fn end(&mut self) {
        if let Some(s) = self.sampler.take() {
            self.signals = s.finish();
        }
    }
}

/// Stonewalling with wear-out: once every worker has stopped at the deadline or ended, the
/// quota they all go on to (agreed with the other ranks by the observer).
fn wall_verdict(job: &JobSpec, ctl: &Control, workers: usize, observer: &mut dyn Observer) {
    if !job.timing.stonewall.is_some_and(|w| w.wear_out) {
        return;
    }
    if let Some(most) = ctl.wall.settled(workers) {
        let quota = observer.stonewall(most);
        ctl.wall.decide(quota);
    }
}

/// Start the clock of the run: warm-up from now, then the measured window, then cool-down.
/// Returns (start, m0, m1) on the run clock.
fn set_windows(job: &JobSpec, ctl: &Control) -> (u64, u64, u64) {
    let start = ctl.clock.now_ns();
    let m0 = start + job.timing.warmup_ns;
    let m1 = match job.timing.stop {
        Stop::Duration { ns } => m0 + ns,
        Stop::TotalBytes { .. } => u64::MAX,
    };
    // A run by bytes with a time limit: the workers stop at the limit as at a signal, but the
    // run counts as completed.
    if let Stop::TotalBytes {
        max_ns: Some(limit),
        ..
    } = job.timing.stop
    {
        ctl.stop_ns
            .fetch_min(m0.saturating_add(limit), Ordering::Relaxed);
    }
    // Stonewalling: without wear-out the deadline is the stop; with it, the workers meet there.
    if let Some(wall) = job.timing.stonewall {
        let at = m0.saturating_add(wall.ns);
        if wall.wear_out {
            ctl.wall.deadline_ns.store(at, Ordering::Relaxed);
        } else {
            ctl.stop_ns.fetch_min(at, Ordering::Relaxed);
        }
    }
    ctl.measure_start_ns.store(m0, Ordering::Relaxed);
    ctl.measure_end_ns.store(m1, Ordering::Relaxed);
    let planned_stop = m1.saturating_add(job.timing.cooldown_ns);
    ctl.stop_ns.fetch_min(planned_stop, Ordering::Relaxed);
    (start, m0, m1)
}

/// The control loop's state between messages.
struct Watch {
    collector: Collector,
    cpu_start: Option<cpu::CpuTicks>,
    cpu_end: Option<cpu::CpuTicks>,
    interrupted_at: Option<u64>,
    steady_at: Option<(u64, steady::Settled)>,
    samples_seen: usize,
    flat_at: Option<u64>,
    /// Check intervals of the flat-window rule judged so far.
    flat_points: usize,
    halted_at: Option<u64>,
    vitals: Vitals,
}

impl Watch {
    /// One turn: CPU samples at the window edges, Ctrl-C, one message, the steady rule.
    /// False once every worker has hung up.
    #[allow(clippy::too_many_arguments)]
    fn tick(
        &mut self,
        ctl: &Control,
        job: &JobSpec,
        rx: &Receiver<Msg>,
        interrupted: &AtomicBool,
        observer: &mut dyn Observer,
        m0: u64,
        m1: u64,
    ) -> bool {
        let now = ctl.clock.now_ns();
        if self.cpu_start.is_none() && now >= m0 {
            self.cpu_start = Some(cpu::sample());
        }
        if self.cpu_end.is_none() && now >= m1.min(ctl.stop_ns.load(Ordering::Relaxed)) {
            self.cpu_end = Some(cpu::sample());
            self.vitals.end();
        }
        self.vitals.tick(now, m0);
        if self.interrupted_at.is_none() && interrupted.load(Ordering::Relaxed) {
            self.interrupted_at = Some(now);
            ctl.stop_ns.fetch_min(now, Ordering::Relaxed);
            // Workers waiting at a stonewall stop there.
            ctl.wall.decide(None);
        }
        if self.halted_at.is_none() && observer.halted() {
            self.halted_at = Some(now);
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
            Ok(Msg::Interval(m)) => self.collector.add(*m, &ctl.hist_pool),
            Ok(Msg::Ios(w, records)) => observer.ios(w, &records),
            Ok(Msg::Done(w)) => self.collector.worker_done(w),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return false,
        }
        self.check_steady(ctl, job);
        self.check_flat(ctl, job);
        true
    }

    /// fio's steadystate=: stop once the last window is flat. Judged once per check interval
    /// that finishes, on that window alone (a few points: no cost that grows with the run).
    fn check_flat(&mut self, ctl: &Control, job: &JobSpec) {
        let (Some(rule), None) = (job.timing.until_flat, self.flat_at) else {
            return;
        };
        let interval = job.timing.interval_ns;
        let samples = &self.collector.samples;
        let count = flat::point_count(samples.len(), &rule, interval);
        if count == self.flat_points {
            return;
        }
        self.flat_points = count;
        let Some(window) =
            flat::last_window(samples.len(), |i| flat_base(&samples[i]), &rule, interval)
        else {
            return;
        };
        if flat::judge(&window, &rule).attained {
            let now = ctl.clock.now_ns();
            self.flat_at = Some(now);
            ctl.stop_ns.fetch_min(now, Ordering::Relaxed);
        }
    }

    /// `--until-steady`: stop once throughput has fallen from a burst to a level that held.
    fn check_steady(&mut self, ctl: &Control, job: &JobSpec) {
        let (Some(rule), None) = (job.timing.until_steady, self.steady_at) else {
            return;
        };
        // Judged again once the run has grown by 1% (at least an interval): a judgement
        // reads the whole series, and a long run at short intervals must not keep the
        // control thread busy. The stop comes at most 1% of the run late.
        let len = self.collector.samples.len();
        if len < self.samples_seen + (len / 100).max(1) {
            return;
        }
        self.samples_seen = self.collector.samples.len();
        let bytes: Vec<u64> = self
            .collector
            .samples
            .iter()
            .map(|r| r.bytes[0] + r.bytes[1])
            .collect();
        let n = (rule.window_ns / job.timing.interval_ns) as usize;
        // Burst or cache, the rule is the same: which it was is the report's to say.
        if let Some(s) = steady::settled(&bytes, n, &rule, false) {
            let now = ctl.clock.now_ns();
            self.steady_at = Some((now, s));
            ctl.stop_ns.fetch_min(now, Ordering::Relaxed);
        }
    }
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
        (LivePhase::Cooldown, now - end, Some(job.timing.cooldown_ns))
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

/// The CPU worker `id` is pinned to, if any.
pub fn cpu_for(affinity: Option<&Affinity>, id: usize) -> Option<usize> {
    match affinity? {
        Affinity::Auto => Some(
            id % std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
        ),
        Affinity::Cpus { cpus } => Some(cpus[id % cpus.len()]),
    }
}

fn unix_now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// One interval of the collector's series as the flat-window rule reads it.
pub fn flat_base(s: &SampleRec) -> flat::Base {
    // A direction's mean is 0 where nothing was timed (IOPS mode, or no I/O).
    let timed = |d: usize| (s.mean_ns[d] > 0).then_some((s.mean_ns[d], s.ios[d]));
    flat::Base::new(
        s.ios[0] + s.ios[1],
        s.bytes[0] + s.bytes[1],
        [timed(0), timed(1)],
    )
}
