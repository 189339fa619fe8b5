//! A run as DiskSpd's `-Rxml` report, with DiskSpd's element names for what iogauge measures,
//! so scripts that read DiskSpd's XML (XPath over `//TimeSpan/Thread/Target/ReadBytes`, the
//! `Latency/Bucket` percentiles, `CpuUtilization/Average`) read iogauge's runs.
//!
//! Written: System (ComputerName, Tool, RunTime), Profile (the parameters of the run), and one
//! TimeSpan: TestTimeSeconds, ThreadCount, RequestCount, ProcCount, CpuUtilization (per CPU
//! and average), Latency (averages, deviations and DiskSpd's percentile buckets, with -L),
//! Iops (per-interval buckets and deviations, with -D), and Thread/Target with byte and I/O
//! counts (and latency, with -L). Not written: ETW, WaitStatistics, Distribution.
//! Latency is DiskSpd's: from issue to completion (iogauge's total latency).
//!
//! [`ProfileXml`] writes the Profile alone, as DiskSpd's `-Rpxml` does without running.

use super::Exporter;
use crate::result::{DirResult, RunResult, TargetResult, ThreadResult};
use crate::spec::diskspd::Diskspd;
use crate::spec::{CacheMode, Distribution, EngineKind, FileService, JobSpec, Pattern, Stop};
use crate::stats::LatencyHistogram;
use std::fmt::Write;

/// DiskSpd's percentile buckets between 0 (min) and 100 (max).
const PERCENTILES: [&str; 13] = [
    "25",
    "50",
    "75",
    "90",
    "95",
    "99",
    "99.9",
    "99.99",
    "99.999",
    "99.9999",
    "99.99999",
    "99.999999",
    "99.9999999",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

struct Xml {
    o: String,
    depth: usize,
}

impl Xml {
    fn new() -> Xml {
        Xml {
            o: String::new(),
            depth: 0,
        }
    }
    fn open(&mut self, tag: &str) {
        let _ = writeln!(self.o, "{}<{tag}>", "  ".repeat(self.depth));
        self.depth += 1;
    }
    fn close(&mut self, tag: &str) {
        self.depth -= 1;
        let _ = writeln!(self.o, "{}</{tag}>", "  ".repeat(self.depth));
    }
    fn leaf(&mut self, tag: &str, value: impl std::fmt::Display) {
        let _ = writeln!(
            self.o,
            "{}<{tag}>{}</{tag}>",
            "  ".repeat(self.depth),
            esc(&value.to_string())
        );
    }
    fn raw(&mut self, line: &str) {
        let _ = writeln!(self.o, "{}{line}", "  ".repeat(self.depth));
    }
}

/// DiskSpd times an I/O from issue to completion: iogauge's total latency (queued to
/// completed), not its completion latency, which leaves out the time in the submission call
/// (all of it where the kernel completes the I/O inside that call, as buffered I/O does).
fn hist(d: &DirResult) -> Option<LatencyHistogram> {
    d.latency_total_histogram
        .as_deref()
        .and_then(|h| LatencyHistogram::from_base64(h).ok())
}

/// DiskSpd's `-Rxml`: the report of a run of the command line `.0`.
pub struct DiskspdXml<'a>(pub &'a Diskspd);

impl Exporter for DiskspdXml<'_> {
    fn render(&self, r: &RunResult) -> String {
        let d = self.0;
        let mut x = Xml::new();
        x.open("Results");
        write_system(&mut x, r);
        write_profile(&mut x, d, r.queue_depth);
        x.open("TimeSpan");
        x.leaf(
            "TestTimeSeconds",
            format!("{:.2}", r.measured_ns as f64 / 1e9),
        );
        x.leaf("ThreadCount", r.job.total_threads());
        x.leaf("RequestCount", r.queue_depth);
        x.leaf("ProcCount", r.cpu.len());
        write_cpu(&mut x, r);
        if r.job.latency {
            write_latency(&mut x, r);
        }
        if d.iops_stats {
            write_iops(&mut x, r);
        }
        write_threads(&mut x, r);
        if r.partial {
            x.leaf(
                "Error",
                r.stop_message
                    .as_deref()
                    .unwrap_or("the run was interrupted"),
            );
        }
        x.close("TimeSpan");
        x.close("Results");
        x.o
    }
}

/// DiskSpd's `-Rpxml`: the `<Profile>` element alone, as DiskSpd prints it without running.
pub struct ProfileXml;

impl Exporter<Diskspd> for ProfileXml {
    fn render(&self, d: &Diskspd) -> String {
        let mut x = Xml::new();
        write_profile(&mut x, d, d.job.queue_depth);
        x.o
    }
}

