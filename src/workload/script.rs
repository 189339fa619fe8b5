//! The steps of a workload: one from the command line (`iogauge workload copy`), or a script of
//! several (`mixed --script FILE`, or `--steps` inline), a step a line:
//!
//! ```text
//! # the seed's test: zip with four threads, then unzip
//! archive format=zip threads=4
//! extract threads=4
//! ```
//!
//! A step's settings default to the command line's (`--threads`, `--method`, `--format`,
//! `--level`).

use super::{ArchiveFormat, CopyMethod, Step, StepKind};
use crate::error::{Error, Result};

/// The command line's settings, which every step starts from.
#[derive(Debug, Clone)]
pub struct Defaults {
    pub threads: u32,
    pub method: CopyMethod,
    pub format: ArchiveFormat,
    pub level: Option<i32>,
}

/// The one step `kind`, as the command line sets it.
pub fn single(kind: StepKind, d: &Defaults) -> Step {
    Step {
        kind,
        threads: d.threads,
        method: (kind == StepKind::Copy).then_some(d.method),
        format: matches!(kind, StepKind::Archive | StepKind::Extract).then_some(d.format),
        level: (kind == StepKind::Archive).then_some(d.level.unwrap_or(d.format.default_level())),
    }
}

/// The steps of a script's text; `source` names it in errors ("--script FILE", "--steps").
pub fn parse(text: &str, source: &str, d: &Defaults) -> Result<Vec<Step>> {
    let lines: Vec<&str> = if source == "--steps" {
        text.split(',').collect()
    } else {
        text.lines().collect()
    };
    let mut steps = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = if source == "--steps" {
            format!("{source} '{}'", text.trim())
        } else {
            format!("{source} line {}", n + 1)
        };
        steps.push(step(line, &at, d)?);
    }
    if steps.is_empty() {
        return Err(Error::usage(format!("{source}: no steps")));
    }
    Ok(steps)
}

fn step(line: &str, at: &str, d: &Defaults) -> Result<Step> {
    let bad = |why: String| Error::usage(format!("{at}: {why}"));
    let mut words = line.split_whitespace();
    let name = words.next().unwrap_or("");
    let kind = StepKind::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = StepKind::ALL.iter().map(|k| k.name()).collect();
        bad(format!("unknown step '{name}' ({})", names.join(", ")))
    })?;
    let mut s = single(kind, d);
    for w in words {
        let (key, value) = w
            .split_once('=')
            .ok_or_else(|| bad(format!("'{w}': expected KEY=VALUE")))?;
        match key {
            "threads" => {
                s.threads = value
                    .parse()
                    .ok()
                    .filter(|t| *t > 0)
                    .ok_or_else(|| bad(format!("threads={value}: a whole number from 1")))?;
            }
            "method" if kind == StepKind::Copy => {
                s.method = Some(
                    CopyMethod::here(value).map_err(|why| bad(format!("method={value}: {why}")))?,
                );
            }
            "format" if matches!(kind, StepKind::Archive | StepKind::Extract) => {
                let f = ArchiveFormat::by_name(value)
                    .ok_or_else(|| bad(format!("format={value}: zip or tar.zst")))?;
                s.format = Some(f);
                if kind == StepKind::Archive && d.level.is_none() {
                    s.level = Some(f.default_level());
                }
            }
            "level" if kind == StepKind::Archive => {
                s.level = Some(
                    value
                        .parse()
                        .map_err(|_| bad(format!("level={value}: a whole number")))?,
                );
            }
            _ => {
                return Err(bad(format!(
                    "'{key}' is not a setting of {name} (threads{})",
                    match kind {
                        StepKind::Copy => ", method",
                        StepKind::Archive => ", format, level",
                        StepKind::Extract => ", format",
                        _ => "",
                    }
                )))
            }
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d() -> Defaults {
        Defaults {
            threads: 2,
            method: CopyMethod::CopyFileRange,
            format: ArchiveFormat::TarZst,
            level: None,
        }
    }

    #[test]
    fn a_script_names_steps_and_settings() {
        let s = parse(
            "# the seed's test\narchive format=zip threads=4\n\nextract   # unzip\ncopy method=read-write\n",
            "--script s.txt",
            &d(),
        )
        .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(
            (s[0].kind, s[0].format, s[0].level, s[0].threads),
            (StepKind::Archive, Some(ArchiveFormat::Zip), Some(6), 4)
        );
        assert_eq!((s[1].kind, s[1].threads), (StepKind::Extract, 2));
        assert_eq!(s[2].method, Some(CopyMethod::ReadWrite));
        let inline = parse("archive, extract", "--steps", &d()).unwrap();
        assert_eq!(inline[0].level, Some(3));
    }

    #[test]
    fn errors_name_the_line_and_what_is_wrong() {
        let e = |t: &str| parse(t, "--script s.txt", &d()).unwrap_err().to_string();
        assert_eq!(
            e("copy\nunzip\n"),
            "--script s.txt line 2: unknown step 'unzip' (copy, archive, extract, scan, readall, delete)"
        );
        assert!(e("scan level=3").contains("'level' is not a setting of scan"));
        assert!(e("copy threads=0").contains("threads=0"));
        assert!(e("copy fast").contains("'fast': expected KEY=VALUE"));
        assert!(e("# nothing\n").contains("no steps"));
    }
}
