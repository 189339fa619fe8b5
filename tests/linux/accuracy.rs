//! The instrument against a known truth: the delay engine completes each I/O after a latency
//! drawn from a known distribution and records what it injected for exactly the I/Os counted;
//! iogauge's reported completion latency must match it at queue depths 1, 16 and 128 (p50
//! within 1% or 2 us, p99 within 3% or 5 us).
//!
//! On a virtual machine the hypervisor can take the CPU away for milliseconds ("steal"), and on
//! a machine with two cores any other task can take the worker's for tens of microseconds; a
//! completion is then seen late: the report is right about what it saw, but accuracy cannot be
//! judged from that run. So a case out of tolerance is repeated (3 runs at most): an error of
//! the instrument shows in every run, a disturbance by chance does not. A case out of
//! tolerance in all 3 runs fails if any of them was undisturbed, and is reported SKIPPED with
//! the stolen time if every one was disturbed. Own harness, so that skips are counted as skips.

use crate::common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// CPU time of finished child processes (user + system), in nanoseconds.
fn children_cpu_ns() -> u64 {
    // SAFETY: getrusage fills a struct we own.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    ns(ru.ru_utime) + ns(ru.ru_stime)
}

/// Whether the machine kept a child from running during `work`: CPU time stolen by the
/// hypervisor (counted in 10 ms ticks, so short thefts go unseen), or a child that got less
/// than `min_cpu_share` of a CPU while it should have been running all along (a spinning
/// delay-engine or null-engine thread).
fn watch<T>(min_cpu_share: f64, work: impl FnOnce() -> T) -> (T, Option<String>) {
    let (steal0, cpu0, t0) = (
        iogauge::stats::cpu::steal_ns(),
        children_cpu_ns(),
        std::time::Instant::now(),
    );
    let out = work();
    let stolen = iogauge::stats::cpu::steal_ns() - steal0;
    let share = (children_cpu_ns() - cpu0) as f64 / t0.elapsed().as_nanos() as f64;
    let why = if stolen > 0 {
        Some(format!(
            "{:.0} ms of CPU stolen by the hypervisor",
            stolen as f64 / 1e6
        ))
    } else if share < min_cpu_share {
        Some(format!("iogauge got {:.0}% of a CPU", share * 100.0))
    } else {
        None
    };
    (out, why)
}

/// One distribution at one queue depth, up to 3 runs.
fn case(file: &Path, dist: &str, qd: u32) -> Outcome {
    let (mut last, mut failed) = (String::new(), None);
    for attempt in 1..=3 {
        let line =
            format!("-c 1M -L -W 0.2 -d 2 --cache buffered --engine delay --delay {dist} -o {qd}");
        // The delay engine spins for the whole run: an undisturbed child uses about one CPU.
        let (r, disturbed) = watch(0.85, || json_l(&line, &[p(file)]));
        let ios = u(&r["total"]["all"]["ios"]);
        let mut bad = Vec::new();
        let mut lines = Vec::new();
        if ios < 1000 {
            bad.push(format!("{dist} qd {qd}: only {ios} I/Os in 2 s"));
        } else {
            let (measured, injected) = (&r["total"]["all"]["latency"], &r["injected_latency"]);
            for (pc, rel, abs_ns) in [(50.0, 0.01, 2_000.0), (99.0, 0.03, 5_000.0)] {
                let (m, i) = (percentile(measured, pc), percentile(injected, pc));
                let tolerance = (i * rel).max(abs_ns);
                let l = format!(
                    "{dist} qd {qd} p{pc}: reported {:.1} us, injected {:.1} us, off {:.2} us (allowed {:.1})",
                    m / 1e3,
                    i / 1e3,
                    (m - i) / 1e3,
                    tolerance / 1e3
                );
                if (m - i).abs() > tolerance {
                    bad.push(l.clone());
                }
                lines.push(l);
            }
        }
        if bad.is_empty() {
            return Outcome::Pass(lines.join("; "));
        }
        match disturbed {
            None => failed = Some(format!("{} (run {attempt}, undisturbed)", bad.join("; "))),
            Some(why) => last = format!("{} (run {attempt}: {why})", bad.join("; ")),
        }
    }
    verdict(failed, last)
}

/// After 3 runs out of tolerance: a failure if one of them was undisturbed.
fn verdict(failed: Option<String>, last_disturbed: String) -> Outcome {
    match failed {
        Some(msg) => Outcome::Fail(format!("out of tolerance in 3 runs: {msg}")),
        None => Outcome::Skip(format!("every run disturbed: {last_disturbed}")),
    }
}

