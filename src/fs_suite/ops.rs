//! The measured loops of the file-system suite, and the unmeasured set-up ("fixtures") they
//! run on. Each loop is the bare system calls and nothing else: names are formatted into a
//! stack buffer, calls are made relative to an open folder (`openat`, `fstatat`...), and no
//! clock is read and nothing allocated inside a loop. The clock is read once before and once
//! after a whole loop, so iogauge's own cost per operation is a few nanoseconds of name
//! formatting next to microseconds of system call (bench/fs_syscalls.rs measures the ratio).

pub use crate::os::memory::{AlignedBuf, Mapping};
pub use crate::os::meta::MetaOp;
use std::ffi::CStr;
use std::io;
use std::ops::Range;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

/// Ctrl-C is looked at once per this many operations: often enough to stop within
/// milliseconds, rarely enough to cost nothing.
const CHECK_EVERY: u64 = 1024;

/// Why a loop stopped before its end.
#[derive(Debug, Clone)]
pub enum Stop {
    Interrupted,
    Failed(String),
    /// The system would not start the suite's threads: every test would fail alike, so the
    /// suite ends with this error.
    Limit(String),
}

pub type Outcome = Result<(), Stop>;

/// A name "<prefix><n>" built in place, NUL-terminated, ready for a system call.
pub struct Name {
    buf: [u8; 32],
    prefix_len: usize,
}

impl Name {
    pub fn new(prefix: &str) -> Name {
        assert!(prefix.len() < 8 && !prefix.contains('\0'));
        let mut buf = [0u8; 32];
        buf[..prefix.len()].copy_from_slice(prefix.as_bytes());
        Name {
            buf,
            prefix_len: prefix.len(),
        }
    }

    /// The name for `n`. The digits are written from the right, then moved next to the
    /// prefix: no allocation, no formatting machinery.
    #[inline]
    pub fn of(&mut self, mut n: u64) -> &CStr {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let len = digits.len() - i;
        let p = self.prefix_len;
        self.buf[p..p + len].copy_from_slice(&digits[i..]);
        self.buf[p + len] = 0;
        // The buffer holds the prefix, the digits and one NUL: a valid C string.
        CStr::from_bytes_with_nul(&self.buf[..p + len + 1]).expect("one NUL at the end")
    }
}

fn last_error(what: &str, name: &CStr) -> Stop {
    Stop::Failed(format!(
        "{what} '{}': {}",
        name.to_string_lossy(),
        io::Error::last_os_error()
    ))
}

#[inline]
fn check(i: u64, start: u64, stop: &AtomicBool) -> Outcome {
    if (i - start) % CHECK_EVERY == CHECK_EVERY - 1 && stop.load(Ordering::Relaxed) {
        return Err(Stop::Interrupted);
    }
    Ok(())
}

/// Apply `op` to the names `prefix<i>`, i in `range`, in the folder `dir`.
pub fn meta_loop(
    dir: RawFd,
    op: MetaOp,
    prefix: &str,
    range: Range<u64>,
    stop: &AtomicBool,
) -> Outcome {
    let mut name = Name::new(prefix);
    let mut renamed = Name::new("r");
    let start = range.start;
    for i in range {
        check(i, start, stop)?;
        let n = name.of(i);
        let to = (op == MetaOp::Rename).then(|| renamed.of(i));
        if !op.apply(dir, n, to) {
            // errno first: building the message may allocate.
            let e = io::Error::last_os_error();
            return Err(Stop::Failed(format!(
                "cannot {} '{}': {e}",
                op.verb(),
                n.to_string_lossy()
            )));
        }
    }
    Ok(())
}

/// Open a folder for the *at calls.
pub fn open_dir(path: &std::path::Path) -> io::Result<OwnedFd> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
    // SAFETY: open on a NUL-terminated path; the descriptor is owned from here on.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// List the folder `name` (inside `dir`) `times` times: open it, read every entry with
