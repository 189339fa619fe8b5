//! `RunResult`: what a run measured, in base units (bytes, nanoseconds, counts). Reports render
//! it; the JSON report is its serialization, described by `schema/run-result.schema.json`.
//! Bump [`SCHEMA_VERSION`] on any change that could break a reader.
//!
//! The other kinds of result live beside it, one file each, with their own schema and
//! version: [`profile`], [`fs`] (the file-system suite), [`sweep`] and [`workload`]. The front
//! ends that run them fill them in; reports and the store read them from here.

pub mod dataset;
pub mod fs;
pub mod io500;
pub mod ior;
pub mod limit;
pub mod mdtest;
pub mod profile;
pub mod ranks;
pub mod sweep;
pub mod workload;

use crate::clock::ClockInfo;
use crate::engine::RingFeatures;
use crate::facts::{SystemFacts, TargetFacts, TargetKind};
use crate::spec::{EngineKind, JobSpec};
use crate::stats::cpu::CpuUsage;
use crate::stats::phases::PhaseLabel;
use crate::stats::LatencySummary;
use serde::{Deserialize, Serialize};

/// What a result of the file-system suite, a sweep, a workload or a profile opens with: which
/// schema it follows, which iogauge made it, when, from what command line, on what machine.
/// Flattened into each (`#[serde(flatten)]`), so its keys stay at the top level, first and in
/// this order, as they were before there was one struct for them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    pub schema: String,
    pub schema_version: u32,
    // The four below load empty where a kind's older results lack them (profile before its
    // schema 4); `Header::is_whole` says whether they were there.
    #[serde(default)]
    pub tool_version: String,
    /// When the work started, nanoseconds since the Unix epoch: a run's measured window,
    /// another command's start.
    #[serde(default)]
    pub started_unix_ns: u64,
    #[serde(default)]
    pub command_line: Vec<String>,
    #[serde(default)]
    pub system: SystemFacts,
}

impl Header {
    /// A header for a result of `schema` at `version`, made by this iogauge on this machine.
    pub fn new(
        schema: &str,
        version: u32,
        started_unix_ns: u64,
        command_line: Vec<String>,
    ) -> Header {
        Header {
            schema: schema.into(),
            schema_version: version,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            started_unix_ns,
            command_line,
            system: SystemFacts::collect(),
        }
    }

    /// Whether the result said all of it (a profile saved before its schema 4 said only the
    /// schema and its version).
    pub fn is_whole(&self) -> bool {
        !self.tool_version.is_empty()
    }
}

pub const SCHEMA_NAME: &str = "iogauge-run-result";
/// 2: `phases` added.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The run ended as planned.
    Completed,
    /// Ctrl-C or SIGTERM.
    Interrupted,
    /// An I/O failed and --continue-on-error was not given.
    IoError,
}

/// What a run measured: counts only, or every I/O's latency too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// No per-I/O timestamps: the highest IOPS.
    Iops,
    /// Per-I/O latency (-L).
    Latency,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResult {
    /// Schema, versions, start (of the measured window), command line, system: the keys every
    /// kind opens with.
    #[serde(flatten)]
    pub header: Header,
    /// True when the run did not end as planned; the figures cover the time it did run.
    pub partial: bool,
    pub stop_reason: StopReason,
    pub stop_message: Option<String>,
    /// Things the user should know about how the job ran (engine fallback, queue depth...).
    pub notes: Vec<String>,
    /// What looks wrong with the run, each with its fix ([`crate::warnings`]).
    pub warnings: Vec<Warning>,
    pub job: JobSpec,
    pub mode: Mode,
    /// The engine and queue depth that actually ran.
    pub engine: EngineKind,
    pub queue_depth: u32,
    /// io_uring features in use (registered file and buffers, DEFER_TASKRUN, SQPOLL, IOPOLL).
    pub io_uring: Option<RingFeatures>,
    pub clock: ClockInfo,
    /// How completions were found, all threads together.
    pub waits: WaitStats,
    /// The delay engine's injected latencies, to compare with the measured ones.
    pub injected_latency: Option<LatencySummary>,
    /// Length of the measured window (warm-up and cool-down excluded).
    pub measured_ns: u64,
    pub cpu: Vec<CpuUsage>,
    pub targets: Vec<TargetResult>,
    pub total: DirPair,
    pub errors: Vec<ErrorCount>,
    pub time_series: TimeSeries,
    /// The stretches of the run at one throughput level, found in `time_series`
    /// ([`TimeSeries::phases`]); one phase when the run held one level. Results saved before
    /// schema 2 have none stored and are given theirs when read.
    #[serde(default)]
    pub phases: Vec<Phase>,
    pub iogauge_usage: SelfUsage,
    /// Flushes issued by --fsync, --fdatasync or --end-fsync; absent without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flushes: Option<FlushResult>,
    /// The ranks of an MPI job, when this result is their aggregate ([`crate::cluster`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<ClusterResult>,
    /// How a stonewall deadline went (`--stonewall`, IOR's -D).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stonewall: Option<StonewallResult>,
    /// What data verification found (`--verify`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::verify::VerifyResult>,
    /// The queue depth a latency target's search found (`--latency-target`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_target: Option<LatencyTargetResult>,
    /// What the zones with write pointers came to (`--zbd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zones: Option<ZonesResult>,
    /// What the system did over the measured window (`os::vitals`); absent where it was not
    /// sampled (another system, results saved before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signals: Option<crate::os::vitals::Signals>,
    /// What limited the run, judged from the above ([`limit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<limit::Limit>,
}

