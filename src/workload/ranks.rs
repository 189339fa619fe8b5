//! A workload run by every rank of an MPI job, made one on rank 0: each step started
//! together on every rank (a fence after its input was made ready and the caches emptied), so
//! a repetition's time is the slowest rank's and its files and bytes every rank's (mdtest's
//! and IOR's way of counting a job).

use crate::cluster::spread::{self, Worst};
use crate::cluster::Place;
use crate::result::workload::{CpuUse, Rep, StepKind, Verified, WorkloadResult};
use crate::result::{Sample, TimeSeries};

/// Why a rank stopped whose own step went well: another's did not.
pub const OTHER_RANK_STOPPED: &str = "stopped with the other ranks";

/// Every rank's result (rank order, rank 0 first) as one.
pub fn combine(parts: Vec<(Place, WorkloadResult)>) -> WorkloadResult {
    let places: Vec<Place> = parts.iter().map(|(p, _)| p.clone()).collect();
    let results: Vec<WorkloadResult> = parts.into_iter().map(|(_, r)| r).collect();
    let mut out = results[0].clone();
    let mut worst = Worst::default();
    for (si, step) in out.steps.iter_mut().enumerate() {
        // The ranks stop after the same step; a shorter list is one cut off by Ctrl-C.
        let reps = results.iter().map(|r| r.steps[si].reps.len()).min();
        step.reps.truncate(reps.unwrap_or(0));
        let kind = step.step.kind;
        for (k, rep) in step.reps.iter_mut().enumerate() {
            let all: Vec<&Rep> = results.iter().map(|r| &r.steps[si].reps[k]).collect();
            let pct = merge_rep(rep, &all, kind);
            worst.see(pct, || format!("{}, repetition {}", step.label, k + 1));
        }
    }
    out.partial = results.iter().any(|r| r.partial);
    // Why the job stopped: the rank whose own step failed, not those that stopped with it.
    let stopped = places.iter().zip(&results).find_map(|(p, r)| {
        let why = r.stop_message.as_deref()?;
        (why != OTHER_RANK_STOPPED).then(|| spread::on_rank(p, why))
    });
    out.stop_message = stopped.or(out.stop_message);
    for (p, r) in places.iter().zip(&results).skip(1) {
        for n in r.notes.iter().filter(|n| !results[0].notes.contains(n)) {
            out.notes.push(spread::on_rank(p, n));
        }
    }
    let how = "each step started together on every rank, after its input was made ready and \
               the caches emptied; a repetition's time is the slowest rank's and its files and \
               bytes all ranks'";
    let (ranks, notes) = spread::summary(&places, worst, how);
    out.notes.extend(notes);
    out.ranks = Some(ranks);
    out.summarize();
    out
}

/// `rep` made from every rank's `reps` of one step: the slowest rank's time, counts and
/// bytes summed, CPU time summed over the CPUs every rank could use, the time series summed
/// interval by interval (the ranks started together). Returns the spread of the ranks'
/// times, in percent.
fn merge_rep(rep: &mut Rep, reps: &[&Rep], kind: StepKind) -> f64 {
    let sum = |f: fn(&Rep) -> u64| reps.iter().map(|r| f(r)).sum::<u64>();
    let (slowest, pct) = spread::slowest(reps.iter().map(|r| r.elapsed_ns));
    rep.elapsed_ns = slowest;
    rep.sync_ns = reps.iter().filter_map(|r| r.sync_ns).max();
    rep.files = sum(|r| r.files);
    rep.dirs = sum(|r| r.dirs);
    rep.links = sum(|r| r.links);
    rep.skipped = sum(|r| r.skipped);
    rep.bytes_read = sum(|r| r.bytes_read);
    rep.bytes_written = sum(|r| r.bytes_written);
    rep.cpu = CpuUse::of(
        reps.iter().map(|r| r.cpu.threads).sum(),
        reps.iter().map(|r| r.cpu.usable.max(1)).sum(),
        sum(|r| r.cpu.user_ns),
        sum(|r| r.cpu.system_ns),
        slowest,
    );
    rep.cache.dropped = reps.iter().all(|r| r.cache.dropped);
    rep.cache.sampled_files = reps.iter().map(|r| r.cache.sampled_files).sum();
    let resident: Vec<f64> = reps.iter().filter_map(|r| r.cache.resident_pct).collect();
    rep.cache.resident_pct =
        (!resident.is_empty()).then(|| resident.iter().sum::<f64>() / resident.len() as f64);
    rep.time_series = summed(reps);
    rep.phases = kind.work().series(&rep.time_series).phases(true);
    if let Some(c) = rep.copy.as_mut() {
        let copies = reps.iter().filter_map(|r| r.copy.as_ref());
        c.kernel_files = copies.clone().map(|c| c.kernel_files).sum();
        c.read_write_files = copies.clone().map(|c| c.read_write_files).sum();
        c.io_uring_files = copies.clone().map(|c| c.io_uring_files).sum();
        c.refused = copies.clone().find_map(|c| c.refused.clone());
    }
    if let Some(c) = rep.compression.as_mut() {
        let all = reps.iter().filter_map(|r| r.compression.as_ref());
        c.tree_bytes = all.clone().map(|c| c.tree_bytes).sum();
        c.archive_bytes = all.map(|c| c.archive_bytes).sum();
    }
    if rep.verify.is_some() {
        rep.verify = verified(reps);
    }
    rep.cut_short = reps.iter().any(|r| r.cut_short);
    pct
}

/// Every rank's check of what it made, as one: whole only where every rank's was.
fn verified(reps: &[&Rep]) -> Option<Verified> {
    let all: Vec<&Verified> = reps.iter().filter_map(|r| r.verify.as_ref()).collect();
    let mut v = all.first().map(|v| (*v).clone())?;
    let sum = |f: fn(&Verified) -> u64| all.iter().map(|v| f(v)).sum::<u64>();
    v.ok = all.iter().all(|v| v.ok) && all.len() == reps.len();
    v.files = sum(|v| v.files);
    v.missing = sum(|v| v.missing);
    v.wrong_size = sum(|v| v.wrong_size);
    v.wrong_content = sum(|v| v.wrong_content);
    v.extra = sum(|v| v.extra);
    let keep = all.iter().map(|v| v.first.len()).max().unwrap_or(0);
    v.first = all
        .iter()
        .flat_map(|v| v.first.iter().cloned())
        .take(keep)
        .collect();
    Some(v)
}

/// The ranks' time series added interval by interval.
fn summed(reps: &[&Rep]) -> TimeSeries {
    let mut out = TimeSeries {
        interval_ns: reps[0].time_series.interval_ns,
        samples: Vec::new(),
    };
    for r in reps {
        for (i, s) in r.time_series.samples.iter().enumerate() {
            if out.samples.len() <= i {
                out.samples.push(Sample {
                    start_ns: s.start_ns,
                    duration_ns: s.duration_ns,
                    read: Default::default(),
                    write: Default::default(),
                    trim: None,
                });
            }
            let t = &mut out.samples[i];
            t.duration_ns = t.duration_ns.max(s.duration_ns);
            for (to, from) in [(&mut t.read, &s.read), (&mut t.write, &s.write)] {
                to.ios += from.ios;
                to.bytes += from.bytes;
            }
        }
    }
    out
}
