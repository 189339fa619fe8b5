//! The target mapped into memory, each I/O a copy to or from the mapping (fio's mmap engine,
//! DiskSpd's -Sm). The page cache does the I/O: a read of a page that is not cached waits for
//! the storage inside the copy, a write dirties the page for writeback later. A flush is
//! msync(MS_SYNC) of the mapping. One I/O at a time per thread, as the sync engine.

use super::sync::{Inline, RunOne};
use super::{Op, Sqe};
use std::io;
use std::os::fd::RawFd;

/// The target's first `len` bytes, mapped shared.
pub struct Mapping {
    map: *mut u8,
    len: usize,
}

impl Mapping {
    /// Map the first `len` bytes of `fd`, shared, writable where the job writes (the file must
    /// then be open for writing). `random`: advise the kernel that access is random, so a page
    /// not in the cache is read alone when touched, not with its neighbours (as fio's mmap
    /// engine advises); otherwise sequential, for read-ahead.
    pub fn new(fd: RawFd, len: u64, writable: bool, random: bool) -> io::Result<Self> {
        let len = usize::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "target too large to map"))?;
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an empty target cannot be mapped",
            ));
        }
        let prot = libc::PROT_READ | if writable { libc::PROT_WRITE } else { 0 };
        // SAFETY: a fresh shared mapping of an open file; checked for MAP_FAILED below.
        let map = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, fd, 0) };
        if map == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let advice = if random {
            libc::MADV_RANDOM
        } else {
            libc::MADV_SEQUENTIAL
        };
        // SAFETY: the mapping just made. Advice only: a refusal changes nothing we rely on.
        unsafe { libc::madvise(map, len, advice) };
        Ok(Mapping {
            map: map as *mut u8,
            len,
        })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.map as *mut libc::c_void, self.len) };
    }
}

impl RunOne for Mapping {
    #[inline]
    fn run(&mut self, sqe: &Sqe) -> i32 {
        let (off, len) = (sqe.offset as usize, sqe.len as usize);
        match sqe.op {
            Op::Fsync | Op::Fdatasync => {
                // SAFETY: the whole mapping made in `new`.
                let r =
                    unsafe { libc::msync(self.map as *mut libc::c_void, self.len, libc::MS_SYNC) };
                super::syscall_result(r as isize)
            }
            _ if off.checked_add(len).is_none_or(|end| end > self.len) => -libc::EINVAL,
            // SAFETY: off..off+len lies inside the mapping (checked above); `buf` holds `len`
            // bytes owned by the worker for this slot (see `Sqe`); the two never overlap.
            Op::Read => unsafe {
                std::ptr::copy_nonoverlapping(self.map.add(off), sqe.buf, len);
                len as i32
            },
            Op::Write => unsafe {
                std::ptr::copy_nonoverlapping(sqe.buf, self.map.add(off), len);
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
