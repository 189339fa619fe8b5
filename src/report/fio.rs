//! Results in the shape of fio's `--output-format=json` (and `json+`), so that scripts and
//! dashboards written for fio read iogauge's runs unchanged.
//!
//! Always one valid JSON document on stdout: errors and warnings go to stderr (fio 3.33
//! prints a text line before its JSON when global options come first, a known pain for its
//! consumers). Which fields are measured, derived or left at zero is listed in docs/fio.md
//! ("fio-shaped JSON"); in short: bytes, I/Os, runtime, bandwidth, IOPS, and the clat/lat
//! histograms (min, max, mean, stddev, N, percentiles, json+ bins, latency buckets) are
//! measured; bw/iops sample statistics come from iogauge's time series; iodepth levels come
//! from the configured depth, which iogauge keeps full; disk_util from the kernel's counters of
//! the disks under the jobs' files (`os::diskstats`); ctx and faults are empty.

use super::Exporter;
use crate::os::diskstats::DiskUtil;
use crate::result::{DirPair, DirResult, RunResult, SampleDir};
use crate::spec::fio::options::{Clones, FioRun};
use crate::spec::flat::FlatMetric;
use crate::stats::flat;
use crate::stats::{LatencyHistogram, LatencySummary};
use crate::units::format_size_human;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt::Write;

mod terse;
pub use terse::Terse;

/// One fio job as run, with what it measured (None when it did not run: Ctrl-C or an error
/// in an earlier group).
pub struct Outcome<'a> {
    pub run: &'a FioRun,
    pub result: Option<&'a RunResult>,
    /// This job's share of iogauge's CPU time over its runtime, in percent of one CPU (fio's
    /// usr_cpu and sys_cpu). Jobs that ran together share their group's time by threads.
    pub usr_cpu: f64,
    pub sys_cpu: f64,
}

#[derive(Serialize)]
struct Document {
    #[serde(rename = "fio version")]
    version: String,
    timestamp: u64,
    timestamp_ms: u64,
    time: String,
    #[serde(rename = "global options", skip_serializing_if = "Options::is_empty")]
    global_options: Options,
    jobs: Vec<Job>,
    disk_util: Vec<DiskUtil>,
}

#[derive(Serialize)]
struct Job {
    jobname: String,
    groupid: u32,
    error: i32,
    eta: u64,
    elapsed: u64,
    #[serde(rename = "job options")]
    job_options: Options,
    #[serde(skip_serializing_if = "Option::is_none")]
    read: Option<Dir>,
    #[serde(skip_serializing_if = "Option::is_none")]
    write: Option<Dir>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trim: Option<Dir>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mixed: Option<Dir>,
    sync: Sync,
    job_runtime: u64,
    usr_cpu: f64,
    sys_cpu: f64,
    ctx: u64,
    majf: u64,
    minf: u64,
    iodepth_level: Map<String, Value>,
    iodepth_submit: Map<String, Value>,
    iodepth_complete: Map<String, Value>,
    latency_ns: Map<String, Value>,
    latency_us: Map<String, Value>,
    latency_ms: Map<String, Value>,
    latency_depth: u32,
    latency_target: u64,
    latency_percentile: f64,
    latency_window: u64,
    /// fio's steady-state object, for a job with steadystate= (ss_dur).
    #[serde(skip_serializing_if = "Option::is_none")]
    steadystate: Option<SteadyState>,
    /// For the text output only.
    #[serde(skip)]
    clones: u32,
    /// What verification checked and found, for the text output (fio's JSON has no place
    /// for it; its reads are the read-back's).
    #[serde(skip)]
    verified: Option<String>,
    #[serde(skip)]
    notes: Vec<String>,
    #[serde(skip)]
    zone_resets: u64,
    /// The job's percentiles in fio's order (ascending), for the terse lines, which list
    /// them even for a direction that did no I/O.
    #[serde(skip)]
    percentile_list: Vec<f64>,
    /// Whether the percentiles are of total latency (lat_percentiles) rather than of
    /// completion latency, where a format writes one kind.
    #[serde(skip)]
    lat_percentiles: bool,
    /// The errors counted, for a job that goes on after them (continue_on_error).
    #[serde(skip)]
    continued_errors: Option<u64>,
    /// fio's description=.
    #[serde(skip)]
    description: Option<String>,
}

#[derive(Serialize)]
struct Dir {
    io_bytes: u64,
    io_kbytes: u64,
    bw_bytes: u64,
    bw: u64,
    iops: f64,
    runtime: u64,
    total_ios: u64,
    short_ios: u64,
    drop_ios: u64,
    slat_ns: Lat,
    clat_ns: Lat,
    lat_ns: Lat,
    bw_min: u64,
    bw_max: u64,
    bw_agg: f64,
    bw_mean: f64,
    bw_dev: f64,
    bw_samples: u64,
    iops_min: u64,
    iops_max: u64,
    iops_mean: f64,
    iops_stddev: f64,
    iops_samples: u64,
}

#[derive(Serialize, Default)]
struct Lat {
    min: u64,
    max: u64,
    mean: f64,
    stddev: f64,
    #[serde(rename = "N")]
    n: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    percentile: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bins: Option<Map<String, Value>>,
}

/// fio's `steadystate` object: the rule, whether it was met, and the window that decided
/// (the first flat one, else the last), replayed from the saved time series.
#[derive(Serialize)]
struct SteadyState {
    ss: String,
    duration: u64,
    attained: u8,
    criterion: String,
    max_deviation: f64,
    slope: f64,
    data: SteadyData,
}