/// `<System>`: the machine and the tool.
fn write_system(x: &mut Xml, r: &RunResult) {
    x.open("System");
    x.leaf("ComputerName", &r.system.hostname);
    x.open("Tool");
    x.leaf("Version", format!("iogauge {}", r.tool_version));
    x.close("Tool");
    x.open("RunTime");
    x.leaf("StartTime", crate::dates::format_utc(r.started_unix_ns));
    x.close("RunTime");
    x.leaf("ProcessorTopology", format!("{} CPUs", r.system.cpus));
    x.close("System");
}

/// `<CpuUtilization>`: each CPU, then their average.
fn write_cpu(x: &mut Xml, r: &RunResult) {
    x.open("CpuUtilization");
    let (mut usage, mut user, mut kernel, mut idle) = (0.0, 0.0, 0.0, 0.0);
    for c in &r.cpu {
        let (u, k, i) = (c.pct(c.user_ns), c.pct(c.kernel_ns), c.pct(c.idle_ns));
        x.open("CPU");
        x.leaf("Group", 0);
        x.leaf("Id", c.cpu);
        x.leaf("UsagePercent", format!("{:.2}", 100.0 - i));
        x.leaf("UserPercent", format!("{u:.2}"));
        x.leaf("KernelPercent", format!("{k:.2}"));
        x.leaf("IdlePercent", format!("{i:.2}"));
        x.close("CPU");
        usage += 100.0 - i;
        user += u;
        kernel += k;
        idle += i;
    }
    let n = r.cpu.len().max(1) as f64;
    x.open("Average");
    x.leaf("UsagePercent", format!("{:.2}", usage / n));
    x.leaf("UserPercent", format!("{:.2}", user / n));
    x.leaf("KernelPercent", format!("{:.2}", kernel / n));
    x.leaf("IdlePercent", format!("{:.2}", idle / n));
    x.close("Average");
    x.close("CpuUtilization");
}

/// The mean and deviation of each direction that has a latency, under DiskSpd's names.
fn write_means(x: &mut Xml, dirs: [(&DirResult, &str, &str); 3]) {
    for (d, avg, dev) in dirs {
        if let Some(l) = &d.latency_total {
            x.leaf(avg, ms(l.mean_ns));
            x.leaf(dev, ms(l.stdev_ns));
        }
    }
}

/// `<Latency>` (with -L): the run's means and deviations, and DiskSpd's percentile buckets.
fn write_latency(x: &mut Xml, r: &RunResult) {
    let t = &r.total;
    let hs = [hist(&t.read), hist(&t.write), hist(&t.all)];
    x.open("Latency");
    write_means(
        x,
        [
            (&t.read, "AverageReadMilliseconds", "ReadLatencyStdev"),
            (&t.write, "AverageWriteMilliseconds", "WriteLatencyStdev"),
            (&t.all, "AverageTotalMilliseconds", "LatencyStdev"),
        ],
    );
    let bucket = |x: &mut Xml, label: &str, at: &dyn Fn(&LatencyHistogram) -> u64| {
        x.open("Bucket");
        x.leaf("Percentile", label);
        for (h, tag) in
            hs.iter()
                .zip(["ReadMilliseconds", "WriteMilliseconds", "TotalMilliseconds"])
        {
            if let Some(h) = h {
                x.leaf(tag, ms(at(h) as f64));
            }
        }
        x.close("Bucket");
    };
    bucket(x, "0", &|h| h.value_at_percentile(0.0));
    for p in PERCENTILES {
        let v: f64 = p.parse().expect("static percentiles parse");
        bucket(x, p, &|h| h.value_at_percentile(v));
    }
    bucket(x, "100", &|h| h.value_at_percentile(100.0));
    x.close("Latency");
}

/// `<Iops>` (with -D): the deviation of IOPS over full intervals, and each interval's counts.
fn write_iops(x: &mut Xml, r: &RunResult) {
    let j = &r.job;
    x.open("Iops");
    let interval_s = j.timing.interval_ns as f64 / 1e9;
    let full: Vec<_> = r
        .time_series
        .samples
        .iter()
        .filter(|s| s.duration_ns == j.timing.interval_ns)
        .collect();
    let dev = |v: Vec<f64>| -> f64 {
        if v.len() < 2 {
            return 0.0;
        }
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
    };
    let per_s = |f: &dyn Fn(&crate::result::Sample) -> u64| -> Vec<f64> {
        full.iter().map(|s| f(s) as f64 / interval_s).collect()
    };
    x.leaf(
        "ReadIopsStdDev",
        format!("{:.3}", dev(per_s(&|s| s.read.ios))),
    );
    x.leaf(
        "WriteIopsStdDev",
        format!("{:.3}", dev(per_s(&|s| s.write.ios))),
    );
    x.leaf(
        "IopsStdDev",
        format!("{:.3}", dev(per_s(&|s| s.read.ios + s.write.ios))),
    );
    for s in &full {
        x.raw(&format!(
            "<Bucket SampleMillisecond=\"{}\" Read=\"{}\" Write=\"{}\" Total=\"{}\"/>",
            (s.start_ns + s.duration_ns) / 1_000_000,
            s.read.ios,
            s.write.ios,
            s.read.ios + s.write.ios
        ));
    }
    x.close("Iops");
}