/// Zones with write pointers (`--zbd`), all threads together.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ZonesResult {
    pub zone_size: u64,
    pub zone_capacity: u64,
    /// Zones reset to be written again (fio's zone resets).
    pub resets: u64,
    /// Threads that ended early because no zone held data left to read, or none could be
    /// opened for writing.
    pub threads_ended_early: u32,
}

/// Where a latency target's search ended (fio's latency_depth, with the target it met).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LatencyTargetResult {
    /// The depth found: with several threads, the least any thread ended at.
    pub depth: u32,
    pub target_ns: u64,
    pub window_ns: u64,
    pub pct: f64,
    /// Whether the depth settled and ended the run; false where the run ended first, or the
    /// search went on for the whole run (`--latency-keep-adjusting`).
    pub settled: bool,
}

/// IOR's stonewalling, as it went: whether the deadline cut the work, and what had been done
/// by then. On an MPI job's aggregate, summed over the ranks (the spread is in `cluster`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StonewallResult {
    /// From the start of the measured window.
    pub deadline_ns: u64,
    pub wear_out: bool,
    /// Whether the deadline came before every thread had done its bytes.
    pub reached: bool,
    /// Bytes done by the deadline (with wear-out: when the last thread had stopped at it).
    pub bytes_at_deadline: u64,
    /// From the start of the measured window to when the last thread had stopped at the
    /// deadline or ended before it; over an MPI job, from the first rank's start.
    pub stopped_ns: u64,
    /// Wear-out: the bytes each thread then went on to, the most any one thread (of any rank)
    /// had done by the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_thread: Option<u64>,
}

impl StonewallResult {
    /// The rate over the stonewalled window: the bytes done by the deadline over the time
    /// until every thread had stopped.
    pub fn bytes_per_sec(&self) -> f64 {
        if self.stopped_ns == 0 {
            return 0.0;
        }
        self.bytes_at_deadline as f64 * 1e9 / self.stopped_ns as f64
    }
}

/// Flushes of all threads. `count` and `latency` are the every-N-writes flushes (--fsync,
/// --fdatasync) that completed, those of the warm-up left out, timed from issue to completion
/// (always: a flush is rare enough to cost nothing). The end flush (--end-fsync) is apart, as
/// fio keeps it: the longest any thread's took.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlushResult {
    pub count: u64,
    pub latency: Option<LatencySummary>,
    /// The longest end flush of any thread (--end-fsync); a thread over several files flushes
    /// each it wrote, one after the other, and this is their sum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_fsync_max_ns: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetResult {
    pub path: String,
    pub kind: TargetKind,
    pub size_bytes: u64,
    pub working_set_start: u64,
    pub working_set_end: u64,
    /// iogauge created this file for the run.
    pub created: bool,
    /// File system and device facts.
    pub facts: TargetFacts,
    pub threads: Vec<ThreadResult>,
    pub total: DirPair,
    /// A set of files its threads share (--file-set): each file and what went to it. The
    /// target's path then lists them joined with ':', its size is theirs together, and its
    /// kind, facts and working set are those of the first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileShare>,
}

/// One file of a set, and the I/O that went to it (counts only: latencies are the set's).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileShare {
    pub path: String,
    pub size_bytes: u64,
    pub working_set_start: u64,
    pub working_set_end: u64,
    pub created: bool,
    pub read: IoCount,
    pub write: IoCount,
    #[serde(default, skip_serializing_if = "IoCount::is_zero")]
    pub trim: IoCount,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct IoCount {
    pub ios: u64,
    pub bytes: u64,
}