#[derive(Serialize)]
struct SteadyData {
    bw_mean: u64,
    iops_mean: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    lat_mean: Option<u64>,
    iops: Vec<u64>,
    bw: Vec<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lat: Option<Vec<u64>>,
}

#[derive(Serialize, Default)]
struct Sync {
    total_ios: u64,
    lat_ns: Lat,
}

/// What one entry of `jobs[]` covers: whole runs (a job, or a group with group_reporting) or
/// one clone of a run.
struct Part<'a> {
    pair: &'a DirPair,
    measured_ns: u64,
    /// The threads (fio's clones) whose I/O the part holds, each of which ran measured_ns.
    threads: u64,
    /// The run's time series, when the part is the whole run.
    series: Option<&'a RunResult>,
}

impl Part<'_> {
    fn whole(r: &RunResult) -> Part<'_> {
        Part {
            pair: &r.total,
            measured_ns: r.measured_ns,
            // Under MPI, every rank's.
            threads: r.job.total_threads().max(1)
                * r.cluster.as_ref().map_or(1, |c| c.ranks as u64),
            series: Some(r),
        }
    }
}

/// fio's averaged bw and iops logs (log_avg_msec) for one job, as (file name, text):
/// `PREFIX_bw.1.log` (KiB/s) and `PREFIX_iops.1.log`, each line `time (ms), value, direction
/// (0 read, 1 write), 0, 0` as fio writes them, from iogauge's time series of the measured
/// window. The averaged latency logs are made from each I/O (`cmd::fio_logs`).
pub fn logs(run: &FioRun, r: &RunResult) -> Vec<(String, String)> {
    let l = &run.logs;
    let mut out = Vec::new();
    let kinds: [(&Option<String>, &str); 2] = [(&l.bw, "bw"), (&l.iops, "iops")];
    for (prefix, kind) in kinds {
        let Some(prefix) = prefix else { continue };
        // fio keeps a log per clone: PREFIX_bw.1.log to PREFIX_bw.N.log.
        for (k, samples) in clone_series(run, r).into_iter().enumerate() {
            let text = averaged_log(run, r, samples, kind);
            out.push((format!("{prefix}_{kind}.{}.log", k + 1), text));
        }
    }
    out
}

/// Each clone's time series: the threads' own where a job has several clones (the run keeps
/// them for these logs), else the run's.
fn clone_series<'a>(run: &FioRun, r: &'a RunResult) -> Vec<&'a [crate::result::Sample]> {
    if run.clones <= 1 {
        return vec![&r.time_series.samples];
    }
    match run.layout {
        Clones::Threads => r.targets[0]
            .threads
            .iter()
            .map(|t| &t.time_series[..])
            .collect(),
        Clones::Targets => r
            .targets
            .iter()
            .filter_map(|t| t.threads.first())
            .map(|t| &t.time_series[..])
            .collect(),
    }
}

/// One averaged bw or iops log's text from a series of samples.
fn averaged_log(
    run: &FioRun,
    r: &RunResult,
    samples: &[crate::result::Sample],
    kind: &str,
) -> String {
    let l = &run.logs;
    let interval_s = r.time_series.interval_ns as f64 / 1e9;
    let mut text = String::new();
    {
        for s in samples {
            let secs = s.duration_ns as f64 / 1e9;
            // A short last interval would be an average over another span: fio leaves it out.
            if secs < interval_s * 0.5 {
                continue;
            }
            let t = (s.start_ns + s.duration_ns) / 1_000_000;
            let trim = s.trim.as_ref().map(|t| (2, t));
            for (dir, d) in [(0, &s.read), (1, &s.write)].into_iter().chain(trim) {
                if d.ios == 0 {
                    continue;
                }
                let v = match kind {
                    "bw" => (d.bytes as f64 / secs / 1024.0).round() as u64,
                    _ => (d.ios as f64 / secs).round() as u64,
                };
                let tail = averaged_tail(l.offset, l.prio);
                let _ = writeln!(text, "{t}, {v}, {dir}, 0{tail}");
            }
        }
    }
    text
}

/// A run of `iogauge run` (or a saved one) in fio's JSON shape (`--output fio-json`): one
/// fio job for the whole run, as with fio's group_reporting, whose "job options" are the fio
/// job `iogauge explain` writes for it.
pub struct FioJson;

impl Exporter for FioJson {
    fn render(&self, r: &RunResult) -> String {
        let run = run_of(r);
        let pct = |ns: u64| 100.0 * ns as f64 / r.measured_ns.max(1) as f64;
        let outcome = Outcome {
            run: &run,
            result: Some(r),
            usr_cpu: pct(r.iogauge_usage.user_cpu_ns),
            sys_cpu: pct(r.iogauge_usage.system_cpu_ns),
        };
        let doc = document(&[outcome], &[], false);
        serde_json::to_string_pretty(&doc).expect("serializes") + "\n"
    }
}

