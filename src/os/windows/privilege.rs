//! Privileges a call needs enabled on this process's token (an administrator holds them
//! disabled): AdjustTokenPrivileges, with a refusal that names the privilege.

use std::io;
use windows_sys::Win32::Foundation::{
    CloseHandle, GetLastError, ERROR_NOT_ALL_ASSIGNED, HANDLE, LUID,
};
use windows_sys::Win32::Security::{
    AdjustTokenPrivileges, LookupPrivilegeValueW, LUID_AND_ATTRIBUTES, SE_PRIVILEGE_ENABLED,
    TOKEN_ADJUST_PRIVILEGES, TOKEN_PRIVILEGES, TOKEN_QUERY,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

/// Enable the privilege `name` (such as "SeIncreaseQuotaPrivilege"); PermissionDenied, naming
/// it, where the account does not hold it.
pub fn enable(name: &str) -> io::Result<()> {
    let wide: Vec<u16> = name.encode_utf16().chain([0]).collect();
    let mut luid = LUID {
        LowPart: 0,
        HighPart: 0,
    };
    // SAFETY: a NUL-terminated name; the LUID is ours.
    if unsafe { LookupPrivilegeValueW(std::ptr::null(), wide.as_ptr(), &mut luid) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: the pseudo-handle of this process; the token is closed below.
    let opened = unsafe {
        OpenProcessToken(
            GetCurrentProcess(),
            TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY,
            &mut token,
        )
    };
    if opened == 0 {
        return Err(io::Error::last_os_error());
    }
    let wanted = TOKEN_PRIVILEGES {
        PrivilegeCount: 1,
        Privileges: [LUID_AND_ATTRIBUTES {
            Luid: luid,
            Attributes: SE_PRIVILEGE_ENABLED,
        }],
    };
    // SAFETY: our token and a TOKEN_PRIVILEGES we own; no previous state asked for.
    let (ok, err) = unsafe {
        let ok = AdjustTokenPrivileges(
            token,
            0,
            &wanted,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        );
        let err = GetLastError();
        CloseHandle(token);
        (ok, err)
    };
    // It succeeds without enabling what the token does not hold: that is this error.
    if ok == 0 || err == ERROR_NOT_ALL_ASSIGNED {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("this account does not hold {name} (run as an administrator)"),
        ));
    }
    Ok(())
}
