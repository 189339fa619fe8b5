//! `Record`: what one command measured, as it is saved, listed, compared and reported. A
//! `run` gives one pass; a profile gives one pass per workload. Everything that reads saved
//! results (show, compare, check, report) goes through this type, so a profile and a single
//! run are handled the same way.

use crate::error::{Error, Result};
use crate::result::fs::FsResult;
use crate::result::profile::ProfileResult;
use crate::result::sweep::SweepResult;
use crate::result::workload::WorkloadResult;
use crate::result::{Header, RunResult};
use crate::spec::{JobSpec, Pattern};
use crate::units::format_size;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Record {
    Run(Box<RunResult>),
    Profile(Box<ProfileResult>),
    Fs(Box<FsResult>),
    Sweep(Box<SweepResult>),
    Workload(Box<WorkloadResult>),
}

/// One measured workload of a record.
pub struct Pass<'a> {
    pub label: String,
    pub result: &'a RunResult,
}

impl Record {
    /// Read a JSON document written by `--output json` (here or on another machine).
    /// `source` names it in errors.
    pub fn from_json(text: &str, source: &str) -> Result<Record> {
        let bad = |e: String| Error::usage(format!("'{source}' is not an iogauge result: {e}"));
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("invalid JSON ({e})")))?;
        let schema = v.get("schema").and_then(|s| s.as_str()).unwrap_or("");
        let version = v
            .get("schema_version")
            .and_then(|s| s.as_u64())
            .unwrap_or(0);
        let known = match schema {
            crate::result::SCHEMA_NAME => crate::result::SCHEMA_VERSION,
            crate::result::profile::SCHEMA_NAME => crate::result::profile::SCHEMA_VERSION,
            crate::result::fs::SCHEMA_NAME => crate::result::fs::SCHEMA_VERSION,
            crate::result::sweep::SCHEMA_NAME => crate::result::sweep::SCHEMA_VERSION,
            crate::result::workload::SCHEMA_NAME => crate::result::workload::SCHEMA_VERSION,
            "" => return Err(bad("no \"schema\" field".into())),
            other => return Err(bad(format!("its schema is '{other}'"))),
        };
        if version as u32 > known {
            return Err(bad(format!(
                "schema version {version} is newer than this iogauge reads ({known})"
            )));
        }
        let r = match schema {
            crate::result::SCHEMA_NAME => serde_json::from_value(v).map(|mut r: RunResult| {
                r.add_phases();
                Record::Run(Box::new(r))
            }),
            crate::result::fs::SCHEMA_NAME => serde_json::from_value(v).map(|mut r: FsResult| {
                // The figures are derived; what counts is every repetition's time.
                r.summarize();
                Record::Fs(Box::new(r))
            }),
            crate::result::sweep::SCHEMA_NAME => {
                serde_json::from_value(v).map(|mut r: SweepResult| {
                    // Knees are derived from the cells, by this version's rule.
                    r.find_knees();
                    Record::Sweep(Box::new(r))
                })
            }
            crate::result::workload::SCHEMA_NAME => {
                serde_json::from_value(v).map(|mut r: WorkloadResult| {
                    // Summaries and ratios are derived from the repetitions.
                    r.summarize();
                    Record::Workload(Box::new(r))
                })
            }
            _ => serde_json::from_value(v).map(|mut r: ProfileResult| {
                r.passes.iter_mut().for_each(|p| p.result.add_phases());
                Record::Profile(Box::new(r))
            }),
        };
        r.map_err(|e| bad(e.to_string()))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("results serialize") + "\n"
    }

    /// One line: the smallest form, for writing where space ran out.
    pub fn to_json_compact(&self) -> String {
        serde_json::to_string(self).expect("results serialize") + "\n"
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Record::Run(_) => "run",
            Record::Profile(_) => "profile",
            Record::Fs(_) => "fs",
            Record::Sweep(_) => "sweep",
            Record::Workload(_) => "workload",
        }
    }

    /// The profile's name, or "run".
    pub fn name(&self) -> &str {
        match self {
            Record::Run(_) => "run",
            Record::Profile(p) => &p.profile,
            Record::Fs(_) => "fs",
            Record::Sweep(_) => "sweep",
            Record::Workload(w) => &w.params.workload,
        }
    }

    pub fn passes(&self) -> Vec<Pass<'_>> {
        match self {
            Record::Run(r) => vec![Pass {
                label: describe(&r.job),
                result: r,
            }],
            Record::Profile(p) => p
                .passes
                .iter()
                .map(|x| Pass {
                    label: x.label.clone(),
                    result: &x.result,
                })
                .collect(),
            // The suite's figures are times per test, not workloads: see FsResult.
            Record::Fs(_) => Vec::new(),
            // Nor are a sweep's: one pass per cell, thousands of them (see SweepResult).
            Record::Sweep(_) => Vec::new(),
            // Nor a workload's: times of whole steps (see WorkloadResult).
            Record::Workload(_) => Vec::new(),
        }
    }

    /// Where it ran: the targets of a run, the folder of a profile.
    pub fn target(&self) -> String {
        match self {
            Record::Run(r) => r
                .targets
                .iter()
                .map(|t| t.path.clone())
                .collect::<Vec<_>>()
                .join(" "),
            Record::Profile(p) => p.dir.clone(),
            Record::Fs(f) => f
                .filesystems
                .iter()
                .map(|t| t.dir.clone())
                .collect::<Vec<_>>()
                .join(" "),
            Record::Sweep(s) => s.dir.clone(),
            Record::Workload(w) => match &w.target {
                Some(t) => format!("{} -> {}", w.source.path, t.path),
                None => w.source.path.clone(),
            },
        }
    }

    pub fn partial(&self) -> bool {
        match self {
            Record::Run(r) => r.partial,
            Record::Profile(p) => p.partial,
            Record::Fs(f) => f.partial,
            Record::Sweep(s) => s.partial,
            Record::Workload(w) => w.partial,
        }
    }

    fn first(&self) -> Option<&RunResult> {
        match self {
            Record::Run(r) => Some(r),
            Record::Profile(p) => p.passes.first().map(|x| &x.result),
            Record::Fs(_) | Record::Sweep(_) | Record::Workload(_) => None,
        }
    }

    /// The shared header, of the kinds that have one ([`Header`]).
    pub fn header(&self) -> Option<&Header> {
        match self {
            Record::Fs(f) => Some(&f.header),
            Record::Sweep(s) => Some(&s.header),
            Record::Workload(w) => Some(&w.header),
            Record::Profile(p) => Some(&p.header).filter(|h| h.is_whole()),
            Record::Run(_) => None,
        }
    }

    pub fn started_unix_ns(&self) -> u64 {
        match self.header() {
            Some(h) => h.started_unix_ns,
            None => self.first().map(|r| r.header.started_unix_ns).unwrap_or(0),
        }
    }

    pub fn hostname(&self) -> String {
        match self.header() {
            Some(h) => h.system.hostname.clone(),
            None => self
                .first()
                .map(|r| r.header.system.hostname.clone())
                .unwrap_or_default(),
        }
    }

    pub fn tool_version(&self) -> String {
        match self.header() {
            Some(h) => h.tool_version.clone(),
            None => self
                .first()
                .map(|r| r.header.tool_version.clone())
                .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_string()),
        }
    }

    /// The command that reproduces the record.
    pub fn command_line(&self) -> String {
        // A profile's own words reproduce it (its header holds what started it, maybe a
        // `check`).
        if let (Some(h), false) = (self.header(), matches!(self, Record::Profile(_))) {
            return h.command_line.join(" ");
        }
        match self {
            Record::Run(r) => r.header.command_line.join(" "),
            Record::Fs(_) | Record::Sweep(_) | Record::Workload(_) => unreachable!("has a header"),
            Record::Profile(p) => {
                let mut c = format!("iogauge profile {} {}", p.profile, p.dir);
                c.push_str(&format!(
                    " --size {} -d {}",
                    format_size(p.params.size),
                    p.params.seconds
                ));
                if let Some(cache) = &p.params.cache {
                    c.push_str(&format!(" --cache {cache}"));
                }
                c
            }
        }
    }

    /// Identifies "the same workload on the same machine and target": runs with equal keys
    /// are repeats of each other, whose spread is the run-to-run noise `compare` judges by.
    pub fn workload_key(&self) -> String {
        let what = match self {
            Record::Run(r) => {
                // The seed and the bookkeeping flags do not change what is measured.
                let mut job: JobSpec = r.job.clone();
                job.seed = 0;
                job.keep = false;
                job.allow_overwrite = false;
                serde_json::to_string(&job).expect("jobs serialize")
            }
            Record::Profile(p) => {
                let mut params = p.params.clone();
                params.memory_bytes = 0;
                format!(
                    "{}\0{}\0{}",
                    p.profile,
                    p.dir,
                    serde_json::to_string(&params).expect("params serialize")
                )
            }
            Record::Fs(f) => format!(
                "{}\0{}",
                self.target(),
                serde_json::to_string(&f.params).expect("params serialize")
            ),
            Record::Sweep(s) => format!(
                "{}\0{}",
                s.dir,
                serde_json::to_string(&s.params).expect("params serialize")
            ),
            Record::Workload(w) => format!(
                "{}\0{}",
                self.target(),
                serde_json::to_string(&w.params).expect("params serialize")
            ),
        };
        format!(
            "{:016x}",
            fnv1a(format!("{}\0{}\0{}", self.hostname(), self.kind(), what).as_bytes())
        )
    }
}

