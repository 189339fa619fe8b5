//! Named profiles: a few passes of `iogauge run` that answer one question each (how fast is
//! this disk; what latency does it give; when does its burst end). A pass is written as the
//! `iogauge run` flags a user would type, and goes through the same parser and validation as
//! those flags, so a profile cannot mean anything a command line could not.

use crate::error::{Error, Result};
// The result's types live with the other results; re-exported for the command line.
use crate::os::owned::Cleanup;
pub use crate::result::profile::{
    Measure, Params, PassResult, ProfileResult, SCHEMA_NAME, SCHEMA_VERSION,
};
use crate::result::{Header, StopReason};
use crate::runner::{self, Observer};
use crate::spec::native::job_from_argv;
use crate::spec::JobSpec;
use crate::units::format_size_human;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

#[derive(Debug, Clone)]
pub struct Pass {
    pub label: String,
    pub measure: Measure,
    /// `iogauge run` flags, without the target and its size.
    pub args: Vec<String>,
}

impl Pass {
    /// Whether the pass names its own caching mode (which a profile's --cache leaves alone).
    pub fn sets_cache(&self) -> bool {
        self.args.iter().any(|a| a == "--cache")
    }
}

pub struct Profile {
    pub name: &'static str,
    pub summary: &'static str,
    /// Seconds per pass unless -d is given.
    pub default_seconds: f64,
    /// The test file's size unless --size is given, from the machine's memory.
    pub default_size: fn(u64) -> u64,
    passes: fn(&Params) -> Vec<Pass>,
}

const GIB: u64 = 1 << 30;

fn one_gib(_memory_bytes: u64) -> u64 {
    GIB
}

/// Larger than memory, so that part of the file cannot be cached.
fn beyond_memory(memory_bytes: u64) -> u64 {
    (memory_bytes + memory_bytes / 4).div_ceil(GIB) * GIB
}

impl Profile {
    pub fn passes(&self, p: &Params) -> Vec<Pass> {
        (self.passes)(p)
    }
}

fn pass(label: &str, measure: Measure, flags: &str, p: &Params) -> Pass {
    let mut args: Vec<String> = flags.split_whitespace().map(String::from).collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let (stop_given, warmup_given, cache_given) =
        (has("-d") || has("--total"), has("-W"), has("--cache"));
    if !stop_given {
        args.extend(["-d".into(), secs(p.seconds)]);
    }
    if !warmup_given {
        args.extend(["-W".into(), "1".into()]);
    }
    if let (Some(c), false) = (&p.cache, cache_given) {
        args.extend(["--cache".into(), c.clone()]);
    }
    Pass {
        label: label.into(),
        measure,
        args,
    }
}

fn secs(s: f64) -> String {
    if s.fract() == 0.0 {
        format!("{}", s as u64)
    } else {
        format!("{s}")
    }
}

use Measure::*;

fn quick(p: &Params) -> Vec<Pass> {
    vec![
        pass("SEQ1M Q8T1 read", Throughput, "-b 1M -s -o 8 -t 1 -w 0", p),
        pass(
            "SEQ1M Q8T1 write",
            Throughput,
            "-b 1M -s -o 8 -t 1 -w 100",
            p,
        ),
        pass("RND4K Q32T4 read", Iops, "-b 4k -r -o 32 -t 4 -w 0", p),
        pass("RND4K Q32T4 write", Iops, "-b 4k -r -o 32 -t 4 -w 100", p),
        pass("RND4K Q1T1 read", Latency, "-b 4k -r -o 1 -t 1 -w 0 -L", p),
        pass(
            "RND4K Q1T1 write",
            Latency,
            "-b 4k -r -o 1 -t 1 -w 100 -L",
            p,
        ),
    ]
}

fn iops(p: &Params) -> Vec<Pass> {
    vec![
        pass("RND4K Q32T4 read", Iops, "-b 4k -r -o 32 -t 4 -w 0", p),
        pass("RND4K Q32T4 write", Iops, "-b 4k -r -o 32 -t 4 -w 100", p),
        pass("RND4K Q32T4 70/30", Iops, "-b 4k -r -o 32 -t 4 -w 30", p),
    ]
}

