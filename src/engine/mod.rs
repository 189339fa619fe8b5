//! I/O engines behind one small trait. The runner keeps `queue_depth` I/Os in flight through
//! [`IoEngine`]; an engine only moves bytes and reports completions. Timestamps, statistics
//! and offsets belong to the runner, so every engine is measured the same way.
//!
//! The worker loop is generic over the engine, so the per-I/O calls are static and inlined.

#[cfg(target_os = "linux")]
pub mod alloc;
pub mod build;
pub mod delay;
pub mod files;
#[cfg(windows)]
pub mod iocp;
pub mod kind;
pub mod lazy;
pub mod mmap;
pub mod null;
pub mod sync;
#[cfg(target_os = "linux")]
pub mod uring;

use crate::os::file;
use crate::os::RawHandle;
pub use kind::{Caps, EngineKind, RingFeatures, TrimAs};
use std::io;

/// One I/O to start. `buf` points into the worker's aligned buffer for `slot`, valid and
/// untouched by the worker until the completion for `slot` comes back. `file` indexes the
/// files the engine was made for (always 0 where a thread works on one target).
#[derive(Clone, Copy, Debug)]
pub struct Sqe {
    pub slot: u32,
    pub op: Op,
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    pub buf: *mut u8,
    /// Which of the worker's buffers `buf` lies in (for registered buffers): the slot's own,
    /// or for a verified write its write buffer.
    pub buf_index: u32,
    /// io_uring: the SQE's ioprio (the kernel's class and level value; 0 the thread's own).
    pub ioprio: u16,
}

/// What an I/O does. A flush (`Fsync`, `Fdatasync`) has no offset, length or buffer, and
/// completes with 0. A trim tells the storage that a range no longer holds data: on a file a
/// hole punched (`PunchHole`: fallocate's PUNCH_HOLE, what a file system's discard is), on a
/// block device a discard (`Discard`: BLKDISCARD, as fio's trims are); it takes no buffer
/// and completes with 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    Fsync,
    Fdatasync,
    PunchHole,
    Discard,
}

/// Where each direction's figures are kept in per-direction arrays: reads, writes, trims.
pub const READ: usize = 0;
pub const WRITE: usize = 1;
pub const TRIM: usize = 2;

impl Op {
    pub fn verb(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Fsync => "fsync",
            Op::Fdatasync => "fdatasync",
            Op::PunchHole => "punch a hole in",
            Op::Discard => "discard",
        }
    }

    #[inline]
    pub fn is_flush(self) -> bool {
        matches!(self, Op::Fsync | Op::Fdatasync)
    }

    #[inline]
    pub fn is_trim(self) -> bool {
        matches!(self, Op::PunchHole | Op::Discard)
    }

    /// The direction an I/O is counted in ([`READ`], [`WRITE`] or [`TRIM`]); flushes are
    /// counted apart and have none (they count as writes here).
    #[inline]
    pub fn dir(self) -> usize {
        match self {
            Op::Read => READ,
            Op::PunchHole | Op::Discard => TRIM,
            _ => WRITE,
        }
    }
}

/// A finished I/O: `result` is the byte count, or a negative error code (an errno on Linux, a
/// Win32 error on Windows: [`crate::os::error`]).
#[derive(Clone, Copy, Debug)]
pub struct Cqe {
    pub slot: u32,
    pub result: i32,
}

pub trait IoEngine {
    /// True where an I/O runs after [`IoEngine::submit`] returns (io_uring, delay); false where
    /// it runs inside [`IoEngine::reap`] (sync, null). Only asynchronous engines have a
    /// submission latency of their own and completions worth peeking for.
    const ASYNC: bool;

    /// Queue one I/O; it starts at the next `submit` or `reap`.
    fn queue(&mut self, sqe: Sqe);

    /// Start every queued I/O without waiting for any.
    fn submit(&mut self) -> io::Result<()>;

    /// Append the completions already available, without waiting (a look-aside).
    fn peek(&mut self, out: &mut Vec<Cqe>);

    /// Start every queued I/O, wait until at least `min` I/Os have completed (or `timeout_ns`
    /// has passed), and append every completion available, not just `min`, to `out`.
    fn reap(&mut self, min: usize, timeout_ns: Option<u64>, out: &mut Vec<Cqe>) -> io::Result<()>;

