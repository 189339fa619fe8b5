//! DiskSpd's profile in text (`-Rp`, `-Rptext`): the command line as DiskSpd understood it,
//! in the shape of DiskSpd's own "Input parameters" (one timespan, then each target), written
//! without running anything. The XML form (`-Rpxml`) is [`super::diskspd_xml::ProfileXml`].

use super::diskspd_xml::{requests, Requests};
use super::Exporter;
use crate::spec::diskspd::{Diskspd, MappedFlush};
use crate::spec::{Affinity, CacheMode, Distribution, JobSpec, Pattern, Stop};
use std::fmt::Write;

/// DiskSpd's sizes: whole units where they divide evenly (4KiB), two decimals where not
/// (1.50KiB), bytes below 1KiB.
fn size(bytes: u64) -> String {
    for (name, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        let unit = 1u64 << shift;
        if bytes >= unit {
            return if bytes.is_multiple_of(unit) {
                format!("{}{name}", bytes / unit)
            } else {
                format!("{:.2}{name}", bytes as f64 / unit as f64)
            };
        }
    }
    bytes.to_string()
}

/// DiskSpd's `-Rp` in text, under the command line as typed.
pub struct ProfileText {
    pub command_line: String,
}

impl Exporter<Diskspd> for ProfileText {
    fn render(&self, d: &Diskspd) -> String {
        text(d, &self.command_line)
    }
}

/// The profile of `d`; `command_line` as typed.
fn text(d: &Diskspd, command_line: &str) -> String {
    let mut o = String::new();
    let _ = write!(o, "\nCommand Line: {command_line}\n\nInput parameters:\n\n");
    if d.shown.verbose {
        let _ = writeln!(o, "\tusing verbose mode");
    }
    let _ = writeln!(o, "\ttimespan:   1\n\t-------------");
    let req = requests(&d.job, d.job.queue_depth);
    timespan(&mut o, d, &req);
    for t in &d.job.targets {
        let _ = writeln!(o, "\tpath: '{}'", t.path.display());
        target(&mut o, d, &req);
    }
    let _ = writeln!(o);
    for n in &d.notes {
        let _ = writeln!(o, "Note: {n}");
    }
    o
}

fn timespan(o: &mut String, d: &Diskspd, req: &Requests) {
    let j = &d.job;
    let secs = |ns: u64| ns / 1_000_000_000;
    if let Stop::Duration { ns } = j.timing.stop {
        let _ = writeln!(o, "\tduration: {}s", secs(ns));
    }
    let _ = writeln!(o, "\twarm up time: {}s", secs(j.timing.warmup_ns));
    let _ = writeln!(o, "\tcool down time: {}s", secs(j.timing.cooldown_ns));
    if j.affinity.is_none() {
        let _ = writeln!(o, "\taffinity disabled");
    }
    if j.latency {
        let _ = writeln!(o, "\tmeasuring latency");
    }
    if d.iops_stats {
        let _ = writeln!(
            o,
            "\tgathering IOPS at intervals of {}ms",
            j.timing.interval_ns / 1_000_000
        );
    }
    let _ = writeln!(o, "\trandom seed: {}", j.seed);
    if req.fixed_threads > 0 {
        let _ = writeln!(o, "\tthread pool with {} threads", req.fixed_threads);
        let _ = writeln!(
            o,
            "\tnumber of outstanding I/O operations per thread: {}",
            req.per_thread
        );
    }
    if let Some(Affinity::Cpus { cpus }) = &j.affinity {
        let list: Vec<String> = cpus.iter().map(|c| format!("0/{c}")).collect();
        let _ = writeln!(
            o,
            "\tadvanced affinity round robin (group/core): {}",
            list.join(", ")
        );
    }
    if j.per_io.buffers.refill {
        let _ = writeln!(o, "\tgenerating random data for each write IO");
    }
}

