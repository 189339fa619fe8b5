//! The plan of a fio run (made by [`super::planner`]): every job mapped onto a JobSpec, with fio's
//! groups and batches and what fio's reports need to know of each (clones, percentiles,
//! logs, the options as written).
//!
//! Where fio and iogauge differ by design, fio's meaning wins: its defaults (psync, iodepth 1,
//! 4k blocks, latency always measured), a job's clones each with their own file unless
//! `filename` names one, `size` as the region and the bytes each clone moves.

use super::map::Clones;
use super::{FioOption, Location, COMMAND_LINE};
use crate::spec::JobSpec;
use std::path::Path;

/// fio's default `percentile_list`.
pub const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// How the fio command should treat options iogauge does not support, and what it may touch.
pub struct MapOptions<'a> {
    /// Run without them, with a warning each, instead of refusing the job.
    pub ignore_unsupported: bool,
    pub allow_overwrite: bool,
    pub keep: bool,
    /// The size of an existing file or block device, for jobs that move "the whole file".
    pub size_of: &'a dyn Fn(&Path) -> Option<u64>,
    /// Whether a file or device is there: asked of the caller too, so that planning itself
    /// never looks at the disk.
    pub exists: &'a dyn Fn(&Path) -> bool,
    /// Bytes free in the file system that holds a folder (fill_device with no size=).
    pub free_space_of: &'a dyn Fn(&Path) -> Option<u64>,
}

/// One fio job, ready to run.
#[derive(Debug, Clone)]
pub struct FioRun {
    pub name: String,
    /// fio's `groupid`: a new group at each `stonewall` or `new_group`.
    pub group: u32,
    /// Jobs of one batch run together; a `stonewall` job starts a new batch, which waits for
    /// the one before to end.
    pub batch: u32,
    pub job: JobSpec,
    pub clones: u32,
    pub layout: Clones,
    pub group_reporting: bool,
    /// fio's `unified_rw_reporting`: reads and writes reported together as "mixed".
    pub unified: bool,
    /// Percentiles to report; empty when `clat_percentiles=0` and `lat_percentiles=0`.
    pub percentiles: Vec<f64>,
    /// Percentiles (and json+ bins) of completion latency: fio's `clat_percentiles`, on by
    /// default.
    pub clat_percentiles: bool,
    /// Percentiles (and json+ bins) of total latency: fio's `lat_percentiles`. fio 3.33
    /// reports both kinds where both are on.
    pub lat_percentiles: bool,
    /// fio's `invalidate`: drop the page cache of the job's files before it starts.
    pub invalidate: bool,
    /// The job's own options as written (fio's "job options").
    pub options: Vec<(String, String)>,
    /// fio's startdelay: the job starts this long after its group.
    pub start_delay_ns: u64,
    /// fio's create_only: lay the files out (and keep them), run no I/O.
    pub create_only: bool,
    /// What this job's end does to the others (fio's exitall and its kin).
    pub exit: Exit,
    /// fio's wait_for: the job (an index into the plan's runs, one before this) whose end
    /// this one waits for before it starts.
    pub wait_for: Option<usize>,
    /// fio's write_bw_log, write_lat_log and write_iops_log: the prefixes of the logs to write,
    /// one line per interval (log_avg_msec) and direction.
    pub logs: Logs,
    /// How iogauge runs this job differently from fio, one line each.
    pub notes: Vec<String>,
    /// fio's description=, which its terse lines end with.
    pub description: Option<String>,
    pub at: Location,
}

/// What a job's end does to the others. fio's `exitall` is the whole run's once any job sets it
/// (options.c sets one flag for all): then any job that ends ends the jobs `what` names, as
/// does one that fails with `exitall_on_error`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exit {
    pub all: bool,
    pub on_error: bool,
    pub what: ExitWhat,
}

/// Which jobs another's end ends (fio's exit_what).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExitWhat {
    /// The jobs of its group, running or yet to start.
    #[default]
    Group,
    /// Every job running now; the next batch starts as usual.
    Stonewall,
    /// Every job, and no later batch starts.
    All,
}

/// The logs a job asked for, each by its file name prefix.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Logs {
    pub bw: Option<String>,
    pub lat: Option<String>,
    pub iops: Option<String>,
    /// write_hist_log: fio's completion latency histograms, one file per clone.
    pub hist: Option<String>,
    /// log_hist_msec: a histogram line per direction every this many ms (0: none, the file
    /// stays empty as fio leaves it).
    pub hist_msec: u64,
    /// log_hist_coarseness: each line sums 2^this of fio's bins.
    pub hist_coarseness: u32,
    /// A line per I/O (no log_avg_msec), one file per clone, as fio writes them; else
    /// averages over the job's interval: bw and iops one file for the job, the latency logs
    /// one file per clone.
    pub per_io: bool,
    /// log_offset: each line says where its I/O was (0 in averaged lines, as fio).
    pub offset: bool,
    /// log_prio: the last column is the I/O's priority value (`0x%04x`) instead of 1 for a
    /// real-time one, else 0.
    pub prio: bool,
}

impl Logs {
    /// Whether the job asked for any log.
    pub fn any(&self) -> bool {
        self.bw.is_some() || self.lat.is_some() || self.iops.is_some() || self.hist.is_some()
    }

    /// Whether some log is made from each I/O as the run goes: every per-I/O log, the
    /// averaged latency logs, which fio averages per clone over the I/Os themselves, and the
    /// histogram logs.
    pub fn from_ios(&self) -> bool {
        self.per_io && self.any() || self.lat.is_some() || self.hist.is_some()
    }
}

/// Every job of a job file or command line, and the options ignored with
/// `--ignore-unsupported` (one warning each).
#[derive(Debug, Clone)]
pub struct FioPlan {
    pub runs: Vec<FioRun>,
    /// Options that apply to every job (fio's "global options").
    pub global_options: Vec<(String, String)>,
    pub warnings: Vec<String>,
}

/// Options as fio's JSON shows them ("job options", "global options"): those written with a
/// value; fio leaves out those without one (`time_based`, a bare `write_bw_log`). In the
/// order written, except that fio parses (and so lists) a job file section's options by
/// their priority in its option table: the few that others depend on first, `filename` and
/// `filename_format` last (they must come after `directory`).
pub(super) fn as_written(options: &[FioOption]) -> Vec<(String, String)> {
    let mut with_values: Vec<&FioOption> = options.iter().filter(|o| o.value.is_some()).collect();
    if options.iter().all(|o| o.at.file != COMMAND_LINE) {
        with_values.sort_by_key(|o| std::cmp::Reverse(fio_priority(&o.key)));
    }
    with_values
        .into_iter()
        .filter_map(|o| Some((o.key.clone(), o.value.clone()?)))
        .collect()
}

/// The `prio` of an option in fio 3.33's table (options.c); 0 for all others.
fn fio_priority(key: &str) -> i8 {
    match key {
        "lockfile" | "cpus_allowed_policy" | "kb_base" | "unit_base" => 1,
        "filename" | "filename_format" => -1,
        _ => 0,
    }
}
