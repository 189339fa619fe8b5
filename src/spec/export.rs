//! A [`JobSpec`] written in other tools' syntax: a fio job section and a DiskSpd command line,
//! so that users can move a workload between tools (`iogauge explain`). What the other tool
//! cannot express is said, never dropped silently: as `;` comments in the fio section, and as
//! caveats beside the DiskSpd line.

use super::flat::{FlatLimit, FlatMetric, FlatRule};
use super::Flag;
use super::{BlockSizes, CacheMode, Distribution, EngineKind, FileService, JobSpec, Pattern, Stop};
use std::fmt::Write;

/// A size as both tools write it: `1G`, `64K`, or plain bytes.
pub fn tool_size(bytes: u64) -> String {
    for (unit, mult) in [("G", 1u64 << 30), ("M", 1 << 20), ("K", 1 << 10)] {
        if bytes >= mult && bytes.is_multiple_of(mult) {
            return format!("{}{unit}", bytes / mult);
        }
    }
    bytes.to_string()
}

fn secs(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if ns.is_multiple_of(1_000_000_000) {
        format!("{}", ns / 1_000_000_000)
    } else {
        format!("{s}")
    }
}

/// fio's `rw=` and its mix for a pattern and write share.
fn fio_rw(job: &JobSpec) -> (String, Option<String>) {
    let random = matches!(job.shape.pattern, Pattern::Random { .. });
    let base = match (job.shape.write_pct, random) {
        (0, true) => "randread",
        (100, true) => "randwrite",
        (_, true) => "randrw",
        (0, false) => "read",
        (100, false) => "write",
        (_, false) => "rw",
    };
    let mix = (job.shape.write_pct != 0 && job.shape.write_pct != 100)
        .then(|| format!("rwmixwrite={}", job.shape.write_pct));
    (base.to_string(), mix)
}

/// fio's block-size option for a mix: `bs=R,W` for two fixed sizes, `bsrange` or `bssplit`
/// (which can also state a fixed size).
fn fio_block_sizes(read: &BlockSizes, write: &BlockSizes) -> String {
    let any = |f: fn(&BlockSizes) -> bool| f(read) || f(write);
    let split = any(|b| matches!(b, BlockSizes::Split { .. }));
    let range = any(|b| matches!(b, BlockSizes::Range { .. }));
    let as_split = |b: &BlockSizes| match b {
        BlockSizes::Fixed { bytes } => format!("{}/100", tool_size(*bytes)),
        other => other.text(),
    };
    let as_range = |b: &BlockSizes| match b {
        BlockSizes::Fixed { bytes } => format!("{0}-{0}", tool_size(*bytes)),
        other => other.text(),
    };
    match (split, range) {
        (true, true) => {
            format!(
            "bssplit={}\n; iogauge draws {} for one direction; fio cannot mix bsrange with bssplit",
            as_split(if matches!(read, BlockSizes::Split { .. }) { read } else { write }),
            if matches!(read, BlockSizes::Range { .. }) { read.text() } else { write.text() },
        )
        }
        (true, false) => format!("bssplit={},{}", as_split(read), as_split(write)),
        (false, true) => {
            let any_byte = any(|b| matches!(b, BlockSizes::Range { any_byte: true, .. }));
            let unaligned = if any_byte { "\nbs_unaligned" } else { "" };
            format!("bsrange={},{}{unaligned}", as_range(read), as_range(write))
        }
        (false, false) => format!("bs={},{}", read.text(), write.text()),
    }
}

/// fio's rate and rate_iops. fio's one value limits each direction on its own; iogauge's
/// limit for reads and writes together becomes, for a mixed job, the two shares of it that
/// keep the mix (said in a comment).
fn fio_rates(o: &mut String, job: &JobSpec) {
    use super::Rate;
    let w = job.shape.write_pct as u64;
    let dirs = match (job.limits.both(), job.limits.rate_dirs) {
        (Some(r), _) if w > 0 && w < 100 => {
            let share = |pct: u64| match r {
                Rate::Iops { iops } => Rate::Iops {
                    iops: (iops * pct / 100).max(1),
                },
                Rate::Bytes { per_sec } => Rate::Bytes {
                    per_sec: (per_sec * pct / 100).max(1),
                },
            };
            let _ = writeln!(o, "; iogauge limits reads and writes together; fio limits each direction: the shares below keep the {}/{} mix", 100 - w, w);
            [Some(share(100 - w)), Some(share(w))]
        }
        (Some(r), _) => [Some(r), Some(r)],
        (None, Some(d)) => [d.read, d.write],
        (None, None) => return,
    };
    let part = |r: Option<Rate>, iops: bool| match r {
        Some(Rate::Iops { iops: n }) if iops => n.to_string(),
        Some(Rate::Bytes { per_sec }) if !iops => tool_size(per_sec),
        _ => String::new(),
    };
    for (key, iops) in [("rate", false), ("rate_iops", true)] {
        let (r, w) = (part(dirs[0], iops), part(dirs[1], iops));
        if r.is_empty() && w.is_empty() {
            continue;
        }
        if r == w {
            let _ = writeln!(o, "{key}={r}");
        } else {
            let _ = writeln!(o, "{key}={r},{w}");
        }
    }
    if job.limits.poisson {
        let _ = writeln!(o, "rate_process=poisson");
    }
}

