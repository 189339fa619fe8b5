//! `iogauge run`: one job from iogauge's own flags, run, reported and saved.

use super::saved::Saver;
use super::{absolute, exit_for, interrupt_flag};
use iogauge::cli::RunArgs;
use iogauge::error::Error;
use iogauge::progress::Progress;
use iogauge::report::{sink::Sink, Subject};
use iogauge::result::RunResult;
use iogauge::runner::{self, target::Cleanup, Observer};
use iogauge::spec::native::job_from_args;
use iogauge::store::record::Record;
use std::path::PathBuf;

pub fn cmd_run(
    db: &Option<PathBuf>,
    args: &RunArgs,
    command_line: Vec<String>,
) -> Result<u8, Error> {
    let mut job = job_from_args(args)?;
    // Saved jobs are run again by `iogauge check`, maybe from another folder: keep where
    // the targets really are.
    for t in &mut job.targets {
        t.path = absolute(&t.path)?;
    }
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
    sink.write(&exporter.render(&result))?;
    // A person watching the terminal sees the warnings even where the report carries them
    // only as data, or goes to a file.
    if !exporter.lists_warnings() || !sink.is_stdout() {
        for w in &result.warnings {
            eprintln!("iogauge: warning: {} ({})", w.message, w.fix);
        }
    }
    let stop_reason = result.stop_reason;
    let stop_message = result.stop_message.clone();
    saver.save(&Record::Run(Box::new(result)))?;
    Ok(exit_for(stop_reason, stop_message.as_deref()))
}
