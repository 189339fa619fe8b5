//! [`JobSpec::validate`]: everything about a job that can be checked without touching a
//! target, in one place for every front end. Each error is one line that names the setting at
//! fault the way the job's tool names it ([`JobSpec::name`]): `iodepth` in a fio job, `-o` on a
//! DiskSpd line, `--queue-depth` on iogauge's own.

use super::flat::{FlatMetric, FlatRule};
use super::*;
use crate::engine::kind::{TrimAs, DEFAULT_ENGINE};
use crate::units::format_size;

/// The longest interval or run we accept: the histograms cover one hour per I/O, and longer
/// single values mean something is broken.
const MAX_SECONDS: u64 = 366 * 24 * 3600;

/// The most worker threads one job may have.
pub const MAX_THREADS: u64 = 4096;

fn bad(m: String) -> Result<()> {
    Err(Error::usage(m))
}

impl JobSpec {
    /// How the user of this job's tool names `flag`.
    pub fn name(&self, flag: Flag) -> flag::Named {
        self.dialect.name(flag)
    }

    /// Check everything that can be checked without touching a target.
    pub fn validate(&self) -> Result<()> {
        self.validate_shape()?;
        self.validate_engine()?;
        self.validate_offsets()?;
        self.validate_timing()?;
        self.validate_rates()?;
        self.validate_per_io()?;
        self.validate_file_ops()?;
        self.validate_verify()?;
        self.validate_zones()?;
        self.validate_zbd()?;
        if self.cache.is_direct() {
            self.check_any_byte_not_direct()?;
            self.check_direct_alignment(MIN_DIRECT_ALIGN, None)?;
        }
        let mut seen = std::collections::HashSet::new();
        for t in &self.targets {
            if !seen.insert(&t.path) {
                return bad(format!(
                    "target '{}' is given twice; use {} for more load on one target",
                    t.path.display(),
                    self.name(Flag::Threads)
                ));
            }
        }
        Ok(())
    }

    /// Strided zones: sequential I/O block by block, zones that hold a block.
    fn validate_zones(&self) -> Result<()> {
        let Some(z) = self.shape.zones else {
            return Ok(());
        };
        let plain = match &self.shape.pattern {
            Pattern::Sequential {
                stride_bytes,
                interlocked: false,
                backwards: false,
            } => *stride_bytes == self.shape.block_size,
            Pattern::Random { distribution, .. } => {
                *distribution == Distribution::Uniform
                    && self.shape.random_pct.is_none()
                    && self.shape.random_every.is_none()
            }
            _ => false,
        };
        if !plain {
            return bad(format!(
                "{}: zones are walked by sequential I/O block after block, or by uniform random I/O within each zone (no stride, no backwards, no interlocked, no other distribution, no share of sequential I/O)",
                self.name(Flag::Zones)
            ));
        }
        if z.size == 0 || z.range < self.shape.block_size {
            return bad(format!(
                "{}: a zone must do at least one block and hold one ({} each)",
                self.name(Flag::Zones),
                crate::units::format_size(self.shape.block_size)
            ));
        }
        Ok(())
    }

    /// Zones with write pointers: a geometry that holds a block, limits fio accepts, and only
    /// what the emulation does (plain sequential or random reads and writes).
    fn validate_zbd(&self) -> Result<()> {
        let Some(z) = self.shape.zbd else {
            return Ok(());
        };
        let flag = self.name(Flag::Zbd);
        if z.size < 512 {
            return bad(format!("{flag}: a zone must be at least 512 bytes"));
        }
        if z.capacity == 0 || z.capacity > z.size {
            return bad(format!(
                "{flag}: a zone's capacity ({}) must be more than 0 and at most its size ({})",
                format_size(z.capacity),
                format_size(z.size)
            ));
        }
        let (reads, writes) = self.shape.sizes();
        if writes.largest().max(reads.largest()) > z.capacity {
            return bad(format!(
                "{flag}: a block ({}) is larger than a zone's capacity ({})",
                format_size(writes.largest().max(reads.largest())),
                format_size(z.capacity)
            ));
        }
        if z.thread_max_open > 0 && z.max_open == 0 {
            return bad(format!(
                "{}: a thread's limit of open zones needs a limit over all threads (fio: 'job_max_open_zones' cannot be used without a global open zones limit)",
                self.name(Flag::MaxOpenZones)
            ));
        }
        if z.max_open > MAX_OPEN_ZONES {
            return bad(format!(
                "{}: {} is larger than {MAX_OPEN_ZONES}",
                self.name(Flag::MaxOpenZones),
                z.max_open
            ));
        }
        let plain = match self.shape.pattern {
            Pattern::Random { .. } => true,
            Pattern::Sequential {
                stride_bytes,
                interlocked,
                backwards,
            } => stride_bytes == self.shape.block_size && !interlocked && !backwards,
        };
        let unsupported = if !plain {
            Some("sequential I/O with a stride, backwards or interlocked")
        } else if !self.shape.trim.is_none() {
            Some("trims (fio resets a zone in a trim's place)")
        } else if self.verify.is_some() {
            Some("verification")
        } else if self.engine.kind.is_some_and(|k| k.is_file_op()) {
            Some("a file-operation engine")
        } else {
            None
        };
        match unsupported {
            Some(what) => bad(format!(
                "{flag}: zones with write pointers with {what} are not supported yet (planned)"
            )),
            None => Ok(()),
        }
    }

