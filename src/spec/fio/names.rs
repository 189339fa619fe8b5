//! fio's own option table, as fio 3.33 has it: every option name and alias (from options.c),
//! each engine's own options (from engines/*.c), and the program options of its command
//! line (init.c's l_opts, with their one-letter forms). These are names and types, facts
//! about fio, not iogauge's support (that is [`super::options::OPTIONS`]); they tell a
//! misspelt option from one fio has and iogauge does not, resolve the abbreviations and
//! single-dash forms fio's getopt_long_only takes, and find fio's "Did you mean" guess.

/// What an option's value is, as fio's table types it (FIO_OPT_*), kept only as far as
/// iogauge reads differently by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// FIO_OPT_INT and FIO_OPT_ULL: a number, with fio's size suffixes.
    Int,
    /// FIO_OPT_STR_VAL, _STR_VAL_ZONE, _STR_ULL: a size.
    Size,
    /// FIO_OPT_STR_VAL_TIME: a time.
    Time,
    Bool,
    /// FIO_OPT_STR_SET: a bare flag.
    Flag,
    /// FIO_OPT_STR and _STR_MULTI: one of a set of words.
    Word,
    /// FIO_OPT_STR_STORE: free text (a path, a name).
    Text,
    Range,
    Floats,
    /// FIO_OPT_DEPRECATED: fio refuses it ("Option X is deprecated", then fails).
    Gone,
    /// FIO_OPT_SOFT_DEPRECATED: fio says it is deprecated and runs without it.
    Deprecated,
}

impl Type {
    /// A number, where fio reads the leading digits and a suffix (see `number::leading`).
    pub fn is_number(self) -> bool {
        matches!(self, Type::Int | Type::Size | Type::Time)
    }
}

