//! Linux only: the tests are in tests/linux/fio.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/fio.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/fio.rs: iogauge fio beside the real fio, strace and fio's Python tools \
         (Linux only)"
    );
}
