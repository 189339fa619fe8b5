//! A workload's result ([`crate::workload`]): every repetition of every step (its time, its
//! throughput sampled and its phases, its CPU use, the cache it started from), the system's
//! own tools on the same work, and what the workload ran with. Described by
//! `schema/workload-result.schema.json`.

use super::ranks::RankSpread;
use super::Header;
use super::{Phase, TimeSeries};
use crate::error::{Error, Result};
use crate::facts::TargetFacts;
use crate::os::cache::CacheDrop;
use crate::stats::reps::{median_ns, repeated};
use serde::{Deserialize, Serialize};

pub const SCHEMA_NAME: &str = "iogauge-workload-result";
pub const SCHEMA_VERSION: u32 = 1;

/// One kind of real work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    Copy,
    Archive,
    Extract,
    Scan,
    Readall,
    Delete,
}

/// What a step works on, and what it leaves for the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Material {
    Tree,
    Archive,
    Nothing,
}

impl StepKind {
    pub const ALL: [StepKind; 6] = [
        StepKind::Copy,
        StepKind::Archive,
        StepKind::Extract,
        StepKind::Scan,
        StepKind::Readall,
        StepKind::Delete,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StepKind::Copy => "copy",
            StepKind::Archive => "archive",
            StepKind::Extract => "extract",
            StepKind::Scan => "scan",
            StepKind::Readall => "readall",
            StepKind::Delete => "delete",
        }
    }

    pub fn by_name(name: &str) -> Option<StepKind> {
        StepKind::ALL.into_iter().find(|k| k.name() == name)
    }

    pub fn about(self) -> &'static str {
        match self {
            StepKind::Copy => "copy the tree (cp -r, robocopy /MT)",
            StepKind::Archive => "pack the tree into one compressed file (zip -r, tar --zstd)",
            StepKind::Extract => "unpack an archive into a new tree (unzip, tar -x)",
            StepKind::Scan => "walk the tree and stat every entry (a backup scanner, find)",
            StepKind::Readall => "read every file once (an antivirus scan, an indexer)",
            StepKind::Delete => "remove a tree (rm -rf)",
        }
    }

    /// What the step reads.
    pub fn input(self) -> Material {
        match self {
            StepKind::Extract => Material::Archive,
            _ => Material::Tree,
        }
    }

    /// What the step makes, for the steps after it.
    pub fn output(self) -> Material {
        match self {
            StepKind::Copy | StepKind::Extract => Material::Tree,
            StepKind::Archive => Material::Archive,
            StepKind::Scan | StepKind::Readall | StepKind::Delete => Material::Nothing,
        }
    }

    /// Which of the step's counts measure its work: the bytes of the tree it reads (copy,
    /// archive, readall), the bytes of the tree it writes (extract), or entries (scan, delete).
    pub fn work(self) -> Work {
        match self {
            StepKind::Copy | StepKind::Archive | StepKind::Readall => Work::Read,
            StepKind::Extract => Work::Written,
            StepKind::Scan | StepKind::Delete => Work::Entries,
        }
    }

    /// Whether it writes, and so needs `--target`.
    pub fn writes(self) -> bool {
        !matches!(self, StepKind::Scan | StepKind::Readall)
    }
}

/// What a step's throughput is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    Read,
    Written,
    Entries,
}

impl Work {
    /// The series of a step's work alone: a copy's bytes read, not read and written summed,
    /// so that its throughput and phases are those of the tree going through.
    pub fn series(self, ts: &TimeSeries) -> TimeSeries {
        let mut s = ts.clone();
        for x in &mut s.samples {
            match self {
                Work::Read => x.write = Default::default(),
                Work::Written => x.read = Default::default(),
                Work::Entries => {}
            }
        }
        s
    }

    /// "bytes read" and so on, for reports.
    pub fn name(self) -> &'static str {
        match self {
            Work::Read => "bytes read",
            Work::Written => "bytes written",
            Work::Entries => "entries",
        }
    }
}

/// How `copy` moves a file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CopyMethod {
    /// read(2) into a buffer, write(2) it out: the bytes pass through iogauge.
    ReadWrite,
    /// copy_file_range(2): the kernel copies (or shares extents, on xfs and btrfs), as `cp`
    /// does since coreutils 9; a file it refuses is copied with read and write.
    CopyFileRange,
    /// Reads and writes through an io_uring, several in flight per file.
    IoUring,
    /// Windows' CopyFileExW, as Explorer and robocopy copy.
    CopyFileEx,
    /// Windows' block cloning (FSCTL_DUPLICATE_EXTENTS_TO_FILE): ReFS shares the source's
    /// clusters, as a reflink; a volume that refuses it has the files copied by read and write.
    BlockClone,
}