/// The one fio job a run of `iogauge run` is, with group_reporting over its threads, whose
/// "job options" are the fio job `iogauge explain` writes for it.
fn run_of(r: &RunResult) -> FioRun {
    use crate::spec::fio::options::FIO_PERCENTILES;
    let section = crate::spec::export::to_fio(&r.job, "iogauge", false);
    let options = section
        .lines()
        .filter(|l| !l.starts_with('[') && !l.starts_with(';'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    FioRun {
        name: "iogauge".into(),
        group: 0,
        batch: 0,
        job: r.job.clone(),
        // Under MPI, every rank's threads.
        clones: r.job.total_threads() as u32 * r.cluster.as_ref().map_or(1, |c| c.ranks),
        layout: Clones::Threads,
        group_reporting: true,
        unified: false,
        percentiles: FIO_PERCENTILES.to_vec(),
        clat_percentiles: true,
        lat_percentiles: false,
        invalidate: false,
        options,
        logs: Default::default(),
        start_delay_ns: 0,
        create_only: false,
        exit: Default::default(),
        wait_for: None,
        notes: r.notes.clone(),
        description: None,
        at: crate::spec::fio::Location {
            file: String::new(),
            line: 0,
        },
    }
}

/// What `iogauge fio` reports: each job as run, and the job file's global options.
pub struct Jobs<'a> {
    pub outcomes: Vec<Outcome<'a>>,
    pub global_options: &'a [(String, String)],
    /// fio's disk_util: the disks under the jobs' files, over the whole run.
    pub disk_util: &'a [DiskUtil],
}

/// fio's `--output-format=json` (`plus`: `json+`, with each histogram's bins).
pub struct JobsJson {
    pub plus: bool,
}

impl Exporter<Jobs<'_>> for JobsJson {
    fn render(&self, jobs: &Jobs) -> String {
        let mut doc = document(&jobs.outcomes, jobs.global_options, self.plus);
        doc.disk_util = jobs.disk_util.to_vec();
        serde_json::to_string_pretty(&doc).expect("serializes") + "\n"
    }
}

/// fio's `--output-format=normal`: its text.
pub struct Normal;

impl Exporter<Jobs<'_>> for Normal {
    fn render(&self, jobs: &Jobs) -> String {
        normal(&jobs.outcomes) + &disk_stats(jobs.disk_util)
    }
}

/// fio's "Disk stats (read/write)" lines, a device built on others indented with its
/// aggregate; nothing where no disk was found.
fn disk_stats(disks: &[DiskUtil]) -> String {
    let mut o = String::new();
    if disks.is_empty() {
        return o;
    }
    o.push_str("\nDisk stats (read/write):\n");
    for d in disks {
        let indent = if d.aggr.is_some() { "    " } else { "  " };
        let _ = write!(
            o,
            "{indent}{}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:.2}%",
            d.name,
            d.read_ios,
            d.write_ios,
            d.read_merges,
            d.write_merges,
            d.read_ticks,
            d.write_ticks,
            d.in_queue,
            d.util
        );
        if let Some(a) = &d.aggr {
            let _ = write!(
                o,
                ", aggrios={}/{}, aggrmerge={}/{}, aggrticks={}/{}, aggrin_queue={}, aggrutil={:.2}%",
                a.aggr_read_ios,
                a.aggr_write_ios,
                a.aggr_read_merges,
                a.aggr_write_merge,
                a.aggr_read_ticks,
                a.aggr_write_ticks,
                a.aggr_in_queue,
                a.aggr_util
            );
        }
        o.push('\n');
    }
    o
}

fn document(outcomes: &[Outcome], global_options: &[(String, String)], plus: bool) -> Document {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut groups: Vec<u32> = outcomes.iter().map(|o| o.run.group).collect();
    groups.dedup();
    let jobs = groups
        .into_iter()
        .flat_map(|g| {
            let members: Vec<&Outcome> = outcomes.iter().filter(|o| o.run.group == g).collect();
            group_jobs(&members, plus)
        })
        .collect();
    Document {
        version: format!("iogauge-{}", env!("CARGO_PKG_VERSION")),
        timestamp: now.as_secs(),
        timestamp_ms: now.as_millis() as u64,
        time: crate::dates::format_utc(now.as_nanos() as u64),
        global_options: options_map(global_options),
        jobs,
        disk_util: Vec::new(),
    }
}

/// The entries of one group's jobs that ran: one for the whole group with group_reporting,
/// else one per job, or per clone of a job that has several.
fn group_jobs(members: &[&Outcome], plus: bool) -> Vec<Job> {
    let ran: Vec<&Outcome> = members
        .iter()
        .copied()
        .filter(|o| o.result.is_some())
        .collect();
    if ran.is_empty() {
        return Vec::new();
    }
    // fio's aggregate of the group, for bw_agg: bytes over the longest runtime.
    let group_bw = |dir: fn(&DirPair) -> u64| -> f64 {
        let bytes: u64 = ran.iter().map(|o| dir(&o.result.unwrap().total)).sum();
        let ns = ran
            .iter()
            .map(|o| o.result.unwrap().measured_ns)
            .max()
            .unwrap_or(0);
        per_sec(bytes, ns)
    };
    let agg = [
        group_bw(|p| p.read.bytes),
        group_bw(|p| p.write.bytes),
        group_bw(|p| p.all.bytes),
        group_bw(|p| p.trim.as_ref().map_or(0, |t| t.bytes)),
    ];
    if members.iter().any(|o| o.run.group_reporting) {
        let parts: Vec<Part> = ran.iter().map(|o| Part::whole(o.result.unwrap())).collect();
        let usr = ran.iter().map(|o| o.usr_cpu).sum();
        let sys = ran.iter().map(|o| o.sys_cpu).sum();
        let clones = ran.iter().map(|o| o.run.clones).sum();
        return vec![job(ran[0], &parts, clones, agg, usr, sys, plus)];
    }
    let mut jobs = Vec::new();
    for o in &ran {
        let r = o.result.unwrap();
        if o.run.clones <= 1 {
            jobs.push(job(
                o,
                &[Part::whole(r)],
                1,
                agg,
                o.usr_cpu,
                o.sys_cpu,
                plus,
            ));
            continue;
        }
        let clones = o.run.clones as f64;
        let pairs: Vec<&DirPair> = match o.run.layout {
            Clones::Threads => r.targets[0].threads.iter().map(|t| &t.total).collect(),
            Clones::Targets => r.targets.iter().map(|t| &t.total).collect(),
        };
        for pair in pairs {
            let part = Part {
                pair,
                measured_ns: r.measured_ns,
                threads: 1,
                series: None,
            };
            let (usr, sys) = (o.usr_cpu / clones, o.sys_cpu / clones);
            jobs.push(job(o, &[part], 1, agg, usr, sys, plus));
        }
    }
    jobs
}