    /// Targets, threads, queue and block size.
    fn validate_shape(&self) -> Result<()> {
        let n = |f| self.name(f);
        if self.targets.is_empty() {
            return bad("no target given".into());
        }
        if self.threads_per_target == 0 {
            return bad(format!("{} must be at least 1", n(Flag::Threads)));
        }
        // fio's own limit on jobs (REAL_MAX_JOBS); each thread costs memory before any I/O.
        if self.total_threads() > MAX_THREADS {
            return bad(format!(
                "{} {} makes {} threads in all: at most {MAX_THREADS}",
                n(Flag::Threads),
                self.threads_per_target,
                self.total_threads()
            ));
        }
        if self.queue_depth == 0 {
            return bad(format!("{} must be at least 1", n(Flag::QueueDepth)));
        }
        if self.queue_depth > 65536 {
            return bad(format!(
                "{} {} is more than 65536",
                n(Flag::QueueDepth),
                self.queue_depth
            ));
        }
        // The default engine is io_uring wherever it can be used (on Windows, iocp).
        let engine = self.engine.kind.unwrap_or(DEFAULT_ENGINE);
        if let Some(only) = engine.only_on().filter(|_| !engine.is_here()) {
            let other = if cfg!(windows) { "iocp" } else { "io_uring" };
            return bad(format!(
                "{}: the {} engine is {only}'s and this is not {only}; use {other} (the default here) or sync",
                self.dialect.assign(Flag::Engine, engine.name()),
                engine.name()
            ));
        }
        if let Some(max) = engine.max_queue_depth().filter(|&m| self.queue_depth > m) {
            return bad(format!(
                "{} {} is more than the {} engine{} can queue: at most {max} I/Os per thread",
                n(Flag::QueueDepth),
                self.queue_depth,
                engine.name(),
                if self.engine.kind.is_none() {
                    " (the default)"
                } else {
                    ""
                },
            ));
        }
        for (flag, v, least) in [
            (Flag::SubmitBatch, self.submit_batch, 1),
            // 0 is auto.
            (Flag::CompleteBatch, self.complete_batch, 0),
        ] {
            if v < least || v > self.queue_depth {
                return bad(format!(
                    "{} {v} must be between 1 and the queue depth ({})",
                    n(flag),
                    self.queue_depth
                ));
            }
        }
        if self.shape.block_size == 0 {
            return bad(format!("{} must be more than 0", n(Flag::BlockSize)));
        }
        if self.shape.block_size > (1 << 30) {
            return bad(format!(
                "{} {} is more than 1GiB",
                n(Flag::BlockSize),
                format_size(self.shape.block_size)
            ));
        }
        if self.shape.write_pct > 100 {
            return bad(format!(
                "{} {} is not in 0..100",
                n(Flag::WritePct),
                self.shape.write_pct
            ));
        }
        self.validate_trims()?;
        if let Some(Affinity::Cpus { cpus }) = &self.affinity {
            if cpus.is_empty() {
                return bad(format!(
                    "{} needs auto or a list of CPUs such as 0,2,4",
                    n(Flag::Affinity)
                ));
            }
        }
        Ok(())
    }

    /// Trims: instead of reads and writes, on an engine that can trim; ftruncate's writes
    /// are all it does.
    fn validate_trims(&self) -> Result<()> {
        let n = |f| self.name(f);
        let engine = self.engine.kind;
        if let Some(e) = engine.filter(|e| e.caps().sets_length) {
            if self.shape.write_pct != 100 || !self.shape.trim.is_none() {
                return bad(format!(
                    "the {} engine only writes (each write sets the file's length to its offset): {} must be 100, without trims",
                    e.name(),
                    n(Flag::WritePct)
                ));
            }
        }
        if self.fill && (self.shape.write_pct != 100 || !self.shape.trim.is_none()) {
            return bad(format!(
                "{} writes until the file system is full: the job must only write ({} 100, no trims)",
                n(Flag::Fill),
                n(Flag::WritePct)
            ));
        }
        if self.shape.trim.is_none() {
            return Ok(());
        }
        if self.shape.write_pct != 0 {
            return bad(format!(
                "{} replaces reads and writes: leave {} out",
                n(Flag::Trim),
                n(Flag::WritePct)
            ));
        }
        if let Some(e) = engine.filter(|e| e.caps().trim == TrimAs::Refused) {
            return bad(format!(
                "the {} engine cannot trim ({}): use sync, io_uring or falloc",
                e.name(),
                n(Flag::Trim)
            ));
        }
        if self.verify.is_some() {
            return bad(format!(
                "{} with {} is not supported yet: a trimmed unit has no content to check (planned)",
                n(Flag::Verify),
                n(Flag::Trim)
            ));
        }
        Ok(())
    }

    /// The engine and what only some engines have.
    fn validate_engine(&self) -> Result<()> {
        let n = |f| self.name(f);
        let injects = self.engine.kind.is_some_and(|e| e.caps().injects_latency);
        match (injects, self.engine.delay) {
            (true, None) => {
                return bad(format!(
                    "{} delay needs {} fixed:T, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA",
                    n(Flag::Engine),
                    n(Flag::Delay)
                ))
            }
            (true, Some(d)) => {
                let steps = [
                    Some((Flag::Delay, d)),
                    self.engine.delay_step.map(|s| (Flag::DelayStep, s.dist)),
                ];
                for (flag, d) in steps.into_iter().flatten() {
                    match d {
                        DelayDist::Uniform { min_ns, max_ns } if min_ns > max_ns => {
                            return bad(format!("{} uniform:MIN:MAX needs MIN <= MAX", n(flag)))
                        }
                        DelayDist::Lognormal { sigma, .. } if !(0.0..=5.0).contains(&sigma) => {
                            return bad(format!(
                                "{} lognormal sigma {sigma} must be between 0 and 5",
                                n(flag)
                            ))
                        }
                        _ => {}
                    }
                }
            }
            (_, Some(_)) => {
                return bad(format!(
                    "{} applies to {} delay only",
                    n(Flag::Delay),
                    n(Flag::Engine)
                ))
            }
            (_, None) if self.engine.delay_step.is_some() => {
                return bad(format!(
                    "{} needs {} delay and {}",
                    n(Flag::DelayStep),
                    n(Flag::Engine),
                    n(Flag::Delay)
                ))
            }
            _ => {}
        }
        // No engine named: the default's (Linux's io_uring has them all; Windows' iocp none).
        let caps = Some(self.engine.kind.unwrap_or(DEFAULT_ENGINE).caps());
        for (flag, on, has) in [
            (Flag::Sqpoll, self.engine.sqpoll, caps.map(|c| c.sqpoll)),
            (Flag::Hipri, self.engine.hipri, caps.map(|c| c.hipri)),
        ] {
            if on && has == Some(false) {
                return bad(format!("{} applies to the io_uring engine", n(flag)));
            }
        }
        if self.prio.per_io() && caps.is_some_and(|c| !c.per_io_prio) {
            return bad(format!(
                "{} (a priority in each I/O) applies to the io_uring engine",
                n(Flag::CmdPrio)
            ));
        }
        if let Some(bs) = self.prio.over_100() {
            let of = bs.map_or(String::new(), |b| format!(" of {b}-byte I/Os"));
            return bad(format!(
                "{}: the shares{of} add up to more than 100 %",
                n(Flag::CmdPrio)
            ));
        }
        let mapped = self.engine.kind.filter(|e| e.caps().mapped);
        if let Some(e) = mapped.filter(|_| self.cache != CacheMode::Buffered) {
            return bad(format!(
                "the {} engine reads and writes through the page cache: {} cannot apply; use {}",
                e.name(),
                self.dialect.cache(self.cache),
                self.dialect.cache(CacheMode::Buffered)
            ));
        }
        if self.engine.hipri && !self.cache.is_direct() {
            return bad(format!(
                "{} (polled completions) needs direct I/O: add {}",
                n(Flag::Hipri),
                self.dialect.cache(CacheMode::Direct)
            ));
        }
        Ok(())
    }

