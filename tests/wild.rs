//! Linux only: the tests are in tests/linux/wild.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/wild.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/wild.rs: fio and DiskSpd inputs from other projects, parsed beside fio \
         (Linux only)"
    );
}
