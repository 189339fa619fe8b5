//! A job's threads in a named blkio cgroup (fio's `cgroup`, `cgroup_weight`,
//! `cgroup_nodelete`): what the job asks, checked here; the port finds the hierarchy, makes
//! the cgroup where it is missing and moves each worker thread in (Linux: cgroup v1's blkio
//! hierarchy; Windows has no cgroups, and says so).
//!
//! It must never remove a cgroup it did not make, and a weight it sets on a cgroup that was
//! there before is put back at the end.

use serde::{Deserialize, Serialize};

pub use super::sys::cgroup::Joined;

/// fio's bounds on cgroup_weight (blkio.weight's own).
pub const WEIGHTS: std::ops::RangeInclusive<u32> = 100..=1000;

/// The cgroup a job's threads run in, as the job names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CgroupAsk {
    /// Below the blkio hierarchy's root, as fio places it (`a/b` nests).
    pub name: String,
    /// blkio's proportional weight, 100..=1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<u32>,
    /// Keep a cgroup made for the run (fio's cgroup_nodelete).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep: bool,
}

impl CgroupAsk {
    /// A name that stays below the hierarchy's root, and a weight blkio takes.
    pub fn check(&self) -> Result<(), String> {
        let bad_part = |p: &str| p.is_empty() || p == "." || p == "..";
        if self.name.starts_with('/') || self.name.split('/').any(bad_part) {
            return Err(format!(
                "'{}' is not a cgroup name below the blkio hierarchy's root (no leading '/', no '..')",
                self.name
            ));
        }
        match self.weight {
            Some(w) if !WEIGHTS.contains(&w) => Err(format!(
                "weight {w} is not {} to {}",
                WEIGHTS.start(),
                WEIGHTS.end()
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_below_the_root_and_weights_in_range() {
        let ask = |name: &str, weight| CgroupAsk {
            name: name.into(),
            weight,
            keep: false,
        };
        assert!(ask("fio", None).check().is_ok());
        assert!(ask("a/b", Some(500)).check().is_ok());
        for name in ["", "/fio", "../x", "a//b", "a/.."] {
            assert!(ask(name, None).check().is_err(), "{name}");
        }
        assert!(ask("fio", Some(99))
            .check()
            .unwrap_err()
            .contains("100 to 1000"));
        assert!(ask("fio", Some(1001)).check().is_err());
    }
}
