//! fio's byte patterns (buffer_pattern), read as fio 3.33's lib/pattern.c reads them: pieces
//! one after another, each a hex number (`0xdeadbeef`: its bytes as written), a decimal one
//! (`-1024`: its 32-bit value's bytes, least significant first, as few as hold it), a string
//! in double quotes, or a file's bytes (`'name'`). fio's examples: `"abcd"` is 61 62 63 64,
//! `-1024` is 00 fc ff ff, `0xFF0X1` is ff 01.

use crate::spec::BytePattern;

/// The pattern `text` writes; an error in fio's terms where fio would refuse it.
pub(super) fn parse_pattern(text: &str) -> Result<BytePattern, String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        rest = match rest.as_bytes()[0] {
            b'"' => quoted(
                rest,
                '"',
                |s, out| out.extend_from_slice(s.as_bytes()),
                &mut out,
            )?,
            b'\'' => file(rest, &mut out)?,
            b'%' => {
                return Err(format!(
                    "'{text}': formats (%o) are not taken in buffer_pattern, as in fio"
                ))
            }
            _ => number(rest, &mut out).ok_or_else(|| {
                format!("'{text}': '{rest}' is not a number, \"string\" or 'file'")
            })?,
        };
        if out.len() > BytePattern::MAX {
            return Err(format!(
                "'{text}' is longer than fio's {} bytes",
                BytePattern::MAX
            ));
        }
    }
    BytePattern::new(&out).ok_or_else(|| format!("'{text}' is no pattern"))
}

/// A piece between `quote`s, handed to `take`; what follows it.
fn quoted<'a>(
    rest: &'a str,
    quote: char,
    take: impl FnOnce(&str, &mut Vec<u8>),
    out: &mut Vec<u8>,
) -> Result<&'a str, String> {
    let inner = &rest[1..];
    let end = inner
        .find(quote)
        .ok_or_else(|| format!("'{rest}': no closing {quote}"))?;
    take(&inner[..end], out);
    Ok(&inner[end + 1..])
}

/// A file's bytes, as many as the pattern has room for (fio reads them so).
fn file<'a>(rest: &'a str, out: &mut Vec<u8>) -> Result<&'a str, String> {
    let inner = &rest[1..];
    let end = inner
        .find('\'')
        .ok_or_else(|| format!("'{rest}': no closing '"))?;
    let name = &inner[..end];
    let bytes =
        std::fs::read(name).map_err(|e| format!("cannot read pattern file '{name}': {e}"))?;
    let room = BytePattern::MAX.saturating_sub(out.len());
    out.extend_from_slice(&bytes[..bytes.len().min(room)]);
    Ok(&inner[end + 1..])
}

/// A hex or decimal number's bytes into `out`; what follows it.
fn number<'a>(rest: &'a str, out: &mut Vec<u8>) -> Option<&'a str> {
    let b = rest.as_bytes();
    if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' && b[2].is_ascii_hexdigit() {
        let mut n = b[2..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
        // "0xff0x14": the run stops before the next "0x".
        if n > 1 && b[2 + n - 1] == b'0' && b.get(2 + n).is_some_and(|c| (c | 0x20) == b'x') {
            n -= 1;
        }
        let digits = &rest[2..2 + n];
        // An odd count: the first byte is the first digit alone, as fio reads it.
        let (first, pairs) = digits.split_at(n % 2);
        if !first.is_empty() {
            out.push(u8::from_str_radix(first, 16).ok()?);
        }
        for i in (0..pairs.len()).step_by(2) {
            out.push(u8::from_str_radix(&pairs[i..i + 2], 16).ok()?);
        }
        return Some(&rest[2 + n..]);
    }
    // Decimal, up to a "0x" that begins the next piece.
    let stop = rest
        .to_ascii_lowercase()
        .find("0x")
        .filter(|&i| i > 0)
        .unwrap_or(rest.len());
    let sign = usize::from(rest.starts_with(['-', '+']));
    let end = sign
        + rest[sign..stop]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
    if end == sign {
        return None;
    }
    let v: i64 = rest[..end].parse().ok()?;
    let v = i32::try_from(v).ok()? as u32;
    if v == 0 {
        out.push(0);
    }
    let mut x = v;
    while x != 0 {
        out.push((x & 0xff) as u8);
        x >>= 8;
    }
    Some(&rest[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(t: &str) -> Vec<u8> {
        parse_pattern(t)
            .unwrap_or_else(|e| panic!("{e}"))
            .bytes()
            .to_vec()
    }

    #[test]
    fn patterns_read_as_fio_reads_them() {
        // lib/pattern.c's own examples (fio 3.33).
        assert_eq!(bytes("\"abcd\""), [0x61, 0x62, 0x63, 0x64]);
        assert_eq!(bytes("-1024"), [0x00, 0xfc, 0xff, 0xff]);
        assert_eq!(bytes("66"), [0x42]);
        assert_eq!(bytes("0xFF0X1"), [0xff, 0x01]);
        assert_eq!(
            bytes("\"123\"0xFFeeCC"),
            [0x31, 0x32, 0x33, 0xff, 0xee, 0xcc]
        );
        assert_eq!(bytes("-100xab\"1\""), [0xf6, 0xff, 0xff, 0xff, 0xab, 0x31]);
        assert_eq!(bytes("0xdeadbeef"), [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(bytes("0"), [0]);
        assert_eq!(
            bytes("0xfefefefefefefefefefefefefefefefefefefefefe").len(),
            21
        );
        for bad in ["", "%o", "\"open", "xyz", "99999999999", "'/nonexistent/p'"] {
            assert!(parse_pattern(bad).is_err(), "{bad}");
        }
        assert!(parse_pattern(&format!("0x{}", "ab".repeat(513)))
            .unwrap_err()
            .contains("512 bytes"));
    }
}
