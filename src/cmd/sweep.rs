//! `iogauge sweep`: flags to a sweep's parameters; and what `sweep` and `iozone` share: the
//! memory cgroup, the progress line, the report, saving.

use iogauge::cli::{SaveOpts, SweepArgs};
use iogauge::cluster::Place;
use iogauge::context::ranks::{Gathered, Opened};
use iogauge::context::Context;
use iogauge::error::{Error, Result};
use iogauge::report::{Exporter, Subject};
use iogauge::sweep::{self, CacheMode, Flags, Params, Sweep, SweepResult};
use std::path::{Path, PathBuf};

pub fn cmd_sweep(db: &Option<PathBuf>, a: &SweepArgs, argv: Vec<String>) -> Result<u8> {
    let exporter = Subject::Sweep.exporter::<SweepResult>(a.out.output)?;
    let sizes = |text: &str, flag: &str| {
        sweep::parse_sizes(text)
            .map_err(|e| Error::usage(format!("invalid value '{text}' for {flag}: {e}")))
    };
    let memory = iogauge::facts::memory_bytes().unwrap_or(1 << 30);
    let file_sizes = match &a.file_sizes {
        Some(t) => sizes(t, "--file-sizes")?,
        None => sweep::default_file_sizes(memory),
    };
    let memory_limit = super::memory_limit(a.memory_limit.as_deref())?;
    let params = Params {
        file_sizes,
        record_sizes: sizes(&a.record_sizes, "--record-sizes")?,
        tests: sweep::select_tests(&a.tests)?,
        cache: match a.cache.as_str() {
            "buffered" => CacheMode::Buffered,
            "direct" => CacheMode::Direct,
            other => {
                return Err(Error::usage(format!(
                    "invalid value '{other}' for --cache: buffered or direct"
                )))
            }
        },
        include_flush: a.include_flush,
        include_close: a.include_close,
        sync_writes: a.sync,
        skip_small_records: !a.all_records,
        threads: a.threads,
        stride: a.stride,
        knee_drop_pct: a.knee_drop,
        memory_limit,
    };
    params.validate(&Flags::NATIVE)?;
    let how = How {
        exporter,
        output_file: &a.out.output_file,
        quiet: a.out.quiet,
        save: &a.save,
        notes: Vec::new(),
        keep_files: false,
    };
    run_and_report(db, &a.dir, &params, argv, how, &mut |_| Ok(()))
}

/// How a sweep's result is reported and kept.
pub struct How<'a> {
    pub exporter: Box<dyn Exporter<SweepResult>>,
    pub output_file: &'a str,
    pub quiet: bool,
    pub save: &'a SaveOpts,
    /// What the front end did differently from the tool it reads, for the report's notes.
    pub notes: Vec<String>,
    /// Leave the last cell's files in place (iozone -w).
    pub keep_files: bool,
}

/// Run the sweep in `dir` (inside a memory cgroup where asked), write the report, save it;
/// `extra` writes what a front end adds (iozone's own report). Under an MPI launcher every
/// rank sweeps in its own folder inside `dir` (or in the folder `{rank}` in `dir` names) and
/// rank 0 reports and saves the sweep of them all.
pub fn run_and_report(
    db: &Option<PathBuf>,
    dir: &Path,
    params: &Params,
    argv: Vec<String>,
    how: How,
    extra: &mut dyn FnMut(&SweepResult) -> Result<()>,
) -> Result<u8> {
    let outputs = super::outputs(db, how.output_file, how.quiet, how.save);
    let (mut ctx, dir) = match Context::open_ranked(outputs, |rank| rank_dir(dir, params, rank))? {
        Opened::Ready(ctx, dir) => (ctx, dir),
        Opened::Ended(code) => return Ok(code),
    };
    // A person at a terminal learns how big the grid is; a script's stderr stays quiet.
    ctx.announce(&format!("sweep: {}", plan_line(params)));
    let sweep = Sweep {
        dir,
        params: params.clone(),
        notes: how.notes,
        keep_files: how.keep_files,
    };
    let result = match ctx.run_suite(&sweep, argv)? {
        Gathered::Root(r) => r,
        Gathered::Ended(code) => return Ok(code),
    };
    ctx.report(&result, how.exporter.as_ref())?;
    extra(&result)?;
    ctx.save_and_end(result)
}

/// The folder this rank sweeps in: `dir` with its placeholders filled in. A memory cgroup
/// is one process's: under mpirun it is refused (the launcher limits each rank's memory).
fn rank_dir(dir: &Path, params: &Params, rank: Option<&Place>) -> Result<PathBuf> {
    if rank.is_some() && params.memory_limit.is_some() {
        return Err(Error::usage(
            "--memory-limit is for one process; under mpirun, limit each rank's page cache with \
             the launcher's own means (Slurm's --mem)",
        ));
    }
    Ok(iogauge::cluster::expand_here(&dir.to_string_lossy(), rank)?.into())
}

/// "13 file sizes x 6 record sizes, 9 tests: 58 cells, about 12.4 GiB of I/O".
fn plan_line(p: &Params) -> String {
    let cells = p.grid().len() * p.tests.len();
    let bytes = p.total_bytes().min(u64::MAX as u128) as u64;
    format!(
        "{} file sizes x {} record sizes, {} tests: {cells} cells, about {} of reads and writes",
        p.file_sizes.len(),
        p.record_sizes.len(),
        p.tests.len(),
        iogauge::units::format_size_human(bytes)
    )
}