/// fio's normal (text) output, made from the same figures as the JSON: per job its
/// directions (IOPS, bandwidth, latency and percentiles), then each group's totals.
fn normal(outcomes: &[Outcome]) -> String {
    let doc = document(outcomes, &[], false);
    let mut o = String::new();
    let mut groups: Vec<u32> = Vec::new();
    for j in &doc.jobs {
        normal_job(&mut o, j);
        if !groups.contains(&j.groupid) {
            groups.push(j.groupid);
        }
    }
    for g in groups {
        group_status(&mut o, &doc, g);
    }
    o
}

/// One job: its directions with their latencies and percentiles, and iogauge's notes.
fn normal_job(o: &mut String, j: &Job) {
    let _ = writeln!(
        o,
        "{}: (groupid={}, jobs={}): err={:>2}: iogauge {}",
        j.jobname,
        j.groupid,
        j.clones,
        j.error,
        env!("CARGO_PKG_VERSION")
    );
    let dirs = [
        ("read", &j.read),
        ("write", &j.write),
        ("trim", &j.trim),
        ("mixed", &j.mixed),
    ];
    for (name, d) in dirs {
        let Some(d) = d.as_ref().filter(|d| d.total_ios > 0) else {
            continue;
        };
        let _ = writeln!(
            o,
            "  {name}: IOPS={:.0}, BW={}/s ({:.1}MB/s)({}/{}msec){}",
            d.iops,
            format_size_human(d.bw_bytes),
            d.bw_bytes as f64 / 1e6,
            format_size_human(d.io_bytes),
            d.runtime,
            // fio (on Linux) counts zone resets on every job's write line.
            match name {
                "write" => format!("; {} zone resets", j.zone_resets),
                _ => String::new(),
            }
        );
        for (label, l) in [
            ("slat", &d.slat_ns),
            ("clat", &d.clat_ns),
            (" lat", &d.lat_ns),
        ] {
            if l.n == 0 {
                continue;
            }
            let _ = writeln!(
                o,
                "    {label} (usec): min={:.2}, max={:.2}, avg={:.2}, stdev={:.2}",
                l.min as f64 / 1e3,
                l.max as f64 / 1e3,
                l.mean / 1e3,
                l.stddev / 1e3
            );
        }
        for (label, l) in [("clat", &d.clat_ns), (" lat", &d.lat_ns)] {
            if let Some(p) = l.percentile.as_ref() {
                percentiles(o, label, p);
            }
        }
    }
    // fio prints it for every job, the job's depth where it had no target.
    let _ = writeln!(
        o,
        "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
        j.latency_target, j.latency_window, j.latency_percentile, j.latency_depth
    );
    if let Some(ss) = &j.steadystate {
        steadystate_line(o, ss);
    }
    if let Some(v) = &j.verified {
        let _ = writeln!(o, "  verify       : {v}");
    }
    for n in &j.notes {
        let _ = writeln!(o, "  note: {n}");
    }
}

/// A latency's percentiles, four to a line, in microseconds.
fn percentiles(o: &mut String, label: &str, p: &Map<String, Value>) {
    let _ = writeln!(o, "    {label} percentiles (usec):");
    let mut points: Vec<(f64, f64)> = p
        .iter()
        .map(|(k, v)| {
            (
                k.parse().unwrap_or(0.0),
                v.as_u64().unwrap_or(0) as f64 / 1e3,
            )
        })
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let cells: Vec<String> = points
        .iter()
        .map(|(pct, us)| format!("{pct:6.2}th=[{us:>9.2}]"))
        .collect();
    for row in cells.chunks(4) {
        let _ = writeln!(o, "     | {}", row.join(", "));
    }
}

/// "Run status group": the group's bytes and bandwidth per direction.
fn group_status(o: &mut String, doc: &Document, g: u32) {
    let _ = writeln!(o, "\nRun status group {g} (all jobs):");
    for (label, pick) in [
        (
            "READ",
            (|j: &Job| j.read.as_ref()) as fn(&Job) -> Option<&Dir>,
        ),
        ("WRITE", |j: &Job| j.write.as_ref()),
        ("TRIM", |j: &Job| j.trim.as_ref()),
        ("MIXED", |j: &Job| j.mixed.as_ref()),
    ] {
        let dirs: Vec<&Dir> = doc
            .jobs
            .iter()
            .filter(|j| j.groupid == g)
            .filter_map(pick)
            .filter(|d| d.total_ios > 0)
            .collect();
        if dirs.is_empty() {
            continue;
        }
        let bytes: u64 = dirs.iter().map(|d| d.io_bytes).sum();
        let (lo, hi) = (
            dirs.iter().map(|d| d.runtime).min().unwrap_or(0),
            dirs.iter().map(|d| d.runtime).max().unwrap_or(0),
        );
        let bw = if hi > 0 {
            bytes as f64 * 1000.0 / hi as f64
        } else {
            0.0
        };
        let _ = writeln!(
            o,
            "  {label:>5}: bw={}/s ({:.1}MB/s), io={}, run={lo}-{hi}msec",
            format_size_human(bw as u64),
            bw / 1e6,
            format_size_human(bytes)
        );
    }
}