/// getdents64, close it. Each listing must return `expect` entries besides "." and "..";
/// another count is an error, so a short listing cannot pass for a fast one.
pub fn list_loop(
    dir: RawFd,
    name: &CStr,
    buf: &mut [u8],
    times: Range<u64>,
    expect: u64,
    stop: &AtomicBool,
) -> Outcome {
    let start = times.start;
    for i in times {
        check(i, start, stop)?;
        // SAFETY: openat on a NUL-terminated name; the descriptor is closed below.
        let fd = unsafe {
            libc::openat(
                dir,
                name.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(last_error("cannot open folder", name));
        }
        let mut entries = 0u64;
        loop {
            // SAFETY: getdents64 writes at most buf.len() bytes into buf.
            let n = unsafe {
                libc::syscall(
                    libc::SYS_getdents64,
                    fd,
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                )
            };
            if n < 0 {
                let e = last_error("cannot list", name);
                // SAFETY: closing our own descriptor.
                unsafe { libc::close(fd) };
                return Err(e);
            }
            if n == 0 {
                break;
            }
            entries += count_entries(&buf[..n as usize]);
        }
        // SAFETY: closing our own descriptor.
        unsafe { libc::close(fd) };
        if entries != expect {
            return Err(Stop::Failed(format!(
                "listing '{}' returned {entries} entries, expected {expect}",
                name.to_string_lossy()
            )));
        }
    }
    Ok(())
}

/// Entries in a getdents64 buffer, "." and ".." not counted.
fn count_entries(buf: &[u8]) -> u64 {
    // struct linux_dirent64 { u64 d_ino; i64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
    let mut off = 0;
    let mut n = 0;
    while off + 19 < buf.len() {
        let reclen = u16::from_ne_bytes([buf[off + 16], buf[off + 17]]) as usize;
        let name = &buf[off + 19..off + reclen];
        let dot = name.starts_with(b".\0") || name.starts_with(b"..\0");
        n += u64::from(!dot);
        if reclen == 0 {
            break;
        }
        off += reclen;
    }
    n
}

/// Page I/O on an open file: `passes` passes over the pages in `pages`, one page per call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageOp {
    Read,
    Write,
    /// pwrite one page, then fsync
    WriteFsync,
}

pub fn page_loop(
    fd: RawFd,
    op: PageOp,
    buf: &mut [u8],
    pages: Range<u64>,
    passes: u64,
    stop: &AtomicBool,
) -> Outcome {
    let page = buf.len() as u64;
    let mut i = 0u64;
    for _ in 0..passes {
        for p in pages.clone() {
            check(i, 0, stop)?;
            i += 1;
            let off = (p * page) as libc::off_t;
            // SAFETY: pread/pwrite within buf, which outlives the call; fd is open.
            let n = unsafe {
                match op {
                    PageOp::Read => libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), off),
                    PageOp::Write | PageOp::WriteFsync => {
                        libc::pwrite(fd, buf.as_ptr().cast(), buf.len(), off)
                    }
                }
            };
            if n != page as isize {
                let e = if n < 0 {
                    io::Error::last_os_error().to_string()
                } else {
                    format!("{n} of {page} bytes")
                };
                return Err(Stop::Failed(format!("page at offset {off}: {e}")));
            }
            // SAFETY: fsync on an open descriptor.
            if op == PageOp::WriteFsync && unsafe { libc::fsync(fd) } != 0 {
                return Err(Stop::Failed(format!(
                    "fsync: {}",
                    io::Error::last_os_error()
                )));
            }
        }
    }
    Ok(())
}

/// Touch every page in `pages` of the mapping, `passes` times: read every word of the page
/// (the sum is kept so the reads cannot be optimised away) or write the whole page.
pub fn mmap_loop(
    map: &Mapping,
    write: bool,
    page: usize,
    pages: Range<u64>,
    passes: u64,
    stop: &AtomicBool,
) -> Result<u64, Stop> {
    let mut sum = 0u64;
    let mut i = 0u64;
    for pass in 0..passes {
        for p in pages.clone() {
            check(i, 0, stop)?;
            i += 1;
            let off = p as usize * page;
            assert!(off + page <= map.len());
            // SAFETY: the page lies inside the mapping (asserted); the file is at least as
            // long as the mapping (fixtures make it so), so no SIGBUS.
            unsafe {
                let at = map.ptr().add(off);
                if write {
                    std::ptr::write_bytes(at, (pass as u8) ^ 0x5a, page);
                } else {
                    let words = std::slice::from_raw_parts(at as *const u64, page / 8);
                    sum = sum.wrapping_add(words.iter().fold(0u64, |a, w| a.wrapping_add(*w)));
                }
            }
        }
    }
    Ok(std::hint::black_box(sum))
}

