//! Emptying the page cache, so that a measurement starts cold: one file's pages
//! (posix_fadvise DONTNEED, any user, dirty pages stay), or every file system's pages, dentries
//! and inodes (drop_caches, root only, after a sync so that dirty pages can go too).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;

const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

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
