//! Windows: a process is alive while a handle on it says it has not exited; a file in a folder
//! this user may write is taken as this user's (its owner's SID is not compared yet).

use windows_sys::Win32::Foundation::{CloseHandle, STILL_ACTIVE};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
};

pub fn alive(pid: u32) -> bool {
    // SAFETY: opens a handle closed below, or none.
    let h = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if h.is_null() {
        // Access denied: it exists, another user's.
        return std::io::Error::last_os_error().raw_os_error() == Some(5);
    }
    let mut code = 0u32;
    // SAFETY: a process handle we hold; writes the number we own.
    let ok = unsafe { GetExitCodeProcess(h, &mut code) } != 0;
    // SAFETY: opened above, closed once.
    unsafe { CloseHandle(h) };
    ok && code == STILL_ACTIVE as u32
}

pub fn is_mine(m: &std::fs::Metadata) -> bool {
    !m.permissions().readonly()
}

/// GetProcessTimes (100 ns units) and the peak working set (K32GetProcessMemoryInfo).
pub fn usage() -> crate::os::process::Usage {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::ProcessStatus::{
        K32GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS,
    };
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, GetProcessTimes};
    let z = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut c, mut e, mut k, mut u) = (z, z, z, z);
    let ns = |t: FILETIME| ((t.dwHighDateTime as u64) << 32 | t.dwLowDateTime as u64) * 100;
    let mut m: PROCESS_MEMORY_COUNTERS = unsafe { std::mem::zeroed() };
    m.cb = std::mem::size_of::<PROCESS_MEMORY_COUNTERS>() as u32;
    // SAFETY: the current process's pseudo-handle; each output is ours.
    unsafe {
        GetProcessTimes(GetCurrentProcess(), &mut c, &mut e, &mut k, &mut u);
        K32GetProcessMemoryInfo(GetCurrentProcess(), &mut m, m.cb);
    }
    crate::os::process::Usage {
        peak_rss_bytes: m.PeakWorkingSetSize as u64,
        user_ns: ns(u),
        system_ns: ns(k),
    }
}

/// CPU time (user and kernel) of the calling thread so far, in nanoseconds (GetThreadTimes,
/// 100 ns units).
pub fn thread_cpu_ns() -> u64 {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::{GetCurrentThread, GetThreadTimes};
    let z = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut c, mut e, mut k, mut u) = (z, z, z, z);
    let ns = |t: FILETIME| ((t.dwHighDateTime as u64) << 32 | t.dwLowDateTime as u64) * 100;
    // SAFETY: the current thread's pseudo-handle; each output is ours.
    let ok = unsafe { GetThreadTimes(GetCurrentThread(), &mut c, &mut e, &mut k, &mut u) } != 0;
    if ok {
        ns(k) + ns(u)
    } else {
        0
    }
}

/// Whether `folder` holds a program called `name`: `name.exe` (or `name` itself where it has
/// an extension), a file.
pub fn is_program(folder: &std::path::Path, name: &str) -> bool {
    let file = match std::path::Path::new(name).extension() {
        Some(_) => name.to_string(),
        None => format!("{name}.exe"),
    };
    std::fs::metadata(folder.join(file)).is_ok_and(|m| m.is_file())
}
