//! Linux only: the tests are in tests/linux/fio_consumers.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/fio_consumers.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/fio_consumers.rs: fio's own tools (fio2gnuplot, bench-fio, cdm) in process \
         groups (Linux only)"
    );
}
