//! A sweep's result ([`crate::sweep`]): every cell of the grid, the knees found in them, and
//! what the sweep ran with. Described by `schema/sweep-result.schema.json`.

pub mod knee;

use super::ranks::RankSpread;
use super::Header;
use crate::error::{Error, Result};
use crate::facts::TargetFacts;
use crate::os::memcg::CapKind;
use crate::units::format_size;
use serde::{Deserialize, Serialize};

pub const SCHEMA_NAME: &str = "iogauge-sweep-result";
pub const SCHEMA_VERSION: u32 = 1;

/// The tests, in the order they run for each file size and record size (iozone's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    Write,
    Rewrite,
    Read,
    Reread,
    RandomRead,
    RandomWrite,
    BackwardRead,
    RecordRewrite,
    StrideRead,
}

impl Test {
    pub const ALL: [Test; 9] = [
        Test::Write,
        Test::Rewrite,
        Test::Read,
        Test::Reread,
        Test::RandomRead,
        Test::RandomWrite,
        Test::BackwardRead,
        Test::RecordRewrite,
        Test::StrideRead,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Test::Write => "write",
            Test::Rewrite => "rewrite",
            Test::Read => "read",
            Test::Reread => "reread",
            Test::RandomRead => "random_read",
            Test::RandomWrite => "random_write",
            Test::BackwardRead => "backward_read",
            Test::RecordRewrite => "record_rewrite",
            Test::StrideRead => "stride_read",
        }
    }

    /// The title of iozone's -R report of this test.
    pub fn iozone_title(self) -> &'static str {
        match self {
            Test::Write => "Writer report",
            Test::Rewrite => "Re-writer report",
            Test::Read => "Reader report",
            Test::Reread => "Re-Reader report",
            Test::RandomRead => "Random read report",
            Test::RandomWrite => "Random write report",
            Test::BackwardRead => "Backward read report",
            Test::RecordRewrite => "Record rewrite report",
            Test::StrideRead => "Stride read report",
        }
    }

    /// iozone's `-i` number that selects the test.
    pub fn iozone_number(self) -> u32 {
        match self {
            Test::Write | Test::Rewrite => 0,
            Test::Read | Test::Reread => 1,
            Test::RandomRead | Test::RandomWrite => 2,
            Test::BackwardRead => 3,
            Test::RecordRewrite => 4,
            Test::StrideRead => 5,
        }
    }

    pub fn about(self) -> &'static str {
        match self {
            Test::Write => "a new file written from start to end",
            Test::Rewrite => "the file written again over its data",
            Test::Read => "the file read from start to end",
            Test::Reread => "read again, straight after",
            Test::RandomRead => "every record once, in a random order",
            Test::RandomWrite => "every record written once, in a random order",
            Test::BackwardRead => "read from the end to the start",
            Test::RecordRewrite => "the first record written again, file size / record times",
            Test::StrideRead => "every record once, each read `stride` records past the last",
        }
    }

    pub fn writes(self) -> bool {
        matches!(
            self,
            Test::Write | Test::Rewrite | Test::RandomWrite | Test::RecordRewrite
        )
    }

    pub fn by_name(name: &str) -> Option<Test> {
        Test::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Through the page cache (iozone's default) or around it (O_DIRECT, iozone's -I).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheMode {
    Buffered,
    Direct,
}

/// A sweep's parameters, as saved with its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Bytes, ascending.
    pub file_sizes: Vec<u64>,
    /// Bytes, ascending.
    pub record_sizes: Vec<u64>,
    pub tests: Vec<Test>,
    pub cache: CacheMode,
    /// The fsync after the last write is part of the time (iozone -e).
    pub include_flush: bool,
    /// The close is part of the time (iozone -c).
    pub include_close: bool,
    /// Writes opened O_SYNC (iozone -o).
    pub sync_writes: bool,
    /// iozone -a's shortcut: record sizes under 64 KiB are skipped for files of 32 MiB and
    /// more. False with --all-records (iozone -z, -A).
    pub skip_small_records: bool,
    /// Threads, each with its own file of every size (iozone -t); throughput is their sum.
    pub threads: u32,
    /// Records between two stride reads (iozone -j; 17 by default).
    pub stride: u64,
    /// The drop from the cached plateau that makes a knee, in percent.
    pub knee_drop_pct: f64,
    /// Bytes of the memory cgroup the sweep ran in, if any (--memory-limit).
    pub memory_limit: Option<u64>,
}

