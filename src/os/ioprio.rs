//! An I/O priority as a job names it (a class and a level: fio's prioclass and prio,
//! `--ioprio`); the port sets the calling thread's (Linux: ioprio_set; Windows has none a
//! job can set this way, and says so).

use serde::{Deserialize, Serialize};

pub use super::sys::ioprio::set_thread;

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
