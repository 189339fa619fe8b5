//! `JobSpec`: the one validated description of a workload.
//!
//! Every front end (our flags today; fio job files and DiskSpd command lines later) builds a
//! `JobSpec` and calls [`JobSpec::validate`]. The runner, the engines and the reports see only
//! this type, never raw flags, so a workload means the same thing whichever way it was written.
//! Units are in the types: bytes as `u64` bytes, times as `u64` nanoseconds.

mod dashes;
pub mod dataset;
pub mod diskspd;
pub mod export;
pub mod fio;
pub mod flag;
pub mod flat;
pub mod io500;
pub mod ior;
pub mod iozone;
pub mod mdtest;
mod named;
pub mod native;
pub mod numa;
pub mod prio;
pub mod slots;
// TEMP: old path of crate::units while the front ends are renovated.
/// The engine and its options belong to the engine layer; a job names them.
pub use crate::engine::kind::{DelayDist, DelayStep, EngineKind, EngineSpec};
pub use crate::units;
mod validate;

use crate::error::{Error, Result};
pub use dashes::pasted_dash;
pub use flag::{Dialect, Flag};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Where the offsets of successive I/Os come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pattern {
    /// Random offsets, multiples of `align_bytes` from the base offset.
    Random {
        align_bytes: u64,
        distribution: Distribution,
    },
    /// Each I/O `stride_bytes` past the previous one, wrapping at the end of the working set.
    /// `interlocked`: all threads of a target share one offset (DiskSpd's -si). `backwards`:
    /// each I/O `stride_bytes` before the previous one instead, from the start of the working
    /// set down, wrapping to its end as fio's `rw=read:-8k` does.
    Sequential {
        stride_bytes: u64,
        interlocked: bool,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        backwards: bool,
    },
}

/// How random offsets are spread over the working set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Distribution {
    Uniform,
    /// Zipf with exponent `theta` (> 0) over the blocks of the working set, hot blocks scattered.
    Zipf {
        theta: f64,
    },
    /// Pareto: a fraction `h` of the blocks (0 < h < 1) receives a fraction 1-h of the I/O.
    Pareto {
        h: f64,
    },
    /// Consecutive zones of the working set from its start, each receiving `io_pct` of the
    /// random I/O (together 100), uniformly within it (fio's zoned and zoned_abs, DiskSpd's
    /// -rdpct and -rdabs). A zone's span is a percent of the working set, or bytes where
    /// `absolute`; past the last zone no I/O goes. An absolute span of 0, in last place only,
    /// is the rest of the working set; zones past its end are cut off and the I/O shares of
    /// those left keep their proportions (DiskSpd's rule).
    Zoned {
        absolute: bool,
        zones: Vec<Zone>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    pub io_pct: u8,
    pub span: u64,
}

impl Distribution {
    /// fio's zone list, `60/10:30/20:10/70` (percent of the working set) or, `absolute`,
    /// `60/1G:40/3G`: I/O shares adding up to 100, spans adding up to at most 100%. An
    /// absolute list may end with `IO%/rest` (iogauge's word for DiskSpd's rest of the target).
    pub fn zoned(
        text: &str,
        absolute: bool,
        size: &dyn Fn(&str) -> std::result::Result<u64, String>,
    ) -> std::result::Result<Distribution, String> {
        let mut zones = Vec::new();
        for item in text.split(':').filter(|i| !i.trim().is_empty()) {
            let (io, span) = item
                .split_once('/')
                .ok_or_else(|| format!("zone '{item}' is not IO%/SPAN"))?;
            let io_pct: u8 = io
                .trim()
                .parse()
                .ok()
                .filter(|&p| p <= 100)
                .ok_or_else(|| format!("'{io}' in zone '{item}' is not a percentage 0..100"))?;
            let span = if absolute && span.trim() == "rest" {
                0
            } else if absolute {
                match size(span.trim())? {
                    0 => return Err(format!("zone '{item}' spans nothing")),
                    b => b,
                }
            } else {
                span.trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|&p| p <= 100)
                    .ok_or_else(|| {
                        format!("'{span}' in zone '{item}' is not a percentage 0..100")
                    })?
            };
            if span == 0 && !absolute {
                return Err(format!("zone '{item}' spans nothing"));
            }
            zones.push(Zone { io_pct, span });
        }
        let d = Distribution::Zoned { absolute, zones };
        d.check_zones()?;
        Ok(d)
    }

    /// The rules every zoned distribution keeps, whichever tool it came from.
    fn check_zones(&self) -> std::result::Result<(), String> {
        let Distribution::Zoned { absolute, zones } = self else {
            return Ok(());
        };
        if zones.is_empty() {
            return Err("names no zone".into());
        }
        let io: u32 = zones.iter().map(|z| z.io_pct as u32).sum();
        if io != 100 {
            return Err(format!("the I/O shares add up to {io}%, not 100%"));
        }
        if !absolute && zones.iter().map(|z| z.span).sum::<u64>() > 100 {
            return Err("the zones span more than 100% of the working set".into());
        }
        if zones[..zones.len() - 1].iter().any(|z| z.span == 0) {
            return Err("only the last zone may span the rest (0)".into());
        }
        Ok(())
    }

    /// The form `--distribution` reads.
    pub fn text(&self) -> String {
        match self {
            Distribution::Uniform => "uniform".into(),
            Distribution::Zipf { theta } => format!("zipf:{theta}"),
            Distribution::Pareto { h } => format!("pareto:{h}"),
            Distribution::Zoned { absolute, zones } => {
                let list: Vec<String> = zones
                    .iter()
                    .map(|z| {
                        if *absolute && z.span == 0 {
                            format!("{}/rest", z.io_pct)
                        } else if *absolute {
                            format!("{}/{}", z.io_pct, export::tool_size(z.span))
                        } else {
                            format!("{}/{}", z.io_pct, z.span)
                        }
                    })
                    .collect();
                format!(
                    "{}:{}",
                    if *absolute { "zoned_abs" } else { "zoned" },
                    list.join(":")
                )
            }
        }
    }
}

