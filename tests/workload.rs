//! Linux only: the tests are in tests/linux/workload.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/workload.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/workload.rs: the workloads on tmpfs and xfs images beside the system's own \
         tools (Linux only)"
    );
}
