//! A job's threads: how many clones (`numjobs`), on which CPUs (`cpus_allowed` and its
//! policy), from which random seed (`randseed`, `randrepeat`), and whether they go on after
//! an I/O error (`continue_on_error`).

use crate::error::Result;
use crate::os::cgroup::CgroupAsk;
use crate::spec::fio::options::Set;
use crate::spec::numa::{parse_mem_policy, parse_nodes, Numa};
use crate::spec::Affinity;

/// fio's numjobs: how many clones of the job run.
pub(super) fn read_clones(set: &Set) -> Result<u32> {
    let clones = set.int("numjobs")?.unwrap_or(1);
    if clones == 0 || clones > 4096 {
        return Err(set.err("numjobs", format!("{clones} is not between 1 and 4096")));
    }
    Ok(clones as u32)
}

/// randseed, else a fixed seed unless randrepeat=0 asks for a new one each run. allrandrepeat=1
/// fixes every seed whatever randseed and randrepeat say, as fio 3.33's td_fill_rand_seeds
/// does; allrandrepeat=0 (its default) changes nothing.
pub(super) fn read_seed(set: &Set) -> Result<u64> {
    if set.flag("allrandrepeat")? == Some(true) {
        return Ok(0);
    }
    Ok(match (set.int("randseed")?, set.flag("randrepeat")?) {
        (Some(s), _) => s,
        (None, Some(false)) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
        (None, _) => 0,
    })
}

pub(super) fn read_affinity(set: &Set, notes: &mut Vec<String>) -> Result<Option<Affinity>> {
    Ok(match (read_cpus(set)?, set.text("cpus_allowed_policy")) {
        (None, None) => None,
        (None, Some("split")) => Some(Affinity::Auto),
        (None, Some(_)) => None,
        (Some(cpus), policy) => {
            if policy != Some("split") {
                notes.push("cpus_allowed: iogauge pins each thread to one CPU of the list in turn (fio's cpus_allowed_policy=split); fio's default lets every thread use every CPU of the list".into());
            }
            Some(Affinity::Cpus { cpus })
        }
    })
}

/// numa_cpu_nodes and numa_mem_policy; whether the nodes exist is asked where the job runs.
pub(super) fn read_numa(set: &Set) -> Result<Option<Numa>> {
    let cpu_nodes = match set.text("numa_cpu_nodes") {
        Some(v) => Some(parse_nodes(v).map_err(|e| set.err("numa_cpu_nodes", e))?),
        None => None,
    };
    let memory = match set.text("numa_mem_policy") {
        Some(v) => Some(parse_mem_policy(v).map_err(|e| set.err("numa_mem_policy", e))?),
        None => None,
    };
    Ok((cpu_nodes.is_some() || memory.is_some()).then_some(Numa { cpu_nodes, memory }))
}

pub(super) fn read_continue_on_error(set: &Set, notes: &mut Vec<String>) -> bool {
    match set.text("continue_on_error") {
        None | Some("0") | Some("none") => false,
        Some(_) => {
            notes.push(
                "continue_on_error: iogauge goes on after any I/O error, counting each by errno"
                    .into(),
            );
            true
        }
    }
}

/// fio's ignore_error, `READ_ERRS,WRITE_ERRS,VERIFY_ERRS`, each a list split at ':' of errno
/// names or numbers: the errors a job goes on after. iogauge goes on after any of them
/// whatever the I/O's direction (a read's ENOSPC cannot happen anyway); verification's are
/// its own (verify_fatal).
pub(super) fn read_ignore_error(set: &Set, notes: &mut Vec<String>) -> Result<Vec<i32>> {
    let Some(v) = set.text("ignore_error") else {
        return Ok(Vec::new());
    };
    let classes: Vec<&str> = v.split(',').collect();
    if classes.len() > 3 {
        return Err(set.err(
            "ignore_error",
            format!("'{v}': more than three lists (READ,WRITE,VERIFY)"),
        ));
    }
    let mut all = Vec::new();
    for class in classes.iter().take(2) {
        for e in crate::error::parse_errnos(class).map_err(|e| set.err("ignore_error", e))? {
            if !all.contains(&e) {
                all.push(e);
            }
        }
    }
    if classes.get(2).is_some_and(|c| !c.trim().is_empty()) {
        notes.push("ignore_error: the verify list has no effect (iogauge's verification goes on or stops as verify_fatal says)".into());
    }
    if classes
        .iter()
        .take(2)
        .filter(|c| !c.trim().is_empty())
        .count()
        > 1
    {
        notes.push(
            "ignore_error: iogauge goes on after the listed errors on reads and writes alike"
                .into(),
        );
    }
    Ok(all)
}

/// fio's CPU list: `0-3,8,10-11`.
fn read_cpus(set: &Set) -> Result<Option<Vec<usize>>> {
    let Some(v) = set.text("cpus_allowed") else {
        return Ok(None);
    };
    let mut cpus = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || {
            set.err(
                "cpus_allowed",
                format!("'{part}' is not a CPU or a range of CPUs"),
            )
        };
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) =
                    (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                if a > b || b - a > 4096 {
                    return Err(bad());
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().map_err(|_| bad())?),
        }
    }
    Ok(Some(cpus))
}

/// fio's cgroup, cgroup_weight and cgroup_nodelete: the blkio cgroup the job's threads run in
/// (a weight alone puts them in one named after the job, as fio 3.33's get_cgroup_root does).
pub(super) fn read_cgroup(
    set: &Set,
    job: &str,
    notes: &mut Vec<String>,
) -> Result<Option<CgroupAsk>> {
    let weight = set.int("cgroup_weight")?.filter(|&w| w > 0);
    let keep = set.flag("cgroup_nodelete")?.unwrap_or(false);
    let name = match (set.text("cgroup").filter(|n| !n.is_empty()), weight) {
        (Some(n), _) => n.to_string(),
        (None, Some(_)) => job.to_string(),
        (None, None) => {
            if keep {
                notes.push("cgroup_nodelete: no effect without cgroup or cgroup_weight".into());
            }
            return Ok(None);
        }
    };
    let ask = CgroupAsk {
        name,
        weight: weight.map(|w| w.min(u32::MAX as u64) as u32),
        keep,
    };
    let key = if set.text("cgroup").is_some() && weight.is_none() {
        "cgroup"
    } else {
        "cgroup_weight"
    };
    ask.check().map_err(|e| set.err(key, e))?;
    Ok(Some(ask))
}