/// `len` bytes aligned for O_DIRECT, filled with bytes that do not compress (xorshift64 from
/// `seed`: fast, and its output does not compress).
pub fn incompressible(len: usize, seed: u64) -> Result<AlignedBuf, Stop> {
    let mut b = AlignedBuf::new(1, len).map_err(Stop::Failed)?;
    let mut x = seed | 1;
    for chunk in b.bytes_mut().chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let bytes = x.to_ne_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn names_are_prefix_and_decimal() {
        let mut n = Name::new("f");
        assert_eq!(n.of(0).to_str().unwrap(), "f0");
        assert_eq!(n.of(1234567).to_str().unwrap(), "f1234567");
        assert_eq!(n.of(7).to_str().unwrap(), "f7");
        assert_eq!(
            n.of(u64::MAX).to_str().unwrap(),
            format!("f{}", u64::MAX).as_str()
        );
    }

    #[test]
    fn loops_do_what_they_say_on_a_real_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = open_dir(tmp.path()).unwrap();
        let fd = dir.as_raw_fd();
        let go = AtomicBool::new(false);
        meta_loop(fd, MetaOp::Create, "f", 0..100, &go).unwrap();
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 100);
        assert!(matches!(
            meta_loop(fd, MetaOp::Create, "f", 5..6, &go),
            Err(Stop::Failed(m)) if m.contains("cannot create 'f5'")
        ));
        meta_loop(fd, MetaOp::Open, "f", 0..100, &go).unwrap();
        meta_loop(fd, MetaOp::Stat, "f", 0..100, &go).unwrap();
        let mut buf = vec![0u8; 4096];
        list_loop(fd, c".", &mut buf, 0..3, 100, &go).unwrap();
        assert!(list_loop(fd, c".", &mut buf, 0..1, 99, &go).is_err());
        meta_loop(fd, MetaOp::Rename, "f", 0..100, &go).unwrap();
        assert!(tmp.path().join("r99").exists() && !tmp.path().join("f99").exists());
        meta_loop(fd, MetaOp::Delete, "r", 0..100, &go).unwrap();
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        meta_loop(fd, MetaOp::Mkdir, "d", 0..10, &go).unwrap();
        assert!(tmp.path().join("d9").is_dir());
        meta_loop(fd, MetaOp::Rmdir, "d", 0..10, &go).unwrap();
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        // A stop request ends a loop within CHECK_EVERY operations.
        let stop = AtomicBool::new(true);
        assert!(matches!(
            meta_loop(fd, MetaOp::Mkdir, "d", 0..10_000, &stop),
            Err(Stop::Interrupted)
        ));
        assert_eq!(
            std::fs::read_dir(tmp.path()).unwrap().count() as u64,
            CHECK_EVERY - 1
        );
    }

    #[test]
    fn page_and_mmap_loops_move_the_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("data");
        let file = std::fs::File::create_new(&path).unwrap();
        file.set_len(8 * 4096).unwrap();
        let go = AtomicBool::new(false);
        let mut buf = incompressible(4096, 7).unwrap();
        let written = buf.bytes_mut().to_vec();
        page_loop(
            file.as_raw_fd(),
            PageOp::Write,
            buf.bytes_mut(),
            0..8,
            2,
            &go,
        )
        .unwrap();
        let on_disk = std::fs::read(&path).unwrap();
        assert!(on_disk.chunks(4096).all(|c| c == written.as_slice()));
        let map = Mapping::new(file.as_raw_fd(), 8 * 4096, true).unwrap();
        mmap_loop(&map, true, 4096, 0..8, 1, &go).unwrap();
        let expect: u64 = (0..8 * 4096 / 8)
            .map(|_| 0x5a5a5a5a5a5a5a5au64)
            .fold(0, |a, w| a.wrapping_add(w));
        assert_eq!(mmap_loop(&map, false, 4096, 0..8, 1, &go).unwrap(), expect);
        drop(map);
        assert!(std::fs::read(&path).unwrap().iter().all(|b| *b == 0x5a));
    }
}
