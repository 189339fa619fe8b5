//! Linux only: the tests are in tests/linux/fs.rs, which says what they check. Elsewhere
//! this file says SKIPPED.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
#[path = "linux/fs.rs"]
mod linux;

fn main() {
    #[cfg(target_os = "linux")]
    linux::main();
    #[cfg(not(target_os = "linux"))]
    println!(
        "SKIPPED: tests/fs.rs: iogauge fs on loop-mounted ext4, xfs and btrfs, tmpfs and ramfs \
         (Linux only)"
    );
}
