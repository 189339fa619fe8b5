//! The measured loops of the file-system suite, and the unmeasured set-up ("fixtures") they
//! run on. Each loop is the bare system calls and nothing else: names are formatted in place
//! ([`Names`]), calls are made relative to an open folder on Linux (`openat`, `fstatat`...) and
//! on full paths on Windows (`CreateFileW`...), the port's [`Folder`], and no clock is read and
//! nothing allocated inside a loop. The clock is read once before and once
//! after a whole loop, so iogauge's own cost per operation is a few nanoseconds of name
//! formatting next to microseconds of system call (bench/fs_syscalls.rs measures the ratio).

pub use crate::os::memory::{AlignedBuf, Mapping};
pub use crate::os::meta::{Folder, MetaOp, Names};
use crate::os::RawHandle;
use std::io;
use std::ops::Range;
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

#[inline]
fn check(i: u64, start: u64, stop: &AtomicBool) -> Outcome {
    if (i - start) % CHECK_EVERY == CHECK_EVERY - 1 && stop.load(Ordering::Relaxed) {
        return Err(Stop::Interrupted);
    }
    Ok(())
}

/// Apply `op` to the names `prefix<i>`, i in `range`, in the folder `dir`.
pub fn meta_loop(
    dir: &Folder,
    op: MetaOp,
    prefix: &str,
    range: Range<u64>,
    stop: &AtomicBool,
) -> Outcome {
    let mut name = dir.names(prefix);
    let mut renamed = dir.names("r");
    let start = range.start;
    for i in range {
        check(i, start, stop)?;
        name.set(i);
        let to = (op == MetaOp::Rename).then(|| {
            renamed.set(i);
            &mut renamed
        });
        if !dir.apply(op, &name, to) {
            // The system's error first: building the message may allocate.
            let e = io::Error::last_os_error();
            return Err(Stop::Failed(format!(
                "cannot {} '{}': {e}",
                op.verb(),
                name.show()
            )));
        }
    }
    Ok(())
}

/// List the folder `sub` of `dir` (None: `dir` itself) `times` times: open it, read every
/// entry, close it. Each listing must return `expect` entries besides "." and ".."; another
/// count is an error, so a short listing cannot pass for a fast one.
pub fn list_loop(
    dir: &Folder,
    sub: Option<&str>,
    buf: &mut [u8],
    times: Range<u64>,
    expect: u64,
    stop: &AtomicBool,
) -> Outcome {
    let what = sub.unwrap_or(".");
    let mut lister = dir
        .lister(sub)
        .map_err(|e| Stop::Failed(format!("cannot list '{what}': {e}")))?;
    let start = times.start;
    for i in times {
        check(i, start, stop)?;
        let entries = lister
            .count(buf)
            .map_err(|e| Stop::Failed(format!("cannot list '{what}': {e}")))?;
        if entries != expect {
            return Err(Stop::Failed(format!(
                "listing '{what}' returned {entries} entries, expected {expect}"
            )));
        }
    }
    Ok(())
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
    file: RawHandle,
    op: PageOp,
    buf: &mut [u8],
    pages: Range<u64>,
    passes: u64,
    stop: &AtomicBool,
) -> Outcome {
    use crate::os::file::{flush, read_at, write_at};
    let page = buf.len() as u64;
    let mut i = 0u64;
    for _ in 0..passes {
        for p in pages.clone() {
            check(i, 0, stop)?;
            i += 1;
            let off = p * page;
            let n = match op {
                PageOp::Read => read_at(file, buf.as_mut_ptr(), buf.len() as u32, off),
                PageOp::Write | PageOp::WriteFsync => {
                    write_at(file, buf.as_ptr(), buf.len() as u32, off)
                }
            };
            if n as u64 != page {
                let e = if n < 0 {
                    io::Error::from_raw_os_error(-n).to_string()
                } else {
                    format!("{n} of {page} bytes")
                };
                return Err(Stop::Failed(format!("page at offset {off}: {e}")));
            }
            if op == PageOp::WriteFsync {
                let r = flush(file, false);
                if r < 0 {
                    let e = io::Error::from_raw_os_error(-r);
                    return Err(Stop::Failed(format!("fsync: {e}")));
                }
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

    #[test]
    fn names_are_prefix_and_decimal() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Folder::open(tmp.path()).unwrap();
        let mut n = dir.names("f");
        // Linux shows the name in its folder, Windows the full path.
        for (i, want) in [(0, "f0"), (1234567, "f1234567"), (7, "f7")] {
            n.set(i);
            assert!(n.show().ends_with(want), "{} for {want}", n.show());
        }
        n.set(u64::MAX);
        assert!(n.show().ends_with(&format!("f{}", u64::MAX)));
        n.set(3);
        assert!(
            !n.show().ends_with("f35"),
            "a shorter number leaves no digits behind"
        );
    }

    #[test]
    fn loops_do_what_they_say_on_a_real_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Folder::open(tmp.path()).unwrap();
        let fd = &dir;
        let go = AtomicBool::new(false);
        meta_loop(fd, MetaOp::Create, "f", 0..100, &go).unwrap();
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 100);
        assert!(matches!(
            meta_loop(fd, MetaOp::Create, "f", 5..6, &go),
            Err(Stop::Failed(m)) if m.starts_with("cannot create '") && m.contains("f5': ")
        ));
        meta_loop(fd, MetaOp::Open, "f", 0..100, &go).unwrap();
        meta_loop(fd, MetaOp::Stat, "f", 0..100, &go).unwrap();
        let mut buf = vec![0u8; 4096];
        list_loop(fd, None, &mut buf, 0..3, 100, &go).unwrap();
        assert!(list_loop(fd, None, &mut buf, 0..1, 99, &go).is_err());
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
            crate::os::raw(&file),
            PageOp::Write,
            buf.bytes_mut(),
            0..8,
            2,
            &go,
        )
        .unwrap();
        let on_disk = std::fs::read(&path).unwrap();
        assert!(on_disk.chunks(4096).all(|c| c == written.as_slice()));
        let map = Mapping::new(crate::os::raw(&file), 8 * 4096, true).unwrap();
        mmap_loop(&map, true, 4096, 0..8, 1, &go).unwrap();
        let expect: u64 = (0..8 * 4096 / 8)
            .map(|_| 0x5a5a5a5a5a5a5a5au64)
            .fold(0, |a, w| a.wrapping_add(w));
        assert_eq!(mmap_loop(&map, false, 4096, 0..8, 1, &go).unwrap(), expect);
        drop(map);
        assert!(std::fs::read(&path).unwrap().iter().all(|b| *b == 0x5a));
    }
}