/// fio 3.33's job options and aliases, by name.
pub const GENERAL: Table = &[
    ("allow_file_create", Type::Bool),
    ("allow_mounted_write", Type::Bool),
    ("allrandrepeat", Type::Bool),
    ("atomic", Type::Bool),
    ("ba", Type::Int),
    ("block_error_percentiles", Type::Bool),
    ("blockalign", Type::Int),
    ("blocksize", Type::Int),
    ("blocksize_range", Type::Range),
    ("blocksize_unaligned", Type::Flag),
    ("bs", Type::Int),
    ("bs_is_seq_rand", Type::Bool),
    ("bs_unaligned", Type::Flag),
    ("bsrange", Type::Range),
    ("bssplit", Type::Size),
    ("buffer_compress_chunk", Type::Int),
    ("buffer_compress_percentage", Type::Int),
    ("buffer_pattern", Type::Word),
    ("buffered", Type::Bool),
    ("bwavgtime", Type::Int),
    ("cgroup", Type::Text),
    ("cgroup_nodelete", Type::Bool),
    ("cgroup_weight", Type::Int),
    ("clat_percentiles", Type::Bool),
    ("clocksource", Type::Word),
    ("continue_on_error", Type::Word),
    ("cpumask", Type::Int),
    ("cpus_allowed", Type::Word),
    ("cpus_allowed_policy", Type::Word),
    ("create_fsync", Type::Bool),
    ("create_on_open", Type::Bool),
    ("create_only", Type::Bool),
    ("create_serialize", Type::Bool),
    ("dedupe_global", Type::Bool),
    ("dedupe_mode", Type::Word),
    ("dedupe_percentage", Type::Int),
    ("dedupe_working_set_percentage", Type::Int),
    ("description", Type::Text),
    ("direct", Type::Bool),
    ("directory", Type::Text),
    ("disable_bw", Type::Bool),
    ("disable_bw_measurement", Type::Bool),
    ("disable_clat", Type::Bool),
    ("disable_lat", Type::Bool),
    ("disable_slat", Type::Bool),
    ("disk_util", Type::Bool),
    ("do_verify", Type::Bool),
    ("end_fsync", Type::Bool),
    ("error_dump", Type::Bool),
    ("exec_postrun", Type::Text),
    ("exec_prerun", Type::Text),
    ("exit_what", Type::Word),
    ("exitall", Type::Flag),
    ("exitall_on_error", Type::Flag),
    ("experimental_verify", Type::Bool),
    ("fadvise_hint", Type::Word),
    ("fallocate", Type::Word),
    ("fdatasync", Type::Int),
    ("file_append", Type::Bool),
    ("file_service_type", Type::Word),
    ("filename", Type::Text),
    ("filename_format", Type::Text),
    ("fileoffset", Type::Size),
    ("filesize", Type::Size),
    ("fill_device", Type::Bool),
    ("fill_fs", Type::Bool),
    ("flow", Type::Int),
    ("flow_id", Type::Int),
    ("flow_sleep", Type::Int),
    ("flow_watermark", Type::Deprecated),
    ("fsync", Type::Int),
    ("fsync_on_close", Type::Bool),
    ("gid", Type::Int),
    ("gpu_dev_id", Type::Int),
    ("group_reporting", Type::Flag),
    ("gtod_cpu", Type::Int),
    ("gtod_reduce", Type::Bool),
    ("hugepage-size", Type::Int),
    ("ignore_error", Type::Word),
    ("ignore_zone_limits", Type::Bool),
    ("invalidate", Type::Bool),
    ("io_limit", Type::Size),
    ("io_size", Type::Size),
    ("io_submit_mode", Type::Word),
    ("iodepth", Type::Int),
    ("iodepth_batch", Type::Int),
    ("iodepth_batch_complete", Type::Int),
    ("iodepth_batch_complete_max", Type::Int),
    ("iodepth_batch_complete_min", Type::Int),
    ("iodepth_batch_submit", Type::Int),
    ("iodepth_low", Type::Int),
    ("ioengine", Type::Text),
    ("iomem", Type::Word),
    ("iomem_align", Type::Int),
    ("iopsavgtime", Type::Int),
    ("ioscheduler", Type::Text),
    ("job_max_open_zones", Type::Int),
    ("kb_base", Type::Word),
    ("lat_percentiles", Type::Bool),
    ("latency_percentile", Type::Floats),
    ("latency_run", Type::Bool),
    ("latency_target", Type::Time),
    ("latency_window", Type::Time),
    ("lockfile", Type::Word),
    ("lockmem", Type::Size),
    ("log_alternate_epoch", Type::Bool),
    ("log_alternate_epoch_clock_id", Type::Int),
    ("log_avg_msec", Type::Int),
    ("log_compression", Type::Int),
    ("log_compression_cpus", Type::Word),
    ("log_entries", Type::Int),
    ("log_hist_coarseness", Type::Int),
    ("log_hist_msec", Type::Int),
    ("log_max_value", Type::Bool),
    ("log_offset", Type::Bool),
    ("log_prio", Type::Bool),
    ("log_store_compressed", Type::Bool),
    ("log_unix_epoch", Type::Bool),
    ("loops", Type::Int),
    ("max_latency", Type::Int),
    ("max_open_zones", Type::Int),
    ("mem", Type::Word),
    ("mem_align", Type::Int),
    ("merge_blktrace_file", Type::Text),
    ("merge_blktrace_iters", Type::Floats),
    ("merge_blktrace_scalars", Type::Floats),
    ("name", Type::Text),
    ("new_group", Type::Flag),
    ("nice", Type::Int),
    ("norandommap", Type::Flag),
    ("nr_files", Type::Int),
    ("nrfiles", Type::Int),
    ("numa_cpu_nodes", Type::Word),
    ("numa_mem_policy", Type::Word),
    ("number_ios", Type::Size),
    ("numjobs", Type::Int),
    ("offset", Type::Size),
    ("offset_align", Type::Int),
    ("offset_increment", Type::Size),
    ("opendir", Type::Text),
    ("openfiles", Type::Int),
    ("overwrite", Type::Bool),
    ("per_job_logs", Type::Bool),
    ("percentage_random", Type::Int),
    ("percentage_sequential", Type::Gone),
    ("percentile_list", Type::Floats),
    ("pre_read", Type::Bool),
    ("prio", Type::Int),
    ("prioclass", Type::Int),
    ("profile", Type::Text),
    ("ramp_time", Type::Time),
    ("random_distribution", Type::Word),
    ("random_generator", Type::Word),
    ("randrepeat", Type::Bool),
    ("randseed", Type::Size),
    ("rate", Type::Int),
    ("rate_cycle", Type::Int),
    ("rate_ignore_thinktime", Type::Bool),
    ("rate_iops", Type::Int),
    ("rate_iops_min", Type::Int),
    ("rate_min", Type::Int),
    ("rate_process", Type::Word),
    ("ratecycle", Type::Int),
    ("ratemin", Type::Int),
    ("read_beyond_wp", Type::Bool),
    ("read_iolog", Type::Text),
    ("read_iolog_chunked", Type::Bool),
    ("readwrite", Type::Word),
    ("refill_buffers", Type::Flag),
    ("replay_align", Type::Int),
    ("replay_no_stall", Type::Bool),
    ("replay_redirect", Type::Text),
    ("replay_scale", Type::Int),
    ("replay_skip", Type::Word),
    ("replay_time_scale", Type::Int),
    ("runtime", Type::Time),
    ("rw", Type::Word),
    ("rw_sequencer", Type::Word),
    ("rwmixcycle", Type::Gone),
    ("rwmixread", Type::Int),
    ("rwmixwrite", Type::Int),
    ("scramble_buffers", Type::Bool),
    ("serialize_overlap", Type::Bool),
    ("significant_figures", Type::Int),
    ("size", Type::Size),
    ("slat_percentiles", Type::Bool),
    ("softrandommap", Type::Bool),
    ("ss", Type::Word),
    ("ss_dur", Type::Time),
    ("ss_ramp", Type::Time),
    ("startdelay", Type::Time),
    ("stats", Type::Bool),
    ("steadystate", Type::Word),
    ("steadystate_duration", Type::Time),
    ("steadystate_ramp_time", Type::Time),
    ("stonewall", Type::Flag),
    ("sync", Type::Word),
    ("sync_file_range", Type::Word),
    ("thinktime", Type::Int),
    ("thinktime_blocks", Type::Int),
    ("thinktime_blocks_type", Type::Word),
    ("thinktime_iotime", Type::Int),
    ("thinktime_spin", Type::Int),
    ("thread", Type::Flag),
    ("time_based", Type::Flag),
    ("timeout", Type::Time),
    ("trim_backlog", Type::Size),
    ("trim_backlog_batch", Type::Int),
    ("trim_percentage", Type::Int),
    ("trim_verify_zero", Type::Bool),
    ("uid", Type::Int),
    ("unified_rw_reporting", Type::Word),
    ("unique_filename", Type::Bool),
    ("unit_base", Type::Word),
    ("unlink", Type::Bool),
    ("unlink_each_loop", Type::Bool),
    ("verify", Type::Word),
    ("verify_async", Type::Int),
    ("verify_async_cpus", Type::Word),
    ("verify_backlog", Type::Size),
    ("verify_backlog_batch", Type::Int),
    ("verify_dump", Type::Bool),
    ("verify_fatal", Type::Bool),
    ("verify_interval", Type::Int),
    ("verify_offset", Type::Int),
    ("verify_only", Type::Flag),
    ("verify_pattern", Type::Word),
    ("verify_state_load", Type::Bool),
    ("verify_state_save", Type::Bool),
    ("verifysort", Type::Deprecated),
    ("verifysort_nr", Type::Deprecated),
    ("wait_for", Type::Text),
    ("wait_for_previous", Type::Flag),
    ("write_barrier", Type::Int),
    ("write_bw_log", Type::Word),
    ("write_hint", Type::Word),
    ("write_hist_log", Type::Word),
    ("write_iolog", Type::Text),
    ("write_iops_log", Type::Word),
    ("write_lat_log", Type::Word),
    ("zero_buffers", Type::Flag),
    ("zone_reset_frequency", Type::Floats),
    ("zone_reset_threshold", Type::Floats),
    ("zonecapacity", Type::Size),
    ("zonemode", Type::Word),
    ("zonerange", Type::Size),
    ("zonesize", Type::Size),
    ("zoneskip", Type::Size),
];

