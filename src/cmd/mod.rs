//! The commands, one file each, and what they share: the signal handler, writing a report,
//! absolute target paths, the exit status of a run, and the one-line form of an error.
//! `main` only parses the command line and hands it here.

pub mod baseline;
pub mod check;
pub mod compare;
pub mod completions;
#[cfg(any(target_os = "linux", windows))]
pub mod dataset;
pub mod diskspd;
pub mod explain;
pub mod fio;

pub mod fs;
#[cfg(target_os = "linux")]
pub mod io500;
pub mod ior;
#[cfg(any(target_os = "linux", windows))]
pub mod iozone;
pub mod man;
#[cfg(target_os = "linux")]
pub mod mdtest;
pub mod profile;
pub mod report;
pub mod results;
pub mod run;
pub mod saved;
pub mod selftest;
#[cfg(any(target_os = "linux", windows))]
pub mod sweep;
pub mod verify;
pub mod why;
#[cfg(any(target_os = "linux", windows))]
pub mod workload;

use iogauge::error::Error;
use std::path::{Path, PathBuf};

/// `--key=value` as (key, value); a bare `--key` has no value. The fio and diskspd commands
/// read their own options this way, before the rest goes to the tool's syntax.
pub fn key_value(arg: &str) -> (&str, Option<&str>) {
    match arg.split_once('=') {
        Some((k, v)) => (k, Some(v)),
        None => (arg, None),
    }
}

/// The value of an option that needs one, or a one-line error naming it.
pub fn value_of(key: &str, value: Option<&str>, what: &str) -> Result<String, Error> {
    value
        .map(str::to_string)
        .ok_or_else(|| Error::usage(format!("{key} needs a value: {key}={what}")))
}

/// clap's errors span several lines (tips, usage); ours are one line that names the culprit.
/// Keep clap's first line and its list of possible values, if any.
pub fn one_line(clap_error: &str) -> String {
    let mut lines = clap_error.lines().map(str::trim).filter(|l| !l.is_empty());
    // clap begins with its own "error: "; ours is added where the error is printed.
    let first = lines.next().unwrap_or("invalid arguments");
    let mut msg = first.strip_prefix("error: ").unwrap_or(first).to_string();
    // "the following required arguments were not provided:" names them on the next lines.
    if msg.ends_with(':') {
        let named: Vec<&str> = lines
            .clone()
            .take_while(|l| !l.starts_with("Usage:"))
            .collect();
        msg.push(' ');
        msg.push_str(&named.join(", "));
    }
    if let Some(values) = lines.find(|l| l.starts_with("[possible values")) {
        msg.push(' ');
        msg.push_str(values);
    }
    msg.push_str(" (see iogauge --help)");
    msg
}

/// Write a report to `path`, `-` being stdout.
pub fn write_output(path: &str, text: &str) -> Result<(), Error> {
    if path == "-" {
        iogauge::report::sink::Sink::Stdout.write(text)
    } else {
        std::fs::write(path, text)
            .map_err(|e| Error::runtime(format!("cannot write the report to '{path}': {e}")))
    }
}

/// The run context of a measuring command from its output and save flags: the report's file
/// and the store opened, before any I/O.
pub fn context(
    db: &Option<PathBuf>,
    output_file: &str,
    quiet: bool,
    save: &iogauge::cli::SaveOpts,
) -> Result<iogauge::context::Context, Error> {
    iogauge::context::Context::open(outputs(db, output_file, quiet, save))
}

/// Where a measuring command's report and result go, from `--output-file`, `--quiet`, `--db`
/// and the save flags.
pub fn outputs<'a>(
    db: &Option<PathBuf>,
    output_file: &'a str,
    quiet: bool,
    save: &iogauge::cli::SaveOpts,
) -> iogauge::context::Outputs<'a> {
    iogauge::context::Outputs {
        output_file,
        output_flag: "--output-file",
        quiet,
        saving: saving(db, save),
    }
}

/// The context of a command whose results are not kept (dataset, verify, selftest): Ctrl-C
/// caught, the report to stdout.
pub fn unsaved() -> Result<iogauge::context::Context, Error> {
    iogauge::context::Context::open(iogauge::context::Outputs::unsaved(false))
}

/// Where and whether to save, from `--db` and the save flags.
pub fn saving(
    db: &Option<PathBuf>,
    save: &iogauge::cli::SaveOpts,
) -> iogauge::context::save::Saving {
    iogauge::context::save::Saving {
        db: db.clone(),
        tags: save.tags.clone(),
        no_save: save.no_save,
    }
}

/// `path` from the current folder, without resolving links (a device path stays as given).
pub fn absolute(path: &Path) -> Result<PathBuf, Error> {
    std::path::absolute(path)
        .map_err(|e| Error::usage(format!("cannot resolve '{}': {e}", path.display())))
}

/// `--memory-limit SIZE`, read.
pub fn memory_limit(text: Option<&str>) -> Result<Option<u64>, Error> {
    text.map(|t| {
        iogauge::units::parse_size(t)
            .map_err(|e| Error::usage(format!("invalid value '{t}' for --memory-limit: {e}")))
    })
    .transpose()
}