impl IoCount {
    pub fn is_zero(&self) -> bool {
        self.ios == 0 && self.bytes == 0
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ThreadResult {
    pub thread: u32,
    /// The CPU the thread was pinned to (--affinity).
    pub cpu: Option<usize>,
    pub total: DirPair,
    pub errors: Vec<ErrorCount>,
    pub waits: WaitStats,
    /// Where the thread works over a set of files: what went to each, in the set's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileCounts>,
    /// The thread's own intervals, where the run kept them ([`crate::runner::Keep`]'s
    /// `per_thread_series`: DiskSpd's `-D` per target); not saved.
    #[serde(skip)]
    pub time_series: Vec<Sample>,
}

/// The I/O one thread sent to one file of its set.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileCounts {
    pub read: IoCount,
    pub write: IoCount,
    #[serde(default, skip_serializing_if = "IoCount::is_zero")]
    pub trim: IoCount,
}

/// Reads, writes and (where the job trims) trims apart, and all together.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DirPair {
    pub read: DirResult,
    pub write: DirResult,
    /// Only where the job trims (`--trim`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<DirResult>,
    pub all: DirResult,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DirResult {
    pub ios: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bytes_per_sec: f64,
    /// Completion latency, submitted to completed: the headline figure. Null in IOPS mode or
    /// when there was no I/O in this direction.
    pub latency: Option<LatencySummary>,
    /// Queued to handed to the kernel (asynchronous engines).
    pub latency_submission: Option<LatencySummary>,
    /// Queued to completed.
    pub latency_total: Option<LatencySummary>,
    /// From the rate schedule's planned start to completed (rate-limited runs).
    pub latency_scheduled: Option<LatencySummary>,
    /// The HDR histogram behind `latency` ([`crate::stats::LatencyHistogram::to_base64`]).
    #[serde(default)]
    pub latency_histogram: Option<String>,
    /// The HDR histogram behind `latency_total`.
    #[serde(default)]
    pub latency_total_histogram: Option<String>,
    /// The histograms behind `latency_submission` and `latency_scheduled`: kept only where
    /// results are merged later (the ranks of an MPI job), not in saved results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_submission_histogram: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_scheduled_histogram: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ErrorCount {
    /// The errno, or -1 for a short transfer.
    pub errno: i32,
    pub name: String,
    pub count: u64,
    /// Where the first of them were (byte offsets in their targets), at most
    /// [`ERROR_OFFSETS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offsets: Vec<u64>,
}

/// Offsets an error count keeps.
pub const ERROR_OFFSETS: usize = 16;

impl ErrorCount {
    /// Add `other`'s count and its offsets (up to [`ERROR_OFFSETS`]).
    pub fn add(&mut self, count: u64, offsets: &[u64]) {
        self.count += count;
        for &o in offsets {
            if self.offsets.len() < ERROR_OFFSETS {
                self.offsets.push(o);
            }
        }
    }
}

/// Errors by errno: `more` added into `all`.
pub fn merge_errors(all: &mut Vec<ErrorCount>, more: &[ErrorCount]) {
    for e in more {
        match all.iter_mut().find(|x| x.errno == e.errno) {
            Some(x) => x.add(e.count, &e.offsets),
            None => all.push(e.clone()),
        }
    }
    all.sort_by_key(|e| e.errno);
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TimeSeries {
    pub interval_ns: u64,
    pub samples: Vec<Sample>,
}

impl RunResult {
    /// Did the I/O go through the page cache (so that a level the run fell from is the
    /// cache's rather than the device's burst)?
    pub fn through_cache(job: &JobSpec, engine: EngineKind) -> bool {
        !job.cache.is_direct() && engine.can_cache()
    }

    /// Results saved before schema 2 carry no phases: find them, as a run does at its end.
    pub fn add_phases(&mut self) {
        if self.header.schema_version < 2 && self.phases.is_empty() {
            let cached = RunResult::through_cache(&self.job, self.engine);
            self.phases = self.time_series.phases(cached);
        }
    }
}

impl TimeSeries {
    /// The full intervals (a last one cut short by the end of the run left out).
    pub fn full(&self) -> impl Iterator<Item = &Sample> {
        let iv = self.interval_ns.max(1);
        self.samples.iter().filter(move |s| s.duration_ns == iv)
    }

    /// Throughput of each full interval: bytes per second, or I/Os per second where no bytes
    /// moved (file operations).
    pub fn rates(&self) -> Vec<f64> {
        let per_sec = 1e9 / self.interval_ns.max(1) as f64;
        let bytes = self.full().any(|s| s.read.bytes + s.write.bytes > 0);
        self.full()
            .map(|s| {
                let v = if bytes {
                    s.read.bytes.saturating_add(s.write.bytes)
                } else {
                    s.read.ios.saturating_add(s.write.ios)
                };
                v as f64 * per_sec
            })
            .collect()
    }

    /// The run's phases ([`crate::stats::phases`]); `cached`: the I/O went through the page
    /// cache, so a level the run fell from is the cache's.
    pub fn phases(&self, cached: bool) -> Vec<Phase> {
        let full: Vec<&Sample> = self.full().collect();
        let rates = self.rates();
        crate::stats::phases::find(&rates, cached)
            .iter()
            .map(|span| {
                Phase::of(
                    span,
                    &full[span.start..span.end],
                    &rates[span.start..span.end],
                )
            })
            .collect()
    }
}

/// A stretch of the run at one throughput level.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Phase {
    pub label: PhaseLabel,
    /// From the start of the measured window; `end_ns` exclusive.
    pub start_ns: u64,
    pub end_ns: u64,
    /// Over the phase's intervals; throughput is I/Os per second for file operations, where
    /// no bytes move.
    pub bytes_per_sec_mean: f64,
    pub bytes_per_sec_p5: f64,
    pub bytes_per_sec_p95: f64,
    pub iops_mean: f64,
    /// Completion latency of the phase's I/Os (mean of every I/O); null in IOPS mode.
    pub latency_mean_ns: Option<u64>,
    /// The median over the phase's intervals of each interval's p99 (the higher of reads'
    /// and writes'): the p99 a typical interval of the phase had. Null in IOPS mode.
    pub latency_p99_ns: Option<u64>,
}

impl Phase {
    fn of(span: &crate::stats::phases::Span, samples: &[&Sample], rates: &[f64]) -> Phase {
        let mut sorted = rates.to_vec();
        sorted.sort_by(f64::total_cmp);
        let at = |q: f64| sorted[((sorted.len() - 1) as f64 * q).round() as usize];
        let ios: u64 = samples.iter().map(|s| s.read.ios + s.write.ios).sum();
        let secs: f64 = samples.iter().map(|s| s.duration_ns as f64 / 1e9).sum();
        let (mut lat_sum, mut lat_ios) = (0.0, 0u64);
        let mut p99s = Vec::new();
        for s in samples {
            for d in [&s.read, &s.write] {
                if let Some(m) = d.latency_mean_ns {
                    lat_sum += m as f64 * d.ios as f64;
                    lat_ios += d.ios;
                }
            }
            if let Some(p) = s.read.latency_p99_ns.max(s.write.latency_p99_ns) {
                p99s.push(p);
            }
        }
        p99s.sort_unstable();
        let first = samples.first().map_or(0, |s| s.start_ns);
        let last = samples.last().map_or(0, |s| s.start_ns + s.duration_ns);
        Phase {
            label: span.label,
            start_ns: first,
            end_ns: last,
            bytes_per_sec_mean: span.level,
            bytes_per_sec_p5: at(0.05),
            bytes_per_sec_p95: at(0.95),
            iops_mean: if secs > 0.0 { ios as f64 / secs } else { 0.0 },
            latency_mean_ns: (lat_ios > 0).then(|| (lat_sum / lat_ios as f64).round() as u64),
            latency_p99_ns: p99s.get(p99s.len() / 2).copied(),
        }
    }