/// One fio job section per target (or set of files), all to run together; `stonewall` on the
/// first makes the pass wait for the one before, as iogauge's passes do.
pub fn to_fio(job: &JobSpec, name: &str, stonewall: bool) -> String {
    let mut o = String::new();
    let nfiles = job.files_per_set();
    for (i, set) in job.targets.chunks(nfiles).enumerate() {
        let section = if job.sets() > 1 {
            format!("{name}-{i}")
        } else {
            name.to_string()
        };
        let _ = writeln!(o, "[{section}]");
        if stonewall && i == 0 {
            let _ = writeln!(o, "stonewall");
        }
        fio_files(&mut o, job, set);
        fio_io_shape(&mut o, job);
        fio_offsets(&mut o, job);
        fio_region(&mut o, job, &set[0], nfiles as u64);
        fio_engine(&mut o, job);
        let _ = writeln!(o, "numjobs={}", job.threads_per_target);
        let _ = writeln!(o, "direct={}", job.cache.is_direct() as u8);
        if job.cache.is_dsync() {
            let _ = writeln!(o, "sync=dsync");
        }
        fio_timing(&mut o, job);
        fio_rates(&mut o, job);
        if job.seed != 0 {
            let _ = writeln!(o, "randseed={}", job.seed);
        }
        if !job.latency {
            // IOPS mode: no per-I/O timestamps on either side.
            let _ = writeln!(o, "disable_lat=1\ndisable_clat=1\ndisable_slat=1");
        }
        fio_affinity(&mut o, job);
        fio_numa(&mut o, job);
        fio_cgroup(&mut o, job);
        fio_zones(&mut o, job);
        if job.continue_on_error {
            let _ = writeln!(o, "continue_on_error=io");
        }
        if let Some(m) = job.limits.min_rate {
            fio_min_rate(&mut o, job, m);
        }
        if let Some(l) = job.limits.latency_target {
            // fio's times here are in whole microseconds.
            let _ = writeln!(
                o,
                "latency_target={}us\nlatency_window={}us\nlatency_percentile={}",
                l.ns.div_ceil(1_000),
                l.window_ns.div_ceil(1_000),
                l.pct
            );
            if l.keep_adjusting {
                let _ = writeln!(o, "latency_run=1");
            }
        }
        fio_flushes(&mut o, job);
        fio_think(&mut o, job);
        fio_buffers(&mut o, job);
        let _ = writeln!(o, "group_reporting=1");
    }
    o
}

/// A section's files and how its threads move between them.
fn fio_files(o: &mut String, job: &JobSpec, set: &[super::TargetSpec]) {
    let names: Vec<String> = set.iter().map(|t| t.path.display().to_string()).collect();
    let _ = writeln!(o, "filename={}", names.join(":"));
    let Some(f) = job.file_sets else {
        return;
    };
    let service = match f.service {
        FileService::Slots => {
            let _ = writeln!(o, "; iogauge --file-service slots keeps {} I/Os in flight on each file (DiskSpd's -F); fio's files take turns", job.queue_depth / f.files);
            "roundrobin".to_string()
        }
        s => s.text(),
    };
    let _ = writeln!(o, "file_service_type={service}");
    if let Some(n) = f.open_files {
        let _ = writeln!(o, "openfiles={n}");
    }
}

/// rw= (with a sequential gap or a random run), the read/write mix and the block sizes.
fn fio_io_shape(o: &mut String, job: &JobSpec) {
    let (rw, mix) = fio_rw(job);
    let rw = match &job.shape.pattern {
        Pattern::Random { .. } if job.shape.random_every.is_some() => {
            format!("{rw}:{}", job.shape.random_every.unwrap_or(1))
        }
        // fio's offset after each I/O: where it ended plus the skip, so -(stride + block).
        Pattern::Sequential {
            stride_bytes,
            backwards: true,
            ..
        } => format!("{rw}:-{}", tool_size(stride_bytes + job.shape.block_size)),
        Pattern::Sequential { stride_bytes, .. } if *stride_bytes > job.shape.block_size => {
            format!("{rw}:{}", tool_size(stride_bytes - job.shape.block_size))
        }
        // Overlapping I/Os: fio goes back from where the one before ended.
        Pattern::Sequential { stride_bytes, .. } if *stride_bytes < job.shape.block_size => {
            format!("{rw}:-{}", tool_size(job.shape.block_size - stride_bytes))
        }
        _ => rw,
    };
    let _ = writeln!(o, "rw={rw}");
    if let Some(m) = mix {
        let _ = writeln!(o, "{m}");
    }
    match &job.shape.block_mix {
        None => {
            let _ = writeln!(o, "bs={}", tool_size(job.shape.block_size));
        }
        Some(m) => {
            let _ = writeln!(o, "{}", fio_block_sizes(&m.read, &m.write));
        }
    }
    if let Some(p) = job.shape.random_pct {
        let _ = writeln!(o, "percentage_random={p}");
    }
}

