//! One worker thread: keeps `queue_depth` I/Os in flight on one target and records each
//! completion. This is the hot path; everything here runs per I/O, so it does no allocation,
//! no locking and no system calls beyond the engine's and one clock read per batch.
//!
//! Completions are reaped in batches: every completion found by one `reap` is stamped with the
//! clock read right after it, and the freed slots are reissued together.

use super::offsets::OffsetGen;
use super::rng::Rng;
use super::{Clock, Control, Msg};
use crate::engine::{Cqe, IoEngine, Sqe};
use crate::error::SHORT_IO;
use crate::stats::{IntervalHistogram, LatencyHistogram};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::sync::atomic::Ordering;
use std::sync::mpsc::SyncSender as Sender;
use std::sync::Mutex;

/// What one worker needs to know; built by the runner.
pub struct WorkerPlan {
    pub id: usize,
    pub target: usize,
    pub thread: u32,
    pub queue_depth: u32,
    pub block_size: u32,
    pub write_pct: u64,
    pub seed: u64,
    pub offsets: OffsetGen,
    /// Minimum time between two I/O starts, for --rate-iops / --rate-bw.
    pub gap_ns: Option<u64>,
    /// Bytes this worker counts before it stops (--total).
    pub quota_bytes: Option<u64>,
    pub continue_on_error: bool,
    pub path: String,
}

/// Everything one worker counted in the measured window, for one direction.
#[derive(Default, Clone)]
pub struct DirTotals {
    pub ios: u64,
    pub bytes: u64,
    pub hist: LatencyHistogram,
}

pub struct WorkerOutcome {
    /// [read, write]. Kept by the worker itself, so totals stay exact whatever the collector does.
    pub totals: [DirTotals; 2],
    pub errors: Vec<(i32, u64)>,
    /// When this worker's quota was done (--total), on the run clock.
    pub quota_done_ns: Option<u64>,
}

/// Counts and latencies of one direction within one interval, for the time series.
pub struct IntervalDir {
    pub ios: u64,
    pub lat_sum_ns: u64,
    pub hist: IntervalHistogram,
}

pub struct IntervalMsg {
    pub worker: usize,
    pub index: u64,
    /// [read, write]
    pub dirs: [IntervalDir; 2],
}

/// Cleared histograms handed back by the collector, so workers never allocate on the hot path.
pub type HistPool = Mutex<Vec<IntervalHistogram>>;

fn take_hist(pool: &HistPool) -> IntervalHistogram {
    pool.lock()
        .ok()
        .and_then(|mut p| p.pop())
        .unwrap_or_default()
}

struct Interval {
    index: u64,
    dirs: [IntervalDir; 2],
}

impl Interval {
    fn new(index: u64, pool: &HistPool) -> Self {
        let d = || IntervalDir {
            ios: 0,
            lat_sum_ns: 0,
            hist: take_hist(pool),
        };
        Interval {
            index,
            dirs: [d(), d()],
        }
    }
}

/// Buffers for every slot, aligned for O_DIRECT and filled with random bytes so that writes
/// are incompressible and differ from slot to slot.
struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
    slot_len: usize,
}