/// A `<Thread>` per thread, numbered across targets, with its `<Target>` counts.
fn write_threads(x: &mut Xml, r: &RunResult) {
    let mut id = 0;
    for t in &r.targets {
        for th in &t.threads {
            x.open("Thread");
            x.leaf("Id", id);
            id += 1;
            if th.files.is_empty() {
                write_thread_target(x, t, th);
            } else {
                write_file_targets(x, t, th);
            }
            x.close("Thread");
        }
    }
}

/// The thread's I/O on its one target, with its latency.
fn write_thread_target(x: &mut Xml, t: &TargetResult, th: &ThreadResult) {
    x.open("Target");
    x.leaf("Path", &t.path);
    x.leaf("BytesCount", th.total.all.bytes);
    x.leaf("FileSize", t.size_bytes);
    x.leaf("IOCount", th.total.all.ios);
    x.leaf("ReadBytes", th.total.read.bytes);
    x.leaf("ReadCount", th.total.read.ios);
    x.leaf("WriteBytes", th.total.write.bytes);
    x.leaf("WriteCount", th.total.write.ios);
    write_means(
        x,
        [
            (
                &th.total.read,
                "AverageReadLatencyMilliseconds",
                "ReadLatencyStdev",
            ),
            (
                &th.total.write,
                "AverageWriteLatencyMilliseconds",
                "WriteLatencyStdev",
            ),
            (&th.total.all, "AverageLatencyMilliseconds", "LatencyStdev"),
        ],
    );
    x.close("Target");
}

/// -F over several targets: a Target per file, as DiskSpd writes them, with the counts
/// (latency is measured for the thread's I/O as a whole, not per file).
fn write_file_targets(x: &mut Xml, t: &TargetResult, th: &ThreadResult) {
    for (f, c) in t.files.iter().zip(&th.files) {
        x.open("Target");
        x.leaf("Path", &f.path);
        x.leaf("BytesCount", c.read.bytes + c.write.bytes);
        x.leaf("FileSize", f.size_bytes);
        x.leaf("IOCount", c.read.ios + c.write.ios);
        x.leaf("ReadBytes", c.read.bytes);
        x.leaf("ReadCount", c.read.ios);
        x.leaf("WriteBytes", c.write.bytes);
        x.leaf("WriteCount", c.write.ios);
        x.close("Target");
    }
}

/// How DiskSpd counts a job's threads and outstanding I/Os.
pub struct Requests {
    /// `-F`: threads that each work on every target (0: `-t` threads per target).
    pub fixed_threads: u32,
    /// `-O`: I/Os per thread over all its targets (0: `-o` per target).
    pub per_thread: u32,
    /// `-o`: I/Os per thread on each target.
    pub per_target: u32,
}

/// `qd`: the job's outstanding I/Os per thread (-F over several targets holds -o on each).
pub fn requests(j: &JobSpec, qd: u32) -> Requests {
    let (fixed_threads, per_thread, per_target) = match j.file_sets {
        Some(f) if f.service == FileService::Slots => (j.threads_per_target, 0, qd / f.files),
        Some(_) => (j.threads_per_target, qd, qd),
        None => (0, 0, qd),
    };
    Requests {
        fixed_threads,
        per_thread,
        per_target,
    }
}

/// DiskSpd's `<Profile>`, element for element in DiskSpd's order (Profile, TimeSpan and
/// Target as DiskSpd writes them), so that DiskSpd's -X could read it back.
fn write_profile(x: &mut Xml, d: &Diskspd, qd: u32) {
    let j = &d.job;
    let req = requests(j, qd);
    x.open("Profile");
    x.leaf("Progress", d.shown.progress);
    x.leaf("ResultFormat", if d.xml { "xml" } else { "text" });
    x.leaf("Verbose", d.shown.verbose);
    x.open("TimeSpans");
    x.open("TimeSpan");
    x.leaf("CompletionRoutines", d.shown.completion_routines);
    x.leaf("MeasureLatency", j.latency);
    x.leaf("CalculateIopsStdDev", d.iops_stats);
    x.leaf("DisableAffinity", j.affinity.is_none());
    let secs = |ns: u64| ns / 1_000_000_000;
    if let Stop::Duration { ns } = j.timing.stop {
        x.leaf("Duration", secs(ns));
    }
    x.leaf("Warmup", secs(j.timing.warmup_ns));
    x.leaf("Cooldown", secs(j.timing.cooldown_ns));
    x.leaf("ThreadCount", req.fixed_threads);
    x.leaf("RequestCount", req.per_thread);
    x.leaf("IoBucketDuration", j.timing.interval_ns / 1_000_000);
    x.leaf("RandSeed", j.seed);
    if let Some(crate::spec::Affinity::Cpus { cpus }) = &j.affinity {
        x.open("Affinity");
        for c in cpus {
            x.raw(&format!(
                "<AffinityGroupAssignment Group=\"0\" Processor=\"{c}\"/>"
            ));
        }
        x.close("Affinity");
    }
    x.open("Targets");
    for t in &j.targets {
        write_target(x, d, &t.path.display().to_string(), t.create_size, &req);
    }
    x.close("Targets");
    x.close("TimeSpan");
    x.close("TimeSpans");
    x.close("Profile");
}

