//! One worker thread: keeps `queue_depth` I/Os in flight on one target and accounts for each
//! completion. This is the hot path: no allocation, no locking, no system calls beyond the
//! engine's, and clock reads only where a figure needs them.
//!
//! - IOPS mode (default): one clock read per wait, for the time windows; no per-I/O times.
//! - Latency mode (-L): each I/O gets its queue time, its submission time (one clock read per
//!   submission call) and its completion time (one clock read per batch of completions).
//!   After every submission the worker peeks at the completion queue (a look-aside), so an I/O
//!   that finished while others were being issued is stamped then, not at the next wait.
//!   Completions reaped together share one timestamp: they were all complete when it was taken.

use super::gather::Gather;
use super::offsets::{FilePick, OffsetGen};
use super::zbd::Zoned;
use super::{Control, Msg};
use crate::engine::{Cqe, IoEngine, Op, Sqe};
use crate::error::SHORT_IO;
pub use crate::os::memory::AlignedBuf;
use crate::result::WaitStats;
use crate::rng::{fill_buffer, Rng};
use crate::spec::{BlockSizes, BytePattern, FlushEvery, Rate, Think};
use crate::stats::spread::LatencySpread;
use crate::stats::{IntervalHistogram, LatencyHistogram};
use crate::verify::worker::{Pending, WorkerVerify};
use parts::{
    verify_first, Counted, Cx, Done, LatTarget, MinRate, Parts, PerFile, ThenWrite, Trace,
};

mod parts;
pub use parts::Features;
use std::sync::atomic::Ordering;
use std::sync::mpsc::SyncSender as Sender;
use std::sync::Mutex;

/// What one worker needs to know; built by the runner.
pub struct WorkerPlan {
    pub id: usize,
    pub target: usize,
    pub thread: u32,
    pub queue_depth: u32,
    pub submit_batch: u32,
    /// With the queue full, the completions waited for before refilling it.
    pub complete_batch: u32,
    /// The largest I/O: the size of each slot's buffer.
    pub block_size: u32,
    /// How long each read and each write (or trim) is.
    pub sizes: [SizePick; 2],
    pub write_pct: u64,
    /// Trims in place of reads and writes, and how a trim is done on this thread's target
    /// (a hole punched in a file, a discard of a block device).
    pub trim: crate::spec::Trims,
    pub trim_op: Op,
    pub seed: u64,
    /// One per file of the thread; the thread's I/Os go to `files` (more than one) as
    /// `pick` says.
    pub offsets: Vec<OffsetGen>,
    pub pick: Option<FilePick>,
    /// When I/Os may start (rate limits).
    pub pacer: Pacer,
    pub flush: FlushPlan,
    pub think: Option<Think>,
    pub content: Content,
    /// Bytes this worker counts before it stops (--total).
    pub quota_bytes: Option<u64>,
    pub on_error: ErrorPlan,
    pub latency: bool,
    /// The target (or set of files) for messages, and each file's own path.
    pub path: String,
    pub paths: Vec<String>,
    /// The job's I/O priorities (--ioprio, --cmdprio): each I/O's, drawn as it starts.
    pub prio: crate::spec::prio::Priority,
    /// The optional per-I/O features the job asks for; the worker makes its parts of them.
    pub features: Features,
}

/// Flushes a worker issues: one every so many writes (--fsync, --fdatasync), one per file
/// written at the end (--end-fsync), and whether one still due after the last write goes
/// (see `RunPlan::flush_after_last`).
#[derive(Clone, Copy)]
pub struct FlushPlan {
    pub every: Option<FlushEvery>,
    pub end_fsync: bool,
    pub after_last: bool,
}

/// How each write's content is made: new random data before each (`refill`), keeping
/// `compress_pct` of it zeros, or (--dedupe) repeating earlier writes' content as it says.
pub struct Content {
    pub refill: bool,
    pub compress_pct: u8,
    pub dedupe: Option<super::dedupe::DedupeFill>,
    /// fio's buffer_pattern: every write repeats it (in the compressible part only, with
    /// `compress_pct`).
    pub pattern: Option<crate::spec::BytePattern>,
}

/// A write buffer's content: random bytes with `compress_pct`% of every 512 zeroed, or with a
/// pattern, the pattern (in place of those zeros, where some are random).
fn fill_write(buf: &mut [u8], rng: &mut Rng, compress_pct: u8, pattern: Option<&BytePattern>) {
    let Some(p) = pattern else {
        return fill_buffer(buf, rng, compress_pct);
    };
    if compress_pct == 0 || compress_pct >= 100 {
        return p.fill(buf);
    }
    const CHUNK: usize = 512;
    rng.fill(buf);
    let random = CHUNK * (100 - compress_pct as usize) / 100;
    for chunk in buf.chunks_mut(CHUNK) {
        let keep = random.min(chunk.len());
        p.fill(&mut chunk[keep..]);
    }
}

/// What a failed I/O does: stop the run unless `continue_on_error` or its errno is in
/// `ignore_errors`; with `fill` (--fill) a write with no room ends the thread instead.
pub struct ErrorPlan {
    pub continue_on_error: bool,
    pub ignore_errors: Vec<i32>,
    pub fill: bool,
}

/// When a thread's I/Os may start: each on a schedule that advances by each I/O's share of the
/// limit (a fixed gap for I/Os per second, its length over the rate for bytes), so a thread
/// that fell behind catches up and one ahead waits.
///
/// `poisson`: each I/O's share of the schedule is drawn from an exponential distribution with
/// that share as its mean, so that starts arrive as a Poisson process of the same rate (fio's
/// rate_process=poisson) instead of evenly spaced.
pub enum Pacer {
    Free,
    /// One limit for reads and writes together.
    Both {
        next: u64,
        rate: Rate,
        poisson: bool,
    },
    /// Reads and writes each on their own schedule (`None`: not limited); `does`: the
    /// directions the job has. Where it has both, a direction ahead of its schedule gives way
    /// to the other (as fio does).
    Apart {
        next: [u64; 2],
        rate: [Option<Rate>; 2],
        does: [bool; 2],
        poisson: bool,
    },
}

impl Pacer {
    pub fn new(limits: &crate::spec::Limits, write_pct: u8) -> Self {
        let poisson = limits.poisson;
        match (limits.both(), limits.rate_dirs) {
            (Some(rate), _) => Pacer::Both {
                next: 0,
                rate,
                poisson,
            },
            (None, Some(d)) => Pacer::Apart {
                next: [0; 2],
                rate: [d.read, d.write],
                does: [write_pct < 100, write_pct > 0],
                poisson,
            },
            (None, None) => Pacer::Free,
        }
    }

    pub fn limited(&self) -> bool {
        !matches!(self, Pacer::Free)
    }

    /// The schedules start now.
    fn start(&mut self, now: u64) {
        match self {
            Pacer::Free => {}
            Pacer::Both { next, .. } => *next = now,
            Pacer::Apart { next, .. } => *next = [now; 2],
        }
    }

    /// Whether an I/O drawn as `write` may start at `now`: `Ok(direction, its scheduled
    /// time)`, the direction perhaps switched, or `Err(time)` to wait until.
    #[inline]
    fn admit(&self, write: bool, now: u64) -> Result<(bool, u64), u64> {
        match *self {
            Pacer::Free => Ok((write, now)),
            Pacer::Both { next, .. } if next > now => Err(next),
            Pacer::Both { next, .. } => Ok((write, next)),
            Pacer::Apart { .. } => {
                let due = |w: bool| self.due(w, now);
                if due(write) <= now {
                    Ok((write, due(write)))
                } else if self.does(!write) && due(!write) <= now {
                    Ok((!write, due(!write)))
                } else {
                    Err(self.next_start(now))
                }
            }
        }
    }

    /// When direction `write` may next start (now where it has no limit of its own).
    #[inline]
    fn due(&self, write: bool, now: u64) -> u64 {
        match self {
            Pacer::Apart { next, rate, .. } if rate[write as usize].is_some() => {
                next[write as usize]
            }
            _ => now,
        }
    }