/// Each engine file's options: the engines that take them, and the options.
/// Options and their types, by name.
pub type Table = &'static [(&'static str, Type)];

pub const BY_ENGINE: &[(&[&str], Table)] = &[
    (
        &["cpuio"],
        &[
            ("cpuload", Type::Int),
            ("cpumode", Type::Word),
            ("cpuchunks", Type::Int),
            ("exit_on_io_done", Type::Bool),
        ],
    ),
    (
        &["dfs"],
        &[
            ("pool", Type::Text),
            ("cont", Type::Text),
            ("chunk_size", Type::Int),
            ("object_class", Type::Text),
            ("svcl", Type::Text),
        ],
    ),
    (
        &["e4defrag"],
        &[("donorname", Type::Text), ("inplace", Type::Int)],
    ),
    (
        &["exec"],
        &[
            ("program", Type::Text),
            ("arguments", Type::Text),
            ("grace_time", Type::Int),
            ("std_redirect", Type::Bool),
        ],
    ),
    (
        &["filecreate", "filestat", "filedelete"],
        &[("stat_type", Type::Word)],
    ),
    (
        &["gfapi", "gfapi_async"],
        &[
            ("volume", Type::Text),
            ("brick", Type::Text),
            ("single-instance", Type::Bool),
        ],
    ),
    (
        &["http"],
        &[
            ("https", Type::Word),
            ("http_host", Type::Text),
            ("http_user", Type::Text),
            ("http_pass", Type::Text),
            ("http_s3_key", Type::Text),
            ("http_s3_keyid", Type::Text),
            ("http_swift_auth_token", Type::Text),
            ("http_s3_region", Type::Text),
            ("http_s3_sse_customer_key", Type::Text),
            ("http_s3_sse_customer_algorithm", Type::Text),
            ("http_s3_storage_class", Type::Text),
            ("http_mode", Type::Word),
            ("http_verbose", Type::Int),
        ],
    ),
    (
        &["io_uring", "io_uring_cmd"],
        &[
            ("hipri", Type::Flag),
            ("cmdprio_percentage", Type::Int),
            ("cmdprio_class", Type::Int),
            ("cmdprio", Type::Int),
            ("cmdprio_bssplit", Type::Text),
            ("fixedbufs", Type::Flag),
            ("registerfiles", Type::Flag),
            ("sqthread_poll", Type::Flag),
            ("sqthread_poll_cpu", Type::Int),
            ("nonvectored", Type::Int),
            ("uncached", Type::Int),
            ("nowait", Type::Bool),
            ("force_async", Type::Int),
            ("cmd_type", Type::Word),
        ],
    ),
    (
        &["libaio"],
        &[
            ("userspace_reap", Type::Flag),
            ("cmdprio_percentage", Type::Int),
            ("cmdprio_class", Type::Int),
            ("cmdprio", Type::Int),
            ("cmdprio_bssplit", Type::Text),
            ("nowait", Type::Bool),
        ],
    ),
    (
        &["libcufile"],
        &[("gpu_dev_ids", Type::Text), ("cuda_io", Type::Word)],
    ),
    (
        &["libhdfs"],
        &[
            ("namenode", Type::Text),
            ("hostname", Type::Text),
            ("port", Type::Int),
            ("hdfsdirectory", Type::Text),
            ("chunk_size", Type::Int),
            ("chunck_size", Type::Int),
            ("single_instance", Type::Bool),
            ("hdfs_use_direct", Type::Bool),
        ],
    ),
    (&["libiscsi"], &[("initiator", Type::Text)]),
    (
        &[
            "librpma_apm_client",
            "librpma_apm_server",
            "librpma_gpspm_client",
            "librpma_gpspm_server",
        ],
        &[
            ("serverip", Type::Text),
            ("port", Type::Text),
            ("direct_write_to_pmem", Type::Bool),
            ("busy_wait_polling", Type::Bool),
        ],
    ),
    (&["mmap"], &[("thp", Type::Int)]),
    (&["mtd"], &[("skip_bad", Type::Bool)]),
    (&["nbd"], &[("uri", Type::Text)]),
    (
        &["net", "netsplice"],
        &[
            ("hostname", Type::Text),
            ("port", Type::Int),
            ("protocol", Type::Word),
            ("proto", Type::Word),
            ("nodelay", Type::Bool),
            ("listen", Type::Flag),
            ("pingpong", Type::Flag),
            ("interface", Type::Text),
            ("ttl", Type::Int),
            ("window_size", Type::Int),
            ("mss", Type::Int),
        ],
    ),
    (&["nfs"], &[("nfs_url", Type::Text)]),
    (
        &["rados"],
        &[
            ("clustername", Type::Text),
            ("pool", Type::Text),
            ("clientname", Type::Text),
            ("conf", Type::Text),
            ("busy_poll", Type::Bool),
            ("touch_objects", Type::Bool),
        ],
    ),
    (
        &["rbd"],
        &[
            ("clustername", Type::Text),
            ("rbdname", Type::Text),
            ("pool", Type::Text),
            ("clientname", Type::Text),
            ("busy_poll", Type::Bool),
        ],
    ),
    (
        &["rdma"],
        &[
            ("hostname", Type::Text),
            ("bindname", Type::Text),
            ("port", Type::Int),
            ("verb", Type::Word),
            ("proto", Type::Word),
        ],
    ),
    (
        &["sg"],
        &[
            ("hipri", Type::Flag),
            ("readfua", Type::Bool),
            ("writefua", Type::Bool),
            ("sg_write_mode", Type::Word),
            ("stream_id", Type::Int),
        ],
    ),
    (
        &["sync", "psync", "vsync", "pvsync", "pvsync2"],
        &[
            ("hipri", Type::Flag),
            ("hipri_percentage", Type::Int),
            ("uncached", Type::Int),
            ("nowait", Type::Bool),
        ],
    ),
    (&["windowsaio"], &[("no_completion_thread", Type::Flag)]),
    (
        &["xnvme"],
        &[
            ("hipri", Type::Flag),
            ("sqthread_poll", Type::Flag),
            ("xnvme_be", Type::Text),
            ("xnvme_async", Type::Text),
            ("xnvme_sync", Type::Text),
            ("xnvme_admin", Type::Text),
            ("xnvme_dev_nsid", Type::Int),
            ("xnvme_iovec", Type::Flag),
        ],
    ),
];

