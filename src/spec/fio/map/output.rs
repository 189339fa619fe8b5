//! What a job measures and reports: latency (`gtod_reduce`, `disable_lat`...), its log files
//! (`write_*_log`, `log_avg_msec`), percentiles, `unified_rw_reporting`, and its options as
//! written.

use crate::error::Result;
use crate::spec::fio::options::Set;
use crate::spec::fio::plan::{Logs, FIO_PERCENTILES};
use crate::spec::fio::{FioJob, COMMAND_LINE};

/// Whether each I/O is timed: fio always times them unless gtod_reduce, or both disable_lat
/// and disable_clat, say not.
pub(super) fn read_latency(set: &Set) -> Result<bool> {
    Ok(!(set.flag("gtod_reduce")?.unwrap_or(false)
        || set.flag("disable_lat")?.unwrap_or(false) && set.flag("disable_clat")?.unwrap_or(false)))
}

/// The logs the job asks for, and the interval of averaged ones (and of iogauge's time
/// series). A per-I/O log needs each I/O timed: `latency` is then set.
pub(super) fn read_logs(
    set: &Set,
    name: &str,
    clones: u32,
    latency: &mut bool,
    notes: &mut Vec<String>,
) -> Result<(Logs, u64)> {
    // A bare write_*_log takes the job's name as its prefix, as in fio. With log_avg_msec,
    // bw and iops are averaged from iogauge's time series, latencies per clone over its I/Os
    // as fio does; without it, a line per I/O.
    let prefix = |key: &str| {
        set.text(key).map(|v| {
            if v.is_empty() {
                name.to_string()
            } else {
                v.to_string()
            }
        })
    };
    let avg_ms = set.int("log_avg_msec")?;
    let hist_coarseness = set.int("log_hist_coarseness")?.unwrap_or(0);
    if hist_coarseness > 6 {
        return Err(set.err(
            "log_hist_coarseness",
            format!("{hist_coarseness}: fio takes 0 to 6"),
        ));
    }
    let logs = Logs {
        bw: prefix("write_bw_log"),
        lat: prefix("write_lat_log"),
        iops: prefix("write_iops_log"),
        hist: prefix("write_hist_log"),
        hist_msec: set.int("log_hist_msec")?.unwrap_or(0),
        hist_coarseness: hist_coarseness as u32,
        per_io: avg_ms.is_none(),
        offset: set.flag("log_offset")?.unwrap_or(false),
        prio: set.flag("log_prio")?.unwrap_or(false),
    };
    let asked = logs.bw.is_some() || logs.lat.is_some() || logs.iops.is_some();
    let interval_ns = match avg_ms {
        Some(ms) if ms < 10 => {
            return Err(set.err(
                "log_avg_msec",
                format!("{ms}: iogauge averages over 10 ms at least"),
            ))
        }
        Some(ms) => set.fits("log_avg_msec", ms.checked_mul(1_000_000))?,
        None => 1_000_000_000,
    };
    if (asked && logs.per_io || logs.hist.is_some()) && !*latency {
        // A line per I/O, or a histogram of them, needs each I/O timed, as in fio.
        notes.push(
            "per-I/O and histogram logs time every I/O: gtod_reduce/disable_lat do not apply"
                .into(),
        );
        *latency = true;
    }
    if (logs.bw.is_some() || logs.iops.is_some()) && !logs.per_io && clones > 1 {
        notes.push(format!("write_bw_log and write_iops_log with log_avg_msec: one file per job for all its {clones} clones together (fio writes one per clone)"));
    }
    Ok((logs, interval_ns))
}

/// clat_percentiles, lat_percentiles and the percentiles to report (none where both are off).
pub(super) fn read_percentiles(set: &Set) -> Result<(bool, bool, Vec<f64>)> {
    let clat_percentiles = set.flag("clat_percentiles")?.unwrap_or(true);
    let lat_percentiles = set.flag("lat_percentiles")?.unwrap_or(false);
    let percentiles = match set.text("percentile_list") {
        _ if !clat_percentiles && !lat_percentiles => Vec::new(),
        None => FIO_PERCENTILES.to_vec(),
        Some(list) => list
            .split(':')
            .map(|p| {
                p.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|p| (0.0..=100.0).contains(p))
                    .ok_or_else(|| {
                        set.err(
                            "percentile_list",
                            format!("'{p}' is not a percentile 0..100"),
                        )
                    })
            })
            .collect::<Result<_>>()?,
    };
    Ok((clat_percentiles, lat_percentiles, percentiles))
}

/// fio's unified_rw_reporting: reads and writes reported together.
pub(super) fn read_unified(set: &Set) -> bool {
    matches!(
        set.text("unified_rw_reporting"),
        Some("1" | "mixed" | "both" | "")
    )
}

/// The job's own options as written (fio's "job options"), not those it inherits. fio lists
/// a command-line job's --name among them (a section's name is its header, not an option).
pub(super) fn own_options(fj: &FioJob) -> Vec<(String, String)> {
    let name = (fj.at.file == COMMAND_LINE).then(|| ("name".to_string(), fj.name.clone()));
    name.into_iter()
        .chain(crate::spec::fio::plan::as_written(
            &fj.options[fj.inherited..],
        ))
        .collect()
}