    /// Where in the targets I/O goes: the pattern and the working set.
    fn validate_offsets(&self) -> Result<()> {
        let n = |f| self.name(f);
        match &self.shape.pattern {
            Pattern::Random {
                align_bytes,
                distribution,
            } => {
                if *align_bytes == 0 {
                    return bad(format!("{} alignment must be more than 0", n(Flag::Random)));
                }
                if let Err(e) = distribution.check_zones() {
                    return bad(format!(
                        "{} {}: {e}",
                        n(Flag::Distribution),
                        distribution.text()
                    ));
                }
                match *distribution {
                    Distribution::Zipf { theta } if !(theta > 0.0 && theta.is_finite()) => {
                        return bad(format!(
                            "{} zipf:{theta}: THETA must be more than 0",
                            n(Flag::Distribution)
                        ))
                    }
                    Distribution::Pareto { h } if !(h > 0.0 && h < 1.0) => {
                        return bad(format!(
                            "{} pareto:{h}: H must be between 0 and 1",
                            n(Flag::Distribution)
                        ))
                    }
                    _ => {}
                }
            }
            Pattern::Sequential { stride_bytes, .. } => {
                if *stride_bytes == 0 {
                    return bad(format!(
                        "{} stride must be more than 0",
                        n(Flag::Sequential)
                    ));
                }
            }
        }
        if let Some(max) = self.shape.max_offset {
            if max <= self.shape.base_offset {
                return bad(format!(
                    "the working set ends ({} {}) before it begins ({} {})",
                    n(Flag::MaxOffset),
                    format_size(max),
                    n(Flag::BaseOffset),
                    format_size(self.shape.base_offset)
                ));
            }
            if max - self.shape.base_offset < self.shape.block_size {
                return bad(format!(
                    "{} {} is larger than the working set of {} between {} and {}",
                    n(Flag::BlockSize),
                    format_size(self.shape.block_size),
                    format_size(max - self.shape.base_offset),
                    n(Flag::BaseOffset),
                    n(Flag::MaxOffset)
                ));
            }
        }
        Ok(())
    }

    /// Stonewalling cuts a run by bytes: a timed run already stops every rank together.
    fn validate_stonewall(&self) -> Result<()> {
        let Some(wall) = self.timing.stonewall else {
            return Ok(());
        };
        let n = |f| self.name(f);
        if wall.ns == 0 {
            return bad(format!("{} must be more than 0", n(Flag::Stonewall)));
        }
        let Stop::TotalBytes { max_ns, .. } = self.timing.stop else {
            return bad(format!(
                "{} needs a run by bytes ({}): a timed run already stops every thread and rank \
                 together at the end of {}",
                n(Flag::Stonewall),
                n(Flag::Total),
                n(Flag::Duration)
            ));
        };
        if max_ns.is_some_and(|m| m <= wall.ns) {
            return bad(format!(
                "{} is not before the end of {}: the deadline would never come",
                n(Flag::Stonewall),
                n(Flag::Duration)
            ));
        }
        if self.timing.until_steady.is_some() || self.timing.until_flat.is_some() {
            return bad(format!(
                "{} cannot be combined with a stop rule ({} or {})",
                n(Flag::Stonewall),
                n(Flag::UntilSteady),
                n(Flag::UntilFlat)
            ));
        }
        Ok(())
    }

    /// The flat-window rule (fio's steadystate=): whole check intervals of whole time-series
    /// intervals, a window of one point or more, latency only where latency is timed.
    fn validate_flat(&self, rule: &FlatRule) -> Result<()> {
        let n = |f| self.name(f);
        if self.timing.until_steady.is_some() {
            return bad(format!(
                "{} and {} are two different stop rules: give one",
                n(Flag::UntilSteady),
                n(Flag::UntilFlat)
            ));
        }
        let ms = |ns: u64| format!("{}ms", ns / 1_000_000);
        let interval = self.timing.interval_ns;
        if rule.check_ns == 0 || !rule.check_ns.is_multiple_of(interval) {
            return bad(format!(
                "{} {} is not a whole number of {} ({})",
                n(Flag::FlatCheck),
                ms(rule.check_ns),
                n(Flag::Interval),
                ms(interval)
            ));
        }
        // One check interval is a window fio accepts: its one point has no spread (a deviation
        // rule holds at once) and no slope (a slope rule never does); stats/flat.rs judges so.
        if !rule.window_ns.is_multiple_of(rule.check_ns) || rule.window_ns < rule.check_ns {
            return bad(format!(
                "{} {} must be a whole number of {} ({}), at least one",
                n(Flag::FlatWindow),
                ms(rule.window_ns),
                n(Flag::FlatCheck),
                ms(rule.check_ns)
            ));
        }
        if rule.metric == FlatMetric::Lat && !self.latency {
            return bad(format!(
                "{} judges latency, which this job does not time (add {})",
                n(Flag::UntilFlat),
                n(Flag::Latency)
            ));
        }
        Ok(())
    }

