//! The Linux port of the platform layer (see `os/mod.rs` for the interface): descriptors,
//! errno, sysfs and procfs, cgroups, and the calls only Linux has (io_uring is the engine's).

pub mod cache;
pub mod cgroup;
pub mod copy;
pub mod cpu;
pub mod dir;
pub mod diskstats;
pub mod error;
pub mod extents;
pub mod facts;
pub mod file;
pub mod ioprio;
pub mod limits;
pub mod mapping;
pub mod memcg;
pub mod meta;
pub mod numa;
pub mod owned;
pub mod process;
pub mod resolve;
pub mod signals;
pub mod topology;
pub mod vitals;

use std::os::fd::AsRawFd;

pub type RawHandle = std::os::fd::RawFd;

#[inline]
pub fn raw(file: &std::fs::File) -> RawHandle {
    file.as_raw_fd()
}

pub fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

pub fn data_home() -> Result<std::path::PathBuf, &'static str> {
    let var = |v: &str| std::env::var_os(v).filter(|v| !v.is_empty());
    match (var("XDG_DATA_HOME"), var("HOME")) {
        (Some(d), _) => Ok(d.into()),
        (None, Some(h)) => Ok(std::path::PathBuf::from(h).join(".local/share")),
        (None, None) => Err("neither XDG_DATA_HOME nor HOME is set"),
    }
}
