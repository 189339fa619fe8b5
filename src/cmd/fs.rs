//! `iogauge fs`: flags to the suite's parameters, then run, report and save; under an MPI
//! launcher, run by every rank in its own folder and reported by rank 0 as one.

use super::interrupt_flag;
use iogauge::cli::FsArgs;
use iogauge::cluster::{self, team, Cluster};
use iogauge::context::Context;
use iogauge::error::{exit, Error, Result};
use iogauge::fs_suite::{self, FsResult, Params, Suite};
use iogauge::report::Subject;
use iogauge::units::parse_size;
use std::path::PathBuf;

/// The suite as the flags ask for it.
fn suite(a: &FsArgs) -> Result<Suite> {
    let tests = fs_suite::select_tests(&a.tests)?;
    let file_size = parse_size(&a.file_size).map_err(|e| {
        Error::usage(format!(
            "invalid value '{}' for --file-size: {e}",
            a.file_size
        ))
    })?;
    let params = Params {
        files: a.files,
        file_size,
        iterations: a.iterations,
        threads: a.threads,
        repeat: a.repeat,
        tests: tests.iter().map(|t| t.name().to_string()).collect(),
        drop_caches: !a.no_drop_caches,
        page_size: iogauge::os::page_size(),
    };
    params.validate()?;
    let targets = fs_suite::targets(&a.dirs)?;
    let reference = fs_suite::reference_of(&targets, a.reference.as_deref())?;
    Ok(Suite {
        tests,
        params,
        targets,
        reference,
    })
}

pub fn cmd_fs(db: &Option<PathBuf>, a: &FsArgs, argv: Vec<String>) -> Result<u8> {
    let cluster = cluster::detect()?;
    let team = (cluster.place().size > 1).then_some(cluster.as_ref());
    let root = cluster.place().is_root();
    let interrupted = interrupt_flag()?;
    // The same flags on every rank, but each sees its own folders: no rank goes on unless all
    // can, and rank 0 says what stopped which.
    let checked = Subject::Fs
        .exporter::<FsResult>(a.out.output)
        .and_then(|e| Ok((e, suite(a)?)));
    let (exporter, s) = match team {
        Some(c) => match team::agree(c, checked, &interrupted) {
            Ok(checked) => checked,
            Err(code) => return Ok(code),
        },
        None => checked?,
    };
    // Rank 0 alone reports and saves: it opens the output file and the store before anything
    // is measured, and a failure there ends every rank.
    let opened = root
        .then(|| {
            let outputs = iogauge::context::Outputs {
                output_file: &a.out.output_file,
                quiet: a.out.quiet,
                saving: super::saving(db, &a.save),
            };
            Context::open_with(outputs, interrupted.clone())
        })
        .transpose();
    let mut ctx = match (opened, team) {
        (Err(e), Some(c)) => team::fail(c, &e.to_string(), e.exit_code()),
        (opened, _) => opened?,
    };
    let mut progress = |line: &str| {
        if let Some(c) = &ctx {
            c.progress(line)
        }
    };
    let result = fs_suite::run(&s, argv, &interrupted, &mut progress, team);
    if let Some(c) = &ctx {
        c.end_progress();
    }
    let result = match (result, team) {
        (Err(e), Some(c)) => team::fail(c, &e.to_string(), e.exit_code()),
        (Ok(r), Some(c)) => match gather(c, r) {
            Some(r) => r,
            None if interrupted.load(std::sync::atomic::Ordering::Relaxed) => {
                return Ok(exit::INTERRUPTED)
            }
            None => return Ok(exit::OK),
        },
        (r, None) => r?,
    };
    match ctx.as_mut() {
        Some(ctx) => ctx.finish(result, exporter.as_ref()),
        None => Ok(exit::OK),
    }
}

/// Every rank's result to rank 0, made one there; `None` on the other ranks, and on every
/// rank after Ctrl-C: a rank may have left a fence the others never reached, so no
/// collective follows it.
fn gather(c: &dyn Cluster, r: FsResult) -> Option<FsResult> {
    if r.partial {
        if c.place().is_root() {
            eprintln!(
                "iogauge: interrupted; an MPI run cut short is not gathered (each rank's \
                 folders are removed)"
            );
        }
        return None;
    }
    team::gather_results(c, r).map(fs_suite::ranks::combine)
}
