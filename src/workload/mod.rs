//! Real work, measured: copying a tree, archiving it (zip, tar.zst), extracting it, scanning
//! it, reading every file of it and deleting it, alone or as a script of steps, each timed
//! whole with its throughput sampled, its phases found, its CPU use and the cache state it
//! started from, and (where the system has them) the same work done by `cp`, `tar`, `zip`,
//! `find` and `rm` alternating with iogauge's.
//!
//! What it must never do: write into the source, or write over or remove anything it did not
//! make. Every output is made new inside the target (`copy`, `archive.zip`, `extract`...), and
//! removed through [`crate::os::owned`] (identity checked) unless kept.

pub mod archive;
pub mod copy;
pub mod delete;
pub mod extract;
pub mod made;
pub mod meter;
pub mod pool;
pub mod ranks;
pub mod read;
pub mod run;
pub mod script;
pub mod setup;
pub mod step;
pub mod tools;
pub mod tree;

// The result's types live with the other results; re-exported for the command line and the
// steps.
pub use crate::result::workload::{
    ArchiveFormat, Bound, CacheState, Compression, CopyMethod, CopyUse, CpuUse, Material, Params,
    Place, Rep, Step, StepKind, StepResult, StepSummary, ToolResult, Verified, Work,
    WorkloadResult, SCHEMA_NAME, SCHEMA_VERSION,
};

pub use crate::os::threads::default_threads;

/// A link at `at` to `target`, for the tests: 1 where the system let this user make it, 0
/// where not (Windows asks for a privilege or developer mode; Wine may give neither).
#[cfg(test)]
pub(crate) fn test_link(target: impl AsRef<std::path::Path>, at: &std::path::Path) -> u64 {
    #[cfg(unix)]
    let made = std::os::unix::fs::symlink(target, at);
    #[cfg(windows)]
    let made = std::os::windows::fs::symlink_file(target, at);
    u64::from(made.is_ok())
}
