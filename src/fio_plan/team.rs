//! `iogauge fio` as the ranks of an MPI job. Every rank runs the whole plan on files of its
//! own (`{rank}`, `{host}`, `{nranks}` and `{local_rank}` in `filename=` and `directory=`),
//! each group starts together on every rank and the next waits until every rank has ended
//! it (see `run_plan`); rank 0 then reports each job as the sum of every rank's, the way fio's
//! group_reporting sums a group's jobs, and alone saves it.

use super::outcome::PlanOutcome;
use crate::cluster::aggregate::aggregate;
use crate::cluster::{team, Cluster, Place};
use crate::error::{exit, Error};
use crate::result::{RunResult, StopReason};
use crate::spec::fio::options::FioPlan;
use crate::spec::JobSpec;
use std::collections::BTreeSet;
use std::path::Path;

/// Each job's targets as this rank runs them. Returns the jobs as written (with their
/// placeholders), which is what is saved. Refused, on every rank alike: logs made from each
/// I/O (each rank would write the same files), a placeholder that is not one, two ranks on
/// one file.
pub fn localize(cluster: &dyn Cluster, plan: &mut FioPlan) -> Result<Vec<JobSpec>, Error> {
    if let Some(run) = plan.runs.iter().find(|r| r.logs.from_ios()) {
        let what = match run.logs.per_io {
            true => "a log of every I/O (write_bw_log and the like without log_avg_msec)",
            false => "the logs of write_lat_log and write_hist_log, made per clone as fio does,",
        };
        return Err(Error::usage(format!(
            "{}: job '{}': {what} would be written by every rank under one name; under \
             mpirun use write_bw_log and write_iops_log with log_avg_msec, and rank 0 writes \
             the averaged logs of all ranks together",
            run.at, run.name
        )));
    }
    let templates = plan.runs.iter().map(|r| r.job.clone()).collect();
    let place = cluster.place();
    for run in &mut plan.runs {
        run.job = team::localize(&run.job, place, cluster.hosts())
            .map_err(|e| Error::usage(format!("{}: job '{}': {e}", run.at, run.name)))?;
    }
    // Several jobs of one rank may share a file, as in fio; two ranks may not.
    let paths: BTreeSet<&Path> = plan
        .runs
        .iter()
        .flat_map(|r| r.job.targets.iter().map(|t| t.path.as_path()))
        .collect();
    let paths: Vec<&Path> = paths.into_iter().collect();
    team::refuse_shared_paths(cluster, &paths)?;
    Ok(templates)
}

/// What is left to do after [`combine`].
pub enum Gathered {
    /// Rank 0: report and save the combined results now in the outcome.
    Report,
    /// Every other rank, or a run cut short: leave with this status (files removed).
    Done(u8),
}