pub const SMALL_RECORD: u64 = 64 << 10;
pub const LARGE_FILE: u64 = 32 << 20;

impl Params {
    /// The (file size, record size) pairs measured, in the order they run.
    pub fn grid(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for &f in &self.file_sizes {
            for &r in &self.record_sizes {
                let skipped = self.skip_small_records && f >= LARGE_FILE && r < SMALL_RECORD;
                if r <= f && !skipped {
                    out.push((f, r));
                }
            }
        }
        out
    }

    /// Bytes the sweep reads and writes in all, untimed passes included: for the user's
    /// "how long will this take?" before it starts.
    pub fn total_bytes(&self) -> u128 {
        // Where the first test is not write, an untimed pass makes the file first.
        let making = u128::from(self.tests.first() != Some(&Test::Write));
        let passes = self.tests.len() as u128 + making;
        self.grid()
            .iter()
            .map(|&(f, _)| f as u128 * passes * self.threads as u128)
            .sum()
    }

    /// `flag` names the option the sizes came from, in the words of the front end.
    pub fn validate(&self, flags: &Flags) -> Result<()> {
        let bad = |m: String| Err(Error::usage(m));
        if self.file_sizes.is_empty() || self.file_sizes.contains(&0) {
            return bad(format!(
                "{} needs sizes of at least one byte",
                flags.file_sizes
            ));
        }
        if self.record_sizes.is_empty() || self.record_sizes.contains(&0) {
            return bad(format!(
                "{} needs sizes of at least one byte",
                flags.record_sizes
            ));
        }
        if self.tests.is_empty() {
            return bad(format!("{} names no test", flags.tests));
        }
        if self.threads == 0 || self.threads > 1024 {
            return bad(format!(
                "{} {} must be between 1 and 1024",
                flags.threads, self.threads
            ));
        }
        if self.stride == 0 {
            return bad("the stride must be at least one record".into());
        }
        if !(self.knee_drop_pct > 0.0 && self.knee_drop_pct < 100.0) {
            return bad(format!(
                "--knee-drop {} must be between 0 and 100 (percent)",
                self.knee_drop_pct
            ));
        }
        if let Some(m) = self
            .memory_limit
            .filter(|&m| m < crate::os::memcg::MIN_LIMIT)
        {
            return bad(format!(
                "--memory-limit {} is under the {} a process needs to run in",
                format_size(m),
                format_size(crate::os::memcg::MIN_LIMIT)
            ));
        }
        let every_record = Params {
            skip_small_records: false,
            ..self.clone()
        };
        if self.grid().is_empty() && !every_record.grid().is_empty() {
            return bad(format!(
                "no cell to measure: records under {} ({}) are skipped on files of {} and \
                 more ({}), as iozone's -a skips them; give {} to measure them",
                format_size(SMALL_RECORD),
                sizes(&self.record_sizes),
                format_size(LARGE_FILE),
                sizes(&self.file_sizes),
                flags.all_records
            ));
        }
        if self.grid().is_empty() {
            return bad(format!(
                "no record size ({}) fits in any file size ({}): each record must be no \
                 larger than its file",
                sizes(&self.record_sizes),
                sizes(&self.file_sizes)
            ));
        }
        if self.cache == CacheMode::Direct {
            self.check_direct(flags)?;
        }
        Ok(())
    }

