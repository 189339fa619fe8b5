//! Emptying the system's file cache, so that a measurement starts cold: one file's pages, or
//! every cached page where the process may (Linux: posix_fadvise DONTNEED, drop_caches as
//! root; Windows: an unbuffered open of the file, which makes the cache let go of it). How
//! each is done, and its words in reports, are the port's.

use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io;

pub use super::sys::cache::{can_drop_all, drop_all, drop_file, resident, sync_fs};

/// How caches are emptied before each measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheDrop {
    /// sync, then `echo 3 > /proc/sys/vm/drop_caches` (needs root): page cache, dentries and
    /// inodes of every file system.
    DropCaches,
    /// posix_fadvise(POSIX_FADV_DONTNEED) on the files to be read: their pages only; names
    /// and inodes stay cached.
    Fadvise,
    /// --no-drop-caches: nothing dropped.
    None,
}

impl CacheDrop {
    /// Every cache where this process may drop them (root), else the files' own pages;
    /// nothing where not `wanted`.
    pub fn choose(wanted: bool) -> CacheDrop {
        if !wanted {
            CacheDrop::None
        } else if can_drop_all() {
            CacheDrop::DropCaches
        } else {
            CacheDrop::Fadvise
        }
    }

    /// Empty the caches; `data`: the file to be read, for [`CacheDrop::Fadvise`].
    pub fn apply(self, data: Option<&File>) -> io::Result<()> {
        match (self, data) {
            (CacheDrop::DropCaches, _) => drop_all(),
            (CacheDrop::Fadvise, Some(f)) => {
                // Dirty pages are not dropped: write them first.
                f.sync_all()?;
                drop_file(f)
            }
            _ => Ok(()),
        }
    }
}
