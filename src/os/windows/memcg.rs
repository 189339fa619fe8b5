//! Windows has no memory cgroups; its hard cap on the file cache (SetSystemFileCacheSize) is
//! not yet ported, so `--memory-limit` is refused there with a line that says so.

use crate::os::memcg::CgroupVersion;
use std::path::Path;

/// Never made on Windows: [`MemoryCgroup::enter`] refuses.
pub struct MemoryCgroup {
    never: std::convert::Infallible,
}

impl MemoryCgroup {
    pub fn enter(_bytes: u64) -> Result<MemoryCgroup, String> {
        Err("a memory limit (--memory-limit) is a Linux memory cgroup; on Windows it is not yet ported".into())
    }

    pub fn version(&self) -> CgroupVersion {
        match self.never {}
    }

    pub fn limit(&self) -> u64 {
        match self.never {}
    }

    pub fn path(&self) -> &Path {
        match self.never {}
    }

    pub fn peak(&self) -> Option<u64> {
        match self.never {}
    }

    pub fn leave(self) -> Result<(), String> {
        match self.never {}
    }
}
