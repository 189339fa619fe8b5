//! Linux only: the tests are in tests/linux/accuracy.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/accuracy.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/accuracy.rs: the delay engine's accuracy, judged with getrusage and \
         Linux's steal time (Linux only)"
    );
}
