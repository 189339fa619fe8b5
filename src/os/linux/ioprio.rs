//! The calling thread's I/O priority (ioprio_set), for --ioprio (fio's prio and prioclass).

use crate::os::ioprio::IoPrio;

/// IOPRIO_WHO_PROCESS: `who` is a thread id (0: the calling thread).
const IOPRIO_WHO_PROCESS: libc::c_long = 1;

/// Set the calling thread's I/O priority, as fio does on each job's thread before its engine
/// starts: its sync I/O, and the I/O the kernel issues for its io_uring SQEs that carry none
/// of their own, run at it.
pub fn set_thread(p: IoPrio) -> Result<(), String> {
    // SAFETY: a plain system call with integer arguments.
    let r = unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            0 as libc::c_long,
            p.value() as libc::c_long,
        )
    };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!(
            "ioprio_set (class {}, level {}): {e}{}",
            p.class,
            p.level,
            if e.raw_os_error() == Some(libc::EPERM) {
                " (the real-time class needs CAP_SYS_ADMIN or CAP_SYS_NICE)"
            } else {
                ""
            }
        ));
    }
    Ok(())
}
