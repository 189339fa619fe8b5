//! What the system did while a run measured: the signals "what limited this run" is judged
//! from (`result::limit`). The port's `Sampler` reads a few files at the start of the
//! measured window, every [`PERIOD_NS`] while it runs and at its end, on the control thread,
//! never on a worker: the disks' counters under the targets, pressure stall information, the
//! workers' CPU and run-queue wait, the machine's CPU, the cgroup's limits on the target's
//! device and memory, dirty pages against the dirty limits, a FUSE daemon's CPU. On Linux all
//! of them; on Windows the disks' counters (IOCTL_DISK_PERFORMANCE), the machine's CPU, this
//! process's and its workers' (what `not_read` does not say otherwise); on other systems
//! not yet (the sampler gives nothing and the verdict says so).

use serde::{Deserialize, Serialize};

pub use super::sys::vitals::Sampler;

/// How often the sampler reads while the window runs: often enough for a mean over a run of
/// a few seconds, rare enough to cost nothing that can be measured (a sample is some 20
/// small reads of /proc and /sys, tens of microseconds, on the control thread).
pub const PERIOD_NS: u64 = 250_000_000;

/// The signals of one measured window, all as shares of it or per-I/O means.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Signals {
    pub window_ns: u64,
    /// Times the sampler read, the window's two ends included.
    pub samples: u32,
    /// Time the sampling itself took, on the control thread, all samples together.
    pub cost_ns: u64,
    /// The disks under the targets (none for tmpfs, FUSE, the null engine).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<DiskSignal>,
    /// The whole machine's pressure stall information (/proc/pressure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pressure: Option<Pressure>,
    /// The same for the run's own cgroup (cgroup v2 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_pressure: Option<Pressure>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<WorkerCpu>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineCpu>,
    /// The run's cgroup: its limits on the targets' devices and its memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<CgroupLimits>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<Dirty>,
    /// The busiest process serving a FUSE target (holding /dev/fuse).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuse_daemon: Option<Daemon>,
    /// What the sampler could not read that the verdict would have used, one line each (a
    /// target's disk whose counters the system refused, a network share with no disk here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_read: Vec<String>,
}

/// One disk over the window (/sys/block/NAME/stat and its queue's limits; Windows:
/// IOCTL_DISK_PERFORMANCE).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskSignal {
    pub name: String,
    /// Major:minor, as cgroup limits name the device (Windows: the device's path).
    pub dev: String,
    pub ios: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Time with at least one I/O in flight (fio's util).
    pub busy_pct: f64,
    /// I/Os in flight at the device, on average (the weighted time over the window: the
    /// queue at the device by Little's law).
    pub in_flight: f64,
    /// Time from an I/O's start at the device to its end, on average (ms spent / I/Os).
    pub service_ms: f64,
    /// The same in the first and the last sample period: a service time that grew.
    pub service_first_ms: f64,
    pub service_last_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nr_requests: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<String>,
}

/// Shares of the window some (and all) tasks were stalled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Pressure {
    pub io_some_pct: f64,
    pub io_full_pct: f64,
    pub cpu_some_pct: f64,
    pub memory_some_pct: f64,
    pub memory_full_pct: f64,
}

/// The worker threads' time on and waiting for a CPU (/proc/self/task/*/schedstat; Windows:
/// GetThreadTimes, which counts no wait for a CPU).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkerCpu {
    pub threads: u32,
    /// The CPUs this process may run on.
    pub allowed_cpus: u32,
    /// The busiest worker's time on a CPU, as a share of the window.
    pub busiest_run_pct: f64,
    pub mean_run_pct: f64,
    /// Time runnable but waiting for a CPU (the run queue), mean over the workers; None where
    /// the system does not count it (Windows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_wait_pct: Option<f64>,
}

/// All CPUs of the machine (/proc/stat; Windows: GetSystemTimes, GetProcessTimes) and this
/// process's part of them. Windows tells a guest no steal time: 0 there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineCpu {
    pub cpus: u32,
    /// Busy (not idle, not waiting for I/O, not stolen), all CPUs together.
    pub busy_pct: f64,
    /// Time the hypervisor gave to others.
    pub steal_pct: f64,
    /// CPUs' worth this process used: its threads and the kernel's work for them (io_uring's
    /// workers included).
    pub process_cpus: f64,
}

/// Limits the run's cgroup (and those above it) sets on the targets' devices, and its memory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CgroupLimits {
    pub path: String,
    /// "v1" or "v2".
    pub version: String,
    /// Per device (major:minor), the tightest limits found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub io: Vec<IoLimit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IoLimit {
    pub dev: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bps: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_bps: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_iops: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_iops: Option<u64>,
}

/// Dirty pages and pages under writeback, against the kernel's limits (/proc/vmstat).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Dirty {
    pub mean_bytes: u64,
    pub max_bytes: u64,
    /// Writers are paused above this (nr_dirty_threshold)...
    pub limit_bytes: u64,
    /// ...and throttled from half way between it and the background threshold.
    pub background_bytes: u64,
    /// Share of the workers' samples that found them paused by the kernel for the dirty
    /// limit (their wait channel balance_dirty_pages).
    #[serde(default)]
    pub writers_paused_pct: f64,
}

impl Dirty {
    /// Where balance_dirty_pages starts to slow writers down.
    pub fn throttle_from(&self) -> u64 {
        (self.limit_bytes + self.background_bytes) / 2
    }
}

/// A process serving the target (a FUSE daemon) and its CPU over the window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Daemon {
    pub pid: u32,
    pub name: String,
    /// CPUs' worth it used (1.0: one CPU all the time).
    pub cpus: f64,
    pub threads: u32,
}

/// Percent of `part` in `whole`, 0 for an empty whole.
pub fn pct(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}
