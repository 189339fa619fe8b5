//! fio's command line: `--key=value` and `--key value` options, `--name` starting each job,
//! and the job files it names; read into the same jobs a job file makes ([`super::job`]).

use super::job::{Current, FioJob, FioOption, Location, State, COMMAND_LINE};
use super::options;
use super::vars::{expand, Vars};
use crate::error::{Error, Result};

/// fio's command line, read the way fio reads it: `--key=value`, `--key value` (see
/// [`next_value`]) and `--flag` options, where
/// each `--name=NAME` starts a new job and the options before the first one apply to every
/// job (fio's global options; fio 3.33's JSON lists them as "global options"), and the options
/// after a `--name` belong to that job only; any argument not starting with `--` is a job
/// file, returned apart. `args` excludes the program name.
pub fn read_args(args: &[String], vars: &Vars) -> Result<CommandLine> {
    let mut state = State {
        current: Some(Current::Global),
        ..State::default()
    };
    let mut files = Vec::new();
    let mut next = 0;
    while let Some(a) = args.get(next) {
        let at = Location {
            file: COMMAND_LINE.to_string(),
            line: next + 1,
        };
        next += 1;
        let Some(opt) = a.strip_prefix("--") else {
            if a.starts_with('-') && a.len() > 1 {
                return Err(Error::usage(format!(
                    "{at}: '{a}': fio options are written --key=value"
                )));
            }
            files.push(a.clone());
            continue;
        };
        let (key, value) = match opt.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v)),
            None => (opt.trim(), next_value(opt.trim(), args, &mut next)),
        };
        if key.is_empty() {
            return Err(Error::usage(format!("{at}: '{a}' names no option")));
        }
        let value = value.map(|v| expand(v.trim(), vars, &at)).transpose()?;
        if key == "name" {
            let name = value.clone().filter(|v| !v.is_empty()).ok_or_else(|| {
                Error::usage(format!("{at}: --name needs a job name (--name=NAME)"))
            })?;
            state.start_job(name, at);
            continue;
        }
        let opt = FioOption {
            key: key.to_string(),
            value,
            at,
        };
        match state.current {
            Some(Current::Job(j)) => state.jobs[j].options.push(opt),
            _ => state.globals.push(opt),
        }
    }
    Ok(CommandLine {
        jobs: state.jobs,
        files,
        globals: state.globals,
    })
}

/// The value of `--key` written without `=`: the argument after it (moving `next` past it),
/// as fio's getopt_long gives it to every option but fio's bare flags
/// ([`options::takes_value`]). Not an argument that is itself an option: fio would take
/// `--direct --size=1m` as direct=--size=1m and refuse it, or name a log '--size=1m'; here
/// `--direct` stays a bare flag. `next` indexes `args`.
pub fn next_value<'a>(key: &str, args: &'a [String], next: &mut usize) -> Option<&'a str> {
    let v = args.get(*next).filter(|v| !v.starts_with("--"))?;
    if !options::takes_value(key) {
        return None;
    }
    *next += 1;
    Some(v)
}

/// A fio command line, read.
#[derive(Debug)]
pub struct CommandLine {
    /// The jobs started with `--name`, each holding the global options first.
    pub jobs: Vec<FioJob>,
    /// Job files to read.
    pub files: Vec<String>,
    /// The options before the first `--name`: fio applies them to the jobs of job files too,
    /// as if they were the first lines of a `[global]` section (checked with fio 3.33).
    pub globals: Vec<FioOption>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::fio::tests::vars;

    #[test]
    fn command_lines_read_like_fio() {
        let args: Vec<String> = [
            "--bs=8k",
            "--direct=1",
            "--name=w",
            "--rw=randwrite",
            "--iodepth=14",
            "--name=r",
            "--rw=randread",
            "--group_reporting",
            "more.fio",
        ]
        .map(String::from)
        .to_vec();
        let CommandLine { jobs, files, .. } = read_args(&args, &vars()).unwrap();
        assert_eq!(files, ["more.fio"]);
        assert_eq!(jobs.len(), 2);
        let keys = |j: &FioJob| j.options.iter().map(|o| o.key.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&jobs[0]), ["bs", "direct", "rw", "iodepth"]);
        assert_eq!(keys(&jobs[1]), ["bs", "direct", "rw", "group_reporting"]);
        assert_eq!(jobs[1].options[3].value, None);
        assert_eq!(jobs[1].at.to_string(), "command-line argument 6");
        for (bad, want) in [
            (vec!["--name"], "--name needs a job name"),
            (
                vec!["-bs=4k"],
                "command-line argument 1: '-bs=4k': fio options are written",
            ),
            (vec!["--=4k"], "names no option"),
        ] {
            let a: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            let e = read_args(&a, &vars()).unwrap_err().to_string();
            assert!(e.contains(want), "{bad:?}: {e}");
        }
    }

    #[test]
    fn values_may_follow_as_the_next_argument() {
        // As fio's getopt_long reads them (checked with fio 3.33): every option but the bare
        // flags takes the next argument; a bare flag leaves it, here a job file.
        let args: Vec<String> = [
            "--bs",
            "8k",
            "--name",
            "w",
            "--time_based",
            "more.fio",
            "--runtime",
            "2",
            "--group_reporting",
            "--direct",
            "--size=1m",
            "--rw",
            "-x",
        ]
        .map(String::from)
        .to_vec();
        let CommandLine {
            jobs,
            files,
            globals,
        } = read_args(&args, &vars()).unwrap();
        assert_eq!(files, ["more.fio"]);
        assert_eq!(globals[0].value.as_deref(), Some("8k"));
        assert_eq!(jobs[0].name, "w");
        let kv: Vec<(&str, Option<&str>)> = jobs[0]
            .options
            .iter()
            .map(|o| (o.key.as_str(), o.value.as_deref()))
            .collect();
        assert_eq!(
            kv,
            [
                ("bs", Some("8k")),
                ("time_based", None),
                ("runtime", Some("2")),
                ("group_reporting", None),
                // An option is never taken as a value (fio would, then refuse it).
                ("direct", None),
                ("size", Some("1m")),
                ("rw", Some("-x")),
            ]
        );
        assert_eq!(jobs[0].options[2].at.to_string(), "command-line argument 7");
    }
}
