//! Linux's ways to copy a file's bytes (see `os/copy.rs`): copy_file_range, which the kernel
//! may answer with a reflink on xfs and btrfs, and reads and writes through an io_uring, each
//! read linked to its write.

use crate::os::copy::{stopped, Copied, Progress};
use io_uring::{opcode, squeue, types, IoUring};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The methods `--method` takes here, the default first.
pub const METHODS: &[&str] = &["copy_file_range", "read-write", "io_uring"];
/// What a copy uses unless told: the kernel's copy, as cp since coreutils 9.
pub const DEFAULT: &str = "copy_file_range";

/// Bytes per copy_file_range call: few calls, yet progress every 16 MiB.
const KERNEL_BYTES: usize = 16 << 20;
/// Bytes per read and write through the ring.
const CHUNK: usize = 1 << 20;
/// Reads and writes in flight per file with io_uring.
const SLOTS: usize = 4;

/// CopyFileExW is Windows'.
pub fn copy_file_ex(
    _from: &Path,
    _to: &Path,
    _c: &dyn Progress,
    _stop: &AtomicBool,
) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "CopyFileExW is Windows': use copy_file_range here",
    ))
}

/// Block cloning is ReFS's, on Windows.
pub fn clone_blocks(
    _from: &File,
    _to: &File,
    _to_path: &Path,
    _c: &dyn Progress,
    _stop: &AtomicBool,
) -> io::Result<Copied> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "block cloning is Windows' (ReFS): copy_file_range makes reflinks here",
    ))
}

/// An io_uring with buffers, for one thread's copies.
pub struct Ring {
    ring: IoUring,
    bufs: Vec<Vec<u8>>,
}

impl Ring {
    pub fn new() -> io::Result<Ring> {
        Ok(Ring {
            ring: IoUring::new(2 * SLOTS as u32)?,
            bufs: vec![vec![0u8; CHUNK]; SLOTS],
        })
    }

    /// Copy `size` bytes of `from` into `to`; false when a read fell short (the file shrank
    /// while it was copied): the caller copies it again.
    pub fn copy(
        &mut self,
        from: &File,
        to: &File,
        size: u64,
        c: &dyn Progress,
        stop: &AtomicBool,
    ) -> io::Result<bool> {
        uring_copy(&mut self.ring, &mut self.bufs, from, to, size, c, stop)
    }
}

/// copy_file_range until the end of `from`. Copied::Refused where the kernel refuses it for
/// these two files before a byte moved (another file system before Linux 5.19, a file system
/// that cannot: EXDEV, EOPNOTSUPP, EINVAL, ENOSYS).
pub fn kernel_copy(
    from: &File,
    to: &File,
    c: &dyn Progress,
    stop: &AtomicBool,
) -> io::Result<Copied> {
    let mut moved = 0u64;
    loop {
        // SAFETY: both descriptors are held; null offsets use and move the files' own.
        let n = unsafe {
            libc::copy_file_range(
                from.as_raw_fd(),
                std::ptr::null_mut(),
                to.as_raw_fd(),
                std::ptr::null_mut(),
                KERNEL_BYTES,
                0,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(errno @ (libc::EXDEV | libc::EOPNOTSUPP | libc::EINVAL | libc::ENOSYS))
                    if moved == 0 =>
                {
                    return Ok(Copied::Refused(format!(
                        "the kernel refused copy_file_range ({}): those files were copied by \
                         read and write",
                        crate::os::error::name(errno).unwrap_or("errno")
                    )))
                }
                _ => return Err(e),
            }
        }
        if n == 0 {
            return Ok(Copied::Done);
        }
        moved += n as u64;
        c.read(n as u64);
        c.wrote(n as u64);
        if stop.load(Ordering::Relaxed) {
            return Err(stopped());
        }
    }
}

/// Copy `size` bytes with reads and writes through `ring`, each read linked to the write of
/// its buffer, [`SLOTS`] pairs in flight. False when a read fell short (the file shrank while
/// it was copied): the caller copies it again.
fn uring_copy(
    ring: &mut IoUring,
    bufs: &mut [Vec<u8>],
    from: &File,
    to: &File,
    size: u64,
    c: &dyn Progress,
    stop: &AtomicBool,
) -> io::Result<bool> {
    let (src, dst) = (types::Fd(from.as_raw_fd()), types::Fd(to.as_raw_fd()));
    let mut free: Vec<usize> = (0..bufs.len()).collect();
    let mut lens = vec![0u32; bufs.len()];
    let mut offs = vec![0u64; bufs.len()];
    let (mut next, mut in_flight, mut whole) = (0u64, 0usize, true);
    let mut failed: Option<io::Error> = None;
    loop {
        let go_on = whole && failed.is_none() && !stop.load(Ordering::Relaxed);
        while go_on && next < size && !free.is_empty() {
            let slot = free.pop().expect("checked");
            let len = (size - next).min(CHUNK as u64) as u32;
            lens[slot] = len;
            offs[slot] = next;
            let p = bufs[slot].as_mut_ptr();
            let read = opcode::Read::new(src, p, len)
                .offset(next)
                .build()
                .flags(squeue::Flags::IO_LINK)
                .user_data((slot as u64) << 1);
            let write = opcode::Write::new(dst, p, len)
                .offset(next)
                .build()
                .user_data((slot as u64) << 1 | 1);
            // SAFETY: the buffer outlives both requests (it is not reused until the write's
            // completion is reaped below), and the ring has room for 2 * SLOTS entries.
            unsafe {
                let mut sq = ring.submission();
                sq.push(&read)
                    .map_err(|_| io::Error::other("io_uring queue full"))?;
                sq.push(&write)
                    .map_err(|_| io::Error::other("io_uring queue full"))?;
            }
            next += u64::from(len);
            in_flight += 1;
        }
        if in_flight == 0 {
            break;
        }
        match ring.submit_and_wait(1) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            r => r?,
        };
        for cqe in ring.completion() {
            let slot = (cqe.user_data() >> 1) as usize;
            let res = cqe.result();
            let len = lens[slot] as i32;
            if cqe.user_data() & 1 == 0 {
                if res >= 0 {
                    c.read(res as u64);
                }
                if res < 0 {
                    failed.get_or_insert(io::Error::from_raw_os_error(-res));
                } else if res != len {
                    whole = false;
                }
                continue;
            }
            in_flight -= 1;
            free.push(slot);
            if res == len {
                c.wrote(res as u64);
            } else if res >= 0 {
                // A short write (a full file system, a signal): the rest written plainly, so
                // that the error that stopped it (ENOSPC) is the one reported.
                let (done, end) = (res as usize, len as usize);
                match to.write_all_at(&bufs[slot][done..end], offs[slot] + done as u64) {
                    Ok(()) => c.wrote(len as u64),
                    Err(e) => {
                        failed.get_or_insert(e);
                    }
                }
            } else if res != -libc::ECANCELED {
                failed.get_or_insert(io::Error::from_raw_os_error(-res));
            }
        }
    }
    if let Some(e) = failed {
        return Err(e);
    }
    if stop.load(Ordering::Relaxed) {
        return Err(stopped());
    }
    Ok(whole)
}