/// How offsets are drawn: random alignment and distribution, or a shared sequential offset.
fn fio_offsets(o: &mut String, job: &JobSpec) {
    match &job.shape.pattern {
        Pattern::Random {
            align_bytes,
            distribution,
        } => {
            if *align_bytes != job.shape.block_size {
                let _ = writeln!(o, "blockalign={}", tool_size(*align_bytes));
            }
            // iogauge draws offsets with replacement, as fio does without its random map.
            let _ = writeln!(o, "norandommap=1");
            fio_distribution(o, distribution);
        }
        Pattern::Sequential {
            interlocked: true, ..
        } => {
            let _ = writeln!(o, "; iogauge -si: the threads share one sequential offset; fio's jobs each keep their own");
        }
        Pattern::Sequential { .. } => {}
    }
}

fn fio_distribution(o: &mut String, distribution: &Distribution) {
    match distribution {
        Distribution::Uniform => {}
        Distribution::Zipf { theta } => {
            let _ = writeln!(o, "random_distribution=zipf:{theta}");
        }
        z @ Distribution::Zoned { zones, .. } => {
            if zones.last().is_some_and(|l| l.span == 0) {
                let _ = writeln!(o, "; the last zone spans the rest of the working set: fio's zoned_abs needs its size in place of 'rest'");
            }
            let _ = writeln!(o, "random_distribution={}", z.text());
        }
        Distribution::Pareto { h } => {
            let _ = writeln!(o, "random_distribution=pareto:{h}");
            let _ = writeln!(o, "; iogauge's pareto:H sends 1-H of the I/O to a share H of the blocks; fio defines its parameter differently");
        }
    }
}

/// The working set: where it begins, where each thread's begins, and the files' size.
fn fio_region(o: &mut String, job: &JobSpec, first: &super::TargetSpec, nfiles: u64) {
    if job.shape.base_offset > 0 {
        let _ = writeln!(o, "offset={}", tool_size(job.shape.base_offset));
    }
    if job.shape.thread_offset > 0 {
        let _ = writeln!(o, "offset_increment={}", tool_size(job.shape.thread_offset));
    }
    if job.shape.thread_start > 0 {
        let _ = writeln!(o, "; iogauge --thread-start {} (DiskSpd's -T): fio's clones cannot begin apart and wrap within one region", tool_size(job.shape.thread_start));
    }
    match (job.shape.max_offset, first.create_size) {
        // fio's size= is shared among a job's files.
        (Some(end), _) => {
            let _ = writeln!(
                o,
                "size={}",
                tool_size((end - job.shape.base_offset) * nfiles)
            );
            if let Some(c) = first.create_size {
                let _ = writeln!(o, "filesize={}", tool_size(c));
            }
        }
        // The file's size; the region is the whole file from the offset.
        (None, Some(c)) => {
            let _ = writeln!(o, "filesize={}", tool_size(c));
        }
        (None, None) => {}
    }
}

/// ioengine= and the queue it keeps.
fn fio_engine(o: &mut String, job: &JobSpec) {
    // No engine named: io_uring where the host has it, as fio is asked for it.
    let engine = job.engine.kind.map_or("io_uring", EngineKind::fio_name);
    let _ = writeln!(o, "ioengine={engine}");
    if job.engine.kind == Some(EngineKind::FileCreate) {
        let _ = writeln!(o, "; iogauge's {engine} times open(O_CREAT|O_EXCL) and close for a create; fio times the open alone");
    }
    if job.engine.kind == Some(EngineKind::Delay) {
        let _ = writeln!(
            o,
            "; iogauge's delay engine (injected latency) has no fio counterpart"
        );
    }
    let _ = writeln!(o, "iodepth={}", job.queue_depth);
    if job.complete_batch == 0 {
        let _ = writeln!(o, "; iogauge --complete-batch auto: its warm-up chooses between each completion as it comes and batches of half or all the queue; fio takes each as it comes");
    }
    if job.complete_batch > 1 {
        let _ = writeln!(o, "iodepth_batch_complete_min={}", job.complete_batch);
    }
    if job.submit_batch > 1 {
        let _ = writeln!(o, "iodepth_batch_submit={}", job.submit_batch);
    }
    if let Some(p) = job.prio.ioprio {
        let _ = writeln!(o, "prioclass={}\nprio={}", p.class, p.level);
    }
    if engine == "io_uring" {
        fio_uring_options(o, job);
    }
}