    /// When the measured window starts and ends, and how it is sampled.
    fn validate_timing(&self) -> Result<()> {
        let n = |f| self.name(f);
        if let Some(rule) = self.timing.until_steady {
            if !matches!(self.timing.stop, Stop::Duration { .. }) {
                return bad(format!(
                    "{} needs a duration ({}, the maximum), not {}",
                    n(Flag::UntilSteady),
                    n(Flag::Duration),
                    n(Flag::Total)
                ));
            }
            if rule.window_ns < self.timing.interval_ns {
                return bad(format!(
                    "{} window {}ms is shorter than {} {}ms",
                    n(Flag::UntilSteady),
                    rule.window_ns / 1_000_000,
                    n(Flag::Interval),
                    self.timing.interval_ns / 1_000_000
                ));
            }
        }
        if let Some(rule) = self.timing.until_flat {
            self.validate_flat(&rule)?;
        }
        self.validate_stonewall()?;
        match self.timing.stop {
            Stop::Duration { ns: 0 }
            | Stop::TotalBytes {
                max_ns: Some(0), ..
            } => return bad(format!("{} must be more than 0", n(Flag::Duration))),
            Stop::Duration { ns } if ns / 1_000_000_000 > MAX_SECONDS => {
                return bad(format!("{} is longer than a year", n(Flag::Duration)))
            }
            Stop::TotalBytes { bytes, .. } if bytes < self.shape.block_size => {
                return bad(format!(
                    "{} {} is less than one block of {}",
                    n(Flag::Total),
                    format_size(bytes),
                    format_size(self.shape.block_size)
                ))
            }
            Stop::TotalBytes { .. } if self.timing.cooldown_ns > 0 => {
                return bad(format!(
                    "{} cannot be combined with {}: a run by bytes ends when the bytes are done",
                    n(Flag::Cooldown),
                    n(Flag::Total)
                ))
            }
            _ => {}
        }
        for (flag, ns) in [
            (Flag::Warmup, self.timing.warmup_ns),
            (Flag::Cooldown, self.timing.cooldown_ns),
        ] {
            if ns / 1_000_000_000 > MAX_SECONDS {
                return bad(format!("{} must be shorter than a year", n(flag)));
            }
        }
        // Each interval costs the collector a merge of every thread's histograms (about 0.5 MB
        // each); below 10 ms that work would compete with the workers for CPU.
        if self.timing.interval_ns < 10_000_000 {
            return bad(format!("{} must be at least 10 ms", n(Flag::Interval)));
        }
        Ok(())
    }

    /// Rate limits.
    fn validate_rates(&self) -> Result<()> {
        let n = |f| self.name(f);
        let (iops, bw) = (n(Flag::RateIops), n(Flag::RateBw));
        if self.limits.rate_iops == Some(0) {
            return bad(format!("{iops} must be more than 0"));
        }
        if self.limits.rate_bytes_per_sec == Some(0) {
            return bad(format!("{bw} must be more than 0"));
        }
        if self.limits.rate_iops.is_some() && self.limits.rate_bytes_per_sec.is_some() {
            return bad(format!(
                "{iops} and {bw} cannot be combined: give one limit"
            ));
        }
        if let Some(d) = self.limits.rate_dirs {
            if self.limits.rate_iops.is_some() || self.limits.rate_bytes_per_sec.is_some() {
                return bad("limits for reads and writes apart (R,W) cannot be combined with one limit for both".into());
            }
            if d.read.is_none() && d.write.is_none() {
                return bad(format!("{bw}/{iops} R,W: give at least one limit"));
            }
            if [d.read, d.write]
                .iter()
                .flatten()
                .any(|r| matches!(r, Rate::Iops { iops: 0 } | Rate::Bytes { per_sec: 0 }))
            {
                return bad(format!("{bw}/{iops} R,W: every limit must be more than 0"));
            }
        }
        if let Some(m) = self.limits.min_rate {
            self.validate_min_rate(m)?;
        }
        if let Some(l) = self.limits.latency_target {
            self.validate_latency_target(l)?;
        }
        let limited = self.limits.both().is_some() || self.limits.rate_dirs.is_some();
        if self.limits.poisson && !limited {
            return bad(format!(
                "{} needs a rate limit ({iops} or {bw}) to start I/Os at",
                n(Flag::RatePoisson)
            ));
        }
        Ok(())
    }

    /// A latency target above 0, judged on a percentage of I/Os from 0 to 100 (fio's range).
    fn validate_latency_target(&self, l: LatencyTarget) -> Result<()> {
        if l.ns == 0 {
            return bad(format!(
                "{} needs a time above 0",
                self.name(Flag::LatencyTarget)
            ));
        }
        if !(0.0..=100.0).contains(&l.pct) {
            return bad(format!(
                "{} must be a percentage from 0 to 100, not {}",
                self.name(Flag::LatencyPct),
                l.pct
            ));
        }
        Ok(())
    }

    /// Rate floors: above 0, one kind at a time, never above their own limit.
    fn validate_min_rate(&self, m: MinRate) -> Result<()> {
        let floor = self.name(Flag::RateMin);
        let apart = m.apart.unwrap_or_default();
        let any = |f: &Floor| f.bytes_per_sec > 0 || f.iops > 0;
        if m.bytes_per_sec == 0 && m.iops == 0 && !apart.iter().any(any) {
            return bad(format!("{floor} needs a rate above 0"));
        }
        if m.apart.is_some() && (m.bytes_per_sec > 0 || m.iops > 0) {
            return bad(format!("{floor}: floors for reads and writes apart (R,W) cannot be combined with one for both"));
        }
        // A floor above its own limit could only fail (fio refuses it too).
        let both = self.limits.both();
        let limits: Vec<(&str, Option<Rate>, Floor)> = match (m.apart, self.limits.rate_dirs) {
            (Some(f), Some(d)) => vec![("reads", d.read, f[0]), ("writes", d.write, f[1])],
            (Some(f), None) => vec![("reads", both, f[0]), ("writes", both, f[1])],
            (None, _) => {
                let f = Floor {
                    bytes_per_sec: m.bytes_per_sec,
                    iops: m.iops,
                };
                vec![("I/Os", both, f)]
            }
        };
        for (what, limit, floor_of) in limits {
            let over = match limit {
                Some(Rate::Iops { iops }) => floor_of.iops > iops,
                Some(Rate::Bytes { per_sec }) => floor_of.bytes_per_sec > per_sec,
                None => false,
            };
            if over {
                return bad(format!("{floor}: the floor for {what} is above their rate limit: the run could only fail"));
            }
        }
        if m.window_ns < self.timing.interval_ns.min(100_000_000) {
            return bad(format!(
                "{} must be at least 100 ms",
                self.name(Flag::RateMinWindow)
            ));
        }
        Ok(())
    }

