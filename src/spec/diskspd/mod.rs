//! DiskSpd's command line with DiskSpd's meaning (`iogauge diskspd`): its defaults (64K blocks,
//! 2 outstanding I/Os, 10 s after a 5 s warm-up, the OS cache on, threads spread over the
//! CPUs), glued values (`-b8K`, `-o32`, `-Suw`), and its refusals, with DiskSpd's reasons
//! (checked against DiskSpd 2.2's parser and validator). The result is the same validated
//! [`JobSpec`] `iogauge run` builds; `iogauge run` also takes DiskSpd's flags, with iogauge's
//! defaults.
//!
//! Options start with `-` only: DiskSpd's `/` prefix would make every absolute Linux path an
//! option.

use super::{
    Affinity, BufferFill, CacheMode, Distribution, FileService, FileSets, FlushEvery, JobSpec,
    Pattern, Stop, TargetSpec, Think,
};
use crate::error::{Error, Result};
use std::path::PathBuf;

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

/// DiskSpd settings that change nothing here (Windows hints and APIs) or that the job holds
/// in other terms, kept as given so that the profile (-Rp) shows them as DiskSpd would.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    /// `-f<rst>`: the Windows access hints, as given.
    pub hints: String,
    /// `-I<1..3>`.
    pub io_priority: Option<u8>,
    /// `-l`.
    pub large_pages: bool,
    /// `-Z<size>`: DiskSpd's random write source buffer.
    pub write_buffer: Option<u64>,
    /// `-N<v|n|i>`: the flush after each write to a mapped target.
    pub flush_mode: Option<MappedFlush>,
    /// `-v`.
    pub verbose: bool,
    /// `-P<count>`: DiskSpd's progress dots.
    pub progress: u32,
    /// `-x`.
    pub completion_routines: bool,
}

/// DiskSpd's `-N`: how a write to a memory-mapped target (-Sm) is flushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MappedFlush {
    /// `-Nv`: FlushViewOfFile.
    ViewOfFile,
    /// `-Nn`: RtlFlushNonVolatileMemory.
    NonVolatile,
    /// `-Ni`: RtlFlushNonVolatileMemory without waiting for the flush to drain.
    NonVolatileNoDrain,
}

impl MappedFlush {
    /// DiskSpd's name, as its XML profile writes it (`<FlushType>`).
    pub fn xml_name(self) -> &'static str {
        match self {
            MappedFlush::ViewOfFile => "ViewOfFile",
            MappedFlush::NonVolatile => "NonVolatileMemory",
            MappedFlush::NonVolatileNoDrain => "NonVolatileMemoryNoDrain",
        }
    }
}

/// `#N` targets: the Nth disk. `disks` lists /dev paths in the order DiskSpd's numbers mean
/// here (whole disks, by name).
pub struct Targets<'a> {
    pub disks: &'a dyn Fn() -> Vec<PathBuf>,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::usage(msg.into())
}

/// DiskSpd's sizes: digits, then one of K, M, G, T (binary) or b (blocks), in either case.
/// `a`: the option as typed, which errors name.
fn size(text: &str, block: u64, a: &str) -> Result<u64> {
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    let n: u64 = digits.parse().map_err(|_| {
        bad(format!(
            "{a}: '{text}' is not a size (digits, then K, M, G, T or b for blocks)"
        ))
    })?;
    let mult = match unit.to_ascii_uppercase().as_str() {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        "B" => block,
        _ => {
            return Err(bad(format!(
                "{a}: invalid size '{unit}'. Valid: K - KiB, M - MiB, G - GiB, T - TiB, B - block"
            )))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| bad(format!("{a}: overflow applying multiplier '{unit}'")))
}

/// `-rdpct90/10:0/10:5/20` or `-rdabs90/10G:5/20G`, with DiskSpd 2.2's reading and its checks:
/// IO% and spans are cumulative, an IO% of 0 is a hole, and an IO% short of 100 goes to the
/// rest of the target (a last zone that DiskSpd adds itself).
fn random_zones(a: &str, spec: &str, block: u64) -> Result<Distribution> {
    let (absolute, list) = if let Some(l) = spec.strip_prefix("pct") {
        (false, l)
    } else if let Some(l) = spec.strip_prefix("abs") {
        (true, l)
    } else {
        return Err(bad(format!("{a}: Unrecognized random distribution type")));
    };
    let mut zones = Vec::new();
    let (mut io_acc, mut span_acc) = (0u64, 0u64);
    for item in list.split(':') {
        let (io, span) = item
            .split_once('/')
            .ok_or_else(|| bad(format!("{a}: Expected / separator after {item}")))?;
        let io: u64 = io.parse().map_err(|_| {
            bad(format!(
                "{a}: Invalid integer IO%: must be > 0 and <= {}",
                100 - io_acc.min(100)
            ))
        })?;
        if io_acc.saturating_add(io) > 100 {
            return Err(bad(format!(
                "{a}: invalid random distribution IO% {io}: can be at most {} - total must be <= 100%",
                100 - io_acc
            )));
        }
        let span = if absolute {
            let b = size(span, block, a)?;
            if b == 0 {
                return Err(bad(format!("{a}: Invalid zero length target range")));
            }
            if b < block {
                return Err(bad(format!("{a}: invalid random distribution target range {b} - must be a minimum of the specified block size ({block} bytes)")));
            }
            b
        } else {
            let p: u64 = span
                .parse()
                .ok()
                .filter(|p| (1..=100).contains(p))
                .ok_or_else(|| {
                    bad(format!(
                        "{a}: Invalid Target% {span}: must be > 0 and <= {}",
                        100 - span_acc.min(100)
                    ))
                })?;
            if span_acc + p > 100 {
                return Err(bad(format!(
                    "{a}: invalid random distribution Target% {p}: can be at most {} - total must be <= 100%",
                    100 - span_acc
                )));
            }
            if span_acc + p == 100 && io_acc + io < 100 {
                return Err(bad(format!(
                    "{a}: invalid random distribution: the target is covered with {}% IO left to distribute",
                    100 - io_acc - io
                )));
            }
            p
        };
        io_acc += io;
        // Absolute spans are bytes: their sum is only compared, so saturating is exact enough.
        span_acc = span_acc.saturating_add(span);
        zones.push(crate::spec::Zone {
            io_pct: io as u8,
            span,
        });
    }
    // The IO% left goes to the rest of the target.
    if io_acc < 100 {
        zones.push(crate::spec::Zone {
            io_pct: (100 - io_acc) as u8,
            span: if absolute { 0 } else { 100 - span_acc },
        });
        span_acc = 100;
    }
    if !absolute && span_acc != 100 {
        return Err(bad(format!(
            "{a}: invalid random distribution span: Target% ({span_acc}%) must total 100%"
        )));
    }
    Ok(Distribution::Zoned { absolute, zones })
}

/// `-a[g#,]#[,#...]`, as DiskSpd reads it: CPUs, each in the group named last by `g#` (0
/// until one is named). `-a` and `-ag` alone list none (DiskSpd's default, round robin).
/// Linux has one group: CPUs of group 0 are the CPUs, any other group is refused.
fn affinity_cpus(a: &str, v: &str) -> Result<Vec<usize>> {
    let list = match v {
        "" | "g" => return Ok(Vec::new()),
        _ => v,
    };
    // DiskSpd: a list ends with a CPU, not with a group.
    if list.ends_with(',') || list.rsplit(',').next().is_some_and(|l| l.starts_with('g')) {
        return Err(bad(format!("{a}: incomplete affinity specification")));
    }
    let syntax = |at: &str| bad(format!("{a}: syntax error parsing affinity at '{at}'"));
    let mut cpus = Vec::new();
    for part in list.split(',') {
        if let Some(group) = part.strip_prefix('g') {
            match group.parse::<u64>() {
                Ok(0) => continue,
                Ok(_) => {
                    return Err(bad(format!(
                        "{a}: processor groups other than 0 do not exist on Linux"
                    )))
                }
                Err(_) => return Err(syntax(part)),
            }
        }
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax(part));
        }
        cpus.push(part.parse().map_err(|_| syntax(part))?);
    }
    Ok(cpus)
}