/// --cmdprio as fio's cmdprio_bssplit (shares by size) or cmdprio_percentage, cmdprio_class
/// and cmdprio (one share of any size per direction).
fn fio_cmdprio(o: &mut String, job: &JobSpec) {
    let c = &job.prio.cmdprio;
    if !job.prio.per_io() {
        return;
    }
    if c.iter()
        .all(|d| d.len() <= 1 && d.iter().all(|s| s.bs.is_none()))
    {
        let each = |f: &dyn Fn(&crate::spec::prio::Share) -> u64, none: u64| {
            let v: Vec<String> = c
                .iter()
                .map(|d| d.first().map_or(none, f).to_string())
                .collect();
            v.join(",")
        };
        let _ = writeln!(o, "cmdprio_percentage={}", each(&|s| s.pct as u64, 0));
        // fio's cmdprio_class takes 1 to 3; class 0 is best effort, as iogauge takes it.
        let class = |s: &crate::spec::prio::Share| match s.prio.class {
            0 => 2,
            c => c as u64,
        };
        let _ = writeln!(o, "cmdprio_class={}", each(&class, 1));
        let _ = writeln!(o, "cmdprio={}", each(&|s| s.prio.level as u64, 0));
        return;
    }
    let dirs: Vec<String> = c
        .iter()
        .map(|d| {
            let e: Vec<String> = d
                .iter()
                .map(|s| {
                    let bs = s.bs.map_or("0".into(), |b| b.to_string());
                    format!("{bs}/{}/{}/{}", s.pct, s.prio.class, s.prio.level)
                })
                .collect();
            e.join(":")
        })
        .collect();
    let _ = writeln!(o, "cmdprio_bssplit={}", dirs.join(","));
}

fn fio_uring_options(o: &mut String, job: &JobSpec) {
    // fio registers no files where openfiles is below nrfiles: it refuses registerfiles.
    let lazy = job.open_files().is_some();
    if job.engine.register {
        let files = if lazy { "" } else { "\nregisterfiles=1" };
        let _ = writeln!(o, "fixedbufs=1{files}");
    }
    if job.engine.sqpoll {
        let _ = writeln!(o, "sqthread_poll=1");
        if lazy {
            let _ = writeln!(o, "; fio's sqthread_poll registers the files, which it refuses with openfiles below nrfiles");
        }
    }
    if job.engine.hipri {
        let _ = writeln!(o, "hipri=1");
    }
    fio_cmdprio(o, job);
}

/// When the job stops, and the time around the measurement.
fn fio_timing(o: &mut String, job: &JobSpec) {
    match job.timing.stop {
        Stop::Duration { ns } => {
            let _ = writeln!(o, "time_based=1\nruntime={}", secs(ns));
        }
        Stop::TotalBytes { bytes, max_ns } => {
            let jobs = job.total_threads();
            // A file operation is done once per file: fio has nothing to say about it.
            if !job.engine.kind.is_some_and(|e| e.is_file_op()) {
                let _ = writeln!(o, "io_size={}", tool_size(bytes / jobs));
            }
            if let Some(ns) = max_ns {
                // Without time_based, fio's runtime is a limit: whichever comes first.
                let _ = writeln!(o, "runtime={}", secs(ns));
            }
        }
    }
    if job.timing.warmup_ns > 0 {
        let _ = writeln!(o, "ramp_time={}", secs(job.timing.warmup_ns));
    }
    if job.timing.cooldown_ns > 0 {
        let _ = writeln!(
            o,
            "; iogauge -C {}: fio has no cool-down",
            secs(job.timing.cooldown_ns)
        );
    }
    if let Some(rule) = job.timing.until_steady {
        let _ = writeln!(
            o,
            "steadystate=bw:{}%\nsteadystate_duration={}",
            rule.tolerance_pct,
            secs(rule.window_ns)
        );
        let _ = writeln!(o, "; iogauge also waits for throughput to fall {}% below its peak; fio's steady state does not", rule.drop_pct);
    }
    if let Some(rule) = job.timing.until_flat {
        fio_flat(o, &rule);
    }
    if let Some(w) = job.timing.stonewall {
        // fio's own stonewall= is another thing: wait for the jobs before to end.
        let _ = writeln!(
            o,
            "; iogauge --stonewall {}{}: fio has no deadline of IOR's kind (its stonewall= \
             orders jobs)",
            secs(w.ns),
            if w.wear_out { " --wear-out" } else { "" }
        );
    }
}

/// The flat-window rule is fio's own: its options, limits in fio's units (bytes per second,
/// latency in microseconds).
fn fio_flat(o: &mut String, rule: &FlatRule) {
    let limit = match (rule.metric, rule.limit) {
        (_, FlatLimit::Percent(p)) => format!("{p}%"),
        (FlatMetric::Lat, FlatLimit::Absolute(ns)) => format!("{}us", ns / 1e3),
        (_, FlatLimit::Absolute(v)) => format!("{v}"),
    };
    let secs = |ns: u64| ns as f64 / 1e9;
    let _ = writeln!(
        o,
        "steadystate={}:{limit}\nsteadystate_duration={}",
        rule.criterion_name(),
        secs(rule.window_ns)
    );
    if rule.ramp_ns > 0 {
        let _ = writeln!(o, "steadystate_ramp_time={}", secs(rule.ramp_ns));
    }
    if rule.check_ns < 1_000_000_000 {
        let _ = writeln!(
            o,
            "; iogauge judged a point every {}ms; fio checks at most once a second",
            rule.check_ns / 1_000_000
        );
    } else if rule.check_ns != 1_000_000_000 {
        let _ = writeln!(o, "steadystate_check_interval={}", secs(rule.check_ns));
    }
}

fn fio_affinity(o: &mut String, job: &JobSpec) {
    match &job.affinity {
        None => {}
        Some(super::Affinity::Auto) => {
            let _ = writeln!(o, "cpus_allowed_policy=split");
        }
        Some(super::Affinity::Cpus { cpus }) => {
            let list: Vec<String> = cpus.iter().map(|c| c.to_string()).collect();
            let _ = writeln!(
                o,
                "cpus_allowed={}\ncpus_allowed_policy=split",
                list.join(",")
            );
        }
    }
}

