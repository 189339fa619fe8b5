//! The worker's optional per-I/O features ("parts"): each is a value the worker holds only
//! where the job asks for it, with its own plan and state, and hooks the completion path calls
//! (fio keeps all of these in one `thread_data` and one loop; here a feature is one type).
//!
//! A new per-I/O feature is one struct, one `impl Part`, one field of [`Parts`] and its name
//! in `each_part!`. Dispatch is static (`Option<T>` fields, no `dyn`), and no hook allocates:
//! a job without a feature pays one `is_some` per hook for it, as a flag in the loop did.

use super::{DirTotals, IoRecord, Slots, TRACE_BATCH};
use crate::engine::{Cqe, Op};
use crate::os::memory::AlignedBuf;
use crate::runner::lat_target::{DepthSearch, Step};
use crate::runner::{Control, Msg};
use crate::verify::worker::{Pending, WorkerVerify};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::mpsc::SyncSender as Sender;

/// One completed data I/O, as the parts see it: read from its slot only where asked.
pub(super) struct Done<'s> {
    pub t: u64,
    pub slot: usize,
    pub cqe: &'s Cqe,
    pub slots: &'s Slots,
    /// It moved what it was asked to (a trim: it succeeded).
    pub ok: bool,
    /// Completed inside the measured window (before the stop).
    pub counting: bool,
    /// It counts in the results (within the quota, or a trim's write).
    pub counted: bool,
}

impl Done<'_> {
    #[inline]
    pub fn op(&self) -> Op {
        self.slots.op[self.slot]
    }
    #[inline]
    pub fn len(&self) -> u32 {
        self.slots.len[self.slot]
    }
    #[inline]
    pub fn file(&self) -> u32 {
        self.slots.file[self.slot]
    }
    #[inline]
    pub fn offset(&self) -> u64 {
        self.slots.offset[self.slot]
    }
}

/// What a counted I/O came to: its direction, the bytes it counts, and (latency mode) its
/// submission and completion latencies.
pub(super) struct Counted {
    pub dir: usize,
    pub bytes: u32,
    pub lat: Option<(u64, u64)>,
}

/// What of the worker a part may read or change from a completion.
pub(super) struct Cx<'a> {
    pub t: u64,
    pub counting: bool,
    pub ctl: &'a Control,
    /// The target (or set of files), for messages.
    pub path: &'a str,
    pub m0: u64,
    pub bufs: &'a AlignedBuf,
    pub totals: &'a [DirTotals; 3],
    pub inflight: usize,
    /// The bytes counted toward the quota.
    pub counted_bytes: &'a mut u64,
}