/// fio's "job options" and "global options": an object whose keys keep the order they were
/// written in, as fio prints them (a `Map` would sort them).
#[derive(Default)]
struct Options(Vec<(String, String)>);

impl Options {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Options {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

fn options_map(options: &[(String, String)]) -> Options {
    Options(options.to_vec())
}

fn per_sec(v: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        v as f64 * 1e9 / ns as f64
    }
}

fn job<'a>(
    o: &Outcome,
    parts: &[Part<'a>],
    clones: u32,
    agg: [f64; 4],
    usr: f64,
    sys: f64,
    plus: bool,
) -> Job {
    let run = o.run;
    let r = o.result.expect("only jobs that ran are reported");
    let runtime_ns = parts.iter().map(|p| p.measured_ns).max().unwrap_or(0);
    let dir = |which: usize| -> Dir {
        let pick = |p: &Part<'a>| -> (DirResult, Option<&'a RunResult>) {
            let d = match which {
                0 => p.pair.read.clone(),
                1 => p.pair.write.clone(),
                TRIM_DIR => p.pair.trim.clone().unwrap_or_default(),
                _ => p.pair.all.clone(),
            };
            (d, p.series)
        };
        let picked: Vec<(DirResult, Option<&'a RunResult>)> = parts.iter().map(pick).collect();
        direction(run, &picked, runtime_ns, agg[which], which, plus)
    };
    let (read, write, mixed) = if run.unified {
        (None, None, Some(dir(2)))
    } else {
        let read = dir(0);
        let read = match verify_reads(parts) {
            Some(v) if read.total_ios == 0 => v,
            _ => read,
        };
        (Some(read), Some(dir(1)), None)
    };
    let trim = (!run.unified).then(|| dir(TRIM_DIR));
    // fio's latency buckets are over every completed I/O of the job.
    let mut all = LatencyHistogram::new();
    for p in parts {
        if let Some(h) = p.pair.all.latency_histogram.as_deref() {
            if let Ok(h) = LatencyHistogram::from_base64(h) {
                all.merge(&h);
            }
        }
    }
    let (latency_ns, latency_us, latency_ms) = latency_buckets(&all);
    let depth = r.queue_depth;
    let error = r.errors.first().map(|e| e.errno.max(0)).unwrap_or(0);
    Job {
        jobname: run.name.clone(),
        groupid: run.group,
        error,
        eta: 0,
        elapsed: runtime_ns.div_ceil(1_000_000_000),
        job_options: options_map(&run.options),
        read,
        write,
        trim,
        mixed,
        sync: sync_of(r, parts),
        // fio sums its clones' runtimes here (stat.c, sum_thread_stats).
        job_runtime: parts.iter().map(|p| p.measured_ns * p.threads).sum::<u64>() / 1_000_000,
        usr_cpu: round6(usr),
        sys_cpu: round6(sys),
        ctx: 0,
        majf: 0,
        minf: 0,
        iodepth_level: depth_levels(depth),
        iodepth_submit: depth_levels(r.job.submit_batch.min(depth)),
        iodepth_complete: depth_levels(r.job.complete_batch.clamp(1, depth)),
        latency_ns,
        latency_us,
        latency_ms,
        // fio's latency_target is in ns, its window in us; without a target, the job's depth
        // (stat.c, show_thread_status).
        latency_depth: r.latency_target.as_ref().map_or(depth, |l| l.depth),
        latency_target: r.latency_target.as_ref().map_or(0, |l| l.target_ns),
        latency_percentile: r.latency_target.as_ref().map_or(100.0, |l| l.pct),
        latency_window: r.latency_target.as_ref().map_or(0, |l| l.window_ns / 1_000),
        steadystate: steadystate(r),
        verified: r.verify.as_ref().map(|v| {
            let back = v.pass.as_ref().map_or(0, |p| p.checked);
            format!(
                "{} blocks of {} checked ({} as read, {back} read back), {} mismatches",
                v.checked + back,
                format_size_human(v.unit),
                v.checked,
                v.mismatch_count
            )
        }),
        clones,
        notes: r.notes.clone(),
        // The run's resets: a table of zones is every thread's.
        zone_resets: r.zones.as_ref().map_or(0, |z| z.resets),
        percentile_list: {
            let mut l = run.percentiles.clone();
            l.sort_by(f64::total_cmp);
            l
        },
        lat_percentiles: run.lat_percentiles,
        continued_errors: r
            .job
            .continue_on_error
            .then(|| r.errors.iter().map(|e| e.count).sum()),
        description: run.description.clone(),
    }
}

/// The flat-window rule replayed over the run's whole intervals (a cut-off last interval is
/// not a point), as fio reports it.
fn steadystate(r: &RunResult) -> Option<SteadyState> {
    let rule = r.job.timing.until_flat?;
    let ts = &r.time_series;
    let bases: Vec<flat::Base> = ts
        .samples
        .iter()
        .take_while(|s| s.duration_ns == ts.interval_ns)
        .map(|s| {
            let timed = |d: &SampleDir| d.latency_mean_ns.map(|m| (m, d.ios));
            flat::Base::new(
                s.read.ios + s.write.ios,
                s.read.bytes + s.write.bytes,
                [timed(&s.read), timed(&s.write)],
            )
        })
        .collect();
    let rp = flat::replay(&bases, &rule, ts.interval_ns);
    let v = rp.verdict;
    let pct = if rule.limit.is_percent() { "%" } else { "" };
    let mean = |f: fn(&flat::Point) -> f64| {
        let n = rp.window.len().max(1) as f64;
        (rp.window.iter().map(f).sum::<f64>() / n) as u64
    };
    let series = |f: fn(&flat::Point) -> f64| rp.window.iter().map(|p| f(p) as u64).collect();
    let lat = rule.metric == FlatMetric::Lat;
    Some(SteadyState {
        ss: rule.fio_text(),
        duration: rule.window_ns / 1_000_000_000,
        attained: u8::from(v.is_some_and(|v| v.attained)),
        criterion: format!("{:.6}{pct}", v.map_or(0.0, |v| v.criterion)),
        max_deviation: v.map_or(0.0, |v| round6(v.deviation)),
        slope: v.map_or(0.0, |v| round6(v.slope)),
        data: SteadyData {
            bw_mean: mean(|p| p.bw),
            iops_mean: mean(|p| p.iops),
            lat_mean: lat.then(|| mean(|p| p.lat_ns)),
            iops: series(|p| p.iops),
            bw: series(|p| p.bw),
            lat: lat.then(|| series(|p| p.lat_ns)),
        },
    })
}

/// fio's text line for the steady-state rule.
fn steadystate_line(o: &mut String, ss: &SteadyState) {
    let d = &ss.data;
    let lat = d
        .lat_mean
        .map(|l| format!(", lat={:.1}usec", l as f64 / 1e3))
        .unwrap_or_default();
    let (name, _) = ss.ss.split_once(':').unwrap_or((&ss.ss, ""));
    let (metric, test) = match name.split_once('_') {
        Some((m, _)) => (m, "slope"),
        None => (name, "mean dev"),
    };
    let _ = writeln!(
        o,
        "  steadystate  : attained={}, bw={}/s ({:.1}MB/s), iops={}{lat}, {metric} {test}={}",
        if ss.attained == 1 { "yes" } else { "no" },
        format_size_human(d.bw_mean),
        d.bw_mean as f64 / 1e6,
        d.iops_mean,
        ss.criterion
    );
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

fn empty_dir() -> Dir {
    Dir {
        io_bytes: 0,
        io_kbytes: 0,
        bw_bytes: 0,
        bw: 0,
        iops: 0.0,
        runtime: 0,
        total_ios: 0,
        short_ios: 0,
        drop_ios: 0,
        slat_ns: Lat::default(),
        clat_ns: Lat::default(),
        lat_ns: Lat::default(),
        bw_min: 0,
        bw_max: 0,
        bw_agg: 0.0,
        bw_mean: 0.0,
        bw_dev: 0.0,
        bw_samples: 0,
        iops_min: 0,
        iops_max: 0,
        iops_mean: 0.0,
        iops_stddev: 0.0,
        iops_samples: 0,
    }
}

/// One direction (0 read, 1 write, 2 both) of the parts together.
fn direction(
    run: &FioRun,
    parts: &[(DirResult, Option<&RunResult>)],
    runtime_ns: u64,
    group_bw: f64,
    which: usize,
    plus: bool,
) -> Dir {
    let ios: u64 = parts.iter().map(|(d, _)| d.ios).sum();
    let bytes: u64 = parts.iter().map(|(d, _)| d.bytes).sum();
    if ios == 0 {
        return empty_dir();
    }
    let bw_bytes = per_sec(bytes, runtime_ns);
    let (clat, lat) = latencies(run, parts, plus);
    let slat_parts: Vec<&LatencySummary> = parts
        .iter()
        .filter_map(|(d, _)| d.latency_submission.as_ref())
        .collect();
    let slat = pooled(&slat_parts, parts.iter().map(|(d, _)| d.ios).collect());
    let (bw_s, iops_s) = interval_rates(parts, which);
    let (bmin, bmax, bmean, bdev) = sample_stats(&bw_s);
    let (imin, imax, imean, idev) = sample_stats(&iops_s);
    Dir {
        io_bytes: bytes,
        io_kbytes: bytes / 1024,
        bw_bytes: bw_bytes as u64,
        bw: (bw_bytes / 1024.0) as u64,
        iops: round6(per_sec(ios, runtime_ns)),
        runtime: runtime_ms(runtime_ns),
        total_ios: ios,
        short_ios: 0,
        drop_ios: 0,
        slat_ns: slat,
        clat_ns: clat,
        lat_ns: lat,
        bw_min: bmin as u64,
        bw_max: bmax as u64,
        bw_agg: if group_bw > 0.0 {
            round6(100.0 * bw_bytes / group_bw)
        } else {
            0.0
        },
        bw_mean: round6(bmean),
        bw_dev: round6(bdev),
        bw_samples: bw_s.len() as u64,
        iops_min: imin as u64,
        iops_max: imax as u64,
        iops_mean: round6(imean),
        iops_stddev: round6(idev),
        iops_samples: iops_s.len() as u64,
    }
}

/// fio reads back what a job wrote to verify it, and reports those reads as the job's reads
/// (their bytes, count and own runtime): iogauge's read-back pass, said the same way. None
/// where a part is not a whole run (a clone's share) or nothing was read back. The pass reads
/// in chunks, not one timed I/O a unit: no latencies.
fn verify_reads(parts: &[Part]) -> Option<Dir> {
    let passes = parts
        .iter()
        .map(|p| p.series?.verify.as_ref()?.pass.as_ref())
        .collect::<Option<Vec<_>>>()?;
    let ios: u64 = passes.iter().map(|p| p.checked).sum();
    if ios == 0 {
        return None;
    }
    let bytes: u64 = passes.iter().map(|p| p.bytes).sum();
    let ns = passes.iter().map(|p| p.elapsed_ns).max().unwrap_or(0);
    let bw_bytes = per_sec(bytes, ns);
    Some(Dir {
        io_bytes: bytes,
        io_kbytes: bytes / 1024,
        bw_bytes: bw_bytes as u64,
        bw: (bw_bytes / 1024.0) as u64,
        iops: round6(per_sec(ios, ns)),
        runtime: runtime_ms(ns),
        total_ios: ios,
        ..empty_dir()
    })
}

/// A runtime in whole milliseconds, rounded up from whole microseconds as fio counts it: a
/// job of less than a millisecond ran 1 ms, never 0 (fio's "run=1-1msec").
fn runtime_ms(ns: u64) -> u64 {
    (ns / 1_000).div_ceil(1_000)
}

/// Completion and total latency of the parts, from their merged histograms, with the
/// percentiles the job asks for (and, for json+, the bins of each histogram whose
/// percentiles are written, as fio 3.33 does).
fn latencies(run: &FioRun, parts: &[(DirResult, Option<&RunResult>)], plus: bool) -> (Lat, Lat) {
    let merged = |f: fn(&DirResult) -> Option<&String>| -> Option<LatencyHistogram> {
        let mut h: Option<LatencyHistogram> = None;
        for (d, _) in parts {
            let one = LatencyHistogram::from_base64(f(d)?).ok()?;
            h.get_or_insert_with(LatencyHistogram::new).merge(&one);
        }
        h
    };
    let with = |h: Option<LatencyHistogram>, on: bool| {
        let percentile = h
            .as_ref()
            .filter(|_| on && !run.percentiles.is_empty())
            .map(|h| percentile_map(h, &run.percentiles));
        let bins = h.as_ref().filter(|_| plus && on).map(|h| {
            h.recorded()
                .into_iter()
                .map(|(v, n)| (v.to_string(), Value::from(n)))
                .collect()
        });
        Lat {
            percentile,
            bins,
            ..lat_of(h.as_ref())
        }
    };
    (
        with(
            merged(|d| d.latency_histogram.as_ref()),
            run.clat_percentiles,
        ),
        with(
            merged(|d| d.latency_total_histogram.as_ref()),
            run.lat_percentiles,
        ),
    )
}

/// Per-interval bandwidth (KiB/s) and IOPS of direction `which`, summed over the parts, when
/// every part is a whole run with its time series (none otherwise).
/// `which` of a job's directions in [`direction`]: 0 reads, 1 writes, 2 all (fio's mixed),
/// this one trims.
const TRIM_DIR: usize = 3;

fn interval_rates(parts: &[(DirResult, Option<&RunResult>)], which: usize) -> (Vec<f64>, Vec<f64>) {
    let mut bw_s = Vec::new();
    let mut iops_s = Vec::new();
    let series: Vec<&RunResult> = parts.iter().filter_map(|(_, s)| *s).collect();
    if series.len() != parts.len() {
        return (bw_s, iops_s);
    }
    let n = series
        .iter()
        .map(|r| r.time_series.samples.len())
        .max()
        .unwrap_or(0);
    for i in 0..n {
        let (mut b, mut k, mut dur) = (0u64, 0u64, 0u64);
        for r in &series {
            if let Some(s) = r.time_series.samples.get(i) {
                let trim = s.trim.unwrap_or_default();
                let d = match which {
                    0 => s.read,
                    1 => s.write,
                    TRIM_DIR => trim,
                    _ => crate::result::SampleDir {
                        ios: s.read.ios + s.write.ios + trim.ios,
                        bytes: s.read.bytes + s.write.bytes + trim.bytes,
                        ..Default::default()
                    },
                };
                b = b.saturating_add(d.bytes);
                k = k.saturating_add(d.ios);
                dur = dur.max(s.duration_ns);
            }
        }
        // A short last interval would read as a dip that did not happen.
        if dur.saturating_mul(2) >= series[0].time_series.interval_ns {
            bw_s.push(per_sec(b, dur) / 1024.0);
            iops_s.push(per_sec(k, dur));
        }
    }
    (bw_s, iops_s)
}

/// (min, max, mean, sample standard deviation) of per-interval figures.
fn sample_stats(v: &[f64]) -> (f64, f64, f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0, 0.0, 0.0);
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64
    } else {
        0.0
    };
    let min = v.iter().cloned().fold(f64::MAX, f64::min);
    let max = v.iter().cloned().fold(0.0, f64::max);
    (min, max, mean, var.sqrt())
}