fn fio_zones(o: &mut String, job: &JobSpec) {
    if let Some(z) = job.shape.zones {
        let _ = writeln!(
            o,
            "zonemode=strided\nzonesize={}\nzonerange={}\nzoneskip={}",
            z.size, z.range, z.skip
        );
    }
    if let Some(z) = job.shape.zbd {
        let _ = writeln!(o, "zonemode=zbd\nzonesize={}", z.size);
        if z.capacity != z.size {
            let _ = writeln!(o, "zonecapacity={}", z.capacity);
        }
        if z.max_open > 0 {
            let _ = writeln!(o, "max_open_zones={}", z.max_open);
        }
        if z.thread_max_open > 0 {
            let _ = writeln!(o, "job_max_open_zones={}", z.thread_max_open);
        }
        if z.read_beyond_wp {
            let _ = writeln!(o, "read_beyond_wp=1");
        }
        if z.reset_frequency > 0.0 {
            let _ = writeln!(
                o,
                "zone_reset_threshold={}\nzone_reset_frequency={}",
                z.reset_threshold, z.reset_frequency
            );
        }
    }
}

fn fio_numa(o: &mut String, job: &JobSpec) {
    let Some(n) = &job.numa else { return };
    if let Some(nodes) = &n.cpu_nodes {
        let _ = writeln!(o, "numa_cpu_nodes={}", nodes.text());
    }
    if let Some(m) = &n.memory {
        let _ = writeln!(o, "numa_mem_policy={}", m.text());
    }
}

fn fio_cgroup(o: &mut String, job: &JobSpec) {
    let Some(c) = &job.cgroup else { return };
    let _ = writeln!(o, "cgroup={}", c.name);
    if let Some(w) = c.weight {
        let _ = writeln!(o, "cgroup_weight={w}");
    }
    if c.keep {
        let _ = writeln!(o, "cgroup_nodelete=1");
    }
}

/// fio's rate_min and rate_iops_min, which apply to each direction on its own.
fn fio_min_rate(o: &mut String, job: &JobSpec, m: super::MinRate) {
    let w = job.shape.write_pct;
    if m.apart.is_none() && (m.bytes_per_sec > 0 || m.iops > 0) && w > 0 && w < 100 {
        let _ = writeln!(o, "; iogauge's floor is for reads and writes together: fio's applies to each direction, so it is stricter here");
    }
    let [r, wr] = m.apart.unwrap_or(
        [super::Floor {
            bytes_per_sec: m.bytes_per_sec,
            iops: m.iops,
        }; 2],
    );
    let pair = |a: u64, b: u64, f: &dyn Fn(u64) -> String| {
        let t = |v: u64| if v > 0 { f(v) } else { String::new() };
        if a == b {
            t(a)
        } else {
            format!("{},{}", t(a), t(b))
        }
    };
    if r.bytes_per_sec > 0 || wr.bytes_per_sec > 0 {
        let _ = writeln!(
            o,
            "rate_min={}",
            pair(r.bytes_per_sec, wr.bytes_per_sec, &tool_size)
        );
    }
    if r.iops > 0 || wr.iops > 0 {
        let _ = writeln!(
            o,
            "rate_iops_min={}",
            pair(r.iops, wr.iops, &|v: u64| v.to_string())
        );
    }
    if m.window_ns != 1_000_000_000 {
        let _ = writeln!(o, "ratecycle={}", m.window_ns / 1_000_000);
    }
}

fn fio_flushes(o: &mut String, job: &JobSpec) {
    if let Some(f) = job.per_io.flush {
        let key = if f.data_only { "fdatasync" } else { "fsync" };
        let _ = writeln!(o, "{key}={}", f.writes);
    }
    if job.per_io.end_fsync {
        let _ = writeln!(o, "end_fsync=1");
    }
}

fn fio_think(o: &mut String, job: &JobSpec) {
    let Some(t) = job.per_io.think else {
        return;
    };
    // fio reads thinktime without a unit as microseconds.
    let us = |ns: u64| ns.div_ceil(1000);
    let _ = writeln!(o, "thinktime={}", us(t.ns));
    if t.spin_ns > 0 {
        let _ = writeln!(o, "thinktime_spin={}", us(t.spin_ns));
    }
    if t.every > 1 {
        let _ = writeln!(o, "thinktime_blocks={}", t.every);
    }
    if t.ns % 1000 != 0 || t.spin_ns % 1000 != 0 {
        let _ = writeln!(o, "; fio's think time is in whole microseconds: rounded up");
    }
}

