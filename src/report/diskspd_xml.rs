//! A run as DiskSpd's `-Rxml` report, with DiskSpd's element names for what iogauge measures,
//! so scripts that read DiskSpd's XML (XPath over `//TimeSpan/Thread/Target/ReadBytes`, the
//! `Latency/Bucket` percentiles, `CpuUtilization/Average`) read iogauge's runs.
//!
//! Written as DiskSpd 2.2's XmlResultParser writes them, element for element and in its
//! order: System (ComputerName, Tool, RunTime, PowerScheme, ProcessorTopology: see
//! [`super::diskspd_system`]), Profile (the parameters of the run), and one TimeSpan:
//! TestTimeSeconds, ThreadCount, RequestCount, ProcCount, CpuUtilization (each CPU with its
//! socket, node, core and efficiency class, and the average), Latency (with -L: the count of
//! histogram buckets, averages, deviations and DiskSpd's 108 percentile buckets), Iops (with
//! -D: deviations and each interval's bucket with its 12 attributes), and Thread/Target with
//! byte and I/O counts, latency (-L) and Iops (-D).
//!
//! A target's Distribution (with -rd) is where iogauge's run put the zones (its own
//! rounding to the alignment, spec/slots.rs), in DiskSpd's effective form. Not written:
//! ETW and WaitStatistics (Windows only) and Tool/VersionDate (iogauge keeps no build date).
//! Latency is DiskSpd's: from issue to completion (iogauge's total
//! latency). With -D but no -L iogauge times no I/O (IOPS mode): a bucket's latencies then
//! read 0.000, as DiskSpd writes them for a bucket it has no durations for.
//!
//! [`ProfileXml`] writes the Profile alone, as DiskSpd's `-Rpxml` does without running.

use super::diskspd_system::{write_system, Machine};
use super::xml::Xml;
use super::Exporter;
use crate::result::{DirResult, RunResult, Sample, SampleDir, TargetResult, ThreadResult};
use crate::spec::diskspd::Diskspd;
use crate::spec::slots::{random_slots, zone_layout};
use crate::spec::{CacheMode, Distribution, FileService, JobSpec, Pattern, Stop};
use crate::stats::LatencyHistogram;

/// DiskSpd's percentile buckets between 0 (min) and 100 (max), after 1 to 99.
const NINES: [&str; 7] = [
    "99.9",
    "99.99",
    "99.999",
    "99.9999",
    "99.99999",
    "99.999999",
    "99.9999999",
];

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
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
        self.render_on(r, &Machine::read())
    }
}