/// fio 3.33's engines (each `ioengine_ops`'s name in engines/*.c), on any system.
pub const ENGINES: &[&str] = &[
    "cpuio",
    "dev-dax",
    "dfs",
    "e4defrag",
    "exec",
    "falloc",
    "filecreate",
    "filestat",
    "filedelete",
    "ftruncate",
    "gfapi_async",
    "gfapi",
    "http",
    "ime_psync",
    "ime_psyncv",
    "ime_aio",
    "io_uring",
    "io_uring_cmd",
    "libaio",
    "libcufile",
    "libhdfs",
    "libiscsi",
    "libpmem",
    "librpma_apm_client",
    "librpma_apm_server",
    "librpma_gpspm_client",
    "librpma_gpspm_server",
    "libzbc",
    "mmap",
    "mtd",
    "nbd",
    "netsplice",
    "net",
    "nfs",
    "null",
    "pmemblk",
    "posixaio",
    "rados",
    "rbd",
    "rdma",
    "sg",
    "solarisaio",
    "splice",
    "sync",
    "psync",
    "vsync",
    "pvsync",
    "pvsync2",
    "windowsaio",
    "xnvme",
];

/// The engine fio loads for `ioengine=typed`: libaio for its old names (fio 3.33's
/// ioengines.c takes any name beginning "aio" or "linuxaio" as libaio).
pub fn engine_alias(typed: &str) -> &str {
    if typed.starts_with("aio") || typed.starts_with("linuxaio") {
        "libaio"
    } else {
        typed
    }
}

