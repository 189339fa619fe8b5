//! `iogauge run --why`: checks the verdict on what limited a run (`result::limit`) by running
//! the job again briefly, changed one way at a time: as run (the control, so that the drift
//! of a noisy device between the run and the probes is not read as an effect), the queue
//! depth doubled, the threads doubled, the page cache bypassed or used. Each probe has a
//! short warm-up and window of its own, after the run's measured window: nothing of them is
//! in the run's figures.

use iogauge::os::owned::Cleanup;
use iogauge::result::limit::{Probe, Verdict};
use iogauge::result::RunResult;
use iogauge::runner::{self, Observer};
use iogauge::spec::{CacheMode, EngineKind, JobSpec, Stop};
use std::sync::atomic::{AtomicBool, Ordering};

/// A probe's measured window and warm-up, at most.
const PROBE_NS: u64 = 3_000_000_000;
const PROBE_WARMUP_NS: u64 = 1_000_000_000;
/// A change of less than this is none, on devices whose speed drifts by a few percent.
const MOVED: f64 = 0.10;

/// Run the probes and put their figures and reading into `result.limit`.
pub fn probe(
    job: &JobSpec,
    result: &mut RunResult,
    interrupted: &AtomicBool,
    cleanup: &mut Cleanup,
    observer: &mut dyn Observer,
) {
    let Some(verdict) = result.limit.as_ref().map(|l| l.verdict) else {
        return;
    };
    if let Some(why_not) = refused(job, result) {
        set(result, Vec::new(), format!("no probes: {why_not}"));
        return;
    }
    let passes = changes(&base(job, result), result.engine);
    let mut probes: Vec<Probe> = Vec::new();
    let mut failed = Vec::new();
    for (i, (what, j)) in passes.iter().enumerate() {
        if interrupted.load(Ordering::Relaxed) {
            break;
        }
        observer.begin(&format!("--why: {what}"), i + 1, passes.len());
        let r = runner::run_observed(j, Vec::new(), interrupted, cleanup, observer);
        observer.end();
        match r {
            Ok(r) if !r.partial => probes.push(Probe {
                change: what.clone(),
                iops: r.total.all.iops,
                bytes_per_sec: r.total.all.bytes_per_sec,
                ratio: 0.0,
            }),
            Ok(_) => break,
            Err(e) if i == 0 => {
                set(result, Vec::new(), format!("the probe as run failed: {e}"));
                return;
            }
            Err(e) => failed.push(format!("{what}: {e}")),
        }
    }
    let Some(control) = probes.first().map(|p| p.iops).filter(|&v| v > 0.0) else {
        set(result, Vec::new(), "stopped before a probe ended".into());
        return;
    };
    for p in &mut probes {
        p.ratio = p.iops / control;
    }
    let mut said = read(verdict, &probes);
    for f in failed {
        said.push_str(&format!("; not run: {f}"));
    }
    set(result, probes, said);
}

fn set(result: &mut RunResult, probes: Vec<Probe>, said: String) {
    if let Some(l) = result.limit.as_mut() {
        l.probes = probes;
        l.probed = Some(said);
    }
}

/// Why a run is not probed, if it is not.
fn refused(job: &JobSpec, result: &RunResult) -> Option<String> {
    if result.partial {
        return Some("the run did not end as planned".into());
    }
    if job.file_sets.is_some() || result.targets.iter().any(|t| !t.files.is_empty()) {
        return Some("a set of files is not probed yet".into());
    }
    result
        .targets
        .iter()
        .find(|t| !std::path::Path::new(&t.path).exists())
        .map(|t| format!("'{}' is gone", t.path))
}

/// The job as a short pass on the run's own targets (a temporary file kept for the probes
/// and removed with the run's), without the run's stop rules or verification.
fn base(job: &JobSpec, result: &RunResult) -> JobSpec {
    let mut j = job.clone();
    for (t, r) in j.targets.iter_mut().zip(&result.targets) {
        t.path = r.path.clone().into();
        t.create_size = None;
        t.temporary = false;
    }
    // A file this run made is iogauge's to write again.
    j.allow_overwrite |= result.targets.iter().all(|t| t.created);
    j.timing.warmup_ns = j.timing.warmup_ns.min(PROBE_WARMUP_NS);
    j.timing.stop = Stop::Duration {
        ns: result.measured_ns.clamp(1, PROBE_NS),
    };
    j.timing.until_steady = None;
    j.timing.until_flat = None;
    j.timing.stonewall = None;
    j.timing.cooldown_ns = 0;
    j.verify = None;
    j.limits.latency_target = None;
    j.limits.min_rate = None;
    j
}