/// What written buffers hold.
fn fio_buffers(o: &mut String, job: &JobSpec) {
    match (job.per_io.buffers.compress_pct, job.per_io.buffers.refill) {
        (0, false) => {}
        (0, true) => {
            let _ = writeln!(o, "refill_buffers=1");
        }
        (100, _) => {
            let _ = writeln!(o, "zero_buffers=1");
        }
        (p, _) => {
            let _ = writeln!(o, "buffer_compress_percentage={p}");
        }
    }
    if let Some(p) = job.per_io.buffers.pattern {
        let _ = writeln!(o, "buffer_pattern=0x{}", p.hex());
    }
    if let Some(d) = job.per_io.buffers.dedupe {
        let _ = writeln!(o, "dedupe_percentage={}", d.pct);
        if let crate::spec::DedupeMode::WorkingSet { pct } = d.mode {
            let _ = writeln!(o, "dedupe_mode=working_set");
            let _ = writeln!(o, "dedupe_working_set_percentage={pct}");
            // fio sizes the working set from size=, and refuses the mode without it.
            let file = job.targets.first().and_then(|t| t.create_size);
            match (job.shape.max_offset, file) {
                (Some(_), _) => {}
                (None, Some(c)) => {
                    let region = c.saturating_sub(job.shape.base_offset);
                    let files = job.files_per_set() as u64;
                    let _ = writeln!(o, "size={}", tool_size(region * files));
                }
                (None, None) => {
                    let _ = writeln!(
                        o,
                        "; fio needs size= here: the working set is a share of it"
                    );
                }
            }
        }
        if d.global {
            let _ = writeln!(o, "dedupe_global=1");
        }
    }
}

/// DiskSpd's -rdpct/-rdabs for zones: its percent spans must cover the whole working set (an
/// I/O-less zone takes what iogauge leaves untouched), and its rest of the target is the
/// share of I/O left over (iogauge's last zone of span 0).
fn diskspd_zones(absolute: bool, zones: &[super::Zone]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut covered = 0;
    for z in zones {
        if absolute && z.span == 0 {
            break;
        }
        covered += z.span;
        parts.push(if absolute {
            format!("{}/{}", z.io_pct, tool_size(z.span))
        } else {
            format!("{}/{}", z.io_pct, z.span)
        });
    }
    if !absolute && covered < 100 {
        parts.push(format!("0/{}", 100 - covered));
    }
    format!(
        "-rd{}{}",
        if absolute { "abs" } else { "pct" },
        parts.join(":")
    )
}

/// A DiskSpd command line as it is written: its switches, and what DiskSpd cannot express.
struct DiskspdLine {
    args: Vec<String>,
    caveats: Vec<String>,
}

impl DiskspdLine {
    fn arg(&mut self, a: impl Into<String>) {
        self.args.push(a.into());
    }

    fn caveat(&mut self, c: impl Into<String>) {
        self.caveats.push(c.into());
    }

    /// A time switch: DiskSpd takes whole seconds, so a fraction rounds up (and is said).
    fn seconds(&mut self, flag: &str, ns: u64) {
        let s = ns.div_ceil(1_000_000_000);
        if !ns.is_multiple_of(1_000_000_000) {
            self.caveat(format!(
                "DiskSpd's {flag} takes whole seconds: {} became {s}",
                secs(ns)
            ));
        }
        self.arg(format!("{flag}{s}"));
    }
}

/// The DiskSpd command line for `job`, and what DiskSpd cannot express.
pub fn to_diskspd(job: &JobSpec) -> (String, Vec<String>) {
    let mut l = DiskspdLine {
        args: vec!["diskspd".into()],
        caveats: Vec::new(),
    };
    diskspd_sizes(job, &mut l);
    diskspd_timing(job, &mut l);
    diskspd_threads(job, &mut l);
    diskspd_pattern(job, &mut l);
    l.arg(format!("-w{}", job.shape.write_pct));
    l.arg(match job.cache {
        CacheMode::Buffered if job.engine.kind == Some(EngineKind::Mmap) => "-Sm",
        CacheMode::Buffered => "-Sb",
        CacheMode::Direct => "-Su",
        CacheMode::WriteThrough => "-Sw",
        CacheMode::DirectWriteThrough => "-Sh",
    });
    if job.latency {
        l.arg("-L");
    }
    diskspd_buffers(job, &mut l);
    if job.shape.thread_start > 0 {
        l.arg(format!("-T{}", tool_size(job.shape.thread_start)));
    }
    diskspd_missing_io_controls(job, &mut l);
    diskspd_think(job, &mut l);
    if job.shape.base_offset > 0 {
        l.arg(format!("-B{}", tool_size(job.shape.base_offset)));
    }
    if let Some(m) = job.shape.max_offset {
        l.arg(format!("-f{}", tool_size(m)));
    }
    if job.seed != 0 {
        l.arg(format!("-z{}", job.seed));
    }
    if let Some(super::Affinity::Cpus { cpus }) = &job.affinity {
        let list: Vec<String> = cpus.iter().map(|c| c.to_string()).collect();
        l.arg(format!("-a{}", list.join(",")));
    }
    if let Some(bw) = job.limits.rate_bytes_per_sec {
        l.arg(format!("-g{}", bw / 1000));
    }
    diskspd_missing_run_controls(job, &mut l);
    for t in &job.targets {
        l.arg(t.path.display().to_string());
    }
    (l.args.join(" "), l.caveats)
}

