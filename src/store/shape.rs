//! What `results import` checks before it saves a result file: that the parts of the result
//! fit together (an index within its list, one cell per file system, a job iogauge could have
//! run, histograms that decode, intervals inside the measured window), so that every reader
//! (show, export, compare, report) can rely on them. A result iogauge wrote always passes;
//! a file edited or made by hand may not, and is refused with what is wrong.

use super::record::Record;
use crate::error::{Error, Result as Outcome};
use crate::result::fs::FsResult;
use crate::result::profile::ProfileResult;
use crate::result::{DirPair, RunResult};
use crate::stats::LatencyHistogram;

impl Record {
    /// Read a result file for `results import`: [`Record::from_json`], then the checks that
    /// every reader relies on (this file's [`check`]). `source` names the file in errors.
    pub fn import(text: &str, source: &str) -> Outcome<Record> {
        let r = Record::from_json(text, source)?;
        check(&r).map_err(|e| Error::usage(format!("'{source}' cannot be imported: {e}")))?;
        Ok(r)
    }
}

/// Why `r` cannot be imported, in a few words, or nothing.
pub fn check(r: &Record) -> Result<(), String> {
    match r {
        Record::Run(r) => run(r),
        Record::Profile(p) => profile(p),
        Record::Fs(f) => fs(f),
        Record::Sweep(s) => sweep(s),
        Record::Workload(w) => workload(w),
    }
}

fn run(r: &RunResult) -> Result<(), String> {
    r.job
        .validate()
        .map_err(|e| format!("its job is not one iogauge can run ({e})"))?;
    if r.targets.is_empty() {
        return Err("it lists no targets".into());
    }
    histograms("total", &r.total)?;
    for (i, t) in r.targets.iter().enumerate() {
        histograms(&format!("targets[{i}].total"), &t.total)?;
        for (j, th) in t.threads.iter().enumerate() {
            histograms(&format!("targets[{i}].threads[{j}].total"), &th.total)?;
        }
    }
    series(r)
}

/// Every latency histogram of `pair` decodes.
fn histograms(at: &str, pair: &DirPair) -> Result<(), String> {
    for (dir, d) in [
        ("read", &pair.read),
        ("write", &pair.write),
        ("all", &pair.all),
    ] {
        for (field, h) in [
            ("latency_histogram", &d.latency_histogram),
            ("latency_total_histogram", &d.latency_total_histogram),
        ] {
            if let Some(text) = h {
                LatencyHistogram::from_base64(text)
                    .map_err(|e| format!("{at}.{dir}.{field} does not decode: {e}"))?;
            }
        }
    }
    Ok(())
}

/// Each interval of the time series is 1 ns to one interval long and ends in the measured
/// window, as the runner makes them.
fn series(r: &RunResult) -> Result<(), String> {
    let ts = &r.time_series;
    if ts.interval_ns == 0 {
        return Err("time_series.interval_ns is 0".into());
    }
    for (i, s) in ts.samples.iter().enumerate() {
        let end = s.start_ns.checked_add(s.duration_ns);
        if s.duration_ns == 0 || s.duration_ns > ts.interval_ns {
            return Err(format!(
                "time_series.samples[{i}] lasts {} ns, not 1 to interval_ns ({})",
                s.duration_ns, ts.interval_ns
            ));
        }
        if end.is_none_or(|e| e > r.measured_ns) {
            return Err(format!(
                "time_series.samples[{i}] ends after the measured window of {} ns",
                r.measured_ns
            ));
        }
    }
    Ok(())
}

fn profile(p: &ProfileResult) -> Result<(), String> {
    if p.passes.is_empty() {
        return Err("the profile result has no passes".into());
    }
    for (i, pass) in p.passes.iter().enumerate() {
        run(&pass.result).map_err(|e| format!("pass {} ('{}'): {e}", i + 1, pass.label))?;
    }
    Ok(())
}

fn fs(f: &FsResult) -> Result<(), String> {
    let n = f.filesystems.len();
    if n == 0 {
        return Err("its filesystems list is empty".into());
    }
    if f.reference >= n {
        return Err(format!(
            "its reference ({}) is past its {n} file system(s) (0 to {})",
            f.reference,
            n - 1
        ));
    }
    for t in &f.tests {
        if t.cells.len() != n {
            return Err(format!(
                "test '{}' has {} cell(s) for {n} file system(s)",
                t.name,
                t.cells.len()
            ));
        }
    }
    f.params
        .validate()
        .map_err(|e| format!("its params are not ones iogauge fs runs with ({e})"))
}

fn sweep(s: &crate::result::sweep::SweepResult) -> Result<(), String> {
    s.params
        .validate(&crate::result::sweep::Flags::NATIVE)
        .map_err(|e| format!("its params are not ones iogauge sweep runs with ({e})"))?;
    let grid = s.params.grid();
    for c in &s.cells {
        if !s.params.tests.contains(&c.test) || !grid.contains(&(c.file_size, c.record_size)) {
            return Err(format!(
                "it has a {} cell at file size {} and record size {} outside its grid",
                c.test.name(),
                c.file_size,
                c.record_size
            ));
        }
    }
    Ok(())
}

fn workload(w: &crate::result::workload::WorkloadResult) -> Result<(), String> {
    w.params
        .validate()
        .map_err(|e| format!("its params are not ones iogauge workload runs with ({e})"))?;
    if w.steps.len() != w.params.steps.len() {
        return Err(format!(
            "it has {} step result(s) for {} step(s)",
            w.steps.len(),
            w.params.steps.len()
        ));
    }
    for (i, s) in w.steps.iter().enumerate() {
        if s.reps.len() > w.params.repeat as usize {
            return Err(format!(
                "step {} has {} repetitions of {}",
                i + 1,
                s.reps.len(),
                w.params.repeat
            ));
        }
        for r in &s.reps {
            let end = r
                .time_series
                .samples
                .iter()
                .map(|x| x.start_ns.saturating_add(x.duration_ns))
                .max()
                .unwrap_or(0);
            if end > r.elapsed_ns {
                return Err(format!(
                    "step {} has intervals past the end of its repetition",
                    i + 1
                ));
            }
        }
    }
    Ok(())
}
