//! pread/pwrite, one I/O at a time per thread (fio's psync, DiskSpd without overlapped I/O).

use super::{rw_once, Cqe, IoEngine, Sqe};
use std::io;
use std::os::fd::RawFd;

pub struct SyncEngine {
    fd: RawFd,
    pending: Option<Sqe>,
}

impl SyncEngine {
    pub fn new(fd: RawFd) -> Self {
        SyncEngine { fd, pending: None }
    }
}

impl IoEngine for SyncEngine {
    const ASYNC: bool = false;

    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn peek(&mut self, _out: &mut Vec<Cqe>) {}

    #[inline]
    fn queue(&mut self, sqe: Sqe) {
        debug_assert!(
            self.pending.is_none(),
            "the sync engine runs at queue depth 1"
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
                result: rw_once(self.fd, &sqe),
            });
        }
        Ok(())
    }
}