/// -c (the size of a file to create) and -b.
fn diskspd_sizes(job: &JobSpec, l: &mut DiskspdLine) {
    if let Some(c) = job.targets.iter().find_map(|t| t.create_size) {
        l.arg(format!("-c{}", tool_size(c)));
    }
    l.arg(format!("-b{}", tool_size(job.shape.block_size)));
    if let Some(m) = &job.shape.block_mix {
        l.caveat(format!(
            "DiskSpd has one block size: iogauge draws reads from {} and writes from {}; -b is the largest",
            m.read.text(),
            m.write.text()
        ));
    }
}

/// -d, -W and -C.
fn diskspd_timing(job: &JobSpec, l: &mut DiskspdLine) {
    match job.timing.stop {
        Stop::Duration { ns } => l.seconds("-d", ns),
        Stop::TotalBytes { .. } => l.caveat("DiskSpd has no stop after a byte count (--total)"),
    }
    l.seconds("-W", job.timing.warmup_ns);
    if job.timing.cooldown_ns > 0 {
        l.seconds("-C", job.timing.cooldown_ns);
    }
}

/// Threads and their queues: -t and -o per target, or -F over a set of files with -o (a file
/// per queue slot) or -O (a file drawn per I/O).
fn diskspd_threads(job: &JobSpec, l: &mut DiskspdLine) {
    let Some(f) = job.file_sets else {
        l.arg(format!("-t{}", job.threads_per_target));
        l.arg(format!("-o{}", job.queue_depth));
        return;
    };
    l.arg(format!("-F{}", job.threads_per_target));
    if let Some(n) = f.lazy() {
        l.caveat(format!(
            "DiskSpd keeps every target open: no --open-files {n}"
        ));
    }
    match f.service {
        FileService::Slots => l.arg(format!("-o{}", job.queue_depth / f.files)),
        FileService::Random { every } => {
            l.arg(format!("-O{}", job.queue_depth));
            if every > 1 {
                l.caveat(format!(
                    "DiskSpd draws a target for every I/O: iogauge draws one for every {every}"
                ));
            }
        }
        s => {
            l.arg(format!("-O{}", job.queue_depth));
            l.caveat(format!("DiskSpd's -F threads draw a target at random for each I/O (-O) or keep one per request (-o): no {}", s.text()));
        }
    }
    if job.sets() > 1 {
        l.caveat(format!("DiskSpd's -F threads work on every target: iogauge's {} sets of {} files have threads of their own", job.sets(), f.files));
    }
}

/// -r (with -rs and -rdpct/-rdabs) or -s and -si.
fn diskspd_pattern(job: &JobSpec, l: &mut DiskspdLine) {
    match &job.shape.pattern {
        Pattern::Random {
            align_bytes,
            distribution,
        } => {
            if let Some(p) = job.shape.random_pct {
                l.arg(format!("-rs{p}"));
            }
            if *align_bytes == job.shape.block_size {
                if job.shape.random_pct.is_none() {
                    l.arg("-r");
                }
            } else {
                l.arg(format!("-r{}", tool_size(*align_bytes)));
            }
            match distribution {
                Distribution::Uniform => {}
                Distribution::Zoned { absolute, zones } => l.arg(diskspd_zones(*absolute, zones)),
                _ => l.caveat(
                    "DiskSpd's -rdpct/-rdabs distributions are piecewise uniform: no zipf or pareto",
                ),
            }
        }
        Pattern::Sequential {
            stride_bytes,
            interlocked,
            ..
        } => {
            if *interlocked {
                l.arg("-si");
                if *stride_bytes != job.shape.block_size {
                    l.arg(format!("-s{}", tool_size(*stride_bytes)));
                }
            } else if *stride_bytes == job.shape.block_size {
                l.arg("-s");
            } else {
                l.arg(format!("-s{}", tool_size(*stride_bytes)));
            }
        }
    }
}

/// -Z: what written buffers hold.
fn diskspd_buffers(job: &JobSpec, l: &mut DiskspdLine) {
    match (job.per_io.buffers.compress_pct, job.per_io.buffers.refill) {
        (100, _) => l.arg("-Z"),
        (0, true) => l.arg("-Zr"),
        (0, false) if job.shape.write_pct > 0 => {
            // DiskSpd's default write buffers repeat a pattern; iogauge writes random data.
            l.arg(format!(
                "-Z{}",
                tool_size(job.shape.block_size * job.queue_depth as u64)
            ));
        }
        (0, false) => {}
        (p, _) => {
            l.arg("-Zr");
            l.caveat(format!(
                "DiskSpd has no partly compressible data (--compressible {p}): -Zr writes random data"
            ));
        }
    }
    if let Some(d) = job.per_io.buffers.dedupe {
        l.caveat(format!(
            "DiskSpd has no deduplicable data (--dedupe {}): every write is new random data",
            d.pct
        ));
    }
}

