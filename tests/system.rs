//! Linux only: the tests are in tests/linux/system.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/system.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/system.rs: loop devices, tmpfs and ramfs mounts, device-mapper and cgroups \
         (Linux only)"
    );
}