/// fio's `sync`: the flushes of --fsync/--fdatasync/--end-fsync, for entries that cover the
/// whole run (a clone's entry has none: flushes are counted per run).
fn sync_of(r: &RunResult, parts: &[Part]) -> Sync {
    let whole = parts.iter().all(|p| p.series.is_some());
    match (&r.flushes, whole) {
        (Some(f), true) => {
            let mut lat = match &f.latency {
                Some(s) => pooled(&[s], vec![f.count]),
                None => Lat::default(),
            };
            lat.percentile = f.latency.as_ref().map(|s| {
                s.percentiles
                    .iter()
                    .map(|p| (percentile_key(p.percentile), Value::from(p.ns)))
                    .collect()
            });
            Sync {
                total_ios: f.count,
                lat_ns: lat,
            }
        }
        _ => Sync::default(),
    }
}

fn lat_of(h: Option<&LatencyHistogram>) -> Lat {
    match h.and_then(|h| h.summary().map(|s| (h.count(), s))) {
        Some((n, s)) => Lat {
            min: s.min_ns,
            max: s.max_ns,
            mean: round6(s.mean_ns),
            stddev: round6(s.stdev_ns),
            n,
            percentile: None,
            bins: None,
        },
        None => Lat::default(),
    }
}

/// Summaries of several parts together, exactly: counts, min, max, the weighted mean and the
/// pooled standard deviation (from each part's mean and deviation).
fn pooled(parts: &[&LatencySummary], counts: Vec<u64>) -> Lat {
    if parts.is_empty() || parts.len() != counts.len() {
        return Lat::default();
    }
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return Lat::default();
    }
    let mean = parts
        .iter()
        .zip(&counts)
        .map(|(s, &c)| s.mean_ns * c as f64)
        .sum::<f64>()
        / n as f64;
    let ss: f64 = parts
        .iter()
        .zip(&counts)
        .map(|(s, &c)| c as f64 * (s.stdev_ns.powi(2) + (s.mean_ns - mean).powi(2)))
        .sum();
    Lat {
        min: parts.iter().map(|s| s.min_ns).min().unwrap_or(0),
        max: parts.iter().map(|s| s.max_ns).max().unwrap_or(0),
        mean: round6(mean),
        stddev: round6((ss / n as f64).sqrt()),
        n,
        percentile: None,
        bins: None,
    }
}