/// Block sizes drawn per I/O (fio's bsrange and bssplit). Every size is a multiple of 512.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlockSizes {
    /// One size.
    Fixed { bytes: u64 },
    /// A multiple of `min` from `min` to `max`, each equally likely; with `any_byte` (fio's
    /// bs_unaligned) any length from `min` to `max`, drawn as fio draws it.
    Range {
        min: u64,
        max: u64,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        any_byte: bool,
    },
    /// Sizes with shares in percent that add up to 100.
    Split { parts: Vec<SizeShare> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeShare {
    pub bytes: u64,
    pub pct: u8,
}

impl BlockSizes {
    pub fn smallest(&self) -> u64 {
        match self {
            BlockSizes::Fixed { bytes } => *bytes,
            BlockSizes::Range { min, .. } => *min,
            BlockSizes::Split { parts } => parts.iter().map(|p| p.bytes).min().unwrap_or(0),
        }
    }
    pub fn largest(&self) -> u64 {
        match self {
            BlockSizes::Fixed { bytes } => *bytes,
            BlockSizes::Range { max, .. } => *max,
            BlockSizes::Split { parts } => parts.iter().map(|p| p.bytes).max().unwrap_or(0),
        }
    }
    /// Every size that can be drawn (for alignment checks).
    fn sizes(&self) -> Vec<u64> {
        match self {
            BlockSizes::Fixed { bytes } => vec![*bytes],
            BlockSizes::Range { min, max, .. } => vec![*min, *max],
            BlockSizes::Split { parts } => parts.iter().map(|p| p.bytes).collect(),
        }
    }

    /// `4k`, `4k-64k`, or `4k/10:64k/90` (fio's bssplit: a share left out takes an equal part
    /// of what the others leave).
    pub fn parse(text: &str) -> std::result::Result<BlockSizes, String> {
        Self::parse_with(text, &|t| crate::units::parse_size(t))
    }

    /// As [`BlockSizes::parse`], with sizes read by `size` (fio's suffixes and kb_base).
    pub fn parse_with(
        text: &str,
        size: &dyn Fn(&str) -> std::result::Result<u64, String>,
    ) -> std::result::Result<BlockSizes, String> {
        let size = |t: &str| size(t.trim());
        if let Some((a, b)) = text.split_once('-') {
            let (min, max) = (size(a)?, size(b)?);
            if min == 0 || max < min {
                return Err(format!("range '{text}' needs 0 < MIN <= MAX"));
            }
            if max % min != 0 {
                return Err(format!(
                    "range '{text}': MAX must be a multiple of MIN, since every size drawn is"
                ));
            }
            return Ok(if min == max {
                BlockSizes::Fixed { bytes: min }
            } else {
                BlockSizes::Range {
                    min,
                    max,
                    any_byte: false,
                }
            });
        }
        if !text.contains('/') && !text.contains(':') {
            return Ok(BlockSizes::Fixed { bytes: size(text)? });
        }
        let mut parts = Vec::new();
        let mut open = 0usize;
        let mut given: u32 = 0;
        for item in text.split(':').filter(|i| !i.trim().is_empty()) {
            let (b, p) = item.split_once('/').unwrap_or((item, ""));
            let bytes = size(b)?;
            let pct = if p.trim().is_empty() {
                open += 1;
                None
            } else {
                let pct: u32 = p
                    .trim()
                    .parse()
                    .map_err(|_| format!("share '{p}' in '{item}' is not a whole percentage"))?;
                given = given
                    .checked_add(pct)
                    .ok_or_else(|| format!("the shares in '{text}' add up to more than 100%"))?;
                Some(pct)
            };
            if bytes == 0 {
                return Err(format!("size in '{item}' must be more than 0"));
            }
            parts.push((bytes, pct));
        }
        if parts.is_empty() {
            return Err(format!("'{text}' names no size"));
        }
        if given > 100 || (open == 0 && given != 100) {
            return Err(format!(
                "the shares in '{text}' add up to {given}%, not 100%"
            ));
        }
        // The shares left open divide the rest; the last of them takes the remainder.
        let rest = 100 - given;
        let mut open_seen = 0;
        let mut parts: Vec<SizeShare> = parts
            .into_iter()
            .map(|(bytes, pct)| {
                let pct = pct.unwrap_or_else(|| {
                    open_seen += 1;
                    let each = rest / open as u32;
                    if open_seen == open {
                        rest - each * (open as u32 - 1)
                    } else {
                        each
                    }
                });
                SizeShare {
                    bytes,
                    pct: pct as u8,
                }
            })
            .filter(|p| p.pct > 0)
            .collect();
        parts.sort_by_key(|p| p.bytes);
        parts.dedup_by(|b, a| {
            if a.bytes == b.bytes {
                a.pct += b.pct;
                true
            } else {
                false
            }
        });
        Ok(match parts.as_slice() {
            [one] => BlockSizes::Fixed { bytes: one.bytes },
            _ => BlockSizes::Split { parts },
        })
    }

    /// The form [`BlockSizes::parse`] reads.
    pub fn text(&self) -> String {
        let s = export::tool_size;
        match self {
            BlockSizes::Fixed { bytes } => s(*bytes),
            BlockSizes::Range { min, max, .. } => format!("{}-{}", s(*min), s(*max)),
            BlockSizes::Split { parts } => parts
                .iter()
                .map(|p| format!("{}/{}", s(p.bytes), p.pct))
                .collect::<Vec<_>>()
                .join(":"),
        }
    }
}

/// Block sizes that differ per I/O or per direction. With a mix, [`JobSpec::block_size`] is the
/// largest size of it: what buffers and the working set must hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockMix {
    pub read: BlockSizes,
    pub write: BlockSizes,
}

