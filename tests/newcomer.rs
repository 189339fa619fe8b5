//! Linux only: the tests are in tests/linux/newcomer.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/newcomer.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/newcomer.rs: iogauge quick and explain, progress under tmux, SIGINT (Linux \
         only)"
    );
}
