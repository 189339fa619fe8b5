//! The metadata system calls (create, open, stat, rename, delete, mkdir, rmdir), each once on
//! one name: what the fs suite times per operation and what the file-operation engines do per
//! I/O, written once so that both measure the same call.

use std::ffi::CStr;
use std::os::fd::RawFd;

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
    /// Do the operation once on `name`, relative to the folder `dir` (or `libc::AT_FDCWD` for a
    /// path); `to` is the new name of a rename. False on failure, with errno set. This is what
    /// each of the suite's operations is, and what the file-operation engines of `iogauge run`
    /// and `iogauge fio` do per I/O.
    #[inline]
    pub fn apply(self, dir: RawFd, name: &CStr, to: Option<&CStr>) -> bool {
        // SAFETY (all arms): plain system calls on a folder descriptor the caller holds (or
        // AT_FDCWD) and NUL-terminated names; descriptors returned are closed at once.
        unsafe {
            match self {
                MetaOp::Create | MetaOp::Open | MetaOp::Overwrite => {
                    let flags = match self {
                        MetaOp::Create => libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY,
                        MetaOp::Overwrite => libc::O_CREAT | libc::O_TRUNC | libc::O_WRONLY,
                        _ => libc::O_RDONLY,
                    };
                    let fd = libc::openat(dir, name.as_ptr(), flags | libc::O_CLOEXEC, 0o644);
                    fd >= 0 && libc::close(fd) == 0
                }
                MetaOp::Stat => {
                    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
                    libc::fstatat(dir, name.as_ptr(), st.as_mut_ptr(), 0) == 0
                }
                MetaOp::Rename => {
                    let to = to.expect("a rename is given its new name");
                    libc::renameat(dir, name.as_ptr(), dir, to.as_ptr()) == 0
                }
                MetaOp::Delete => libc::unlinkat(dir, name.as_ptr(), 0) == 0,
                MetaOp::Mkdir => libc::mkdirat(dir, name.as_ptr(), 0o755) == 0,
                MetaOp::Rmdir => libc::unlinkat(dir, name.as_ptr(), libc::AT_REMOVEDIR) == 0,
            }
        }
    }

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