    /// What varies per I/O: block-size mixes, partly random offsets, flushes, think time and
    /// buffer contents.
    fn validate_per_io(&self) -> Result<()> {
        self.validate_block_mix()?;
        self.validate_random_walk()?;
        self.validate_pauses()?;
        self.validate_thread_spread()?;
        self.validate_file_sets()?;
        if self.per_io.buffers.compress_pct > 100 {
            return bad(format!(
                "{} {} is not in 0..100",
                self.name(Flag::Compressible),
                self.per_io.buffers.compress_pct
            ));
        }
        if self.per_io.buffers.pattern.is_some() && self.verify.is_some() {
            // Only fio's buffer_pattern sets a pattern.
            return bad(format!(
                "buffer_pattern cannot be combined with {}: every verified block carries a header of its own",
                self.name(Flag::Verify)
            ));
        }
        self.validate_dedupe()
    }

    /// --dedupe: percentages, and a working set that leaves room for the duplicates.
    fn validate_dedupe(&self) -> Result<()> {
        let Some(d) = self.per_io.buffers.dedupe else {
            return Ok(());
        };
        let n = |f| self.name(f);
        let typed = |f, v: u8| self.dialect.assign(f, &v.to_string());
        if d.pct > 100 {
            return bad(format!("{} is not in 0..100", typed(Flag::Dedupe, d.pct)));
        }
        if self.verify.is_some() {
            return bad(format!(
                "{} cannot be combined with {}: every verified block carries a header of its own",
                n(Flag::Dedupe),
                n(Flag::Verify)
            ));
        }
        match d.mode {
            DedupeMode::WorkingSet { pct } if pct > 100 => bad(format!(
                "{} is not in 0..100",
                typed(Flag::DedupeWorkingSet, pct)
            )),
            // fio's own check: the working set's writes are new content, so with it over
            // 100 - PCT% of the writes fewer than PCT% could repeat.
            DedupeMode::WorkingSet { pct } if pct as u16 + d.pct as u16 > 100 => bad(format!(
                "{} and {} add up to more than 100: the working set's own writes are new content",
                typed(Flag::DedupeWorkingSet, pct),
                typed(Flag::Dedupe, d.pct)
            )),
            DedupeMode::Repeat if d.global => bad(format!(
                "{} applies to {}: a repeated write repeats its own thread's latest",
                n(Flag::DedupeGlobal),
                match self.dialect {
                    Dialect::Fio => self.dialect.assign(Flag::DedupeMode, "working_set"),
                    _ => self.dialect.assign(Flag::DedupeMode, "working-set"),
                }
            )),
            _ => Ok(()),
        }
    }

    fn validate_block_mix(&self) -> Result<()> {
        let Some(mix) = &self.shape.block_mix else {
            return Ok(());
        };
        let n = |f| self.name(f);
        for bs in [&mix.read, &mix.write] {
            for size in bs.sizes() {
                if size == 0 || size > (1 << 30) {
                    return bad(format!(
                        "{} {}: every size must be more than 0 and at most 1GiB",
                        n(Flag::BlockSizes),
                        bs.text()
                    ));
                }
            }
        }
        let largest = mix.read.largest().max(mix.write.largest());
        if self.shape.block_size != largest {
            return bad(format!(
                "{} {} must be the largest size of {} ({})",
                n(Flag::BlockSize),
                format_size(self.shape.block_size),
                n(Flag::BlockSizes),
                format_size(largest)
            ));
        }
        if let Pattern::Sequential {
            stride_bytes,
            interlocked,
            backwards,
        } = self.shape.pattern
        {
            if interlocked || backwards || stride_bytes != self.shape.block_size {
                return bad(format!(
                    "{} with sequential I/O walks the working set without gaps (each I/O starts where the one before ended): it cannot be combined with a {} stride, {} or a backwards walk",
                    n(Flag::BlockSizes),
                    n(Flag::Sequential),
                    n(Flag::Interlocked)
                ));
            }
        }
        Ok(())
    }

    /// Partly random offsets.
    fn validate_random_walk(&self) -> Result<()> {
        let n = |f| self.name(f);
        let random = matches!(self.shape.pattern, Pattern::Random { .. });
        if let Some(pct) = self.shape.random_pct {
            if !random {
                return bad(format!(
                    "{} applies to random I/O ({})",
                    n(Flag::RandomPct),
                    n(Flag::Random)
                ));
            }
            if !(1..=99).contains(&pct) {
                return bad(format!(
                    "{} {pct} must be between 1 and 99 (100 is all random, 0 sequential)",
                    n(Flag::RandomPct)
                ));
            }
        }
        if let Some(every) = self.shape.random_every {
            if !random {
                return bad(format!(
                    "{} applies to random I/O ({})",
                    n(Flag::RandomEvery),
                    n(Flag::Random)
                ));
            }
            if every < 2 {
                return bad(format!(
                    "{} {every} must be at least 2 (1 is plain random I/O)",
                    n(Flag::RandomEvery)
                ));
            }
            if self.shape.random_pct.is_some() {
                return bad(format!(
                    "{} and {} cannot be combined: give one",
                    n(Flag::RandomEvery),
                    n(Flag::RandomPct)
                ));
            }
        }
        Ok(())
    }

    /// Flushes and think time: pauses in a thread's stream of I/O.
    fn validate_pauses(&self) -> Result<()> {
        let n = |f| self.name(f);
        let polled = |flag| {
            bad(format!(
                "{} cannot be combined with {}: polled io_uring rings cannot flush",
                n(flag),
                n(Flag::Hipri)
            ))
        };
        if let Some(f) = self.per_io.flush {
            let flag = if f.data_only {
                Flag::Fdatasync
            } else {
                Flag::Fsync
            };
            if f.writes == 0 {
                return bad(format!("{} must be at least 1 (writes per flush)", n(flag)));
            }
            if self.engine.hipri {
                return polled(flag);
            }
        }
        if self.per_io.end_fsync && self.engine.hipri {
            return polled(Flag::EndFsync);
        }
        if let Some(t) = self.per_io.think {
            if t.every == 0 {
                return bad(format!("{} must be at least 1", n(Flag::ThinkEvery)));
            }
            if t.spin_ns > t.ns {
                return bad(format!(
                    "{} must not be longer than {}",
                    n(Flag::ThinkSpin),
                    n(Flag::Think)
                ));
            }
            if t.ns / 1_000_000_000 > 3600 {
                return bad(format!("{} must be at most an hour", n(Flag::Think)));
            }
        }
        Ok(())
    }