    /// Give up the I/Os in flight where nothing real is in flight (the delay engine's are only
    /// timers), appending their slots to `out`: a run that stops need not wait out a long
    /// delay. Real I/O is never given up: the kernel owns its buffers until it completes.
    fn cancel(&mut self, _out: &mut Vec<u32>) {}

    /// True where a look-aside ([`IoEngine::peek`]) is a system call of its own (a completion
    /// port's zero-wait GetQueuedCompletionStatusEx), not a read of memory the kernel shares
    /// (io_uring's completion queue): the worker then looks aside only in latency mode, where
    /// the moment an I/O is seen complete is measured, and in IOPS mode reaps in batches, as
    /// DiskSpd does.
    const PEEK_IS_A_CALL: bool = false;

    /// Whether `reap` hands the engine what `queue` left unsubmitted before it waits, so that
    /// one call both submits and waits.
    const REAP_SUBMITS: bool = false;

    /// True where the engine injects known latencies (the delay engine).
    const INJECTS: bool = false;

    /// False where an I/O moves no data (the file-operation engines): it then completes with
    /// 0, and the worker counts it with no bytes.
    const MOVES_DATA: bool = true;

    /// What an I/O of this kind does, for error messages: "read", "write", "create"...
    fn verb(&self, op: Op) -> &'static str {
        op.verb()
    }

    /// What failed, for the message of an I/O in `slot` that completed with an error: its
    /// [`IoEngine::verb`], or "open" where its file could not be opened ([`lazy::Lazy`]).
    fn verb_of(&self, _slot: u32, op: Op) -> &'static str {
        self.verb(op)
    }

    /// True where `queue` may open a file ([`lazy::Lazy`]): an engine that runs each I/O
    /// inside `reap` then has its submission stamped after `queue`, so that the open does not
    /// count in the I/O's completion latency.
    const OPENS_FILES: bool = false;

    /// Append the slots of I/Os that went to the device only during the last `peek` or
    /// `reap`, having waited inside the engine since they were queued (an I/O of
    /// [`lazy::Lazy`] waiting for a file to be closed): their submission is stamped then, so
    /// that the wait counts in their submission latency, not in their completion latency.
    /// Asked only of engines that open files ([`IoEngine::OPENS_FILES`]).
    fn started_late(&mut self, _out: &mut Vec<u32>) {}

    /// Put descriptor `fd` at place `index` of the files the engine was made for, where no I/O
    /// of the old one is in flight ([`lazy::Lazy`] opening a file in place of another).
    /// Engines that take no descriptors refuse.
    fn set_file(&mut self, _index: u32, _fd: RawHandle) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }

    /// The latency injected for the I/O in `slot`, once it has completed (delay engine), so the
    /// worker can compare it with what it measured for exactly the same I/O.
    fn injected_ns(&self, _slot: u32) -> u64 {
        0
    }
}

/// Whether an io_uring ring can be set up here, and why not (io_uring is Linux's).
pub fn probe_ring() -> Result<(), String> {
    #[cfg(target_os = "linux")]
    return uring::UringEngine::probe();
    #[cfg(not(target_os = "linux"))]
    Err("io_uring is Linux's".to_string())
}

/// One I/O done at once on `fd`, as the sync engine does it: a positional read or write of
/// the whole buffer, a flush, or a trim (the platform layer's calls, retried where a signal
/// interrupted them). The byte count, or a negative error code.
#[inline]
pub(crate) fn rw_once(fd: RawHandle, sqe: &Sqe) -> i32 {
    match sqe.op {
        Op::Read => file::read_at(fd, sqe.buf, sqe.len, sqe.offset),
        Op::Write => file::write_at(fd, sqe.buf, sqe.len, sqe.offset),
        Op::Fsync => file::flush(fd, false),
        Op::Fdatasync => file::flush(fd, true),
        Op::PunchHole | Op::Discard => trim_once(fd, sqe.op, sqe.offset, sqe.len),
    }
}

/// A trim of `len` bytes at `offset`: a hole punched in a file (the size kept), or a discard
/// of a block device's range. 0 or a negative error code, as a completion's result.
pub(crate) fn trim_once(fd: RawHandle, op: Op, offset: u64, len: u32) -> i32 {
    match op {
        Op::Discard => file::discard(fd, offset, len),
        _ => file::punch_hole(fd, offset, len),
    }
}
