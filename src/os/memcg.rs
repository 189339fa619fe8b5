//! A memory limit on this process's page cache (`--memory-limit`): a memory cgroup on Linux
//! (the port's `MemoryCgroup`); Windows' hard cache cap is not yet ported, and its port says so.

pub use super::sys::memcg::MemoryCgroup;

/// The smallest limit accepted. iogauge's own memory (threads' stacks, buffers, histograms)
/// is charged to the cgroup too, and an OOM kill would leave the cgroup behind.
pub const MIN_LIMIT: u64 = 16 << 20;

/// Which cgroup interface the memory controller was found on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CgroupVersion {
    V1,
    V2,
}
