//! DiskSpd's value syntax, as its parser reads the text glued to a switch: sizes with a unit
//! (K, M, G, T or b for blocks), counts and times that are C `int`s, and the errors, each
//! naming the option as typed.

use crate::error::{Error, Result};

pub(super) fn bad(msg: impl Into<String>) -> Error {
    Error::usage(msg.into())
}

/// An option DiskSpd has and iogauge does not run yet.
pub(super) fn planned(a: &str, what: &str) -> Error {
    bad(format!("{a}: {what} is not supported yet (planned)"))
}

/// DiskSpd's sizes: digits, then one of K, M, G, T (binary) or b (blocks), in either case.
/// `a`: the option as typed, which errors name.
pub(super) fn size(text: &str, block: u64, a: &str) -> Result<u64> {
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    let n: u64 = digits.parse().map_err(|_| {
        bad(format!(
            "{a}: '{text}' is not a size (digits, then K, M, G, T or b for blocks)"
        ))
    })?;
    let mult = match unit.to_ascii_uppercase().as_str() {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        "B" => block,
        _ => {
            return Err(bad(format!(
                "{a}: invalid size '{unit}'. Valid: K - KiB, M - MiB, G - GiB, T - TiB, B - block"
            )))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| bad(format!("{a}: overflow applying multiplier '{unit}'")))
}

/// `n` given to -`flag`, times `unit`: an error naming the flag where it does not fit in u64.
pub(super) fn scaled(n: u64, unit: u64, flag: &str) -> Result<u64> {
    n.checked_mul(unit)
        .ok_or_else(|| bad(format!("-{flag}{n}: the value is out of range")))
}

/// DiskSpd's counts and times: a C `int` (atoi), so no more than 2147483647; what lies past
/// it is no DiskSpd value (and seconds past it would overflow as nanoseconds).
pub(super) fn int(text: &str, flag: &str, what: &str) -> Result<u64> {
    text.parse()
        .ok()
        .filter(|&n: &u64| n <= i32::MAX as u64)
        .ok_or_else(|| bad(format!("-{flag}{text}: invalid {what} (-{flag}): '{text}'")))
}

/// A count DiskSpd wants above 0 (threads, I/Os, rates, times): 0 is refused with DiskSpd's
/// generic reason. As an [`int`] it fits in a u32.
pub(super) fn count(a: &str, text: &str, flag: &str, what: &str) -> Result<u32> {
    match int(text, flag, what)? {
        0 => Err(bad(format!("{a}: incorrectly provided option"))),
        n => Ok(n.min(u32::MAX as u64) as u32),
    }
}
