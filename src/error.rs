//! The error type shared by every command, and the process exit codes it maps to.
//!
//! Every error message is one line that names the culprit (a flag, a file, a value),
//! so a user can fix the input without reading the source.

use std::fmt;

/// Exit codes, documented in `--help` and docs/run.md.
pub mod exit {
    /// The run completed and its results were printed.
    pub const OK: u8 = 0;
    /// The run failed while running (an I/O error, a file that could not be created...).
    /// Partial results, where there are any, were printed and marked partial.
    pub const FAILURE: u8 = 1;
    /// Bad input: a flag, a value or a target was rejected before any I/O was done.
    pub const USAGE: u8 = 2;
    /// `iogauge check`: a figure fell short of its baseline by more than the tolerance.
    pub const CHECK_FAILED: u8 = 3;
    /// Stopped by Ctrl-C or SIGTERM; partial results were printed and marked partial.
    pub const INTERRUPTED: u8 = 130;
}

#[derive(Debug)]
pub enum Error {
    /// Rejected input; nothing was run. Exit code 2.
    Usage(String),
    /// A failure while running. Exit code 1.
    Runtime(String),
    /// Ctrl-C or SIGTERM before there were results to print. Exit code 130.
    Interrupted(String),
}

impl Error {
    pub fn usage(msg: impl Into<String>) -> Self {
        Error::Usage(msg.into())
    }
    pub fn runtime(msg: impl Into<String>) -> Self {
        Error::Runtime(msg.into())
    }
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => exit::USAGE,
            Error::Runtime(_) => exit::FAILURE,
            Error::Interrupted(_) => exit::INTERRUPTED,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Runtime(m) | Error::Interrupted(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The symbolic name of an error code (EIO, ENOSPC; ERROR_DISK_FULL on Windows), for reports.
pub fn errno_name(errno: i32) -> String {
    match errno {
        // Not an error code: a read or write that moved fewer bytes than asked.
        SHORT_IO => "short".to_string(),
        _ => match crate::os::error::name(errno) {
            Some(n) => n.to_string(),
            None => format!("errno {errno}"),
        },
    }
}

/// An errno named as the kernel's headers name it (ENOSPC) or by its number: a list split at
/// ':' or ',' (fio's ignore_error), the errors' numbers in order.
pub fn parse_errnos(list: &str) -> std::result::Result<Vec<i32>, String> {
    let mut out = Vec::new();
    for word in list
        .split([':', ','])
        .map(str::trim)
        .filter(|w| !w.is_empty())
    {
        let errno = match word.parse::<i32>() {
            Ok(n) if (1..4096).contains(&n) => n,
            Ok(_) => return Err(format!("'{word}' is not an errno (1..4095)")),
            Err(_) => crate::os::error::by_name(word)
                .ok_or_else(|| format!("'{word}' is not an errno name iogauge knows, such as ENOSPC or EIO; give its number"))?,
        };
        if !out.contains(&errno) {
            out.push(errno);
        }
    }
    Ok(out)
}

/// Pseudo-errno used to count short transfers next to real errors.
pub const SHORT_IO: i32 = -1;
