//! Linux's metadata calls for [`MetaOp`]: openat, fstatat, renameat, unlinkat, mkdirat.

use crate::os::file::Name;
use crate::os::meta::MetaOp;
use std::ffi::CStr;
use std::os::fd::RawFd;

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

    /// Do the operation once on a full path (the file-operation engines).
    #[inline]
    pub fn on_path(self, name: &Name) -> bool {
        self.apply(libc::AT_FDCWD, name.as_c_str(), None)
    }
}