/// FNV-1a, 64 bits: a stable hash (unlike std's, which is seeded per process).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A short name for a job, in the profiles' style: "RND4K Q32T4 read", "SEQ1M Q8T1 write",
/// "RND8K Q16T4 70/30"; "filestat 200 files T1" for the file-operation engines.
pub fn describe(job: &JobSpec) -> String {
    // Operations on names: "filecreate 1000 files T4".
    if let Some(e) = job.engine.kind.filter(|e| e.is_file_op()) {
        return format!(
            "{} {} files T{}",
            e.name(),
            job.targets.len(),
            job.total_threads()
        );
    }
    let pattern = match job.shape.pattern {
        Pattern::Random { .. } => "RND",
        Pattern::Sequential { .. } => "SEQ",
    };
    let mix = match job.shape.write_pct {
        0 => "read".to_string(),
        100 => "write".to_string(),
        w => format!("{}/{}", 100 - w, w),
    };
    // A block-size mix shows as its largest size with a "~": RND~64K.
    let sizes = format_size(job.shape.block_size).replace("iB", "");
    let sizes = if job.shape.block_mix.is_some() {
        format!("~{sizes}")
    } else {
        sizes
    };
    format!(
        "{pattern}{sizes} Q{}T{} {mix}",
        job.queue_depth,
        job.total_threads()
    )
}
