//! fio's job-file syntax: `[global]` sections that apply to the jobs below them, `;` and `#`
//! comments, `include` of other files, and `key[=value]` options with `$` variables
//! ([`super::vars`]) in their values.

use super::job::{Current, FioJob, FioOption, Location, State};
use super::vars::{expand, Vars};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// fio refuses longer lines; so do we, rather than read something else than fio would.
const MAX_LINE: usize = 8192;
const MAX_INCLUDE_DEPTH: usize = 16;

/// Read a job file (and the files it includes).
pub fn read_file(path: &Path, vars: &Vars) -> Result<Vec<FioJob>> {
    let mut state = State::default();
    read_into(path, vars, &mut state, 0, None)?;
    Ok(state.jobs)
}

/// Read job-file text; `file` names it in errors, `dir` is where its includes are looked for.
pub fn read_str(text: &str, file: &str, dir: &Path, vars: &Vars) -> Result<Vec<FioJob>> {
    let mut state = State::default();
    parse(text, file, dir, vars, &mut state, 0)?;
    Ok(state.jobs)
}

fn read_into(
    path: &Path,
    vars: &Vars,
    state: &mut State,
    depth: usize,
    from: Option<&Location>,
) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        let by = from
            .map(|l| format!(" (included at {l})"))
            .unwrap_or_default();
        Error::usage(format!(
            "cannot read fio job file '{}'{by}: {e}",
            path.display()
        ))
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    parse(&text, &path.display().to_string(), &dir, vars, state, depth)
}

fn parse(
    text: &str,
    file: &str,
    dir: &Path,
    vars: &Vars,
    state: &mut State,
    depth: usize,
) -> Result<()> {
    for (i, raw) in text.lines().enumerate() {
        let at = Location {
            file: file.to_string(),
            line: i + 1,
        };
        if raw.len() > MAX_LINE {
            return Err(Error::usage(format!(
                "{at}: line longer than fio's limit of {MAX_LINE} bytes"
            )));
        }
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.strip_suffix(']').ok_or_else(|| {
                Error::usage(format!("{at}: section header '{line}' has no closing ']'"))
            })?;
            let name = name.trim();
            if name.is_empty() {
                return Err(Error::usage(format!("{at}: empty section name '[]'")));
            }
            if name == "global" {
                state.current = Some(Current::Global);
            } else {
                state.start_job(name.to_string(), at);
            }
            continue;
        }
        if let Some(target) = line.strip_prefix("include ").map(str::trim) {
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(Error::usage(format!(
                    "{at}: includes nested more than {MAX_INCLUDE_DEPTH} deep (does a file include itself?)"
                )));
            }
            let target = expand(target, vars, &at)?;
            let path = if Path::new(&target).is_absolute() {
                PathBuf::from(&target)
            } else {
                dir.join(&target)
            };
            read_into(&path, vars, state, depth + 1, Some(&at))?;
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), Some(expand(v.trim(), vars, &at)?)),
            None => (line, None),
        };
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(Error::usage(format!(
                "{at}: '{line}' is not an option (expected key=value or a flag)"
            )));
        }
        let opt = FioOption {
            key: key.to_string(),
            value,
            at: at.clone(),
        };
        match state.current {
            Some(Current::Global) => state.globals.push(opt),
            Some(Current::Job(j)) => state.jobs[j].options.push(opt),
            None => {
                return Err(Error::usage(format!(
                    "{at}: option '{key}' comes before any [section]"
                )))
            }
        }
    }
    Ok(())
}