    pub fn duration_ns(&self) -> u64 {
        self.end_ns - self.start_ns
    }

    fn is_high(&self) -> bool {
        matches!(
            self.label,
            PhaseLabel::Peak | PhaseLabel::Burst | PhaseLabel::Cache
        )
    }
}

/// A run that fell from a burst (or the cache) to a baseline it held at its end: the burst
/// profile's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fall {
    /// `Burst` or `Cache`.
    pub high: PhaseLabel,
    /// From the start of the measured window to the end of the last burst or peak phase.
    pub high_ns: u64,
    /// Time-weighted over the burst and peak phases.
    pub high_bytes_per_sec: f64,
    pub baseline_bytes_per_sec: f64,
    /// How many times the baseline the burst is.
    pub ratio: f64,
}

/// [`Fall`] of a run's phases; `None` unless the run ended on a baseline.
pub fn fall(phases: &[Phase]) -> Option<Fall> {
    let last = phases.last()?;
    if last.label != PhaseLabel::Baseline {
        return None;
    }
    let highs: Vec<&Phase> = phases.iter().filter(|p| p.is_high()).collect();
    let secs: f64 = highs.iter().map(|p| p.duration_ns() as f64).sum();
    let level = highs
        .iter()
        .map(|p| p.bytes_per_sec_mean * p.duration_ns() as f64)
        .sum::<f64>()
        / secs.max(1.0);
    let high = if highs.iter().any(|p| p.label == PhaseLabel::Cache) {
        PhaseLabel::Cache
    } else {
        PhaseLabel::Burst
    };
    Some(Fall {
        high,
        high_ns: highs.last()?.end_ns,
        high_bytes_per_sec: level,
        baseline_bytes_per_sec: last.bytes_per_sec_mean,
        ratio: level / last.bytes_per_sec_mean.max(f64::MIN_POSITIVE),
    })
}