/// fio's percentile keys: "99.000000".
fn percentile_key(p: f64) -> String {
    format!("{p:.6}")
}

fn percentile_map(h: &LatencyHistogram, list: &[f64]) -> Map<String, Value> {
    list.iter()
        .map(|&p| (percentile_key(p), Value::from(h.value_at_percentile(p))))
        .collect()
}

/// fio's latency distribution: the share of I/Os (percent) whose latency falls in each bucket,
/// a bucket holding the latencies above the previous bound and up to its own.
fn latency_buckets(
    h: &LatencyHistogram,
) -> (Map<String, Value>, Map<String, Value>, Map<String, Value>) {
    const UNITS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
    let total = h.count();
    let recorded = h.recorded();
    let share = |lo: u64, hi: u64| -> f64 {
        if total == 0 {
            return 0.0;
        }
        let n: u64 = recorded
            .iter()
            .filter(|(v, _)| *v > lo && *v <= hi)
            .map(|(_, c)| c)
            .sum();
        round6(100.0 * n as f64 / total as f64)
    };
    let scale = |unit: u64, bounds: &[u64]| -> Map<String, Value> {
        let mut prev = if unit == 1 { 0 } else { unit };
        bounds
            .iter()
            .map(|&b| {
                let hi = b * unit;
                let v = share(prev, hi);
                prev = hi;
                (b.to_string(), Value::from(v))
            })
            .collect()
    };
    let ns = scale(1, &UNITS);
    let us = scale(1_000, &UNITS);
    let mut ms = scale(
        1_000_000,
        &[2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000],
    );
    ms.insert(">=2000".into(), Value::from(share(2_000_000_000, u64::MAX)));
    (ns, us, ms)
}

