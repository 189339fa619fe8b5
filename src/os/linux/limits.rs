//! The descriptors this process may hold (RLIMIT_NOFILE). Distributions set a soft limit of
//! 1024 for compatibility with select(2), which iogauge does not use, under a hard limit that
//! is often far higher; a job of thousands of files needs the higher one, as fio takes it.

/// Raise the soft limit on open descriptors to the hard limit. Called once at start-up; a
/// refusal leaves the limit as it was, and the run is then judged against that one.
pub fn raise_nofile() {
    // SAFETY: getrlimit and setrlimit read and write a struct we own.
    unsafe {
        let mut l: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) == 0 && l.rlim_cur < l.rlim_max {
            l.rlim_cur = l.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &l);
        }
    }
}

/// The soft and hard limits on open descriptors; `u64::MAX` where unlimited or unknown.
pub fn nofile() -> (u64, u64) {
    // SAFETY: getrlimit writes a struct we own.
    let mut l: libc::rlimit = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) } != 0 {
        return (u64::MAX, u64::MAX);
    }
    // rlim_t is u64 on Linux.
    let v = |x: libc::rlim_t| {
        if x == libc::RLIM_INFINITY {
            u64::MAX
        } else {
            x
        }
    };
    (v(l.rlim_cur), v(l.rlim_max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_ends_at_the_hard_one() {
        raise_nofile();
        let (soft, hard) = nofile();
        assert_eq!(soft, hard);
    }
}