/// A job-file line up to its comment. fio 3.33 cuts every line at its first `;` and then at
/// its first `#`, wherever they stand (its strip_blank_end): `numjobs=4 ; four`, `rw=read;x`
/// and `filename=a#b` are `numjobs=4`, `rw=read` and `filename=a`, so a value in a job file
/// can hold neither. Command-line values keep them, as fio's do.
fn strip_comment(line: &str) -> &str {
    line.find([';', '#']).map_or(line, |i| &line[..i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::fio::read_args;
    use crate::spec::fio::tests::vars;

    #[test]
    fn globals_apply_to_the_jobs_below_them() {
        let text = "\
; a comment
# another
[global]
ioengine=libaio
direct = 1

[seq-read]
rw=read
bs=${SIZE}

[global]
bs=4k
[rand-read]
rw=randread
numjobs=$ncpus
time_based
";
        let jobs = read_str(text, "t.fio", Path::new("."), &vars()).unwrap();
        assert_eq!(jobs.len(), 2);
        let kv = |j: &FioJob| {
            j.options
                .iter()
                .map(|o| format!("{}={}", o.key, o.value.as_deref().unwrap_or("<flag>")))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            kv(&jobs[0]),
            ["ioengine=libaio", "direct=1", "rw=read", "bs=8g"]
        );
        assert_eq!(
            kv(&jobs[1]),
            [
                "ioengine=libaio",
                "direct=1",
                "bs=4k",
                "rw=randread",
                "numjobs=16",
                "time_based=<flag>"
            ]
        );
        assert_eq!(jobs[1].name, "rand-read");
        assert_eq!(jobs[1].at.to_string(), "t.fio:13");
        assert_eq!(jobs[1].options[4].at.line, 15);
    }

    #[test]
    fn includes_are_read_relative_to_the_including_file() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("common.fio"), "[global]\nbs=64k\n").unwrap();
        std::fs::write(
            d.path().join("main.fio"),
            "include common.fio\n[job]\nrw=write\n",
        )
        .unwrap();
        let jobs = read_file(&d.path().join("main.fio"), &vars()).unwrap();
        assert_eq!(jobs[0].options[0].key, "bs");
        assert!(jobs[0].options[0].at.file.ends_with("common.fio"));
        std::fs::write(d.path().join("loop.fio"), "include loop.fio\n").unwrap();
        let e = read_file(&d.path().join("loop.fio"), &vars()).unwrap_err();
        assert!(e.to_string().contains("nested more than"), "{e}");
        std::fs::write(d.path().join("bad.fio"), "[j]\ninclude none.fio\n").unwrap();
        let e = read_file(&d.path().join("bad.fio"), &vars()).unwrap_err();
        assert!(e.to_string().contains("included at"), "{e}");
        assert!(e.to_string().contains("bad.fio:2"), "{e}");
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let cases = [
            ("bs=4k\n", "t.fio:1: option 'bs' comes before any [section]"),
            (
                "[job\n",
                "t.fio:1: section header '[job' has no closing ']'",
            ),
            (
                "[j]\nrw = read write\nbad key=1\n",
                "t.fio:3: 'bad key=1' is not an option",
            ),
            (
                "[j]\nfilename=${NOPE}\n",
                "environment variable 'NOPE' is not set",
            ),
            ("[]\n", "empty section name"),
        ];
        for (text, want) in cases {
            let e = read_str(text, "t.fio", Path::new("."), &vars()).unwrap_err();
            assert!(e.to_string().contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn comments_end_a_line_where_fio_ends_it() {
        // Each value as fio 3.33 read it (its JSON "job options"), checked by running it.
        let text = "\
[global] # every job
size=1m ; a megabyte
[j] ; the job
numjobs=4 ; four threads
filename=g.dat\t; or use a disk
rw=randread;x
description=a#b;c
time_based # no value
";
        let jobs = read_str(text, "t.fio", Path::new("."), &vars()).unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].name, "j");
        let kv: Vec<(String, Option<String>)> = jobs[0]
            .options
            .iter()
            .map(|o| (o.key.clone(), o.value.clone()))
            .collect();
        let s = |k: &str, v: Option<&str>| (k.to_string(), v.map(String::from));
        assert_eq!(
            kv,
            [
                s("size", Some("1m")),
                s("numjobs", Some("4")),
                s("filename", Some("g.dat")),
                s("rw", Some("randread")),
                s("description", Some("a")),
                s("time_based", None),
            ]
        );
        // fio keeps them in command-line values.
        let args = ["--name=j", "--description=a;b #c"].map(String::from);
        let cl = read_args(&args, &vars()).unwrap();
        assert_eq!(cl.jobs[0].options[0].value.as_deref(), Some("a;b #c"));
    }
}
