//! `iogauge run`: one job from iogauge's own flags, run, reported and saved; under an MPI
//! launcher, run by every rank and reported by rank 0 as one ([`iogauge::cluster`]).

use super::saved::Saver;
use super::{absolute, interrupt_flag};
use iogauge::cli::RunArgs;
use iogauge::cluster::{self, Cluster};
use iogauge::error::{exit, Error};
use iogauge::os::owned::Cleanup;
use iogauge::progress::Progress;
use iogauge::report::{sink::Sink, Exporter, Subject};
use iogauge::result::RunResult;
use iogauge::runner::{self, Observer};
use iogauge::spec::native::job_from_args;
use iogauge::spec::JobSpec;
use iogauge::store::record::Record;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

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
    let exporter = Subject::Run.exporter::<RunResult>(args.output)?;
    let mut sink = Sink::open(&args.output_file, "--output-file")?;
    let mut saver = Saver::new(db, &args.save, args.quiet)?;
    let interrupted = interrupt_flag()?;
    // Dropped at the end of this function, after the report: created files go on every path.
    let mut cleanup = Cleanup::new(job.keep);
    let mut progress = Progress::new(args.quiet);
    let limit = super::memory_limit(args.memory_limit.as_deref())?;
    let cgroup = limit
        .map(iogauge::os::memcg::MemoryCgroup::enter)
        .transpose()
        .map_err(Error::usage)?;
    let result = runner::run_observed(
        &job,
        command_line,
        &interrupted,
        &mut cleanup,
        &mut progress,
    );
    progress.end();
    let cap = cgroup.map(super::leave_cgroup);
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
    report_and_save(result, exporter.as_ref(), &mut sink, &mut saver)
}

/// Write the report, say the warnings, save: the exit status of the run.
fn report_and_save(
    result: RunResult,
    exporter: &dyn Exporter<RunResult>,
    sink: &mut Sink,
    saver: &mut Saver,
) -> Result<u8, Error> {
    sink.write(&exporter.render(&result))?;
    // A person watching the terminal sees the warnings even where the report carries them
    // only as data, or goes to a file.
    if !exporter.lists_warnings() || !sink.is_stdout() {
        for w in &result.warnings {
            eprintln!("iogauge: warning: {} ({})", w.message, w.fix);
        }
    }
    let code = super::exit_of_run(&result);
    saver.save(&Record::Run(Box::new(result)))?;
    Ok(code)
}

/// The job as one rank of an MPI job. Rank 0 alone opens the report and the store, so a
/// report path or store it cannot use ends the job before any rank lays out a file.
fn cmd_team(
    cluster: &dyn Cluster,
    db: &Option<PathBuf>,
    args: &RunArgs,
    job: &JobSpec,
    command_line: Vec<String>,
    interrupted: &AtomicBool,
) -> Result<u8, Error> {
    if args.memory_limit.is_some() {
        return Err(Error::usage(
            "--memory-limit is for one process; under mpirun, limit each rank's page cache with \
             the launcher's own means (Slurm's --mem)",
        ));
    }
    let root = cluster.place().is_root();
    let outputs = root.then(|| {
        Ok::<_, Error>((
            Subject::Run.exporter::<RunResult>(args.output)?,
            Sink::open(&args.output_file, "--output-file")?,
            Saver::new(db, &args.save, args.quiet)?,
        ))
    });
    let outputs = outputs.transpose().unwrap_or_else(|e| abort(cluster, e));
    let mut progress = Progress::new(args.quiet || !root);
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
        (Some(result), Some((exporter, mut sink, mut saver))) => {
            report_and_save(result, exporter.as_ref(), &mut sink, &mut saver)
        }
        // The other ranks: rank 0 reports for all of them.
        _ if interrupted.load(Ordering::Relaxed) => Ok(exit::INTERRUPTED),
        _ => Ok(exit::OK),
    }
}

/// An error on one rank before the ranks meet: said, and the whole job ended.
fn abort(cluster: &dyn Cluster, e: Error) -> ! {
    cluster::team::fail(cluster, &e.to_string(), e.exit_code())
}
