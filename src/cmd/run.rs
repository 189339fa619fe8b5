//! `iogauge run`: one job from iogauge's own flags, run, reported and saved; under an MPI
//! launcher, run by every rank and reported by rank 0 as one ([`iogauge::cluster`]).

use super::{absolute, interrupt_flag};
use iogauge::cli::RunArgs;
use iogauge::cluster::{self, Cluster};
use iogauge::context::Context;
use iogauge::error::{exit, Error};
use iogauge::os::owned::Cleanup;
use iogauge::progress::Progress;
use iogauge::report::Subject;
use iogauge::result::RunResult;
use iogauge::runner::{self, Observer};
use iogauge::spec::native::job_from_args;
use iogauge::spec::JobSpec;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub fn cmd_run(
    db: &Option<PathBuf>,
    args: &RunArgs,
    command_line: Vec<String>,
) -> Result<u8, Error> {
    let cluster = cluster::detect()?;
    let job = job_from_args(args).and_then(|mut job| {
        // Saved jobs are run again by `iogauge check`, maybe from another folder: keep
        // where the targets really are.
        for t in &mut job.targets {
            t.path = absolute(&t.path)?;
        }
        Ok(job)
    });
    if cluster.place().size > 1 {
        let interrupted = interrupt_flag()?;
        return match cluster::team::agree(cluster.as_ref(), job, &interrupted) {
            Ok(job) => cmd_team(cluster.as_ref(), db, args, &job, command_line, &interrupted),
            Err(code) => Ok(code),
        };
    }
    let job = job?;
    let exporter = Subject::Run.exporter::<RunResult>(args.out.output)?;
    let mut ctx = super::context(db, &args.out.output_file, args.out.quiet, &args.save)?;
    // Dropped at the end of this function, after the report: created files go on every path.
    let mut cleanup = Cleanup::new(job.keep);
    let mut progress = Progress::new(args.out.quiet);
    ctx.limit_memory(super::memory_limit(args.memory_limit.as_deref())?)?;
    let result = runner::run_observed(
        &job,
        command_line,
        ctx.interrupted(),
        &mut cleanup,
        &mut progress,
    );
    progress.end();
    let cap = ctx.leave_memory();
    let mut result = result?;
    if let Some(c) = cap {
        result.notes.push(c.describe());
    }
    if !job.ranks.is_default() {
        result.notes.push(
            "--shared-file and --rank-shift share targets among MPI ranks: run alone, they \
             change nothing"
                .into(),
        );
    }
    ctx.finish(result, exporter.as_ref())
}

/// The job as one rank of an MPI job. Rank 0 alone opens the report and the store, so a
/// report path or store it cannot use ends the job before any rank lays out a file.
fn cmd_team(
    cluster: &dyn Cluster,
    db: &Option<PathBuf>,
    args: &RunArgs,
    job: &JobSpec,
    command_line: Vec<String>,
    interrupted: &Arc<AtomicBool>,
) -> Result<u8, Error> {
    if args.memory_limit.is_some() {
        return Err(Error::usage(
            "--memory-limit is for one process; under mpirun, limit each rank's page cache with \
             the launcher's own means (Slurm's --mem)",
        ));
    }
    let root = cluster.place().is_root();
    let outputs = root.then(|| {
        let outputs = iogauge::context::Outputs {
            output_file: &args.out.output_file,
            quiet: args.out.quiet,
            saving: super::saving(db, &args.save),
        };
        Ok::<_, Error>((
            Subject::Run.exporter::<RunResult>(args.out.output)?,
            Context::open_with(outputs, interrupted.clone())?,
        ))
    });
    let outputs = outputs.transpose().unwrap_or_else(|e| abort(cluster, e));
    let mut progress = Progress::new(args.out.quiet || !root);
    let result = cluster::team::run(cluster, job, command_line, interrupted, &mut progress);
    progress.end();
    let result = match result {
        Ok(r) => r,
        Err(e) if interrupted.load(Ordering::Relaxed) => {
            if root {
                eprintln!("iogauge: error: {e}");
            }
            return Ok(e.exit_code());
        }
        Err(e) => {
            return Ok(cluster::team::agree(cluster, Err::<(), _>(e), interrupted).unwrap_err())
        }
    };
    match (result, outputs) {
        (Some(result), Some((exporter, mut ctx))) => ctx.finish(result, exporter.as_ref()),
        // The other ranks: rank 0 reports for all of them.
        _ if interrupted.load(Ordering::Relaxed) => Ok(exit::INTERRUPTED),
        _ => Ok(exit::OK),
    }
}

/// An error on one rank before the ranks meet: said, and the whole job ended.
fn abort(cluster: &dyn Cluster, e: Error) -> ! {
    cluster::team::fail(cluster, &e.to_string(), e.exit_code())
}
