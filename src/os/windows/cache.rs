//! Windows: a file's cached pages let go by opening it unbuffered (FILE_FLAG_NO_BUFFERING: the
//! cache manager flushes and purges a file opened so, as WinFsp's fsbench relies on). Emptying
//! every cache (SetSystemFileCacheSize, the standby list: administrator) is not yet done here.

use crate::os::cache::CacheDrop;
use std::fs::File;
use std::io;

impl CacheDrop {
    pub fn describe(self) -> &'static str {
        match self {
            CacheDrop::DropCaches => {
                "caches emptied before each measurement (the whole system cache)"
            }
            CacheDrop::Fadvise => {
                "caches emptied before each measurement by an unbuffered open \
                 (FILE_FLAG_NO_BUFFERING) of the data files only; folder and metadata caches \
                 stay warm"
            }
            CacheDrop::None => "caches not dropped (--no-drop-caches)",
        }
    }
}

fn not_yet(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("{what} is not yet done on Windows"),
    )
}

/// Flushing a whole volume needs a volume handle (administrator): not yet done on Windows.
pub fn sync_fs(_path: &std::path::Path) -> io::Result<()> {
    Err(not_yet("flushing a whole volume"))
}

/// Let the system cache go of `f`'s clean pages: an unbuffered handle opened on it and closed
/// (dirty pages are the caller's to write first, as on Linux: `CacheDrop::apply` does).
pub fn drop_file(f: &File) -> io::Result<()> {
    let how = crate::os::file::How {
        write: false,
        direct: true,
        write_through: false,
        overlapped: false,
        remote_uncached: false,
    };
    let h = super::file::reopen(super::raw(f), how)?;
    super::file::close_raw(h);
    Ok(())
}

/// Emptying every cache is not yet done on Windows.
pub fn can_drop_all() -> bool {
    false
}

pub fn drop_all() -> io::Result<()> {
    Err(not_yet("emptying the whole system cache"))
}

/// Windows does not say how much of a file is cached (there is no mincore or cachestat).
pub fn resident(_f: &File) -> io::Result<(u64, u64)> {
    Err(not_yet("counting a file's cached pages"))
}