fn write_target(x: &mut Xml, d: &Diskspd, path: &str, create: Option<u64>, req: &Requests) {
    let (j, shown) = (&d.job, &d.shown);
    x.open("Target");
    x.leaf("Path", path);
    x.leaf("BlockSize", j.shape.block_size);
    x.leaf("BaseFileOffset", j.shape.base_offset);
    x.leaf("SequentialScan", shown.hints.contains('s'));
    x.leaf("RandomAccess", shown.hints.contains('r'));
    x.leaf("TemporaryFile", shown.hints.contains('t'));
    x.leaf("UseLargePages", shown.large_pages);
    // DiskSpd writes the cache elements only where they differ from its default.
    if j.cache.is_direct() {
        x.leaf("DisableOSCache", true);
    }
    if j.cache.is_dsync() {
        x.leaf("WriteThrough", true);
    }
    if j.engine.kind == Some(EngineKind::Mmap) && j.cache == CacheMode::Buffered {
        x.leaf("MemoryMappedIo", true);
    }
    if let Some(f) = shown.flush_mode {
        x.leaf("FlushType", f.xml_name());
    }
    x.open("WriteBufferContent");
    match shown.write_buffer {
        Some(size) => {
            x.leaf("Pattern", "random");
            x.open("RandomDataSource");
            x.leaf("SizeInBytes", size);
            x.close("RandomDataSource");
        }
        None if j.per_io.buffers.compress_pct == 100 => x.leaf("Pattern", "zero"),
        None => x.leaf("Pattern", "sequential"),
    }
    x.close("WriteBufferContent");
    x.leaf("ParallelAsyncIO", false);
    if let Some(t) = j.per_io.think {
        x.leaf("BurstSize", t.every);
        x.leaf("ThinkTime", t.ns / 1_000_000);
    }
    if let Some(size) = create {
        x.leaf("FileSize", size);
    }
    write_pattern(x, j);
    x.leaf("ThreadStride", j.shape.thread_start);
    x.leaf("MaxFileSize", j.shape.max_offset.unwrap_or(0));
    x.leaf("RequestCount", req.per_target);
    x.leaf("WriteRatio", j.shape.write_pct);
    match (j.limits.rate_iops, j.limits.rate_bytes_per_sec) {
        (Some(iops), _) => x.raw(&format!("<Throughput unit=\"IOPS\">{iops}</Throughput>")),
        // DiskSpd's unit is bytes per millisecond.
        (None, bw) => x.leaf("Throughput", bw.unwrap_or(0) / 1000),
    }
    x.leaf(
        "ThreadsPerFile",
        if req.fixed_threads > 0 {
            1
        } else {
            j.threads_per_target
        },
    );
    x.leaf("IOPriority", shown.io_priority.unwrap_or(3));
    x.leaf("Weight", 1);
    x.close("Target");
}

fn write_pattern(x: &mut Xml, j: &JobSpec) {
    match &j.shape.pattern {
        Pattern::Random {
            align_bytes,
            distribution,
        } => {
            x.leaf("Random", align_bytes);
            if let Some(pct) = j.shape.random_pct {
                x.leaf("RandomRatio", pct);
            }
            if let Distribution::Zoned { absolute, zones } = distribution {
                let kind = if *absolute { "Absolute" } else { "Percent" };
                x.open("Distribution");
                x.open(kind);
                for z in zones {
                    x.raw(&format!("<Range IO=\"{}\">{}</Range>", z.io_pct, z.span));
                }
                x.close(kind);
                x.close("Distribution");
            }
        }
        Pattern::Sequential {
            stride_bytes,
            interlocked,
            ..
        } => {
            x.leaf("StrideSize", stride_bytes);
            x.leaf("InterlockedSequential", interlocked);
        }
    }
}
