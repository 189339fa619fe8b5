//! The system's error codes, classified in one place: what an errno (Linux) or a Win32 error
//! (Windows) means to iogauge, and its name in messages and reports (ENOSPC,
//! ERROR_DISK_FULL). A completion's negative result and `io::Error::raw_os_error` carry these
//! codes on every system.

pub use super::sys::error::{INVALID, IO, NOT_FOUND, STALE, UNSUPPORTED};

/// What a code means, where iogauge acts on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// The file system is full (ENOSPC, ERROR_DISK_FULL).
    NoSpace,
    /// The user's quota is spent (EDQUOT, ERROR_HANDLE_DISK_FULL).
    Quota,
    /// No such file (ENOENT, ERROR_FILE_NOT_FOUND, ERROR_PATH_NOT_FOUND).
    NotFound,
    /// The arguments were refused (EINVAL, ERROR_INVALID_PARAMETER): for unbuffered I/O, a
    /// misaligned buffer, offset or length.
    Invalid,
    /// The call is not supported here (EOPNOTSUPP, ERROR_NOT_SUPPORTED).
    Unsupported,
    /// A process or thread limit, or no memory (EAGAIN, ENOMEM; ERROR_NOT_ENOUGH_MEMORY).
    NoResources,
    /// Anything else.
    Other,
}

/// The class of `code`.
pub fn class(code: i32) -> Class {
    super::sys::error::class(code)
}

/// True where a write ran out of room (full, or over quota): a fill job's planned end.
pub fn is_full(code: i32) -> bool {
    matches!(class(code), Class::NoSpace | Class::Quota)
}

/// The system's name for `code` (ENOSPC, ERROR_DISK_FULL), where iogauge knows it.
pub fn name(code: i32) -> Option<&'static str> {
    super::sys::error::NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| *n)
}

/// The code the system names `name` (case ignored), where iogauge knows it.
pub fn by_name(name: &str) -> Option<i32> {
    super::sys::error::NAMES
        .iter()
        .find(|(_, n)| n.eq_ignore_ascii_case(name))
        .map(|(c, _)| *c)
}

/// The last error of the calling thread, as a code ([`IO`] where there is none).
pub fn last() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(IO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_and_names_agree() {
        let full = by_name(if cfg!(windows) {
            "ERROR_DISK_FULL"
        } else {
            "ENOSPC"
        })
        .unwrap();
        assert!(is_full(full));
        assert_eq!(class(full), Class::NoSpace);
        assert!(!is_full(IO));
        assert_eq!(class(NOT_FOUND), Class::NotFound);
        assert_eq!(class(INVALID), Class::Invalid);
        assert!(name(IO).is_some());
        assert_eq!(by_name("no such thing"), None);
    }
}
