//! How fast a job goes: limits (`rate`, `rate_iops`), floors (`rate_min`, `rate_iops_min`,
//! `ratecycle`) and pauses between I/Os (`thinktime` and its `_spin` and `_blocks`).

use crate::error::Result;
use crate::spec::fio::options::Set;
use crate::spec::fio::parse_time_ns;
use crate::spec::{DirRates, FlowShare, LatencyTarget, Rate, Think};

/// fio's rate and rate_iops: `X` limits each direction on its own, `R,W` reads and writes (an
/// empty part: not limited); where both name a direction, rate wins, as in fio. A job that
/// only reads or only writes gets one limit for both (the same thing); a mixed one, limits
/// apart.
pub(super) fn read_rates(
    set: &Set,
    reads: bool,
    writes: bool,
    notes: &mut Vec<String>,
) -> Result<(Option<Rate>, Option<DirRates>)> {
    let parse = |key: &str| -> Result<[Option<Rate>; 2]> {
        let [r, w] = set.per_dir(key, key == "rate")?;
        let rate = |n: Option<u64>| -> Result<Option<Rate>> {
            match n {
                Some(0) => Err(set.err(key, "a limit of 0 would stop the job")),
                Some(n) if key == "rate" => Ok(Some(Rate::Bytes { per_sec: n })),
                Some(iops) => Ok(Some(Rate::Iops { iops })),
                None => Ok(None),
            }
        };
        Ok([rate(r)?, rate(w)?])
    };
    let (bytes, iops) = (parse("rate")?, parse("rate_iops")?);
    if (0..2).any(|d| bytes[d].is_some() && iops[d].is_some()) {
        notes.push("rate and rate_iops both limit a direction: rate applies, as in fio".into());
    }
    let read = bytes[0].or(iops[0]).filter(|_| reads);
    let write = bytes[1].or(iops[1]).filter(|_| writes);
    Ok(match (reads && writes, read, write) {
        (_, None, None) => (None, None),
        (true, read, write) => (None, Some(DirRates { read, write })),
        (false, one, None) | (false, None, one) => (one, None),
        (false, Some(_), Some(_)) => unreachable!("a job that only reads or only writes"),
    })
}

/// fio's rate_min, rate_iops_min and ratecycle: as rate, one value is a floor for each
/// direction of a mixed job on its own and `R,W` gives them apart; a job that only reads or
/// only writes gets one floor (the same thing).
pub(super) fn read_min_rate(
    set: &Set,
    reads: bool,
    writes: bool,
) -> Result<Option<crate::spec::MinRate>> {
    let parse = |key: &str| -> Result<[u64; 2]> {
        let [r, w] = set.per_dir(key, key == "rate_min")?;
        Ok([r.unwrap_or(0), w.unwrap_or(0)])
    };
    let (bytes, iops) = (parse("rate_min")?, parse("rate_iops_min")?);
    let floor = |d: usize| crate::spec::Floor {
        bytes_per_sec: bytes[d],
        iops: iops[d],
    };
    let (r, w) = (floor(0), floor(1));
    let none = crate::spec::Floor::default();
    let window_ns = set
        .int("ratecycle")?
        .unwrap_or(1000)
        .saturating_mul(1_000_000);
    let together = |f: crate::spec::Floor| crate::spec::MinRate {
        bytes_per_sec: f.bytes_per_sec,
        iops: f.iops,
        window_ns,
        apart: None,
    };
    Ok(match (reads, writes) {
        (true, true) if r == none && w == none => None,
        (true, true) => Some(crate::spec::MinRate {
            bytes_per_sec: 0,
            iops: 0,
            window_ns,
            apart: Some([r, w]),
        }),
        (true, false) => (r != none).then(|| together(r)),
        (false, _) => (w != none).then(|| together(w)),
    })
}