impl CopyMethod {
    pub fn name(self) -> &'static str {
        match self {
            CopyMethod::ReadWrite => "read-write",
            CopyMethod::CopyFileRange => "copy_file_range",
            CopyMethod::IoUring => "io_uring",
            CopyMethod::CopyFileEx => "CopyFileExW",
            CopyMethod::BlockClone => "block-clone",
        }
    }

    /// What a copy uses unless told: the system's own copy (copy_file_range on Linux,
    /// CopyFileExW on Windows).
    pub fn native() -> CopyMethod {
        CopyMethod::by_name(crate::os::copy::DEFAULT).unwrap_or(CopyMethod::ReadWrite)
    }

    /// The method called `name`, if this system offers it; else a line naming those it does.
    pub fn here(name: &str) -> Result<CopyMethod, String> {
        match CopyMethod::by_name(name) {
            Some(m) if crate::os::copy::offers(m.name()) => Ok(m),
            found => Err(format!(
                "{}: {} here",
                match found {
                    Some(m) => format!("{} is not on {}", m.name(), std::env::consts::OS),
                    None => format!("'{name}' is no copy method"),
                },
                crate::os::copy::METHODS.join(", ")
            )),
        }
    }

    pub fn by_name(name: &str) -> Option<CopyMethod> {
        [
            CopyMethod::ReadWrite,
            CopyMethod::CopyFileRange,
            CopyMethod::IoUring,
            CopyMethod::CopyFileEx,
            CopyMethod::BlockClone,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }
}

/// The archive formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArchiveFormat {
    /// zip with deflate, each file compressed apart (so by several threads at once).
    Zip,
    /// A tar stream compressed by zstd (its threads compress blocks of the stream).
    TarZst,
}

impl ArchiveFormat {
    pub fn name(self) -> &'static str {
        match self {
            ArchiveFormat::Zip => "zip",
            ArchiveFormat::TarZst => "tar.zst",
        }
    }

    pub fn by_name(name: &str) -> Option<ArchiveFormat> {
        match name {
            "zip" => Some(ArchiveFormat::Zip),
            "tar.zst" | "tzst" | "tar.zstd" => Some(ArchiveFormat::TarZst),
            _ => None,
        }
    }

    /// The format of an archive file, by its name.
    pub fn of_path(path: &std::path::Path) -> Option<ArchiveFormat> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        if name.ends_with(".zip") {
            Some(ArchiveFormat::Zip)
        } else if [".tar.zst", ".tzst", ".tar.zstd"]
            .iter()
            .any(|s| name.ends_with(s))
        {
            Some(ArchiveFormat::TarZst)
        } else {
            None
        }
    }

    /// deflate's level 6 (zip's own default), zstd's level 3 (zstd's and tar's).
    pub fn default_level(self) -> i32 {
        match self {
            ArchiveFormat::Zip => 6,
            ArchiveFormat::TarZst => 3,
        }
    }

    pub fn levels(self) -> std::ops::RangeInclusive<i32> {
        match self {
            ArchiveFormat::Zip => 0..=9,
            ArchiveFormat::TarZst => 1..=19,
        }
    }
}

/// One step as asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub kind: StepKind,
    pub threads: u32,
    /// copy's method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<CopyMethod>,
    /// archive's format (and extract's, where it archives a tree first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ArchiveFormat>,
    /// archive's compression level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<i32>,
}

impl Step {
    /// "copy (copy_file_range, 4 threads)", "archive (tar.zst level 3, 4 threads)".
    pub fn label(&self) -> String {
        let mut how = Vec::new();
        if let Some(m) = self.method {
            how.push(m.name().to_string());
        }
        match (self.format, self.level) {
            (Some(f), Some(l)) => how.push(format!("{} level {l}", f.name())),
            (Some(f), None) => how.push(f.name().to_string()),
            _ => {}
        }
        how.push(format!(
            "{} thread{}",
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        ));
        format!("{} ({})", self.kind.name(), how.join(", "))
    }

    pub fn format(&self) -> ArchiveFormat {
        self.format.unwrap_or(ArchiveFormat::Zip)
    }