impl DiskspdXml<'_> {
    /// The report as written on `machine` (the golden test's is fixed).
    pub(super) fn render_on(&self, r: &RunResult, machine: &Machine) -> String {
        let d = self.0;
        let mut x = Xml::new();
        x.open("Results");
        write_system(&mut x, r, machine);
        write_profile(&mut x, d, r.queue_depth);
        x.open("TimeSpan");
        x.leaf(
            "TestTimeSeconds",
            format!("{:.2}", r.measured_ns as f64 / 1e9),
        );
        x.leaf("ThreadCount", r.job.total_threads());
        x.leaf("RequestCount", r.queue_depth);
        x.leaf("ProcCount", r.cpu.len());
        write_cpu(&mut x, r, machine);
        if r.job.latency {
            write_latency(&mut x, r);
        }
        let iops = d.iops_stats.then_some(r.job.timing.interval_ns);
        if let Some(interval_ns) = iops {
            write_iops(&mut x, &r.time_series.samples, interval_ns);
        }
        write_threads(&mut x, r, iops);
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

/// `<CpuUtilization>`: each CPU, then their average.
fn write_cpu(x: &mut Xml, r: &RunResult, m: &Machine) {
    x.open("CpuUtilization");
    let (mut usage, mut user, mut kernel, mut idle) = (0.0, 0.0, 0.0, 0.0);
    for c in &r.cpu {
        let (u, k, i) = (c.pct(c.user_ns), c.pct(c.kernel_ns), c.pct(c.idle_ns));
        let [socket, node, core, class] = m.place(c.cpu);
        x.open("CPU");
        x.leaf("Socket", socket);
        x.leaf("Node", node);
        x.leaf("Group", 0);
        x.leaf("Core", core);
        x.leaf("EfficiencyClass", class);
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
    // DiskSpd's count of distinct latencies; iogauge's histogram keeps 3 digits of each.
    let held: Vec<String> = hs
        .iter()
        .map(|h| h.as_ref().map_or(0, |h| h.recorded().len()).to_string())
        .collect();
    x.open_with(
        "Latency",
        &[
            ("ReadHistoBuckets", &held[0]),
            ("WriteHistoBuckets", &held[1]),
            ("TotalHistoBuckets", &held[2]),
        ],
    );
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
    let whole = (1..=99).map(|p| p.to_string());
    for p in whole.chain(NINES.iter().map(|p| p.to_string())) {
        let v: f64 = p.parse().expect("percentiles parse");
        bucket(x, &p, &|h| h.value_at_percentile(v));
    }
    bucket(x, "100", &|h| h.value_at_percentile(100.0));
    x.close("Latency");
}

/// One direction's I/O buckets as DiskSpd keeps them: the full intervals up to the last
/// that holds an I/O of that direction.
fn dir_buckets<'a>(full: &[&'a Sample], dir: fn(&Sample) -> &SampleDir) -> Vec<&'a SampleDir> {
    let n = full
        .iter()
        .rposition(|s| dir(s).ios > 0)
        .map_or(0, |i| i + 1);
    full[..n].iter().map(|s| dir(s)).collect()
}

