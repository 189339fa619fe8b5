//! Each CPU's time as the system counts it (user, kernel, idle), and the time a hypervisor
//! took (steal), for the CPU use every result reports.

pub use super::sys::cpu::{steal_ticks, ticks_per_sec, times};