fn latency(p: &Params) -> Vec<Pass> {
    vec![
        pass("RND4K Q1T1 read", Latency, "-b 4k -r -o 1 -t 1 -w 0 -L", p),
        pass(
            "RND4K Q1T1 write",
            Latency,
            "-b 4k -r -o 1 -t 1 -w 100 -L",
            p,
        ),
        pass(
            "RND4K Q1T1 70/30",
            Latency,
            "-b 4k -r -o 1 -t 1 -w 30 -L",
            p,
        ),
    ]
}

fn throughput(p: &Params) -> Vec<Pass> {
    vec![
        pass("SEQ1M Q8T1 read", Throughput, "-b 1M -s -o 8 -t 1 -w 0", p),
        pass(
            "SEQ1M Q8T1 write",
            Throughput,
            "-b 1M -s -o 8 -t 1 -w 100",
            p,
        ),
        pass(
            "SEQ128K Q32T1 read",
            Throughput,
            "-b 128k -s -o 32 -t 1 -w 0",
            p,
        ),
        pass(
            "SEQ128K Q32T1 write",
            Throughput,
            "-b 128k -s -o 32 -t 1 -w 100",
            p,
        ),
    ]
}

fn database(p: &Params) -> Vec<Pass> {
    vec![
        pass("RND8K Q16T4 70/30", Iops, "-b 8k -r -o 16 -t 4 -w 30", p),
        pass(
            "RND8K Q1T1 70/30",
            Latency,
            "-b 8k -r -o 1 -t 1 -w 30 -L",
            p,
        ),
    ]
}

fn fileserver(p: &Params) -> Vec<Pass> {
    vec![
        pass("RND64K Q16T4 80/20", Iops, "-b 64k -r -o 16 -t 4 -w 20", p),
        pass(
            "RND64K Q1T1 80/20",
            Latency,
            "-b 64k -r -o 1 -t 1 -w 20 -L",
            p,
        ),
    ]
}

fn burst(p: &Params) -> Vec<Pass> {
    let flags = format!(
        "-b 1M -s -o 8 -t 1 -w 100 -d {} -W 0 --until-steady={}",
        secs(p.seconds),
        secs(p.steady_window_s)
    );
    vec![pass("SEQ1M Q8T1 write until steady", Throughput, &flags, p)]
}

fn cache(p: &Params) -> Vec<Pass> {
    // A working set a quarter of memory (or of the file, if smaller) fits in the page cache;
    // the whole file, larger than memory, does not.
    let fits = (p.memory_bytes / 4).min(p.size / 4).max(1 << 20) >> 20 << 20;
    let fits_s = crate::spec::export::tool_size(fits);
    vec![
        pass(
            &format!("SEQ1M read of {}: fill the cache", format_size_human(fits)),
            Throughput,
            &format!("-b 1M -s -o 8 -t 1 --cache buffered -f {fits_s} --total {fits_s} -W 0"),
            p,
        ),
        pass(
            &format!(
                "RND4K Q32T1 read, {} (fits in memory)",
                format_size_human(fits)
            ),
            Iops,
            &format!("-b 4k -r -o 32 -t 1 --cache buffered -f {fits_s}"),
            p,
        ),
        pass(
            &format!(
                "RND4K Q32T1 read, {} (the whole file)",
                format_size_human(p.size)
            ),
            Iops,
            "-b 4k -r -o 32 -t 1 --cache buffered",
            p,
        ),
    ]
}

