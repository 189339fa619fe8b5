//! Sizes ("4k", "1MiB") and durations ("250us", "1.5ms"): parsed from what users type, and
//! formatted for reports. A leaf: every layer may use it, it uses none.
//!
//! Sizes use binary units throughout, as DiskSpd and fio do for block sizes:
//! `4k`, `4K`, `4KiB` and `4KB` all mean 4096 bytes. A trailing `b` alone means bytes.

/// Parse a size in bytes: a whole number with an optional K/M/G/T (binary) suffix.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, suffix) = t.split_at(digits_end);
    if num.is_empty() {
        return Err(format!(
            "'{text}' is not a size: expected a number with an optional K/M/G/T suffix"
        ));
    }
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "'{text}' is not a size: unknown suffix '{suffix}' (expected K, M, G or T)"
            ))
        }
    };
    let value: u64 = num.parse().map_err(|_| format!("'{text}' is too large"))?;
    value
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// Format a byte count with the largest binary unit that keeps it whole, e.g. 65536 -> "64KiB".
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (name, shift) in UNITS {
        let unit = 1u64 << shift;
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{}{}", bytes / unit, name);
        }
    }
    format!("{bytes}B")
}

/// A size rounded for people: `23.5GiB`, `512.0MiB`, `4.0KiB`, `100B`.
pub fn format_size_human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    if v < 1024.0 {
        return format!("{bytes}B");
    }
    let mut unit = "";
    for u in UNITS {
        v /= 1024.0;
        unit = u;
        if v < 1024.0 {
            break;
        }
    }
    format!("{v:.1}{unit}")
}

/// A count or rate for people: "845", "12.3K", "1.25M".
pub fn format_count(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.1}K", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// A ratio to a reference, with the digits that matter: "1.00", "0.25", "0.036", "0.0041",
/// "12.4".
pub fn format_ratio(v: f64) -> String {
    if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 0.1 || v == 0.0 {
        format!("{v:.2}")
    } else if v >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

/// A latency for people: "850 ns", "101.2 us", "3.40 ms", "1.20 s".
pub fn format_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} us", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// Parse a duration with a unit (ns, us, ms, s) into nanoseconds: "100us", "1.5ms".
pub fn parse_duration_ns(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale = match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" => return Err(format!("'{text}' needs a unit: ns, us, ms or s")),
        _ => {
            return Err(format!(
                "'{text}' has an unknown unit '{unit}' (expected ns, us, ms or s)"
            ))
        }
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("'{text}' is not a duration"))?;
    if !(v >= 0.0 && v.is_finite()) || v * scale > 3.6e12 {
        return Err(format!("'{text}' is not a duration between 0 and one hour"));
    }
    Ok((v * scale).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_keep_their_meaningful_digits() {
        assert_eq!(format_ratio(1.0), "1.00");
        assert_eq!(format_ratio(0.2549), "0.25");
        assert_eq!(format_ratio(0.0361), "0.036");
        assert_eq!(format_ratio(0.00412), "0.0041");
        assert_eq!(format_ratio(12.44), "12.4");
        assert_eq!(format_ratio(0.0), "0.00");
    }

    #[test]
    fn plain_and_suffixed_sizes() {
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("64K").unwrap(), 65536);
        assert_eq!(parse_size("1M").unwrap(), 1 << 20);
        assert_eq!(parse_size("1MiB").unwrap(), 1 << 20);
        assert_eq!(parse_size("2G").unwrap(), 2 << 30);
        assert_eq!(parse_size("3t").unwrap(), 3 << 40);
        assert_eq!(parse_size("8b").unwrap(), 8);
        assert_eq!(parse_size("1kb").unwrap(), 1024);
    }

    #[test]
    fn nonsense_is_rejected_with_the_text() {
        for bad in [
            "",
            "k",
            "4q",
            "-1",
            "1.5M",
            "4 k x",
            "99999999999999999999",
            "20000000T",
        ] {
            let err = parse_size(bad).unwrap_err();
            assert!(
                err.contains(&format!("'{bad}'")) || err.contains(bad.trim()),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("250us").unwrap(), 250_000);
        assert_eq!(parse_duration_ns("1.5ms").unwrap(), 1_500_000);
        assert_eq!(parse_duration_ns("2s").unwrap(), 2_000_000_000);
        assert_eq!(parse_duration_ns("80ns").unwrap(), 80);
        for bad in ["1", "ms", "1 parsec", "-1ms", "2h"] {
            assert!(parse_duration_ns(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn format_round_trips() {
        for v in [512u64, 4096, 65536, 1 << 20, 3 << 30, 5 << 40, 1000] {
            assert_eq!(parse_size(&format_size(v)).unwrap(), v);
        }
        assert_eq!(format_size(4096), "4KiB");
        assert_eq!(format_size(1000), "1000B");
    }
}
