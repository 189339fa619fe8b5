//! fio's options as iogauge knows them: the table of every option with how iogauge treats
//! it, and the reading of one job's values in fio's syntax (bools, sizes with kb_base, times,
//! per-direction values).
//!
//! Every option falls in one of four kinds (the [`OPTIONS`] table): *mapped* onto the
//! JobSpec (by `map`); *accepted* with a note where iogauge's behaviour differs or the
//! option has no effect here; *planned*, refused until iogauge supports it; or anything else,
//! refused as not supported. Nothing is dropped silently: `--ignore-unsupported` turns the
//! refusals into one warning per option.

use super::{parse_size, parse_time_ns, FioOption};
use crate::error::{Error, Result};
use std::collections::HashMap;

// The plan is named through this module by its users (`options::plan`, `options::FioRun`).
pub use super::map::Clones;
pub use super::plan::{Exit, ExitWhat, FioPlan, FioRun, Logs, MapOptions, FIO_PERCENTILES};
pub use super::planner::plan;

/// How iogauge treats one fio option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Read into the job description.
    Mapped,
    /// Accepted; the text says how iogauge's behaviour differs, or that it has no effect.
    Noted(&'static str),
    /// Refused for now: iogauge plans to support it. The text says what is missing.
    Planned(&'static str),
}

/// fio's option names (and aliases) that iogauge knows. Anything not here is refused as not
/// supported and not planned.
pub const OPTIONS: &[(&str, &[&str], Kind)] = &[
    ("name", &[], Kind::Mapped),
    ("filename", &[], Kind::Mapped),
    ("directory", &[], Kind::Mapped),
    ("filename_format", &[], Kind::Mapped),
    ("size", &[], Kind::Mapped),
    ("filesize", &[], Kind::Mapped),
    ("nrfiles", &["nr_files"], Kind::Mapped),
    ("offset", &["fileoffset"], Kind::Mapped),
    ("bs", &["blocksize"], Kind::Mapped),
    ("blockalign", &["ba"], Kind::Mapped),
    ("rw", &["readwrite"], Kind::Mapped),
    ("rwmixread", &[], Kind::Mapped),
    ("rwmixwrite", &[], Kind::Mapped),
    ("percentage_random", &[], Kind::Mapped),
    ("iodepth", &[], Kind::Mapped),
    ("iodepth_batch_submit", &["iodepth_batch"], Kind::Mapped),
    ("numjobs", &[], Kind::Mapped),
    ("ioengine", &[], Kind::Mapped),
    ("direct", &[], Kind::Mapped),
    ("buffered", &[], Kind::Mapped),
    ("sync", &[], Kind::Mapped),
    ("runtime", &["timeout"], Kind::Mapped),
    ("time_based", &[], Kind::Mapped),
    ("ramp_time", &[], Kind::Mapped),
    ("loops", &[], Kind::Mapped),
    ("number_ios", &[], Kind::Mapped),
    ("io_size", &["io_limit"], Kind::Mapped),
    ("stonewall", &["wait_for_previous"], Kind::Mapped),
    ("new_group", &[], Kind::Mapped),
    ("group_reporting", &[], Kind::Mapped),
    ("rate", &[], Kind::Mapped),
    ("rate_iops", &[], Kind::Mapped),
    ("random_distribution", &[], Kind::Mapped),
    ("randrepeat", &[], Kind::Mapped),
    ("allrandrepeat", &[], Kind::Mapped),
    ("randseed", &[], Kind::Mapped),
    ("allow_file_create", &[], Kind::Mapped),
    ("lat_percentiles", &[], Kind::Mapped),
    ("clat_percentiles", &[], Kind::Mapped),
    ("percentile_list", &[], Kind::Mapped),
    ("unified_rw_reporting", &[], Kind::Mapped),
    ("cpus_allowed", &[], Kind::Mapped),
    ("cgroup", &[], Kind::Mapped),
    ("cgroup_weight", &[], Kind::Mapped),
    ("cgroup_nodelete", &[], Kind::Mapped),
    ("cpus_allowed_policy", &[], Kind::Mapped),
    ("numa_cpu_nodes", &[], Kind::Mapped),
    ("numa_mem_policy", &[], Kind::Mapped),
    ("kb_base", &[], Kind::Mapped),
    ("gtod_reduce", &[], Kind::Mapped),
    ("disable_lat", &[], Kind::Mapped),
    ("disable_clat", &[], Kind::Mapped),
    ("continue_on_error", &[], Kind::Mapped),
    ("fill_device", &["fill_fs"], Kind::Mapped),
    ("ignore_error", &[], Kind::Mapped),
    (
        "error_dump",
        &[],
        Kind::Noted("iogauge counts every error by errno and keeps its first offsets"),
    ),
    ("hipri", &[], Kind::Mapped),
    ("prio", &[], Kind::Mapped),
    ("prioclass", &[], Kind::Mapped),
    ("cmdprio_percentage", &[], Kind::Mapped),
    ("cmdprio_class", &[], Kind::Mapped),
    ("cmdprio", &[], Kind::Mapped),
    ("cmdprio_bssplit", &[], Kind::Mapped),
    ("log_prio", &[], Kind::Mapped),
    ("sqthread_poll", &[], Kind::Mapped),
    ("invalidate", &[], Kind::Mapped),
    ("write_bw_log", &[], Kind::Mapped),
    ("write_lat_log", &[], Kind::Mapped),
    ("write_iops_log", &[], Kind::Mapped),
    ("log_avg_msec", &[], Kind::Mapped),
    ("log_offset", &[], Kind::Mapped),
    ("write_hist_log", &[], Kind::Mapped),
    ("log_hist_msec", &[], Kind::Mapped),
    ("log_hist_coarseness", &[], Kind::Mapped),
    ("offset_increment", &[], Kind::Mapped),
    ("zonemode", &[], Kind::Mapped),
    ("max_open_zones", &[], Kind::Mapped),
    ("job_max_open_zones", &[], Kind::Mapped),
    ("read_beyond_wp", &[], Kind::Mapped),
    (
        "ignore_zone_limits",
        &[],
        Kind::Noted("no effect: iogauge's zones are emulated, with no device limits to ignore"),
    ),
    ("zone_reset_threshold", &[], Kind::Mapped),
    ("zone_reset_frequency", &[], Kind::Mapped),
    ("zonesize", &[], Kind::Mapped),
    ("zonerange", &[], Kind::Mapped),
    ("zoneskip", &[], Kind::Mapped),
    ("zonecapacity", &[], Kind::Mapped),
    ("rate_min", &["ratemin"], Kind::Mapped),
    ("rate_iops_min", &[], Kind::Mapped),
    ("ratecycle", &[], Kind::Mapped),
    ("latency_target", &[], Kind::Mapped),
    ("latency_window", &[], Kind::Mapped),
    ("latency_percentile", &[], Kind::Mapped),
    ("latency_run", &[], Kind::Mapped),
    ("bsrange", &["blocksize_range"], Kind::Mapped),
    ("bssplit", &[], Kind::Mapped),
    ("fsync", &[], Kind::Mapped),
    ("fdatasync", &[], Kind::Mapped),
    ("end_fsync", &[], Kind::Mapped),
    ("fsync_on_close", &[], Kind::Mapped),
    ("thinktime", &[], Kind::Mapped),
    ("thinktime_blocks", &[], Kind::Mapped),
    ("thinktime_spin", &[], Kind::Mapped),
    ("refill_buffers", &[], Kind::Mapped),
    ("buffer_compress_percentage", &[], Kind::Mapped),
    ("zero_buffers", &[], Kind::Mapped),
    (
        "buffer_compress_chunk",
        &[],
        Kind::Noted("iogauge makes every 512 bytes compressible by the same share"),
    ),
    ("startdelay", &[], Kind::Mapped),
    ("create_only", &[], Kind::Mapped),
    ("iodepth_batch_complete_min", &["iodepth_batch_complete"], Kind::Mapped),
    (
        "iodepth_batch_complete_max",
        &[],
        Kind::Noted("iogauge reaps every completion that is ready at each wait"),
    ),
    (
        "iodepth_low",
        &[],
        Kind::Noted("iogauge refills the queue as each I/O completes"),
    ),
    (
        "fixedbufs",
        &[],
        Kind::Noted("iogauge registers buffers with io_uring wherever the kernel allows"),
    ),
    (
        "registerfiles",
        &[],
        Kind::Noted("iogauge registers files with io_uring wherever the kernel allows, and not where openfiles is below nrfiles"),
    ),
    (
        "thread",
        &[],
        Kind::Noted("iogauge's workers are always threads"),
    ),
    // Not fio's `thread`: an option of fio's tiobench profile, which fio accepts in every job
    // and which does nothing outside `profile=tiobench` (fio 3.33, profiles/tiobench.c).
    (
        "threads",
        &[],
        Kind::Noted("threads= is an option of fio's tiobench profile: it does nothing outside profile=tiobench, in fio as here (numjobs sets the clones)"),
    ),
    ("io_submit_mode", &[], Kind::Mapped),
    ("rate_process", &[], Kind::Mapped),
    (
        "random_generator",
        &[],
        Kind::Noted("iogauge draws offsets from its own generator (xoshiro), seeded by randseed"),
    ),
    (
        "norandommap",
        &[],
        Kind::Noted("iogauge draws random offsets independently (as fio does with norandommap), whether or not it is set"),
    ),
    (
        "unlink",
        &[],
        Kind::Noted("iogauge removes the files it created after the run unless --keep is given"),
    ),
    (
        "fallocate",
        &[],
        Kind::Noted("iogauge writes files it creates in full, with incompressible data"),
    ),
    (
        "overwrite",
        &[],
        Kind::Noted("iogauge writes files it creates in full before the job starts"),
    ),
    (
        "scramble_buffers",
        &[],
        Kind::Noted("iogauge's write buffers are random data already"),
    ),
    ("disable_slat", &[], Kind::Noted("no effect on what iogauge measures")),
    (
        "disable_bw_measurement",
        &["disable_bw"],
        Kind::Noted("no effect on what iogauge measures"),
    ),
    ("clocksource", &[], Kind::Noted("iogauge times with its calibrated TSC or CLOCK_MONOTONIC")),
    ("description", &[], Kind::Mapped),
    ("unit_base", &[], Kind::Noted("iogauge reports bytes and bits as fio's JSON does")),
    ("per_job_logs", &[], Kind::Noted("iogauge writes per-I/O logs per clone and averaged logs per job, whatever it says")),
    ("openfiles", &[], Kind::Mapped),
    ("stat_type", &[], Kind::Mapped),
    ("stats", &[], Kind::Noted("iogauge always keeps statistics")),
    ("create_serialize", &[], Kind::Noted("iogauge creates files one after another")),
    ("create_on_open", &[], Kind::Noted("iogauge lays files out before the job starts; ioengine=filecreate creates them while it runs, as fio does with create_on_open")),
    ("allow_mounted_write", &[], Kind::Noted("iogauge's own rule applies: block devices and files it did not create are written only with --allow-overwrite")),
    ("verify", &[], Kind::Mapped),
    ("do_verify", &[], Kind::Mapped),
    ("verify_pattern", &[], Kind::Mapped),
    ("verify_interval", &[], Kind::Mapped),
    ("verify_fatal", &[], Kind::Mapped),
    ("verify_backlog", &[], Kind::Mapped),
    ("verify_async", &[], Kind::Mapped),
    ("verify_only", &[], Kind::Mapped),
    ("verify_dump", &[], Kind::Mapped),
    ("verify_offset", &[], Kind::Mapped),
    ("verify_state_save", &[], Kind::Mapped),
    ("verify_state_load", &[], Kind::Mapped),
    ("verify_backlog_batch", &[], Kind::Mapped),
    ("verify_header_seed", &[], Kind::Mapped),
    ("verify_write_sequence", &[], Kind::Mapped),
    ("experimental_verify", &[], Kind::Mapped),
    ("dedupe_percentage", &[], Kind::Mapped),
    ("buffer_pattern", &[], Kind::Mapped),
    ("dedupe_mode", &[], Kind::Mapped),
    ("dedupe_working_set_percentage", &[], Kind::Mapped),
    ("dedupe_global", &[], Kind::Mapped),
    ("steadystate", &["ss"], Kind::Mapped),
    ("steadystate_duration", &["ss_dur"], Kind::Mapped),
    ("steadystate_ramp_time", &["ss_ramp"], Kind::Mapped),
    ("steadystate_check_interval", &["ss_interval"], Kind::Mapped),
    ("flow", &[], Kind::Mapped),
    ("flow_id", &[], Kind::Mapped),
    ("flow_sleep", &[], Kind::Mapped),
    ("exitall", &[], Kind::Mapped),
    ("exitall_on_error", &[], Kind::Mapped),
    ("exit_what", &[], Kind::Mapped),
    ("wait_for", &[], Kind::Mapped),
    ("file_service_type", &[], Kind::Mapped),
    ("offset_align", &[], Kind::Mapped),
    ("bs_unaligned", &["blocksize_unaligned"], Kind::Mapped),
    (
        "fadvise_hint",
        &[],
        Kind::Noted("iogauge gives the kernel no access-pattern hints (posix_fadvise), as fadvise_hint=0 does (fio advises by default: sequential or random by rw=)"),
    ),
];

/// fio's options that take no value on its command line: those its table types
/// FIO_OPT_STR_SET ("empty or boolean value" in `fio --cmdhelp`), io_uring's and libaio's
/// flags, and aliases. fio hands every other option to getopt_long as taking one, so
/// `--bs 4k` is `--bs=4k` and `--time_based 4k` is not (fio 3.33, each checked by running it).
pub const BARE_FLAGS: &[&str] = &[
    "time_based",
    "stonewall",
    "wait_for_previous",
    "new_group",
    "group_reporting",
    "thread",
    "exitall",
    "exitall_on_error",
    "norandommap",
    "refill_buffers",
    "zero_buffers",
    "bs_unaligned",
    "verify_only",
    "hipri",
    "sqthread_poll",
    "fixedbufs",
    "registerfiles",
    "userspace_reap",
];

/// Whether `--key`, written without `=` on fio's command line, takes the next argument as its
/// value: every option but fio's bare flags, `name` included, as fio's getopt_long table has it.
pub fn takes_value(key: &str) -> bool {
    !BARE_FLAGS.contains(&key)
}

/// The canonical name and kind of a fio option, if iogauge knows it.
pub fn lookup(key: &str) -> Option<(&'static str, Kind)> {
    OPTIONS
        .iter()
        .find(|(name, aliases, _)| *name == key || aliases.contains(&key))
        .map(|&(name, _, kind)| (name, kind))
}

/// The last value of each option a job set, by canonical name.
pub(super) struct Set<'a> {
    pub(super) values: HashMap<&'static str, &'a FioOption>,
    pub(super) kb_base: u64,
    /// The job trims (rw=trim, randtrim, trimwrite, randtrimwrite): of an `R,W,T` value, the
    /// trims' part takes the place of the writes' (iogauge sizes and paces trims as writes).
    pub(super) trims: bool,
}