pub const PROFILES: &[Profile] = &[
    Profile {
        name: "quick",
        summary: "the default: sequential 1M QD8 read and write, random 4K QD32 x 4 threads read and write (IOPS), random 4K QD1 read and write latency (p50/p99/p99.9)",
        default_seconds: 5.0,
        default_size: one_gib,
        passes: quick,
    },
    Profile {
        name: "iops",
        summary: "random 4K at QD32 x 4 threads: read, write, and 70/30 read/write, in IOPS mode",
        default_seconds: 10.0,
        default_size: one_gib,
        passes: iops,
    },
    Profile {
        name: "latency",
        summary: "random 4K at QD1, one thread: read, write and 70/30, every I/O timed",
        default_seconds: 10.0,
        default_size: one_gib,
        passes: latency,
    },
    Profile {
        name: "throughput",
        summary: "sequential 1M QD8 and 128K QD32 read and write, one thread",
        default_seconds: 10.0,
        default_size: one_gib,
        passes: throughput,
    },
    Profile {
        name: "database",
        summary: "8K random, 70% reads: IOPS at QD16 x 4 threads, then latency at QD1",
        default_seconds: 10.0,
        default_size: one_gib,
        passes: database,
    },
    Profile {
        name: "fileserver",
        summary: "64K random, 80% reads: IOPS at QD16 x 4 threads, then latency at QD1",
        default_seconds: 10.0,
        default_size: one_gib,
        passes: fileserver,
    },
    Profile {
        name: "burst",
        summary: "sequential 1M write until throughput has fallen 30% below a burst and the level after it has held for a window (default 60 s); -d is the maximum (default 1800 s). Reports how long the burst lasted, both levels and their ratio",
        default_seconds: 1800.0,
        default_size: one_gib,
        passes: burst,
    },
    Profile {
        name: "cache",
        summary: "buffered random 4K reads of a working set that fits in memory (read once first), then of a file larger than memory (default size: 1.25 x memory)",
        default_seconds: 10.0,
        default_size: beyond_memory,
        passes: cache,
    },
];

pub fn find(name: &str) -> Result<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        Error::usage(format!(
            "unknown profile '{name}': expected one of {}",
            names.join(", ")
        ))
    })
}

/// The full `iogauge run` arguments of a pass on `target` of `size`.
pub fn run_args(pass: &Pass, target: &Path, size: u64) -> Vec<String> {
    let mut a = vec!["iogauge".to_string(), "run".to_string()];
    a.extend(pass.args.iter().cloned());
    a.extend([
        "-c".to_string(),
        crate::spec::export::tool_size(size),
        target.display().to_string(),
    ]);
    a
}

/// Run every pass of `profile` on a temporary file in `dir`, created by the first pass and
/// removed at the end (also on error or Ctrl-C). A failed or interrupted pass ends the profile;
/// the passes done so far are kept.
/// `command_line` is the user's, kept in the result's header (each pass keeps its own `iogauge
/// run` line).
pub fn run(
    profile: &'static Profile,
    (params, command_line): (&Params, Vec<String>),
    dir: &Path,
    interrupted: &AtomicBool,
    observer: &mut dyn Observer,
) -> Result<(ProfileResult, Option<Error>)> {
    let started_unix_ns = crate::dates::now_unix_ns();
    if !dir.is_dir() {
        return Err(Error::usage(format!("'{}' is not a folder", dir.display())));
    }
    let target: PathBuf = dir.join(format!("iogauge-{}.tmp", std::process::id()));
    let passes = profile.passes(params);
    let jobs: Vec<(Vec<String>, JobSpec)> = passes
        .iter()
        .map(|p| {
            let args = run_args(p, &target, params.size);
            job_from_argv(&args).map(|j| (args, j))
        })
        .collect::<Result<_>>()?;
    let mut cleanup = Cleanup::new(false);
    let mut out = ProfileResult {
        header: Header::new(SCHEMA_NAME, SCHEMA_VERSION, started_unix_ns, command_line),
        profile: profile.name.into(),
        dir: dir.display().to_string(),
        params: params.clone(),
        target: target.display().to_string(),
        size_bytes: params.size,
        partial: false,
        stop_message: None,
        passes: Vec::new(),
    };
    let mut failure = None;
    for (i, (p, (args, mut job))) in passes.iter().zip(jobs).enumerate() {
        // The first pass created the file: the later ones may write to it.
        job.allow_overwrite = i > 0;
        observer.begin(&p.label, i + 1, passes.len());
        let r = runner::run_observed(&job, args.clone(), interrupted, &mut cleanup, observer);
        observer.end();
        match r {
            Ok(result) => {
                let stop = result.stop_reason;
                let msg = result.stop_message.clone();
                out.passes.push(PassResult {
                    label: p.label.clone(),
                    measure: p.measure,
                    command: args.join(" "),
                    result,
                });
                if stop != StopReason::Completed {
                    out.partial = true;
                    out.stop_message = msg;
                    break;
                }
            }
            Err(e) => {
                out.partial = true;
                out.stop_message = Some(e.to_string());
                failure = Some(e);
                break;
            }
        }
    }
    Ok((out, failure))
}