    /// Where each thread of a target begins.
    fn validate_thread_spread(&self) -> Result<()> {
        let n = |f| self.name(f);
        let misaligned = |flag, v: u64| {
            bad(format!(
                "{} {v} is not a multiple of {MIN_DIRECT_ALIGN} bytes, which direct I/O needs",
                n(flag)
            ))
        };
        if !self.shape.thread_offset.is_multiple_of(MIN_DIRECT_ALIGN) && self.cache.is_direct() {
            return misaligned(Flag::ThreadOffset, self.shape.thread_offset);
        }
        if self.shape.thread_start > 0 {
            let own_offsets = matches!(
                self.shape.pattern,
                Pattern::Sequential {
                    interlocked: false,
                    backwards: false,
                    ..
                }
            );
            if !own_offsets {
                return bad(format!(
                    "{} applies to sequential I/O ({}) whose threads keep their own offsets (not {})",
                    n(Flag::ThreadStart),
                    n(Flag::Sequential),
                    n(Flag::Interlocked)
                ));
            }
            if self.cache.is_direct() && !self.shape.thread_start.is_multiple_of(MIN_DIRECT_ALIGN) {
                return misaligned(Flag::ThreadStart, self.shape.thread_start);
            }
        }
        Ok(())
    }

    /// Threads over several files.
    fn validate_file_sets(&self) -> Result<()> {
        let Some(f) = self.file_sets else {
            return Ok(());
        };
        let n = |f| self.name(f);
        let count = self.targets.len();
        if f.files < 2 || !count.is_multiple_of(f.files as usize) {
            return bad(format!(
                "{} {}: the {count} targets must split into sets of 2 or more files of the same number",
                n(Flag::FileSet),
                f.files
            ));
        }
        if let FileService::RoundRobin { every: 0 } | FileService::Random { every: 0 } = f.service {
            return bad(format!(
                "{}: a count of I/Os must be above 0",
                n(Flag::FileService)
            ));
        }
        if f.service == FileService::Slots && !self.queue_depth.is_multiple_of(f.files) {
            return bad(format!(
                "{} slots: queue depth {} does not split evenly over {} files",
                n(Flag::FileService),
                self.queue_depth,
                f.files
            ));
        }
        self.validate_open_files(f)
    }

    /// A limit on the files a thread keeps open applies where files are opened for I/O and
    /// may be closed between I/Os.
    fn validate_open_files(&self, f: FileSets) -> Result<()> {
        if f.open_files == Some(0) {
            return bad(format!(
                "{} 0: a thread needs at least one file open",
                self.name(Flag::OpenFiles)
            ));
        }
        let Some(open) = f.lazy() else {
            return Ok(());
        };
        let limit = self.dialect.assign(Flag::OpenFiles, &open.to_string());
        let why = match self.engine.kind {
            Some(e) if e.caps().mapped => "maps each file for the whole run",
            Some(e) if e.is_file_op() => "holds no file open",
            _ if f.service == FileService::Slots => {
                return bad(format!(
                    "{limit}: {} keeps I/Os in flight on all {} files at once",
                    self.dialect.assign(Flag::FileService, "slots"),
                    f.files
                ))
            }
            _ => return Ok(()),
        };
        let engine = self.engine.kind.map_or("", |e| e.name());
        bad(format!(
            "{limit}: {} {why}; use the sync or io_uring engine",
            self.dialect.assign(Flag::Engine, engine)
        ))
    }

    /// The file-operation engines (filecreate, filestat, filedelete) do one operation on each
    /// file of a thread's set and move no data: whatever would make a file see two operations,
    /// or give bytes a meaning, is refused here.
    fn validate_file_ops(&self) -> Result<()> {
        let Some(engine) = self.engine.kind.filter(|e| e.is_file_op()) else {
            return Ok(());
        };
        let n = |f| self.name(f);
        let fail = |why: String| {
            bad(format!(
                "{}: {why}",
                self.dialect.assign(Flag::Engine, engine.name())
            ))
        };
        let files = self.targets.len() as u64;
        let once = files * self.shape.block_size;
        match self.timing.stop {
            Stop::TotalBytes { bytes, .. } if bytes == once => {}
            Stop::TotalBytes { .. } => {
                return fail(format!(
                    "one operation per file: {} must be the {files} files times {} ({}), or left out",
                    n(Flag::Total),
                    n(Flag::BlockSize),
                    format_size(once)
                ))
            }
            Stop::Duration { .. } => {
                return fail(format!(
                    "one operation per file: the run ends when each file has had its own; {} may only limit it",
                    n(Flag::Duration)
                ))
            }
        }
        if self.threads_per_target != 1 {
            return fail(format!(
                "each thread works on files of its own: {} must be 1 (give each thread its own files)",
                n(Flag::Threads)
            ));
        }
        if self.shape.write_pct != 0 && self.shape.write_pct != 100 {
            return fail(format!(
                "an operation counts as a read or as a write, not a mix: {} must be 0 or 100",
                n(Flag::WritePct)
            ));
        }
        if self.cache != CacheMode::Buffered {
            return fail(format!(
                "operations on names do not go through a cache mode: {} cannot apply; use {}",
                self.dialect.cache(self.cache),
                self.dialect.cache(CacheMode::Buffered)
            ));
        }
        let in_turn = matches!(
            self.shape.pattern,
            Pattern::Sequential {
                interlocked: false,
                backwards: false,
                ..
            }
        );
        if !in_turn {
            return fail(format!(
                "the files are taken in turn: {} and {} do not apply; use sequential I/O",
                n(Flag::Random),
                n(Flag::Interlocked)
            ));
        }
        if let Some(f) = self.file_sets {
            if !matches!(
                f.service,
                FileService::RoundRobin { every: 1 } | FileService::Sequential
            ) {
                return fail(format!(
                    "each file once: {} does not apply; use roundrobin or sequential",
                    self.dialect.assign(Flag::FileService, &f.service.text())
                ));
            }
        }
        if let Some(flags) = self.file_op_refusals() {
            return fail(format!("{flags} cannot apply to operations on names"));
        }
        Ok(())
    }

