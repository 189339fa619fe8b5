//! The ranks' results made one, on rank 0, the way IOR and fio's group reporting count:
//! I/Os and bytes summed; latency histograms merged (a percentile of the whole job, never an
//! average of the ranks' percentiles); rates over the window from the first rank's start to
//! the last rank's finish (IOR's aggregate bandwidth); the time series summed interval by
//! interval on the wall clock; a row per rank and per host to spot a slow client.

use super::Place;
use crate::result::limit::{Limit, Verdict};
use crate::result::{ClusterResult, DirPair, DirResult, ErrorCount, HostRow, RankRow};
use crate::result::{RunResult, Sample, StonewallResult, StopReason, TimeSeries};
use crate::stats::LatencyHistogram;

/// One result for the job from each rank's, in rank order (rank 0 first). Fails only on a
/// histogram that does not decode: a merge that cannot be exact is not made.
pub fn aggregate(parts: Vec<(Place, RunResult)>) -> Result<RunResult, String> {
    let first = parts.first().ok_or("no rank sent a result")?;
    let start = parts
        .iter()
        .map(|(_, r)| r.header.started_unix_ns)
        .min()
        .unwrap_or(0);
    let end_of = |r: &RunResult| r.header.started_unix_ns + r.measured_ns;
    let end = parts.iter().map(|(_, r)| end_of(r)).max().unwrap_or(start);
    let window_ns = end - start;
    let mut out = first.1.clone();
    let totals: Vec<&DirPair> = parts.iter().map(|(_, r)| &r.total).collect();
    out.total = merge_pairs(&totals, window_ns, true)?;
    out.header.started_unix_ns = start;
    out.measured_ns = window_ns;
    out.targets = parts.iter().flat_map(|(_, r)| r.targets.clone()).collect();
    out.errors = errors(&parts);
    out.time_series = time_series(&parts, start, window_ns);
    out.phases = out
        .time_series
        .phases(RunResult::through_cache(&out.job, out.engine));
    out.stop_reason = worst(&parts);
    out.partial = out.stop_reason != StopReason::Completed;
    out.stop_message = parts.iter().find_map(|(p, r)| {
        let m = r.stop_message.as_ref()?;
        Some(format!("rank {} on {}: {m}", p.rank, p.host))
    });
    out.notes = notes(&parts);
    add_usage(&mut out, &parts);
    out.stonewall = stonewall(&parts, start);
    out.verify = verified(&parts);
    out.cluster = Some(cluster(&parts, window_ns)?);
    out.warnings = crate::warnings::check(&out);
    out.signals = None;
    out.limit = ranks_limit(&parts);
    Ok(out)
}

/// What limited the job: each rank judged its own machine, so one verdict where all agree
/// (rank 0's evidence), else "not determined" naming each rank's.
fn ranks_limit(parts: &[(Place, RunResult)]) -> Option<Limit> {
    let each: Vec<(&Place, &Limit)> = parts
        .iter()
        .filter_map(|(p, r)| Some((p, r.limit.as_ref()?)))
        .collect();
    let (_, first) = each.first()?;
    if each.iter().all(|(_, l)| l.verdict == first.verdict) {
        let mut l = (*first).clone();
        l.evidence.insert(
            0,
            format!("on all {} ranks; rank 0's figures follow", each.len()),
        );
        return Some(l);
    }
    Some(Limit {
        verdict: Verdict::NotDetermined,
        label: Verdict::NotDetermined.label().into(),
        evidence: each
            .iter()
            .map(|(p, l)| format!("rank {} on {}: {}", p.rank, p.host, l.label))
            .collect(),
        probes: Vec::new(),
        probed: None,
    })
}

