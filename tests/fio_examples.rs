//! Linux only: the tests are in tests/linux/fio_examples.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/fio_examples.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/fio_examples.rs: fio's example job files beside the real fio, in process \
         groups (Linux only)"
    );
}
