//! `iogauge ior`: an IOR command line (spec/ior.rs makes each phase's job), its write and
//! read phases run -i times on the ranks' runner (alone, or every rank of an MPI job through
//! `cluster::team`), and IOR's summary printed by rank 0 (report/ior.rs).

use iogauge::cluster::{self, team, Cluster, Place};
use iogauge::context::ranks::Opened;
use iogauge::context::{Context, Outputs};
use iogauge::error::{exit, Error, Result};
use iogauge::os::owned::Cleanup;
use iogauge::progress::Progress;
use iogauge::report::ior as report;
use iogauge::result::ior::{IorParams, IorResult, IorRow};
use iogauge::result::{RunResult, StopReason};
use iogauge::runner::{self, Keep, Observer};
use iogauge::spec::ior::{self, Ior, Phase};
use iogauge::spec::JobSpec;
use std::sync::atomic::{AtomicBool, Ordering};

/// iogauge's own options among IOR's.
#[derive(Default)]
struct Own {
    allow_overwrite: bool,
    quiet: bool,
}

pub fn cmd_ior(args: &[String], argv: Vec<String>) -> Result<u8> {
    let mut own = Own::default();
    let mut rest = Vec::new();
    for a in args {
        match a.as_str() {
            "-h" | "--help" => return help(),
            "--allow-overwrite" => own.allow_overwrite = true,
            "--quiet" => own.quiet = true,
            k if k.starts_with("--") => {
                return Err(Error::usage(format!(
                    "{a}: not an option of iogauge ior (IOR's options are -x; iogauge's are \
                     --allow-overwrite and --quiet)"
                )))
            }
            _ => rest.push(a.clone()),
        }
    }
    // Every rank reads the line and makes its first job: no rank goes on unless all can.
    let checked = |rank: Option<&Place>| {
        let ior = ior::parse(&rest)?;
        ior.job(Phase::Write, rank.map_or(1, |p| p.size), false)?;
        if !ior.write {
            must_exist(&ior, rank)?;
        }
        Ok(ior)
    };
    let (mut ctx, ior) = match Context::open_ranked(Outputs::unsaved(own.quiet), checked)? {
        Opened::Ready(ctx, ior) => (ctx, ior),
        Opened::Ended(code) => return Ok(code),
    };
    let began = now_s();
    let rows = match run_all(&ctx, &ior, &own, &argv)? {
        Ok(rows) => rows,
        Err(code) => return Ok(code),
    };
    if ctx.team().is_some_and(|c| !c.place().is_root()) {
        return Ok(exit::OK);
    }
    let result = IorResult {
        command_line: argv,
        began_unix_s: began,
        finished_unix_s: now_s(),
        host: cluster::hostname(),
        params: params(&ior, ctx.team()),
        rows,
        notes: ior.notes.clone(),
    };
    let text = match ior.json {
        true => report::json(&result),
        false => report::text(&result),
    };
    ctx.write(&text)?;
    Ok(match result.wrong_data() {
        true => exit::FAILURE,
        false => exit::OK,
    })
}

/// Every repetition's phases, in IOR's order: write, then read; the files go at the end of
/// each repetition (IOR removes them there) unless -k. The rows on rank 0; elsewhere none.
fn run_all(
    ctx: &Context,
    ior: &Ior,
    own: &Own,
    argv: &[String],
) -> Result<Result<Vec<IorRow>, u8>> {
    let team = ctx.team();
    let interrupted = ctx.interrupted().as_ref();
    let ranks = team.map_or(1, |c| c.place().size);
    let root = team.is_none_or(|c| c.place().is_root());
    let mut progress = Progress::new(own.quiet || !root);
    let mut rows = Vec::new();
    for iteration in 0..ior.repetitions {
        let mut cleanup = Cleanup::new(ior.keep);
        for phase in phases(ior) {
            // A file kept (-k) from the repetition before is iogauge's own.
            let overwrite = own.allow_overwrite || iteration > 0;
            let job = ior.job(phase, ranks, overwrite)?;
            let r = run_phase(team, &job, argv, interrupted, &mut progress, &mut cleanup);
            match r {
                Ok(Some(r)) => rows.push(IorRow::from_run(phase.word(), iteration, &r)),
                Ok(None) => {}
                Err(e) if interrupted.load(Ordering::Relaxed) => {
                    if root {
                        eprintln!("iogauge: error: {e}");
                    }
                    return Ok(Err(exit::INTERRUPTED));
                }
                Err(e) => return Err(e),
            }
        }
        // A shared file goes once every rank is done with it.
        if let Some(c) = team {
            c.fence(interrupted);
        }
        drop(cleanup);
    }
    progress.end();
    Ok(Ok(rows))
}

