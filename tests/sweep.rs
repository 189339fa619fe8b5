//! Linux only: the tests are in tests/linux/sweep.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/sweep.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!("SKIPPED: tests/sweep.rs: sweeps whose knee a memory cgroup moves (Linux only)");
}