    /// O_DIRECT moves whole logical blocks from aligned buffers: 4 KiB covers every device.
    fn check_direct(&self, flags: &Flags) -> Result<()> {
        let odd = |v: &[u64]| v.iter().copied().find(|s| s % 4096 != 0);
        if let Some(s) = odd(&self.record_sizes) {
            return Err(Error::usage(format!(
                "{} {}: with {} each record must be a multiple of 4 KiB",
                flags.record_sizes,
                format_size(s),
                flags.direct
            )));
        }
        if let Some(s) = odd(&self.file_sizes) {
            return Err(Error::usage(format!(
                "{} {}: with {} each file must be a multiple of 4 KiB",
                flags.file_sizes,
                format_size(s),
                flags.direct
            )));
        }
        Ok(())
    }
}

/// The names the front end gave each parameter, for its error messages.
pub struct Flags {
    pub file_sizes: &'static str,
    pub record_sizes: &'static str,
    pub tests: &'static str,
    pub threads: &'static str,
    pub direct: &'static str,
    /// What measures records under 64 KiB on files of 32 MiB and more.
    pub all_records: &'static str,
}

impl Flags {
    pub const NATIVE: Flags = Flags {
        file_sizes: "--file-sizes",
        record_sizes: "--record-sizes",
        tests: "--tests",
        threads: "--threads",
        direct: "--cache direct",
        all_records: "--all-records",
    };
    pub const IOZONE: Flags = Flags {
        file_sizes: "-s",
        record_sizes: "-r",
        tests: "-i",
        threads: "-t",
        direct: "-I",
        all_records: "-z",
    };
}

fn sizes(v: &[u64]) -> String {
    v.iter()
        .map(|&s| format_size(s))
        .collect::<Vec<_>>()
        .join(",")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    /// An error stopped it; `reason` says which.
    Failed,
    /// Ctrl-C, or an earlier failure, came first.
    NotRun,
}

/// One test at one file size and record size.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cell {
    pub test: Test,
    pub file_size: u64,
    pub record_size: u64,
    pub status: Status,
    pub reason: Option<String>,
    /// Bytes moved by all threads.
    pub bytes: u64,
    /// From the first thread's start to the last thread's end.
    pub elapsed_ns: u64,
    /// Each thread's own time, where more than one ran (iozone -t's per-process figures).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_ns: Vec<u64>,
    /// CPU time (user and system) the threads spent in the pass, summed (iozone -+u's CPU
    /// time); absent where the system does not say.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cpu_ns: u64,
}

impl Cell {
    /// Bytes per second; None where nothing was measured. A pass too short for the clock
    /// (0 ns) has no rate either: an infinite throughput is not a figure.
    pub fn bytes_per_sec(&self) -> Option<f64> {
        (self.status == Status::Ok && self.elapsed_ns > 0)
            .then(|| self.bytes as f64 * 1e9 / self.elapsed_ns as f64)
    }

    /// CPU time over the cell's time, in percent (over 100 where threads ran on several CPUs),
    /// as iozone -+u reports it; None where nothing was measured.
    pub fn cpu_pct(&self) -> Option<f64> {
        (self.status == Status::Ok && self.elapsed_ns > 0)
            .then(|| self.cpu_ns as f64 * 100.0 / self.elapsed_ns as f64)
    }

    /// Operations per second (records per second).
    pub fn ops_per_sec(&self) -> Option<f64> {
        self.bytes_per_sec()
            .map(|b| b / self.record_size.max(1) as f64)
    }
}

/// The memory cgroup a sweep ran in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MemoryCap {
    pub limit_bytes: u64,
    /// A cgroup (Linux; absent from the JSON) or the system file cache's cap (Windows).
    #[serde(default, skip_serializing_if = "CapKind::is_cgroup")]
    pub kind: CapKind,
    /// The cgroup's interface and folder; for the file cache, the call and what it restores.
    pub cgroup: String,
    /// The most the cgroup held at once (page cache included), where the kernel says.
    pub peak_bytes: Option<u64>,
}

