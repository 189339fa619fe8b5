//! `copy`: a tree copied by threads that share the walk ([`super::pool`]): a folder's task
//! makes the folder in the copy and adds a task for each file and subfolder in it, so copying
//! starts at once and every thread has work while any is left. Everything is reached through
//! folder descriptors, every file and folder of the copy is made new (O_EXCL), and nothing
//! is followed through a link: a link is copied as a link, as `cp -r` does.
//!
//! File modes are kept (less the umask, as `cp -r`); owners and times are not.

use super::meter::{Counter, Meter};
use super::pool;
use super::{CopyMethod, CopyUse};
use crate::error::{Error, Result};
use crate::os::dir::{Dir, Kind, MAX_DEPTH};
use crate::os::owned;
use io_uring::{opcode, squeue, types, IoUring};
use std::ffi::CString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Bytes moved per read and write (and per copy_file_range call, times [`KERNEL_CHUNKS`]).
const CHUNK: usize = 1 << 20;
/// copy_file_range moves this many chunks per call: few calls, yet progress every 16 MiB.
const KERNEL_CHUNKS: usize = 16;
/// Reads and writes in flight per file with io_uring.
const SLOTS: usize = 4;

/// What a copy did.
pub struct Copied {
    pub files: u64,
    pub dirs: u64,
    pub links: u64,
    pub skipped: u64,
    pub how: CopyUse,
    /// The largest file copied, below the top of the copy: what FIEMAP is asked about.
    pub largest: Option<PathBuf>,
}

enum Task {
    /// What `src` holds, into `dst` (made already).
    Contents { src: Dir, dst: Dir, rel: PathBuf },
    /// Folder `name` of `src`, made anew in `dst`.
    Folder {
        src: Arc<Dir>,
        dst: Arc<Dir>,
        name: CString,
        rel: PathBuf,
    },
    File {
        src: Arc<Dir>,
        dst: Arc<Dir>,
        name: CString,
        rel: PathBuf,
    },
}

/// One thread's means and counts.
struct Worker<'a> {
    counter: &'a Counter,
    method: CopyMethod,
    buf: Vec<u8>,
    ring: Option<(IoUring, Vec<Vec<u8>>)>,
    /// copy_file_range was refused with this errno: this thread copies by reading and writing.
    refused: Option<i32>,
    files: u64,
    dirs: u64,
    links: u64,
    skipped: u64,
    kernel: u64,
    read_write: u64,
    uring: u64,
    largest: (u64, PathBuf),
}

/// Copy what `src` holds into the folder `dst` (new, made by the caller), with `threads`
/// threads counting on `meter`.
pub fn copy(
    src: &Path,
    dst: &Path,
    method: CopyMethod,
    threads: u32,
    meter: &Meter,
    stop: &AtomicBool,
) -> Result<Copied> {
    let open = |p: &Path| {
        Dir::open(p).map_err(|e| Error::runtime(format!("cannot open '{}': {e}", p.display())))
    };
    let seed = Task::Contents {
        src: open(src)?,
        dst: open(dst)?,
        rel: PathBuf::new(),
    };
    let roots = (src, dst);
    let workers = pool::run(
        threads,
        vec![seed],
        stop,
        |i| Worker {
            counter: meter.slot(i),
            method,
            buf: Vec::new(),
            ring: None,
            refused: None,
            files: 0,
            dirs: 0,
            links: 0,
            skipped: 0,
            kernel: 0,
            read_write: 0,
            uring: 0,
            largest: (0, PathBuf::new()),
        },
        |w, task, more| w.run(task, more, roots, stop),
    )?;
    let sum = |f: fn(&Worker) -> u64| workers.iter().map(f).sum::<u64>();
    let largest = workers
        .iter()
        .map(|w| &w.largest)
        .max_by_key(|l| l.0)
        .filter(|l| l.0 > 0)
        .map(|l| l.1.clone());
    Ok(Copied {
        files: sum(|w| w.files),
        dirs: sum(|w| w.dirs),
        links: sum(|w| w.links),
        skipped: sum(|w| w.skipped),
        largest,
        how: CopyUse {
            method,
            kernel_files: sum(|w| w.kernel),
            read_write_files: sum(|w| w.read_write),
            io_uring_files: sum(|w| w.uring),
            refused: workers.iter().find_map(|w| w.refused).map(|e| {
                format!(
                    "the kernel refused copy_file_range ({}): those files were copied by read \
                     and write",
                    crate::error::errno_name(e)
                )
            }),
            shared_extents: None,
        },
    })
}

