//! The platform layer: the operating system's plumbing that several layers share, each piece
//! in one place, behind one interface whatever the system.
//!
//! Each port is one folder that implements the same modules: `linux/` (Linux) and `windows/`
//! (Windows), and `unsupported/` for any other system (it builds, and refuses what needs the
//! system's own calls), chosen at compile time by `cfg`, with static dispatch (no trait objects: the
//! engines' per-I/O calls stay inlined), as std's own `sys` is organised. Above this module
//! nothing names a port. ARCHITECTURE.md lists what a port implements; what a system cannot do
//! (memory cgroups on Windows, say) its port answers with an error that says so, in one line.
//!
//! Here, shared by every port: the raw handle type ([`RawHandle`], [`raw`]), error codes
//! classified ([`error`]), aligned buffers ([`memory`]), thread gates ([`threads`]) and
//! workspaces ([`workspace`]).

#[cfg(target_os = "linux")]
#[path = "linux/mod.rs"]
mod sys;
#[cfg(windows)]
#[path = "windows/mod.rs"]
mod sys;
#[cfg(not(any(target_os = "linux", windows)))]
#[path = "unsupported/mod.rs"]
mod sys;

pub mod cache;
pub mod cgroup;
pub mod copy;
pub mod cpu;
pub mod diskstats;
pub mod error;
pub mod facts;
pub mod file;
pub mod ioprio;
pub mod memcg;
pub mod memory;
pub mod meta;
pub mod numa;
pub mod owned;
pub mod process;
pub mod signals;
pub mod threads;
pub mod topology;
pub mod vitals;
pub mod workspace;

pub use sys::limits;
#[cfg(any(target_os = "linux", windows))]
pub use sys::{dir, extents, resolve};

/// An open file as the system names it to its calls: a descriptor on Linux, a HANDLE's value
/// on Windows. Copyable and sendable; it owns nothing (a `File` does).
pub type RawHandle = sys::RawHandle;

/// No file: a place holding none, a thread that opens its own.
pub const NO_HANDLE: RawHandle = -1;

/// The raw handle of an open file, for the engines and system calls.
#[inline]
pub fn raw(file: &std::fs::File) -> RawHandle {
    sys::raw(file)
}

/// The page size of this machine: the unit of mappings, page I/O tests and fio's `pagesize`.
pub fn page_size() -> u64 {
    sys::page_size()
}

/// The user's folder for application data: $XDG_DATA_HOME, else ~/.local/share (Linux);
/// %LOCALAPPDATA% (Windows). Err says which variables are unset.
pub fn data_home() -> Result<std::path::PathBuf, &'static str> {
    sys::data_home()
}