/// fio's `latency_target` and `latency_window` (microseconds without a unit),
/// `latency_percentile` (default 100) and `latency_run`: without a target fio ignores the
/// others, and so does iogauge.
pub(super) fn read_latency_target(set: &Set) -> Result<Option<LatencyTarget>> {
    let us = |key: &str| -> Result<Option<u64>> {
        set.text(key)
            .map(|v| parse_time_ns(v, 1_000).map_err(|e| set.err(key, e)))
            .transpose()
    };
    let window_ns = us("latency_window")?.unwrap_or(0);
    let pct = match set.text("latency_percentile") {
        Some(v) => {
            let p: f64 = v
                .trim()
                .parse()
                .map_err(|_| set.err("latency_percentile", "is not a number"))?;
            if !(0.0..=100.0).contains(&p) {
                return Err(set.err("latency_percentile", "must be between 0 and 100"));
            }
            p
        }
        None => 100.0,
    };
    let keep_adjusting = set.flag("latency_run")?.unwrap_or(false);
    // latency_target=0 is fio's default: no target.
    let Some(ns) = us("latency_target")?.filter(|&ns| ns > 0) else {
        return Ok(None);
    };
    Ok(Some(LatencyTarget {
        ns,
        window_ns,
        pct,
        keep_adjusting,
    }))
}

/// fio's `thinktime` (microseconds without a unit), `thinktime_spin` and `thinktime_blocks`.
pub(super) fn read_think(set: &Set) -> Result<Option<Think>> {
    let us = |key: &str| -> Result<Option<u64>> {
        set.text(key)
            .map(|v| parse_time_ns(v, 1_000).map_err(|e| set.err(key, e)))
            .transpose()
    };
    let Some(ns) = us("thinktime")?.filter(|&ns| ns > 0) else {
        return Ok(None);
    };
    let spin_ns = us("thinktime_spin")?.unwrap_or(0);
    if spin_ns > ns {
        return Err(set.err("thinktime_spin", "is longer than thinktime"));
    }
    let every = set.int("thinktime_blocks")?.unwrap_or(1).max(1);
    Ok(Some(Think {
        ns,
        spin_ns,
        every: every.min(u32::MAX as u64) as u32,
    }))
}

/// fio's `rate_process`: `linear` (evenly spaced starts, the default) or `poisson`; and its
/// `io_submit_mode`, which asks for the same thing by other means: `offload` hands
/// submissions to other threads so that a backed-up device does not delay the schedule.
/// iogauge's schedule never waits for completions, and each I/O's latency from the time it
/// was due is reported beside its own (the scheduled latency), so it runs `offload` inline.
/// Whether starts are a Poisson process.
pub(super) fn read_rate_process(set: &Set, limited: bool, notes: &mut Vec<String>) -> Result<bool> {
    match set.text("io_submit_mode") {
        None | Some("inline") => {}
        Some("offload") => notes.push(
            "io_submit_mode=offload: iogauge submits from the job's own thread on a schedule \
             that never waits for completions, and reports latency from when each I/O was due"
                .into(),
        ),
        Some(v) => return Err(set.err("io_submit_mode", format!("'{v}' is not inline or offload"))),
    }
    let poisson = match set.text("rate_process") {
        None | Some("linear") => false,
        Some("poisson") => true,
        Some(v) => return Err(set.err("rate_process", format!("'{v}' is not linear or poisson"))),
    };
    if poisson && !limited {
        notes.push(
            "rate_process=poisson has no effect without rate or rate_iops (as in fio)".into(),
        );
        return Ok(false);
    }
    Ok(poisson)
}

/// fio's `flow` (the job's weight; 0, the default, leaves it out of flow control),
/// `flow_id` (0 unless given) and `flow_sleep` (microseconds to wait when ahead of its
/// share; 0 asks again at once).
pub(super) fn read_flow(set: &Set) -> Result<Option<FlowShare>> {
    let weight = match set.text("flow").map(str::trim) {
        None | Some("0") => return Ok(None),
        Some(v) => v.parse::<u32>().map_err(|_| {
            let why = match v.starts_with('-') {
                true => "a negative weight is fio's old flow control, before 3.23: give a weight above 0",
                false => "is not a whole number",
            };
            set.err("flow", format!("'{v}': {why}"))
        })?,
    };
    // fio's FLOW_MAX_WEIGHT.
    if weight > 1000 {
        return Err(set.err(
            "flow",
            format!("{weight} is more than 1000, fio's largest weight"),
        ));
    }
    let id = match set.int("flow_id")? {
        Some(id) => u32::try_from(id).map_err(|_| set.err("flow_id", "is too large"))?,
        None => 0,
    };
    let sleep_ns = set
        .text("flow_sleep")
        .map(|v| parse_time_ns(v, 1_000).map_err(|e| set.err("flow_sleep", e)))
        .transpose()?
        .unwrap_or(0);
    Ok(Some(FlowShare {
        id,
        weight,
        sleep_ns,
    }))
}
