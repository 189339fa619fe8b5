//! Dashes that are not ASCII '-': a web page (or a word processor) prints `--direct` as
//! `—direct` and DiskSpd's `-b8K` as `–b8K`, and a command pasted from it reaches a front end
//! with them. Every front end names such an argument the same way, with the ASCII spelling.

/// The look-alikes of '-' a pasted command line brings, and their names.
const LOOKALIKES: &[(char, &str)] = &[
    ('\u{2010}', "a hyphen (U+2010)"),
    ('\u{2011}', "a non-breaking hyphen (U+2011)"),
    ('\u{2012}', "a figure dash (U+2012)"),
    ('\u{2013}', "an en dash (U+2013)"),
    ('\u{2014}', "an em dash (U+2014)"),
    ('\u{2212}', "a minus sign (U+2212)"),
];

/// Why `arg` is not an option, if it begins with a look-alike of '-': what it begins with and
/// how to write it, its dashes replaced by `ascii` ("--" for fio, "-" for DiskSpd).
pub fn pasted_dash(arg: &str, ascii: &str) -> Option<String> {
    let first = arg.chars().next()?;
    let (_, name) = LOOKALIKES.iter().find(|(c, _)| *c == first)?;
    let rest = arg.trim_start_matches(|c| LOOKALIKES.iter().any(|(l, _)| *l == c));
    let fix = if rest.is_empty() {
        format!("write {ascii} joined to the option's name")
    } else {
        format!("write {ascii}{rest}")
    };
    Some(format!(
        "'{arg}' begins with {name}, not an ASCII '-' (pasted from a web page?): {fix}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_dashes_are_named_with_the_ascii_spelling() {
        assert_eq!(
            pasted_dash("\u{2014}directory=/mnt", "--").unwrap(),
            "'\u{2014}directory=/mnt' begins with an em dash (U+2014), not an ASCII '-' (pasted from a web page?): write --directory=/mnt"
        );
        assert!(pasted_dash("\u{2013}b8K", "-")
            .unwrap()
            .ends_with("write -b8K"));
        assert!(pasted_dash("\u{2014}", "--")
            .unwrap()
            .contains("joined to the option's name"));
        assert_eq!(pasted_dash("-b8K", "-"), None);
        assert_eq!(pasted_dash("", "-"), None);
    }
}
