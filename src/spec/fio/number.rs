//! fio's numbers: sizes with fio's suffixes and kb_base rules, times with their units, ranges,
//! and 0x prefixes; a value wholly in parentheses is arithmetic ([`super::expr`]).

use super::expr::Expr;

/// fio's "int" with a data unit: `4k`, `4kb`, `0x1000`, `1KiB`, `(4k*2)`. Suffixes ignore case.
/// k/m/g/t/p, with or without a trailing b or i, are powers of kb_base (1024 by default);
/// with "ib" (KiB, mib...) they are powers of the other base (1000 where kb_base is 1024).
/// That is what fio 3.33 does, checked by running it (its man page says 1mi is 1,000,000
/// with the default kb_base; fio itself makes it 1,048,576). In parentheses, arithmetic.
pub fn parse_size(text: &str, kb_base: u64) -> std::result::Result<u64, String> {
    let t = text.trim();
    let t = leading(t).map_or(t, |(kept, _)| kept);
    if let Some(expr) = t.strip_prefix('(').and_then(|e| e.strip_suffix(')')) {
        let v = Expr::new(expr, &|s| parse_size(s, kb_base).map(|v| v as i128)).eval()?;
        return u64::try_from(v).map_err(|_| format!("'{t}' is out of range"));
    }
    let (digits, suffix) = split_number(t)?;
    // fio reads the digits before a '.' and ignores what follows (1048576.0 is 1048576, and
    // 1.5m is 1 byte). A fraction of zeros alone, as Python writes a whole float (cdmpy's
    // size=1048576.0, rwmixread=70.0), is taken; any other would be cut without a word.
    let suffix = match suffix.strip_prefix('.') {
        Some(zeros) if !zeros.is_empty() && zeros.bytes().all(|b| b == b'0') => "",
        Some(_) => {
            return Err(format!(
                "'{t}': fio reads only the whole number before the '.' ({digits}) and ignores the rest; write a whole number"
            ))
        }
        None => suffix,
    };
    let n = parse_digits(digits)?;
    let s = suffix.to_ascii_lowercase();
    let (letter, flipped) = match s.strip_suffix("ib") {
        Some(l) if !l.is_empty() => (l, true),
        _ => (
            s.strip_suffix('b')
                .or_else(|| s.strip_suffix('i').filter(|l| !l.is_empty()))
                .unwrap_or(&s),
            false,
        ),
    };
    let power = match letter {
        "" => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return Err(format!("'{t}' has an unknown size suffix '{suffix}'")),
    };
    let base: u64 = match (kb_base == 1000, flipped) {
        (true, false) | (false, true) => 1000,
        _ => 1024,
    };
    base.checked_pow(power)
        .and_then(|m| n.checked_mul(m))
        .ok_or_else(|| format!("'{t}' is too large"))
}

/// fio's "time": a number with d, h, m, s/sec, ms/msec or us/usec; without a unit it is in
/// `default_unit_ns` (seconds for most options, microseconds for some). Returns nanoseconds.
/// In parentheses, arithmetic is in microseconds unless a unit is given, as in fio.
pub fn parse_time_ns(text: &str, default_unit_ns: u64) -> std::result::Result<u64, String> {
    let t = text.trim();
    let t = leading(t).map_or(t, |(kept, _)| kept);
    if let Some(expr) = t.strip_prefix('(').and_then(|e| e.strip_suffix(')')) {
        // Evaluated in microseconds (each number with a unit converted to them), as fio does.
        let us = Expr::new(expr, &|s| {
            parse_time_ns(s, 1_000).map(|ns| (ns / 1_000) as i128)
        })
        .eval()?;
        return u64::try_from(us)
            .ok()
            .and_then(|us| us.checked_mul(1_000))
            .ok_or_else(|| format!("'{t}' is out of range"));
    }
    let (digits, suffix) = split_number(t)?;
    let n = parse_digits(digits)?;
    let unit: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" => default_unit_ns,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => return Err(format!("'{t}' has an unknown time unit '{suffix}'")),
    };
    n.checked_mul(unit)
        .ok_or_else(|| format!("'{t}' is too long"))
}

/// Bare arithmetic, as fio reads it: `128*4` is 128 and `4k*2` is 4k, the number and the
/// letters after it, the rest ignored (fio's str_to_decimal takes what strtoll reads, and a
/// suffix only where a letter follows the digits; checked with fio 3.33: numjobs=2*2 runs two
/// jobs). fio works out arithmetic only in parentheses, or in a value where `$mb_memory`,
/// `$pagesize` or `$ncpus` stood ([`super::vars`]). The part kept and the part fio ignores;
/// `None` where nothing follows the number but its suffix.
pub fn leading(t: &str) -> Option<(&str, &str)> {
    let digits = if t.starts_with("0x") || t.starts_with("0X") {
        2 + t[2..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(t.len() - 2)
    } else {
        t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len())
    };
    if digits == 0 {
        return None;
    }
    let end = digits
        + t[digits..]
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(t.len() - digits);
    let cut = &t[end..];
    cut.starts_with(['*', '/', '+', '-', '%', '^'])
        .then(|| (&t[..end], cut))
        .filter(|(_, cut)| cut.len() > 1)
}

