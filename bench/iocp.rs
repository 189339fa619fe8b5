//! The completion port engine against the least a completion port loop can do, on the same
//! file, alternating: iogauge's `--engine iocp` may not add cost of its own (goal: its IOPS at
//! least 0.9x the loop's).
//!
//!   cargo bench --target x86_64-pc-windows-gnu --bench iocp       (on Windows)
//!   CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=scripts/wine-run.sh \
//!       cargo bench --target x86_64-pc-windows-gnu --bench iocp   (under Wine)
//!
//! The loop: one thread, one port, 32 overlapped 4 KiB random reads kept in flight, reaped in
//! batches with GetQueuedCompletionStatusEx and issued again at once; no clock per I/O, as
//! iogauge's IOPS mode. Env: ROUNDS (default 5), SECS per run (default 3). Prints each pair
//! and the median of the ratios. Under Wine the figures are Wine's (its overlapped I/O runs in
//! the calling thread): the ratio says whether the engine adds cost, not what Windows does.

#[cfg(windows)]
#[path = "iocp_loop.rs"]
mod iocp_loop;

fn main() {
    #[cfg(windows)]
    iocp_loop::main();
    #[cfg(not(windows))]
    println!("SKIPPED: bench/iocp.rs measures the completion port engine on Windows or Wine");
}