/// How one of fio's program options takes its value on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    None,
    Required,
    Optional,
}

/// fio 3.33's program options (init.c's l_opts): the long name, the one letter that is its
/// short form, and how it takes a value.
pub const PROGRAM: &[(&str, char, Arg)] = &[
    ("output", 'o', Arg::Required),
    ("latency-log", 'l', Arg::Required),
    ("bandwidth-log", 'b', Arg::None),
    ("minimal", 'm', Arg::None),
    ("output-format", 'F', Arg::Required),
    ("append-terse", 'f', Arg::Optional),
    ("version", 'v', Arg::None),
    ("help", 'h', Arg::None),
    ("cmdhelp", 'c', Arg::Optional),
    ("enghelp", 'i', Arg::Optional),
    ("showcmd", 's', Arg::None),
    ("readonly", 'r', Arg::None),
    ("eta", 'e', Arg::Required),
    ("eta-interval", 'O', Arg::Required),
    ("eta-newline", 'E', Arg::Required),
    ("debug", 'd', Arg::Required),
    ("parse-only", 'P', Arg::None),
    ("section", 'x', Arg::Required),
    ("inflate-log", 'X', Arg::Required),
    ("alloc-size", 'a', Arg::Required),
    ("profile", 'p', Arg::Required),
    ("warnings-fatal", 'w', Arg::None),
    ("max-jobs", 'j', Arg::Required),
    ("terse-version", 'V', Arg::Required),
    ("server", 'S', Arg::Optional),
    ("server-internal", 'N', Arg::Required),
    ("daemonize", 'D', Arg::Required),
    ("client", 'C', Arg::Required),
    ("remote-config", 'R', Arg::Required),
    ("cpuclock-test", 'T', Arg::None),
    ("crctest", 'G', Arg::Optional),
    ("memcpytest", 'M', Arg::Optional),
    ("idle-prof", 'I', Arg::Required),
    ("status-interval", 'L', Arg::Required),
    ("trigger-file", 'W', Arg::Required),
    ("trigger-timeout", 'B', Arg::Required),
    ("trigger", 'H', Arg::Required),
    ("trigger-remote", 'J', Arg::Required),
    ("aux-path", 'K', Arg::Required),
    ("merge-blktrace-only", 'A', Arg::None),
];