/// fio's "irange": `lo-hi` or `lo:hi`, swapped when given high first.
pub fn parse_size_range(text: &str, kb_base: u64) -> std::result::Result<(u64, u64), String> {
    let t = text.trim();
    let (a, b) = t
        .split_once(':')
        .or_else(|| t.split_once('-'))
        .ok_or_else(|| format!("'{t}' is not a range (expected LOW-HIGH or LOW:HIGH)"))?;
    let (a, b) = (parse_size(a, kb_base)?, parse_size(b, kb_base)?);
    Ok((a.min(b), a.max(b)))
}

/// The number and what follows it: "0x10" -> ("0x10", ""), "4kb" -> ("4", "kb").
fn split_number(t: &str) -> std::result::Result<(&str, &str), String> {
    let end = if t.starts_with("0x") || t.starts_with("0X") {
        2 + t[2..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(t.len() - 2)
    } else {
        t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len())
    };
    if end == 0 || (end == 2 && t.len() >= 2 && t[..2].eq_ignore_ascii_case("0x")) {
        return Err(format!("'{t}' is not a number"));
    }
    Ok((&t[..end], &t[end..]))
}

fn parse_digits(d: &str) -> std::result::Result<u64, String> {
    let r = match d.strip_prefix("0x").or_else(|| d.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => d.parse(),
    };
    r.map_err(|_| format!("'{d}' is out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_arithmetic_is_read_as_fio_reads_it() {
        // fio 3.33: numjobs=2*2 runs 2 jobs; size=4k*2 moves 4096 bytes; size=10*10*1k, 10.
        assert_eq!(parse_size("128*4", 1024), Ok(128));
        assert_eq!(parse_size("4k*2", 1024), Ok(4096));
        assert_eq!(parse_size("10*10*1k", 1024), Ok(10));
        assert_eq!(parse_time_ns("10s*2", 1_000_000_000), Ok(10_000_000_000));
        assert_eq!(leading("128*4"), Some(("128", "*4")));
        assert_eq!(leading("4k"), None);
        assert_eq!(leading("50%"), None);
        // Parentheses are worked out, as before.
        assert_eq!(parse_size("(128*4)", 1024), Ok(512));
    }

    #[test]
    fn sizes_follow_fio_kb_base_rules() {
        // Every pair below was checked against fio 3.33 (--ioengine=null, io_bytes of --size).
        let k = |s: &str| parse_size(s, 1024).unwrap();
        let d = |s: &str| parse_size(s, 1000).unwrap();
        for (text, with_1024, with_1000) in [
            ("4096", 4096, 4096),
            ("4096b", 4096, 4096),
            ("1k", 1024, 1000),
            ("1ki", 1024, 1000),
            ("4kb", 4096, 4000),
            ("4KB", 4096, 4000),
            ("1KiB", 1000, 1024),
            ("1kib", 1000, 1024),
            ("1m", 1 << 20, 1_000_000),
            ("1mi", 1 << 20, 1_000_000),
            ("1Mi", 1 << 20, 1_000_000),
            ("1000ki", 1_024_000, 1_000_000),
            ("0x1000", 4096, 4096),
        ] {
            assert_eq!((k(text), d(text)), (with_1024, with_1000), "{text}");
        }
        assert_eq!(k("1t"), 1 << 40);
        // Arithmetic, as fio documents it (Debian's fio 3.33 is built without it and refuses).
        assert_eq!(k("(4k*2)"), 8192);
        assert_eq!(k("((1m - 4k) / 2)"), ((1 << 20) - 4096) / 2);
        // fio takes an expression only when the whole value is in parentheses.
        assert!(parse_size("(1m - 4k) / 2", 1024).is_err());
        assert_eq!(k("(2^10 % 1000 + (3))"), 27);
        // A whole number written with a fraction of zeros (fio reads the digits before the
        // '.'); any other fraction, which fio would cut (1.5m is 1 byte there), is refused.
        assert_eq!(k("1048576.0"), 1 << 20);
        assert_eq!(d("70.00"), 70);
        for bad in [
            "", "k", "4q", "1.5m", "1.0m", "1.", "70.5", "(4k", "(1/0)", "0x",
        ] {
            assert!(parse_size(bad, 1024).is_err(), "{bad:?}");
        }
        assert_eq!(parse_size_range("1k-4k", 1024).unwrap(), (1024, 4096));
        assert_eq!(parse_size_range("64k:4k", 1024).unwrap(), (4096, 65536));
    }

    #[test]
    fn times_have_fio_units() {
        let s = 1_000_000_000;
        assert_eq!(parse_time_ns("30", s).unwrap(), 30 * s);
        assert_eq!(parse_time_ns("10m", s).unwrap(), 600 * s);
        assert_eq!(parse_time_ns("2h", s).unwrap(), 7200 * s);
        assert_eq!(parse_time_ns("1d", s).unwrap(), 86_400 * s);
        assert_eq!(parse_time_ns("250ms", s).unwrap(), 250_000_000);
        assert_eq!(parse_time_ns("250MSEC", s).unwrap(), 250_000_000);
        assert_eq!(parse_time_ns("100us", s).unwrap(), 100_000);
        assert_eq!(parse_time_ns("100", 1_000).unwrap(), 100_000);
        // In parentheses, plain numbers are microseconds.
        assert_eq!(parse_time_ns("(500*2)", s).unwrap(), 1_000_000);
        assert_eq!(parse_time_ns("(1s/4)", s).unwrap(), 250_000_000);
        assert!(parse_time_ns("10y", s).is_err());
    }
}
