//! Windows' error codes (Win32 errors, as GetLastError returns them): the ones iogauge acts on,
//! classified, and their names as winerror.h spells them.

use crate::os::error::Class;

pub const IO: i32 = 1117; // ERROR_IO_DEVICE
pub const INVALID: i32 = 87; // ERROR_INVALID_PARAMETER
pub const UNSUPPORTED: i32 = 50; // ERROR_NOT_SUPPORTED
pub const NOT_FOUND: i32 = 2; // ERROR_FILE_NOT_FOUND
/// A file opened again is not the one checked before: Windows has no ESTALE; its nearest
/// word is "the file has been altered" (ERROR_FILE_INVALID).
pub const STALE: i32 = 1006;

pub fn class(code: i32) -> Class {
    match code {
        112 => Class::NoSpace,
        39 => Class::Quota,
        2 | 3 => Class::NotFound,
        87 => Class::Invalid,
        50 | 1 => Class::Unsupported,
        8 | 14 | 1450 | 1453 => Class::NoResources,
        _ => Class::Other,
    }
}

/// As winerror.h names them.
pub const NAMES: &[(i32, &str)] = &[
    (1, "ERROR_INVALID_FUNCTION"),
    (2, "ERROR_FILE_NOT_FOUND"),
    (3, "ERROR_PATH_NOT_FOUND"),
    (4, "ERROR_TOO_MANY_OPEN_FILES"),
    (5, "ERROR_ACCESS_DENIED"),
    (6, "ERROR_INVALID_HANDLE"),
    (8, "ERROR_NOT_ENOUGH_MEMORY"),
    (14, "ERROR_OUTOFMEMORY"),
    (19, "ERROR_WRITE_PROTECT"),
    (21, "ERROR_NOT_READY"),
    (23, "ERROR_CRC"),
    (32, "ERROR_SHARING_VIOLATION"),
    (33, "ERROR_LOCK_VIOLATION"),
    (38, "ERROR_HANDLE_EOF"),
    (39, "ERROR_HANDLE_DISK_FULL"),
    (50, "ERROR_NOT_SUPPORTED"),
    (53, "ERROR_BAD_NETPATH"),
    (64, "ERROR_NETNAME_DELETED"),
    (80, "ERROR_FILE_EXISTS"),
    (87, "ERROR_INVALID_PARAMETER"),
    (112, "ERROR_DISK_FULL"),
    (121, "ERROR_SEM_TIMEOUT"),
    (145, "ERROR_DIR_NOT_EMPTY"),
    (170, "ERROR_BUSY"),
    (183, "ERROR_ALREADY_EXISTS"),
    (483, "ERROR_DEVICE_HARDWARE_ERROR"),
    (995, "ERROR_OPERATION_ABORTED"),
    (1006, "ERROR_FILE_INVALID"),
    (1117, "ERROR_IO_DEVICE"),
    (1450, "ERROR_NO_SYSTEM_RESOURCES"),
    (1453, "ERROR_WORKING_SET_QUOTA"),
];
