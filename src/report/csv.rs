//! The CSV report: the time series, one row per interval, base units; a profile's passes in
//! one table, and the file-system suite's repetitions (`super::fs::csv`).

use super::Exporter;
use crate::result::fs::FsResult;
use crate::result::profile::ProfileResult;
use crate::result::RunResult;
use std::fmt::Write;

pub struct Csv;

/// The trims' columns, after the writes', only where the run trims (a run that does not
/// keeps the header it always had).
const TRIM_COLUMNS: &str =
    ",trim_ios,trim_bytes,trim_iops,trim_bytes_per_sec,trim_latency_mean_ns,trim_latency_p99_ns";

pub const HEADER: &str = "start_ns,duration_ns,read_ios,read_bytes,read_iops,read_bytes_per_sec,read_latency_mean_ns,read_latency_p99_ns,write_ios,write_bytes,write_iops,write_bytes_per_sec,write_latency_mean_ns,write_latency_p99_ns";

impl Exporter for Csv {
    fn render(&self, r: &RunResult) -> String {
        let mut out = String::from(HEADER);
        if r.total.trim.is_some() {
            out.push_str(TRIM_COLUMNS);
        }
        out.push('\n');
        for s in &r.time_series.samples {
            let secs = s.duration_ns as f64 / 1e9;
            // A rate over no time would print NaN or inf: none is written as 0.
            let rate = |v: u64| if secs > 0.0 { v as f64 / secs } else { 0.0 };
            let _ = write!(out, "{},{}", s.start_ns, s.duration_ns);
            for d in [&s.read, &s.write].into_iter().chain(s.trim.as_ref()) {
                // Latency cells are empty in IOPS mode.
                let cell = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
                let _ = write!(
                    out,
                    ",{},{},{:.1},{:.1},{},{}",
                    d.ios,
                    d.bytes,
                    rate(d.ios),
                    rate(d.bytes),
                    cell(d.latency_mean_ns),
                    cell(d.latency_p99_ns)
                );
            }
            out.push('\n');
        }
        out
    }
}

impl Exporter<ProfileResult> for Csv {
    fn render(&self, p: &ProfileResult) -> String {
        profile(p)
    }
}

impl Exporter<FsResult> for Csv {
    fn render(&self, r: &FsResult) -> String {
        super::fs::csv(r)
    }
}

/// A profile's passes in one table: the pass number in front of each time-series row.
pub fn profile(p: &ProfileResult) -> String {
    let mut o = format!("pass,{HEADER}\n");
    for (i, pass) in p.passes.iter().enumerate() {
        let body = Csv.render(&pass.result);
        for line in body.lines().skip(1) {
            let _ = writeln!(o, "{},{line}", i + 1);
        }
    }
    o
}