/// `-N<v|n|i>`, in either case, as DiskSpd reads it.
fn mapped_flush(a: &str, v: &str) -> Result<MappedFlush> {
    match v.to_ascii_lowercase().as_str() {
        "v" => Ok(MappedFlush::ViewOfFile),
        "n" => Ok(MappedFlush::NonVolatile),
        "i" => Ok(MappedFlush::NonVolatileNoDrain),
        _ => Err(bad(format!(
            "{a}: incorrectly provided option (-N takes v, n or i: how memory mapped writes are flushed)"
        ))),
    }
}

/// -N with -Sm: each write to the mapping is flushed before the next I/O. Linux has one call
/// for DiskSpd's three: msync(MS_SYNC), which on a DAX file system also writes back the CPU
/// caches that the non-volatile-memory flush (-Nn, -Ni) is for.
fn mapped_flush_job(
    mode: Option<MappedFlush>,
    mmap: bool,
    notes: &mut Vec<String>,
) -> Result<Option<FlushEvery>> {
    let Some(mode) = mode else {
        return Ok(None);
    };
    if !mmap {
        return Err(bad(
            "memory mapped flush mode (-N) can only be specified with memory mapped IO (-Sm)",
        ));
    }
    notes.push(match mode {
        MappedFlush::ViewOfFile => "-Nv: each write to the mapping is followed by msync(MS_SYNC), Linux's FlushViewOfFile",
        MappedFlush::NonVolatile => "-Nn: each write to the mapping is followed by msync(MS_SYNC): Linux has no call of its own for RtlFlushNonVolatileMemory (on a DAX file system msync writes back the CPU caches)",
        MappedFlush::NonVolatileNoDrain => "-Ni: runs as -Nn: msync(MS_SYNC) after each write, which always waits for the flush to drain",
    }.to_string());
    notes.push("-N: the flushes are timed apart from the writes (Flushes), where DiskSpd counts each in its write's latency".into());
    Ok(Some(FlushEvery {
        writes: 1,
        data_only: false,
    }))
}

/// `n` given to -`flag`, times `unit`: an error naming the flag where it does not fit in u64.
fn scaled(n: u64, unit: u64, flag: &str) -> Result<u64> {
    n.checked_mul(unit)
        .ok_or_else(|| bad(format!("-{flag}{n}: the value is out of range")))
}

/// DiskSpd's counts and times: a C `int` (atoi), so no more than 2147483647; what lies past
/// it is no DiskSpd value (and seconds past it would overflow as nanoseconds).
fn int(text: &str, flag: &str, what: &str) -> Result<u64> {
    text.parse()
        .ok()
        .filter(|&n: &u64| n <= i32::MAX as u64)
        .ok_or_else(|| bad(format!("-{flag}{text}: invalid {what} (-{flag}): '{text}'")))
}