/// Flush written data every `writes` writes (fio's fsync and fdatasync): once that many writes
/// have been issued, the thread waits for every I/O in flight, then issues the flush and waits
/// for it, so that each flush covers completed writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlushEvery {
    pub writes: u32,
    /// fdatasync instead of fsync.
    pub data_only: bool,
}

/// A pause after every `every` I/Os of a thread (fio's thinktime, DiskSpd's -i/-j): the thread
/// waits for its I/Os in flight, spins for `spin_ns`, then sleeps until `ns` have passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Think {
    pub ns: u64,
    pub spin_ns: u64,
    pub every: u32,
}

/// The least each thread must do over every `window_ns` of the measured time (fio's rate_min,
/// rate_iops_min and ratecycle); a thread below it ends the run as failed, figures kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MinRate {
    /// Reads and writes together; 0: no floor.
    pub bytes_per_sec: u64,
    pub iops: u64,
    pub window_ns: u64,
    /// Floors for reads and for writes, each judged on its own where the thread does that
    /// direction (fio's rate_min=R,W; fio's one value on a mixed job); the floors together
    /// are then 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apart: Option<[Floor; 2]>,
}

/// fio's latency target (latency_target, latency_window, latency_percentile, latency_run):
/// each thread searches the queue depth, from 1 up to the job's, at which `pct` percent of
/// the completions of every window of `window_ns` take at most `ns` (queued to completed),
/// and the job ends one window after the depth settles, unless `keep_adjusting`
/// ([`crate::runner::lat_target`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LatencyTarget {
    pub ns: u64,
    /// 0: judged after every batch of completions.
    pub window_ns: u64,
    /// 0..=100.
    pub pct: f64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_adjusting: bool,
}

// `pct` is validated as a number in (0, 100], never NaN.
impl Eq for LatencyTarget {}

/// The least one direction must do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Floor {
    /// 0: no floor.
    pub bytes_per_sec: u64,
    pub iops: u64,
}

/// Targets taken `files` at a time as one set, each thread of a set working over all of its
/// files (fio's nrfiles and `a:b` file lists, DiskSpd's -F over several targets).
/// [`JobSpec::threads_per_target`] then counts threads per set, and a set is reported as one
/// target with its files' shares listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSets {
    pub files: u32,
    pub service: FileService,
    /// Each thread keeps at most this many of its set's files open, opening one when an I/O
    /// goes to it and closing the least recently used with no I/O in flight (fio's
    /// openfiles). `None`: every file open for the whole run, shared by the set's threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_files: Option<u32>,
}

