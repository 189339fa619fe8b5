//! `iogauge workload`: the flags made one validated [`Params`] (the steps from the name, a
//! script or `--steps`), run, reported, saved.

use super::interrupt_flag;
use super::saved::Saver;
use iogauge::cli::WorkloadArgs;
use iogauge::error::{exit, Error, Result};
use iogauge::report::sink::Sink;
use iogauge::report::Subject;
use iogauge::store::record::Record;
use iogauge::workload::run::{run, Options};
use iogauge::workload::script::{self, Defaults};
use iogauge::workload::{self, ArchiveFormat, CopyMethod, Params, StepKind, WorkloadResult};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// The workload the flags ask for.
fn params_of(a: &WorkloadArgs) -> Result<Params> {
    let method = CopyMethod::by_name(&a.method).ok_or_else(|| {
        Error::usage(format!(
            "invalid value '{}' for --method: read-write, copy_file_range or io_uring",
            a.method
        ))
    })?;
    let format = ArchiveFormat::by_name(&a.format).ok_or_else(|| {
        Error::usage(format!(
            "invalid value '{}' for --format: zip or tar.zst",
            a.format
        ))
    })?;
    let threads = match a.threads {
        Some(0) => return Err(Error::usage("--threads 0: at least one thread")),
        Some(n) => n,
        None => workload::default_threads(),
    };
    let d = Defaults {
        threads,
        method,
        format,
        level: a.level,
    };
    let steps = match (a.name.as_str(), &a.script, &a.steps) {
        ("mixed", Some(file), None) => {
            let text = std::fs::read_to_string(file).map_err(|e| {
                Error::usage(format!("cannot read --script '{}': {e}", file.display()))
            })?;
            script::parse(&text, &format!("--script {}", file.display()), &d)?
        }
        ("mixed", None, Some(list)) => script::parse(list, "--steps", &d)?,
        ("mixed", None, None) => {
            return Err(Error::usage(
                "mixed runs a script of steps: give --script FILE or --steps LIST",
            ))
        }
        (name, None, None) => {
            let kind = StepKind::by_name(name).ok_or_else(|| {
                let names: Vec<&str> = StepKind::ALL.iter().map(|k| k.name()).collect();
                Error::usage(format!(
                    "unknown workload '{name}' ({}, or mixed)",
                    names.join(", ")
                ))
            })?;
            vec![script::single(kind, &d)]
        }
        (name, _, _) => {
            return Err(Error::usage(format!(
                "--script and --steps are for mixed, not {name}"
            )))
        }
    };
    let p = Params {
        workload: a.name.clone(),
        steps,
        repeat: a.repeat,
        drop_caches: !a.no_drop_caches,
        verify: !a.no_verify,
        compare_with_tools: a.compare_with_tools,
        interval_ns: a.interval.saturating_mul(1_000_000),
    };
    p.validate()?;
    Ok(p)
}

pub fn cmd_workload(db: &Option<PathBuf>, a: &WorkloadArgs, argv: Vec<String>) -> Result<u8> {
    let exporter = Subject::Workload.exporter::<WorkloadResult>(a.out.output)?;
    let params = params_of(a)?;
    // The output file and the database are opened before anything is measured.
    let mut sink = Sink::open(&a.out.output_file, "--output-file")?;
    let mut saver = Saver::new(db, &a.save, a.out.quiet)?;
    let interrupted = interrupt_flag()?;
    let live = !a.out.quiet && std::io::stderr().is_terminal();
    let progress = |line: &str| {
        if live {
            eprint!("\r\x1b[K{line}");
        }
    };
    let opts = Options {
        source: super::absolute(&a.source)?,
        target: a.target.as_deref().map(super::absolute).transpose()?,
        force: a.force,
        keep: a.keep,
    };
    let result = run(&params, &opts, argv, &interrupted, &progress);
    if live {
        eprint!("\r\x1b[K");
    }
    let result = result?;
    sink.write(&exporter.render(&result))?;
    let ran = result.steps.iter().any(|s| !s.reps.is_empty());
    let failures = result.verify_failures();
    let stop = result.stop_message.clone();
    let partial = result.partial;
    if ran {
        saver.save(&Record::Workload(Box::new(result)))?;
    }
    if interrupted.load(Ordering::Relaxed) {
        // A signal after the last step finished cuts nothing short: the results (and the
        // saved record, partial=false) are whole, and the message says so; the exit status
        // still says that a signal ended the process.
        match partial {
            true => eprintln!("iogauge: interrupted; the results above are partial"),
            false => eprintln!(
                "iogauge: interrupted after every step had finished; the results above are whole"
            ),
        }
        return Ok(exit::INTERRUPTED);
    }
    if let Some(m) = stop {
        eprintln!("iogauge: error: {m}; the results above are partial");
        return Ok(exit::FAILURE);
    }
    if !failures.is_empty() {
        eprintln!(
            "iogauge: error: what was made differs from the source: {}",
            failures.join("; ")
        );
        return Ok(exit::CHECK_FAILED);
    }
    Ok(exit::OK)
}
