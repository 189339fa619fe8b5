//! Windows has no cgroups: a job that names one is refused in one line.

use crate::os::cgroup::CgroupAsk;

pub struct Joined;

impl Joined {
    pub fn prepare(_ask: &CgroupAsk) -> Result<(Joined, String), String> {
        Err("cgroups (fio's cgroup and cgroup_weight) are Linux's: Windows has none".into())
    }
    pub fn enter_thread(&self) -> Result<(), String> {
        Ok(())
    }
}