    /// The first setting a file-operation engine cannot take, named.
    fn file_op_refusals(&self) -> Option<String> {
        let n = |f| self.name(f);
        let rate_bytes = self.limits.rate_bytes_per_sec.is_some()
            || self.limits.rate_dirs.is_some_and(|d| {
                [d.read, d.write]
                    .iter()
                    .any(|r| matches!(r, Some(Rate::Bytes { .. })))
            })
            || self.limits.min_rate.is_some_and(|m| {
                m.bytes_per_sec > 0
                    || m.apart
                        .is_some_and(|a| a.iter().any(|f| f.bytes_per_sec > 0))
            });
        let refused = [
            (
                format!(
                    "{} (operations in it would not be counted, and a file has one)",
                    n(Flag::Warmup)
                ),
                self.timing.warmup_ns > 0,
            ),
            (
                n(Flag::BlockSizes).to_string(),
                self.shape.block_mix.is_some(),
            ),
            (
                format!(
                    "{}, {} and {}",
                    n(Flag::Fsync),
                    n(Flag::Fdatasync),
                    n(Flag::EndFsync)
                ),
                self.per_io.flush.is_some() || self.per_io.end_fsync,
            ),
            (
                format!(
                    "{} and byte floors (no data moves; use {})",
                    n(Flag::RateBw),
                    n(Flag::RateIops)
                ),
                rate_bytes,
            ),
            (
                format!(
                    "{}, {}, {} and {}",
                    n(Flag::BaseOffset),
                    n(Flag::MaxOffset),
                    n(Flag::ThreadOffset),
                    n(Flag::ThreadStart)
                ),
                self.shape.base_offset > 0
                    || self.shape.max_offset.is_some()
                    || self.shape.thread_offset > 0
                    || self.shape.thread_start > 0,
            ),
            (
                format!("{} and {}", n(Flag::Compressible), n(Flag::RefillBuffers)),
                !self.per_io.buffers.is_default(),
            ),
        ];
        refused
            .into_iter()
            .find(|(_, on)| *on)
            .map(|(what, _)| what)
    }

    /// Direct I/O needs the block size, base offset and random alignment or sequential stride
    /// to be multiples of `align`: 512 before any target is opened, the target's own
    /// requirement once it is (`on` names it in the message).
    /// --verify: an engine that moves data, and every I/O made of whole units (sizes,
    /// offsets and steps multiples of the unit), each big enough for its header.
    fn validate_verify(&self) -> Result<()> {
        let (Some(v), Some(unit)) = (&self.verify, self.verify_unit()) else {
            return Ok(());
        };
        let n = |f| self.name(f);
        if let Some(e) = self.engine.kind.filter(|e| e.is_file_op()) {
            return bad(format!(
                "{} checks data, and {} moves none",
                n(Flag::Verify),
                self.dialect.assign(Flag::Engine, e.name())
            ));
        }
        let header = crate::verify::block::HEADER as u64;
        if unit < 2 * header || unit > self.shape.block_size {
            return bad(format!(
                "{} {}: each unit holds a {header}-byte header, so at least {} and at most the \
                 block size ({})",
                n(Flag::VerifyInterval),
                format_size(unit),
                2 * header,
                format_size(self.shape.block_size)
            ));
        }
        if self.shape.block_size / unit > u64::from(u16::MAX) {
            return bad(format!(
                "{} {}: at most {} units an I/O",
                n(Flag::VerifyInterval),
                format_size(unit),
                u16::MAX
            ));
        }
        if v.backlog == Some(0) {
            return bad(format!("{} 0: at least 1 write", n(Flag::VerifyBacklog)));
        }
        // Units count from the working set's start (its origin), so the base offset need
        // not be whole units: fio's cross-stripe-verify starts at 120k with 16k units.
        self.check_alignment_to(unit, false, |flag, what, value| {
            format!(
                "{}{what} {value} is not a multiple of the verification unit {} ({}): every \
                 I/O must be whole units",
                n(flag),
                format_size(unit),
                n(Flag::VerifyInterval)
            )
        })?;
        if !self.shape.thread_offset.is_multiple_of(unit) {
            return bad(format!(
                "{} {} is not a multiple of the verification unit {}",
                n(Flag::ThreadOffset),
                self.shape.thread_offset,
                format_size(unit)
            ));
        }
        Ok(())
    }

    /// Every size and step of the job a multiple of `align`, or the message `says` gives the
    /// first that is not (flag, what, value).
    /// Block sizes, the stride or random alignment, and where `absolute` the base offset.
    fn check_alignment_to(
        &self,
        align: u64,
        absolute: bool,
        says: impl Fn(Flag, &str, u64) -> String,
    ) -> Result<()> {
        let step = match &self.shape.pattern {
            Pattern::Random { align_bytes, .. } => (Flag::Random, " alignment", *align_bytes),
            Pattern::Sequential { stride_bytes, .. } => {
                (Flag::Sequential, " stride", *stride_bytes)
            }
        };
        let base = absolute.then_some((Flag::BaseOffset, "", self.shape.base_offset));
        let checks = [(Flag::BlockSize, "", self.shape.block_size), step]
            .into_iter()
            .chain(base);
        let mixed: Vec<(Flag, &str, u64)> = self
            .shape
            .block_mix
            .iter()
            .flat_map(|m| m.read.sizes().into_iter().chain(m.write.sizes()))
            .map(|b| (Flag::BlockSizes, "", b))
            .collect();
        for (flag, what, value) in checks.chain(mixed) {
            if value % align != 0 {
                return bad(says(flag, what, value));
            }
        }
        Ok(())
    }

    /// Lengths drawn at any byte (fio's bs_unaligned) are not whole sectors.
    fn check_any_byte_not_direct(&self) -> Result<()> {
        let any_byte = self.shape.block_mix.iter().any(|m| {
            [&m.read, &m.write]
                .iter()
                .any(|b| matches!(b, BlockSizes::Range { any_byte: true, .. }))
        });
        match any_byte {
            true => bad(format!(
                "block lengths drawn at any byte (fio's bs_unaligned) cannot be direct I/O, which needs whole sectors; use {}",
                self.dialect.cache(CacheMode::Buffered)
            )),
            false => Ok(()),
        }
    }