/// Parse `args` (after `iogauge diskspd`, iogauge's own `--` options removed).
pub fn parse(args: &[String], targets_of: &Targets) -> Result<Diskspd> {
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    // -b first: other sizes may be in blocks.
    let mut block = BLOCK;
    for a in args {
        if let Some(v) = a.strip_prefix("-b").filter(|v| !v.is_empty()) {
            block = size(v, BLOCK, a)?;
            if block == 0 {
                return Err(bad(format!("{a}: invalid block size passed to -b")));
            }
        }
    }
    let mut paths: Vec<String> = Vec::new();
    let mut threads: Option<u32> = None;
    let mut total_threads: Option<u32> = None;
    let mut qd = OUTSTANDING;
    // -rdpct/-rdabs.
    let mut zones: Option<Distribution> = None;
    // -O: outstanding I/Os per thread over all its targets (with -F).
    let mut per_thread_qd: Option<u32> = None;
    let mut duration = DURATION_S;
    let mut warmup = WARMUP_S;
    let mut cooldown = 0;
    let mut interval_ms = 1000;
    let mut iops_stats = false;
    let mut create: Option<u64> = None;
    let mut base = 0;
    let mut max: Option<u64> = None;
    let mut random: Option<u64> = None;
    let mut sequential: Option<u64> = None;
    let mut interlocked = false;
    let mut write_pct = 0u8;
    let mut latency = false;
    let mut xml = false;
    let mut seed = 0u64;
    // -a: the CPUs listed, over all -a options (a bare -a or -ag lists none).
    let mut affinity: Vec<usize> = Vec::new();
    let mut no_affinity = false;
    let (mut os_cache, mut write_through): (Option<bool>, Option<bool>) = (None, None);
    let mut rate_iops = None;
    let mut rate_bw = None;
    // -rs: the share of random I/O; -r alone sets it to 100, as DiskSpd does.
    let mut random_ratio: Option<u8> = None;
    let mut burst: Option<u32> = None;
    let mut think_ms: Option<u64> = None;
    let mut buffers = BufferFill::default();
    let mut mmap = false;
    let mut thread_start: Option<u64> = None;
    let mut profile_only = false;
    let mut shown = Shown::default();
    for a in args {
        let Some(opt) = a.strip_prefix('-').filter(|o| !o.is_empty()) else {
            paths.push(a.clone());
            continue;
        };
        if !paths.is_empty() {
            return Err(bad(format!(
                "{a}: parameters must come before targets on the command line (as DiskSpd requires)"
            )));
        }
        // One character, whatever its width: `-é` must not split inside it.
        let (flag, v) = opt.split_at(opt.chars().next().map_or(0, char::len_utf8));
        let planned = |what: &str| -> Result<()> {
            Err(bad(format!("{a}: {what} is not supported yet (planned)")))
        };
        match flag {
            "a" => affinity.extend(affinity_cpus(a, v)?),
            "b" => {}
            "B" => {
                let (b, len) = match v.split_once(':') {
                    Some((b, l)) => (b, Some(l)),
                    None => (v, None),
                };
                base = size(b, block, a)?;
                if let Some(l) = len {
                    if max.is_some() {
                        return Err(bad(format!("{a}: maximum target offset (-Bbase:length or -fsize) can only be specified once")));
                    }
                    max =
                        Some(base.checked_add(size(l, block, a)?).ok_or_else(|| {
                            bad(format!("{a}: invalid target length passed to -B"))
                        })?);
                }
            }
            "c" => create = Some(size(v, block, a)?),
            "C" if v.is_empty() => cooldown = 0,
            "C" => cooldown = int(v, "C", "cooldown time")?,
            "d" => {
                duration = int(v, "d", "measured duration time")?;
                if duration == 0 {
                    return Err(bad(format!(
                        "{a}: invalid measured duration time (-d): '{v}'"
                    )));
                }
            }
            "D" => {
                iops_stats = true;
                if !v.is_empty() {
                    interval_ms = int(v, "D", "interval")?;
                }
            }
            "f" if v.starts_with(|c: char| c.is_ascii_digit()) => {
                if max.is_some() {
                    return Err(bad(format!("{a}: maximum target offset (-Bbase:length or -fsize) can only be specified once")));
                }
                max = Some(size(v, block, a)?);
            }
            "f" if !v.is_empty() && v.chars().all(|c| "rst".contains(c)) => {
                shown.hints.push_str(v);
                notes.push(format!(
                    "{a}: Windows file access hints have no effect here"
                ));
            }
            "F" => {
                let n = int(v, "F", "thread count")?;
                if n == 0 {
                    return Err(bad(format!("{a}: incorrectly provided option")));
                }
                total_threads = Some(n.min(u32::MAX as u64) as u32);
            }
            "g" => {
                let (n, iops) = match v.strip_suffix('i') {
                    Some(n) => (n, true),
                    None => (v, false),
                };
                let n = int(n, "g", "throughput")?;
                if n == 0 {
                    return Err(bad(format!("{a}: incorrectly provided option")));
                }
                if iops {
                    rate_iops = Some(n);
                } else {
                    // DiskSpd's unit is bytes per millisecond.
                    rate_bw = Some(scaled(n, 1000, "g")?);
                }
            }
            "h" if v.is_empty() => {
                if os_cache.is_some() || write_through.is_some() {
                    return Err(bad(format!(
                        "{a}: -h conflicts with earlier specification of cache/writethrough"
                    )));
                }
                os_cache = Some(false);
                write_through = Some(true);
            }
            "i" | "j" => {
                let n = int(
                    v,
                    flag,
                    if flag == "i" {
                        "burst size"
                    } else {
                        "think time"
                    },
                )?;
                if n == 0 {
                    return Err(bad(format!("{a}: incorrectly provided option")));
                }
                if flag == "i" {
                    burst = Some(n.min(u32::MAX as u64) as u32);
                } else {
                    think_ms = Some(n);
                }
            }
            "I" => {
                // DiskSpd: 1 very low, 2 low, 3 normal; anything else is refused.
                let p = v.parse().ok().filter(|p| (1..=3).contains(p));
                shown.io_priority =
                    Some(p.ok_or_else(|| bad(format!("{a}: incorrectly provided option")))?);
                notes.push(format!("{a}: I/O priority hints have no effect here"));
            }
            "l" => {
                shown.large_pages = true;
                notes.push(format!("{a}: large pages are not used for the buffers"));
            }
            "L" if v.is_empty() => latency = true,
            "n" if v.is_empty() => no_affinity = true,
            "N" => shown.flush_mode = Some(mapped_flush(a, v)?),
            "o" => {
                let n = int(v, "o", "outstanding I/O count")?;
                if n == 0 {
                    return Err(bad(format!("{a}: incorrectly provided option")));
                }
                qd = n.min(u32::MAX as u64) as u32;
            }
            "O" => {
                let n = int(v, "O", "outstanding I/O count")?;
                if n == 0 {
                    return Err(bad(format!("{a}: incorrectly provided option")));
                }
                per_thread_qd = Some(n.min(u32::MAX as u64) as u32);
            }
            "p" => planned("-p (parallel I/Os from one offset)")?,
            // DiskSpd: a progress dot every N I/Os (65536 when N is missing or 0).
            "P" => shown.progress = v.parse().ok().filter(|&n| n > 0).unwrap_or(65536),
            "r" => {
                if let Some(pct) = v.strip_prefix('s') {
                    if pct.is_empty() {
                        return Err(bad(format!("{a}: no random percentage passed to -rs")));
                    }
                    let pct = pct.parse::<u64>().unwrap_or(0);
                    if !(1..=100).contains(&pct) {
                        return Err(bad(format!(
                            "{a}: random percentage passed to -rs should be between 1 and 100"
                        )));
                    }
                    if random_ratio.is_none() && sequential.is_some() {
                        return Err(bad(format!("{a}: use -r to specify IO alignment when using mixed random/sequential IO (-rs)")));
                    }
                    if random_ratio.is_some_and(|r| r != 100) {
                        return Err(bad(format!(
                            "{a}: mixed random/sequential IO (-rs) specified multiple times"
                        )));
                    }
                    random_ratio = Some(pct as u8);
                    continue;
                }
                if let Some(spec) = v.strip_prefix('d') {
                    zones = Some(random_zones(a, spec, block)?);
                    continue;
                }
                if random.is_some() {
                    return Err(bad(format!("{a}: random IO (-r) specified multiple times")));
                }
                if sequential.is_some() {
                    return Err(bad(format!(
                        "{a}: sequential IO (-s) conflicts with random IO (-r/-rs)"
                    )));
                }
                let align = if v.is_empty() {
                    block
                } else {
                    size(v, block, a)?
                };
                if align == 0 {
                    return Err(bad(format!("{a}: invalid alignment passed to -r")));
                }
                random = Some(align);
                random_ratio.get_or_insert(100);
            }
            "R" => {
                let f = match v.strip_prefix('p') {
                    Some(f) => {
                        profile_only = true;
                        f
                    }
                    None => v,
                };
                match f {
                    "text" => xml = false,
                    "xml" => xml = true,
                    // -Rp alone: the profile in the format given elsewhere, else text.
                    "" if profile_only => {}
                    "" => {
                        return Err(bad(format!(
                            "{a}: unspecified results format -R: use [p]<text|xml>"
                        )))
                    }
                    _ => return Err(bad(format!("{a}: invalid results format (-R): '{f}'"))),
                }
            }
            "s" => {
                match random_ratio {
                    Some(100) => {
                        return Err(bad(format!(
                            "{a}: sequential IO (-s) conflicts with random IO (-r/-rs)"
                        )))
                    }
                    Some(_) => {
                        return Err(bad(format!("{a}: use -r to specify IO alignment for -rs")))
                    }
                    None => {}
                }
                if sequential.is_some() {
                    return Err(bad(format!(
                        "{a}: sequential IO (-s) specified multiple times"
                    )));
                }
                let rest = match v.strip_prefix('i') {
                    Some(r) => {
                        interlocked = true;
                        r
                    }
                    None => v,
                };
                let stride = if rest.is_empty() {
                    block
                } else {
                    size(rest, block, a)?
                };
                // DiskSpd takes -s0 (every I/O at the same offset); iogauge's sequential
                // pattern needs a step.
                if stride == 0 {
                    return Err(bad(format!(
                        "{a}: a stride of 0 (every I/O at the base offset) cannot run here"
                    )));
                }
                sequential = Some(stride);
            }
            "S" => {
                let flags = if v.is_empty() { "u" } else { v };
                for c in flags.chars() {
                    let conflict = |what: &str| {
                        bad(format!(
                            "{a}: -S{c} conflicts with earlier specification of {what}"
                        ))
                    };
                    match c {
                        'b' => {
                            if os_cache.is_some() {
                                return Err(conflict("cache mode"));
                            }
                            os_cache = Some(true);
                        }
                        'h' => {
                            if os_cache.is_some() || write_through.is_some() || mmap {
                                return Err(conflict("cache/writethrough/memory mapped"));
                            }
                            os_cache = Some(false);
                            write_through = Some(true);
                        }
                        'u' | 'r' => {
                            if c == 'u' && mmap {
                                return Err(conflict("cache mode/memory mapped IO"));
                            }
                            if os_cache.is_some() {
                                return Err(conflict("cache mode"));
                            }
                            if c == 'r' {
                                notes.push(format!(
                                    "{a}: -Sr (no local cache for remote files) runs as O_DIRECT"
                                ));
                            }
                            os_cache = Some(false);
                        }
                        'w' => {
                            if write_through.is_some() {
                                return Err(conflict("write through"));
                            }
                            write_through = Some(true);
                        }
                        'm' => {
                            if mmap || os_cache == Some(false) {
                                return Err(conflict("memory mapped IO/unbuffered IO"));
                            }
                            mmap = true;
                        }
                        _ => return Err(bad(format!("{a}: unrecognized option provided to -S"))),
                    }
                }
            }
            "t" => {
                let n = int(v, "t", "thread count")?;
                if n == 0 {
                    return Err(bad(format!("{a}: incorrectly provided option")));
                }
                threads = Some(n.min(u32::MAX as u64) as u32);
            }
            "T" => {
                let t = size(v, block, a).ok().filter(|&t| t > 0);
                thread_start =
                    Some(t.ok_or_else(|| bad(format!("{a}: invalid offset passed to -T")))?);
            }
            "v" => match v {
                "" | "s" => shown.verbose = true,
                _ => return Err(bad(format!("{a}: invalid verbose mode (-v): '{v}'"))),
            },
            "w" => {
                if v.is_empty() {
                    return Err(bad(format!("{a}: no write ratio passed to -w")));
                }
                let w = int(v, "w", "write ratio")?;
                if w > 100 {
                    return Err(bad(format!(
                        "{a}: write ratio passed to -w must be between 0 and 100 (percent)"
                    )));
                }
                write_pct = w as u8;
            }
            // DiskSpd reads a bare -W (and -C) as 0 seconds.
            "W" if v.is_empty() => warmup = 0,
            "W" => warmup = int(v, "W", "warmup time")?,
            "x" if v.is_empty() => {
                shown.completion_routines = true;
                notes.push(
                    "-x: completion routines are a Windows mechanism; iogauge uses io_uring".into(),
                )
            }
            "X" => return Err(bad(format!("{a}: XML profiles (-X) are not supported"))),
            "e" => return Err(bad(format!("{a}: ETW tracing (-e) exists only on Windows"))),
            "y" => {
                return Err(bad(format!(
                    "{a}: Windows event synchronization (-y) is not supported"
                )))
            }
            "z" => {
                seed = if v.is_empty() {
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(1, |d| d.as_nanos() as u64 & 0xffff_ffff)
                } else {
                    // DiskSpd: strtoul, a 32-bit unsigned value.
                    let s = v.parse::<u32>().map_err(|_| {
                        bad(format!("{a}: invalid random seed value '{v}' specified - must be a valid 32 bit integer"))
                    })?;
                    s as u64
                };
            }
            "Z" => match v {
                "" => buffers.compress_pct = 100,
                "r" => buffers.refill = true,
                _ => {
                    let (sz, file) = match v.split_once(',') {
                        Some((s, f)) => (s, Some(f)),
                        None => (v, None),
                    };
                    if file.is_some() {
                        planned("-Z<size>,<file> (write data from a file)")?;
                    }
                    let sz = size(sz, block, a)?;
                    if sz < block {
                        return Err(bad(format!(
                            "{a}: custom write buffer (-Z) is smaller than the block size. Write buffer size: {sz} block size: {block}"
                        )));
                    }
                    shown.write_buffer = Some(sz);
                    notes.push(format!("{a}: iogauge's write buffers hold random data, one buffer per outstanding I/O"));
                }
            },
            // DiskSpd's experiment flags (-:1 lets its rate limiter sleep longer than 1 ms).
            ":" => notes.push(format!(
                "{a}: DiskSpd's experiment flags have no effect here"
            )),
            _ => return Err(bad(format!("{a}: invalid option: '{opt}'"))),
        }
    }
    if paths.is_empty() {
        return Err(bad(
            "need to provide at least one filename (a path, or #N for disk N)",
        ));
    }
    // DiskSpd's validator.
    if no_affinity && !affinity.is_empty() {
        return Err(bad("-n and -a parameters cannot be used together"));
    }
    if total_threads.is_some() && threads.is_some() {
        return Err(bad("-F and -t parameters cannot be used together"));
    }
    if let Some(m) = max {
        if m <= base {
            return Err(bad(
                "maximum (-f) target offset must be greater than base (-B)",
            ));
        }
    }
    // -F: that many threads, each on every target. Its I/Os keep their targets, -o on each
    // (DiskSpd's requests per target), unless -O gives a count per thread: then each I/O goes
    // to a target drawn at random, as DiskSpd's GetNextTarget does with equal weights.
    let (threads_per_target, file_sets) = match total_threads {
        Some(f) => {
            if per_thread_qd.is_some() {
                if rate_bw.is_some() || rate_iops.is_some() {
                    return Err(bad(
                        "-g throughput control cannot be used with -O outstanding requests per thread",
                    ));
                }
                if think_ms.is_some() {
                    return Err(bad(
                        "-j think time cannot be used with -O outstanding requests per thread",
                    ));
                }
            }
            let n = paths.len() as u32;
            let service = match per_thread_qd {
                Some(o) => {
                    qd = o;
                    FileService::Random { every: 1 }
                }
                None => {
                    qd = qd.saturating_mul(n);
                    FileService::Slots
                }
            };
            (
                f,
                (n > 1).then_some(FileSets {
                    files: n,
                    service,
                    open_files: None,
                }),
            )
        }
        None => {
            if per_thread_qd.is_some() {
                notes.push("-O applies to threads set with -F: ignored, as DiskSpd does".into());
            }
            (threads.unwrap_or(1), None)
        }
    };
    let multi = threads_per_target > 1;
    if random_ratio.is_none() {
        if interlocked && !multi {
            warnings.push("single-threaded test, -si ignored".into());
        }
        // -T gives each thread its own sequential stream: DiskSpd does not warn then.
        if !interlocked && multi && thread_start.is_none() {
            warnings.push("target access pattern will not be sequential, consider -si".into());
        }
    }
    let disks = std::cell::OnceCell::new();
    let targets = paths
        .iter()
        .map(|p| -> Result<TargetSpec> {
            let path = match p.strip_prefix('#') {
                Some(n) => {
                    let n: usize = n
                        .parse()
                        .map_err(|_| bad(format!("target '{p}': #N needs a disk number")))?;
                    let list = disks.get_or_init(|| (targets_of.disks)());
                    let dev = list.get(n).cloned().ok_or_else(|| {
                        bad(format!(
                            "target '{p}': there is no disk {n} (this machine has {})",
                            list.len()
                        ))
                    })?;
                    notes.push(format!(
                        "target {p} is {} (disks numbered by name)",
                        dev.display()
                    ));
                    dev
                }
                None if p.len() == 2 && p.ends_with(':') => {
                    return Err(bad(format!(
                        "target '{p}': drive letters exist only on Windows; give a path"
                    )))
                }
                None => PathBuf::from(p),
            };
            Ok(TargetSpec {
                path,
                create_size: create,
                temporary: false,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let cache = match (os_cache.unwrap_or(true), write_through.unwrap_or(false)) {
        (true, false) => CacheMode::Buffered,
        (false, false) => CacheMode::Direct,
        (true, true) => CacheMode::WriteThrough,
        (false, true) => CacheMode::DirectWriteThrough,
    };
    if mmap && write_through == Some(true) {
        return Err(bad("-Sm with writethrough (-Sw, -Sh, -h): iogauge maps the target through the page cache and cannot write it through (planned)"));
    }
    if os_cache.is_none() && !mmap {
        notes.push(
            "DiskSpd's default: the OS cache is on (buffered I/O); -Su or -Sh for direct I/O"
                .into(),
        );
    }
    // With -Z<size> DiskSpd's writes are random data too (its note says how iogauge differs).
    if write_pct > 0 && buffers.is_default() && shown.write_buffer.is_none() {
        notes.push("DiskSpd fills write buffers with a repeating byte pattern; iogauge writes incompressible random data (-Z writes zeros, -Zr new random data per write)".into());
    }
    let think = match (think_ms, burst) {
        (Some(ms), burst) => Some(Think {
            ns: scaled(ms, 1_000_000, "j")?,
            spin_ns: 0,
            // Without -i every I/O is followed by the think time.
            every: burst.unwrap_or(1),
        }),
        (None, Some(_)) => {
            warnings.push("-i (burst size) has no effect without -j (think time)".into());
            None
        }
        (None, None) => None,
    };
    if zones.is_some() && random_ratio.is_none() {
        return Err(bad(
            "random distribution ranges (-rd) do not apply to sequential-only IO patterns",
        ));
    }
    let pattern = match (random, random_ratio) {
        (align, Some(_)) => Pattern::Random {
            align_bytes: align.unwrap_or(block),
            distribution: zones.unwrap_or(Distribution::Uniform),
        },
        (_, None) => Pattern::Sequential {
            stride_bytes: sequential.unwrap_or(block),
            interlocked,
        },
    };
    let flush = mapped_flush_job(shown.flush_mode, mmap, &mut notes)?;
    let job = JobSpec {
        targets,
        threads_per_target,
        queue_depth: qd,
        submit_batch: 1,
        latency,
        delay: None,
        delay_step: None,
        affinity: match (no_affinity, affinity.is_empty()) {
            (true, _) => None,
            (false, false) => Some(Affinity::Cpus { cpus: affinity }),
            // DiskSpd's default: threads spread round-robin over the CPUs.
            (false, true) => Some(Affinity::Auto),
        },
        sqpoll: false,
        hipri: false,
        register: true,
        block_size: block,
        pattern,
        write_pct,
        warmup_ns: scaled(warmup, 1_000_000_000, "W")?,
        stop: Stop::Duration {
            ns: scaled(duration, 1_000_000_000, "d")?,
        },
        until_steady: None,
        cooldown_ns: scaled(cooldown, 1_000_000_000, "C")?,
        base_offset: base,
        max_offset: max,
        cache,
        engine: mmap.then_some(super::EngineKind::Mmap),
        rate_iops,
        rate_bytes_per_sec: rate_bw,
        seed,
        interval_ns: scaled(interval_ms, 1_000_000, "D")?,
        allow_overwrite: false,
        keep: false,
        continue_on_error: false,
        block_mix: None,
        random_pct: random_ratio.filter(|&r| r < 100),
        random_every: None,
        flush,
        end_fsync: false,
        think,
        buffers,
        thread_offset: 0,
        min_rate: None,
        rate_dirs: None,
        file_sets,
        thread_start: match thread_start {
            // As DiskSpd: the thread stride moves where sequential threads begin; random and
            // interlocked I/O do not use it.
            Some(t) if random_ratio.is_none() && !interlocked => t,
            Some(_) => {
                notes.push(format!(
                    "-T has no effect on {} I/O",
                    if interlocked {
                        "interlocked sequential"
                    } else {
                        "random"
                    }
                ));
                0
            }
            None => 0,
        },
        dialect: super::Dialect::Diskspd,
    };
    job.validate()?;
    Ok(Diskspd {
        job,
        xml,
        iops_stats,
        profile_only,
        shown,
        notes,
        warnings,
    })
}

/// Whole disks, in name order: what `#0`, `#1`... mean here.
pub fn disks_here() -> Vec<PathBuf> {
    let mut names: Vec<String> = std::fs::read_dir("/sys/block")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    !["loop", "ram", "zram", "dm-", "md", "sr", "nbd"]
                        .iter()
                        .any(|p| n.starts_with(p))
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .map(|n| PathBuf::from("/dev").join(n))
        .collect()
}

/// The DiskSpd switch a user sets for `flag`, for messages in DiskSpd's words; `None` where
/// DiskSpd has no such switch (the setting is then named as iogauge's own).
pub fn flag_name(flag: crate::spec::flag::Flag) -> Option<&'static str> {
    use crate::spec::flag::Flag::*;
    Some(match flag {
        Threads => "-t",
        QueueDepth => "-o",
        BlockSize => "-b",
        Random => "-r",
        RandomPct => "-rs",
        Distribution => "-rdpct",
        Sequential => "-s",
        Interlocked => "-si",
        WritePct => "-w",
        Duration => "-d",
        Warmup => "-W",
        Cooldown => "-C",
        Create => "-c",
        BaseOffset => "-B",
        MaxOffset => "-f",
        ThreadStart => "-T",
        Cache => "-S",
        Latency => "-L",
        Affinity => "-a",
        RateBw => "-g",
        Think => "-j",
        ThinkEvery => "-i",
        Compressible => "-Z",
        RefillBuffers => "-Zr",
        FileSet => "-F",
        SubmitBatch | BlockSizes | RandomEvery | Total | UntilSteady | Interval | ThreadOffset
        | Engine | Delay | DelayStep | Sqpoll | Hipri | RateIops | RateMin | RateMinIops
        | RateMinWindow | Fsync | Fdatasync | EndFsync | ThinkSpin | FileService | OpenFiles
        | AllowOverwrite => return None,
    })
}

/// The switch that asks for cache mode `mode`.
pub fn cache_words(mode: crate::spec::CacheMode) -> &'static str {
    use crate::spec::CacheMode::*;
    match mode {
        Buffered => "-Sb",
        Direct => "-Su",
        WriteThrough => "-Sw",
        DirectWriteThrough => "-Sh",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(line: &str) -> Result<Diskspd> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse(
            &args,
            &Targets {
                disks: &|| vec![PathBuf::from("/dev/vda"), PathBuf::from("/dev/vdb")],
            },
        )
    }

    fn err(line: &str) -> String {
        parse_line(line).unwrap_err().to_string()
    }

    #[test]
    fn diskspd_defaults() {
        let d = parse_line("t.dat").unwrap();
        let j = &d.job;
        assert_eq!(j.block_size, 64 << 10);
        assert_eq!(j.queue_depth, 2);
        assert_eq!(j.threads_per_target, 1);
        assert_eq!(j.stop, Stop::Duration { ns: 10_000_000_000 });
        assert_eq!(j.warmup_ns, 5_000_000_000);
        assert_eq!(j.cache, CacheMode::Buffered);
        assert_eq!(j.affinity, Some(Affinity::Auto));
        assert_eq!(
            j.pattern,
            Pattern::Sequential {
                stride_bytes: 64 << 10,
                interlocked: false
            }
        );
        assert!(!j.latency && !d.xml);
    }

    #[test]
    fn glued_values_and_their_meaning() {
        let d = parse_line(
            "-b8K -d60 -o32 -t4 -r -w30 -Sh -L -c50G -W0 -C2 -D500 -z7 -g100i -a0,1 -Rxml t.dat",
        )
        .unwrap();
        let j = &d.job;
        assert_eq!(
            (
                j.block_size,
                j.queue_depth,
                j.threads_per_target,
                j.write_pct
            ),
            (8192, 32, 4, 30)
        );
        assert_eq!(
            j.pattern,
            Pattern::Random {
                align_bytes: 8192,
                distribution: Distribution::Uniform
            }
        );
        assert_eq!(j.cache, CacheMode::DirectWriteThrough);
        assert_eq!(j.targets[0].create_size, Some(50 << 30));
        assert_eq!((j.warmup_ns, j.cooldown_ns), (0, 2_000_000_000));
        assert_eq!(
            (j.interval_ns, j.seed, j.rate_iops),
            (500_000_000, 7, Some(100))
        );
        assert_eq!(j.affinity, Some(Affinity::Cpus { cpus: vec![0, 1] }));
        assert!(j.latency && d.xml && d.iops_stats);
        let d = parse_line("-b4K -si8K -t2 -B1M:1M -g4 -n #1").unwrap();
        assert_eq!(
            d.job.pattern,
            Pattern::Sequential {
                stride_bytes: 8192,
                interlocked: true
            }
        );
        assert_eq!(
            (d.job.base_offset, d.job.max_offset),
            (1 << 20, Some(2 << 20))
        );
        assert_eq!(d.job.rate_bytes_per_sec, Some(4000));
        assert_eq!(d.job.affinity, None);
        assert_eq!(d.job.targets[0].path, PathBuf::from("/dev/vdb"));
        // Sizes in blocks (b) follow -b wherever it is.
        let d = parse_line("-c100b -r2b -b4K t.dat").unwrap();
        assert_eq!(d.job.targets[0].create_size, Some(400 << 10));
        assert_eq!(
            d.job.pattern,
            Pattern::Random {
                align_bytes: 8 << 10,
                distribution: Distribution::Uniform
            }
        );
        for (flags, cache) in [
            ("-S", CacheMode::Direct),
            ("-Su", CacheMode::Direct),
            ("-Sw", CacheMode::WriteThrough),
            ("-Suw", CacheMode::DirectWriteThrough),
            ("-h", CacheMode::DirectWriteThrough),
            ("-Sb", CacheMode::Buffered),
        ] {
            assert_eq!(
                parse_line(&format!("{flags} t")).unwrap().job.cache,
                cache,
                "{flags}"
            );
        }
    }

    #[test]
    fn mixed_random_think_time_and_write_buffers() {
        // -rs: the share of random I/O; -r (before or after) sets only the alignment.
        for line in ["-rs30 -b8K t", "-rs30 -r4K -b8K t", "-r4K -rs30 -b8K t"] {
            let j = parse_line(line).unwrap().job;
            assert_eq!(j.random_pct, Some(30), "{line}");
            assert!(matches!(j.pattern, Pattern::Random { .. }), "{line}");
        }
        let j = parse_line("-rs30 -r4K -b8K t").unwrap().job;
        assert_eq!(
            j.pattern,
            Pattern::Random {
                align_bytes: 4096,
                distribution: Distribution::Uniform
            }
        );
        // -rs100 is plain -r.
        let j = parse_line("-rs100 t").unwrap().job;
        assert_eq!(j.random_pct, None);
        // -j: milliseconds of think time after every -i I/Os (each I/O without -i).
        let j = parse_line("-j5 -i8 t").unwrap().job;
        assert_eq!(
            j.think,
            Some(Think {
                ns: 5_000_000,
                spin_ns: 0,
                every: 8
            })
        );
        assert_eq!(
            parse_line("-j5 t").unwrap().job.think.map(|t| t.every),
            Some(1)
        );
        let d = parse_line("-i8 t").unwrap();
        assert_eq!(d.job.think, None);
        assert_eq!(
            d.warnings,
            ["-i (burst size) has no effect without -j (think time)"]
        );
        // -Sm: memory-mapped I/O through the page cache.
        let j = parse_line("-Sm -w50 t").unwrap().job;
        assert_eq!(
            (j.engine, j.cache),
            (Some(super::super::EngineKind::Mmap), CacheMode::Buffered)
        );
        assert!(err("-Su -Sm t").contains(
            "-Sm: -Sm conflicts with earlier specification of memory mapped IO/unbuffered IO"
        ));
        assert!(err("-Sm -Su t").contains(
            "-Su: -Su conflicts with earlier specification of cache mode/memory mapped IO"
        ));
        assert!(err("-Sm -h t").contains("-Sm with writethrough"));
        assert!(err("-Smw t").contains("-Sm with writethrough"));
        // -T: where each sequential thread begins (DiskSpd's sample: -F8 -T1b -s8b).
        let j = parse_line("-b4K -F8 -T1b -s8b t").unwrap().job;
        assert_eq!((j.thread_start, j.threads_per_target), (4096, 8));
        let d = parse_line("-b4K -t2 -T1b -r t").unwrap();
        assert_eq!(d.job.thread_start, 0);
        assert!(d
            .notes
            .iter()
            .any(|n| n == "-T has no effect on random I/O"));
        // -Z: zeros; -Zr: new random data per write.
        assert_eq!(
            parse_line("-Z -w100 t").unwrap().job.buffers.compress_pct,
            100
        );
        assert!(parse_line("-Zr -w100 t").unwrap().job.buffers.refill);
    }

    /// -rdpct and -rdabs: DiskSpd's zones, its remainder zone, its refusals; and the line
    /// `explain` writes reads back as the same zones.
    #[test]
    fn random_distributions_in_zones() {
        use crate::spec::Zone;
        let z = |io_pct, span| Zone { io_pct, span };
        let zones = |line: &str| match parse_line(line).unwrap().job.pattern {
            Pattern::Random {
                distribution: Distribution::Zoned { absolute, zones },
                ..
            } => (absolute, zones),
            other => panic!("{line}: {other:?}"),
        };
        // DiskSpd's own example: the remaining 5% of IO in the last 60%.
        assert_eq!(
            zones("-r -rdpct90/10:0/10:5/20 t"),
            (false, vec![z(90, 10), z(0, 10), z(5, 20), z(5, 60)])
        );
        assert_eq!(
            zones("-r -rdabs90/10G:0/10G:5/20G t"),
            (
                true,
                vec![z(90, 10 << 30), z(0, 10 << 30), z(5, 20 << 30), z(5, 0)]
            )
        );
        for line in [
            "-r -rdpct90/10:0/10:5/20 t",
            "-r -b4K -rdabs60/1G:40/3G t",
            "-r -rdabs70/1G t",
        ] {
            let job = parse_line(line).unwrap().job;
            let (back, _) = crate::spec::export::to_diskspd(&job);
            let args: Vec<&str> = back.split_whitespace().skip(1).collect();
            let again = parse_line(&args.join(" ")).unwrap().job;
            assert_eq!(again.pattern, job.pattern, "{line} -> {back}");
        }
        for (line, want) in [
            (
                "-rdpct90/10 t",
                "random distribution ranges (-rd) do not apply to sequential-only IO patterns",
            ),
            ("-r -rdxyz50/50 t", "Unrecognized random distribution type"),
            (
                "-r -rdpct90/40:20/10 t",
                "invalid random distribution IO% 20: can be at most 10",
            ),
            (
                "-r -rdpct50/100 t",
                "the target is covered with 50% IO left to distribute",
            ),
            ("-r -rdpct50/0 t", "Invalid Target% 0"),
            ("-r -rdpct100/60 t", "Target% (60%) must total 100%"),
            (
                "-r -b4K -rdabs50/1K t",
                "must be a minimum of the specified block size (4096 bytes)",
            ),
            ("-r -rdpct50-50 t", "Expected / separator"),
        ] {
            let e = parse_line(line).unwrap_err().to_string();
            assert!(e.contains(want), "{line}: {e}");
        }
    }

    /// -F over several targets: every thread on every target, -o I/Os on each, or -O in all
    /// with a target drawn per I/O.
    #[test]
    fn fixed_threads_over_several_targets() {
        let j = parse_line("-F3 -o2 -r a b").unwrap().job;
        assert_eq!((j.threads_per_target, j.queue_depth), (3, 4));
        assert_eq!(
            j.file_sets,
            Some(FileSets {
                files: 2,
                service: FileService::Slots,
                open_files: None,
            })
        );
        assert_eq!(j.total_threads(), 3);
        let j = parse_line("-F2 -O5 -r a b c").unwrap().job;
        assert_eq!((j.threads_per_target, j.queue_depth), (2, 5));
        assert_eq!(
            j.file_sets.map(|f| (f.files, f.service)),
            Some((3, FileService::Random { every: 1 }))
        );
        // One target: -F is -t; -O without -F does nothing, as in DiskSpd, with a note.
        let j = parse_line("-F4 -O8 t").unwrap().job;
        assert_eq!(
            (j.threads_per_target, j.queue_depth, j.file_sets),
            (4, 8, None)
        );
        let d = parse_line("-t2 -O8 t").unwrap();
        assert_eq!(d.job.queue_depth, 2);
        assert!(d
            .notes
            .iter()
            .any(|n| n.contains("-O applies to threads set with -F")));
    }

    #[test]
    fn diskspd_refusals_with_diskspd_reasons() {
        let cases = [
            (
                "-r -s t",
                "-s: sequential IO (-s) conflicts with random IO (-r/-rs)",
            ),
            (
                "-s -r t",
                "-r: sequential IO (-s) conflicts with random IO (-r/-rs)",
            ),
            ("-F4 -t2 t", "-F and -t parameters cannot be used together"),
            (
                "-F2 -O4 -g100 a b",
                "-g throughput control cannot be used with -O outstanding requests per thread",
            ),
            (
                "-F2 -O4 -j5 a b",
                "-j think time cannot be used with -O outstanding requests per thread",
            ),
            ("-F2 -O0 a b", "-O0: incorrectly provided option"),
            ("-n -a0 t", "-n and -a parameters cannot be used together"),
            (
                "-Sh -Su t",
                "-Su: -Su conflicts with earlier specification of cache mode",
            ),
            (
                "-h -Sw t",
                "-Sw: -Sw conflicts with earlier specification of write through",
            ),
            (
                "-B1M -f1M t",
                "maximum (-f) target offset must be greater than base (-B)",
            ),
            (
                "-w101 t",
                "-w101: write ratio passed to -w must be between 0 and 100 (percent)",
            ),
            ("-w t", "-w: no write ratio passed to -w"),
            ("-b4Q t", "-b4Q: invalid size 'Q'"),
            ("-d0 t", "invalid measured duration time (-d): '0'"),
            ("-Rjson t", "invalid results format (-R): 'json'"),
            ("t -b4K", "-b4K: parameters must come before targets"),
            ("-b4K", "need to provide at least one filename"),
            ("-q t", "-q: invalid option: 'q'"),
            ("-rs t", "-rs: no random percentage passed to -rs"),
            (
                "-rs0 t",
                "-rs0: random percentage passed to -rs should be between 1 and 100",
            ),
            (
                "-s -rs50 t",
                "-rs50: use -r to specify IO alignment when using mixed random/sequential IO (-rs)",
            ),
            ("-rs50 -s t", "-s: use -r to specify IO alignment for -rs"),
            (
                "-rs50 -rs20 t",
                "-rs20: mixed random/sequential IO (-rs) specified multiple times",
            ),
            ("-j0 t", "-j0: incorrectly provided option"),
            ("-T0 -t2 t", "-T0: invalid offset passed to -T"),
            (
                "-Z1K -b4K t",
                "custom write buffer (-Z) is smaller than the block size",
            ),
            ("#7", "target '#7': there is no disk 7 (this machine has 2)"),
            ("C:", "drive letters exist only on Windows"),
        ];
        for (line, want) in cases {
            let e = err(line);
            assert!(e.contains(want), "{line}: {e}");
            assert!(!e.contains('\n'), "{line}: one line");
        }
        // DiskSpd's warnings, as it prints them.
        let d = parse_line("-t2 t").unwrap();
        assert_eq!(
            d.warnings,
            ["target access pattern will not be sequential, consider -si"]
        );
        let d = parse_line("-si t").unwrap();
        assert_eq!(d.warnings, ["single-threaded test, -si ignored"]);
        assert!(parse_line("-t2 -T1M t").unwrap().warnings.is_empty());
        // The note on DiskSpd's repeating write pattern does not apply to -Z<size>.
        let notes = parse_line("-w100 -Z1M t").unwrap().notes;
        assert!(!notes.iter().any(|n| n.contains("repeating")), "{notes:?}");
    }

    /// -Rp, -Rptext, -Rpxml: the profile only; -Rp alone keeps the format given elsewhere.
    #[test]
    fn profile_only_forms() {
        for (line, xml) in [
            ("-Rp t", false),
            ("-Rptext t", false),
            ("-Rpxml t", true),
            ("-Rxml -Rp t", true),
        ] {
            let d = parse_line(line).unwrap();
            assert!(d.profile_only, "{line}");
            assert_eq!(d.xml, xml, "{line}");
        }
        assert!(!parse_line("-Rxml t").unwrap().profile_only);
        assert!(err("-Rpjson t").contains("-Rpjson: invalid results format (-R): 'json'"));
    }

    /// DiskSpd reads -W and -C with atoi: bare, they are 0 seconds.
    #[test]
    fn bare_warmup_and_cooldown_are_zero() {
        let j = parse_line("-W t").unwrap().job;
        assert_eq!(j.warmup_ns, 0);
        let j = parse_line("-C t").unwrap().job;
        assert_eq!(j.cooldown_ns, 0);
    }

    /// DiskSpd refuses -F0 (a thread count must be above 0) with its generic reason.
    #[test]
    fn no_threads_is_refused() {
        assert!(err("-F0 t").contains("-F0: incorrectly provided option"));
        assert!(err("-F0 a b").contains("-F0: incorrectly provided option"));
    }

    /// -Nv, -Nn, -Ni (either case) flush each write to a mapped target (-Sm); here that is
    /// msync after every write, with notes saying so. Without -Sm DiskSpd refuses them.
    #[test]
    fn mapped_flush_modes() {
        for line in [
            "-Sm -Nv -w50 t",
            "-Sm -Nn -w50 t",
            "-Sm -Ni -w50 t",
            "-Sm -NV -w50 t",
        ] {
            let d = parse_line(line).unwrap();
            assert_eq!(
                d.job.flush,
                Some(crate::spec::FlushEvery {
                    writes: 1,
                    data_only: false
                }),
                "{line}"
            );
            assert!(d.notes.iter().any(|n| n.contains("msync")), "{line}");
        }
        assert!(err("-Nv t").contains(
            "memory mapped flush mode (-N) can only be specified with memory mapped IO (-Sm)"
        ));
        assert!(err("-Sm -Nx t").contains("-Nx: incorrectly provided option"));
        assert!(err("-Sm -N t").contains("-N: incorrectly provided option"));
    }

    /// -a as DiskSpd reads it: `-ag0,0,1,2` is group 0, CPUs 0 to 2 (as `-a0,1,2`); lists
    /// add up over several -a; a bare -a is the default, so -n may go with it.
    #[test]
    fn affinity_as_diskspd_reads_it() {
        let cpus = |line: &str| parse_line(line).unwrap().job.affinity;
        let list = |cpus: &[usize]| {
            Some(Affinity::Cpus {
                cpus: cpus.to_vec(),
            })
        };
        assert_eq!(cpus("-ag0,0,1,2 t"), list(&[0, 1, 2]));
        assert_eq!(cpus("-a0,1,2 t"), list(&[0, 1, 2]));
        assert_eq!(cpus("-ag0,0,1 -ag0,2 t"), list(&[0, 1, 2]));
        assert_eq!(cpus("-a3 -a t"), list(&[3]));
        assert_eq!(cpus("-ag t"), Some(Affinity::Auto));
        assert_eq!(cpus("-n -a t"), None);
        for (line, want) in [
            (
                "-ag1,0 t",
                "-ag1,0: processor groups other than 0 do not exist on Linux",
            ),
            ("-ag0,0,g1,1 t", "processor groups other than 0"),
            ("-ag0 t", "-ag0: incomplete affinity specification"),
            ("-a0, t", "-a0,: incomplete affinity specification"),
            ("-a0,x t", "-a0,x: syntax error parsing affinity at 'x'"),
            ("-n -a0 t", "-n and -a parameters cannot be used together"),
        ] {
            assert!(err(line).contains(want), "{line}: {}", err(line));
        }
    }

    /// No input makes the parser panic, and each refusal names the option as typed: values
    /// past DiskSpd's 32-bit integers, sums past 64 bits, a multi-byte option letter, a size
    /// in the second half of -B or in a -rdabs range.
    #[test]
    fn refusals_name_the_option_as_typed() {
        for (line, want) in [
            (
                "-d99999999999999 t",
                "-d99999999999999: invalid measured duration time (-d)",
            ),
            ("-W99999999999 t", "-W99999999999: invalid warmup time (-W)"),
            (
                "-C18446744073709551615 t",
                "-C18446744073709551615: invalid cooldown time (-C)",
            ),
            (
                "-D99999999999999 t",
                "-D99999999999999: invalid interval (-D)",
            ),
            (
                "-g99999999999999999 t",
                "-g99999999999999999: invalid throughput (-g)",
            ),
            (
                "-j99999999999999 t",
                "-j99999999999999: invalid think time (-j)",
            ),
            ("-t3000000000 t", "-t3000000000: invalid thread count (-t)"),
            (
                "-B18446744073709551615:1 t",
                "-B18446744073709551615:1: invalid target length passed to -B",
            ),
            ("-B1M:10Q t", "-B1M:10Q: invalid size 'Q'"),
            ("-r -rdabs90/10Q t", "-rdabs90/10Q: invalid size 'Q'"),
            (
                "-z4294967296 t",
                "-z4294967296: invalid random seed value '4294967296'",
            ),
            ("-s0 t", "-s0: a stride of 0"),
            ("-\u{e9} t", "-\u{e9}: invalid option"),
            ("-b\u{e9} t", "-b\u{e9}: '\u{e9}' is not a size"),
        ] {
            let e = err(line);
            assert!(e.contains(want), "{line}: {e}");
            assert!(!e.contains('\n'), "{line}: one line");
        }
        assert_eq!(parse_line("-z4294967295 t").unwrap().job.seed, 4294967295);
    }

    /// `iogauge diskspd --help` says which options run, which run differently, which are
    /// accepted without effect and which are refused: each named option does what it says.
    #[test]
    fn help_tells_what_runs_and_what_is_refused() {
        let sample = |opt: &str| -> Option<&str> {
            Some(match opt {
                "-a" => "-a0",
                "-ag" => "-ag",
                "-b" => "-b4K",
                "-B" => "-B4K",
                "-c" => "-c1M",
                "-C" => "-C1",
                "-d" => "-d1",
                "-D" => "-D100",
                "-f<size>" => "-f1M",
                "-F" => "-F2",
                "-g" => "-g100",
                "-h" => "-h",
                "-i" => "-i2 -j1",
                "-j" => "-j1",
                "-L" => "-L",
                "-n" => "-n",
                "-o" => "-o4",
                "-O" => "-F2 -O4",
                "-r" => "-r",
                "-rd" => "-r -rdpct90/10",
                "-rs" => "-rs50",
                "-R" => "-Rxml",
                "-Rp" => "-Rp",
                "-s" => "-s",
                "-si" => "-t2 -si",
                "-S" => "-S",
                "-Sb" => "-Sb",
                "-Sh" => "-Sh",
                "-Sm" => "-Sm",
                "-Su" => "-Su",
                "-Sw" => "-Sw",
                "-Sr" => "-Sr",
                "-t" => "-t2",
                "-T" => "-t2 -T1M",
                "-w" => "-w50",
                "-W" => "-W",
                "-x" => "-x",
                "-z" => "-z7",
                "-Z" => "-Z",
                "-Zr" => "-Zr",
                "-Z<size>" => "-Z1M",
                "-N<v|n|i>" => "-Sm -Nv",
                "-f<rst>" => "-frst",
                "-I" => "-I1",
                "-l" => "-l",
                "-P" => "-P10",
                "-v" => "-v",
                "-:<flags>" => "-:1",
                "-p" => "-o2 -p",
                "-Z<size>,<file>" => "-Z1M,src",
                "-Sm with -Sw/-Sh/-h" => "-Sm -Sw",
                "-X" => "-Xp.xml",
                "-e" => "-eDISK_IO",
                "-y" => "-ysgo",
                "drive letters (C:)" => "C:",
                "processor groups other than 0 (-ag1,...)" => "-ag1,0",
                _ => return None,
            })
        };
        let help = crate::cli::DISKSPD_HELP;
        let section = |title: &str| -> String {
            let start = help
                .find(title)
                .unwrap_or_else(|| panic!("no {title:?} in the help"));
            let rest = &help[start + title.len()..];
            // A section goes on over the indented lines after its first.
            let mut lines = rest.lines();
            let mut text = lines.next().unwrap_or("").to_string();
            for l in lines.take_while(|l| l.starts_with("  ")) {
                text.push(' ');
                text.push_str(l);
            }
            text
        };
        // Options as the help writes them: -x, or -x<...>; a reason in parentheses follows.
        let options = |text: &str| -> Vec<String> {
            let mut out = Vec::new();
            let mut depth = 0;
            for w in text.split_whitespace() {
                if depth == 0 && w.starts_with('-') {
                    out.push(w.trim_end_matches([',', ':']).to_string());
                }
                depth += w.matches('(').count() as i32 - w.matches(')').count() as i32;
            }
            out
        };
        let mut named = 0;
        for (title, runs) in [
            ("Run as in DiskSpd:", true),
            ("Run differently (the report's notes say how):", true),
            ("Accepted, no effect on Linux:", true),
        ] {
            for opt in options(&section(title)) {
                let s = sample(&opt).unwrap_or_else(|| panic!("no sample for {opt}"));
                let line = format!("{s} t");
                assert_eq!(parse_line(&line).is_ok(), runs, "{title} {opt}: {line}");
                named += 1;
            }
        }
        let refused = [
            "-p",
            "-Z<size>,<file>",
            "-Sm with -Sw/-Sh/-h",
            "-X",
            "-e",
            "-y",
            "drive letters (C:)",
            "processor groups other than 0 (-ag1,...)",
        ];
        let text = section("Refused, saying why:");
        for what in refused {
            assert!(
                text.contains(what),
                "the help does not refuse {what}: {text}"
            );
            let line = match sample(what).unwrap() {
                "C:" => "C:".to_string(),
                s => format!("{s} t"),
            };
            assert!(
                parse_line(&line).is_err(),
                "{what} is said to be refused: {line}"
            );
        }
        assert!(named > 40, "{named} options named");
        assert!(!help.contains("Planned:"), "{help}");
    }

    /// Inputs the fuzz target (fuzz/fuzz_targets/diskspd.rs) found panicking, each now a
    /// one-line error naming what was typed.
    #[test]
    fn fuzz_found_inputs_are_errors() {
        let e = err("-\u{4da}b t");
        assert_eq!(e, "-\u{4da}b: invalid option: '\u{4da}b'");
        for (line, want) in [
            (
                "-d2166666666666666667 t",
                "-d2166666666666666667: the value is out of range",
            ),
            (
                "-W18446744074 t",
                "-W18446744074: the value is out of range",
            ),
            (
                "-C6666666666666666662 t",
                "-C6666666666666666662: the value is out of range",
            ),
            (
                "-D18446744073710 t",
                "-D18446744073710: the value is out of range",
            ),
            (
                "-j18446744073710 t",
                "-j18446744073710: the value is out of range",
            ),
            (
                "-g18446744073709552 t",
                "-g18446744073709552: the value is out of range",
            ),
        ] {
            // Refused (DiskSpd's own int limit, or the scaling check), naming the option typed.
            let typed = &want[..want.find(':').unwrap()];
            let e = err(line);
            assert!(e.starts_with(typed), "{line}: {e}");
        }
        let e = err("-r -rdpct0/10:18446744073709551615/1 t");
        assert!(
            e.contains("IO% 18446744073709551615: can be at most 100"),
            "{e}"
        );
        // Two absolute spans whose sum passes u64: read without a panic.
        let _ = parse_line("-r -b4K -rdabs10/16777215T:10/16777215T t");
    }
}
