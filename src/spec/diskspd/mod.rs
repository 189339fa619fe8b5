//! DiskSpd's command line with DiskSpd's meaning (`iogauge diskspd`): its defaults (64K blocks,
//! 2 outstanding I/Os, 10 s after a 5 s warm-up, the OS cache on, threads spread over the
//! CPUs), glued values (`-b8K`, `-o32`, `-Suw`), and its refusals, with DiskSpd's reasons
//! (checked against DiskSpd 2.2's parser and validator). The result is the same validated
//! [`JobSpec`] `iogauge run` builds; `iogauge run` also takes DiskSpd's flags, with iogauge's
//! defaults.
//!
//! Options start with `-` only: DiskSpd's `/` prefix would make every absolute Linux path an
//! option.

mod access;
mod cache;
mod report;
mod shown;
mod switches;
mod targets;
#[cfg(test)]
mod tests;
mod threads;
mod timing;
mod values;
mod words;
mod writes;
mod zones;

pub use cache::MappedFlush;
pub use shown::Shown;
pub use targets::{disks_here, Targets};
pub use words::{cache_words, flag_name};

use super::{Dialect, EngineSpec, JobSpec, Limits, PerIo, Shape, Stop, Timing};
use crate::error::Result;
use switches::Switches;
use values::bad;

/// DiskSpd's defaults.
pub const BLOCK: u64 = 64 << 10;
pub const DURATION_S: u64 = 10;
pub const WARMUP_S: u64 = 5;
pub const OUTSTANDING: u32 = 2;

/// A DiskSpd command line, understood.
#[derive(Debug, Clone)]
pub struct Diskspd {
    pub job: JobSpec,
    /// `-Rxml`: DiskSpd's XML report.
    pub xml: bool,
    /// `-D`: the per-interval IOPS statistics DiskSpd reports.
    pub iops_stats: bool,
    /// `-Rp`: print the profile (the job as DiskSpd shows it) and run nothing.
    pub profile_only: bool,
    /// What DiskSpd shows in its profile that the job does not hold.
    pub shown: Shown,
    /// What runs differently from DiskSpd on Windows, one line each.
    pub notes: Vec<String>,
    /// DiskSpd's own warnings (it prints them and runs anyway).
    pub warnings: Vec<String>,
}

/// Parse `args` (after `iogauge diskspd`, iogauge's own `--` options removed).
pub fn parse(args: &[String], targets_of: &Targets) -> Result<Diskspd> {
    build(Switches::read(args)?, targets_of)
}

/// The switches put together, with DiskSpd's validator: where several checks fail, the
/// user sees the first in DiskSpd's order.
fn build(s: Switches, targets_of: &Targets) -> Result<Diskspd> {
    let Switches {
        block,
        targets: paths,
        threads,
        extent,
        access,
        writes,
        cache,
        timing,
        pace,
        report,
        shown,
        mut notes,
    } = s;
    if paths.is_empty() {
        return Err(bad(
            "need to provide at least one filename (a path, or #N for disk N)",
        ));
    }
    threads.check()?;
    extent.check()?;
    let plan = threads.plan(paths.len(), &pace, &mut notes)?;
    let mut warnings = access.warnings(plan.threads_per_target > 1);
    let targets = extent.targets(&paths, targets_of, &mut notes)?;
    let (cache_mode, engine) = cache.mode(&mut notes)?;
    writes.note(&shown, &mut notes);
    let think = pace.think(&mut warnings)?;
    let pattern = access.pattern(block)?;
    let flush = cache.flush(shown.flush_mode, &mut notes)?;
    let phases = timing.phases()?;
    let interval_ns = report.interval_ns()?;
    let thread_start = access.thread_start(&mut notes);
    let job = JobSpec {
        targets,
        threads_per_target: plan.threads_per_target,
        queue_depth: plan.queue_depth,
        submit_batch: 1,
        complete_batch: 1,
        latency: report.latency,
        affinity: threads.affinity(),
        numa: None,
        shape: Shape {
            block_size: block,
            block_mix: None,
            pattern,
            write_pct: writes.pct,
            random_pct: access.random_pct(),
            random_every: None,
            base_offset: extent.base,
            max_offset: extent.max,
            thread_offset: 0,
            thread_start,
            zones: None,
            zbd: None,
            trim: Default::default(),
        },
        timing: Timing {
            warmup_ns: phases.warmup_ns,
            stop: Stop::Duration {
                ns: phases.duration_ns,
            },
            until_steady: None,
            until_flat: None,
            stonewall: None,
            cooldown_ns: phases.cooldown_ns,
            interval_ns,
        },
        cache: cache_mode,
        remote_uncached: cache.remote_uncached(),
        engine: EngineSpec {
            kind: engine,
            register: true,
            ..EngineSpec::default()
        },
        limits: Limits {
            rate_iops: pace.rate_iops,
            rate_bytes_per_sec: pace.rate_bw,
            rate_dirs: None,
            min_rate: None,
            latency_target: None,
            poisson: false,
            flow: None,
        },
        per_io: PerIo {
            buffers: writes.buffers,
            flush,
            end_fsync: false,
            think,
        },
        seed: access.seed,
        allow_overwrite: false,
        keep: false,
        continue_on_error: false,
        ignore_errors: Vec::new(),
        fill: false,
        prio: Default::default(),
        file_sets: plan.file_sets,
        dialect: Dialect::Diskspd,
        ranks: crate::spec::Ranks::default(),
        verify: None,
        cgroup: None,
    };
    job.validate()?;
    Ok(Diskspd {
        job,
        xml: report.xml,
        iops_stats: report.iops_stats,
        profile_only: report.profile_only,
        shown,
        notes,
        warnings,
    })
}