impl FileSets {
    /// The limit on open files where it is below the set's files: where it is not, each file
    /// stays open, as fio takes an openfiles above nrfiles.
    pub fn lazy(&self) -> Option<u32> {
        self.open_files.filter(|&n| n < self.files)
    }
}

/// Which file of its set a thread's next I/O goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileService {
    /// The next file after every `every` I/Os (fio's file_service_type=roundrobin[:N], its
    /// default).
    RoundRobin { every: u32 },
    /// A file drawn at random, equally likely, for every `every` I/Os (fio's random[:N];
    /// DiskSpd's -F with -O).
    Random { every: u32 },
    /// One file until as many bytes as its working set holds have gone to it, then the next
    /// (fio's sequential).
    Sequential,
    /// Each of a thread's I/O slots keeps one file: `queue_depth / files` I/Os in flight on
    /// every file (DiskSpd's -F with -o per target).
    Slots,
}

impl FileService {
    /// The form `--file-service` reads.
    pub fn text(&self) -> String {
        match self {
            FileService::RoundRobin { every: 1 } => "roundrobin".into(),
            FileService::RoundRobin { every } => format!("roundrobin:{every}"),
            FileService::Random { every: 1 } => "random".into(),
            FileService::Random { every } => format!("random:{every}"),
            FileService::Sequential => "sequential".into(),
            FileService::Slots => "slots".into(),
        }
    }

    /// `roundrobin[:N]`, `random[:N]`, `sequential` or `slots`.
    pub fn parse(text: &str) -> std::result::Result<FileService, String> {
        let (kind, n) = match text.split_once(':') {
            Some((k, n)) => {
                let n: u32 =
                    n.trim().parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                        format!("'{n}' in '{text}' is not a count of I/Os above 0")
                    })?;
                (k.trim(), Some(n))
            }
            None => (text.trim(), None),
        };
        let every = n.unwrap_or(1);
        match (kind, n) {
            ("roundrobin", _) => Ok(FileService::RoundRobin { every }),
            ("random", _) => Ok(FileService::Random { every }),
            ("sequential", None) => Ok(FileService::Sequential),
            ("slots", None) => Ok(FileService::Slots),
            ("sequential" | "slots", Some(_)) => Err(format!("'{kind}' takes no ':N'")),
            _ => Err(format!(
                "'{text}' is not roundrobin[:N], random[:N], sequential or slots"
            )),
        }
    }
}

/// A per-thread limit on one direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rate {
    Iops { iops: u64 },
    Bytes { per_sec: u64 },
}

impl Rate {
    /// The time an I/O of `len` bytes takes of the schedule.
    #[inline]
    pub fn gap_ns(self, len: u64) -> u64 {
        match self {
            Rate::Iops { iops } => (1_000_000_000 / iops).max(1),
            Rate::Bytes { per_sec } => {
                ((len as u128 * 1_000_000_000) / per_sec as u128).max(1) as u64
            }
        }
    }
}

/// Separate per-thread limits for reads and writes (fio's rate=R,W and rate_iops=R,W; fio's
/// one value limits each direction of a mixed job on its own). A direction ahead of its
/// schedule gives way to the other while that one is not, as fio does, so the mix follows the
/// limits. `None`: that direction is not limited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirRates {
    pub read: Option<Rate>,
    pub write: Option<Rate>,
}

/// What write buffers hold. By default random bytes, set once per slot: incompressible.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferFill {
    /// 0: incompressible. N: in each 512-byte chunk, the last N% are zeros (fio's
    /// buffer_compress_percentage; 100 is all zeros, DiskSpd's -Z).
    #[serde(default)]
    pub compress_pct: u8,
    /// New random bytes before every write (fio's refill_buffers), at a CPU cost per write.
    #[serde(default)]
    pub refill: bool,
    /// Writes that repeat earlier writes' content (fio's dedupe_percentage); implies `refill`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedupe: Option<Dedupe>,
    /// Bytes every written buffer repeats from its start, in place of random data (fio's
    /// buffer_pattern); with `compress_pct`, they fill each chunk's compressible tail instead
    /// of zeros, as fio fills it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<BytePattern>,
}

/// A byte pattern written buffers repeat (fio's buffer_pattern), at most [`BytePattern::MAX`]
/// bytes (fio's MAX_PATTERN_SIZE), held inline so that the job description stays `Copy`.
/// Written as hex in JSON.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BytePattern {
    len: u16,
    bytes: [u8; BytePattern::MAX],
}

impl BytePattern {
    pub const MAX: usize = 512;