/// A read without a write reads what an earlier run kept (-k): said in IOR's terms where it
/// is missing (IOR: "Cannot open file").
fn must_exist(ior: &Ior, rank: Option<&Place>) -> Result<()> {
    let path = cluster::expand_here(&ior.path_template(), rank)?;
    match std::path::Path::new(&path).exists() {
        true => Ok(()),
        false => Err(Error::usage(format!(
            "-r: cannot open '{path}': no such file (write it first: -w -k)"
        ))),
    }
}

/// The timed phases of one repetition.
fn phases(ior: &Ior) -> Vec<Phase> {
    let mut p = Vec::new();
    if ior.write {
        p.push(Phase::Write);
    }
    if ior.read {
        p.push(Phase::Read);
    }
    p
}

/// One phase on every rank: the aggregate on rank 0 (alone: the run), `None` elsewhere.
pub(super) fn run_phase(
    team: Option<&dyn Cluster>,
    job: &JobSpec,
    argv: &[String],
    interrupted: &AtomicBool,
    progress: &mut Progress,
    cleanup: &mut Cleanup,
) -> Result<Option<RunResult>> {
    if let Some(c) = team {
        return team::run_kept(c, job, argv.to_vec(), interrupted, progress, cleanup);
    }
    let mut local = job.clone();
    for t in &mut local.targets {
        let path = cluster::expand_here(&t.path.to_string_lossy(), None)?;
        t.path = super::absolute(std::path::Path::new(&path))?;
    }
    let r = runner::run_full(
        &local,
        argv.to_vec(),
        interrupted,
        cleanup,
        progress,
        Keep::default(),
    )?;
    if r.stop_reason == StopReason::IoError {
        return Err(Error::runtime(
            r.stop_message.unwrap_or_else(|| "I/O error".into()),
        ));
    }
    Ok(Some(r))
}

/// What IOR's summary says of the test.
fn params(ior: &Ior, team: Option<&dyn Cluster>) -> IorParams {
    let hosts: Vec<String> = team.map_or_else(|| vec![cluster::hostname()], |c| c.hosts().to_vec());
    let mut distinct = hosts.clone();
    distinct.sort();
    distinct.dedup();
    let on_first = hosts.iter().filter(|h| **h == hosts[0]).count();
    IorParams {
        api: ior.api.clone(),
        test_file: ior.test_file.clone(),
        block: ior.block,
        transfer: ior.transfer,
        segments: ior.segments,
        tasks: hosts.len() as u32,
        nodes: distinct.len() as u32,
        tasks_per_node: on_first as u32,
        repetitions: ior.repetitions,
        file_per_proc: ior.file_per_proc,
        reorder: ior.reorder,
        task_offset: ior.task_offset,
        random: ior.random,
        deadline_s: ior.deadline_s,
        wear_out: ior.wear_out,
    }
}

fn now_s() -> u64 {
    iogauge::dates::now_unix_ns() / 1_000_000_000
}

fn help() -> Result<u8> {
    use clap::CommandFactory;
    let mut cmd = iogauge::cli::Cli::command();
    let sub = cmd
        .find_subcommand_mut("ior")
        .expect("the ior command exists");
    let mut sub = sub.clone().bin_name("iogauge ior");
    super::write_output("-", &sub.render_long_help().to_string())?;
    Ok(exit::OK)
}
