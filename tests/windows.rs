//! iogauge.exe end to end on Windows: each engine on real files, the quick profile shrunk,
//! the DiskSpd lines of the seeds shrunk (JSON and XML read back), the fio front end with
//! fio's Windows engine, the results store, exit codes, bad input, and every file iogauge
//! made removed.
//!
//! CI runs it under Wine on Linux (`scripts/wine-test.sh`): that checks iogauge's use of the
//! Win32 API and its results, not Windows' own semantics or speed. Wine accepts
//! FILE_FLAG_NO_BUFFERING and ignores it, completes overlapped I/O in the calling thread, has
//! no SMB, and reports a file's Unix ctime as its creation time. On Windows itself: `cargo test
//! --test windows`. Elsewhere this file says SKIPPED.

#[cfg(windows)]
#[path = "windows/checks.rs"]
mod win;

fn main() {
    #[cfg(windows)]
    win::main();
    #[cfg(not(windows))]
    println!(
        "SKIPPED: tests/windows.rs runs iogauge.exe on Windows or under Wine \
         (bash scripts/wine-test.sh; on Windows: cargo test --test windows)"
    );
}