impl Worker<'_> {
    fn run(
        &mut self,
        task: Task,
        more: &mut Vec<Task>,
        (src_root, dst_root): (&Path, &Path),
        stop: &AtomicBool,
    ) -> Result<()> {
        let fail = |what: &str, rel: &Path, e: io::Error| {
            if stop.load(Ordering::Relaxed) {
                return Error::Interrupted("interrupted".into());
            }
            Error::runtime(format!(
                "cannot {what} '{}' to '{}': {e}",
                src_root.join(rel).display(),
                dst_root.join(rel).display()
            ))
        };
        match task {
            Task::Contents { src, dst, rel } => self
                .contents(Arc::new(src), Arc::new(dst), &rel, more)
                .map_err(|e| fail("copy the folder", &rel, e)),
            Task::Folder {
                src,
                dst,
                name,
                rel,
            } => {
                if rel.components().count() > MAX_DEPTH {
                    return Err(Error::runtime(format!(
                        "'{}' is more than {MAX_DEPTH} folders deep",
                        src_root.join(&rel).display()
                    )));
                }
                let made = src.open_at(&name).and_then(|s| {
                    let d = dst.mkdir_at(&name, 0o755)?;
                    owned::record_file(d.file())?;
                    Ok((s, d))
                });
                let (s, d) = made.map_err(|e| fail("copy the folder", &rel, e))?;
                self.dirs += 1;
                self.contents(Arc::new(s), Arc::new(d), &rel, more)
                    .map_err(|e| fail("copy the folder", &rel, e))
            }
            Task::File {
                src,
                dst,
                name,
                rel,
            } => {
                let size = self
                    .file(&src, &dst, &name, stop)
                    .map_err(|e| fail("copy", &rel, e))?;
                if size > self.largest.0 {
                    self.largest = (size, rel);
                }
                Ok(())
            }
        }
    }

    /// Add a task for each file and folder in `src`; copy links at once.
    fn contents(
        &mut self,
        src: Arc<Dir>,
        dst: Arc<Dir>,
        rel: &Path,
        more: &mut Vec<Task>,
    ) -> io::Result<()> {
        for e in src.entries()? {
            let sub = rel.join(e.name_os());
            let (s, d) = (src.clone(), dst.clone());
            match e.kind {
                Kind::File => more.push(Task::File {
                    src: s,
                    dst: d,
                    name: e.name,
                    rel: sub,
                }),
                Kind::Dir => more.push(Task::Folder {
                    src: s,
                    dst: d,
                    name: e.name,
                    rel: sub,
                }),
                Kind::Link => {
                    let target = src.read_link(&e.name)?;
                    dst.symlink_at(&target, &e.name)?;
                    owned::record_at(&dst, &e.name)?;
                    self.links += 1;
                }
                Kind::Other => self.skipped += 1,
            }
        }
        Ok(())
    }

    /// Copy file `name`; its size.
    fn file(&mut self, src: &Dir, dst: &Dir, name: &CString, stop: &AtomicBool) -> io::Result<u64> {
        let from = src.open_file(name)?;
        let meta = from.metadata()?;
        let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777;
        let to = dst.create_file(name, mode)?;
        owned::record_file(&to)?;
        let size = meta.len();
        match self.method {
            CopyMethod::CopyFileRange if self.refused.is_none() => {
                match kernel_copy(&from, &to, self.counter, stop)? {
                    Ok(()) => self.kernel += 1,
                    Err(errno) => {
                        self.refused = Some(errno);
                        self.read_write(&from, &to, stop)?;
                    }
                }
            }
            CopyMethod::IoUring => {
                if self.ring.is_none() {
                    let ring = IoUring::new(2 * SLOTS as u32)?;
                    self.ring = Some((ring, vec![vec![0u8; CHUNK]; SLOTS]));
                }
                let (ring, bufs) = self.ring.as_mut().expect("made above");
                if uring_copy(ring, bufs, &from, &to, size, self.counter, stop)? {
                    self.uring += 1;
                } else {
                    // The file changed while it was read: copy it again, the plain way.
                    to.set_len(0)?;
                    let mut from = src.open_file(name)?;
                    let mut to = &to;
                    std::io::Seek::rewind(&mut to)?;
                    std::io::Seek::rewind(&mut from)?;
                    self.read_write(&from, to, stop)?;
                }
            }
            _ => self.read_write(&from, &to, stop)?,
        }
        self.files += 1;
        self.counter.read_file();
        self.counter.wrote_file();
        Ok(size)
    }

    fn read_write(&mut self, mut from: &File, mut to: &File, stop: &AtomicBool) -> io::Result<()> {
        if self.buf.is_empty() {
            self.buf = vec![0u8; CHUNK];
        }
        loop {
            let n = match from.read(&mut self.buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.counter.read(n as u64);
            to.write_all(&self.buf[..n])?;
            self.counter.wrote(n as u64);
            if stop.load(Ordering::Relaxed) {
                return Err(super::archive::stopped());
            }
        }
        self.read_write += 1;
        Ok(())
    }
}

