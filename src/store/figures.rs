//! `Figures`: the headline numbers of one pass, the ones compared, checked against baselines
//! and listed. Kept per pass in the store's `passes` table.

use crate::result::RunResult;
pub use crate::units::{format_count, format_ns};
use serde::Serialize;

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Figures {
    pub iops: f64,
    pub read_iops: f64,
    pub write_iops: f64,
    /// Bytes per second.
    pub bps: f64,
    pub read_bps: f64,
    pub write_bps: f64,
    /// Completion latency of all I/O; none in IOPS mode.
    pub lat_mean_ns: Option<f64>,
    pub lat_p50_ns: Option<u64>,
    pub lat_p99_ns: Option<u64>,
    pub lat_p999_ns: Option<u64>,
}

/// One of the figures, for tables and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Iops,
    ReadIops,
    WriteIops,
    Bps,
    ReadBps,
    WriteBps,
    LatMean,
    LatP50,
    LatP99,
    LatP999,
}

impl Metric {
    pub const ALL: [Metric; 10] = [
        Metric::Iops,
        Metric::ReadIops,
        Metric::WriteIops,
        Metric::Bps,
        Metric::ReadBps,
        Metric::WriteBps,
        Metric::LatMean,
        Metric::LatP50,
        Metric::LatP99,
        Metric::LatP999,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::ReadIops => "read IOPS",
            Metric::WriteIops => "write IOPS",
            Metric::Bps => "MB/s",
            Metric::ReadBps => "read MB/s",
            Metric::WriteBps => "write MB/s",
            Metric::LatMean => "latency mean",
            Metric::LatP50 => "latency p50",
            Metric::LatP99 => "latency p99",
            Metric::LatP999 => "latency p99.9",
        }
    }

    /// Latencies: lower is better.
    pub fn lower_is_better(self) -> bool {
        matches!(
            self,
            Metric::LatMean | Metric::LatP50 | Metric::LatP99 | Metric::LatP999
        )
    }

    /// The figure; `None` where the run did not measure it (latency in IOPS mode) or it is
    /// not this workload's (write IOPS of a read-only run).
    pub fn of(self, f: &Figures) -> Option<f64> {
        let nz = |v: f64| (v > 0.0).then_some(v);
        match self {
            Metric::Iops => Some(f.iops),
            Metric::ReadIops => nz(f.read_iops).filter(|_| f.write_iops > 0.0),
            Metric::WriteIops => nz(f.write_iops).filter(|_| f.read_iops > 0.0),
            Metric::Bps => Some(f.bps),
            Metric::ReadBps => nz(f.read_bps).filter(|_| f.write_bps > 0.0),
            Metric::WriteBps => nz(f.write_bps).filter(|_| f.read_bps > 0.0),
            Metric::LatMean => f.lat_mean_ns,
            Metric::LatP50 => f.lat_p50_ns.map(|v| v as f64),
            Metric::LatP99 => f.lat_p99_ns.map(|v| v as f64),
            Metric::LatP999 => f.lat_p999_ns.map(|v| v as f64),
        }
    }

    /// The figure for people: "12.3K", "845.2", "101 us".
    pub fn format(self, v: f64) -> String {
        match self {
            Metric::Iops | Metric::ReadIops | Metric::WriteIops => format_count(v),
            Metric::Bps | Metric::ReadBps | Metric::WriteBps => format!("{:.1}", v / 1e6),
            _ => format_ns(v),
        }
    }
}

impl Figures {
    pub fn of(r: &RunResult) -> Figures {
        let lat = r.total.all.latency.as_ref();
        Figures {
            iops: r.total.all.iops,
            read_iops: r.total.read.iops,
            write_iops: r.total.write.iops,
            bps: r.total.all.bytes_per_sec,
            read_bps: r.total.read.bytes_per_sec,
            write_bps: r.total.write.bytes_per_sec,
            lat_mean_ns: lat.map(|l| l.mean_ns),
            lat_p50_ns: lat.and_then(|l| l.at(50.0)),
            lat_p99_ns: lat.and_then(|l| l.at(99.0)),
            lat_p999_ns: lat.and_then(|l| l.at(99.9)),
        }
    }
}
