//! The commands, one file each, and what they share: the signal handler, writing a report,
//! absolute target paths, the exit status of a run, and the one-line form of an error.
//! `main` only parses the command line and hands it here.

pub mod baseline;
pub mod check;
pub mod compare;
pub mod completions;
pub mod dataset;
pub mod diskspd;
pub mod explain;
pub mod fio;
pub mod fio_ends;
pub mod fio_logs;
pub mod fio_outcome;
pub mod fio_team;
pub mod fs;
pub mod iozone;
pub mod man;
pub mod profile;
pub mod report;
pub mod results;
pub mod run;
pub mod saved;
pub mod selftest;
pub mod sweep;
pub mod verify;
pub mod workload;

use iogauge::error::{exit, Error};
use iogauge::result::StopReason;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
        let mut out = std::io::stdout().lock();
        // A closed pipe (| head) is not an error worth reporting.
        match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::runtime(format!(
                "cannot write the report to stdout: {e}"
            ))),
            _ => Ok(()),
        }
    } else {
        std::fs::write(path, text)
            .map_err(|e| Error::runtime(format!("cannot write the report to '{path}': {e}")))
    }
}

/// Set on Ctrl-C or SIGTERM: the measuring commands stop, report what they have and save it.
pub fn interrupt_flag() -> Result<Arc<AtomicBool>, Error> {
    let interrupted = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, interrupted.clone())
            .map_err(|e| Error::runtime(format!("cannot install the signal handler: {e}")))?;
    }
    Ok(interrupted)
}

/// The exit status of a single run that has been reported and saved, saying on stderr why
/// its results are partial when they are.
pub fn exit_for(reason: StopReason, message: Option<&str>) -> u8 {
    match reason {
        StopReason::Completed => exit::OK,
        StopReason::Interrupted => {
            eprintln!("iogauge: interrupted; the results above are partial");
            exit::INTERRUPTED
        }
        StopReason::IoError => {
            eprintln!(
                "iogauge: error: {}; the results above are partial",
                message.unwrap_or("I/O error")
            );
            exit::FAILURE
        }
    }
}

/// [`exit_for`] of a run, and a verifying run that went on past mismatches fails too.
pub fn exit_of_run(r: &iogauge::result::RunResult) -> u8 {
    let code = exit_for(r.stop_reason, r.stop_message.as_deref());
    match &r.verify {
        Some(v) if code == exit::OK && v.mismatch_count > 0 => {
            eprintln!(
                "iogauge: error: verification found {} mismatch{}: {}",
                v.mismatch_count,
                if v.mismatch_count == 1 { "" } else { "es" },
                v.mismatches.first().map(|m| m.line()).unwrap_or_default()
            );
            exit::FAILURE
        }
        _ => code,
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

/// Back out of a memory cgroup, keeping what it says about itself.
pub fn leave_cgroup(c: iogauge::os::memcg::MemoryCgroup) -> iogauge::sweep::MemoryCap {
    use iogauge::os::memcg::CgroupVersion;
    let cap = iogauge::sweep::MemoryCap {
        limit_bytes: c.limit(),
        cgroup: format!(
            "{} {}",
            match c.version() {
                CgroupVersion::V1 => "v1",
                CgroupVersion::V2 => "v2",
            },
            c.path().display()
        ),
        peak_bytes: c.peak(),
    };
    // The measurement is done and kept; a cgroup that will not go is said, not fatal.
    if let Err(e) = c.leave() {
        eprintln!("iogauge: warning: {e}");
    }
    cap
}