/// copy_file_range until the end of `from`. Ok(Err(errno)) where the kernel refuses it for
/// these two files before a byte moved (another file system before Linux 5.19, a file system
/// that cannot: EXDEV, EOPNOTSUPP, EINVAL, ENOSYS).
fn kernel_copy(
    from: &File,
    to: &File,
    c: &Counter,
    stop: &AtomicBool,
) -> io::Result<std::result::Result<(), i32>> {
    let mut moved = 0u64;
    loop {
        // SAFETY: both descriptors are held; null offsets use and move the files' own.
        let n = unsafe {
            libc::copy_file_range(
                from.as_raw_fd(),
                std::ptr::null_mut(),
                to.as_raw_fd(),
                std::ptr::null_mut(),
                CHUNK * KERNEL_CHUNKS,
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
                    return Ok(Err(errno))
                }
                _ => return Err(e),
            }
        }
        if n == 0 {
            return Ok(Ok(()));
        }
        moved += n as u64;
        c.read(n as u64);
        c.wrote(n as u64);
        if stop.load(Ordering::Relaxed) {
            return Err(super::archive::stopped());
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
    c: &Counter,
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
        return Err(super::archive::stopped());
    }
    Ok(whole)
}

/// Whether the copy of the largest file shares extents with its source (a reflink).
pub fn shares_extents(dst_root: &Path, largest: &Path) -> Option<bool> {
    let f = File::open(dst_root.join(largest)).ok()?;
    crate::os::extents::shared(&f).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(root: &Path) {
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/big"), vec![5u8; 3 * CHUNK + 17]).unwrap();
        std::fs::write(root.join("a/small"), b"hello").unwrap();
        std::fs::write(root.join("empty"), b"").unwrap();
        std::os::unix::fs::symlink("a/small", root.join("ln")).unwrap();
    }

    #[test]
    fn every_method_copies_the_tree_byte_for_byte() {
        for method in [
            CopyMethod::ReadWrite,
            CopyMethod::CopyFileRange,
            CopyMethod::IoUring,
        ] {
            let t = tempfile::tempdir().unwrap();
            let (src, dst) = (t.path().join("src"), t.path().join("dst"));
            tree(&src);
            std::fs::create_dir(&dst).unwrap();
            let meter = Meter::new(2, 1_000_000_000);
            let stop = AtomicBool::new(false);
            let c = copy(&src, &dst, method, 2, &meter, &stop).unwrap();
            assert_eq!((c.files, c.dirs, c.links), (3, 2, 1), "{method:?}");
            assert_eq!(
                std::fs::read(dst.join("a/b/big")).unwrap(),
                std::fs::read(src.join("a/b/big")).unwrap()
            );
            assert_eq!(std::fs::read(dst.join("a/small")).unwrap(), b"hello");
            assert_eq!(
                std::fs::read_link(dst.join("ln")).unwrap(),
                Path::new("a/small")
            );
            assert_eq!(c.largest.as_deref(), Some(Path::new("a/b/big")));
            let t = meter.totals();
            assert_eq!((t.read_files, t.write_files), (3, 3));
            assert_eq!(t.write_bytes, 3 * CHUNK as u64 + 22);
            let counted = c.how.kernel_files + c.how.read_write_files + c.how.io_uring_files;
            assert_eq!(counted, 3);
        }
    }

    #[test]
    fn nothing_is_written_over() {
        let t = tempfile::tempdir().unwrap();
        let (src, dst) = (t.path().join("src"), t.path().join("dst"));
        tree(&src);
        std::fs::create_dir(&dst).unwrap();
        std::fs::write(dst.join("empty"), b"the user's").unwrap();
        let meter = Meter::new(1, 1_000_000_000);
        let e = copy(
            &src,
            &dst,
            CopyMethod::ReadWrite,
            1,
            &meter,
            &AtomicBool::new(false),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("File exists"), "{e}");
        assert_eq!(std::fs::read(dst.join("empty")).unwrap(), b"the user's");
    }
}
