//! Calendar dates for saved results: UTC only, so a date means the same on every machine
//! that reads the database. Civil-from-days arithmetic on the proleptic Gregorian calendar.

use crate::error::{Error, Result};

const NS_PER_DAY: u64 = 86_400 * 1_000_000_000;

/// Days since 1970-01-01 of a calendar date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// "2026-11-22 10:58:03" (UTC).
pub fn format_utc(unix_ns: u64) -> String {
    let secs = unix_ns / 1_000_000_000;
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

pub fn now_unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// A point in time for `--since`/`--until`: a UTC date "2026-11-22", or an age before now
/// ("36h", "7d", "2w"). `flag` names the option in errors.
pub fn parse_when(text: &str, flag: &str, now_ns: u64) -> Result<u64> {
    let bad = || {
        Error::usage(format!(
            "invalid value '{text}' for {flag}: expected a date from 1970 to 2200 (2026-11-22) or an age (12h, 7d, 2w)"
        ))
    };
    let t = text.trim();
    if let Some(unit) = t.chars().last().filter(|c| c.is_ascii_alphabetic()) {
        let n: u64 = t[..t.len() - 1].parse().map_err(|_| bad())?;
        let per = match unit {
            'h' => 3600,
            'd' => 86_400,
            'w' => 7 * 86_400,
            _ => return Err(bad()),
        };
        let age_ns = n.checked_mul(per * 1_000_000_000).ok_or_else(|| {
            Error::usage(format!(
                "invalid value '{text}' for {flag}: an age that long is out of range"
            ))
        })?;
        return Ok(now_ns.saturating_sub(age_ns));
    }
    let parts: Vec<&str> = t.split('-').collect();
    if parts.len() != 3 {
        return Err(bad());
    }
    let y: i64 = parts[0].parse().map_err(|_| bad())?;
    let m: u32 = parts[1].parse().map_err(|_| bad())?;
    let d: u32 = parts[2].parse().map_err(|_| bad())?;
    if !(1970..=2200).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    let days = days_from_civil(y, m, d);
    if civil_from_days(days) != (y, m, d) {
        return Err(bad()); // 2026-02-30
    }
    Ok(days as u64 * NS_PER_DAY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00");
        let ns = parse_when("2026-11-22", "--since", 0).unwrap();
        assert_eq!(format_utc(ns + 3_723_000_000_000), "2026-11-22 01:02:03");
        assert_eq!(
            format_utc(parse_when("2024-02-29", "x", 0).unwrap()),
            "2024-02-29 00:00:00"
        );
        assert!(parse_when("2026-02-30", "--since", 0).is_err());
        assert!(parse_when("yesterday", "--since", 0).is_err());
        let now = 10 * NS_PER_DAY;
        assert_eq!(parse_when("7d", "--since", now).unwrap(), 3 * NS_PER_DAY);
        assert_eq!(parse_when("24h", "--since", now).unwrap(), 9 * NS_PER_DAY);
    }

    /// Found by fuzz/fuzz_targets/numbers.rs: the age in ns overflowed.
    #[test]
    fn an_age_too_long_is_an_error() {
        let e = parse_when("00500000d", "--since", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'00500000d' for --since"), "{e}");
        assert_eq!(parse_when("1d", "--since", 0).unwrap(), 0);
    }
}
