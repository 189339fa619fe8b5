//! clap's value parsers for [`crate::cli::RunArgs`]' numbers, sizes and durations.
//!
//! A text that does not parse does not stop clap: clap would word the error its own way
//! ("invalid value '4q' for '--block-size <SIZE>': ...") and report it before any other, where
//! iogauge's users have always read "error: invalid size for --block-size: ..." in the order
//! [`super::job_from_args`] checks the flags. The message waits in the [`Checked`] value instead.

use crate::error::{Error, Result};
use crate::spec::flat::{parse_criterion, FlatRule, LimitUnits};
use crate::units::{parse_duration_ns, parse_size};
use clap::builder::{StringValueParser, TypedValueParser};
use std::ffi::OsStr;

pub(super) fn read_size(flag: &str, text: &str) -> Result<u64> {
    parse_size(text).map_err(|e| Error::usage(format!("invalid size for {flag}: {e}")))
}

pub(super) fn number<T: std::str::FromStr>(flag: &str, text: &str, what: &str) -> Result<T> {
    text.trim().parse().map_err(|_| {
        Error::usage(format!(
            "invalid value '{text}' for {flag}: expected {what}"
        ))
    })
}

/// Seconds as a decimal number ("10", "0.5") to nanoseconds.
fn read_seconds(flag: &str, text: &str) -> Result<u64> {
    let s: f64 = number(flag, text, "a number of seconds")?;
    if !(s >= 0.0 && s.is_finite()) || s > 1e9 {
        return Err(Error::usage(format!(
            "invalid value '{text}' for {flag}: expected a number of seconds"
        )));
    }
    Ok((s * 1e9).round() as u64)
}

/// A time with a unit ("500us", "2ms") to nanoseconds.
fn read_duration(flag: &str, text: &str) -> Result<u64> {
    parse_duration_ns(text)
        .map_err(|why| Error::usage(format!("invalid value '{text}' for {flag}: {why}")))
}

/// `--until-flat CRITERION:LIMIT[,WINDOW]`: fio's criterion syntax, bandwidth in iogauge's
/// sizes, latency with a unit, the window in seconds (60 if left out). The check interval is
/// the time series' (--interval), filled in with the rest of the job.
fn read_until_flat(flag: &str, text: &str) -> Result<FlatRule> {
    let (criterion, window) = match text.split_once(',') {
        Some((c, w)) => (c, read_seconds(flag, w)?),
        None => (text, 60_000_000_000),
    };
    let units = LimitUnits {
        size: &parse_size,
        time_ns: &parse_duration_ns,
    };
    let (metric, test, limit) = parse_criterion(criterion, &units)
        .map_err(|why| Error::usage(format!("invalid value '{text}' for {flag}: {why}")))?;
    Ok(FlatRule {
        metric,
        test,
        limit,
        window_ns: window,
        ramp_ns: 0,
        check_ns: 0,
    })
}

/// A flag's value: what its text means, or why it means nothing.
#[derive(Debug, Clone)]
pub struct Checked<T>(std::result::Result<T, String>);

impl<T: Copy> Checked<T> {
    /// The value, or the message naming the flag and what the user typed.
    pub fn get(&self) -> Result<T> {
        self.0.clone().map_err(Error::usage)
    }
}

/// One kind of value: how its text is read, and (for numbers) what is expected.
#[derive(Clone, Copy)]
pub struct Reader<T> {
    read: fn(flag: &str, text: &str, what: &str) -> Result<T>,
    what: &'static str,
}

impl<T: Copy + Send + Sync + 'static> TypedValueParser for Reader<T> {
    type Value = Checked<T>;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> std::result::Result<Checked<T>, clap::Error> {
        // Text that is not UTF-8 is refused by clap, as for any flag.
        let text = StringValueParser::new().parse_ref(cmd, arg, value)?;
        // Messages name a flag by its long form, as users of iogauge's own flags read it.
        let flag = match (
            arg.and_then(|a| a.get_long()),
            arg.and_then(|a| a.get_short()),
        ) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            (None, None) => "a value".to_string(),
        };
        let value = (self.read)(&flag, &text, self.what).map_err(|e| e.to_string());
        Ok(Checked(value))
    }
}

/// A size in bytes: 512, 4k, 1MiB.
pub fn size() -> Reader<u64> {
    Reader {
        read: |flag, text, _| read_size(flag, text),
        what: "",
    }
}

/// A whole number, where `what` says what it counts ("a whole number of threads").
pub fn whole<T: std::str::FromStr + Copy + Send + Sync + 'static>(what: &'static str) -> Reader<T> {
    Reader {
        read: number::<T>,
        what,
    }
}

/// A whole number from 1 up, or `auto`, read as 0 (iogauge chooses).
pub fn count_or_auto(what: &'static str) -> Reader<u32> {
    Reader {
        read: |flag, text, what| match text.trim() {
            "auto" => Ok(0),
            _ => match number::<u32>(flag, text, what)? {
                0 => Err(Error::usage(format!(
                    "invalid value '{text}' for {flag}: expected {what}"
                ))),
                n => Ok(n),
            },
        },
        what,
    }
}

/// Seconds as a decimal number, to nanoseconds.
pub fn seconds() -> Reader<u64> {
    Reader {
        read: |flag, text, _| read_seconds(flag, text),
        what: "",
    }
}

/// fio's steady-state criterion and a window (--until-flat).
pub fn until_flat() -> Reader<crate::spec::flat::FlatRule> {
    Reader {
        read: |flag, text, _| read_until_flat(flag, text),
        what: "",
    }
}

/// A time with its unit (500us, 2ms), to nanoseconds.
pub fn duration() -> Reader<u64> {
    Reader {
        read: |flag, text, _| read_duration(flag, text),
        what: "",
    }
}
