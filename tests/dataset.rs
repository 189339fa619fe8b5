//! Linux only: the tests are in tests/linux/dataset.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/dataset.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/dataset.rs: datasets on tmpfs and a loop-mounted xfs image, stopped by \
         SIGINT (Linux only)"
    );
}
