//! `iogauge profile`, `iogauge quick` (and `iogauge` alone), and `iogauge profiles`: the
//! named workloads, their parameters from the flags, run, reported and saved.

use super::{absolute, write_output};
use clap::Parser;
use iogauge::cli::{Cli, Command, ProfileOpts};
use iogauge::error::{exit, Error};
use iogauge::profile::{self, Params, Profile, ProfileResult};
use iogauge::progress::Progress;
use iogauge::report::Subject;
use std::path::{Path, PathBuf};

/// `iogauge` alone: exactly `iogauge quick`, with the flags' own defaults.
pub fn cmd_default(db: &Option<PathBuf>, argv: Vec<String>) -> Result<u8, Error> {
    let opts = match Cli::try_parse_from(["iogauge", "quick"]) {
        Ok(Cli {
            db: _,
            command: Some(Command::Quick(q)),
        }) => q.opts,
        _ => unreachable!("`iogauge quick` parses"),
    };
    cmd_profile(db, "quick", Path::new("."), &opts, argv)
}

pub fn cmd_profile(
    db: &Option<PathBuf>,
    name: &str,
    dir: &Path,
    opts: &ProfileOpts,
    argv: Vec<String>,
) -> Result<u8, Error> {
    let p = profile::find(name)?;
    let params = profile_params(p, opts)?;
    let exporter = Subject::Profile.exporter::<ProfileResult>(opts.out.output)?;
    let mut ctx = super::context(db, &opts.out.output_file, opts.out.quiet, &opts.save)?;
    let mut progress = Progress::new(opts.out.quiet);
    let dir = absolute(dir)?;
    let (result, failure) =
        profile::run(p, (&params, argv), &dir, ctx.interrupted(), &mut progress)?;
    // A profile stopped before its first pass ends has nothing to report or save.
    let ended = match result.passes.is_empty() {
        true => ctx.save_and_end(result),
        false => ctx.finish(result, exporter.as_ref()),
    };
    if let Some(e) = failure {
        return Err(e);
    }
    ended
}

/// A profile's parameters from its flags and this machine's memory.
pub fn profile_params(p: &Profile, opts: &ProfileOpts) -> Result<Params, Error> {
    use iogauge::units::parse_size;
    let memory_bytes = iogauge::facts::memory_bytes().unwrap_or(0);
    let size = match &opts.size {
        Some(s) => parse_size(s)
            .map_err(|e| Error::usage(format!("invalid value '{s}' for --size: {e}")))?,
        None => (p.default_size)(memory_bytes),
    };
    let seconds = match &opts.duration {
        Some(d) => flag_seconds("--duration", d)?,
        None => p.default_seconds,
    };
    let params = Params {
        size,
        seconds,
        cache: opts.cache.clone(),
        steady_window_s: flag_seconds("--steady-window", &opts.steady_window)?,
        memory_bytes,
    };
    // A pass that sets its own caching keeps it; a --cache no pass would take is an error.
    let own = Params {
        cache: None,
        ..params.clone()
    };
    if opts.cache.is_some() && p.passes(&own).iter().all(|x| x.sets_cache()) {
        return Err(Error::usage(format!(
            "--cache does not apply to the {} profile: its passes set their own caching",
            p.name
        )));
    }
    Ok(params)
}

/// A duration flag's value in seconds; a bare number is seconds.
fn flag_seconds(flag: &str, v: &str) -> Result<f64, Error> {
    use iogauge::units::parse_duration_ns;
    let with_unit = if v.chars().last().is_some_and(|c| c.is_ascii_digit()) {
        format!("{v}s")
    } else {
        v.to_string()
    };
    parse_duration_ns(&with_unit)
        .map(|ns| ns as f64 / 1e9)
        .map_err(|e| Error::usage(format!("invalid value '{v}' for {flag}: {e}")))
}

/// `iogauge profiles`: each profile's name and what it measures.
pub fn cmd_profiles() -> Result<u8, Error> {
    let mut o = String::from(
        "Profiles (iogauge profile NAME [DIR]; iogauge explain NAME shows every pass):\n\n",
    );
    for p in profile::PROFILES {
        o.push_str(&format!("  {:<11} {}\n", p.name, p.summary));
    }
    write_output("-", &o)?;
    Ok(exit::OK)
}