    pub fn level(&self) -> i32 {
        self.level.unwrap_or_else(|| self.format().default_level())
    }
}

/// What was asked: the steps and how they are measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// copy, archive, extract, scan, readall, delete or mixed.
    pub workload: String,
    pub steps: Vec<Step>,
    pub repeat: u32,
    pub drop_caches: bool,
    /// Check each tree a step makes against the source (its manifest, or its files).
    pub verify: bool,
    /// Run the system's own tools on the same work, alternating with iogauge.
    pub compare_with_tools: bool,
    /// Time-series interval.
    pub interval_ns: u64,
}

impl Params {
    pub fn validate(&self) -> Result<()> {
        if self.repeat == 0 || self.repeat > 1000 {
            return Err(Error::usage(format!(
                "--repeat {}: from 1 to 1000",
                self.repeat
            )));
        }
        if self.interval_ns < 10_000_000 {
            return Err(Error::usage(format!(
                "--interval {}: at least 10 milliseconds",
                self.interval_ns / 1_000_000
            )));
        }
        if self.steps.is_empty() {
            return Err(Error::usage("the script names no steps"));
        }
        for s in &self.steps {
            if s.threads == 0 || s.threads > 1024 {
                return Err(Error::usage(format!(
                    "--threads {}: from 1 to 1024",
                    s.threads
                )));
            }
            if let Some(l) = s.level {
                let f = s.format();
                if !f.levels().contains(&l) {
                    return Err(Error::usage(format!(
                        "--level {l}: {} takes levels {} to {}",
                        f.name(),
                        f.levels().start(),
                        f.levels().end()
                    )));
                }
            }
        }
        Ok(())
    }

    pub fn writes(&self) -> bool {
        self.steps.iter().any(|s| s.kind.writes())
    }
}

/// A tree or archive a workload worked on, or the folder it wrote in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Place {
    pub path: String,
    /// tree, archive or folder.
    pub what: String,
    /// What the tree held (an archive: its entries; the target folder: nothing counted).
    pub files: u64,
    pub dirs: u64,
    pub links: u64,
    pub bytes: u64,
    /// The dataset manifest found at the top of the tree, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<String>,
    /// Where the counts come from: "walk" (the tree walked before the first step), "manifest"
    /// (a dataset's, read instead of a walk) or "stat" (an archive's size).
    #[serde(default)]
    pub counted: String,
    pub facts: TargetFacts,
}

/// What the threads' CPU time says limited a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The threads computed most of the time (compression, checksums): faster storage would
    /// not help.
    Cpu,
    /// The threads were busy in the kernel most of the time: the file system's own work
    /// (copying pages, metadata), which is the storage stack on a memory file system.
    Kernel,
    /// The threads waited for the storage most of the time.
    Storage,
}

impl Bound {
    pub fn name(self) -> &'static str {
        match self {
            Bound::Cpu => "CPU-bound",
            Bound::Kernel => "kernel-bound",
            Bound::Storage => "storage-bound",
        }
    }
}

/// The process's CPU time over a step (its threads and any a compressor started).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CpuUse {
    pub threads: u32,
    /// CPUs the threads could run on at once: the threads, at most the machine's CPUs.
    #[serde(default)]
    pub usable: u32,
    pub user_ns: u64,
    pub system_ns: u64,
    /// CPU time over elapsed time times `usable`: how busy the CPUs the step could use were.
    pub busy_pct: f64,
    pub bound: Bound,
}

/// Busier than this is not waiting on storage.
const BUSY: f64 = 70.0;

impl CpuUse {
    /// `cpus`: the CPUs this process may run on.
    pub fn of(threads: u32, cpus: u32, user_ns: u64, system_ns: u64, elapsed_ns: u64) -> CpuUse {
        let usable = threads.min(cpus).max(1);
        let capacity = elapsed_ns as f64 * f64::from(usable);
        let busy_pct = if capacity > 0.0 {
            100.0 * (user_ns + system_ns) as f64 / capacity
        } else {
            0.0
        };
        let bound = if busy_pct < BUSY {
            Bound::Storage
        } else if user_ns >= system_ns {
            Bound::Cpu
        } else {
            Bound::Kernel
        };
        CpuUse {
            threads,
            usable,
            user_ns,
            system_ns,
            busy_pct,
            bound,
        }
    }
}