impl MemoryCap {
    /// "ran in a memory cgroup of 64.0MiB (v1 /sys/...), at most 63.2MiB used".
    pub fn describe(&self) -> String {
        if self.kind == CapKind::FileCache {
            return format!(
                "ran with the system file cache capped at {} ({})",
                crate::units::format_size_human(self.limit_bytes),
                self.cgroup
            );
        }
        format!(
            "ran in a memory cgroup of {} ({}){}",
            crate::units::format_size_human(self.limit_bytes),
            self.cgroup,
            self.peak_bytes
                .map(|b| format!(", at most {} used", crate::units::format_size_human(b)))
                .unwrap_or_default()
        )
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SweepResult {
    /// Schema, versions, start, command line, system: the keys every kind opens with.
    #[serde(flatten)]
    pub header: Header,
    pub dir: String,
    pub target: TargetFacts,
    pub params: Params,
    pub memory_cap: Option<MemoryCap>,
    pub cells: Vec<Cell>,
    /// Derived from the cells (again on load).
    #[serde(default)]
    pub knees: Vec<knee::Knee>,
    /// The sweep's whole time; the part of it spent in read, write, fsync and close calls
    /// (timed passes and the untimed ones that make files); and the part spent making each
    /// cell's folder and removing it with its files (the file system's work; iozone unlinks
    /// its files too). The rest is iogauge's own.
    pub wall_ns: u64,
    pub io_ns: u64,
    #[serde(default)]
    pub cleanup_ns: u64,
    /// Under MPI, the part spent waiting for the other ranks (at each test's start, between
    /// cells, and while they sized their folders): theirs, not iogauge's. Absent alone.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rank_wait_ns: u64,
    /// Stopped by Ctrl-C or an error before the grid was done.
    pub partial: bool,
    pub notes: Vec<String>,
    /// The ranks of an MPI job whose results these are; absent for one process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<RankSpread>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl SweepResult {
    /// The cells of one test, in grid order.
    pub fn of(&self, test: Test) -> impl Iterator<Item = &Cell> {
        self.cells.iter().filter(move |c| c.test == test)
    }

    pub fn cell(&self, test: Test, file_size: u64, record_size: u64) -> Option<&Cell> {
        self.of(test)
            .find(|c| c.file_size == file_size && c.record_size == record_size)
    }

    /// The knees, found again from the cells.
    pub fn find_knees(&mut self) {
        self.knees = knee::all(self);
    }

    /// iogauge's own share of the wall time, in percent.
    pub fn overhead_pct(&self) -> f64 {
        if self.wall_ns == 0 {
            return 0.0;
        }
        let own = self
            .wall_ns
            .saturating_sub(self.io_ns + self.cleanup_ns + self.rank_wait_ns);
        own as f64 * 100.0 / self.wall_ns as f64
    }

    /// The share of the wall time spent waiting for the other ranks, in percent.
    pub fn rank_wait_pct(&self) -> f64 {
        if self.wall_ns == 0 {
            return 0.0;
        }
        self.rank_wait_ns as f64 * 100.0 / self.wall_ns as f64
    }

    /// The share of the wall time spent removing files between cells, in percent.
    pub fn cleanup_pct(&self) -> f64 {
        if self.wall_ns == 0 {
            return 0.0;
        }
        self.cleanup_ns as f64 * 100.0 / self.wall_ns as f64
    }

    pub fn failures(&self) -> Vec<String> {
        self.cells
            .iter()
            .filter(|c| c.status == Status::Failed)
            .map(|c| {
                format!(
                    "{} of a {} file in {} records: {}",
                    c.test.name(),
                    format_size(c.file_size),
                    format_size(c.record_size),
                    c.reason.as_deref().unwrap_or("failed")
                )
            })
            .collect()
    }
}