/// One interval of the whole run (all targets and threads).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sample {
    /// Start, from the beginning of the measured window.
    pub start_ns: u64,
    pub duration_ns: u64,
    pub read: SampleDir,
    pub write: SampleDir,
    /// Only where the job trims.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim: Option<SampleDir>,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct SampleDir {
    pub ios: u64,
    pub bytes: u64,
    /// Completion latency; null in IOPS mode or when there was no I/O in the interval.
    pub latency_mean_ns: Option<u64>,
    /// From a histogram of 2 significant digits: within 1%.
    pub latency_p99_ns: Option<u64>,
    /// Queued-to-completed latencies of the interval, exact (DiskSpd's I/O bucket, `-D`):
    /// latency mode only, for the report of the run that measured them; not saved.
    #[serde(skip)]
    pub latency_spread: Option<crate::stats::spread::LatencySpread>,
}

/// iogauge's own footprint, so a user can see the instrument was not the bottleneck.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SelfUsage {
    pub max_rss_bytes: u64,
    pub user_cpu_ns: u64,
    pub system_cpu_ns: u64,
}

impl SelfUsage {
    pub fn now() -> Self {
        let u = crate::os::process::usage();
        SelfUsage {
            max_rss_bytes: u.peak_rss_bytes,
            user_cpu_ns: u.user_ns,
            system_cpu_ns: u.system_ns,
        }
    }
}

/// How completions were found: by waiting, or by looking aside after a submission.
#[derive(Default, Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct WaitStats {
    /// Calls that waited for a completion.
    pub waits: u64,
    /// Completions those waits returned.
    pub waited_completions: u64,
    /// Completions found by looking aside after a submission, without waiting.
    pub lookaside_completions: u64,
    /// Look-asides that found nothing.
    pub empty_peeks: u64,
    /// Threads whose warm-up tried waiting for batches of completions (--complete-batch
    /// auto), and those of them that kept batches for the measured window.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub batch_trials: u64,
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub batches_kept: u64,
}

fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

impl WaitStats {
    pub fn add(&mut self, o: &WaitStats) {
        self.waits += o.waits;
        self.waited_completions += o.waited_completions;
        self.lookaside_completions += o.lookaside_completions;
        self.empty_peeks += o.empty_peeks;
        self.batch_trials += o.batch_trials;
        self.batches_kept += o.batches_kept;
    }
}

/// Something that looks wrong with a run, and how to fix it (judged by [`crate::warnings`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    /// Stable name, for scripts: page-cache, zero-content, repeating-content, short-run,
    /// cpu-saturated, queue-too-deep, inline-completion, throughput-varied.
    pub code: String,
    pub message: String,
    pub fix: String,
}

/// What the aggregate of an MPI job's ranks says about them ([`crate::cluster::aggregate`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClusterResult {
    pub ranks: u32,
    pub hosts: u32,
    /// Spread of the ranks' measured-window starts on the wall clock (across hosts, as good
    /// as their clocks agree): how together they started.
    pub start_skew_ns: u64,
    /// Spread of their ends.
    pub end_skew_ns: u64,
    /// The sum of each rank's rate over its own window: above the aggregate rate by as much
    /// as the ranks did not overlap (IOR prints both the same way).
    pub sum_of_rank_bytes_per_sec: f64,
    pub rank_rows: Vec<RankRow>,
    pub host_rows: Vec<HostRow>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RankRow {
    pub rank: u32,
    pub host: String,
    pub local_rank: u32,
    pub started_unix_ns: u64,
    pub measured_ns: u64,
    pub stop_reason: StopReason,
    /// Its targets, paths as the rank expanded them.
    pub targets: Vec<String>,
    /// Over its own window; latency summaries without their histograms.
    pub total: DirPair,
    /// Its own stonewall: what it had done by the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stonewall: Option<StonewallResult>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HostRow {
    pub host: String,
    pub ranks: Vec<u32>,
    /// The host's ranks merged, rates over the job's window.
    pub total: DirPair,
}
