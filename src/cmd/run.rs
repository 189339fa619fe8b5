//! `iogauge run`: one job from iogauge's own flags, run, reported and saved; under an MPI
//! launcher, run by every rank and reported by rank 0 as one ([`iogauge::cluster`]).

use super::absolute;
use iogauge::cli::RunArgs;
use iogauge::cluster::{self, Cluster, Place};
use iogauge::context::ranks::Opened;
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

pub fn cmd_run(
    db: &Option<PathBuf>,
    args: &RunArgs,
    command_line: Vec<String>,
) -> Result<u8, Error> {
    let outputs = super::outputs(db, &args.out.output_file, args.out.quiet, &args.save);
    let checked = |rank: Option<&Place>| {
        let mut job = job_from_args(args)?;
        // Alone, the placeholders are rank 0's (under MPI each rank fills in its own).
        if rank.is_none() {
            for t in &mut job.targets {
                t.path = cluster::expand_here(&t.path.to_string_lossy(), None)?.into();
            }
        }
        // Saved jobs are run again by `iogauge check`, maybe from another folder: keep
        // where the targets really are.
        for t in &mut job.targets {
            t.path = absolute(&t.path)?;
        }
        if rank.is_some() && args.memory_limit.is_some() {
            return Err(Error::usage(
                "--memory-limit is for one process; under mpirun, limit each rank's page cache \
                 with the launcher's own means (Slurm's --mem)",
            ));
        }
        Ok((Subject::Run.exporter::<RunResult>(args.out.output)?, job))
    };
    let (mut ctx, (exporter, job)) = match Context::open_ranked(outputs, checked)? {
        Opened::Ready(ctx, checked) => (ctx, checked),
        Opened::Ended(code) => return Ok(code),
    };
    if let Some(cluster) = ctx.team() {
        return match run_team(cluster, ctx.interrupted(), args, &job, command_line) {
            Ok(result) => ctx.finish(result, exporter.as_ref()),
            Err(code) => Ok(code),
        };
    }
    // Dropped at the end of this function, after the report: created files go on every path.
    let mut cleanup = Cleanup::new(job.keep);
    let mut progress = Progress::new(args.out.quiet);
    ctx.limit_memory(super::memory_limit(args.memory_limit.as_deref())?)?;
    let mut result = runner::run_observed(
        &job,
        command_line,
        ctx.interrupted(),
        &mut cleanup,
        &mut progress,
    );
    // Before the memory cap is left: the probes run as the run did.
    if let (Ok(r), true) = (&mut result, args.why) {
        super::why::probe(&job, r, ctx.interrupted(), &mut cleanup, &mut progress);
    }
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

/// The job as one rank of an MPI job ([`cluster::team::run`]): the job's aggregate on rank
/// 0, to report and save; elsewhere (or where it failed) the exit status.
fn run_team(
    cluster: &dyn Cluster,
    interrupted: &AtomicBool,
    args: &RunArgs,
    job: &JobSpec,
    command_line: Vec<String>,
) -> Result<RunResult, u8> {
    let root = cluster.place().is_root();
    let mut progress = Progress::new(args.out.quiet || !root);
    let result = cluster::team::run(cluster, job, command_line, interrupted, &mut progress);
    progress.end();
    match result {
        Ok(Some(result)) => Ok(result),
        // The other ranks: rank 0 reports for all of them.
        Ok(None) if interrupted.load(Ordering::Relaxed) => Err(exit::INTERRUPTED),
        Ok(None) => Err(exit::OK),
        Err(e) if interrupted.load(Ordering::Relaxed) => {
            if root {
                eprintln!("iogauge: error: {e}");
            }
            Err(e.exit_code())
        }
        Err(e) => Err(cluster::team::agree(cluster, Err::<(), _>(e), interrupted).unwrap_err()),
    }
}
