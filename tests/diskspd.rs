//! Linux only: the tests are in tests/linux/diskspd.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/diskspd.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/diskspd.rs: iogauge diskspd on block devices (root), its XML read by \
         python3 consumers (Linux only)"
    );
}
