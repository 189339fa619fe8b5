//! The operating system's plumbing that several layers share, each piece in one place.

pub mod cache;
pub mod dir;
pub mod diskstats;
pub mod extents;
pub mod ioprio;
pub mod limits;
pub mod memcg;
pub mod memory;
pub mod meta;
pub mod numa;
pub mod owned;
pub mod resolve;
pub mod threads;
pub mod topology;
pub mod workspace;

/// The page size of this machine: the unit of mappings, page I/O tests and fio's `pagesize`.
pub fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}
