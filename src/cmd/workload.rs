//! `iogauge workload`: the flags made one validated [`Params`] (the steps from the name, a
//! script or `--steps`), run, reported, saved.

use iogauge::cli::WorkloadArgs;
use iogauge::cluster::Place;
use iogauge::context::ranks::Opened;
use iogauge::context::Context;
use iogauge::error::{Error, Result};
use iogauge::report::Subject;
use iogauge::workload::run::{Options, Workload};
use iogauge::workload::script::{self, Defaults};
use iogauge::workload::{self, ArchiveFormat, CopyMethod, Params, StepKind, WorkloadResult};
use std::path::PathBuf;

/// The workload the flags ask for.
fn params_of(a: &WorkloadArgs) -> Result<Params> {
    let method = match &a.method {
        None => CopyMethod::native(),
        Some(m) => CopyMethod::here(m)
            .map_err(|why| Error::usage(format!("invalid value '{m}' for --method: {why}")))?,
    };
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
    let outputs = super::outputs(db, &a.out.output_file, a.out.quiet, &a.save);
    let checked = |rank: Option<&Place>| {
        let exporter = Subject::Workload.exporter::<WorkloadResult>(a.out.output)?;
        Ok((exporter, params_of(a)?, options_of(a, rank)?))
    };
    let (mut ctx, (exporter, params, opts)) = match Context::open_ranked(outputs, checked)? {
        Opened::Ready(ctx, checked) => (ctx, checked),
        Opened::Ended(code) => return Ok(code),
    };
    // Each rank writes in a target of its own; the source is only read, and may be shared.
    let targets: Vec<&std::path::Path> = opts.target.iter().map(|t| t.as_path()).collect();
    if let Some(code) = ctx.own_paths(&targets) {
        return Ok(code);
    }
    ctx.finish_suite(&Workload { params, opts }, argv, exporter.as_ref())
}

/// Where the workload works: under an MPI launcher, the source and target with this rank's
/// placeholders filled in (each rank needs a target of its own: `--target out.{rank}`).
fn options_of(a: &WorkloadArgs, rank: Option<&Place>) -> Result<Options> {
    let placed = |p: &std::path::Path| -> Result<PathBuf> {
        Ok(iogauge::cluster::expand_here(&p.to_string_lossy(), rank)?.into())
    };
    if rank.is_some() && a.compare_with_tools {
        return Err(Error::usage(
            "--compare-with-tools compares one process with the system's tool; under mpirun, \
             run without it",
        ));
    }
    Ok(Options {
        source: super::absolute(&placed(&a.source)?)?,
        target: a
            .target
            .as_deref()
            .map(|t| super::absolute(&placed(t)?))
            .transpose()?,
        force: a.force,
        keep: a.keep,
    })
}