/// The type of fio's job option `name` (any engine's included), if fio has one so named.
pub fn job_option(name: &str) -> Option<Type> {
    GENERAL
        .iter()
        .chain(BY_ENGINE.iter().flat_map(|(_, opts)| opts.iter()))
        .find(|(n, _)| *n == name)
        .map(|&(_, t)| t)
}

/// The engines whose own option `name` is, if it is one (fio takes it only with them).
pub fn engines_of(name: &str) -> Vec<&'static str> {
    BY_ENGINE
        .iter()
        .filter(|(_, opts)| opts.iter().any(|(n, _)| *n == name))
        .flat_map(|(engines, _)| engines.iter().copied())
        .collect()
}

/// fio's guess at a misspelt job option: the nearest name of its general table (engines'
/// options are not searched, as fio does not), when the distance is at most half the typed
/// name's length, rounded up (parse.c's string_distance_ok).
pub fn closest(typed: &str) -> Option<&'static str> {
    let (best, d) = GENERAL
        .iter()
        .map(|(n, _)| (*n, distance(typed, n)))
        .min_by_key(|&(_, d)| d)?;
    (d <= typed.len().div_ceil(2)).then_some(best)
}

/// Levenshtein's distance between two names, in bytes.
fn distance(a: &str, b: &str) -> usize {
    let b = b.as_bytes();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.bytes().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = diag + usize::from(ca != cb);
            diag = row[j + 1];
            row[j + 1] = sub.min(row[j] + 1).min(diag + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_guesses_as_fio_does() {
        // fio 3.33: "--iodeptth=3" -> "Did you mean iodepth?"; "blocksze" -> blocksize.
        assert_eq!(closest("iodeptth"), Some("iodepth"));
        assert_eq!(closest("blocksze"), Some("blocksize"));
        assert_eq!(closest("zzzzzzzzzzzzzzzz"), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn the_table_knows_fios_types_and_engines() {
        assert_eq!(job_option("iodepth"), Some(Type::Int));
        assert_eq!(job_option("size"), Some(Type::Size));
        assert_eq!(job_option("runtime"), Some(Type::Time));
        assert_eq!(job_option("time_based"), Some(Type::Flag));
        assert_eq!(job_option("verifysort"), Some(Type::Deprecated));
        assert_eq!(job_option("pool"), Some(Type::Text));
        assert!(engines_of("pool").contains(&"rados"));
        assert!(engines_of("hipri").contains(&"pvsync2"));
        assert_eq!(job_option("nosuchoption"), None);
    }
}
