//! Warnings that save people from fooling themselves: each names what looks wrong with a run
//! and how to fix it. They are judged from the finished result alone, so any report (text,
//! JSON, a profile's table) and any later reader sees the same ones.

use crate::facts::Content;
use crate::result::{RunResult, TargetResult, Warning};
use crate::spec::{CacheMode, Flag};
use crate::units::format_size_human;

/// Runs shorter than this miss caches filling, background flushes and thermal or credit limits.
pub const MIN_RUN_NS: u64 = 5_000_000_000;
/// All CPUs together busier than this: the run measured the CPU.
pub const CPU_SATURATED_PCT: f64 = 90.0;
/// Coefficient of variation of throughput, over buckets of at least [`VARIATION_BUCKET_NS`],
/// above which the run probably holds more than one phase.
pub const VARIATION_CV: f64 = 0.25;
pub const VARIATION_BUCKET_NS: u64 = 500_000_000;

pub fn check(r: &RunResult) -> Vec<Warning> {
    let mut w = Vec::new();
    for t in &r.targets {
        w.extend(page_cache(r, t));
        w.extend(content(r, t));
        w.extend(queue_too_deep(r, t));
    }
    w.extend(short_run(r));
    w.extend(cpu_saturated(r));
    w.extend(inline_completion(r));
    w.extend(throughput_varied(r));
    w
}

/// Operations on names have no working set: the page cache is not the question.
fn is_file_op(r: &RunResult) -> bool {
    r.job.engine.kind.is_some_and(|e| e.is_file_op())
}

/// Buffered I/O on a working set that fits in memory.
fn page_cache(r: &RunResult, t: &TargetResult) -> Option<Warning> {
    let j = &r.job;
    if j.cache.is_direct() || is_file_op(r) {
        return None;
    }
    let set = t.working_set_end - t.working_set_start;
    let mut w = None;
    if let Some(mem) = r.header.system.memory_bytes.filter(|&m| set < m) {
        w = Some(Warning {
                code: "page-cache".into(),
                message: format!(
                    "buffered I/O on a working set of {} in '{}', smaller than this machine's {} of memory: you are measuring the page cache, not the storage",
                    format_size_human(set),
                    t.path,
                    format_size_human(mem)
                ),
                fix: format!(
                    "use {} (O_DIRECT), or a working set larger than memory ({} with a new file)",
                    j.dialect.cache(CacheMode::Direct),
                    j.name(Flag::Create)
                ),
            });
    }
    w
}

/// A target whose content compresses or deduplicates.
fn content(r: &RunResult, t: &TargetResult) -> Option<Warning> {
    let j = &r.job;
    let f = &t.facts;
    let mut w = None;
    let pattern = match f.content {
        Content::Zeros => Some(("zero-content", "only zeros")),
        Content::Repeating => Some(("repeating-content", "a repeating pattern")),
        _ => None,
    };
    if let Some((code, what)) = pattern {
        w = Some(Warning {
            code: code.into(),
            message: format!(
                "'{}' holds {what} (16 blocks sampled): storage that compresses or deduplicates will look faster than it is",
                t.path
            ),
            fix: format!(
                "measure a file iogauge creates ({} with a new path): it fills it with incompressible data",
                j.dialect.assign(Flag::Create, "SIZE")
            ),
        });
    }
    w
}

/// More I/Os in flight than the device's queue takes.
fn queue_too_deep(r: &RunResult, t: &TargetResult) -> Option<Warning> {
    let j = &r.job;
    let f = &t.facts;
    let mut w = None;
    let in_flight = t.threads.len() as u64 * r.queue_depth as u64;
    let device_queue = j.cache.is_direct() || t.kind == crate::facts::TargetKind::BlockDevice;
    if let (true, Some(limit), Some(dev)) = (device_queue, f.queue_limit(), &f.block_device) {
        if in_flight > limit {
            w = Some(Warning {
                code: "queue-too-deep".into(),
                message: format!(
                    "{} threads x {} outstanding = {in_flight} I/Os in flight on '{}', but {dev} accepts {limit}: the rest wait in the kernel and add to the latency",
                    t.threads.len(),
                    r.queue_depth,
                    t.path
                ),
                fix: format!(
                    "lower {} or {} so that threads x queue depth is at most {limit}",
                    j.name(Flag::Threads),
                    j.name(Flag::QueueDepth)
                ),
            });
        }
    }
    w
}

fn short_run(r: &RunResult) -> Option<Warning> {
    let (j, file_op) = (&r.job, is_file_op(r));
    let mut w = None;
    if !r.partial && r.measured_ns < MIN_RUN_NS {
        w = Some(Warning {
            code: "short-run".into(),
            message: format!(
                "the measured window was {:.2}s: a run this short misses caches filling, background writeback and burst limits",
                r.measured_ns as f64 / 1e9
            ),
            fix: if file_op {
                "give more files (each has one operation) so that the run lasts at least 5 s"
                    .into()
            } else {
                format!(
                    "measure for at least 5 s ({}); 30-60 s or more for a steady state",
                    j.dialect.assign(Flag::Duration, "5")
                )
            },
        });
    }
    w
}

