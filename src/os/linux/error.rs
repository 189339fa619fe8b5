//! Linux's error codes (errno): the ones iogauge acts on, classified, and their names.

use crate::os::error::Class;

pub const IO: i32 = libc::EIO;
pub const INVALID: i32 = libc::EINVAL;
pub const UNSUPPORTED: i32 = libc::EOPNOTSUPP;
pub const NOT_FOUND: i32 = libc::ENOENT;
pub const STALE: i32 = libc::ESTALE;

pub fn class(code: i32) -> Class {
    match code {
        libc::ENOSPC => Class::NoSpace,
        libc::EDQUOT => Class::Quota,
        libc::ENOENT => Class::NotFound,
        libc::EINVAL => Class::Invalid,
        libc::EOPNOTSUPP | libc::ENOSYS | libc::ENOTTY => Class::Unsupported,
        libc::EAGAIN | libc::ENOMEM => Class::NoResources,
        _ => Class::Other,
    }
}

/// As the kernel's headers name them.
pub const NAMES: &[(i32, &str)] = &[
    (libc::EPERM, "EPERM"),
    (libc::ENOENT, "ENOENT"),
    (libc::EINTR, "EINTR"),
    (libc::EIO, "EIO"),
    (libc::ENXIO, "ENXIO"),
    (libc::EBADF, "EBADF"),
    (libc::EAGAIN, "EAGAIN"),
    (libc::ENOMEM, "ENOMEM"),
    (libc::EACCES, "EACCES"),
    (libc::EFAULT, "EFAULT"),
    (libc::EBUSY, "EBUSY"),
    (libc::EEXIST, "EEXIST"),
    (libc::ENODEV, "ENODEV"),
    (libc::EISDIR, "EISDIR"),
    (libc::ENOTBLK, "ENOTBLK"),
    (libc::EXDEV, "EXDEV"),
    (libc::ENOTTY, "ENOTTY"),
    (libc::ENFILE, "ENFILE"),
    (libc::EMFILE, "EMFILE"),
    (libc::EPIPE, "EPIPE"),
    (libc::ENOSYS, "ENOSYS"),
    (libc::EOVERFLOW, "EOVERFLOW"),
    (libc::EINVAL, "EINVAL"),
    (libc::EFBIG, "EFBIG"),
    (libc::ENOSPC, "ENOSPC"),
    (libc::EROFS, "EROFS"),
    (libc::EOPNOTSUPP, "EOPNOTSUPP"),
    (libc::ETIMEDOUT, "ETIMEDOUT"),
    (libc::EDQUOT, "EDQUOT"),
    (libc::ECANCELED, "ECANCELED"),
    (libc::EREMOTEIO, "EREMOTEIO"),
    (libc::ESTALE, "ESTALE"),
];