impl AlignedBuf {
    fn new(slots: usize, slot_len: usize, rng: &mut Rng) -> Self {
        let layout = Layout::from_size_align(slots * slot_len, 4096).expect("buffer layout");
        // SAFETY: the layout has a non-zero size (slots >= 1, slot_len >= 1).
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory allocating I/O buffers");
        // SAFETY: ptr is valid for layout.size() bytes, just allocated.
        rng.fill(unsafe { std::slice::from_raw_parts_mut(ptr, layout.size()) });
        AlignedBuf {
            ptr,
            layout,
            slot_len,
        }
    }
    #[inline]
    fn slot(&self, i: u32) -> *mut u8 {
        // SAFETY: i < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.add(i as usize * self.slot_len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

pub fn run<E: IoEngine>(
    mut engine: E,
    mut plan: WorkerPlan,
    ctl: &Control,
    tx: Sender<Msg>,
) -> WorkerOutcome {
    let qd = plan.queue_depth as usize;
    let bs = plan.block_size;
    let mut rng = Rng::new(plan.seed, &[plan.target as u64, plan.thread as u64]);
    let bufs = AlignedBuf::new(qd, bs as usize, &mut rng);
    let mut free: Vec<u32> = (0..qd as u32).rev().collect();
    let mut started = vec![0u64; qd];
    let mut is_write = vec![false; qd];
    let mut cqes: Vec<Cqe> = Vec::with_capacity(qd);
    let mut errors: Vec<(i32, u64)> = Vec::new();
    let mut totals: [DirTotals; 2] = Default::default();
    let mut inflight = 0usize;
    let mut counted_bytes = 0u64;
    let mut quota_done_ns = None;
    let clock: &Clock = &ctl.clock;

    ctl.ready.wait();
    ctl.go.wait();
    let m0 = ctl.measure_start_ns.load(Ordering::Relaxed);
    let m1 = ctl.measure_end_ns.load(Ordering::Relaxed);
    let interval_ns = ctl.interval_ns;
    // No interval is open during warm-up; the first opens at m0.
    let mut interval: Option<Interval> = None;
    let mut next_boundary = m0;
    let mut next_due = clock.now_ns();
    let mut now = next_due;

    loop {
        let stop = ctl.stop_ns.load(Ordering::Relaxed);
        let issuing = now < stop && quota_done_ns.is_none();
        if issuing {
            while let Some(&slot) = free.last() {
                if let Some(gap) = plan.gap_ns {
                    if next_due > now {
                        break;
                    }
                    next_due += gap;
                }
                free.pop();
                let write = plan.write_pct > 0 && rng.below(100) < plan.write_pct;
                let offset = plan.offsets.next(&mut rng);
                engine.queue(Sqe {
                    slot,
                    write,
                    offset,
                    len: bs,
                    buf: bufs.slot(slot),
                });
                started[slot as usize] = now;
                is_write[slot as usize] = write;
                inflight += 1;
            }
        }
        if inflight == 0 {
            if !issuing {
                break;
            }
            // Rate-limited with nothing in flight: sleep to the next start, briefly enough to
            // notice a stop.
            let wait = next_due.saturating_sub(now).min(10_000_000);
            std::thread::sleep(std::time::Duration::from_nanos(wait));
            now = clock.now_ns();
            continue;
        }
        let timeout = match plan.gap_ns {
            Some(_) if issuing && !free.is_empty() => Some(next_due.saturating_sub(now).max(1_000)),
            _ => None,
        };
        cqes.clear();
        if let Err(e) = engine.reap(1, timeout, &mut cqes) {
            ctl.fail(format!("I/O engine failed on '{}': {e}", plan.path), now);
            break;
        }
        now = clock.now_ns();
        let t = now;
        if t >= next_boundary {
            if let Some(done) = interval.take() {
                send(&tx, plan.id, done);
            }
            if t < m1 {
                let index = (t - m0) / interval_ns;
                interval = Some(Interval::new(index, &ctl.hist_pool));
                next_boundary = m0 + (index + 1) * interval_ns;
            } else {
                next_boundary = u64::MAX;
            }
        }
        let counting =
            t >= m0 && t < m1 && t < ctl.stop_ns.load(Ordering::Relaxed) && quota_done_ns.is_none();
        for c in &cqes {
            free.push(c.slot);
            inflight -= 1;
            if c.result != bs as i32 {
                let errno = if c.result < 0 { -c.result } else { SHORT_IO };
                match errors.iter_mut().find(|e| e.0 == errno) {
                    Some(e) => e.1 += 1,
                    None => errors.push((errno, 1)),
                }
                if !plan.continue_on_error {
                    let what = if is_write[c.slot as usize] {
                        "write"
                    } else {
                        "read"
                    };
                    let why = if c.result < 0 {
                        format!(
                            "{} ({})",
                            crate::error::errno_name(errno),
                            std::io::Error::from_raw_os_error(errno)
                        )
                    } else {
                        format!("short {what}: {} of {bs} bytes", c.result)
                    };
                    ctl.fail(format!("{what} error on '{}': {why}", plan.path), t);
                }
                continue;
            }
            // With --total, count exactly the quota: one batch may hold more than it needs.
            if counting && plan.quota_bytes.is_none_or(|q| counted_bytes < q) {
                if let Some(iv) = interval.as_mut() {
                    let dir = is_write[c.slot as usize] as usize;
                    let lat = t - started[c.slot as usize];
                    let d = &mut iv.dirs[dir];
                    d.ios += 1;
                    d.lat_sum_ns += lat;
                    d.hist.record(lat);
                    let tot = &mut totals[dir];
                    tot.ios += 1;
                    tot.bytes += bs as u64;
                    tot.hist.record(lat);
                    counted_bytes += bs as u64;
                }
            }
        }
        if let Some(q) = plan.quota_bytes {
            if counted_bytes >= q && quota_done_ns.is_none() {
                quota_done_ns = Some(t);
            }
        }
    }
    if inflight > 0 {
        // Only after an engine failure: the kernel may still write into these buffers, so
        // they are leaked rather than freed (a few KiB, once, on a run that is ending).
        std::mem::forget(bufs);
    }
    if let Some(done) = interval.take() {
        send(&tx, plan.id, done);
    }
    let _ = tx.send(Msg::Done(plan.id));
    WorkerOutcome {
        totals,
        errors,
        quota_done_ns,
    }
}

fn send(tx: &Sender<Msg>, worker: usize, iv: Interval) {
    let _ = tx.send(Msg::Interval(Box::new(IntervalMsg {
        worker,
        index: iv.index,
        dirs: iv.dirs,
    })));
}