/// The page cache as a step found it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CacheState {
    /// Dropped just before the step (see the result's `cache_drop`).
    pub dropped: bool,
    /// The share of the input's bytes in the page cache, in a sample of its files (cachestat
    /// or mincore: nothing read); null where none could be asked.
    pub resident_pct: Option<f64>,
    pub sampled_files: u32,
}

/// How `copy` moved the bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CopyUse {
    pub method: CopyMethod,
    /// Files the system copied: copy_file_range (Linux), CopyFileExW or block cloning
    /// (Windows).
    pub kernel_files: u64,
    /// Files copied by read and write: asked for, or where the system refused.
    pub read_write_files: u64,
    pub io_uring_files: u64,
    /// Why the system refused copy_file_range or block cloning, where it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Whether the copy shares its extents with the source (a reflink: no data copied), as
    /// FIEMAP says of the largest file; null where the file system does not say.
    pub shared_extents: Option<bool>,
}

/// Sizes before and after compression.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Compression {
    pub format: ArchiveFormat,
    pub level: i32,
    /// The files' bytes.
    pub tree_bytes: u64,
    pub archive_bytes: u64,
}

impl Compression {
    /// How many times smaller the archive is.
    pub fn ratio(&self) -> f64 {
        self.tree_bytes as f64 / (self.archive_bytes as f64).max(1.0)
    }

    /// The share compression saved, in percent.
    pub fn saving_pct(&self) -> f64 {
        100.0 * (1.0 - self.archive_bytes as f64 / (self.tree_bytes as f64).max(1.0))
    }
}

/// A made tree checked against what it should hold.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Verified {
    pub ok: bool,
    /// The manifest, "the source's files" or "the archive's checksums".
    pub against: String,
    pub files: u64,
    pub missing: u64,
    pub wrong_size: u64,
    pub wrong_content: u64,
    /// Files the reference does not name.
    pub extra: u64,
    /// The first paths found wrong.
    pub first: Vec<String>,
}

/// One repetition of one step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rep {
    pub elapsed_ns: u64,
    /// Writing back what the step wrote (syncfs), timed apart from `elapsed_ns` as `cp`'s
    /// time ends before it; null for steps that write nothing.
    pub sync_ns: Option<u64>,
    pub files: u64,
    pub dirs: u64,
    pub links: u64,
    /// Entries that are neither files, folders nor links (devices, FIFOs): left out.
    pub skipped: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub cpu: CpuUse,
    pub cache: CacheState,
    /// Per interval: files and bytes read (`read`) and written (`write`); `ios` counts files
    /// (entries, for scan and delete).
    pub time_series: TimeSeries,
    pub phases: Vec<Phase>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy: Option<CopyUse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<Compression>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<Verified>,
    /// Stopped before the step was done (Ctrl-C, an error): the figures cover what was done
    /// by then, and the step's summary leaves it out.
    #[serde(default)]
    pub cut_short: bool,
    /// What limited it (`result::limit`), from the system's signals over it; absent where
    /// they were not read (another system, results saved before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<crate::result::limit::Limit>,
}

impl Rep {
    /// Entries per second: files, or every entry for scan and delete.
    pub fn files_per_s(&self, kind: StepKind) -> f64 {
        let n = match kind {
            StepKind::Scan | StepKind::Delete => self.files + self.dirs + self.links,
            _ => self.files,
        };
        per_s(n, self.elapsed_ns)
    }
}

fn per_s(n: u64, ns: u64) -> f64 {
    if ns == 0 {
        0.0
    } else {
        n as f64 * 1e9 / ns as f64
    }
}

/// A step's repetitions in a few figures, derived from them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepSummary {
    pub min_ns: u64,
    pub median_ns: u64,
    pub max_ns: u64,
    /// (max - min) / median, in percent.
    pub spread_pct: f64,
    /// Of the fastest repetition.
    pub files_per_s: f64,
    pub read_bytes_per_s: f64,
    pub write_bytes_per_s: f64,
}

/// The same work done by the system's own tool, alternating with iogauge's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolResult {
    /// "cp -r", "tar --zstd", "find -printf"...
    pub tool: String,
    /// The command line of the first run.
    pub command: String,
    /// Wall time of each run, in order (the process's start included).
    pub elapsed_ns: Vec<u64>,
    pub min_ns: Option<u64>,
    pub median_ns: Option<u64>,
    /// The tool's fastest time over iogauge's: above 1, iogauge did the work faster.
    pub speed_ratio: Option<f64>,
    /// Why it did not run (not installed) or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
}