/// Every rank's verification summed (each checked its own data): units checked and wrong,
/// the first mismatches of each, the read-back pass's counts; the pass took as long as the
/// slowest rank's.
fn verified(parts: &[(Place, RunResult)]) -> Option<crate::verify::VerifyResult> {
    let mut each = parts.iter().filter_map(|(_, r)| r.verify.as_ref());
    let mut v = each.next()?.clone();
    for o in each {
        v.map_bytes += o.map_bytes;
        v.checked += o.checked;
        v.unjudged += o.unjudged;
        v.mismatch_count += o.mismatch_count;
        v.mismatches.extend(o.mismatches.iter().cloned());
        v.states.extend(o.states.iter().cloned());
        v.checkpoints += o.checkpoints;
        let (Some(p), Some(q)) = (v.pass.as_mut(), o.pass.as_ref()) else {
            continue;
        };
        p.checked += q.checked;
        p.unjudged += q.unjudged;
        p.bytes += q.bytes;
        p.elapsed_ns = p.elapsed_ns.max(q.elapsed_ns);
        p.mismatches += q.mismatches;
        p.newer += q.newer;
        for (kind, n) in &q.by_kind {
            *p.by_kind.entry(kind.clone()).or_default() += n;
        }
    }
    Some(v)
}

/// `parts` summed, with rates over `window_ns`; `histograms`: keep the merged completion and
/// total histograms (the job's total), else only their summaries (the rows).
fn merge_pairs(parts: &[&DirPair], window_ns: u64, histograms: bool) -> Result<DirPair, String> {
    let dir = |f: fn(&DirPair) -> &DirResult| {
        let ds: Vec<&DirResult> = parts.iter().map(|p| f(p)).collect();
        merge_dirs(&ds, window_ns, histograms)
    };
    let trims: Vec<&DirResult> = parts.iter().filter_map(|p| p.trim.as_ref()).collect();
    Ok(DirPair {
        read: dir(|p| &p.read)?,
        write: dir(|p| &p.write)?,
        trim: match trims.is_empty() {
            true => None,
            false => Some(merge_dirs(&trims, window_ns, histograms)?),
        },
        all: dir(|p| &p.all)?,
    })
}

fn merge_dirs(ds: &[&DirResult], window_ns: u64, keep: bool) -> Result<DirResult, String> {
    let ios = ds.iter().map(|d| d.ios).sum();
    let bytes = ds.iter().map(|d| d.bytes).sum();
    let secs = window_ns as f64 / 1e9;
    let rate = |v: u64| if secs > 0.0 { v as f64 / secs } else { 0.0 };
    let completion = merged(ds, |d| (&d.latency, &d.latency_histogram))?;
    let total = merged(ds, |d| (&d.latency_total, &d.latency_total_histogram))?;
    let submission = merged(ds, |d| {
        (&d.latency_submission, &d.latency_submission_histogram)
    })?;
    let scheduled = merged(ds, |d| {
        (&d.latency_scheduled, &d.latency_scheduled_histogram)
    })?;
    let summary = |h: &Option<LatencyHistogram>| h.as_ref().and_then(|h| h.summary());
    let b64 = |h: &Option<LatencyHistogram>| {
        h.as_ref()
            .filter(|h| keep && h.count() > 0)
            .map(|h| h.to_base64())
    };
    Ok(DirResult {
        ios,
        bytes,
        iops: rate(ios),
        bytes_per_sec: rate(bytes),
        latency: summary(&completion),
        latency_submission: summary(&submission),
        latency_total: summary(&total),
        latency_scheduled: summary(&scheduled),
        latency_histogram: b64(&completion),
        latency_total_histogram: b64(&total),
        latency_submission_histogram: None,
        latency_scheduled_histogram: None,
    })
}

type SummaryAndHist<'a> = (&'a Option<crate::stats::LatencySummary>, &'a Option<String>);

/// The ranks' histograms of one latency merged; `None` where no rank measured it. A rank
/// with a summary but no histogram would make the merge a guess: an error instead.
fn merged(
    ds: &[&DirResult],
    pick: impl Fn(&DirResult) -> SummaryAndHist<'_>,
) -> Result<Option<LatencyHistogram>, String> {
    let mut out: Option<LatencyHistogram> = None;
    for d in ds {
        match pick(d) {
            (_, Some(text)) => {
                let h = LatencyHistogram::from_base64(text)?;
                out.get_or_insert_with(LatencyHistogram::new).merge(&h);
            }
            (Some(_), None) => {
                return Err("a rank sent a latency summary without its histogram".into())
            }
            _ => {}
        }
    }
    Ok(out)
}