/// A per-I/O feature's hooks; each is a no-op unless the part has something to do there.
pub(super) trait Part {
    /// A data I/O completed (succeeded or not), before it is counted.
    #[inline]
    fn on_complete(&mut self, _io: &Done<'_>, _cx: &mut Cx<'_>) {}
    /// A completed I/O was counted in the results.
    #[inline]
    fn on_counted(&mut self, _io: &Done<'_>, _c: &Counted) {}
    /// A batch of completions was accounted for.
    #[inline]
    fn after_batch(&mut self, _cx: &mut Cx<'_>) {}
}

/// What a worker's plan says of its optional features; `run` makes its [`Parts`] of them.
#[derive(Default)]
pub struct Features {
    /// Data verification (--verify): what this thread needs of it.
    pub verify: Option<crate::verify::worker::Setup>,
    /// Search the depth that meets a latency target (fio's latency_target).
    pub latency_target: Option<crate::spec::LatencyTarget>,
    pub min_rate: Option<crate::spec::MinRate>,
    /// Keep a record of every I/O counted (latency mode), for per-I/O logs.
    pub trace: bool,
    /// This thread's share of a flow it is in with other jobs' threads (fio's flow).
    pub flow: Option<crate::runner::flow::FlowGate>,
    /// --zbd: the zones each I/O is placed in.
    pub zbd: Option<crate::runner::zbd::ZbdThread>,
}

/// The parts a worker has.
#[derive(Default)]
pub(super) struct Parts {
    /// --verify: units stamped as written, checked as read.
    pub verify: Option<WorkerVerify>,
    /// --trim then-write: each trim's write.
    pub then_write: Option<ThenWrite>,
    /// --latency-target: the depth search.
    pub lat_target: Option<LatTarget>,
    /// --rate-min: the floor judged per window.
    pub min_rate: Option<MinRate>,
    /// Several files per thread: each file's counts.
    pub per_file: Option<PerFile>,
    /// Per-I/O logs: a record of each I/O counted.
    pub trace: Option<Trace>,
    /// fio's flow: this thread's share of a flow (looked at as each I/O is drawn).
    pub flow: Option<crate::runner::flow::FlowGate>,
    /// --zbd: the zones each I/O is placed in (looked at as each I/O is drawn).
    pub zbd: Option<crate::runner::zbd::ZbdThread>,
    /// Some part has completion hooks: without, the completion path skips them all with one
    /// test (see [`Parts::hooked`]), as fast as a loop without the features.
    pub hooked: bool,
}

/// Calls `$call` on each part present, in this order (the order of their effects).
macro_rules! each_part {
    ($parts:expr, $p:ident => $call:expr) => {{
        let parts = $parts;
        if let Some($p) = parts.verify.as_mut() {
            $call;
        }
        if let Some($p) = parts.min_rate.as_mut() {
            $call;
        }
        if let Some($p) = parts.lat_target.as_mut() {
            $call;
        }
        if let Some($p) = parts.then_write.as_mut() {
            $call;
        }
        if let Some($p) = parts.per_file.as_mut() {
            $call;
        }
        if let Some($p) = parts.trace.as_mut() {
            $call;
        }
    }};
}

impl Parts {
    /// Marks whether any part present has completion hooks; called once the parts are made.
    pub fn hooked(mut self) -> Parts {
        self.hooked = self.verify.is_some()
            || self.then_write.is_some()
            || self.lat_target.is_some()
            || self.min_rate.is_some()
            || self.per_file.is_some()
            || self.trace.is_some();
        self
    }

    #[inline(always)]
    pub fn on_complete(&mut self, io: &Done<'_>, cx: &mut Cx<'_>) {
        each_part!(self, p => p.on_complete(io, cx));
    }
    #[inline(always)]
    pub fn on_counted(&mut self, io: &Done<'_>, c: &Counted) {
        each_part!(self, p => p.on_counted(io, c));
    }
    #[inline(always)]
    pub fn after_batch(&mut self, cx: &mut Cx<'_>) {
        each_part!(self, p => p.after_batch(cx));
    }

    /// Whether the latency target's search lets one more I/O start.
    #[inline]
    pub fn may_start(&self, inflight: usize) -> bool {
        self.lat_target
            .as_ref()
            .is_none_or(|l| l.search.may_start(inflight))
    }

    /// --trim then-write: writes are due after their trims.
    #[inline]
    pub fn pairs_due(&self) -> bool {
        self.then_write.as_ref().is_some_and(|w| !w.due.is_empty())
    }

    /// --verify: an I/O is held back for a unit another I/O holds.
    #[inline]
    pub fn held(&self) -> bool {
        self.verify.as_ref().is_some_and(|v| v.stash.is_some())
    }
}

/// --verify: a write's units one generation on, a read's checked; a mismatch stops the run
/// unless told to go on.
impl Part for WorkerVerify {
    #[inline]
    fn on_complete(&mut self, io: &Done<'_>, cx: &mut Cx<'_>) {
        let (file, offset, len) = (io.file(), io.offset(), io.len());
        let ok = io.cqe.result == len as i32;
        match io.op() {
            Op::Write => self.written(file, offset, len, ok),
            Op::Read => {
                // SAFETY: the read has completed: the engine is done with the slot's buffer.
                let data =
                    unsafe { std::slice::from_raw_parts(cx.bufs.slot(io.cqe.slot), len as usize) };
                let during = match io.slots.checkback[io.slot] {
                    true => "backlog",
                    false => "read",
                };
                if let Some(msg) = self.read(data, file, offset, len, ok, during) {
                    cx.ctl.fail(msg, cx.t);
                }
            }
            // Validation keeps trims and verification apart.
            Op::Fsync | Op::Fdatasync | Op::PunchHole | Op::Discard => {}
        }
    }
}

/// An I/O to start before anything new is drawn (--verify): one held back because a unit of
/// it was another I/O's, or a read-back of a recent write that is due.
#[inline]
pub(super) fn verify_first(v: &mut WorkerVerify, now: u64) -> Option<Pending> {
    if let Some(p) = v.stash.take() {
        return Some(p);
    }
    let (file, offset, len) = v.backlog_due()?;
    Some(Pending {
        write: false,
        trim: false,
        follows: false,
        len,
        file,
        offset,
        scheduled: now,
        backlog: true,
    })
}

/// --trim then-write: the write due after each trim that has completed, (file, offset,
/// length, whether its trim was counted), oldest first. Past the quota these writes still
/// go: a trim is never left without its write, counted or not.
#[derive(Default)]
pub(super) struct ThenWrite {
    due: VecDeque<(u32, u64, u32, bool)>,
}

impl ThenWrite {
    /// The write of the oldest trim that completed, to the same range.
    #[cold]
    pub fn next(&mut self, now: u64) -> Option<Pending> {
        let (file, offset, len, counted) = self.due.pop_front()?;
        Some(Pending {
            write: true,
            trim: false,
            follows: counted,
            len,
            file,
            offset,
            scheduled: now,
            backlog: false,
        })
    }
}

impl Part for ThenWrite {
    #[inline]
    fn on_complete(&mut self, io: &Done<'_>, cx: &mut Cx<'_>) {
        if !io.ok || !io.op().is_trim() {
            return;
        }
        self.due
            .push_back((io.file(), io.offset(), io.len(), io.counted));
        // The pair's write counts toward the quota now, with its trim.
        if io.counted {
            *cx.counted_bytes += io.len() as u64;
        }
    }
}

/// --latency-target: how many I/Os may be in flight now, and when the search ended.
pub(super) struct LatTarget {
    pub search: DepthSearch,
    pub settled_ns: Option<u64>,
}

impl Part for LatTarget {
    /// One I/O's latency judged: fio judges reads and writes only, by their total latency
    /// (from when the I/O was queued), not their completion's.
    #[inline]
    fn on_complete(&mut self, io: &Done<'_>, cx: &mut Cx<'_>) {
        if !io.ok || !io.counting || io.op().is_trim() {
            return;
        }
        let lat = io.t - io.slots.queued_at[io.slot];
        if self.search.completed(lat, io.t) == Step::Missed {
            let target = self.search.target_ns();
            cx.ctl.fail(
                format!(
                    "'{}': an I/O took {:.1} us at queue depth 1, over the latency target of {:.1} us: no depth meets it",
                    cx.path,
                    lat as f64 / 1e3,
                    target as f64 / 1e3
                ),
                io.t,
            );
        }
    }

    #[inline]
    fn after_batch(&mut self, cx: &mut Cx<'_>) {
        if cx.counting && self.search.after(cx.t, cx.inflight) == Step::Done {
            self.settled_ns = Some(cx.t);
            cx.ctl.stop_ns.fetch_min(cx.t, Ordering::Relaxed);
        }
    }
}

/// --rate-min: the floor, and where the current window began: its time, and the (bytes,
/// I/Os) of reads and of writes (and trims) counted by then.
pub(super) struct MinRate {
    pub floor: crate::spec::MinRate,
    pub window: (u64, [(u64, u64); 2]),
}

impl Part for MinRate {
    #[inline]
    fn after_batch(&mut self, cx: &mut Cx<'_>) {
        if cx.counting {
            self.judge(cx);
        }
    }
}

impl MinRate {
    /// When the current window ends (for a wait that must wake to judge it).
    pub fn window_end(&self, now: u64) -> u64 {
        match self.window.0 {
            0 => now + self.floor.window_ns,
            start => start + self.floor.window_ns,
        }
    }

    /// Judge the window that has ended, if one has.
    #[inline]
    fn judge(&mut self, cx: &mut Cx<'_>) {
        let (m, t) = (self.floor, cx.t);
        // Trims are judged with the writes, in whose place they are paced.
        let [r, w, tr] = cx.totals;
        let now = [(r.bytes, r.ios), (w.bytes + tr.bytes, w.ios + tr.ios)];
        let (start, before) = self.window;
        if start == 0 {
            self.window = (t.max(cx.m0), now);
            return;
        }
        let span = t - start;
        if span < m.window_ns {
            return;
        }
        let secs = span as f64 / 1e9;
        let rate = |d: usize| {
            (
                (now[d].0 - before[d].0) as f64 / secs,
                (now[d].1 - before[d].1) as f64 / secs,
            )
        };
        // (what, bytes/s, I/Os per s, floor); apart, only the directions the thread has done.
        let mut judged: Vec<(&str, (f64, f64), crate::spec::Floor)> = Vec::new();
        match m.apart {
            Some(floors) => {
                for (d, what) in [(0, "reads"), (1, "writes")] {
                    if now[d].1 > 0 {
                        judged.push((what, rate(d), floors[d]));
                    }
                }
            }
            None => {
                let (r, w) = (rate(0), rate(1));
                judged.push((
                    "I/Os",
                    (r.0 + w.0, r.1 + w.1),
                    crate::spec::Floor {
                        bytes_per_sec: m.bytes_per_sec,
                        iops: m.iops,
                    },
                ));
            }
        }
        for (what, (bw, iops), floor) in judged {
            if floor.bytes_per_sec > 0 && bw < floor.bytes_per_sec as f64 {
                cx.ctl.fail(
                    format!(
                        "'{}': a thread's {what} moved {bw:.0} bytes/s over {secs:.1} s, below --rate-min {}",
                        cx.path, floor.bytes_per_sec
                    ),
                    t,
                );
                break;
            }
            if floor.iops > 0 && iops < floor.iops as f64 {
                cx.ctl.fail(
                    format!(
                        "'{}': a thread did {iops:.0} {what} per second over {secs:.1} s, below --rate-min-iops {}",
                        cx.path, floor.iops
                    ),
                    t,
                );
                break;
            }
        }
        self.window = (t, now);
    }
}

/// Per file [read, write, trim] (I/Os, bytes), where the thread has more than one.
pub(super) struct PerFile {
    pub counts: Vec<[(u64, u64); 3]>,
}

impl Part for PerFile {
    #[inline]
    fn on_counted(&mut self, io: &Done<'_>, c: &Counted) {
        let f = &mut self.counts[io.file() as usize][c.dir];
        f.0 += 1;
        f.1 += c.bytes as u64;
    }
}

/// Per-I/O logs (latency mode): the records not yet handed to the collector, which gets them
/// in batches of [`TRACE_BATCH`] so that memory stays bounded whatever the rate.
pub(super) struct Trace {
    pub records: Vec<IoRecord>,
    pub tx: Sender<Msg>,
    pub id: usize,
    pub m0: u64,
}

impl Part for Trace {
    #[inline]
    fn on_counted(&mut self, io: &Done<'_>, c: &Counted) {
        let Some((submission, completion)) = c.lat else {
            return;
        };
        self.records.push(IoRecord {
            at: io.t - self.m0,
            dir: c.dir as u8,
            len: c.bytes,
            offset: io.offset(),
            submission,
            completion,
            prio: io.slots.ioprio[io.slot],
        });
        if self.records.len() >= TRACE_BATCH {
            self.send();
        }
    }
}

impl Trace {
    /// Hand the records kept so far to the collector.
    #[cold]
    pub fn send(&mut self) {
        if !self.records.is_empty() {
            let batch = std::mem::replace(&mut self.records, Vec::with_capacity(TRACE_BATCH));
            let _ = self.tx.send(Msg::Ios(self.id, batch));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;

    /// Runs `f` with a context over `counted_bytes`, as the completion path builds it.
    fn with_cx(counted_bytes: &mut u64, f: impl FnOnce(&mut Cx<'_>)) {
        let (clock, _) = Clock::calibrated();
        let ctl = Control::new(clock, 1, 1_000_000_000);
        let bufs = AlignedBuf::new(2, 4096).unwrap();
        let totals: [DirTotals; 3] = Default::default();
        let mut cx = Cx {
            t: 10,
            counting: true,
            ctl: &ctl,
            path: "t.dat",
            m0: 0,
            bufs: &bufs,
            totals: &totals,
            inflight: 0,
            counted_bytes,
        };
        f(&mut cx);
    }

    fn done<'s>(slots: &'s Slots, cqe: &'s Cqe, ok: bool, counted: bool) -> Done<'s> {
        Done {
            t: 10,
            slot: cqe.slot as usize,
            cqe,
            slots,
            ok,
            counting: true,
            counted,
        }
    }

    /// --trim then-write: a trim that succeeded queues its write to the same range, counted
    /// toward the quota with the trim where the trim was counted; a failed trim, and a write,
    /// queue nothing.
    #[test]
    fn a_trim_queues_its_write_and_counts_it_with_the_trim() {
        let mut slots = Slots::new(2, 4096);
        slots.op[0] = Op::PunchHole;
        slots.file[0] = 1;
        slots.offset[0] = 8192;
        slots.op[1] = Op::Write;
        let mut parts = Parts {
            then_write: Some(ThenWrite::default()),
            ..Default::default()
        }
        .hooked();
        assert!(parts.hooked);
        let mut counted = 0;
        with_cx(&mut counted, |cx| {
            let trim = Cqe { slot: 0, result: 0 };
            parts.on_complete(&done(&slots, &trim, false, false), cx);
            let write = Cqe {
                slot: 1,
                result: 4096,
            };
            parts.on_complete(&done(&slots, &write, true, true), cx);
            assert!(
                !parts.pairs_due(),
                "only a trim that succeeded has a write due"
            );
            parts.on_complete(&done(&slots, &trim, true, true), cx);
            parts.on_complete(&done(&slots, &trim, true, false), cx);
        });
        assert_eq!(counted, 4096, "the counted trim's write, once");
        let w = parts.then_write.as_mut().unwrap();
        let first = w.next(20).unwrap();
        assert!(first.write && !first.trim && first.follows);
        assert_eq!((first.file, first.offset, first.len), (1, 8192, 4096));
        assert!(
            !w.next(20).unwrap().follows,
            "a trim not counted: its write neither"
        );
        assert!(w.next(20).is_none());
    }

    /// Several files: each counted I/O goes to its own file's [read, write, trim] counts.
    #[test]
    fn per_file_counts_go_to_the_file_of_each_io() {
        let mut slots = Slots::new(2, 4096);
        slots.file[1] = 2;
        let mut parts = Parts {
            per_file: Some(PerFile {
                counts: vec![Default::default(); 3],
            }),
            ..Default::default()
        }
        .hooked();
        let c = Cqe {
            slot: 1,
            result: 4096,
        };
        let io = done(&slots, &c, true, true);
        for dir in [0, 1, 1] {
            let counted = Counted {
                dir,
                bytes: 4096,
                lat: None,
            };
            parts.on_counted(&io, &counted);
        }
        let f = &parts.per_file.unwrap().counts;
        assert_eq!(f[2], [(1, 4096), (2, 8192), (0, 0)]);
        assert_eq!(f[0], [(0, 0); 3]);
    }
}