/// What iogauge's threads do between I/Os that DiskSpd's cannot.
fn diskspd_missing_io_controls(job: &JobSpec, l: &mut DiskspdLine) {
    if let Some(n) = job.shape.random_every {
        l.caveat(format!(
            "DiskSpd has no runs of {n} I/Os after each random offset (--random-every)"
        ));
    }
    if job.limits.min_rate.is_some() {
        l.caveat("DiskSpd has no minimum rate (--rate-min): it never fails a slow run");
    }
    if job.limits.latency_target.is_some() {
        l.caveat("DiskSpd has no latency target (--latency-target): it keeps its -o depth");
    }
    if job.shape.thread_offset > 0 {
        l.caveat(format!(
            "DiskSpd's threads share one working set: no counterpart to --thread-offset {} (DiskSpd's -T only moves where each thread starts)",
            tool_size(job.shape.thread_offset)
        ));
    }
    if job.per_io.flush.is_some() || job.per_io.end_fsync {
        l.caveat("DiskSpd issues no flushes (--fsync, --fdatasync, --end-fsync)");
    }
    if matches!(
        job.shape.pattern,
        super::Pattern::Sequential {
            backwards: true,
            ..
        }
    ) {
        l.caveat("DiskSpd walks sequential I/O forwards only: no backwards walk (--backwards)");
    }
}

/// -j and -i: DiskSpd's think time, in whole milliseconds.
fn diskspd_think(job: &JobSpec, l: &mut DiskspdLine) {
    let Some(t) = job.per_io.think else {
        return;
    };
    let ms = t.ns.div_ceil(1_000_000);
    l.arg(format!("-j{ms}"));
    if t.every > 1 {
        l.arg(format!("-i{}", t.every));
    }
    if t.ns % 1_000_000 != 0 {
        l.caveat(format!(
            "DiskSpd's think time (-j) is in whole milliseconds: {} us became {ms} ms",
            t.ns / 1000
        ));
    }
    if t.spin_ns > 0 {
        l.caveat("DiskSpd's think time sleeps; it has no spin (--think-spin)");
    }
}

/// What iogauge's run can be asked for that DiskSpd's cannot.
fn diskspd_missing_run_controls(job: &JobSpec, l: &mut DiskspdLine) {
    if job.shape.zones.is_some() {
        l.caveat("DiskSpd has no strided zones (--zones): it walks the whole working set");
    }
    if job.shape.zbd.is_some() {
        l.caveat(
            "DiskSpd has no zones with write pointers (--zbd): its writes go where they are drawn",
        );
    }
    if job.numa.is_some() {
        l.caveat("DiskSpd places threads on processor groups (-ag), not NUMA nodes: no --numa-nodes or --numa-mem");
    }
    if job.limits.rate_iops.is_some() {
        l.caveat("DiskSpd limits bytes per millisecond (-g), not I/Os per second");
    }
    if job.timing.until_steady.is_some() || job.timing.until_flat.is_some() {
        l.caveat(format!(
            "DiskSpd has no steady-state stop ({}): it runs the full -d",
            if job.timing.until_flat.is_some() {
                job.name(Flag::UntilFlat).0
            } else {
                job.name(Flag::UntilSteady).0
            }
        ));
    }
    if matches!(job.engine.kind, Some(EngineKind::Null | EngineKind::Delay)) {
        l.caveat("DiskSpd has no null or delay engine");
    }
    if let Some(e) = job.engine.kind.filter(|e| e.is_file_op()) {
        l.caveat(format!(
            "DiskSpd reads and writes data only: it has no {} (operations on file names)",
            e.name()
        ));
    }
    if job.limits.rate_dirs.is_some() {
        l.caveat("DiskSpd has one limit (-g) for reads and writes together: no limits apart");
    }
    if job.limits.poisson {
        l.caveat("DiskSpd spaces its I/Os evenly: it has no Poisson arrivals (--rate-poisson)");
    }
}

/// A pass of `iogauge explain`: its label, its `iogauge run` argv, its job.
pub type Explained = (String, Vec<String>, JobSpec);

/// Every form: `iogauge explain`.
pub fn explain(passes: &[Explained]) -> String {
    format!(
        "# iogauge run, one command per pass\n\n{}# fio job file (fio JOBFILE): the passes run one after another\n\n{}# DiskSpd, one command per pass\n\n{}",
        run_lines(passes),
        fio_file(passes),
        diskspd_lines(passes)
    )
}

pub fn run_lines(passes: &[Explained]) -> String {
    let mut o = String::new();
    for (label, argv, _) in passes {
        let _ = writeln!(o, "# {label}\n{}\n", shell_line(argv));
    }
    o
}

pub fn fio_file(passes: &[Explained]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "[global]\n; from iogauge {}\n",
        env!("CARGO_PKG_VERSION")
    );
    for (i, (label, _, job)) in passes.iter().enumerate() {
        let name: String = label
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        let _ = writeln!(o, "; {label}");
        let _ = writeln!(o, "{}", to_fio(job, &format!("{}-{name}", i + 1), i > 0));
    }
    o
}

pub fn diskspd_lines(passes: &[Explained]) -> String {
    let mut o = String::new();
    for (label, _, job) in passes {
        let (line, caveats) = to_diskspd(job);
        let _ = writeln!(o, "# {label}\n{line}");
        for c in caveats {
            let _ = writeln!(o, "#   note: {c}");
        }
        let _ = writeln!(o);
    }
    o
}

/// argv as one shell line, quoting what needs it.
fn shell_line(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_=./:,%".contains(c))
                && !a.is_empty()
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