    #[inline]
    fn does(&self, write: bool) -> bool {
        match self {
            Pacer::Apart { does, .. } => does[write as usize],
            _ => true,
        }
    }

    /// An I/O of `len` bytes started in direction `write`.
    #[inline]
    fn charge(&mut self, write: bool, len: u32, rng: &mut Rng) {
        let gap = |rate: Rate, poisson: bool, rng: &mut Rng| match poisson {
            // -ln(1-U), U uniform in [0,1): exponential with mean 1.
            true => (rate.gap_ns(len as u64) as f64 * -(1.0 - rng.unit()).ln()) as u64,
            false => rate.gap_ns(len as u64),
        };
        match self {
            Pacer::Free => {}
            Pacer::Both {
                next,
                rate,
                poisson,
            } => *next += gap(*rate, *poisson, rng),
            Pacer::Apart {
                next,
                rate,
                poisson,
                ..
            } => {
                if let Some(r) = rate[write as usize] {
                    next[write as usize] += gap(r, *poisson, rng);
                }
            }
        }
    }

    /// The earliest time an I/O may start (for waits): the sooner of the directions the job
    /// has.
    fn next_start(&self, now: u64) -> u64 {
        match *self {
            Pacer::Free => now,
            Pacer::Both { next, .. } => next,
            Pacer::Apart { does, .. } => [false, true]
                .into_iter()
                .filter(|&w| does[w as usize])
                .map(|w| self.due(w, now))
                .min()
                .unwrap_or(now),
        }
    }
}

/// Draws the length of each I/O of one direction.
pub enum SizePick {
    Fixed(u32),
    /// `min` times 1..=`steps`, each equally likely.
    Range {
        min: u32,
        steps: u64,
    },
    /// fio's bs_unaligned draw: `min` plus a uniform 0..`max`, what passes `max` taken as
    /// `max` (fio's get_next_buflen, so the mix of lengths is fio's).
    AnyByte {
        min: u32,
        max: u32,
    },
    /// (cumulative percent, length), the percents rising to 100.
    Split(Vec<(u64, u32)>),
}

impl SizePick {
    pub fn new(b: &BlockSizes) -> Self {
        match b {
            BlockSizes::Fixed { bytes } => SizePick::Fixed(*bytes as u32),
            BlockSizes::Range {
                min,
                max,
                any_byte: true,
            } => SizePick::AnyByte {
                min: *min as u32,
                max: *max as u32,
            },
            BlockSizes::Range { min, max, .. } => SizePick::Range {
                min: *min as u32,
                steps: max / min,
            },
            BlockSizes::Split { parts } => {
                let mut cum = 0;
                SizePick::Split(
                    parts
                        .iter()
                        .map(|p| {
                            cum += p.pct as u64;
                            (cum, p.bytes as u32)
                        })
                        .collect(),
                )
            }
        }
    }

    #[inline]
    pub fn pick(&self, rng: &mut Rng) -> u32 {
        match self {
            SizePick::Fixed(len) => *len,
            SizePick::Range { min, steps } => *min * (1 + rng.below(*steps) as u32),
            SizePick::AnyByte { min, max } => (*min + rng.below(*max as u64) as u32).min(*max),
            SizePick::Split(parts) => {
                let r = rng.below(100);
                parts
                    .iter()
                    .find(|(cum, _)| r < *cum)
                    .or(parts.last())
                    .map_or(0, |p| p.1)
            }
        }
    }
}

/// Flushes of one worker: how many every-N-writes flushes (--fsync, --fdatasync) completed and
/// how long each took from issue to completion (those issued during warm-up not counted), and
/// how long the end flush (--end-fsync) took. fio's JSON counts the same way.
#[derive(Default, Clone)]
pub struct FlushTotals {
    pub count: u64,
    pub lat: LatencyHistogram,
    pub end_ns: Option<u64>,
}

/// The latencies of one direction (latency mode only). Completion is the headline figure;
/// submission applies to asynchronous engines, scheduled to rate-limited runs.
#[derive(Default, Clone)]
pub struct LatHists {
    /// Submitted to completed.
    pub completion: LatencyHistogram,
    /// Queued to handed to the kernel.
    pub submission: LatencyHistogram,
    /// Queued to completed.
    pub total: LatencyHistogram,
    /// From the time the rate schedule said the I/O should start, to completed: the latency a
    /// client with that schedule would see (no coordinated omission).
    pub scheduled: LatencyHistogram,
}

impl LatHists {
    pub fn merge(&mut self, o: &LatHists) {
        self.completion.merge(&o.completion);
        self.submission.merge(&o.submission);
        self.total.merge(&o.total);
        self.scheduled.merge(&o.scheduled);
    }
}

/// Everything one worker counted in the measured window, for one direction.
#[derive(Default, Clone)]
pub struct DirTotals {
    pub ios: u64,
    pub bytes: u64,
    pub lat: Option<Box<LatHists>>,
}

pub struct WorkerOutcome {
    /// [read, write, trim]. Kept by the worker itself, so totals stay exact whatever the
    /// collector does.
    pub totals: [DirTotals; 3],
    pub flushes: FlushTotals,
    pub errors: Vec<crate::result::ErrorCount>,
    /// When this worker's quota was done (--total), on the run clock.
    pub quota_done_ns: Option<u64>,
    /// --fill: when the thread found the file system full.
    pub filled_ns: Option<u64>,
    pub waits: WaitStats,
    /// What the engine injected (delay engine).
    pub injected: Option<LatencyHistogram>,
    pub uring: Option<crate::engine::RingFeatures>,
    /// Where a thread works on several files: each file's [read, write, trim] (I/Os, bytes).
    pub files: Vec<[(u64, u64); 3]>,
    /// The queue depth the latency target's search ended at (fio's latency_depth), and when
    /// the search ended the job, on the run clock.
    pub latency_depth: Option<u32>,
    pub settled_ns: Option<u64>,
    /// --zbd: what the thread's zones came to.
    pub zbd: Option<super::zbd::ZbdOutcome>,
}

impl WorkerOutcome {
    /// A worker that did nothing.
    pub fn none() -> WorkerOutcome {
        WorkerOutcome {
            totals: Default::default(),
            flushes: Default::default(),
            errors: Vec::new(),
            quota_done_ns: None,
            filled_ns: None,
            waits: WaitStats::default(),
            injected: None,
            uring: None,
            files: Vec::new(),
            latency_depth: None,
            settled_ns: None,
            zbd: None,
        }
    }
}

/// Counts and latencies of one direction within one interval, for the time series.
pub struct IntervalDir {
    pub ios: u64,
    pub bytes: u64,
    pub lat_sum_ns: u64,
    /// Latency mode only.
    pub hist: Option<IntervalHistogram>,
    /// Queued to completed, exactly (latency mode only): DiskSpd's per-bucket latencies.
    pub total: LatencySpread,
}

/// One I/O counted in the measured window, for per-I/O logs (fio's logs without
/// log_avg_msec). Times in ns: `at` from the start of the measured window.
#[derive(Clone, Copy, Debug)]
pub struct IoRecord {
    pub at: u64,
    /// [`crate::engine::READ`], [`crate::engine::WRITE`] or [`crate::engine::TRIM`].
    pub dir: u8,
    pub len: u32,
    /// Where in its file (fio's log_offset).
    pub offset: u64,
    /// Queued to handed to the kernel (0 for engines that run I/O inline).
    pub submission: u64,
    /// Submitted to completed.
    pub completion: u64,
    /// The priority value it was issued with (0: none), for fio's log_prio.
    pub prio: u16,
}

/// Records are handed to the collector in batches of this many, so that memory stays bounded
/// whatever the rate.
pub const TRACE_BATCH: usize = 16_384;

pub struct IntervalMsg {
    pub worker: usize,
    pub index: u64,
    /// [read, write, trim]
    pub dirs: [IntervalDir; 3],
}

/// Cleared histograms handed back by the collector, so workers never allocate on the hot path.
pub type HistPool = Mutex<Vec<IntervalHistogram>>;

struct Interval {
    index: u64,
    dirs: [IntervalDir; 3],
}

