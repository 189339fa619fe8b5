//! The stage after the I/O: workers joined, the files a file-create engine really made handed
//! to clean-up, and the run's end decided: why it stopped (completed, a signal, an error, a
//! settled burst) and how long the measured window really was. A verify pass goes after this.

use super::measure::{flat_base, Measured, Worker};
use super::prepare::Prepared;
use super::worker::WorkerOutcome;
use super::Control;
use crate::engine::EngineKind;
use crate::error::{Error, Result};
use crate::os::owned::Cleanup;
use crate::result::{StonewallResult, StopReason};
use crate::spec::{Flag, JobSpec, Stop};
use crate::stats::flat;
use std::sync::atomic::Ordering;

/// How the run ended.
pub struct Finished {
    pub outcomes: Vec<WorkerOutcome>,
    pub stop_reason: StopReason,
    pub stop_message: Option<String>,
    pub measured_ns: u64,
    pub stonewall: Option<StonewallResult>,
}

/// Wait for every worker; the first setup error (or a panic) ends the run with an error.
pub fn join(workers: Vec<Worker>) -> Result<Vec<WorkerOutcome>> {
    let mut outcomes = Vec::new();
    let mut setup_error = None;
    for h in workers {
        match h.join() {
            Ok(Ok(o)) => outcomes.push(o),
            Ok(Err(e)) => {
                setup_error.get_or_insert(e);
                outcomes.push(WorkerOutcome::none());
            }
            Err(_) => return Err(Error::runtime("a worker thread panicked")),
        }
    }
    match setup_error {
        Some(e) => Err(Error::runtime(e)),
        None => Ok(outcomes),
    }
}

/// Only the creates that happened made iogauge's files: a name taken meanwhile is not.
pub fn adopt_created(
    kind: EngineKind,
    p: &mut Prepared,
    cleanup: &mut Cleanup,
    notes: &mut Vec<String>,
) {
    if !kind.caps().creates_files {
        return;
    }
    for (t, made) in p.targets.iter_mut().zip(&p.done) {
        t.created = made.load(Ordering::Relaxed);
    }
    for t in p.targets.iter().filter(|t| t.created) {
        if let Err(e) = cleanup.created_named(&t.path) {
            notes.push(format!("{e}; it is left in place"));
        }
    }
}

/// Why the run stopped and how long its measured window was, with a note where a rule
/// (--until-steady, a time limit on --total) decided the end.
pub fn finish(
    job: &JobSpec,
    ctl: &Control,
    m: &Measured,
    outcomes: Vec<WorkerOutcome>,
    notes: &mut Vec<String>,
) -> Finished {
    let m0 = ctl.measure_start_ns.load(Ordering::Relaxed);
    let m1 = ctl.measure_end_ns.load(Ordering::Relaxed);
    let failure = ctl.failure.lock().ok().and_then(|f| f.clone());
    let (stop_reason, stop_message, cut_at) = if let Some((msg, at)) = failure {
        (StopReason::IoError, Some(msg), Some(at))
    } else if let Some(at) = m.interrupted_at {
        (
            StopReason::Interrupted,
            Some("stopped by a signal (Ctrl-C or SIGTERM)".to_string()),
            Some(at),
        )
    } else if let Some(at) = m
        .steady_at
        .map(|(at, _)| at)
        .or(m.flat_at)
        .or(m.halted_at)
        // A latency target's search settled: the job ends there, as fio's does.
        .or(outcomes.iter().filter_map(|o| o.settled_ns).min())
    {
        (StopReason::Completed, None, Some(at))
    } else {
        (StopReason::Completed, None, None)
    };
    steady_note(job, m, m0, m1, notes);
    flat_note(job, m, m0, m1, notes);
    let planned_end = if m1 == u64::MAX {
        bytes_end(job, &outcomes, m0, cut_at.is_none(), notes)
    } else {
        m1
    };
    let measured_end = cut_at.map_or(planned_end, |c| c.min(planned_end));
    let stonewall = stonewall(job, ctl, &outcomes, m0, measured_end);
    Finished {
        outcomes,
        stop_reason,
        stop_message,
        measured_ns: measured_end.saturating_sub(m0),
        stonewall,
    }
}

/// How the stonewall went: with wear-out, as the workers met it; without, the deadline was
/// the stop, so what was counted is what was done by it.
fn stonewall(
    job: &JobSpec,
    ctl: &Control,
    outcomes: &[WorkerOutcome],
    m0: u64,
    end: u64,
) -> Option<StonewallResult> {
    let wall = job.timing.stonewall?;
    let mut r = StonewallResult {
        deadline_ns: wall.ns,
        wear_out: wall.wear_out,
        reached: false,
        bytes_at_deadline: 0,
        stopped_ns: 0,
        bytes_per_thread: None,
    };
    if wall.wear_out {
        // No verdict: the run ended another way (Ctrl-C, an error) before the deadline.
        let at = ctl.wall.outcome()?;
        r.reached = at.reached;
        r.bytes_at_deadline = at.bytes;
        r.stopped_ns = if at.reached {
            at.settled_at.saturating_sub(m0)
        } else {
            end.saturating_sub(m0)
        };
        r.bytes_per_thread = at.quota;
    } else {
        let undone = outcomes.iter().any(|o| o.quota_done_ns.is_none());
        r.reached = undone && end.saturating_sub(m0) >= wall.ns;
        r.bytes_at_deadline = outcomes
            .iter()
            .map(|o| o.totals[0].bytes + o.totals[1].bytes)
            .sum();
        r.stopped_ns = end.saturating_sub(m0);
    }
    Some(r)
}

