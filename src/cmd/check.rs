//! `iogauge check`: run a baseline's workload again and judge the new figures against it.

use super::saved::{column, open};
use iogauge::cli::CheckArgs;
use iogauge::context::{Context, Outputs};
use iogauge::dates::format_utc;
use iogauge::error::{exit, Error, Result};
use iogauge::os::owned::Cleanup;
use iogauge::profile;
use iogauge::progress::Progress;
use iogauge::report::compare;
use iogauge::result::StopReason;
use iogauge::runner::{self, Observer};
use iogauge::store::figures::Figures;
use iogauge::store::record::Record;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// "10%", "10" or "2.5%": a fraction.
fn parse_tolerance(text: &str) -> Result<f64> {
    let t = text.trim().trim_end_matches('%');
    match t.parse::<f64>() {
        Ok(v) if (0.0..100.0).contains(&v) => Ok(v / 100.0),
        _ => Err(Error::usage(format!(
            "invalid value '{text}' for --tolerance: expected a percentage from 0 to 100, like 10%"
        ))),
    }
}

/// The path a re-run writes to: TARGET where given, and a temporary file named for this
/// process (as the original was for its own).
fn retarget(old: &Path, temporary: bool, new: Option<&PathBuf>) -> PathBuf {
    let tmp_name = || PathBuf::from(format!("iogauge-{}.tmp", std::process::id()));
    match (temporary, new) {
        (true, Some(n)) if n.is_dir() => n.join(tmp_name()),
        (true, None) => old.parent().map_or_else(tmp_name, |d| d.join(tmp_name())),
        (_, Some(n)) => n.clone(),
        (false, None) => old.to_path_buf(),
    }
}

pub fn cmd_check(db: &Option<PathBuf>, a: &CheckArgs, argv: Vec<String>) -> Result<u8> {
    let tolerance = parse_tolerance(&a.tolerance)?;
    // Absolute, like every saved target, so the new run can be checked again from anywhere.
    let targets = a
        .targets
        .iter()
        .map(|t| super::absolute(t))
        .collect::<Result<Vec<PathBuf>>>()?;
    let mut saving = super::saving(db, &a.save);
    // Saved under the baseline's name too: `iogauge results --tag check:NAME` lists its checks.
    saving.tags.push(format!("check:{}", a.baseline));
    let mut ctx = Context::open(Outputs {
        output_file: "-",
        output_flag: "--output-file",
        quiet: a.quiet,
        saving,
    })?;
    let store = open(db)?;
    let id = store.baseline(&a.baseline)?;
    let (base_col, _, base) = column(&store, id)?;
    drop(store);
    let (now, failure) = rerun(a, (id, &base), &targets, argv, ctx.interrupted())?;
    let saved = ctx.saver().save(&now);
    if let Some(e) = failure {
        return Err(e);
    }
    let now_passes: Vec<(String, Figures)> = now
        .passes()
        .iter()
        .map(|p| (p.label.clone(), Figures::of(p.result)))
        .collect();
    let rows = compare::check(&base_col.passes, &now_passes, tolerance);
    ctx.write(&verdict(a, id, &base, &now, &rows, tolerance))?;
    saved?;
    if now.partial() {
        return Ok(
            if matches!(&now, Record::Run(r) if r.stop_reason == StopReason::IoError) {
                exit::FAILURE
            } else {
                exit::INTERRUPTED
            },
        );
    }
    Ok(if rows.is_empty() || rows.iter().any(|r| r.failed) {
        exit::CHECK_FAILED
    } else {
        exit::OK
    })
}

/// Run baseline `base` (saved as `id`) again, on `targets` where given: the new record, and
/// the error that stopped a profile after some of its passes.
fn rerun(
    a: &CheckArgs,
    (id, base): (i64, &Record),
    targets: &[PathBuf],
    argv: Vec<String>,
    interrupted: &AtomicBool,
) -> Result<(Record, Option<Error>)> {
    let mut progress = Progress::new(a.quiet);
    match base {
        Record::Run(r) => {
            let mut job = r.job.clone();
            if !targets.is_empty() && targets.len() != job.targets.len() {
                return Err(Error::usage(format!(
                    "baseline '{}' ran on {} target(s); give as many TARGETs, or none to use its own",
                    a.baseline,
                    job.targets.len()
                )));
            }
            for (i, t) in job.targets.iter_mut().enumerate() {
                t.path = retarget(&t.path, t.temporary, targets.get(i));
            }
            if !targets.is_empty() {
                // Consent to overwrite was given for the baseline's files, not for these.
                job.allow_overwrite = a.allow_overwrite;
            }
            job.validate()?;
            let mut cleanup = Cleanup::new(job.keep);
            let result = runner::run_observed(&job, argv, interrupted, &mut cleanup, &mut progress);
            progress.end();
            Ok((Record::Run(Box::new(result?)), None))
        }
        Record::Profile(p) => {
            if targets.len() > 1 {
                return Err(Error::usage(format!(
                    "baseline '{}' is the {} profile: give one folder, or none to use '{}'",
                    a.baseline, p.profile, p.dir
                )));
            }
            let dir = targets
                .first()
                .cloned()
                .unwrap_or_else(|| PathBuf::from(&p.dir));
            let prof = profile::find(&p.profile)?;
            let (result, failure) =
                profile::run(prof, (&p.params, argv), &dir, interrupted, &mut progress)?;
            Ok((Record::Profile(Box::new(result)), failure))
        }
        // check judges IOPS and latency; a suite result holds times per test.
        Record::Fs(_) => Err(Error::usage(format!(
            "run {id} is a file-system suite result (iogauge fs); check takes run and profile \
             results: see it with iogauge results show {id}, iogauge compare or iogauge \
             report {id}"
        ))),
        Record::Sweep(_) => Err(Error::usage(format!(
            "run {id} is a sweep (iogauge sweep); check takes run and profile results: see it \
             with iogauge results show {id}, iogauge compare or iogauge report {id}"
        ))),
        Record::Workload(_) => Err(Error::usage(format!(
            "run {id} is a workload (iogauge workload); check takes run and profile results: \
             see it with iogauge results show {id}, iogauge compare or iogauge report {id}"
        ))),
    }
}

/// The report of a check: each figure against the baseline's, and the verdict.
fn verdict(
    a: &CheckArgs,
    id: i64,
    base: &Record,
    now: &Record,
    rows: &[compare::CheckRow],
    tolerance: f64,
) -> String {
    let failed = rows.iter().filter(|r| r.failed).count();
    let mut o = format!(
        "Check against baseline '{}' (run {id}, {} UTC), tolerance {:.1}%:\n\n",
        a.baseline,
        format_utc(base.started_unix_ns()),
        tolerance * 100.0
    );
    o.push_str(&compare::check_grid(rows).text());
    o.push('\n');
    if now.partial() {
        o.push_str("INCOMPLETE: the new run did not finish; nothing was judged\n");
    } else if rows.is_empty() {
        o.push_str("FAILED: no figure of the new run matches the baseline's passes\n");
    } else if failed > 0 {
        o.push_str(&format!(
            "FAILED: {failed} figure(s) fell short of the baseline by more than {:.1}%\n",
            tolerance * 100.0
        ));
    } else {
        o.push_str("PASSED: every figure is within tolerance of the baseline\n");
    }
    o
}
