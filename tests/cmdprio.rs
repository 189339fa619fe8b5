//! Linux only: the tests are in tests/linux/cmdprio.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/cmdprio.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/cmdprio.rs: I/O priorities on io_uring, beside the real fio (Linux only)"
    );
}
