//! Makes the plan of a fio run (plan.rs): each job mapped onto a JobSpec ([`super::map`]),
//! in fio's groups and batches, with what fio waits for.

use super::map::{map_job, share_working_sets};
use super::options::lookup;
use super::plan::{as_written, FioPlan, FioRun, MapOptions};
use super::FioJob;
use crate::error::{Error, Result};
use std::path::Path;

/// All jobs, with fio's groups and batches: a job with `stonewall` waits for every job before
/// it and starts a new group; `new_group` starts a new group that still runs alongside.
pub fn plan(jobs: &[FioJob], o: &MapOptions) -> Result<FioPlan> {
    if jobs.is_empty() {
        return Err(Error::usage(
            "no fio job given: name one with --name=NAME or a job file",
        ));
    }
    let mut warnings = Vec::new();
    let mut runs: Vec<FioRun> = Vec::new();
    let (mut group, mut batch) = (0, 0);
    // Files an earlier job creates: a later one that names no size= works over the whole of
    // it, as fio sizes a job's files when it starts (surface-scan.fio's read phase).
    let mut made: std::collections::HashMap<std::path::PathBuf, u64> = Default::default();
    for (i, fj) in jobs.iter().enumerate() {
        let size_of = |p: &Path| made.get(p).copied().or_else(|| (o.size_of)(p));
        let exists = |p: &Path| made.contains_key(p) || (o.exists)(p);
        let with_made = MapOptions {
            size_of: &size_of,
            exists: &exists,
            ..*o
        };
        let mut run = map_job(fj, &with_made, &mut warnings)?;
        for t in &run.job.targets {
            if let Some(size) = t.create_size.filter(|_| !(o.exists)(&t.path)) {
                made.entry(t.path.clone()).or_insert(size);
            }
        }
        let flag = |key: &str| {
            fj.options
                .iter()
                .rev()
                .find(|o| lookup(&o.key).map(|(n, _)| n) == Some(key))
                .map(|o| !matches!(o.value.as_deref(), Some("0")))
                .unwrap_or(false)
        };
        if i > 0 && flag("stonewall") {
            batch += 1;
            group += 1;
        } else if i > 0 && flag("new_group") {
            group += 1;
        }
        run.group = group;
        run.batch = batch;
        run.wait_for = waitee(fj, &runs)?;
        runs.push(run);
    }
    share_working_sets(runs.iter_mut().map(|r| &mut r.job));
    warnings.dedup();
    let global_options = as_written(&jobs[0].options[..jobs[0].inherited]);
    Ok(FioPlan {
        runs,
        global_options,
        warnings,
    })
}

/// fio's wait_for: the job named must come before this one, once (fio 3.33, init.c
/// wait_for_ok), and this one starts when every clone of it has ended.
fn waitee(fj: &FioJob, before: &[FioRun]) -> Result<Option<usize>> {
    let Some(opt) = fj.options.iter().rev().find(|o| o.key == "wait_for") else {
        return Ok(None);
    };
    let name = opt.value.as_deref().unwrap_or("").trim();
    let fail = |why: String| Err(Error::usage(format!("{}: wait_for: {why}", opt.at)));
    if name.is_empty() {
        return fail("names no job".into());
    }
    if name == fj.name {
        return fail(format!("job '{name}' cannot wait for itself"));
    }
    let found: Vec<usize> = (0..before.len())
        .filter(|&i| before[i].name == name)
        .collect();
    match found.as_slice() {
        [] => fail(format!(
            "no job '{name}' comes before this one (fio's waitee must)"
        )),
        [i] => Ok(Some(*i)),
        _ => fail(format!(
            "{} jobs are named '{name}': the waitee must be one",
            found.len()
        )),
    }
}
