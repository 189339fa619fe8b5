//! Linux only: the tests are in tests/linux/trim.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/trim.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/trim.rs: holes punched and discards beside the real fio, on loop devices \
         and tmpfs (Linux only)"
    );
}