    pub fn check_direct_alignment(&self, align: u64, on: Option<&std::path::Path>) -> Result<()> {
        let on = on
            .map(|p| format!(" on '{}'", p.display()))
            .unwrap_or_default();
        self.check_alignment_to(align, true, |flag, what, value| {
            format!(
                "{}{what} {value} is not a multiple of {align} bytes, which direct I/O{on} needs; align it or use {}",
                self.name(flag),
                self.dialect.cache(CacheMode::Buffered)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::diskspd::{self, Targets};
    use crate::spec::fio::{options, read_str, tests::vars};
    use std::path::Path;

    fn fio_error(text: &str) -> String {
        let jobs = read_str(text, "t.fio", Path::new("."), &vars()).unwrap();
        let o = options::MapOptions {
            ignore_unsupported: false,
            allow_overwrite: false,
            keep: false,
            size_of: &|_| Some(1 << 30),
            exists: &|_| false,
            free_space_of: &|_| None,
        };
        match options::plan(&jobs, &o) {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        }
    }

    fn diskspd_error(line: &str) -> String {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let t = Targets { disks: &Vec::new };
        match diskspd::parse(&args, &t) {
            Ok(_) => panic!("accepted: {line}"),
            Err(e) => e.to_string(),
        }
    }

    /// iogauge's own long flags: none may appear in an error about a foreign tool's job.
    fn names_no_native_flag(msg: &str) -> bool {
        !msg.split_whitespace()
            .any(|w| w.trim_start_matches(['(', '\'']).starts_with("--"))
    }

    #[test]
    fn fio_jobs_are_refused_in_fio_words() {
        let cases = [
            ("bs=2g\n", "bs 2GiB is more than 1GiB"),
            ("bs=1000\ndirect=1\n", "bs 1000 is not a multiple of 512 bytes, which direct I/O needs; align it or use direct=0"),
            ("rw=randread\nrandom_distribution=zipf:0\n", "random_distribution zipf:0: THETA must be more than 0"),
            ("rate=1m\nrate_min=2m\n", "rate_min: the floor for I/Os is above their rate limit"),
            ("bs=4k\nsize=1k\n", "bs 4KiB is larger than the working set of 1KiB between offset and size"),
            ("ramp_time=400d\n", "ramp_time must be shorter than a year"),
            ("ioengine=mmap\ndirect=1\n", "direct=1 cannot apply; use direct=0"),
        ];
        for (options, want) in cases {
            let msg = fio_error(&format!("[j]\nfilename=/x\nsize=1m\n{options}"));
            assert!(msg.contains(want), "{options}: {msg}");
            assert!(names_no_native_flag(&msg), "{options}: {msg}");
        }
    }

    /// A set of no files was a division by zero (counting threads) before it was refused.
    #[test]
    fn a_file_set_of_no_files_is_refused_not_a_panic() {
        let argv: Vec<String> = "iogauge run -c 1M --file-set 0 a.dat b.dat"
            .split_whitespace()
            .map(String::from)
            .collect();
        let e = crate::spec::native::job_from_argv(&argv).unwrap_err();
        assert!(
            e.to_string()
                .contains("--file-set 0: the 2 targets must split"),
            "{e}"
        );
    }

    /// What an engine lacks (a capability, its own setting) is refused naming the engine.
    #[test]
    #[cfg_attr(
        not(target_os = "linux"),
        ignore = "io_uring (Linux's) is the default engine there"
    )]
    fn engine_options_are_refused_where_the_engine_lacks_them() {
        let refused = |flags: &str| {
            let argv: Vec<String> = format!("iogauge run -c 1M {flags} a.dat")
                .split_whitespace()
                .map(String::from)
                .collect();
            match crate::spec::native::job_from_argv(&argv) {
                Ok(_) => None,
                Err(e) => Some(e.to_string()),
            }
        };
        let cases = [
            ("--engine sync --sqpoll", "--sqpoll applies to the io_uring engine"),
            ("--engine null --hipri", "--hipri applies to the io_uring engine"),
            (
                "--engine mmap --cmdprio 30/1/4",
                "--cmdprio (a priority in each I/O) applies to the io_uring engine",
            ),
            ("--engine delay", "--engine delay needs --delay fixed:T, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA"),
            ("--engine sync --delay fixed:1ms", "--delay applies to --engine delay only"),
            (
                "--engine mmap --trim only",
                "the mmap engine cannot trim (--trim): use sync, io_uring or falloc",
            ),
            (
                "--engine ftruncate --write-pct 50",
                "the ftruncate engine only writes (each write sets the file's length to its offset): --write-pct must be 100, without trims",
            ),
            (
                "--engine ftruncate --trim only",
                "the ftruncate engine only writes",
            ),
        ];
        for (flags, want) in cases {
            let msg = refused(flags).unwrap_or_else(|| panic!("accepted: {flags}"));
            assert!(msg.contains(want), "{flags}: {msg}");
        }
        // Where they are the engine's, or no engine is named (the default has them), they pass.
        for flags in [
            "--engine io_uring --sqpoll --cmdprio 30/1/4",
            "--sqpoll",
            "--engine delay --delay fixed:1ms",
            "--engine falloc --trim only",
            "--engine null --trim only",
        ] {
            assert_eq!(refused(flags), None, "{flags}");
        }
    }

    #[test]
    fn diskspd_lines_are_refused_in_diskspd_words() {
        let msg = diskspd_error("-b2G -c4G t.dat");
        assert!(msg.contains("-b 2GiB is more than 1GiB"), "{msg}");
        assert!(names_no_native_flag(&msg), "{msg}");
    }

    #[test]
    fn a_setting_the_tool_lacks_is_named_as_iogauges() {
        use crate::spec::{Dialect, Flag};
        assert_eq!(
            Dialect::Fio.name(Flag::Cooldown).to_string(),
            "iogauge's --cooldown"
        );
        assert_eq!(
            Dialect::Iogauge.name(Flag::Cooldown).to_string(),
            "--cooldown"
        );
        assert_eq!(Dialect::Diskspd.assign(Flag::Create, "SIZE"), "-cSIZE");
        assert_eq!(Dialect::Fio.assign(Flag::Create, "SIZE"), "size=SIZE");
        assert_eq!(Dialect::Iogauge.assign(Flag::Create, "SIZE"), "-c SIZE");
    }
}
