//! Linux: kill(pid, 0) and the file's owner against the effective user.

use std::os::unix::fs::MetadataExt;

/// Whether process `pid` is alive (EPERM: alive, another user's).
pub fn alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let sent = unsafe { libc::kill(pid, 0) } == 0;
    sent || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Whether the file is owned by this process's effective user.
pub fn is_mine(m: &std::fs::Metadata) -> bool {
    // SAFETY: geteuid cannot fail.
    m.uid() == unsafe { libc::geteuid() }
}

/// getrusage(RUSAGE_SELF), with the peak resident set from /proc/self/status (VmHWM) where
/// it is there.
pub fn usage() -> crate::os::process::Usage {
    // SAFETY: getrusage fills a struct we own.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    crate::os::process::Usage {
        peak_rss_bytes: peak_rss_bytes().unwrap_or(ru.ru_maxrss as u64 * 1024),
        user_ns: ns(ru.ru_utime),
        system_ns: ns(ru.ru_stime),
    }
}

/// CPU time (user and system) of the calling thread so far, in nanoseconds: what one
/// sweep thread spent on a pass, which RUSAGE_SELF would mix with the other threads'.
pub fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime fills a struct we own.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return 0;
    }
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Peak resident size of this program's own memory (VmHWM). Not getrusage's ru_maxrss: that
/// survives execve, so a process started from a large parent (a test harness, a script
/// runner) would report the parent's peak.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Whether `folder` holds a program called `name` that this user may run (a file with an
/// execute bit).
pub fn is_program(folder: &std::path::Path, name: &str) -> bool {
    std::fs::metadata(folder.join(name)).is_ok_and(|m| {
        m.is_file() && std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0
    })
}
