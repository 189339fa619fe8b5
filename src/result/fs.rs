//! The file-system suite's result ([`crate::fs_suite`]): every repetition's time of every
//! test on every file system, and the figures derived from them. Described by
//! `schema/fs-result.schema.json`.

use super::ranks::RankSpread;
use super::Header;
use crate::error::{Error, Result};
use crate::facts::TargetFacts;
use crate::os::cache::CacheDrop;
use crate::stats::reps;
use serde::{Deserialize, Serialize};

pub const SCHEMA_NAME: &str = "iogauge-fs-result";
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// Operations on names: create, open, list, rename, delete.
    Metadata,
    /// Reading and writing file data: cached, O_DIRECT, mapped, fsync.
    PageIo,
}

impl Group {
    pub fn title(self) -> &'static str {
        match self {
            Group::Metadata => "File tests",
            Group::PageIo => "Read/write tests",
        }
    }
}

/// The suite's parameters, as saved with the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    pub files: u64,
    /// Bytes of the page I/O tests' file.
    pub file_size: u64,
    pub iterations: u64,
    pub threads: u32,
    pub repeat: u32,
    /// The tests run, by name.
    pub tests: Vec<String>,
    /// Whether caches were to be dropped before each measurement.
    pub drop_caches: bool,
    /// Bytes per page I/O call.
    pub page_size: u64,
}

impl Params {
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::usage(m));
        if self.files == 0 {
            return bad("--files must be at least 1".into());
        }
        if self.files > 100_000_000 {
            return bad(format!(
                "--files {} is over the limit of 100000000",
                self.files
            ));
        }
        if self.iterations == 0 {
            return bad("--iterations must be at least 1".into());
        }
        if self.repeat == 0 || self.repeat > 1000 {
            return bad(format!(
                "--repeat {} must be between 1 and 1000",
                self.repeat
            ));
        }
        if self.threads == 0 || self.threads > 1024 {
            return bad(format!(
                "--threads {} must be between 1 and 1024",
                self.threads
            ));
        }
        if self.page_size == 0 {
            return bad("the page size must be more than 0".into());
        }
        if self.file_size < self.page_size || !self.file_size.is_multiple_of(self.page_size) {
            return bad(format!(
                "--file-size {} must be a whole number of pages ({} bytes)",
                self.file_size, self.page_size
            ));
        }
        Ok(())
    }
}

/// One file system as tested.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FsTarget {
    pub label: String,
    pub dir: String,
    pub facts: TargetFacts,
    /// Why O_DIRECT cannot be used here; null where it can. Without it the rdwr_nc tests are
    /// reported as not supported.
    pub direct_io_refused: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Every repetition ran.
    Ok,
    /// The file system cannot do it (O_DIRECT refused): not a failure.
    NotSupported,
    /// An error stopped it; `reason` says which.
    Failed,
    /// Ctrl-C came before it finished.
    NotRun,
}

/// One test on one file system.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cell {
    pub status: Status,
    pub reason: Option<String>,
    /// Operations per repetition.
    pub ops: u64,
    /// Elapsed time of every repetition that finished, in order.
    pub elapsed_ns: Vec<u64>,
    /// Figures derived from `elapsed_ns`; null when no repetition finished.
    pub summary: Option<Summary>,
}

/// What the report shows for a cell, all derived from `ops` and `elapsed_ns`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    /// The least disturbed repetition: the headline time.
    pub min_ns: u64,
    pub median_ns: u64,
    pub max_ns: u64,
    /// (max - min) / median, in percent.
    pub spread_pct: f64,
    /// Operations per second in the fastest repetition.
    pub ops_per_s: f64,
    /// min_ns over the reference's min_ns (the reference is 1.00; lower is faster); null
    /// where the reference has no time for this test.
    pub ratio: Option<f64>,
    /// The same for the medians.
    pub median_ratio: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TestResult {
    pub name: String,
    pub group: Group,
    pub about: String,
    /// One per file system, in the order of `filesystems`.
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FsResult {
    /// Schema, versions, start, command line, system: the keys every kind opens with.
    #[serde(flatten)]
    pub header: Header,
    pub params: Params,
    pub cache_drop: CacheDrop,
    /// Index into `filesystems` of the reference.
    pub reference: usize,
    pub filesystems: Vec<FsTarget>,
    pub tests: Vec<TestResult>,
    /// Stopped by Ctrl-C: some cells have fewer repetitions or none.
    pub partial: bool,
    pub notes: Vec<String>,
    /// The ranks of an MPI job whose results these are; absent for one process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<RankSpread>,
}

impl FsResult {
    /// Fill every cell's summary from its repetitions (again, after a load or an edit).
    pub fn summarize(&mut self) {
        let r = self.reference;
        for t in &mut self.tests {
            for c in &mut t.cells {
                c.summary = summary_of(c.ops, &c.elapsed_ns);
            }
            let (ref_min, ref_med) = match t.cells.get(r).and_then(|c| c.summary.as_ref()) {
                Some(s) => (Some(s.min_ns), Some(s.median_ns)),
                None => (None, None),
            };
            for c in &mut t.cells {
                if let Some(s) = &mut c.summary {
                    s.ratio = ref_min
                        .filter(|v| *v > 0)
                        .map(|v| s.min_ns as f64 / v as f64);
                    s.median_ratio = ref_med
                        .filter(|v| *v > 0)
                        .map(|v| s.median_ns as f64 / v as f64);
                }
            }
        }
    }

    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.tests {
            for (c, fs) in t.cells.iter().zip(&self.filesystems) {
                if c.status == Status::Failed {
                    out.push(format!(
                        "{} on {}: {}",
                        t.name,
                        fs.label,
                        c.reason.as_deref().unwrap_or("failed")
                    ));
                }
            }
        }
        out
    }
}

fn summary_of(ops: u64, times: &[u64]) -> Option<Summary> {
    let r = reps::repeated(times)?;
    Some(Summary {
        min_ns: r.min_ns,
        median_ns: r.median_ns,
        max_ns: r.max_ns,
        spread_pct: r.spread_pct,
        ops_per_s: if r.min_ns > 0 {
            ops as f64 * 1e9 / r.min_ns as f64
        } else {
            0.0
        },
        ratio: None,
        median_ratio: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_min_median_spread_and_ratio() {
        let s = summary_of(1000, &[300, 100, 200, 400]).unwrap();
        assert_eq!((s.min_ns, s.median_ns, s.max_ns), (100, 250, 400));
        assert!((s.spread_pct - 120.0).abs() < 1e-9);
        assert!((s.ops_per_s - 1e10).abs() < 1.0);
        assert!(summary_of(1, &[]).is_none());
    }
}
