//! Windows has no per-thread I/O class and level a job can set as Linux's ioprio_set does.

use crate::os::ioprio::IoPrio;

pub fn set_thread(_p: IoPrio) -> Result<(), String> {
    Err("I/O priorities (--ioprio; fio's prio and prioclass) are Linux's ioprio_set: Windows has none to set per thread".into())
}
