//! fio's command line as its getopt_long_only reads it, rewritten into the one form the rest
//! of iogauge reads: `--key=value` or a bare `--flag`.
//!
//! fio takes a long option with one dash as with two (`-rw=randread`, `-iodepth 32`: Alibaba
//! Cloud's guides write them so), an unambiguous abbreviation of a long name (`--numj=4`),
//! and its program options' one-letter forms (`-o out.txt`, `-v`). A value may be attached
//! (`=`) or be the next argument. Checked by running fio 3.33: `-ofoo` writes its output to
//! `foo`, `-iodep=4` is "ambiguous; possibilities: '-iodepth' '-iodepth_batch' ...".

use super::names::{self, Arg, PROGRAM};
use super::options;
use crate::error::{Error, Result};

/// `args` (without the program name) with every option written `--key=value` or `--flag`,
/// each long name in full. `own` are the front end's own long options and how they take a
/// value. Arguments that are not options (job files) are left as they are.
pub fn long_forms(args: &[String], own: &[(&'static str, Arg)]) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(args.len());
    let mut next = 0;
    while let Some(a) = args.get(next) {
        next += 1;
        if let Some(why) = crate::spec::pasted_dash(a, "--") {
            return Err(Error::usage(why));
        }
        let Some(body) = option_body(a) else {
            out.push(a.clone());
            continue;
        };
        let single = !a.starts_with("--");
        let (typed, attached) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (body, None),
        };
        // getopt_long_only: one letter that is a short option is that option, never a long one.
        let resolved = match single && is_letter(typed) {
            true => None,
            false => resolve(typed, own, a)?,
        };
        let (name, arg, attached) = match resolved {
            Some((name, arg)) => (name, arg, attached.map(str::to_string)),
            None if single => short(body, a)?,
            // Not a name fio has: left for the job's reader to refuse, with fio's guess.
            None => (
                typed.to_string(),
                job_arg(typed),
                attached.map(str::to_string),
            ),
        };
        let value = match (attached, arg) {
            (Some(v), _) => Some(v),
            (None, Arg::Required) => take_next(args, &mut next, own),
            (None, _) => None,
        };
        out.push(match value {
            Some(v) => format!("--{name}={v}"),
            None => format!("--{name}"),
        });
    }
    Ok(out)
}

/// What follows the dashes of an option; `None` for a job file, `-` (standard input) and `--`.
fn option_body(a: &str) -> Option<&str> {
    let body = a.strip_prefix("--").or_else(|| a.strip_prefix('-'))?;
    (!body.is_empty()).then_some(body)
}

/// The full long name `typed` stands for and how it takes a value: itself, or the one long
/// name it abbreviates. `None` when no long name starts so; an error, in fio's words, when
/// more than one does.
fn resolve(
    typed: &str,
    own: &[(&'static str, Arg)],
    written: &str,
) -> Result<Option<(String, Arg)>> {
    let all = long_names(own);
    if let Some(&(n, arg)) = all.iter().find(|(n, _)| *n == typed) {
        return Ok(Some((n.to_string(), arg)));
    }
    let matches: Vec<&(&str, Arg)> = all.iter().filter(|(n, _)| n.starts_with(typed)).collect();
    match matches.as_slice() {
        [] => Ok(None),
        [(n, arg)] => Ok(Some((n.to_string(), *arg))),
        many => {
            let dashes = if written.starts_with("--") { "--" } else { "-" };
            let shown: Vec<String> = many
                .iter()
                .take(8)
                .map(|(n, _)| format!("'{dashes}{n}'"))
                .collect();
            let more = if many.len() > 8 { " ..." } else { "" };
            Err(Error::usage(format!(
                "option '{written}' is ambiguous; possibilities: {}{more}",
                shown.join(" ")
            )))
        }
    }
}

/// Every long name fio's getopt knows (program options, job options of every engine) and the
/// front end's own.
fn long_names(own: &[(&'static str, Arg)]) -> Vec<(&'static str, Arg)> {
    let program = PROGRAM.iter().map(|&(n, _, arg)| (n, arg));
    let jobs = names::GENERAL
        .iter()
        .chain(names::BY_ENGINE.iter().flat_map(|(_, opts)| opts.iter()))
        .map(|&(n, _)| (n, job_arg(n)));
    let mut all: Vec<(&str, Arg)> = own.iter().copied().chain(program).chain(jobs).collect();
    all.sort_by_key(|(n, _)| *n);
    all.dedup_by_key(|(n, _)| *n);
    all
}

/// How a job option takes a value on fio's command line: every one does but the bare flags.
fn job_arg(name: &str) -> Arg {
    if options::takes_value(name) {
        Arg::Required
    } else {
        Arg::None
    }
}

/// A single-dash option that is no long name: a one-letter program option, its value attached
/// (`-ofile`) or, if it needs one, the next argument.
fn short(body: &str, written: &str) -> Result<(String, Arg, Option<String>)> {
    let mut chars = body.chars();
    let letter = chars.next().unwrap_or_default();
    let rest = chars.as_str();
    let unknown = || {
        let name = body.split('=').next().unwrap_or(body);
        let guess = names::closest(name)
            .map(|g| format!(" (did you mean -{g}?)"))
            .unwrap_or_default();
        Error::usage(format!("unrecognized option '{written}'{guess}"))
    };
    let Some(&(long, _, arg)) = PROGRAM.iter().find(|(_, c, _)| *c == letter) else {
        return Err(unknown());
    };
    // fio would read `-idepth=4` as -i (--enghelp) given "depth=4"; a value holding '=' is a
    // misspelt long option far more often than that.
    if rest.contains('=') || (arg == Arg::None && !rest.is_empty()) {
        return Err(unknown());
    }
    let attached = (!rest.is_empty()).then(|| rest.to_string());
    Ok((long.to_string(), arg, attached))
}

/// Whether `typed` is one of fio's one-letter program options.
fn is_letter(typed: &str) -> bool {
    PROGRAM
        .iter()
        .any(|(_, c, _)| typed.starts_with(*c) && typed.len() == c.len_utf8())
}

/// The next argument as the value of an option that needs one, unless it is itself an option
/// fio knows by that name: `--direct --size=1m` keeps `--direct` bare, as before (fio would
/// take `--size=1m` as direct's value, then refuse it).
fn take_next(args: &[String], next: &mut usize, own: &[(&'static str, Arg)]) -> Option<String> {
    let v = args.get(*next)?;
    if let Some(body) = option_body(v) {
        let typed = body.split('=').next().unwrap_or(body);
        let is_option = v.starts_with("--")
            || long_names(own).iter().any(|(n, _)| *n == typed)
            || typed.len() == 1 && is_letter(typed);
        if is_option {
            return None;
        }
    }
    *next += 1;
    Some(v.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(line: &str) -> std::result::Result<Vec<String>, String> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        long_forms(&args, &[("keep", Arg::None), ("tag", Arg::Required)]).map_err(|e| e.to_string())
    }

    #[test]
    fn single_dash_long_options_read_as_fio_reads_them() {
        // Alibaba Cloud's ECS guide ("Test the performance of block storage devices").
        assert_eq!(
            forms("-direct=1 -iodepth=128 -rw=randwrite -ioengine=libaio -bs=4k -size=1G -numjobs=1 -runtime=1000 -group_reporting -filename=/dev/your_device -name=Rand_Write_Testing").unwrap(),
            [
                "--direct=1", "--iodepth=128", "--rw=randwrite", "--ioengine=libaio", "--bs=4k",
                "--size=1G", "--numjobs=1", "--runtime=1000", "--group_reporting",
                "--filename=/dev/your_device", "--name=Rand_Write_Testing",
            ]
        );
        // Values as the next argument; a bare flag takes none; job files stay.
        assert_eq!(
            forms("-name x -thread -iodepth 32 job.fio -rw -y --size 1m -").unwrap(),
            [
                "--name=x",
                "--thread",
                "--iodepth=32",
                "job.fio",
                "--rw=-y",
                "--size=1m",
                "-"
            ]
        );
    }

    #[test]
    fn abbreviations_and_short_forms_as_fio_takes_them() {
        assert_eq!(
            forms("--numj=4 -runt 5").unwrap(),
            ["--numjobs=4", "--runtime=5"]
        );
        assert_eq!(
            forms("-o out.txt -ofoo -v -x sec -keep -tag=a").unwrap(),
            [
                "--output=out.txt",
                "--output=foo",
                "--version",
                "--section=sec",
                "--keep",
                "--tag=a"
            ]
        );
        // An exact name wins over the longer names it begins.
        assert_eq!(forms("-iodepth=2").unwrap(), ["--iodepth=2"]);
        // A name fio has not is left for the job's reader to refuse with fio's guess.
        assert_eq!(forms("--iodeptth=3").unwrap(), ["--iodeptth=3"]);
    }

    #[test]
    fn what_fio_refuses_is_refused_in_its_words() {
        let e = forms("-iodep=4").unwrap_err();
        assert!(
            e.contains("option '-iodep=4' is ambiguous; possibilities: '-iodepth'"),
            "{e}"
        );
        let e = forms("-idepth=4").unwrap_err();
        assert!(
            e.contains("unrecognized option '-idepth=4' (did you mean -iodepth?)"),
            "{e}"
        );
        assert!(forms("-vz")
            .unwrap_err()
            .contains("unrecognized option '-vz'"));
        assert!(forms("-zqq")
            .unwrap_err()
            .contains("unrecognized option '-zqq'"));
        // A command pasted from a web page whose dashes became an em dash.
        assert!(forms("\u{2014}directory=/mnt --name=x")
            .unwrap_err()
            .contains(
            "em dash (U+2014), not an ASCII '-' (pasted from a web page?): write --directory=/mnt"
        ));
    }
}
