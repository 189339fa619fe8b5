pub mod diskspd;
pub mod fio;
pub mod fio_logs;
pub mod fs;
pub mod saved;

use iogauge::error::Error;

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