/// After the plan: a rank whose job failed ends the whole MPI job (naming itself); otherwise
/// every rank's results go to rank 0, which sums each job over the ranks and reports it as
/// fio's group_reporting would (one entry per group, its jobs counting every rank's).
pub fn combine(
    cluster: &dyn Cluster,
    plan: &mut FioPlan,
    templates: &[JobSpec],
    out: &mut PlanOutcome,
) -> Result<Gathered, Error> {
    let root = cluster.place().is_root();
    if out.interrupted {
        // No collective after Ctrl-C: a rank may have left a fence the others never reached.
        drop(std::mem::take(&mut out.cleanups));
        if root {
            eprintln!(
                "iogauge: interrupted; an MPI run cut short is not gathered (each rank's files \
                 are removed)"
            );
        }
        return Ok(Gathered::Done(exit::INTERRUPTED));
    }
    // One rank's failure ends the job (the rule, as IOR's): its own files go first,
    // and the others' when the launcher's SIGTERM interrupts them.
    let failure = match (&out.error, out.failed) {
        (Some(e), _) => Some((e.to_string(), e.exit_code())),
        (None, true) => Some((first_io_error(plan, &out.results), exit::FAILURE)),
        (None, false) => None,
    };
    if let Some((msg, code)) = failure {
        drop(std::mem::take(&mut out.cleanups));
        team::fail(cluster, &msg, code);
    }
    let mine = (
        std::mem::take(&mut out.results),
        std::mem::take(&mut out.batch_cpu),
    );
    let Some(parts) = team::gather_results(cluster, mine) else {
        drop(std::mem::take(&mut out.cleanups));
        return Ok(Gathered::Done(exit::OK));
    };
    let ranks = parts.len() as u32;
    let (places, per_rank): (Vec<Place>, Vec<_>) = parts.into_iter().unzip();
    let (results, cpu): (Vec<_>, Vec<_>) = per_rank.into_iter().unzip();
    out.batch_cpu = sum_cpu(&cpu);
    out.results = by_job(&places, results, plan.runs.len())?;
    for ((run, r), template) in plan.runs.iter_mut().zip(&mut out.results).zip(templates) {
        run.group_reporting = true;
        run.clones *= ranks;
        if let Some(r) = r {
            r.job = template.clone();
            if let Some(n) = summed_note(r) {
                r.notes.insert(0, n);
            }
        }
    }
    Ok(Gathered::Report)
}

/// How a job's figures were made from the ranks', and how together they ran.
fn summed_note(r: &RunResult) -> Option<String> {
    let c = r.cluster.as_ref()?;
    Some(format!(
        "the sum of {} ranks on {} host{} (as fio's group_reporting sums jobs); their starts \
         spread over {:.1} us, their ends over {:.1} us",
        c.ranks,
        c.hosts,
        if c.hosts == 1 { "" } else { "s" },
        c.start_skew_ns as f64 / 1e3,
        c.end_skew_ns as f64 / 1e3
    ))
}

/// The first job's I/O error, said as the job's.
fn first_io_error(plan: &FioPlan, results: &[Option<RunResult>]) -> String {
    plan.runs
        .iter()
        .zip(results)
        .find_map(|(run, r)| {
            let r = r
                .as_ref()
                .filter(|r| r.stop_reason == StopReason::IoError)?;
            let m = r.stop_message.as_deref().unwrap_or("I/O error");
            Some(format!("fio job '{}': {m}", run.name))
        })
        .unwrap_or_else(|| "a job ended with an I/O error".into())
}

/// Each job's result summed over the ranks (rank order), where every rank ran it.
fn by_job(
    places: &[Place],
    results: Vec<Vec<Option<RunResult>>>,
    jobs: usize,
) -> Result<Vec<Option<RunResult>>, Error> {
    let mut columns: Vec<Vec<Option<RunResult>>> = (0..jobs).map(|_| Vec::new()).collect();
    for rank in results {
        for (col, r) in columns.iter_mut().zip(rank) {
            col.push(r);
        }
    }
    columns
        .into_iter()
        .map(|col| {
            let parts: Option<Vec<(Place, RunResult)>> = places
                .iter()
                .cloned()
                .zip(col)
                .map(|(p, r)| r.map(|r| (p, r)))
                .collect();
            parts
                .map(|p| aggregate(p).map_err(Error::runtime))
                .transpose()
        })
        .collect()
}

/// Per batch: the ranks' CPU times summed (as fio sums its jobs'), over the longest wall
/// time.
fn sum_cpu(per_rank: &[Vec<(u64, u64, u64)>]) -> Vec<(u64, u64, u64)> {
    let batches = per_rank.iter().map(Vec::len).max().unwrap_or(0);
    (0..batches)
        .map(|b| {
            per_rank
                .iter()
                .filter_map(|v| v.get(b))
                .fold((0, 0, 0), |(u, s, w), &(u2, s2, w2)| {
                    (u + u2, s + s2, w.max(w2))
                })
        })
        .collect()
}
