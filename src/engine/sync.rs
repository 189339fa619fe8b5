//! Engines that run each I/O inside `reap`, one at a time per thread: pread/pwrite (fio's
//! psync, DiskSpd without overlapped I/O) and, in `mmap.rs`, copies to and from a mapping, and
//! in `files.rs`, operations on file names. The
//! queueing is shared ([`Inline`]); each says only how one I/O is done ([`RunOne`]).

use super::{rw_once, Cqe, IoEngine, Op, Sqe};
use crate::os::RawHandle;
use std::io;

/// How one I/O is done, synchronously: the byte count, or a negative errno.
pub trait RunOne {
    fn run(&mut self, sqe: &Sqe) -> i32;

    /// See [`IoEngine::MOVES_DATA`].
    const MOVES_DATA: bool = true;

    /// See [`IoEngine::verb`].
    fn verb(&self, op: Op) -> &'static str {
        op.verb()
    }

    /// See [`IoEngine::set_file`].
    fn set_file(&mut self, _index: u32, _fd: RawHandle) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }
}

/// One I/O at a time per thread, done inside `reap`.
pub struct Inline<R> {
    runner: R,
    pending: Option<Sqe>,
}

impl<R: RunOne> Inline<R> {
    pub fn new(runner: R) -> Self {
        Inline {
            runner,
            pending: None,
        }
    }
}

impl<R: RunOne> IoEngine for Inline<R> {
    const ASYNC: bool = false;
    const MOVES_DATA: bool = R::MOVES_DATA;

    fn verb(&self, op: Op) -> &'static str {
        self.runner.verb(op)
    }

    fn set_file(&mut self, index: u32, fd: RawHandle) -> io::Result<()> {
        self.runner.set_file(index, fd)
    }

    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn peek(&mut self, _out: &mut Vec<Cqe>) {}

    #[inline]
    fn queue(&mut self, sqe: Sqe) {
        debug_assert!(
            self.pending.is_none(),
            "an inline engine runs at queue depth 1"
        );
        self.pending = Some(sqe);
    }

    #[inline]
    fn reap(
        &mut self,
        _min: usize,
        _timeout_ns: Option<u64>,
        out: &mut Vec<Cqe>,
    ) -> io::Result<()> {
        if let Some(sqe) = self.pending.take() {
            out.push(Cqe {
                slot: sqe.slot,
                result: self.runner.run(&sqe),
            });
        }
        Ok(())
    }
}

/// Positional reads and writes and flushes on the thread's files (pread, pwrite, fsync and
/// fdatasync; ReadFile and WriteFile at an offset, FlushFileBuffers).
pub struct Pread(pub Vec<RawHandle>);

impl RunOne for Pread {
    #[inline]
    fn run(&mut self, sqe: &Sqe) -> i32 {
        rw_once(self.0[sqe.file as usize], sqe)
    }

    fn set_file(&mut self, index: u32, fd: RawHandle) -> io::Result<()> {
        self.0[index as usize] = fd;
        Ok(())
    }
}

pub type SyncEngine = Inline<Pread>;
