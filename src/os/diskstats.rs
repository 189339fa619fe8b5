//! The disks' own counters over a run, in fio's disk_util shape (ios, merges, ticks, time
//! busy): the port watches the disks under the targets (`Watch`: /sys/block on Linux; on
//! Windows not yet, so a run there has no disk_util, as fio's runs on Windows have none).

use serde::Serialize;

pub use super::sys::diskstats::Watch;

/// One entry of fio's disk_util, its fields named as fio 3.33 names them (aggr_write_merge
/// included). The aggr_ fields only for a device built on others (dm, md): their mean, and
/// the busiest one's util.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DiskUtil {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    pub util: f64,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub aggr: Option<Aggr>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Aggr {
    pub aggr_read_ios: u64,
    pub aggr_write_ios: u64,
    pub aggr_read_merges: u64,
    pub aggr_write_merge: u64,
    pub aggr_read_ticks: u64,
    pub aggr_write_ticks: u64,
    pub aggr_in_queue: u64,
    pub aggr_util: f64,
}