    /// `bytes` as a pattern; `None` when empty or longer than [`BytePattern::MAX`].
    pub fn new(bytes: &[u8]) -> Option<BytePattern> {
        if bytes.is_empty() || bytes.len() > Self::MAX {
            return None;
        }
        let mut p = BytePattern {
            len: bytes.len() as u16,
            bytes: [0; Self::MAX],
        };
        p.bytes[..bytes.len()].copy_from_slice(bytes);
        Some(p)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// `buf` filled with the pattern over and over from its first byte.
    pub fn fill(&self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(self.len as usize) {
            chunk.copy_from_slice(&self.bytes()[..chunk.len()]);
        }
    }

    pub fn hex(&self) -> String {
        self.bytes().iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Debug for BytePattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BytePattern(0x{})", self.hex())
    }
}

impl Serialize for BytePattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.hex())
    }
}

impl<'de> Deserialize<'de> for BytePattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let text = String::deserialize(d)?;
        let bytes = (0..text.len())
            .step_by(2)
            .map(|i| {
                text.get(i..i + 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
            })
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| D::Error::custom(format!("'{text}' is not a pattern in hex")))?;
        BytePattern::new(&bytes)
            .ok_or_else(|| D::Error::custom(format!("'{text}': 1 to 512 bytes")))
    }
}

/// Deduplicable write data: `pct`% of writes carry the content of an earlier write, the rest
/// new content, each compressible by [`BufferFill::compress_pct`] (fio's dedupe_percentage,
/// dedupe_mode, dedupe_working_set_percentage and dedupe_global; runner/dedupe.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dedupe {
    pub pct: u8,
    pub mode: DedupeMode,
    /// The threads share one working set, spread evenly between them (fio's dedupe_global);
    /// else each thread has its own.
    #[serde(default)]
    pub global: bool,
    /// Set by the fio plan for the jobs of one file: which job this is, so that two jobs' new
    /// content differs (fio's jobs draw it from seeds of their own).
    #[serde(default)]
    pub job: u32,
    /// Set by the fio plan where several jobs share the working set (`global`): where this
    /// job's threads stand among theirs. `None`: this job's threads share it alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared: Option<DedupeShare>,
}

/// Where a job's threads stand among the threads of every job that shares a working set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DedupeShare {
    /// The sharing threads of the jobs before this one, and of all of them.
    pub first: u32,
    pub of: u32,
    /// The first sharing job's seed: the one seed that their shared content is drawn from.
    pub seed: u64,
}

/// Which earlier write a duplicate repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DedupeMode {
    /// The latest write with new content.
    Repeat,
    /// Any of the first writes with new content, as many as `pct`% of the thread's region
    /// holds blocks of the smallest write size.
    WorkingSet { pct: u8 },
}

impl DedupeMode {
    /// fio's dedupe_working_set_percentage default.
    pub const WORKING_SET_PCT: u8 = 5;
}

impl BufferFill {
    pub fn is_default(&self) -> bool {
        *self == BufferFill::default()
    }
}

/// Caching mode, in DiskSpd's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheMode {
    Buffered,
    /// O_DIRECT: no page cache.
    Direct,
    /// O_DSYNC: each write is on stable storage when it completes.
    #[serde(rename = "writethrough")]
    WriteThrough,
    /// O_DIRECT | O_DSYNC.
    #[serde(rename = "direct-writethrough")]
    DirectWriteThrough,
}

impl CacheMode {
    pub fn is_direct(self) -> bool {
        matches!(self, CacheMode::Direct | CacheMode::DirectWriteThrough)
    }
    pub fn is_dsync(self) -> bool {
        matches!(
            self,
            CacheMode::WriteThrough | CacheMode::DirectWriteThrough
        )
    }
    pub fn name(self) -> &'static str {
        match self {
            CacheMode::Buffered => "buffered",
            CacheMode::Direct => "direct",
            CacheMode::WriteThrough => "writethrough",
            CacheMode::DirectWriteThrough => "direct-writethrough",
        }
    }
}

/// Which CPUs worker threads run on (DiskSpd's -a).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Affinity {
    /// Worker i on CPU i modulo the CPUs available.
    Auto,
    /// Worker i on cpus[i modulo len].
    Cpus { cpus: Vec<usize> },
}

/// When the measured part of a run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stop {
    /// After a fixed measured time.
    Duration { ns: u64 },
    /// After this many bytes in all, split evenly across all threads of all targets, or after
    /// `max_ns` of measured time if that comes first (fio's `runtime` without `time_based`;
    /// `--total` with `--duration`).
    TotalBytes {
        bytes: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_ns: Option<u64>,
    },
}