impl Interval {
    fn new(index: u64, pool: &HistPool, latency: bool) -> Self {
        let d = || IntervalDir {
            ios: 0,
            bytes: 0,
            lat_sum_ns: 0,
            total: LatencySpread::default(),
            hist: latency.then(|| {
                pool.lock()
                    .ok()
                    .and_then(|mut p| p.pop())
                    .unwrap_or_default()
            }),
        };
        Interval {
            index,
            dirs: [d(), d(), d()],
        }
    }
}

/// Buffers for every slot, aligned for O_DIRECT and filled with random bytes so that writes
/// are incompressible and differ from slot to slot.
pub fn buffers(
    slots: usize,
    slot_len: usize,
    rng: &mut Rng,
    compress_pct: u8,
    pattern: Option<&BytePattern>,
) -> Result<AlignedBuf, String> {
    let mut b = AlignedBuf::new(slots, slot_len)?;
    for i in 0..slots as u32 {
        fill_write(b.slot_mut(i), rng, compress_pct, pattern);
    }
    Ok(b)
}

/// What each I/O slot holds: its operation, length and file, and when it was queued,
/// submitted and scheduled (rate limits). A slot is free while no I/O uses its buffer.
struct Slots {
    free: Vec<u32>,
    op: Vec<Op>,
    len: Vec<u32>,
    /// The file of each slot's I/O, and where in it.
    file: Vec<u32>,
    offset: Vec<u64>,
    /// The priority value each slot's I/O was issued with.
    ioprio: Vec<u16>,
    /// A read-back of a recent write (--verify-backlog), not a read of the workload.
    checkback: Vec<bool>,
    /// A write that follows its trim (--trim then-write) whose trim was counted: counted
    /// with it, past the quota if need be, so that trims and writes come in pairs. (The write
    /// of a trim not counted, past the quota, still goes, not counted: no range is left
    /// trimmed that the job would have written.)
    follows: Vec<bool>,
    queued_at: Vec<u64>,
    submitted_at: Vec<u64>,
    scheduled_at: Vec<u64>,
    inflight: usize,
}

impl Slots {
    fn new(qd: usize, block_size: u32) -> Slots {
        Slots {
            free: (0..qd as u32).rev().collect(),
            op: vec![Op::Read; qd],
            len: vec![block_size; qd],
            file: vec![0; qd],
            offset: vec![0; qd],
            ioprio: vec![0; qd],
            checkback: vec![false; qd],
            follows: vec![false; qd],
            queued_at: vec![0; qd],
            submitted_at: vec![0; qd],
            scheduled_at: vec![0; qd],
            inflight: 0,
        }
    }
}

/// Flushes: one due every `--fsync` writes, and at the end one per file written.
struct Flushing {
    plan: FlushPlan,
    /// The operation of a flush every so many writes (fsync or fdatasync), and the writes
    /// queued since the last.
    op: Op,
    writes_since: u32,
    flushes: FlushTotals,
    /// A flush is due once the I/Os in flight have completed (--fsync).
    flush_due: bool,
    flush_inflight: bool,
    flush_queued_at: u64,
    /// The file a flush due is for: that of the write that made it due (as fio does).
    flush_file: u32,
    /// The files the thread has written: --end-fsync flushes each.
    wrote: Vec<bool>,
    /// The end flushes have begun; the next file to look at for one.
    end_flushed: bool,
    end_next: usize,
}

impl Flushing {
    fn new(plan: FlushPlan, files: usize) -> Flushing {
        Flushing {
            op: match plan.every {
                Some(FlushEvery {
                    data_only: true, ..
                }) => Op::Fdatasync,
                _ => Op::Fsync,
            },
            writes_since: 0,
            plan,
            flushes: FlushTotals::default(),
            flush_due: false,
            flush_inflight: false,
            flush_queued_at: 0,
            flush_file: 0,
            wrote: vec![false; files],
            end_flushed: false,
            end_next: 0,
        }
    }

    /// A write of `file` was queued: a flush is due after every so many.
    #[inline]
    fn wrote(&mut self, file: u32) {
        self.wrote[file as usize] = true;
        if let Some(f) = self.plan.every {
            self.writes_since += 1;
            if self.writes_since >= f.writes {
                self.writes_since = 0;
                self.flush_due = true;
                self.flush_file = file;
            }
        }
    }
}

/// Pauses of the pace: think time (--think), after every so many I/Os.
struct Pause {
    think: Option<Think>,
    since: u32,
    /// A pause is due once the I/Os in flight have completed (--think), and until when it lasts
    /// (also the wait of a thread ahead of its share of a flow).
    think_due: bool,
    think_until: u64,
}

impl Pause {
    /// An I/O of the workload (not a read-back) was queued.
    #[inline]
    fn issued(&mut self) {
        if let Some(t) = self.think {
            self.since += 1;
            if self.since >= t.every {
                self.since = 0;
                self.think_due = true;
            }
        }
    }
}

/// What a failed I/O does: counted by errno, and the run stopped unless told to go on; with
/// --fill, a write with no room ends the thread instead.
struct OnError {
    plan: ErrorPlan,
    errors: Vec<crate::result::ErrorCount>,
    /// --fill: when the file system was found full.
    filled_ns: Option<u64>,
    /// Each file's path, for messages.
    paths: Vec<String>,
}

/// The worker's state between completions; `complete` is the per-I/O accounting, and the
/// optional features are its `parts`.
struct State<'a> {
    ctl: &'a Control,
    tx: Sender<Msg>,
    id: usize,
    latency: bool,
    m0: u64,
    m1: u64,
    slots: Slots,
    flush: Flushing,
    pause: Pause,
    parts: Parts,
    totals: [DirTotals; 3],
    /// Delay engine, latency mode: what was injected for the I/Os counted.
    injected: LatencyHistogram,
    interval: Option<Interval>,
    next_boundary: u64,
    on_error: OnError,
    counted_bytes: u64,
    /// Completion latencies of the measured window, for live progress.
    lat_sum_ns: u64,
    /// When to publish the live counters next.
    next_live_ns: u64,
    quota: Option<u64>,
    quota_done_ns: Option<u64>,
    rate_limited: bool,
    path: String,
}

impl<'a> State<'a> {
    fn new(plan: &mut WorkerPlan, parts: Parts, ctl: &'a Control, tx: Sender<Msg>) -> State<'a> {
        let qd = plan.queue_depth as usize;
        let latency = plan.latency;
        let new_lat = || latency.then(|| Box::new(LatHists::default()));
        State {
            ctl,
            tx,
            id: plan.id,
            latency,
            m0: 0,
            m1: 0,
            slots: Slots::new(qd, plan.block_size),
            flush: Flushing::new(plan.flush, plan.offsets.len()),
            pause: Pause {
                think: plan.think,
                since: 0,
                think_due: false,
                think_until: 0,
            },
            parts,
            totals: [
                DirTotals {
                    lat: new_lat(),
                    ..Default::default()
                },
                DirTotals {
                    lat: new_lat(),
                    ..Default::default()
                },
                DirTotals {
                    lat: new_lat().filter(|_| !plan.trim.is_none()),
                    ..Default::default()
                },
            ],
            injected: LatencyHistogram::new(),
            interval: None,
            next_boundary: 0,
            on_error: OnError {
                errors: Vec::new(),
                plan: std::mem::replace(
                    &mut plan.on_error,
                    ErrorPlan {
                        continue_on_error: false,
                        ignore_errors: Vec::new(),
                        fill: false,
                    },
                ),
                filled_ns: None,
                paths: std::mem::take(&mut plan.paths),
            },
            counted_bytes: 0,
            lat_sum_ns: 0,
            next_live_ns: 0,
            quota: plan.quota_bytes,
            quota_done_ns: None,
            rate_limited: plan.pacer.limited(),
            path: std::mem::take(&mut plan.path),
        }
    }
}

/// What the parts may see of the state (the fields apart from `parts`, borrowed one by one).
macro_rules! cx {
    ($s:expr, $t:expr, $counting:expr, $bufs:expr) => {
        Cx {
            t: $t,
            counting: $counting,
            ctl: $s.ctl,
            path: &$s.path,
            m0: $s.m0,
            bufs: $bufs,
            totals: &$s.totals,
            inflight: $s.slots.inflight,
            counted_bytes: &mut $s.counted_bytes,
        }
    };
}

impl State<'_> {
    fn flush_interval(&mut self) {
        if let Some(iv) = self.interval.take() {
            let _ = self.tx.send(Msg::Interval(Box::new(IntervalMsg {
                worker: self.id,
                index: iv.index,
                dirs: iv.dirs,
            })));
        }
    }

