//! Linux only: the tests are in tests/linux/hpc.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/hpc.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/hpc.rs: iogauge ior, mdtest and io500, alone and under mpirun (Linux only)"
    );
}