/// Of an `R,W,T` value split at its commas, the part for direction `d` (0 reads, 1 writes,
/// 2 trims), as fio reads it: a value not followed by a comma applies to the directions after
/// it too (`8k,32k` is 32k for writes and trims; `8k,32k,` leaves trims the default, "").
pub(super) fn dir_part<'v>(parts: &[&'v str], d: usize) -> &'v str {
    match parts.get(d) {
        Some(p) => p,
        None => parts.last().copied().unwrap_or(""),
    }
}

impl<'a> Set<'a> {
    pub(super) fn get(&self, key: &str) -> Option<&'a FioOption> {
        self.values.get(key).copied()
    }
    pub(super) fn text(&self, key: &str) -> Option<&'a str> {
        self.get(key).map(|o| o.value.as_deref().unwrap_or(""))
    }
    pub(super) fn err(&self, key: &str, msg: impl std::fmt::Display) -> Error {
        match self.get(key) {
            // Named as the user spelled it (ss_dur, not steadystate_duration).
            Some(o) => Error::usage(format!("{}: {}: {msg}", o.at, o.key)),
            None => Error::usage(format!("{key}: {msg}")),
        }
    }
    /// `v`, or an error naming `key` and its value: what it adds up to does not fit in 64 bits.
    pub(super) fn fits(&self, key: &str, v: Option<u64>) -> Result<u64> {
        v.ok_or_else(|| {
            let value = self.text(key).unwrap_or_default();
            self.err(key, format!("'{value}' makes a size or time out of range"))
        })
    }
    /// fio's bool: a bare flag, 1 or 0 (and true/false, yes/no, on/off).
    pub(super) fn flag(&self, key: &str) -> Result<Option<bool>> {
        let Some(o) = self.get(key) else {
            return Ok(None);
        };
        match o.value.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("1") | Some("true") | Some("yes") | Some("on") => Ok(Some(true)),
            Some("0") | Some("false") | Some("no") | Some("off") => Ok(Some(false)),
            Some(v) => Err(self.err(key, format!("'{v}' is not 0 or 1"))),
        }
    }
    pub(super) fn size(&self, key: &str) -> Result<Option<u64>> {
        self.text(key)
            .map(|v| {
                if v.ends_with('%') {
                    return Err(self.err(
                        key,
                        format!("'{v}': sizes in percent are not supported yet (planned)"),
                    ));
                }
                parse_size(v, self.kb_base).map_err(|e| self.err(key, e))
            })
            .transpose()
    }
    pub(super) fn int(&self, key: &str) -> Result<Option<u64>> {
        self.text(key)
            .map(|v| parse_size(v, 1000).map_err(|e| self.err(key, e)))
            .transpose()
    }
    pub(super) fn seconds(&self, key: &str) -> Result<Option<u64>> {
        self.text(key)
            .map(|v| parse_time_ns(v, 1_000_000_000).map_err(|e| self.err(key, e)))
            .transpose()
    }
    /// A value for reads and one for writes, as fio reads rate-like options: `X` is both,
    /// `R,W` each (an empty part: `None`). A third part is fio's value for trims, which
    /// reads and writes leave alone. `bytes`: sizes with fio's suffixes, else whole numbers of I/Os per
    /// second.
    pub(super) fn per_dir(&self, key: &str, bytes: bool) -> Result<[Option<u64>; 2]> {
        let Some(v) = self.text(key) else {
            return Ok([None, None]);
        };
        let parts: Vec<&str> = v.split(',').map(str::trim).collect();
        if parts.len() > 3 {
            return Err(self.err(key, format!("'{v}': more than three values (R,W,T)")));
        }
        let one = |t: &str| -> Result<Option<u64>> {
            match t {
                "" => Ok(None),
                t if bytes => parse_size(t, self.kb_base)
                    .map(Some)
                    .map_err(|e| self.err(key, e)),
                t => t.parse().map(Some).map_err(|_| {
                    self.err(
                        key,
                        format!("'{t}' is not a whole number of I/Os per second"),
                    )
                }),
            }
        };
        let w = if self.trims { 2 } else { 1 };
        Ok([one(dir_part(&parts, 0))?, one(dir_part(&parts, w))?])
    }
    /// One value for reads and writes: `4k`, or `4k,4k` where both agree. fio's `R,W[,T]`
    /// with different values needs per-direction settings iogauge does not have.
    pub(super) fn one_size(&self, key: &str, reads: bool, writes: bool) -> Result<Option<u64>> {
        let Some(v) = self.text(key) else {
            return Ok(None);
        };
        let parts: Vec<&str> = v.split(',').map(str::trim).collect();
        let mut values = Vec::new();
        for (i, p) in parts.iter().enumerate().take(2) {
            let used = if i == 0 { reads } else { writes };
            if !p.is_empty() && used {
                values.push(parse_size(p, self.kb_base).map_err(|e| self.err(key, e))?);
            }
        }
        // "4k" alone applies to both directions.
        if parts.len() == 1 {
            return Ok(Some(
                parse_size(parts[0], self.kb_base).map_err(|e| self.err(key, e))?,
            ));
        }
        values.dedup();
        match values.len() {
            0 => Ok(None),
            1 => Ok(Some(values[0])),
            _ => Err(self.err(
                key,
                format!(
                    "'{v}': different values for reads and writes are not supported yet (planned)"
                ),
            )),
        }
    }
}

