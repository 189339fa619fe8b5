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
    // Counted only where a listing shows it as a link: Wine makes one that its own listing
    // does not show, so the walkers could not meet it; it is removed again there.
    let listed = at
        .parent()
        .and_then(|p| std::fs::read_dir(p).ok())
        .is_some_and(|mut d| {
            d.any(|e| {
                e.is_ok_and(|e| {
                    Some(e.file_name().as_os_str()) == at.file_name()
                        && e.file_type().is_ok_and(|t| t.is_symlink())
                })
            })
        });
    if made.is_ok() && !listed {
        let _ = std::fs::remove_file(at);
    }
    u64::from(made.is_ok() && listed)
}