/// IOR's stonewalling (`-D`): every thread of every rank stops issuing `ns` into the measured
/// window. With `wear_out` (IOR's `stoneWallingWearOut`) they then agree on the most bytes any
/// one thread had done and each goes on until it has done that much, so that every thread did
/// the same work and the slowest client's time is seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stonewall {
    pub ns: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wear_out: bool,
}

/// Stop early once throughput has fallen from its peak and settled (the `burst` profile):
/// the last window is at least `drop_pct` below the best interval and within `tolerance_pct`
/// of the window before. The duration is then the maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SteadyRule {
    pub window_ns: u64,
    pub drop_pct: u8,
    pub tolerance_pct: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetSpec {
    pub path: PathBuf,
    /// Create the file with this size if it does not exist (-c).
    pub create_size: Option<u64>,
    /// A temporary file iogauge names itself; always removed unless `keep`.
    pub temporary: bool,
}

/// What each I/O is and where it goes: sizes, the read/write mix, the offsets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    pub block_size: u64,
    /// Block sizes that vary per I/O or differ for writes; `None`: every I/O is `block_size`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_mix: Option<BlockMix>,
    pub pattern: Pattern,
    /// 0..=100: the share of I/Os that are writes.
    pub write_pct: u8,
    /// With a random pattern, the share of I/Os (1..99) at random offsets; the others follow
    /// the I/O before (fio's percentage_random, DiskSpd's -rs). `None`: all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_pct: Option<u8>,
    /// With a random pattern: a new random offset every N I/Os, the others of each run after
    /// the I/O before (fio's rw=randread:N). `None`: every I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_every: Option<u32>,
    pub base_offset: u64,
    /// End of the working set (exclusive); `None`: the end of the target.
    pub max_offset: Option<u64>,
    /// Thread k of each target works in the working set moved k times this far (fio's
    /// offset_increment): `[base + k*step, end + k*step)`. 0: every thread in the same set.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub thread_offset: u64,
    /// Sequential I/O: thread k of each target begins k times this far into the working set
    /// and wraps to that offset modulo the stride, so that threads interleave (DiskSpd's -T).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub thread_start: u64,
    /// Sequential I/O in zones (fio's zonemode=strided): see [`StridedZones`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zones: Option<StridedZones>,
    /// Zones with write pointers (fio's zonemode=zbd): see [`WritePointerZones`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zbd: Option<WritePointerZones>,
    /// Trims instead of reads and writes (fio's rw=trim, randtrim, trimwrite); `write_pct`
    /// is then 0.
    #[serde(default, skip_serializing_if = "Trims::is_none")]
    pub trim: Trims,
}

/// A job's trims. A trim tells the storage that a range holds no data any more: a discard on
/// a block device (BLKDISCARD, as fio's trims), a punched hole on a file (what a file system
/// does with a discard; fio's trims fail on files except through its falloc engine). Trims
/// are sized as writes are (`block_mix.write`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trims {
    #[default]
    None,
    /// Every I/O is a trim (fio's trim, randtrim).
    Only,
    /// Each block is trimmed, then written once the trim has completed (fio's trimwrite,
    /// randtrimwrite): the trims and the writes each cover the job's bytes.
    ThenWrite,
}

impl Trims {
    pub fn is_none(&self) -> bool {
        *self == Trims::None
    }
}

/// fio's zonemode=strided: `size` bytes of I/O in a zone of `range` bytes (sequential within
/// it, from its start again where it reaches its end), then the next zone `range + skip`
/// further on, from the working set's start again past its end. A disk profiled zone by zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StridedZones {
    pub size: u64,
    pub range: u64,
    pub skip: u64,
}

/// fio's zonemode=zbd, emulated as fio emulates it on a regular file or a block device the
/// kernel does not show as zoned: the target is cut into zones of `size` bytes, each with a
/// write pointer that starts at the zone's start. A write goes to the write pointer of its
/// zone (or of another open zone) and moves it on; a full zone is reset (its pointer back to
/// its start) before it is written again. Reads see only what lies below a write pointer
/// unless `read_beyond_wp`. The write pointers are the process's: a later job on the same
/// file finds them where an earlier one left them, as fio's jobs do.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WritePointerZones {
    pub size: u64,
    /// Bytes of a zone that can be written (fio's zonecapacity); at most `size`.
    pub capacity: u64,
    /// Zones open for writing at once over every thread on the target (0: no limit).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub max_open: u32,
    /// Zones one thread may hold open (0: no limit of its own); needs `max_open`.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub thread_max_open: u32,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_beyond_wp: bool,
    /// fio's zone_reset_threshold and zone_reset_frequency: once the zones hold this share
    /// of the working set, one write in `1 / reset_frequency` resets its zone first (0: never).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub reset_threshold: f64,
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub reset_frequency: f64,
}

