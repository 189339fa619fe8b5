//! One file's bytes copied the system's own way, besides reading and writing them: the
//! kernel's copy_file_range and an io_uring on Linux; CopyFileExW (what Explorer and robocopy
//! use) and ReFS block cloning (FSCTL_DUPLICATE_EXTENTS_TO_FILE) on Windows. Each port offers
//! the methods its system has ([`METHODS`], by the names `--method` takes) and answers the
//! others with an error that says so.
//!
//! A method the file system refuses before a byte moved is said so ([`Copied::Refused`], in
//! words), so that the caller copies that file by read and write and reports why.

pub use super::sys::copy::{clone_blocks, copy_file_ex, kernel_copy, Ring, DEFAULT, METHODS};

/// Where a copy's bytes are counted as they move.
pub trait Progress {
    fn read(&self, bytes: u64);
    fn wrote(&self, bytes: u64);
}

/// How a copy by the system went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Copied {
    Done,
    /// Refused for these two files before a byte moved: why, in one line.
    Refused(String),
}

/// The error a copy stopped by the stop flag ends with.
pub fn stopped() -> std::io::Error {
    std::io::Error::other("interrupted")
}

/// Whether this system offers the copy method called `name`.
pub fn offers(name: &str) -> bool {
    METHODS.contains(&name)
}