fn errors(parts: &[(Place, RunResult)]) -> Vec<ErrorCount> {
    let mut out: Vec<ErrorCount> = Vec::new();
    for (_, r) in parts {
        crate::result::merge_errors(&mut out, &r.errors);
    }
    out
}

/// The ranks' intervals summed on the wall clock: a rank's interval goes to the job's
/// interval its start falls nearest to (the ranks start within the start skew of each
/// other, far less than an interval). The latency mean is weighted by I/Os; a p99 cannot be
/// merged from p99s, so the job's intervals carry none.
fn time_series(parts: &[(Place, RunResult)], start: u64, window_ns: u64) -> TimeSeries {
    let interval = parts[0].1.time_series.interval_ns.max(1);
    let mut samples: Vec<Sample> = Vec::new();
    let mut lat_sums: Vec<[u128; 3]> = Vec::new();
    let trims = !parts[0].1.job.shape.trim.is_none();
    for (_, r) in parts {
        let offset = r.header.started_unix_ns - start;
        for s in &r.time_series.samples {
            let i = ((offset + s.start_ns + interval / 2) / interval) as usize;
            while samples.len() <= i {
                samples.push(empty_sample(
                    samples.len() as u64 * interval,
                    interval,
                    trims,
                ));
                lat_sums.push([0; 3]);
            }
            let t = &mut samples[i];
            let trim = t.trim.as_mut().zip(s.trim.as_ref());
            let pairs = [(&mut t.read, &s.read), (&mut t.write, &s.write)];
            for (d, (to, from)) in pairs.into_iter().chain(trim).enumerate() {
                to.ios += from.ios;
                to.bytes += from.bytes;
                if let Some(m) = from.latency_mean_ns {
                    lat_sums[i][d] += m as u128 * from.ios as u128;
                }
            }
        }
    }
    // The last interval cut at the job's end, as a single run's is.
    samples.retain(|s| s.start_ns < window_ns);
    for (s, sums) in samples.iter_mut().zip(&lat_sums) {
        s.duration_ns = interval.min(window_ns - s.start_ns);
        let trim = s.trim.as_mut().map(|t| (t, sums[2]));
        for (d, sum) in [(&mut s.read, sums[0]), (&mut s.write, sums[1])]
            .into_iter()
            .chain(trim)
        {
            d.latency_mean_ns = (d.ios > 0 && sum > 0).then(|| (sum / d.ios as u128) as u64);
            d.latency_p99_ns = None;
        }
    }
    TimeSeries {
        interval_ns: interval,
        samples,
    }
}

fn empty_sample(start_ns: u64, interval: u64, trims: bool) -> Sample {
    Sample {
        start_ns,
        duration_ns: interval,
        read: Default::default(),
        write: Default::default(),
        trim: trims.then(Default::default),
    }
}

/// An I/O error anywhere, else an interruption anywhere, else completed.
fn worst(parts: &[(Place, RunResult)]) -> StopReason {
    let any = |s| parts.iter().any(|(_, r)| r.stop_reason == s);
    if any(StopReason::IoError) {
        StopReason::IoError
    } else if any(StopReason::Interrupted) {
        StopReason::Interrupted
    } else {
        StopReason::Completed
    }
}

/// Rank 0's notes, then another rank's where it said something rank 0 did not.
fn notes(parts: &[(Place, RunResult)]) -> Vec<String> {
    let mut out = parts[0].1.notes.clone();
    for (p, r) in &parts[1..] {
        for n in &r.notes {
            if !parts[0].1.notes.contains(n) {
                out.push(format!("rank {} on {}: {n}", p.rank, p.host));
            }
        }
    }
    out
}

