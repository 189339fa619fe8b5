//! `iogauge fs`: flags to the suite's parameters, then run, report and save; under an MPI
//! launcher, run by every rank in its own folder and reported by rank 0 as one.

use iogauge::cli::FsArgs;
use iogauge::context::ranks::Opened;
use iogauge::context::Context;
use iogauge::error::{Error, Result};
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
    let outputs = super::outputs(db, &a.out.output_file, a.out.quiet, &a.save);
    // The same flags on every rank, but each sees its own folders: no rank goes on unless all
    // can, and rank 0 says what stopped which.
    let checked = |_: Option<&_>| {
        let exporter = Subject::Fs.exporter::<FsResult>(a.out.output)?;
        Ok((exporter, suite(a)?))
    };
    let (mut ctx, (exporter, s)) = match Context::open_ranked(outputs, checked)? {
        Opened::Ready(ctx, checked) => (ctx, checked),
        Opened::Ended(code) => return Ok(code),
    };
    ctx.finish_suite(&s, argv, exporter.as_ref())
}