fn target(o: &mut String, d: &Diskspd, req: &Requests) {
    let (j, shown) = (&d.job, &d.shown);
    let think = j
        .per_io
        .think
        .map_or((0, 0), |t| (t.ns / 1_000_000, t.every));
    let _ = writeln!(o, "\t\tthink time: {}ms", think.0);
    let _ = writeln!(o, "\t\tburst size: {}", think.1);
    caching(o, j, shown.flush_mode);
    if shown.write_buffer.is_none() && j.per_io.buffers.compress_pct == 100 {
        let _ = writeln!(o, "\t\tzeroing write buffers");
    }
    if let Some(b) = shown.write_buffer {
        let _ = writeln!(o, "\t\twrite buffer size: {}", size(b));
        let _ = writeln!(o, "\t\twrite buffer source: random fill");
    }
    let _ = match j.shape.write_pct {
        0 => writeln!(o, "\t\tperforming read test"),
        100 => writeln!(o, "\t\tperforming write test"),
        w => writeln!(
            o,
            "\t\tperforming mix test (read/write ratio: {}/{w})",
            100 - w
        ),
    };
    let _ = writeln!(o, "\t\tblock size: {}", size(j.shape.block_size));
    pattern(o, j);
    if req.per_thread > 0 {
        let _ = writeln!(o, "\t\trelative IO weight in thread pool: 1");
    } else {
        let _ = writeln!(
            o,
            "\t\tnumber of outstanding I/O operations per thread: {}",
            req.per_target
        );
    }
    offsets(o, j);
    for (c, hint) in [
        ('s', "FILE_FLAG_SEQUENTIAL_SCAN"),
        ('r', "FILE_FLAG_RANDOM_ACCESS"),
        ('t', "FILE_ATTRIBUTE_TEMPORARY"),
    ] {
        if shown.hints.contains(c) {
            let _ = writeln!(o, "\t\tusing {hint} hint");
        }
    }
    if req.fixed_threads == 0 {
        let _ = writeln!(o, "\t\tthreads per file: {}", j.threads_per_target);
        if req.per_target > 1 {
            let _ = writeln!(
                o,
                "\t\tusing {}",
                if shown.completion_routines {
                    "completion routines (ReadFileEx/WriteFileEx)"
                } else {
                    "I/O Completion Ports"
                }
            );
        }
    }
    let priority = ["very low", "low", "normal"];
    let p = shown.io_priority.unwrap_or(3) as usize;
    let _ = writeln!(o, "\t\tIO priority: {}", priority[p.clamp(1, 3) - 1]);
    if let Some(iops) = j.limits.rate_iops {
        let _ = writeln!(o, "\t\tthroughput rate-limited to {iops} IOPS");
    } else if let Some(bw) = j.limits.rate_bytes_per_sec {
        let _ = writeln!(o, "\t\tthroughput rate-limited to {} B/ms", bw / 1000);
    }
    distribution(o, j);
}

fn caching(o: &mut String, j: &JobSpec, flush: Option<MappedFlush>) {
    let _ = writeln!(
        o,
        "\t\t{}",
        if j.cache.is_direct() {
            "software cache disabled"
        } else {
            "using software cache"
        }
    );
    let _ = writeln!(
        o,
        "\t\t{}",
        match j.cache {
            CacheMode::DirectWriteThrough => "hardware write cache disabled, writethrough on",
            CacheMode::WriteThrough => {
                "hardware and software write caches disabled, writethrough on"
            }
            _ => "using hardware write cache, writethrough off",
        }
    );
    if j.engine.kind.is_some_and(|e| e.caps().mapped) {
        let mode = match flush {
            Some(MappedFlush::ViewOfFile) => ", flush mode: FlushViewOfFile",
            Some(MappedFlush::NonVolatile) => ", flush mode: FlushNonVolatileMemory",
            Some(MappedFlush::NonVolatileNoDrain) => {
                ", flush mode: FlushNonVolatileMemory with no drain"
            }
            None => "",
        };
        let _ = writeln!(o, "\t\tmemory mapped I/O enabled{mode}");
    }
}

fn pattern(o: &mut String, j: &JobSpec) {
    let _ = match (&j.shape.pattern, j.shape.random_pct) {
        (Pattern::Random { align_bytes, .. }, None) => writeln!(
            o,
            "\t\tusing random I/O (alignment: {})",
            size(*align_bytes)
        ),
        (Pattern::Random { align_bytes, .. }, Some(pct)) => writeln!(
            o,
            "\t\tusing mixed random/sequential I/O ({pct}% random) (alignment/stride: {})",
            size(*align_bytes)
        ),
        (
            Pattern::Sequential {
                stride_bytes,
                interlocked,
                ..
            },
            _,
        ) => writeln!(
            o,
            "\t\tusing{} sequential I/O (stride: {})",
            if *interlocked { " interlocked" } else { "" },
            size(*stride_bytes)
        ),
    };
}

fn offsets(o: &mut String, j: &JobSpec) {
    let named = [
        ("base file offset", j.shape.base_offset),
        ("max file size", j.shape.max_offset.unwrap_or(0)),
        ("thread stride size", j.shape.thread_start),
    ];
    for (name, v) in named {
        if v > 0 {
            let _ = writeln!(o, "\t\t{name}: {}", size(v));
        }
    }
}

/// -rdpct and -rdabs: each zone with the range of the target it covers.
fn distribution(o: &mut String, j: &JobSpec) {
    let Pattern::Random {
        distribution: Distribution::Zoned { absolute, zones },
        ..
    } = &j.shape.pattern
    else {
        return;
    };
    let _ = writeln!(o, "\t\tIO Distribution:");
    let mut at = 0;
    for z in zones {
        let end = at + z.span;
        let _ = if *absolute && z.span == 0 {
            writeln!(o, "\t\t   {:3}% of IO => [{} - end)", z.io_pct, size(at))
        } else if *absolute {
            writeln!(
                o,
                "\t\t   {:3}% of IO => [{} - {})",
                z.io_pct,
                size(at),
                size(end)
            )
        } else {
            writeln!(
                o,
                "\t\t   {:3}% of IO => [{:2}% - {:3}%) of target",
                z.io_pct, at, end
            )
        };
        at = end;
    }
}

#[cfg(test)]
mod tests {
    use super::size;

    #[test]
    fn sizes_as_diskspd_writes_them() {
        assert_eq!(size(4096), "4KiB");
        assert_eq!(size(1536), "1.50KiB");
        assert_eq!(size(1 << 30), "1GiB");
        assert_eq!(size(512), "512");
    }
}