    /// Account for completions all seen at time `t`.
    #[inline]
    fn complete<E: IoEngine>(&mut self, engine: &E, cqes: &[Cqe], t: u64, bufs: &AlignedBuf) {
        if t >= self.next_boundary {
            self.next_interval(t);
        }
        let counting = t >= self.m0 && t < self.m1 && t < self.ctl.stop_ns.load(Ordering::Relaxed);
        for c in cqes {
            self.slots.free.push(c.slot);
            self.slots.inflight -= 1;
            match self.slots.op[c.slot as usize].is_flush() {
                true => self.flushed(c, t),
                false => self.completed(engine, c, t, counting, bufs),
            }
        }
        if self.parts.hooked {
            self.parts.after_batch(&mut cx!(self, t, counting, bufs));
        }
        // Progress reads these a few times a second: publish at most every 50 ms.
        if counting && t >= self.next_live_ns {
            self.publish_live(t);
        }
        if let Some(q) = self.quota {
            if self.counted_bytes >= q && self.quota_done_ns.is_none() {
                self.quota_done_ns = Some(t);
            }
        }
    }

    /// The interval of the time series that `t` falls in begins (none past the window).
    #[cold]
    fn next_interval(&mut self, t: u64) {
        self.flush_interval();
        if t < self.m1 {
            let index = (t - self.m0) / self.ctl.interval_ns;
            self.interval = Some(Interval::new(index, &self.ctl.hist_pool, self.latency));
            self.next_boundary = self.m0 + (index + 1) * self.ctl.interval_ns;
        } else {
            self.next_boundary = u64::MAX;
        }
    }

    /// One data I/O completed: the parts see it, then it is counted (or its failure is).
    #[inline(always)]
    fn completed<E: IoEngine>(
        &mut self,
        engine: &E,
        c: &Cqe,
        t: u64,
        counting: bool,
        bufs: &AlignedBuf,
    ) {
        let slot = c.slot as usize;
        let op = self.slots.op[slot];
        // An I/O that moves no data (an operation on a file's name) completes with 0 and
        // counts no bytes; the quota still counts its nominal length.
        let bytes = if E::MOVES_DATA {
            self.slots.len[slot]
        } else {
            0
        };
        // A trim completes with 0 (fallocate, BLKDISCARD) or its length (falloc, null).
        let ok = match op.is_trim() {
            true => c.result >= 0,
            false => c.result == bytes as i32,
        };
        // With --total, count exactly the quota: one batch may hold more than it needs.
        // A write that follows a counted trim is counted with it, whatever the quota.
        let counted = ok
            && counting
            && (self.slots.follows[slot] || self.quota.is_none_or(|q| self.counted_bytes < q));
        if self.parts.hooked {
            let io = Done {
                t,
                slot,
                cqe: c,
                slots: &self.slots,
                ok,
                counting,
                counted,
            };
            self.parts
                .on_complete(&io, &mut cx!(self, t, counting, bufs));
        }
        if !ok {
            self.failed_io(engine, c, t);
        } else if counted {
            self.count(engine, c, t, bytes);
        }
    }

    /// A completed I/O counted: the totals, the interval's counts and (latency mode) the
    /// latencies, then the parts that keep their own counts.
    #[inline(always)]
    fn count<E: IoEngine>(&mut self, engine: &E, c: &Cqe, t: u64, bytes: u32) {
        let Some(iv) = self.interval.as_mut() else {
            return;
        };
        let (slot, sl) = (c.slot as usize, &self.slots);
        let dir = sl.op[slot].dir();
        let tot = &mut self.totals[dir];
        tot.ios += 1;
        tot.bytes += bytes as u64;
        // A read-back (verify_backlog) is extra to the workload: fio's io_size counts the
        // job's own I/O only; a trim's write was counted with its trim.
        if !sl.checkback[slot] && !sl.follows[slot] {
            self.counted_bytes += sl.len[slot] as u64;
        }
        let d = &mut iv.dirs[dir];
        d.ios += 1;
        d.bytes += bytes as u64;
        let mut lats = None;
        if let (Some(lat), Some(h)) = (tot.lat.as_mut(), d.hist.as_mut()) {
            let completion = t - sl.submitted_at[slot];
            let submission = sl.submitted_at[slot] - sl.queued_at[slot];
            lat.completion.record(completion);
            lat.submission.record(submission);
            let total = t - sl.queued_at[slot];
            lat.total.record(total);
            d.total.record(total);
            if self.rate_limited {
                lat.scheduled
                    .record(t.saturating_sub(sl.scheduled_at[slot]));
            }
            d.lat_sum_ns += completion;
            self.lat_sum_ns += completion;
            h.record(completion);
            if E::INJECTS {
                self.injected.record(engine.injected_ns(c.slot));
            }
            lats = Some((submission, completion));
        }
        if self.parts.hooked {
            let io = Done {
                t,
                slot,
                cqe: c,
                slots: sl,
                ok: true,
                counting: true,
                counted: true,
            };
            let counted = Counted {
                dir,
                bytes,
                lat: lats,
            };
            self.parts.on_counted(&io, &counted);
        }
    }

    /// Out of line: the per-batch path keeps one comparison.
    #[cold]
    #[inline(never)]
    fn publish_live(&mut self, t: u64) {
        self.next_live_ns = t + 50_000_000;
        let live = &self.ctl.live[self.id];
        let [r, w, tr] = &self.totals;
        live.ios.store(r.ios + w.ios + tr.ios, Ordering::Relaxed);
        live.bytes
            .store(r.bytes + w.bytes + tr.bytes, Ordering::Relaxed);
        live.lat_sum_ns.store(self.lat_sum_ns, Ordering::Relaxed);
    }

    /// A flush completed.
    #[cold]
    fn flushed(&mut self, c: &Cqe, t: u64) {
        self.flush.flush_inflight = false;
        if c.result < 0 {
            self.fail(c, t, self.slots.op[c.slot as usize].verb());
            return;
        }
        if self.flush.end_flushed {
            // One flush per file written: the end flush takes them all.
            let took = t - self.flush.flush_queued_at;
            self.flush.flushes.end_ns = Some(self.flush.flushes.end_ns.unwrap_or(0) + took);
        } else if self.flush.flush_queued_at >= self.m0 {
            self.flush.flushes.count += 1;
            self.flush
                .flushes
                .lat
                .record(t - self.flush.flush_queued_at);
        }
        // The end flush of a run by bytes belongs to its time, as fio's end_fsync does.
        if self.flush.end_flushed && self.quota_done_ns.is_some() {
            self.quota_done_ns = Some(t);
        }
    }

    /// I/Os that waited inside the engine for a file went to the device by `t`: their
    /// completion latency starts there.
    #[cold]
    #[inline(never)]
    fn started_late<E: IoEngine>(&mut self, engine: &mut E, late: &mut Vec<u32>, t: u64) {
        late.clear();
        engine.started_late(late);
        if self.latency {
            for &slot in late.iter() {
                self.slots.submitted_at[slot as usize] = t;
            }
        }
    }

    /// Whether one more I/O may start (the latency target's search may hold it back).
    #[inline]
    fn may_start(&self) -> bool {
        self.parts.may_start(self.slots.inflight)
    }

    /// An I/O that moved less than asked or failed; the engine names what failed.
    #[cold]
    #[inline(never)]
    fn failed_io<E: IoEngine>(&mut self, engine: &E, c: &Cqe, t: u64) {
        let what = engine.verb_of(c.slot, self.slots.op[c.slot as usize]);
        self.fail(c, t, what);
    }