/// fio's queue-depth distribution, from the configured depth: iogauge refills each slot as
/// its I/O completes, so the queue stays at that depth (except as the run drains).
fn depth_levels(depth: u32) -> Map<String, Value> {
    let keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    let bucket = match depth {
        0 | 1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    };
    keys.iter()
        .enumerate()
        .map(|(i, k)| {
            (
                k.to_string(),
                Value::from(if i == bucket { 100.0 } else { 0.0 }),
            )
        })
        .collect()
}

/// The end of an averaged line: its offset (0, as fio writes it) where log_offset asks for
/// the column, and the priority: 0, or with log_prio `0x0000` (fio 3.33 writes the value of
/// a sample that has none in the log's priority format).
pub fn averaged_tail(offset: bool, prio: bool) -> &'static str {
    match (offset, prio) {
        (true, false) => ", 0, 0",
        (true, true) => ", 0, 0x0000",
        (false, false) => ", 0",
        (false, true) => ", 0x0000",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_stats_read_as_fios() {
        let vda = DiskUtil {
            name: "vda".into(),
            read_ios: 4072,
            write_ios: 4177,
            read_merges: 0,
            write_merges: 0,
            read_ticks: 200,
            write_ticks: 214,
            in_queue: 414,
            util: 32.9404,
            aggr: None,
        };
        // fio 3.33's lines for the same figures.
        assert_eq!(
            disk_stats(&[vda]),
            "\nDisk stats (read/write):\n  vda: ios=4072/4177, merge=0/0, ticks=200/214, in_queue=414, util=32.94%\n"
        );
        assert_eq!(disk_stats(&[]), "");
    }
}
