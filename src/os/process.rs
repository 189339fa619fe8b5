//! Processes and ownership as the system tells them: whether a process still lives (a killed
//! run's leftovers are removed only once their process is gone), and whether a file is this
//! user's, and what this process used (CPU time, peak memory).

#[cfg(any(target_os = "linux", windows))]
pub use super::sys::process::is_program;
pub use super::sys::process::{alive, is_mine, thread_cpu_ns, usage};

/// What this process has used so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    /// The most memory it has held at once (resident set; Windows: peak working set).
    pub peak_rss_bytes: u64,
    pub user_ns: u64,
    pub system_ns: u64,
}
