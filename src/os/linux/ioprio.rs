//! The calling thread's I/O priority (ioprio_set), for --ioprio (fio's prio and prioclass).

use serde::{Deserialize, Serialize};

/// Where the class sits in the kernel's priority value (IOPRIO_CLASS_SHIFT).
pub const CLASS_SHIFT: u32 = 13;

/// A class and a level, as the kernel takes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoPrio {
    pub class: u8,
    pub level: u8,
}

impl IoPrio {
    /// A class 0..3 and a level 0..7, checked as fio's prioclass and prio are.
    pub fn new(class: u64, level: u64) -> Result<IoPrio, String> {
        if class > 3 {
            return Err(format!(
                "class {class} is not 0 to 3 (0 none, 1 real time, 2 best effort, 3 idle)"
            ));
        }
        if level > 7 {
            return Err(format!("level {level} is not 0 to 7 (0 highest)"));
        }
        Ok(IoPrio {
            class: class as u8,
            level: level as u8,
        })
    }

    /// The kernel's value (class 0 as best effort, as fio's ioprio_value).
    pub fn value(self) -> u16 {
        let class = if self.class == 0 { 2 } else { self.class };
        ((class as u16) << CLASS_SHIFT) | self.level as u16
    }

    /// `CLASS:LEVEL` (`--ioprio`).
    pub fn parse(text: &str) -> Result<IoPrio, String> {
        let (c, l) = text
            .split_once(':')
            .ok_or_else(|| format!("'{text}' is not CLASS:LEVEL (e.g. 2:4)"))?;
        let num = |t: &str| {
            t.trim()
                .parse::<u64>()
                .map_err(|_| format!("'{text}': '{t}' is not a whole number"))
        };
        IoPrio::new(num(c)?, num(l)?)
    }
}

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