/// What `--until-steady` decided.
fn steady_note(job: &JobSpec, m: &Measured, m0: u64, m1: u64, notes: &mut Vec<String>) {
    let Some(rule) = job.timing.until_steady else {
        return;
    };
    let secs = |ns: u64| ns as f64 / 1e9;
    let iv = job.timing.interval_ns as f64;
    let mbs = |per_interval: f64| per_interval * 1e9 / iv / 1e6;
    notes.push(match m.steady_at {
        Some((at, s)) => format!(
            "stopped after {:.1}s of {:.1}s: a burst of {:.1} MB/s for {:.1}s fell to {:.1} MB/s ({:.1}x lower), which held for {:.1}s",
            secs(at.saturating_sub(m0)),
            secs(m1.saturating_sub(m0)),
            mbs(s.burst),
            s.burst_intervals as f64 * iv / 1e9,
            mbs(s.baseline),
            s.burst / s.baseline.max(f64::MIN_POSITIVE),
            secs(rule.window_ns),
        ),
        None if m.interrupted_at.is_some() => format!(
            "interrupted before throughput had fallen {}% below a burst and held for {:.1}s",
            rule.drop_pct,
            secs(rule.window_ns),
        ),
        None => format!(
            "throughput did not fall {}% below a burst and hold for {:.1}s within the {:.1}s maximum: the burst may last longer (raise {})",
            rule.drop_pct,
            secs(rule.window_ns),
            secs(m1.saturating_sub(m0)),
            job.name(Flag::Duration)
        ),
    });
}

/// What the flat-window rule (fio's steadystate=) decided, replayed over the series.
fn flat_note(job: &JobSpec, m: &Measured, m0: u64, m1: u64, notes: &mut Vec<String>) {
    let Some(rule) = job.timing.until_flat else {
        return;
    };
    let secs = |ns: u64| ns as f64 / 1e9;
    // Whole intervals of the measured window only: not one cut off by a signal (it would read
    // as a fall), not the cool-down. The fio-shaped report replays the same intervals.
    let end = m
        .flat_at
        .or(m.interrupted_at)
        .unwrap_or(m1)
        .saturating_sub(m0);
    let samples = &m.collector.samples;
    let within = ((end / job.timing.interval_ns) as usize).min(samples.len());
    let bases: Vec<flat::Base> = samples[..within].iter().map(flat_base).collect();
    let r = flat::replay(&bases, &rule, job.timing.interval_ns);
    let rule_text = format!(
        "{}={} over {}s",
        job.name(Flag::UntilFlat).0,
        rule.text(),
        secs(rule.window_ns)
    );
    notes.push(match (m.flat_at, r.verdict) {
        (Some(at), Some(v)) => format!(
            "steady state attained ({rule_text}): stopped after {:.1}s of {}: {}",
            secs(at.saturating_sub(m0)),
            if m1 == u64::MAX {
                "the planned bytes".to_string()
            } else {
                format!("{:.1}s", secs(m1 - m0))
            },
            flat::describe(&rule, &v)
        ),
        (_, None) => format!(
            "steady state not attained ({rule_text}): the run gave {} of the window's {} points",
            r.window.len(),
            rule.points()
        ),
        (_, Some(v)) if m.interrupted_at.is_some() => format!(
            "interrupted before steady state ({rule_text}); the last window had {}",
            flat::describe(&rule, &v)
        ),
        (_, Some(v)) => format!(
            "steady state not attained ({rule_text}) within the run; the last window had {}",
            flat::describe(&rule, &v)
        ),
    });
}

/// The end of a run by bytes: when the last worker finished its share, or the time limit
/// where some worker did not.
fn bytes_end(
    job: &JobSpec,
    outcomes: &[WorkerOutcome],
    m0: u64,
    uncut: bool,
    notes: &mut Vec<String>,
) -> u64 {
    let done = outcomes.iter().filter_map(|o| o.quota_done_ns).max();
    // Cut (a signal, an error, a stop rule) before every thread had done its bytes: the cut
    // is the end.
    let undone = outcomes.iter().any(|o| o.quota_done_ns.is_none());
    if !uncut && undone {
        return u64::MAX;
    }
    if let Some(wall) = job.timing.stonewall.filter(|w| !w.wear_out && undone) {
        return m0 + wall.ns;
    }
    match job.timing.stop {
        Stop::TotalBytes {
            max_ns: Some(limit),
            ..
        } if undone => {
            if uncut {
                notes.push(format!(
                    "the duration limit of {:.1}s ended the run before every thread had done its bytes",
                    limit as f64 / 1e9
                ));
            }
            m0 + limit
        }
        _ => done.unwrap_or(m0),
    }
}
