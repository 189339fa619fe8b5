//! The metadata operations (create, open, stat, rename, delete, mkdir, rmdir), each once on
//! one name: what the fs suite times per operation and what the file-operation engines do per
//! I/O, written once per system (its port's `meta.rs`: `MetaOp::apply`, `MetaOp::on_path`) so
//! that both measure the same call.

/// The metadata operations; the fs suite applies each to names `prefix<i>` for i in a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaOp {
    /// open(O_CREAT | O_EXCL) + close
    Create,
    /// open(O_RDONLY) + close
    Open,
    /// open(O_CREAT | O_TRUNC) + close
    Overwrite,
    /// fstatat
    Stat,
    /// renameat to "r<i>"
    Rename,
    /// unlinkat
    Delete,
    /// mkdirat
    Mkdir,
    /// unlinkat(AT_REMOVEDIR)
    Rmdir,
}

impl MetaOp {
    /// The operation as a verb, for error messages.
    pub fn verb(self) -> &'static str {
        match self {
            MetaOp::Create => "create",
            MetaOp::Open => "open",
            MetaOp::Overwrite => "overwrite",
            MetaOp::Stat => "stat",
            MetaOp::Rename => "rename",
            MetaOp::Delete => "delete",
            MetaOp::Mkdir => "create folder",
            MetaOp::Rmdir => "remove folder",
        }
    }
}

/// A folder the fs suite works in, and the names of what it makes there ([`Names`]: `<prefix><n>`,
/// formatted without allocation). The port's: relative to an open folder on Linux, full wide
/// paths on Windows.
pub use super::sys::meta::{Folder, Lister, Names};

/// `n`'s decimal digits, written from the right of a 20-byte buffer: the digits are
/// `buf[at..]`. The ports copy them next to a name's prefix.
#[inline]
pub fn decimal(mut n: u64) -> ([u8; 20], usize) {
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
    (digits, i)
}

/// What each of the fs suite's operations is on this system, in its own calls' words: for
/// --help, the report and the JSON. The port's ([`CALLS`]).
pub struct Calls {
    pub create: &'static str,
    pub open: &'static str,
    pub reopen: &'static str,
    pub overwrite: &'static str,
    pub stat: &'static str,
    pub list: &'static str,
    pub list_single: &'static str,
    pub rename: &'static str,
    pub delete: &'static str,
    pub mkdir: &'static str,
    pub rmdir: &'static str,
    pub cc_write: &'static str,
    pub cc_read: &'static str,
    pub nc_write: &'static str,
    pub nc_read: &'static str,
    pub mmap_write: &'static str,
    pub mmap_read: &'static str,
    pub fsync: &'static str,
    /// Unbuffered I/O's name: O_DIRECT, FILE_FLAG_NO_BUFFERING.
    pub direct: &'static str,
}

pub use super::sys::meta::CALLS;
