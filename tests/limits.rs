//! Linux only: the tests are in tests/linux/limits.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/limits.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/limits.rs: what limited a run, on zram, loop devices, cgroups, dirty \
         limits and FUSE (Linux only)"
    );
}