/// The passes: as run, then each change on its own.
fn changes(base: &JobSpec, engine: EngineKind) -> Vec<(String, JobSpec)> {
    let mut v = vec![("as run".to_string(), base.clone())];
    // A synchronous engine has one I/O in flight per thread whatever the depth.
    if !matches!(engine, EngineKind::Sync | EngineKind::Mmap) {
        let mut j = base.clone();
        j.queue_depth = (base.queue_depth * 2).min(4096);
        j.submit_batch = j.submit_batch.min(j.queue_depth);
        v.push((
            format!("queue depth {} -> {}", base.queue_depth, j.queue_depth),
            j,
        ));
    }
    let mut j = base.clone();
    j.threads_per_target = base.threads_per_target * 2;
    v.push((
        format!(
            "threads {} -> {}",
            base.threads_per_target, j.threads_per_target
        ),
        j,
    ));
    if !matches!(engine, EngineKind::Null | EngineKind::Delay) {
        let mut j = base.clone();
        let what = match base.cache.is_direct() {
            true => {
                j.cache = CacheMode::Buffered;
                "through the page cache"
            }
            false => {
                j.cache = CacheMode::Direct;
                "around the page cache (O_DIRECT)"
            }
        };
        v.push((what.to_string(), j));
    }
    v
}

/// What the probes say of the verdict, in a sentence.
fn read(verdict: Verdict, probes: &[Probe]) -> String {
    let find = |prefix: &str| probes.iter().find(|p| p.change.starts_with(prefix));
    let gain = |p: &Probe| format!("{} gave {:+.0}%", p.change, 100.0 * (p.ratio - 1.0));
    let moved = |p: &Probe| p.ratio >= 1.0 + MOVED;
    let depth = find("queue depth");
    let threads = find("threads");
    let more = [depth, threads].into_iter().flatten().find(|p| moved(p));
    match verdict {
        // A rate is per thread: more threads raise the ceiling with them. Only a deeper queue
        // tests it.
        Verdict::RateLimit => match depth {
            Some(p) if moved(p) => format!("{}: more in flight raised the figure, so the rate was not all that limited it", gain(p)),
            Some(p) => format!("{}: a deeper queue did not raise the figure, which confirms your rate limit", gain(p)),
            None => "a rate per thread rises with the threads, and this engine has no queue to deepen: not probed".into(),
        },
        Verdict::Device | Verdict::CgroupLimit | Verdict::Server => {
            match more {
                None => format!(
                    "{}: more I/O in flight did not raise the figure, which confirms {}",
                    [depth, threads].into_iter().flatten().map(gain).collect::<Vec<_>>().join(", "),
                    verdict.label()
                ),
                Some(p) => format!(
                    "{}: more in flight raised the figure, so {} was not all that limited it",
                    gain(p),
                    verdict.label()
                ),
            }
        }
        Verdict::QueueDepth => match more {
            Some(p) => format!("{}: more in flight raised the figure, which confirms the depth", gain(p)),
            None => "neither a deeper queue nor more threads raised the figure: the depth was not the limit".into(),
        },
        Verdict::PageCache => match find("around") {
            Some(p) if p.ratio <= 1.0 - MOVED => format!(
                "{}: the figure was the page cache's, which confirms it",
                gain(p)
            ),
            Some(p) => format!("{}: the cache did not make the figure", gain(p)),
            None => "the page cache was not probed".into(),
        },
        _ => probes
            .iter()
            .skip(1)
            .map(gain)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(change: &str, ratio: f64) -> Probe {
        Probe {
            change: change.into(),
            iops: ratio * 1000.0,
            bytes_per_sec: 0.0,
            ratio,
        }
    }

    #[test]
    fn probes_confirm_or_refute_the_verdict() {
        let flat = [
            p("as run", 1.0),
            p("queue depth 32 -> 64", 1.02),
            p("threads 1 -> 2", 0.99),
        ];
        assert!(read(Verdict::Device, &flat).contains("confirms the device"));
        assert!(read(Verdict::QueueDepth, &flat).contains("was not the limit"));
        let up = [p("as run", 1.0), p("queue depth 1 -> 2", 1.8)];
        assert!(read(Verdict::QueueDepth, &up).contains("confirms the depth"));
        assert!(read(Verdict::Device, &up).contains("was not all that limited it"));
        // Threads double a per-thread rate: only the depth tests it.
        let rate = [
            p("as run", 1.0),
            p("queue depth 8 -> 16", 1.01),
            p("threads 1 -> 2", 1.98),
        ];
        assert!(read(Verdict::RateLimit, &rate).contains("confirms your rate limit"));
        let cache = [p("as run", 1.0), p("around the page cache (O_DIRECT)", 0.1)];
        assert!(read(Verdict::PageCache, &cache).contains("confirms"));
    }
}