/// One step of the workload, every repetition.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepResult {
    pub step: Step,
    pub label: String,
    pub reps: Vec<Rep>,
    pub summary: Option<StepSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolResult>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkloadResult {
    /// Schema, versions, start, command line, system: the keys every kind opens with.
    #[serde(flatten)]
    pub header: Header,
    pub params: Params,
    pub source: Place,
    pub target: Option<Place>,
    pub cache_drop: CacheDrop,
    pub steps: Vec<StepResult>,
    /// Stopped before every repetition of every step ran (Ctrl-C, an error).
    pub partial: bool,
    /// Why it stopped early.
    pub stop_message: Option<String>,
    pub notes: Vec<String>,
    /// The ranks of an MPI job whose results these are; absent for one process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<RankSpread>,
}

impl WorkloadResult {
    /// Fill every step's summary and the tools' ratios from the repetitions (again, after a
    /// load).
    pub fn summarize(&mut self) {
        for s in &mut self.steps {
            s.summary = summary_of(s.step.kind, &s.reps);
            if let Some(t) = &mut s.tool {
                let mut sorted = t.elapsed_ns.clone();
                sorted.sort_unstable();
                t.min_ns = sorted.first().copied();
                t.median_ns = median_ns(&sorted);
                t.speed_ratio = match (t.min_ns, &s.summary) {
                    (Some(tool), Some(ours)) if ours.min_ns > 0 => {
                        Some(tool as f64 / ours.min_ns as f64)
                    }
                    _ => None,
                };
            }
        }
    }

    /// Steps whose made tree differed from the source.
    pub fn verify_failures(&self) -> Vec<String> {
        self.steps
            .iter()
            .flat_map(|s| {
                s.reps.iter().enumerate().filter_map(move |(i, r)| {
                    let v = r.verify.as_ref().filter(|v| !v.ok)?;
                    Some(format!(
                        "{} (repetition {}): {} missing, {} of another size, {} with other \
                         content, against {}",
                        s.step.kind.name(),
                        i + 1,
                        v.missing,
                        v.wrong_size,
                        v.wrong_content,
                        v.against
                    ))
                })
            })
            .collect()
    }
}

fn summary_of(kind: StepKind, reps: &[Rep]) -> Option<StepSummary> {
    let whole: Vec<&Rep> = reps.iter().filter(|r| !r.cut_short).collect();
    let fastest = *whole.iter().min_by_key(|r| r.elapsed_ns)?;
    let times: Vec<u64> = whole.iter().map(|r| r.elapsed_ns).collect();
    let r = repeated(&times)?;
    Some(StepSummary {
        min_ns: r.min_ns,
        median_ns: r.median_ns,
        max_ns: r.max_ns,
        spread_pct: r.spread_pct,
        files_per_s: fastest.files_per_s(kind),
        read_bytes_per_s: per_s(fastest.bytes_read, fastest.elapsed_ns),
        write_bytes_per_s: per_s(fastest.bytes_written, fastest.elapsed_ns),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_is_cpu_or_kernel_bound_and_an_idle_one_waits_on_storage() {
        let s = 1_000_000_000;
        assert_eq!(CpuUse::of(2, 16, s, s / 2, s).bound, Bound::Cpu);
        assert_eq!(CpuUse::of(1, 16, s / 10, s, s).bound, Bound::Kernel);
        let waiting = CpuUse::of(4, 16, s / 2, s / 2, s);
        assert_eq!(waiting.bound, Bound::Storage);
        assert!((waiting.busy_pct - 25.0).abs() < 1e-9);
        // Four threads on two CPUs, both busy: CPU-bound, not a thread half idle.
        let full = CpuUse::of(4, 2, 3 * s / 2, s / 2, s);
        assert_eq!((full.usable, full.bound), (2, Bound::Cpu));
        assert!((full.busy_pct - 100.0).abs() < 1e-9);
    }

    #[test]
    fn names_and_archive_kinds_read_back() {
        for k in StepKind::ALL {
            assert_eq!(StepKind::by_name(k.name()), Some(k));
        }
        assert_eq!(
            ArchiveFormat::of_path(std::path::Path::new("/x/a.TAR.ZST")),
            Some(ArchiveFormat::TarZst)
        );
        assert_eq!(ArchiveFormat::of_path(std::path::Path::new("a.tar")), None);
        assert_eq!(
            CopyMethod::by_name("copy_file_range"),
            Some(CopyMethod::CopyFileRange)
        );
    }
}
