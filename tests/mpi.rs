//! Linux only: the tests are in tests/linux/mpi.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/mpi.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/mpi.rs: iogauge under OpenMPI's mpirun, stopped by SIGINT (Linux only)"
    );
}