    #[cold]
    fn fail(&mut self, c: &Cqe, t: u64, what: &str) {
        let errno = if c.result < 0 { -c.result } else { SHORT_IO };
        let e = &mut self.on_error;
        // --fill: a write the file system has no room for (refused, or done in part) is
        // the end the job asked for, not an error; nothing more is issued.
        if e.plan.fill
            && self.slots.op[c.slot as usize] == Op::Write
            && (errno == SHORT_IO || crate::os::error::is_full(errno))
        {
            e.filled_ns.get_or_insert(t);
            self.quota_done_ns.get_or_insert(t);
            return;
        }
        let offset = self.slots.offset[c.slot as usize];
        match e.errors.iter_mut().find(|e| e.errno == errno) {
            Some(e) => e.add(1, &[offset]),
            None => e.errors.push(crate::result::ErrorCount {
                errno,
                name: crate::error::errno_name(errno),
                count: 1,
                offsets: vec![offset],
            }),
        }
        if !e.plan.continue_on_error && !e.plan.ignore_errors.contains(&errno) {
            let why = if c.result < 0 {
                format!(
                    "{} ({})",
                    crate::error::errno_name(errno),
                    std::io::Error::from_raw_os_error(errno)
                )
            } else {
                format!(
                    "short {what}: {} of {} bytes",
                    c.result, self.slots.len[c.slot as usize]
                )
            };
            let path = e
                .paths
                .get(self.slots.file[c.slot as usize] as usize)
                .unwrap_or(&self.path);
            // A data I/O says where; an open or a flush has no offset worth naming.
            let at = match what {
                "read" | "write" => format!(" at offset {offset}"),
                _ => String::new(),
            };
            self.ctl
                .fail(format!("{what} error on '{path}'{at}: {why}"), t);
        }
    }
}

/// One worker thread's loop: issue up to the queue depth, wait for completions, account
/// for them, until the stop time (or its quota, or an error); then flush what `--end-fsync`
/// asks and hand over the totals.
pub fn run<E: IoEngine>(
    engine: E,
    mut bufs: AlignedBuf,
    rng: Rng,
    mut plan: WorkerPlan,
    ctl: &Control,
    tx: Sender<Msg>,
) -> WorkerOutcome {
    let qd = plan.queue_depth as usize;
    let parts = parts_of(&mut plan, &mut bufs, &tx);
    let s = State::new(&mut plan, parts, ctl, tx);
    let mut w = Worker {
        batch: plan.submit_batch.max(1) as usize,
        gather: Gather::fixed(1),
        defer_submit: E::REAP_SUBMITS && !plan.latency,
        engine,
        bufs,
        rng,
        plan,
        s,
        waits: WaitStats::default(),
        cqes: Vec::with_capacity(qd),
        unsubmitted: Vec::with_capacity(qd),
        cancelled: Vec::with_capacity(qd),
        late: Vec::new(),
        now: 0,
        wall_at: u64::MAX,
    };
    if !ctl.ready.wait() || !ctl.go.wait() {
        // Another worker could not be started: the run is called off before any I/O.
        return WorkerOutcome::none();
    }
    w.s.m0 = ctl.measure_start_ns.load(Ordering::Relaxed);
    w.s.m1 = ctl.measure_end_ns.load(Ordering::Relaxed);
    if let Some(t) = w.s.parts.trace.as_mut() {
        t.m0 = w.s.m0;
    }
    w.wall_at = ctl.wall.deadline_ns.load(Ordering::Relaxed);
    // No interval is open during warm-up; the first opens at m0.
    w.s.next_boundary = w.s.m0;
    w.now = ctl.clock.now_ns();
    w.gather = match (E::ASYNC, w.plan.complete_batch as usize) {
        (false, _) => Gather::fixed(1),
        (true, 0) => Gather::auto(qd, w.now, w.s.m0),
        (true, k) => Gather::fixed(k),
    };
    w.plan.pacer.start(w.now);
    w.run_loop();
    w.finish()
}

/// The parts the plan asks for, each with its own state.
fn parts_of(plan: &mut WorkerPlan, bufs: &mut AlignedBuf, tx: &Sender<Msg>) -> Parts {
    let files = plan.offsets.len();
    let f = &mut plan.features;
    Parts {
        verify: f.verify.take().map(|v| WorkerVerify::new(v, bufs)),
        then_write: (plan.trim == crate::spec::Trims::ThenWrite).then(ThenWrite::default),
        lat_target: f.latency_target.map(|l| LatTarget {
            search: super::lat_target::DepthSearch::new(l, plan.queue_depth),
            settled_ns: None,
        }),
        min_rate: f.min_rate.map(|floor| MinRate {
            floor,
            window: (0, [(0, 0); 2]),
        }),
        per_file: (files > 1).then(|| PerFile {
            counts: vec![Default::default(); files],
        }),
        trace: (f.trace && plan.latency).then(|| Trace {
            records: Vec::with_capacity(TRACE_BATCH),
            tx: tx.clone(),
            id: plan.id,
            m0: 0,
        }),
        flow: f.flow.take(),
        zbd: f.zbd.take(),
        hooked: false,
    }
    .hooked()
}

/// A worker and everything its loop touches: the engine and the buffers it owns (buffers),
/// the plan's generators and pacer (pacing), and the state of the slots and counts
/// (accounting), with scratch vectors kept between turns so the loop allocates nothing.
struct Worker<'a, E: IoEngine> {
    engine: E,
    bufs: AlignedBuf,
    rng: Rng,
    plan: WorkerPlan,
    s: State<'a>,
    waits: WaitStats,
    cqes: Vec<Cqe>,
    /// Queued but not yet handed to the engine.
    unsubmitted: Vec<u32>,
    cancelled: Vec<u32>,
    late: Vec<u32>,
    now: u64,
    batch: usize,
    /// With the queue full, the completions to wait for (`complete_batch`).
    gather: Gather,
    /// IOPS mode on an engine that submits as it waits: while completions are waited for in
    /// batches, the I/Os left at the end of an issue pass go with the wait that follows it,
    /// in one system call.
    defer_submit: bool,
    /// The stonewall deadline with wear-out, on the run clock, read once at the start (so the
    /// loop compares a field of its own); `u64::MAX` where there is none or once past it.
    wall_at: u64,
}

/// What to do after the I/Os in flight have all completed.
enum Idle {
    /// The run is over: nothing in flight and nothing more to flush.
    Done,
    /// A flush was queued: reap it.
    Reap,
    /// A pause or a rate limit was waited out: issue again.
    Issue,
}

