//! An IOR command line's result (`iogauge ior`): one row per timed phase of each repetition,
//! made from the phase's run (every rank's, made one on rank 0), with the figures IOR prints
//! for it. IOR counts a phase's bandwidth as every rank's bytes over the time from the first
//! rank's start to the last rank's end: the aggregate's measured window.

use super::RunResult;
use serde::{Deserialize, Serialize};

/// What IOR's summary says about the test, besides its rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IorParams {
    pub api: String,
    pub test_file: String,
    pub block: u64,
    pub transfer: u64,
    pub segments: u64,
    pub tasks: u32,
    pub nodes: u32,
    pub tasks_per_node: u32,
    pub repetitions: u32,
    pub file_per_proc: bool,
    pub reorder: bool,
    pub task_offset: u32,
    pub random: bool,
    pub deadline_s: u64,
    pub wear_out: bool,
}

/// One phase of one repetition, as IOR's table shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IorRow {
    /// "write" or "read".
    pub access: String,
    pub iteration: u32,
    /// Every rank's bytes (IOR's aggFileSizeForBW).
    pub bytes: u64,
    pub transfers: u64,
    /// From the first rank's start to the last rank's end.
    pub time_ns: u64,
    /// IOR's latency: each rank's time over its transfers, the least of the ranks'.
    pub latency_ns: f64,
    /// With -D: the seconds until every rank had stopped at the deadline, and the bytes by
    /// then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stonewall: Option<(u64, u64)>,
    /// With -W: the units read back and checked after the write, and how many were wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<(u64, u64)>,
}

impl IorRow {
    pub fn from_run(access: &str, iteration: u32, r: &RunResult) -> IorRow {
        let all = &r.total.all;
        let per_rank = |ns: u64, ios: u64| ns as f64 / ios.max(1) as f64;
        let latency_ns = match &r.cluster {
            Some(c) => c
                .rank_rows
                .iter()
                .map(|row| per_rank(row.measured_ns, row.total.all.ios))
                .fold(f64::INFINITY, f64::min),
            None => per_rank(r.measured_ns, all.ios),
        };
        IorRow {
            access: access.to_string(),
            iteration,
            bytes: all.bytes,
            transfers: all.ios,
            time_ns: r.measured_ns,
            latency_ns,
            stonewall: r
                .stonewall
                .as_ref()
                .map(|s| (s.stopped_ns, s.bytes_at_deadline)),
            // The read-back pass's own counts, besides any read during the run.
            checked: r.verify.as_ref().map(|v| {
                let (c, m) = v
                    .pass
                    .as_ref()
                    .map_or((0, 0), |p| (p.checked, p.mismatches));
                (v.checked + c, v.mismatch_count + m)
            }),
        }
    }

    pub fn seconds(&self) -> f64 {
        self.time_ns as f64 / 1e9
    }

    /// Bytes per second, as IOR's bw.
    pub fn bandwidth(&self) -> f64 {
        match self.time_ns {
            0 => 0.0,
            ns => self.bytes as f64 * 1e9 / ns as f64,
        }
    }

    /// Transfers per second: IOR's every rank's bytes over -t, over the access time.
    pub fn iops(&self, transfer: u64) -> f64 {
        match self.time_ns {
            0 => 0.0,
            ns => (self.bytes / transfer.max(1)) as f64 * 1e9 / ns as f64,
        }
    }
}

/// The whole command's result, on rank 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IorResult {
    pub command_line: Vec<String>,
    pub began_unix_s: u64,
    pub finished_unix_s: u64,
    pub host: String,
    pub params: IorParams,
    pub rows: Vec<IorRow>,
    pub notes: Vec<String>,
}

impl IorResult {
    /// Whether a -W check found data other than what was written.
    pub fn wrong_data(&self) -> bool {
        self.rows.iter().any(|r| r.checked.is_some_and(|c| c.1 > 0))
    }

    /// The rows of one access, in repetition order.
    pub fn of(&self, access: &str) -> Vec<&IorRow> {
        self.rows.iter().filter(|r| r.access == access).collect()
    }
}
