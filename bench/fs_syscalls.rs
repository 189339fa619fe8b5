//! Linux only: the benchmark is in bench/linux/fs_syscalls.rs, which says what it measures.
//! Elsewhere this file says SKIPPED.

#[cfg(target_os = "linux")]
#[path = "linux/fs_syscalls.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: bench/fs_syscalls.rs: a bare loop of openat, fstatat and unlinkat beside \
         iogauge fs (Linux only)"
    );
}
