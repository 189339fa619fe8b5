//! fio's falloc and ftruncate engines: each I/O changes which of a file's bytes are allocated,
//! or how long it is, rather than moving data. One at a time per thread, as the sync engine.
//!
//! falloc (as fio 3.33's engines/falloc.c): a read allocates its range keeping the file's size
//! (FALLOC_FL_KEEP_SIZE), a write allocates it growing the file, a trim punches it out. Each
//! counts its length in bytes, as fio counts it: the bytes whose allocation it changed.
//!
//! ftruncate (fio's engines/ftruncate.c): a write sets the file's length to its offset; no
//! data moves, so it counts no bytes. Validation lets only writes reach it.

use super::sync::{Inline, RunOne};
use super::{trim_once, Op, Sqe};
use std::io;
use std::os::fd::RawFd;

/// fallocate on the thread's files.
pub struct Fallocate(pub Vec<RawFd>);

impl RunOne for Fallocate {
    #[inline]
    fn run(&mut self, sqe: &Sqe) -> i32 {
        let fd = self.0[sqe.file as usize];
        let mode = match sqe.op {
            Op::Read => libc::FALLOC_FL_KEEP_SIZE,
            Op::Write => 0,
            Op::PunchHole | Op::Discard => {
                return match trim_once(fd, Op::PunchHole, sqe.offset, sqe.len) {
                    0 => sqe.len as i32,
                    e => e,
                }
            }
            Op::Fsync | Op::Fdatasync => return super::rw_once(fd, sqe),
        };
        loop {
            // SAFETY: fallocate reads only its arguments.
            let ret = unsafe {
                libc::fallocate(fd, mode, sqe.offset as libc::off_t, sqe.len as libc::off_t)
            };
            match result(ret as isize) {
                r if r == -libc::EINTR => continue,
                0 => return sqe.len as i32,
                e => return e,
            }
        }
    }

    fn verb(&self, op: Op) -> &'static str {
        match op {
            Op::Read => "fallocate (keep size)",
            Op::Write => "fallocate",
            _ => op.verb(),
        }
    }

    fn set_file(&mut self, index: u32, fd: RawFd) -> io::Result<()> {
        self.0[index as usize] = fd;
        Ok(())
    }
}

pub type FallocEngine = Inline<Fallocate>;

/// ftruncate on the thread's files.
pub struct Ftruncate(pub Vec<RawFd>);

impl RunOne for Ftruncate {
    const MOVES_DATA: bool = false;

    #[inline]
    fn run(&mut self, sqe: &Sqe) -> i32 {
        let fd = self.0[sqe.file as usize];
        match sqe.op {
            Op::Write => loop {
                // SAFETY: ftruncate reads only its arguments.
                let ret = unsafe { libc::ftruncate(fd, sqe.offset as libc::off_t) };
                match result(ret as isize) {
                    r if r == -libc::EINTR => continue,
                    r => return r,
                }
            },
            Op::Fsync | Op::Fdatasync => super::rw_once(fd, sqe),
            _ => -libc::EINVAL,
        }
    }

    fn verb(&self, op: Op) -> &'static str {
        match op {
            Op::Write => "ftruncate",
            _ => op.verb(),
        }
    }

    fn set_file(&mut self, index: u32, fd: RawFd) -> io::Result<()> {
        self.0[index as usize] = fd;
        Ok(())
    }
}

pub type FtruncateEngine = Inline<Ftruncate>;

/// A syscall's return as a completion's result: 0, or a negative errno.
fn result(ret: isize) -> i32 {
    if ret < 0 {
        -crate::os::error::last()
    } else {
        ret as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::IoEngine;
    use std::os::fd::AsRawFd;

    fn sqe(op: Op, offset: u64, len: u32) -> Sqe {
        Sqe {
            slot: 0,
            op,
            file: 0,
            offset,
            len,
            buf: std::ptr::null_mut(),
            buf_index: 0,
            ioprio: 0,
        }
    }

    fn one<E: IoEngine>(e: &mut E, s: Sqe) -> i32 {
        let mut out = Vec::new();
        e.queue(s);
        e.reap(1, None, &mut out).unwrap();
        out[0].result
    }

    fn allocated(f: &std::fs::File) -> u64 {
        use std::os::unix::fs::MetadataExt;
        f.metadata().unwrap().blocks() * 512
    }

    #[test]
    fn falloc_allocates_keeps_size_and_punches() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(dir.path().join("f")).unwrap();
        let mut e = FallocEngine::new(Fallocate(vec![f.as_raw_fd()]));
        // A read allocates without growing the file.
        assert_eq!(one(&mut e, sqe(Op::Read, 0, 65536)), 65536);
        assert_eq!(f.metadata().unwrap().len(), 0);
        assert!(allocated(&f) >= 65536);
        // A write allocates and grows it.
        assert_eq!(one(&mut e, sqe(Op::Write, 65536, 65536)), 65536);
        assert_eq!(f.metadata().unwrap().len(), 131072);
        // A trim gives the blocks back, the size kept.
        let before = allocated(&f);
        assert_eq!(one(&mut e, sqe(Op::PunchHole, 0, 65536)), 65536);
        assert_eq!(f.metadata().unwrap().len(), 131072);
        assert!(
            allocated(&f) <= before - 65536,
            "{before} -> {}",
            allocated(&f)
        );
    }

    #[test]
    fn ftruncate_sets_the_length_to_the_offset_and_refuses_reads() {
        let dir = tempfile::tempdir().unwrap();
        let f = std::fs::File::create(dir.path().join("f")).unwrap();
        let mut e = FtruncateEngine::new(Ftruncate(vec![f.as_raw_fd()]));
        assert_eq!(one(&mut e, sqe(Op::Write, 12345, 4096)), 0);
        assert_eq!(f.metadata().unwrap().len(), 12345);
        assert_eq!(one(&mut e, sqe(Op::Write, 0, 4096)), 0);
        assert_eq!(f.metadata().unwrap().len(), 0);
        assert_eq!(one(&mut e, sqe(Op::Read, 0, 4096)), -libc::EINVAL);
    }
}