/// At most this many zones open at once (fio's ZBD_MAX_OPEN_ZONES).
pub const MAX_OPEN_ZONES: u32 = 4096;

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

fn one_u32() -> u32 {
    1
}

fn is_one_u32(v: &u32) -> bool {
    *v == 1
}

fn is_zero_f64(v: &f64) -> bool {
    *v == 0.0
}

impl Shape {
    /// Whether the job changes its targets' content: it writes or trims.
    pub fn modifies(&self) -> bool {
        self.write_pct > 0 || !self.trim.is_none()
    }

    /// The block sizes of reads and of writes.
    pub fn sizes(&self) -> (BlockSizes, BlockSizes) {
        match &self.block_mix {
            Some(m) => (m.read.clone(), m.write.clone()),
            None => {
                let f = BlockSizes::Fixed {
                    bytes: self.block_size,
                };
                (f.clone(), f)
            }
        }
    }
}

/// When measuring starts and ends, and how often it is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    pub warmup_ns: u64,
    pub stop: Stop,
    /// Stop before the duration once throughput has dropped and settled (--until-steady).
    pub until_steady: Option<SteadyRule>,
    /// Stop once the last window is flat, fio's steadystate= (--until-flat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_flat: Option<flat::FlatRule>,
    /// A run by bytes cut at a deadline on every rank at once (IOR's stonewalling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stonewall: Option<Stonewall>,
    pub cooldown_ns: u64,
    /// The time series' interval.
    pub interval_ns: u64,
}

/// What a thread does around its I/Os besides issuing them: what it writes, when it flushes,
/// how long it thinks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerIo {
    #[serde(default, skip_serializing_if = "BufferFill::is_default")]
    pub buffers: BufferFill,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush: Option<FlushEvery>,
    /// Flush once when the thread has finished writing (fio's end_fsync); with a byte stop the
    /// flush counts in the run's time, as fio counts it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub end_fsync: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think: Option<Think>,
}

/// Per-thread ceilings on the rate, and the floor below which a run fails. At most one of
/// the ceilings for both directions (`rate_iops`, `rate_bytes_per_sec`) or `rate_dirs`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub rate_iops: Option<u64>,
    pub rate_bytes_per_sec: Option<u64>,
    /// Limits for reads and writes apart; instead of `rate_iops` and `rate_bytes_per_sec`,
    /// which limit both together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_dirs: Option<DirRates>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rate: Option<MinRate>,
    /// Search the queue depth that keeps completions within a latency target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_target: Option<LatencyTarget>,
    /// The limited I/Os start as a Poisson process of the limit's rate (fio's
    /// rate_process=poisson), instead of evenly spaced.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub poisson: bool,
    /// fio's flow control: each thread's share of the I/Os started in a flow it shares with
    /// the threads of other jobs that run at the same time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<FlowShare>,
}

/// A thread's place in a flow (fio's `flow`, `flow_id`, `flow_sleep`): the threads of every
/// job naming flow `id` keep the I/Os each starts to its `weight` over their total weight;
/// one ahead of its share waits `sleep_ns` before it asks again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowShare {
    pub id: u32,
    pub weight: u32,
    pub sleep_ns: u64,
}

impl Limits {
    /// The one limit for reads and writes together (`rate_iops` or `rate_bytes_per_sec`).
    pub fn both(&self) -> Option<Rate> {
        match (self.rate_iops, self.rate_bytes_per_sec) {
            (Some(iops), _) => Some(Rate::Iops { iops }),
            (None, Some(per_sec)) => Some(Rate::Bytes { per_sec }),
            (None, None) => None,
        }
    }
}