/// The fio option a user sets for `flag`, for messages in fio's words; `None` where fio has no
/// such option (the setting is then named as iogauge's own).
pub fn flag_name(flag: crate::spec::flag::Flag) -> Option<&'static str> {
    use crate::spec::flag::Flag::*;
    Some(match flag {
        Threads => "numjobs",
        QueueDepth => "iodepth",
        SubmitBatch => "iodepth_batch_submit",
        CompleteBatch => "iodepth_batch_complete_min",
        BlockSize => "bs",
        BlockSizes => "bssplit",
        Random => "blockalign",
        RandomPct => "percentage_random",
        RandomEvery | Sequential | Backwards | Trim => "rw",
        Fill => "fill_device",
        Distribution => "random_distribution",
        WritePct => "rwmixwrite",
        Duration => "runtime",
        // A run by bytes, a file's size and the end of the working set all come from size=.
        Total | Create | MaxOffset => "size",
        Warmup => "ramp_time",
        Interval => "log_avg_msec",
        UntilFlat => "steadystate",
        FlatWindow => "ss_dur",
        FlatCheck => "ss_interval",
        BaseOffset => "offset",
        ThreadOffset => "offset_increment",
        Cache => "direct",
        Engine => "ioengine",
        Affinity => "cpus_allowed",
        Zones => "zonesize",
        Zbd => "zonemode",
        MaxOpenZones => "max_open_zones",
        ReadBeyondWp => "read_beyond_wp",
        ZoneReset => "zone_reset_frequency",
        NumaNodes => "numa_cpu_nodes",
        NumaMem => "numa_mem_policy",
        Sqpoll => "sqthread_poll",
        Hipri => "hipri",
        IoPrio => "prioclass",
        CmdPrio => "cmdprio_percentage",
        RateIops => "rate_iops",
        RateBw => "rate",
        RatePoisson => "rate_process",
        RateMin => "rate_min",
        RateMinIops => "rate_iops_min",
        RateMinWindow => "ratecycle",
        LatencyTarget => "latency_target",
        LatencyWindow => "latency_window",
        LatencyPct => "latency_percentile",
        Fsync => "fsync",
        Fdatasync => "fdatasync",
        EndFsync => "end_fsync",
        Think => "thinktime",
        ThinkEvery => "thinktime_blocks",
        ThinkSpin => "thinktime_spin",
        Compressible => "buffer_compress_percentage",
        RefillBuffers => "refill_buffers",
        Dedupe => "dedupe_percentage",
        DedupeMode => "dedupe_mode",
        DedupeWorkingSet => "dedupe_working_set_percentage",
        DedupeGlobal => "dedupe_global",
        FileSet => "nrfiles",
        FileService => "file_service_type",
        OpenFiles => "openfiles",
        Verify => "verify",
        VerifyInterval => "verify_interval",
        VerifyBacklog => "verify_backlog",
        VerifyState => "verify_state_save",
        VerifyLoad => "verify_state_load",
        VerifyDump => "verify_dump",
        Interlocked | Cooldown | UntilSteady | ThreadStart | Latency | Delay | DelayStep
        | AllowOverwrite | Stonewall | WearOut | SharedFile | RankShift | VerifyFresh => {
            return None
        }
    })
}

/// The options that ask for cache mode `mode`.
pub fn cache_words(mode: crate::spec::CacheMode) -> &'static str {
    use crate::spec::CacheMode::*;
    match mode {
        Buffered => "direct=0",
        Direct => "direct=1",
        WriteThrough => "sync=1",
        DirectWriteThrough => "direct=1 with sync=1",
    }
}