/// iogauge's own footprint, all ranks: CPU time summed, the largest resident size. The
/// system's CPU figures stay rank 0's (one host's), as do the clock and system facts.
fn add_usage(out: &mut RunResult, parts: &[(Place, RunResult)]) {
    let u = &mut out.iogauge_usage;
    for (_, r) in &parts[1..] {
        u.user_cpu_ns += r.iogauge_usage.user_cpu_ns;
        u.system_cpu_ns += r.iogauge_usage.system_cpu_ns;
        u.max_rss_bytes = u.max_rss_bytes.max(r.iogauge_usage.max_rss_bytes);
        out.waits.add(&r.waits);
    }
    // Neither can be merged exactly from the ranks' summaries.
    out.injected_latency = None;
    if let Some(f) = &mut out.flushes {
        for (_, r) in &parts[1..] {
            let other = r.flushes.as_ref();
            f.count += other.map_or(0, |o| o.count);
            f.end_fsync_max_ns = f
                .end_fsync_max_ns
                .max(other.and_then(|o| o.end_fsync_max_ns));
        }
        f.latency = None;
    }
}

/// The job's stonewall: bytes by the deadline summed, reached where any rank reached it,
/// stopped when the last rank had stopped, counted from the first rank's start (so that its
/// rate is over the job's stonewalled window, as IOR's).
fn stonewall(parts: &[(Place, RunResult)], start: u64) -> Option<StonewallResult> {
    let walls: Vec<(&RunResult, &StonewallResult)> = parts
        .iter()
        .filter_map(|(_, r)| Some((r, r.stonewall.as_ref()?)))
        .collect();
    let first = walls.first()?.1;
    Some(StonewallResult {
        deadline_ns: first.deadline_ns,
        wear_out: first.wear_out,
        reached: walls.iter().any(|(_, w)| w.reached),
        bytes_at_deadline: walls.iter().map(|(_, w)| w.bytes_at_deadline).sum(),
        stopped_ns: walls
            .iter()
            .map(|(r, w)| r.header.started_unix_ns + w.stopped_ns - start)
            .max()
            .unwrap_or(0),
        bytes_per_thread: walls.iter().filter_map(|(_, w)| w.bytes_per_thread).max(),
    })
}

fn cluster(parts: &[(Place, RunResult)], window_ns: u64) -> Result<ClusterResult, String> {
    let starts = parts.iter().map(|(_, r)| r.header.started_unix_ns);
    let ends = parts
        .iter()
        .map(|(_, r)| r.header.started_unix_ns + r.measured_ns);
    let spread = |v: Vec<u64>| v.iter().max().unwrap_or(&0) - v.iter().min().unwrap_or(&0);
    let mut hosts: Vec<String> = Vec::new();
    for (p, _) in parts {
        if !hosts.contains(&p.host) {
            hosts.push(p.host.clone());
        }
    }
    let rank_rows = parts
        .iter()
        .map(|(p, r)| {
            Ok(RankRow {
                rank: p.rank,
                host: p.host.clone(),
                local_rank: p.local_rank,
                started_unix_ns: r.header.started_unix_ns,
                measured_ns: r.measured_ns,
                stop_reason: r.stop_reason,
                targets: r.targets.iter().map(|t| t.path.clone()).collect(),
                total: merge_pairs(&[&r.total], r.measured_ns, false)?,
                stonewall: r.stonewall.clone(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let host_rows = hosts
        .iter()
        .map(|h| {
            let mine: Vec<&(Place, RunResult)> =
                parts.iter().filter(|(p, _)| &p.host == h).collect();
            let totals: Vec<&DirPair> = mine.iter().map(|(_, r)| &r.total).collect();
            Ok(HostRow {
                host: h.clone(),
                ranks: mine.iter().map(|(p, _)| p.rank).collect(),
                total: merge_pairs(&totals, window_ns, false)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(ClusterResult {
        ranks: parts.len() as u32,
        hosts: hosts.len() as u32,
        start_skew_ns: spread(starts.collect()),
        end_skew_ns: spread(ends.collect()),
        sum_of_rank_bytes_per_sec: parts.iter().map(|(_, r)| r.total.all.bytes_per_sec).sum(),
        rank_rows,
        host_rows,
    })
}