/// `iogauge selftest`: the clock, the overhead per I/O, and the same comparison; every row out
/// of tolerance must carry stolen CPU time.
fn selftest(dir: &Path) -> Outcome {
    // Busy threads (null engine, spinning delay engine) nearly all the time.
    let (o, disturbed) = watch(0.8, || {
        bin()
            .args(["selftest", "--seconds", "1", "--output", "json", "--dir"])
            .arg(dir)
            .output()
            .unwrap()
    });
    let st: Value = match serde_json::from_slice(&o.stdout) {
        Ok(v) => v,
        Err(e) => return Outcome::Fail(format!("no JSON from selftest ({e}): {}", stderr(&o))),
    };
    if f(&st["clock"]["read_cost_ns"]) <= 0.0 {
        return Outcome::Fail("no clock cost".into());
    }
    let overhead = st["overhead"].as_array().unwrap();
    if overhead.len() != 4 {
        return Outcome::Fail(format!("{} overhead rows, expected 4", overhead.len()));
    }
    if let Some(v) = overhead.iter().find(|v| f(&v["ns_per_io"]) >= 1000.0) {
        let msg = format!("overhead per I/O should be under 1 us: {v}");
        return match &disturbed {
            Some(why) => Outcome::Skip(format!("{msg}, on a disturbed machine ({why})")),
            None => Outcome::Fail(msg),
        };
    }
    let rows = st["latency_error"].as_array().unwrap();
    if rows.len() != 12 {
        return Outcome::Fail(format!("{} latency rows, expected 12", rows.len()));
    }
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    if left
        .iter()
        .any(|n| n.to_string_lossy().contains("selftest"))
    {
        return Outcome::Fail(format!("scratch file left behind: {left:?}"));
    }
    let off: Vec<&Value> = rows
        .iter()
        .filter(|e| e["within_tolerance"] != true)
        .collect();
    let passed = off.is_empty();
    if o.status.code() != Some(if passed { 0 } else { 1 }) {
        return Outcome::Fail(format!(
            "exit {:?} does not match the rows",
            o.status.code()
        ));
    }
    // A row is out of tolerance only after 3 runs; it is a failure unless its last run saw
    // stolen CPU or the whole self-test was kept from the CPU.
    if let Some(e) = off.iter().find(|e| u(&e["steal_ns"]) == 0) {
        if disturbed.is_none() {
            return Outcome::Fail(format!("out of tolerance on an undisturbed machine: {e}"));
        }
    }
    if !passed {
        return Outcome::Skip(format!(
            "{} rows out of tolerance on a disturbed machine ({})",
            off.len(),
            disturbed
                .as_deref()
                .unwrap_or("CPU stolen during those runs")
        ));
    }
    Outcome::Pass(format!("{} rows within tolerance", rows.len()))
}

/// At a rate the target can keep, an I/O starts on schedule, so its scheduled latency is its
/// service time: p50 within 100 us of completion latency. A worker woken late would show here.
fn scheduled_latency_at_a_sustainable_rate(file: &Path) -> Outcome {
    let (mut last, mut failed) = (String::new(), None);
    for attempt in 1..=3 {
        // The worker sleeps between I/Os here, so its CPU share says nothing: only steal counts.
        let (r, disturbed) = watch(0.0, || {
            json_l(
                "-c 1M -L -o 1 -d 1 -W 0 --cache buffered --engine delay --delay fixed:1ms --rate-iops 200",
                &[p(file)],
            )
        });
        let all = &r["total"]["all"];
        let (done, sched) = (
            percentile(&all["latency"], 50.0),
            percentile(&all["latency_scheduled"], 50.0),
        );
        let msg = format!(
            "scheduled p50 {:.1} us, completion p50 {:.1} us",
            sched / 1e3,
            done / 1e3
        );
        if (sched - done).abs() < 100_000.0 {
            return Outcome::Pass(msg);
        }
        match disturbed {
            None => failed = Some(format!("{msg} (run {attempt}, undisturbed)")),
            Some(why) => last = format!("{msg} (run {attempt}: {why})"),
        }
    }
    verdict(failed, last)
}

pub fn main() {
    let d = work_dir();
    let file = file_in(&d, "acc.dat");
    let mut cases: Vec<(String, Box<dyn Fn() -> Outcome>)> = Vec::new();
    // At QD128 the delays are 4 times longer: one delay-engine thread completing 128 I/Os per
    // millisecond while spinning is near what one vCPU here sustains, and that limit, not the
    // measurement, would then show. 32 I/Os per millisecond leave it room.
    let plan: [(&str, u32); 9] = [
        ("fixed:1ms", 1),
        ("fixed:1ms", 16),
        ("fixed:4ms", 128),
        ("uniform:500us:1500us", 1),
        ("uniform:500us:1500us", 16),
        ("uniform:2ms:6ms", 128),
        ("lognormal:1ms:0.4", 1),
        ("lognormal:1ms:0.4", 16),
        ("lognormal:4ms:0.4", 128),
    ];
    for (dist, qd) in plan {
        let file = file.clone();
        cases.push((
            format!("latency_{dist}_qd{qd}"),
            Box::new(move || case(&file, dist, qd)),
        ));
    }
    let f = file.clone();
    cases.push((
        "scheduled_latency_at_a_sustainable_rate".into(),
        Box::new(move || scheduled_latency_at_a_sustainable_rate(&f)),
    ));
    let dir = d.path().to_path_buf();
    cases.push(("selftest".into(), Box::new(move || selftest(&dir))));
    harness("accuracy", cases);
}