/// A workload, whichever front end wrote it. The concepts a run is made of are typed values
/// of their own; in JSON their fields sit flat in the job, as they always have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    pub targets: Vec<TargetSpec>,
    pub threads_per_target: u32,
    /// Outstanding I/Os per thread.
    pub queue_depth: u32,
    /// io_uring: hand I/Os to the kernel once this many are ready (1: each at once).
    pub submit_batch: u32,
    /// With the queue full, wait until this many I/Os (or all in flight, if fewer) have
    /// completed before refilling it (fio's iodepth_batch_complete_min; 1: refill as each
    /// completes; 0: auto, chosen in the warm-up). Specs stored before it existed refilled as
    /// each completed.
    #[serde(default = "one_u32", skip_serializing_if = "is_one_u32")]
    pub complete_batch: u32,
    /// Latency mode (-L): per-I/O timestamps and latency histograms. Without it, IOPS mode:
    /// counts only, for the highest IOPS.
    pub latency: bool,
    pub affinity: Option<Affinity>,
    /// NUMA nodes for the threads' CPUs and memory (fio's numa_cpu_nodes, numa_mem_policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa: Option<numa::Numa>,
    #[serde(flatten)]
    pub shape: Shape,
    #[serde(flatten)]
    pub timing: Timing,
    pub cache: CacheMode,
    /// DiskSpd's -Sr on Windows: the SMB client's local cache of a remote file turned off
    /// (FSCTL_DISABLE_LOCAL_BUFFERING) while the OS cache stays on; refused on a local volume.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub remote_uncached: bool,
    /// The engine and the settings that belong to engines.
    #[serde(flatten)]
    pub engine: EngineSpec,
    #[serde(flatten)]
    pub limits: Limits,
    #[serde(flatten)]
    pub per_io: PerIo,
    pub seed: u64,
    pub allow_overwrite: bool,
    pub keep: bool,
    pub continue_on_error: bool,
    /// I/O errors (errnos) the run goes on after, each counted (fio's ignore_error); any
    /// other stops it unless `continue_on_error`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore_errors: Vec<i32>,
    /// Write until the file system is full (fio's fill_device): a file created for the job
    /// starts empty and grows with the writes, and ENOSPC or EDQUOT ends a thread as planned.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fill: bool,
    /// I/O priorities: the job's own and per-I/O ones (--ioprio, --cmdprio).
    #[serde(default, skip_serializing_if = "prio::Priority::is_none")]
    pub prio: prio::Priority,
    /// Threads that work over several targets each; `None`: each thread on one target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_sets: Option<FileSets>,
    /// The tool the job was written for: messages name its settings in that tool's words.
    #[serde(default, skip_serializing_if = "Dialect::is_iogauge")]
    pub dialect: Dialect,
    /// How the targets are shared out among the ranks of an MPI job.
    #[serde(default, skip_serializing_if = "Ranks::is_default")]
    pub ranks: Ranks,
    /// Data verification (--verify, fio's verify=): headers, checksums and generations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<crate::verify::VerifySpec>,
    /// The blkio cgroup the job's threads run in (fio's cgroup=).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<crate::os::cgroup::CgroupAsk>,
}

/// How an MPI job's ranks share the targets ([`crate::cluster::team`]); nothing to a process
/// running alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ranks {
    /// Every rank on the same files, each on its own slice of the working set (IOR's single
    /// shared file), instead of a file of its own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared_file: bool,
    /// Each rank works on the files (or slice) of the rank this many further on, so that data
    /// one client wrote is read by another and its page cache cannot serve it (IOR's -C).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift: Option<RankShift>,
    /// With `shared_file`: the working set dealt out in pieces of this many bytes, rank r of
    /// n taking pieces r, r + n, r + 2n... (IOR's segments: segment i of rank r at
    /// (i*n + r)*blockSize), instead of the r-th n-th in one piece.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interleave: Option<u64>,
}

impl Ranks {
    pub fn is_default(&self) -> bool {
        *self == Ranks::default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankShift {
    /// The least shift that puts every rank on another host's data (one host: 1).
    OtherHost,
    By(u32),
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// O_DIRECT needs sizes and offsets aligned to the logical block size; 512 is the least any
/// Linux block device accepts. The exact requirement of a target is checked when it is opened.
pub const MIN_DIRECT_ALIGN: u64 = 512;

impl JobSpec {
    pub fn total_threads(&self) -> u64 {
        self.sets() as u64 * self.threads_per_target as u64
    }

    /// How many targets each thread works over: 1 unless [`JobSpec::file_sets`].
    pub fn files_per_set(&self) -> usize {
        self.file_sets.map_or(1, |f| f.files as usize)
    }

    /// The most files a thread keeps open at once, where its set's files are opened as I/Os
    /// go to them ([`FileSets::lazy`]); `None`: every file open for the whole run.
    pub fn open_files(&self) -> Option<u32> {
        self.file_sets.and_then(|f| f.lazy())
    }

    /// The bytes each verification header covers: --verify-interval, or the smallest I/O of
    /// either direction.
    pub fn verify_unit(&self) -> Option<u64> {
        let v = self.verify.as_ref()?;
        if v.unit > 0 {
            return Some(v.unit);
        }
        let (r, w) = self.shape.sizes();
        Some(r.smallest().min(w.smallest()))
    }

    /// The sets of targets threads work on: each target alone, or [`JobSpec::file_sets`].
    pub fn sets(&self) -> usize {
        // Total before validation too (a set of 0 files is refused there, by name).
        self.targets.len() / self.files_per_set().max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzz/fuzz_targets/numbers.rs: the shares' sum overflowed u32.
    #[test]
    fn shares_too_large_to_add_are_an_error() {
        let text = "4k/4294967295:8k/5";
        let e = BlockSizes::parse(text).unwrap_err();
        assert_eq!(
            e,
            format!("the shares in '{text}' add up to more than 100%")
        );
    }
}