impl<E: IoEngine> Worker<'_, E> {
    fn run_loop(&mut self) {
        loop {
            let stop = self.s.ctl.stop_ns.load(Ordering::Relaxed);
            // Stonewalling with wear-out: at the deadline, let what is in flight complete and
            // wait for the quota every thread of every rank is to reach.
            let walled = self.now >= self.wall_at && self.s.quota_done_ns.is_none();
            // Past the quota, the writes due after trims still go (--trim then-write): a trim
            // is never left without its write, counted or not.
            let pairs_due = self.s.parts.pairs_due();
            let issuing =
                self.now < stop && (self.s.quota_done_ns.is_none() || pairs_due) && !walled;
            if !issuing && !walled && self.s.slots.inflight > 0 {
                // Nothing after the stop counts: I/Os that are only timers need not be waited
                // for.
                self.cancelled.clear();
                self.engine.cancel(&mut self.cancelled);
                self.s.slots.inflight -= self.cancelled.len();
                self.s.slots.free.extend_from_slice(&self.cancelled);
                if let Some(v) = &self.s.parts.verify {
                    let sl = &self.s.slots;
                    for &c in &self.cancelled {
                        let i = c as usize;
                        v.unclaim(sl.file[i], sl.offset[i], sl.len[i]);
                    }
                }
            }
            // A flush or a pause waits for the I/Os in flight: nothing new starts meanwhile.
            let p = &self.s;
            let paused = p.flush.flush_due
                || p.flush.flush_inflight
                || p.pause.think_due
                || self.now < p.pause.think_until;
            if issuing && !paused && !self.issue_pass() {
                break;
            }
            if self.s.slots.inflight == 0 {
                if walled {
                    self.at_wall();
                    continue;
                }
                match self.idle(issuing) {
                    Idle::Done => break,
                    Idle::Issue => continue,
                    Idle::Reap => {}
                }
            }
            // An I/O held back for a unit another I/O holds: wait for a completion, rather
            // than look aside and try again (io_uring posts completions only when waited for).
            let held = self.s.parts.held();
            if !self.reap(issuing && !paused && !held) {
                break;
            }
        }
    }

    /// Stopped at the stonewall with nothing in flight: wait for the verdict, then go on to
    /// the quota it gives, or stop with every other thread.
    #[cold]
    fn at_wall(&mut self) {
        self.wall_at = u64::MAX;
        let ctl = self.s.ctl;
        let quota = ctl.wall.arrive(self.s.counted_bytes, ctl.clock.now_ns());
        self.now = ctl.clock.now_ns();
        match quota {
            Some(q) => {
                self.s.quota = Some(q);
                if self.s.counted_bytes >= q {
                    self.s.quota_done_ns = Some(self.now);
                }
            }
            None => {
                ctl.stop_ns.fetch_min(self.now, Ordering::Relaxed);
            }
        }
    }

    /// Queue up to one queue's worth of I/Os (so that the stop time is looked at often even
    /// when completions come back as fast as I/Os go out). False if the engine failed.
    #[inline]
    fn issue_pass(&mut self) -> bool {
        for _ in 0..self.plan.queue_depth {
            if !self.s.may_start() {
                break;
            }
            // A full batch goes before the next I/O is drawn; the pass's last goes below.
            let batch = match self.gather.whole_pass() {
                true => self.plan.queue_depth as usize,
                false => self.batch,
            };
            if self.unsubmitted.len() >= batch && !self.submit_pending() {
                return false;
            }
            let Some(slot) = self.s.slots.free.pop() else {
                break;
            };
            let Some(stop_pass) = self.issue(slot) else {
                break;
            };
            if stop_pass {
                break;
            }
        }
        if self.defer_submit && self.gather.batched() {
            // `reap` follows at once (they are in flight) and its wait submits them.
            self.unsubmitted.clear();
            return true;
        }
        self.unsubmitted.is_empty() || self.submit_pending()
    }

    /// Queue one I/O in `slot`. None where the rate limit says not yet, or (--verify) a unit
    /// it needs is another I/O's (the slot is given back); Some(true) where a flush or a pause
    /// is now due and the pass should end.
    #[inline]
    fn issue(&mut self, slot: u32) -> Option<bool> {
        let now = self.now;
        let parts = &mut self.s.parts;
        let io = match parts.verify.as_mut().and_then(|v| verify_first(v, now)) {
            Some(p) => p,
            None if parts.pairs_due() => parts.then_write.as_mut()?.next(now)?,
            None if self.s.quota_done_ns.is_some() => {
                self.s.slots.free.push(slot);
                return None;
            }
            None => match self.draw(slot) {
                Some(p) => p,
                None => {
                    self.s.slots.free.push(slot);
                    return None;
                }
            },
        };
        if let Some(v) = self.s.parts.verify.as_mut() {
            if !v.claim(io.file, io.offset, io.len) {
                v.stash = Some(io);
                self.s.slots.free.push(slot);
                return None;
            }
        }
        Some(self.start(slot, io))
    }

    /// Draw the next I/O of the workload: its direction (as the rate limit admits it), size,
    /// file and offset. None where the rate limit says not yet. A trim is drawn, sized and
    /// paced in a write's place.
    #[inline]
    fn draw(&mut self, slot: u32) -> Option<Pending> {
        let now = self.now;
        let plan = &mut self.plan;
        let trim = !plan.trim.is_none();
        let mut write = trim || (plan.write_pct > 0 && self.rng.below(100) < plan.write_pct);
        let mut scheduled = now;
        if self.s.rate_limited {
            let (w, at) = plan.pacer.admit(write, now).ok()?;
            write = w;
            scheduled = at;
        }
        if let Some(f) = self.s.parts.flow.as_mut() {
            if !f.admit() {
                // Over its share of the flow: no new I/O before the flow's wait is out.
                self.s.pause.think_until = now + f.sleep_ns;
                return None;
            }
        }
        if let Some(z) = self.s.parts.zbd.as_ref() {
            write = z.direction(0, write);
        }
        let len = plan.sizes[write as usize].pick(&mut self.rng);
        if self.s.rate_limited {
            plan.pacer.charge(write, len, &mut self.rng);
        }
        let file = match plan.pick.as_mut() {
            Some(p) => p.next(&mut self.rng, slot, len as u64),
            None => 0,
        };
        let mut offset = plan.offsets[file as usize].next(&mut self.rng, len as u64);
        let mut len = len;
        if let Some(z) = self.s.parts.zbd.as_mut() {
            match z.place(file as usize, write, offset, len, now >= self.s.m0) {
                Zoned::Io { offset: o, len: l } => (offset, len) = (o, l),
                Zoned::End => {
                    // Nothing more this thread can do in its zones: it ends, as fio's does.
                    self.s.quota_done_ns.get_or_insert(now);
                    return None;
                }
            }
        }
        Some(Pending {
            write: write && !trim,
            trim,
            follows: false,
            len,
            file,
            offset,
            scheduled,
            backlog: false,
        })
    }

    /// Queue `io` in `slot` (its units claimed, where verifying); Some(true)'s meaning as
    /// [`Worker::issue`]'s.
    #[inline]
    fn start(&mut self, slot: u32, io: Pending) -> bool {
        let (now, plan, s) = (self.now, &mut self.plan, &mut self.s);
        let Pending {
            write,
            len,
            file,
            offset,
            ..
        } = io;
        let mut buf_index = slot;
        let op = if io.trim {
            plan.trim_op
        } else if write {
            s.flush.wrote(file);
            match s.parts.verify.as_mut() {
                Some(v) => {
                    v.stamp(&mut self.bufs, slot, file, offset, len);
                    buf_index = v.write_buffer(slot);
                }
                None if plan.content.refill => match plan.content.dedupe.as_mut() {
                    None => fill_write(
                        self.bufs.slot_mut(slot),
                        &mut self.rng,
                        plan.content.compress_pct,
                        plan.content.pattern.as_ref(),
                    ),
                    Some(d) => d.fill(&mut self.bufs.slot_mut(slot)[..len as usize]),
                },
                None => {}
            }
            Op::Write
        } else {
            Op::Read
        };
        let ioprio = match io.trim {
            true => plan.prio.ioprio.map_or(0, |p| p.value()),
            false => plan.prio.pick(write, len, &mut self.rng),
        };
        self.engine.queue(Sqe {
            slot,
            op,
            file,
            offset,
            len,
            buf: self.bufs.slot(buf_index),
            buf_index,
            ioprio,
        });
        s.slots.ioprio[slot as usize] = ioprio;
        let i = slot as usize;
        s.slots.op[i] = op;
        s.slots.len[i] = len;
        s.slots.file[i] = file;
        s.slots.offset[i] = offset;
        s.slots.checkback[i] = io.backlog;
        s.slots.follows[i] = io.follows;
        s.slots.queued_at[i] = now;
        s.slots.scheduled_at[i] = io.scheduled;
        s.slots.inflight += 1;
        self.unsubmitted.push(slot);
        if !io.backlog {
            s.pause.issued();
        }
        s.flush.flush_due || s.pause.think_due
    }

    /// Hand the queued I/Os to the engine; in latency mode stamp them, then look aside.
    /// False if the engine failed.
    #[inline]
    fn submit_pending(&mut self) -> bool {
        let clock = &self.s.ctl.clock;
        if let Err(e) = self.engine.submit() {
            let msg = format!("I/O engine failed on '{}': {e}", self.s.path);
            self.s.ctl.fail(msg, self.now);
            return false;
        }
        let latency = self.s.latency;
        if E::ASYNC {
            if latency {
                self.now = clock.now_ns();
                for &u in &self.unsubmitted {
                    self.s.slots.submitted_at[u as usize] = self.now;
                }
            }
            // Look aside: completions that arrived while these were issued. Where that is a
            // system call of its own, only when their time is measured.
            if latency || !E::PEEK_IS_A_CALL {
                self.look_aside();
            }
        } else if latency {
            // The I/O runs inside `reap`: it is submitted when it is queued, after its file was
            // opened where the engine opens files.
            if E::OPENS_FILES {
                self.now = clock.now_ns();
            }
            for &u in &self.unsubmitted {
                self.s.slots.submitted_at[u as usize] = self.now;
            }
        }
        self.unsubmitted.clear();
        true
    }

    /// Take the completions already there, without waiting, and count them.
    #[inline]
    fn look_aside(&mut self) {
        let latency = self.s.latency;
        let clock = &self.s.ctl.clock;
        self.cqes.clear();
        self.engine.peek(&mut self.cqes);
        if self.cqes.is_empty() {
            self.waits.empty_peeks += 1;
        } else {
            if latency {
                self.now = clock.now_ns();
            }
            self.waits.lookaside_completions += self.cqes.len() as u64;
            self.s
                .complete(&self.engine, &self.cqes, self.now, &self.bufs);
            if E::OPENS_FILES {
                self.s
                    .started_late(&mut self.engine, &mut self.late, self.now);
            }
        }
    }

    /// Nothing in flight: flush at the end (--end-fsync) or when due (--fsync), or wait out a
    /// pause or the rate limit.
    fn idle(&mut self, issuing: bool) -> Idle {
        let quota_done = self.s.quota_done_ns.is_some();
        if !issuing && self.s.flush.flush_due && self.s.flush.plan.after_last && quota_done {
            let (op, file) = (self.s.flush.op, self.s.flush.flush_file);
            self.queue_flush(op, file);
            return Idle::Reap;
        }
        if !issuing {
            // --end-fsync: each file written, one at a time.
            let f = &mut self.s.flush;
            let next = f.wrote[f.end_next..].iter().position(|&w| w);
            return match next {
                Some(i) if f.plan.end_fsync => {
                    let file = f.end_next + i;
                    f.end_next = file + 1;
                    f.end_flushed = true;
                    self.queue_flush(Op::Fsync, file as u32);
                    Idle::Reap
                }
                _ => Idle::Done,
            };
        }
        if self.s.flush.flush_due {
            let (op, file) = (self.s.flush.op, self.s.flush.flush_file);
            self.queue_flush(op, file);
            return Idle::Reap;
        }
        if self.s.parts.held() {
            // Nothing of this thread in flight: another thread holds the unit, briefly.
            std::thread::yield_now();
            self.now = self.s.ctl.clock.now_ns();
            return Idle::Issue;
        }
        self.wait_for_next_start();
        Idle::Issue
    }

    /// Queue a flush; called with nothing in flight, so every slot is free. It starts at the
    /// next `submit` or `reap`.
    fn queue_flush(&mut self, op: Op, file: u32) {
        let slot = self
            .s
            .slots
            .free
            .pop()
            .expect("no I/O in flight: every slot is free");
        self.now = self.s.ctl.clock.now_ns();
        let s = &mut self.s;
        s.slots.op[slot as usize] = op;
        s.slots.file[slot as usize] = file;
        s.flush.flush_queued_at = self.now;
        s.flush.flush_inflight = true;
        s.flush.flush_due = false;
        s.slots.inflight += 1;
        self.engine.queue(Sqe {
            slot,
            op,
            file,
            offset: 0,
            len: 0,
            buf: self.bufs.slot(slot),
            buf_index: slot,
            ioprio: 0,
        });
    }

    /// Rate-limited or pausing with nothing in flight: wait for the next start. Sleep until
    /// shortly before it (briefly enough to notice a stop), then spin: a sleep alone wakes
    /// late on virtual machines, and the I/O would start behind its own schedule.
    fn wait_for_next_start(&mut self) {
        const SPIN_NS: u64 = 200_000;
        let (ctl, now) = (self.s.ctl, self.now);
        let clock = &ctl.clock;
        if self.s.pause.think_due {
            self.s.pause.think_due = false;
            let t = self
                .s
                .pause
                .think
                .expect("think_due is only set with --think");
            if t.spin_ns > 0 {
                // Spin, but not past the stop (Ctrl-C).
                let until = now + t.spin_ns;
                while clock.now_ns() < until.min(ctl.stop_ns.load(Ordering::Relaxed)) {
                    std::hint::spin_loop();
                }
            }
            self.s.pause.think_until = now + t.ns;
        }
        let wake = self.s.pause.think_until.max(if self.s.rate_limited {
            self.plan.pacer.next_start(now)
        } else {
            0
        });
        let wait = wake.saturating_sub(now);
        if wait > SPIN_NS {
            std::thread::sleep(std::time::Duration::from_nanos(
                (wait - SPIN_NS).min(10_000_000),
            ));
        } else if wait > 0 {
            clock.spin_until(wake);
        }
        self.now = clock.now_ns();
    }

    /// Wait for completions (or, with free slots and no limit, collect those already there)
    /// and account for them. False if the engine failed.
    #[inline]
    fn reap(&mut self, may_issue: bool) -> bool {
        let now = self.now;
        let can_issue = may_issue && !self.s.slots.free.is_empty() && self.s.may_start();
        let rate_limited = self.s.rate_limited;
        let timeout = match rate_limited {
            true if can_issue => Some(
                self.plan
                    .pacer
                    .next_start(now)
                    .saturating_sub(now)
                    .max(1_000),
            ),
            _ => None,
        };
        // --rate-min: wake by the end of the current window even if nothing completes, so a
        // thread whose I/Os stall is judged then, not whenever one comes back.
        let timeout = match (timeout, self.s.parts.min_rate.as_ref()) {
            (None, Some(m)) if now >= self.s.m0 => {
                Some(m.window_end(now).saturating_sub(now).max(1_000_000))
            }
            (t, _) => t,
        };
        // Free slots and no rate limit: the issue pass ran out of budget, not of work. Collect
        // what has completed without blocking and go back to issuing, rather than leave those
        // slots idle while waiting. With the queue full, wait for a batch of completions
        // (--complete-batch), unless something is timed against the completions themselves.
        let plain = !rate_limited && !self.s.flush.flush_inflight;
        let min = if can_issue && plain {
            0
        } else if may_issue && plain && timeout.is_none() {
            self.gather.k().min(self.s.slots.inflight)
        } else {
            1
        };
        self.cqes.clear();
        if let Err(e) = self.engine.reap(min, timeout, &mut self.cqes) {
            let msg = format!("I/O engine failed on '{}': {e}", self.s.path);
            self.s.ctl.fail(msg, now);
            return false;
        }
        self.now = self.s.ctl.clock.now_ns();
        if min > 0 {
            self.waits.waits += 1;
            self.waits.waited_completions += self.cqes.len() as u64;
        } else {
            self.waits.lookaside_completions += self.cqes.len() as u64;
        }
        self.s
            .complete(&self.engine, &self.cqes, self.now, &self.bufs);
        if E::OPENS_FILES {
            self.s
                .started_late(&mut self.engine, &mut self.late, self.now);
        }
        let w = &self.waits;
        self.gather
            .tick(w.waited_completions + w.lookaside_completions, self.now);
        true
    }

    /// Hand over the last interval and records, and the totals.
    fn finish(self) -> WorkerOutcome {
        let Worker {
            engine,
            bufs,
            mut s,
            mut waits,
            plan,
            wall_at,
            gather,
            ..
        } = self;
        waits.batch_trials = gather.tried as u64;
        waits.batches_kept = gather.chose_batches as u64;
        s.flush_interval();
        if let Some(t) = s.parts.trace.as_mut() {
            t.send();
        }
        // Still before a wear-out deadline: this worker ended without reaching it.
        if wall_at != u64::MAX {
            s.ctl.wall.leave(s.counted_bytes);
        }
        let _ = s.tx.send(Msg::Done(plan.id));
        let injected = (E::INJECTS && s.latency).then(|| std::mem::take(&mut s.injected));
        let inflight = s.slots.inflight;
        // The engine goes first: the kernel must be done with the buffers before they are
        // freed.
        drop(engine);
        if inflight > 0 {
            // Only after an engine failure: the kernel may still write into these buffers, so
            // they are leaked rather than freed (a few KiB, once, on a run that is ending).
            std::mem::forget(bufs);
        }
        let lat_target = s.parts.lat_target.take();
        WorkerOutcome {
            totals: s.totals,
            flushes: std::mem::take(&mut s.flush.flushes),
            errors: s.on_error.errors,
            quota_done_ns: s.quota_done_ns,
            filled_ns: s.on_error.filled_ns,
            waits,
            injected,
            uring: None,
            files: s.parts.per_file.map_or(Vec::new(), |f| f.counts),
            latency_depth: lat_target.as_ref().map(|l| l.search.depth()),
            settled_ns: lat_target.and_then(|l| l.settled_ns),
            zbd: s.parts.zbd.as_ref().map(|z| z.outcome),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SizeShare;

    /// rate_process=poisson: the gaps between starts keep the limit's mean, and vary as an
    /// exponential distribution's do (standard deviation equal to the mean); evenly spaced
    /// starts do not vary at all.
    #[test]
    fn poisson_starts_keep_the_rate_and_vary_as_exponential_gaps() {
        let gaps = |poisson: bool| -> (f64, f64) {
            let limits = crate::spec::Limits {
                rate_iops: Some(1000),
                poisson,
                ..Default::default()
            };
            let mut p = Pacer::new(&limits, 0);
            p.start(0);
            let mut rng = Rng::new(7, &[]);
            let mut last = 0u64;
            let mut v = Vec::new();
            for _ in 0..100_000 {
                let Ok((w, at)) = p.admit(false, u64::MAX / 2) else {
                    panic!("a pacer far behind its schedule admits at once");
                };
                v.push((at - last) as f64);
                last = at;
                p.charge(w, 4096, &mut rng);
            }
            let v = &v[1..];
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let var = v.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / v.len() as f64;
            (mean, var.sqrt())
        };
        let (mean, sd) = gaps(true);
        assert!(
            (mean - 1e6).abs() < 0.02e6,
            "poisson mean gap {mean} ns, not 1 ms"
        );
        assert!(
            (sd / mean - 1.0).abs() < 0.05,
            "poisson gaps: sd {sd} over mean {mean}"
        );
        let (mean, sd) = gaps(false);
        assert_eq!((mean, sd), (1e6, 0.0));
    }

    #[test]
    fn block_sizes_are_drawn_with_their_shares() {
        let mut rng = Rng::new(11, &[]);
        let split = SizePick::new(&BlockSizes::Split {
            parts: vec![
                SizeShare {
                    bytes: 4096,
                    pct: 10,
                },
                SizeShare {
                    bytes: 32768,
                    pct: 40,
                },
                SizeShare {
                    bytes: 65536,
                    pct: 50,
                },
            ],
        });
        let n = 200_000;
        let mut counts = std::collections::HashMap::new();
        for _ in 0..n {
            *counts.entry(split.pick(&mut rng)).or_insert(0u64) += 1;
        }
        for (len, pct) in [(4096u32, 10.0), (32768, 40.0), (65536, 50.0)] {
            let got = 100.0 * counts[&len] as f64 / n as f64;
            assert!((got - pct).abs() < 0.5, "{len}: {got}%");
        }
        assert_eq!(counts.len(), 3);
        // A range: every multiple of the smallest size, the largest included, equally likely.
        let range = SizePick::new(&BlockSizes::Range {
            min: 4096,
            max: 16384,
            any_byte: false,
        });
        let mut counts = [0u64; 5];
        for _ in 0..n {
            let len = range.pick(&mut rng);
            assert_eq!(len % 4096, 0);
            counts[(len / 4096) as usize] += 1;
        }
        assert_eq!(counts[0], 0);
        for c in &counts[1..] {
            let share = *c as f64 / n as f64;
            assert!((share - 0.25).abs() < 0.01, "{counts:?}");
        }
        // Any byte (fio's bs_unaligned): min + [0, max), past max taken as max, so 1k-4k
        // gives each length below 4k a 1/4096 share and 4k the 1025/4096 left.
        let any = SizePick::new(&BlockSizes::Range {
            min: 1024,
            max: 4096,
            any_byte: true,
        });
        let (mut at_max, mut odd, mut sum) = (0u64, 0u64, 0u64);
        for _ in 0..n {
            let len = any.pick(&mut rng);
            assert!((1024..=4096).contains(&len), "{len}");
            at_max += (len == 4096) as u64;
            odd += (len % 2 == 1) as u64;
            sum += len as u64;
        }
        let share = at_max as f64 / n as f64;
        assert!((share - 1025.0 / 4096.0).abs() < 0.01, "{share}");
        assert!(odd as f64 / n as f64 > 0.3, "{odd} odd lengths of {n}");
        // (the lengths 1024..4095 once each, plus 1024 draws of 4096) / 4096
        let mean = (3072.0 * (1024.0 + 4095.0) / 2.0 + 1024.0 * 4096.0) / 4096.0;
        assert!(
            (sum as f64 / n as f64 - mean).abs() / mean < 0.01,
            "{sum} {mean}"
        );
    }

    /// Limits apart: a direction ahead of its schedule gives way to the other, if the job has
    /// it; both ahead, the wait is for the sooner.
    #[test]
    fn a_direction_ahead_of_its_limit_gives_way() {
        let apart = |d| crate::spec::Limits {
            rate_dirs: Some(d),
            ..Default::default()
        };
        let mut rng = Rng::new(1, &[]);
        let dirs = crate::spec::DirRates {
            read: None,
            write: Some(Rate::Iops { iops: 1000 }),
        };
        let mut p = Pacer::new(&apart(dirs), 50);
        p.start(1_000);
        assert_eq!(p.admit(true, 1_000), Ok((true, 1_000)));
        p.charge(true, 4096, &mut rng);
        // Writes are next due at 1 ms later: a write drawn now goes as a read.
        assert_eq!(p.admit(true, 2_000), Ok((false, 2_000)));
        assert_eq!(p.admit(false, 2_000), Ok((false, 2_000)));
        // A job that only writes waits for its schedule.
        let mut w = Pacer::new(&apart(dirs), 100);
        w.start(0);
        w.charge(true, 4096, &mut rng);
        assert_eq!(w.admit(true, 10), Err(1_000_000));
        assert_eq!(w.next_start(10), 1_000_000);
        // Both limited and both ahead: wait for the sooner.
        let both = crate::spec::DirRates {
            read: Some(Rate::Bytes {
                per_sec: 4096 * 100,
            }),
            write: Some(Rate::Iops { iops: 1000 }),
        };
        let mut b = Pacer::new(&apart(both), 50);
        b.start(0);
        b.charge(false, 4096, &mut rng);
        b.charge(true, 4096, &mut rng);
        assert_eq!(b.admit(false, 5), Err(1_000_000));
        assert_eq!(b.admit(true, 1_000_000), Ok((true, 1_000_000)));
        assert_eq!(b.admit(true, 1_000_001), Ok((true, 1_000_000)));
    }

    #[test]
    fn compressible_buffers_zero_the_tail_of_every_512_bytes() {
        let mut rng = Rng::new(3, &[]);
        let mut buf = vec![0u8; 8192];
        fill_buffer(&mut buf, &mut rng, 25);
        for chunk in buf.chunks(512) {
            // 384 random bytes (a zero among them now and then), then 128 zeros.
            assert!(chunk[384..].iter().all(|&b| b == 0));
            assert!(chunk[..384].iter().filter(|&&b| b == 0).count() < 20);
        }
        fill_buffer(&mut buf, &mut rng, 100);
        assert!(buf.iter().all(|&b| b == 0));
        fill_buffer(&mut buf, &mut rng, 0);
        assert!(buf.iter().filter(|&&b| b == 0).count() < 100);
    }
}
