//! Emptying the page cache, so that a measurement starts cold: one file's pages
//! (posix_fadvise DONTNEED, any user, dirty pages stay), or every file system's pages, dentries
//! and inodes (drop_caches, root only, after a sync so that dirty pages can go too).

use crate::os::cache::CacheDrop;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;

const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

impl CacheDrop {
    pub fn describe(self) -> &'static str {
        match self {
            CacheDrop::DropCaches => {
                "caches dropped before each measurement: sync; echo 3 > /proc/sys/vm/drop_caches"
            }
            CacheDrop::Fadvise => {
                "caches dropped before each measurement with posix_fadvise(DONTNEED) on the data \
                 files only (not root: /proc/sys/vm/drop_caches is not writable); folder and \
                 inode caches stay warm"
            }
            CacheDrop::None => "caches not dropped (--no-drop-caches)",
        }
    }
}

/// Write back every dirty page of the file system holding `path` (syncfs), and wait.
pub fn sync_fs(path: &std::path::Path) -> io::Result<()> {
    let f = File::open(path)?;
    // SAFETY: syncfs on a descriptor we hold open.
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Drop `f`'s clean pages from the page cache.
pub fn drop_file(f: &File) -> io::Result<()> {
    // SAFETY: fadvise on an open descriptor; no memory is passed.
    match unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) } {
        0 => Ok(()),
        e => Err(io::Error::from_raw_os_error(e)),
    }
}

/// Whether this process may drop every cache (root, or a writable drop_caches).
pub fn can_drop_all() -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .open(DROP_CACHES)
        .is_ok()
}

/// sync, then `echo 3 > /proc/sys/vm/drop_caches`: dirty pages are not dropped, so they are
/// written first.
pub fn drop_all() -> io::Result<()> {
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
    std::fs::OpenOptions::new()
        .write(true)
        .open(DROP_CACHES)?
        .write_all(b"3")
}

/// How much of `f` is in the page cache: (pages cached, pages in the file). The kernel's
/// `cachestat` (Linux 6.5) counts without touching the file; elsewhere the file is mapped and
/// `mincore` asked, which reads no data either.
pub fn resident(f: &File) -> io::Result<(u64, u64)> {
    let len = f.metadata()?.len();
    let page = super::page_size();
    let pages = len.div_ceil(page);
    if pages == 0 {
        return Ok((0, 0));
    }
    match cachestat(f) {
        Ok(cached) => Ok((cached.min(pages), pages)),
        Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
            mincore(f, len, page).map(|c| (c, pages))
        }
        Err(e) => Err(e),
    }
}

/// `cachestat(2)`: pages of the whole file in the page cache.
fn cachestat(f: &File) -> io::Result<u64> {
    #[repr(C)]
    struct Range {
        off: u64,
        len: u64,
    }
    #[repr(C)]
    #[derive(Default)]
    struct Stat {
        nr_cache: u64,
        nr_dirty: u64,
        nr_writeback: u64,
        nr_evicted: u64,
        nr_recently_evicted: u64,
    }
    /// The same number on every architecture (added after the tables were unified).
    const SYS_CACHESTAT: libc::c_long = 451;
    let range = Range { off: 0, len: 0 };
    let mut st = Stat::default();
    // SAFETY: the kernel reads `range` and writes `st`, both live and of the kernel's layout.
    let r = unsafe {
        libc::syscall(
            SYS_CACHESTAT,
            f.as_raw_fd(),
            &range as *const Range,
            &mut st as *mut Stat,
            0u32,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.nr_cache)
}

fn mincore(f: &File, len: u64, page: u64) -> io::Result<u64> {
    let len = usize::try_from(len).map_err(|_| io::Error::other("file too large to map"))?;
    // SAFETY: a read-only shared mapping of a file we hold, unmapped below; nothing reads it.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            f.as_raw_fd(),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let mut vec = vec![0u8; len.div_ceil(page as usize)];
    // SAFETY: `vec` has a byte per page of the mapping.
    let r = unsafe { libc::mincore(addr, len, vec.as_mut_ptr()) };
    let e = io::Error::last_os_error();
    // SAFETY: the mapping made above.
    unsafe { libc::munmap(addr, len) };
    if r != 0 {
        return Err(e);
    }
    Ok(vec.iter().filter(|&&b| b & 1 != 0).count() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_just_written_is_in_the_cache_and_leaves_it_when_dropped() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, vec![7u8; 1 << 20]).unwrap();
        let f = File::open(&p).unwrap();
        let (cached, pages) = resident(&f).unwrap();
        assert_eq!(pages, (1 << 20) / super::super::page_size());
        assert_eq!(cached, pages);
        // tmpfs is its page cache: nothing to drop there.
        if crate::facts::fs_type_of(d.path()).as_deref() == Some("tmpfs") {
            return;
        }
        f.sync_all().unwrap();
        drop_file(&f).unwrap();
        let (cached, _) = resident(&f).unwrap();
        assert!(cached < pages / 4, "{cached} of {pages} pages still cached");
        assert_eq!(
            mincore(&f, 1 << 20, super::super::page_size()).unwrap(),
            cached
        );
    }
}
