//! Completes every I/O at once without touching storage: what is left is iogauge's own cost
//! per I/O (offsets, timestamps, statistics), which must stay far below any device's.

use super::{Cqe, IoEngine, Sqe};
use std::io;

#[derive(Default)]
pub struct NullEngine {
    queued: Vec<Cqe>,
}

impl IoEngine for NullEngine {
    const ASYNC: bool = false;

    /// No I/O goes to the file: any descriptor will do.
    fn set_file(&mut self, _index: u32, _fd: crate::os::RawHandle) -> io::Result<()> {
        Ok(())
    }

    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn peek(&mut self, _out: &mut Vec<Cqe>) {}

    #[inline]
    fn queue(&mut self, sqe: Sqe) {
        self.queued.push(Cqe {
            slot: sqe.slot,
            result: sqe.len as i32,
        });
    }

    #[inline]
    fn reap(
        &mut self,
        _min: usize,
        _timeout_ns: Option<u64>,
        out: &mut Vec<Cqe>,
    ) -> io::Result<()> {
        out.append(&mut self.queued);
        Ok(())
    }
}