fn cpu_saturated(r: &RunResult) -> Option<Warning> {
    let j = &r.job;
    let mut w = None;
    if let Some(busy) = cpu_busy_pct(r).filter(|&b| b >= CPU_SATURATED_PCT) {
        w = Some(Warning {
            code: "cpu-saturated".into(),
            message: format!(
                "the CPUs were {busy:.0}% busy during the run: the result may be bound by the CPU, not the storage"
            ),
            fix: format!(
                "use fewer threads ({}) with a deeper queue ({}), stop other work on the machine, and compare iogauge's own CPU time below with the run's",
                j.name(Flag::Threads),
                j.name(Flag::QueueDepth)
            ),
        });
    }
    w
}

/// I/Os that completed inside the submission call: completion latency leaves that out.
fn inline_completion(r: &RunResult) -> Option<Warning> {
    let mut w = None;
    let all = &r.total.all;
    if let (Some(c), Some(sub), Some(tot)) =
        (&all.latency, &all.latency_submission, &all.latency_total)
    {
        let (c50, s50, t50) = (c.at(50.0), sub.at(50.0), tot.at(50.0));
        if let (Some(c50), Some(s50), Some(t50)) = (c50, s50, t50) {
            if s50 > c50 && t50 > 2 * c50 {
                w = Some(Warning {
                    code: "inline-completion".into(),
                    message: format!(
                        "most I/Os completed inside the submission system call: completion latency (p50 {:.1} us) leaves out the {:.1} us spent there; total latency (p50 {:.1} us) is what an application sees",
                        c50 as f64 / 1e3,
                        s50 as f64 / 1e3,
                        t50 as f64 / 1e3
                    ),
                    fix: "read the total row of the latency kinds table (latency_total in JSON); fio reports the same split as slat and clat".into(),
                });
            }
        }
    }
    w
}

fn throughput_varied(r: &RunResult) -> Option<Warning> {
    let cv = throughput_cv(r).filter(|&cv| cv > VARIATION_CV)?;
    let (message, fix) = if r.phases.len() > 1 {
        (
            format!(
                "throughput varied a lot over the run (coefficient of variation {:.0}%) and went through {} phases: the run's average mixes them",
                cv * 100.0,
                r.phases.len()
            ),
            if r.job.timing.until_steady.is_some() {
                "quote the phases' own figures (the phase table; phases[] in JSON)".to_string()
            } else {
                "quote the phases' own figures (the phase table; phases[] in JSON); to stop once a burst has ended and the baseline held, add --until-steady (or run iogauge profile burst)".to_string()
            },
        )
    } else {
        (
            format!(
                "throughput varied a lot over the run (coefficient of variation {:.0}%) without settling at another level: the average hides how unsteady it was",
                cv * 100.0
            ),
            "look at the time series (--output csv) and the latency percentiles; a longer run shows whether it settles".to_string(),
        )
    };
    Some(Warning {
        code: "throughput-varied".into(),
        message,
        fix,
    })
}

/// Busy share of all CPUs together over the measured window.
fn cpu_busy_pct(r: &RunResult) -> Option<f64> {
    let (busy, total) = r.cpu.iter().fold((0u64, 0u64), |(b, t), c| {
        (b + c.user_ns + c.kernel_ns, t + c.total_ns())
    });
    (total > 0).then(|| 100.0 * busy as f64 / total as f64)
}

/// Coefficient of variation of throughput over buckets of whole intervals lasting at least
/// [`VARIATION_BUCKET_NS`] (short intervals at low IOPS vary by counting alone); `None`
/// below 4 buckets. The last, possibly partial, interval is left out.
pub fn throughput_cv(r: &RunResult) -> Option<f64> {
    let iv = r.time_series.interval_ns.max(1);
    let per_bucket = VARIATION_BUCKET_NS.div_ceil(iv).max(1) as usize;
    let full: Vec<u64> = r
        .time_series
        .full()
        .map(|s| s.read.bytes + s.write.bytes)
        .collect();
    let buckets: Vec<f64> = full
        .chunks_exact(per_bucket)
        .map(|c| c.iter().sum::<u64>() as f64)
        .collect();
    if buckets.len() < 4 {
        return None;
    }
    let n = buckets.len() as f64;
    let mean = buckets.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return None;
    }
    let var = buckets.iter().map(|b| (b - mean).powi(2)).sum::<f64>() / n;
    Some(var.sqrt() / mean)
}