/// The population deviation of per-bucket counts, as a rate (DiskSpd's IOPS deviation).
fn iops_dev(counts: &[u64], interval_s: f64) -> f64 {
    let n = counts.len() as f64;
    let mean = counts.iter().sum::<u64>() as f64 / n;
    let var = counts
        .iter()
        .map(|&c| (c as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    var.sqrt() / interval_s
}

/// A bucket's four latency attributes for one direction, ms (0.000 where it had no timed I/O).
fn bucket_latency(d: Option<&&SampleDir>) -> [String; 4] {
    let l = d.and_then(|d| d.latency_spread).unwrap_or_default();
    [l.min_ns as f64, l.max_ns as f64, l.mean_ns(), l.stdev_ns()].map(ms)
}

/// `<Iops>` (with -D) over `samples` (the run's or one thread's): the deviations of IOPS
/// over DiskSpd's buckets (full intervals), then each bucket with its rates and latencies.
fn write_iops(x: &mut Xml, samples: &[Sample], interval_ns: u64) {
    let full: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.duration_ns == interval_ns)
        .collect();
    let (read, write) = (
        dir_buckets(&full, |s| &s.read),
        dir_buckets(&full, |s| &s.write),
    );
    let n = read.len().max(write.len());
    let count = |b: &[&SampleDir], i: usize| b.get(i).map_or(0, |d| d.ios);
    let totals: Vec<u64> = (0..n).map(|i| count(&read, i) + count(&write, i)).collect();
    let interval_s = interval_ns as f64 / 1e9;
    x.open("Iops");
    for (tag, b) in [("ReadIopsStdDev", &read), ("WriteIopsStdDev", &write)] {
        if !b.is_empty() {
            let counts: Vec<u64> = b.iter().map(|d| d.ios).collect();
            x.leaf(tag, format!("{:.3}", iops_dev(&counts, interval_s)));
        }
    }
    if n > 0 {
        x.leaf(
            "IopsStdDev",
            format!("{:.3}", iops_dev(&totals, interval_s)),
        );
    }
    for i in 0..n {
        let (r, w) = (
            count(&read, i) as f64 / interval_s,
            count(&write, i) as f64 / interval_s,
        );
        let [rmin, rmax, ravg, rdev] = bucket_latency(read.get(i));
        let [wmin, wmax, wavg, wdev] = bucket_latency(write.get(i));
        let at = ((i as u64 + 1) * interval_ns / 1_000_000).to_string();
        let (r, w, t) = (
            format!("{r:.0}"),
            format!("{w:.0}"),
            format!("{:.0}", r + w),
        );
        x.empty(
            "Bucket",
            &[
                ("SampleMillisecond", &at),
                ("Read", &r),
                ("Write", &w),
                ("Total", &t),
                ("ReadMinLatencyMilliseconds", &rmin),
                ("ReadMaxLatencyMilliseconds", &rmax),
                ("ReadAvgLatencyMilliseconds", &ravg),
                ("ReadLatencyStdDev", &rdev),
                ("WriteMinLatencyMilliseconds", &wmin),
                ("WriteMaxLatencyMilliseconds", &wmax),
                ("WriteAvgLatencyMilliseconds", &wavg),
                ("WriteLatencyStdDev", &wdev),
            ],
        );
    }
    x.close("Iops");
}

/// A `<Thread>` per thread, numbered across targets, with its `<Target>` counts.
/// `iops`: DiskSpd's bucket length, with -D.
fn write_threads(x: &mut Xml, r: &RunResult, iops: Option<u64>) {
    let mut id = 0;
    for t in &r.targets {
        for th in &t.threads {
            x.open("Thread");
            x.leaf("Id", id);
            id += 1;
            if th.files.is_empty() {
                write_thread_target(x, &r.job, t, th, iops);
            } else {
                write_file_targets(x, &r.job, t, th);
            }
            x.close("Thread");
        }
    }
}

/// The thread's I/O on its one target, with its latency and (-D) its buckets.
fn write_thread_target(
    x: &mut Xml,
    j: &JobSpec,
    t: &TargetResult,
    th: &ThreadResult,
    iops: Option<u64>,
) {
    x.open("Target");
    x.leaf("Path", &t.path);
    x.leaf("BytesCount", th.total.all.bytes);
    x.leaf("FileSize", t.size_bytes);
    x.leaf("IOCount", th.total.all.ios);
    x.leaf("ReadBytes", th.total.read.bytes);
    x.leaf("ReadCount", th.total.read.ios);
    x.leaf("WriteBytes", th.total.write.bytes);
    x.leaf("WriteCount", th.total.write.ios);
    write_distribution(x, j, t.working_set_end - t.working_set_start);
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
    if let Some(interval_ns) = iops {
        write_iops(x, &th.time_series, interval_ns);
    }
    x.close("Target");
}

/// -F over several targets: a Target per file, as DiskSpd writes them, with the counts
/// (latency and buckets are measured for the thread's I/O as a whole, not per file, so
/// these Targets carry neither).
fn write_file_targets(x: &mut Xml, j: &JobSpec, t: &TargetResult, th: &ThreadResult) {
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
        write_distribution(x, j, f.working_set_end - f.working_set_start);
        x.close("Target");
    }
}

/// With -rd, the zones as the run laid them over a working set of `len` bytes (DiskSpd's
/// effective distribution): Absolute ranges from the working set's start, a gap between two
/// zones written as a range with no I/O.
fn write_distribution(x: &mut Xml, j: &JobSpec, len: u64) {
    let Pattern::Random {
        align_bytes: align,
        distribution: Distribution::Zoned { absolute, zones },
    } = &j.shape.pattern
    else {
        return;
    };
    let block = j.shape.block_size;
    if len < block || *align == 0 {
        return;
    }
    let layout = zone_layout(
        *absolute,
        zones,
        random_slots(len, block, *align),
        *align,
        len,
    );
    if layout.is_empty() {
        return;
    }
    x.open("Distribution");
    x.open("Absolute");
    let mut expect = 0;
    for z in layout {
        let (start, bytes) = (z.first * align, z.slots * align);
        if start > expect {
            x.raw(&format!("<Range IO=\"0\">{}</Range>", start - expect));
        }
        x.raw(&format!("<Range IO=\"{}\">{bytes}</Range>", z.io_pct));
        expect = expect.max(start + bytes);
    }
    x.close("Absolute");
    x.close("Distribution");
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
    if j.engine.kind.is_some_and(|e| e.caps().mapped) && j.cache == CacheMode::Buffered {
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
