//! The target mapped into memory, each I/O a copy to or from the mapping (fio's mmap engine,
//! DiskSpd's -Sm). The page cache does the I/O: a read of a page that is not cached waits for
//! the storage inside the copy, a write dirties the page for writeback later. A flush is
//! msync(MS_SYNC) of the mapping. One I/O at a time per thread, as the sync engine.

use super::sync::{Inline, RunOne};
use super::{Op, Sqe};
pub use crate::os::memory::Mapping;

impl RunOne for Mapping {
    #[inline]
    fn run(&mut self, sqe: &Sqe) -> i32 {
        let (off, len) = (sqe.offset as usize, sqe.len as usize);
        match sqe.op {
            Op::Fsync | Op::Fdatasync => self.sync(),
            // Refused in validation: a mapping has no trim.
            Op::PunchHole | Op::Discard => -libc::EOPNOTSUPP,
            _ if off.checked_add(len).is_none_or(|end| end > self.len()) => -libc::EINVAL,
            // SAFETY: off..off+len lies inside the mapping (checked above); `buf` holds `len`
            // bytes owned by the worker for this slot (see `Sqe`); the two never overlap.
            Op::Read => unsafe {
                std::ptr::copy_nonoverlapping(self.ptr().add(off), sqe.buf, len);
                len as i32
            },
            Op::Write => unsafe {
                std::ptr::copy_nonoverlapping(sqe.buf, self.ptr().add(off), len);
                len as i32
            },
        }
    }
}

/// Each of a thread's files mapped.
impl RunOne for Vec<Mapping> {
    #[inline]
    fn run(&mut self, sqe: &Sqe) -> i32 {
        self[sqe.file as usize].run(sqe)
    }
}

/// The mmap engine: one copy at a time per thread, as the sync engine.
pub type MmapEngine = Inline<Vec<Mapping>>;
