//! `iogauge explain`: a profile's passes, or a `run` command line, as iogauge, fio and DiskSpd
//! would write each job; nothing is run.

use super::profile::profile_params;
use super::{one_line, write_output};
use clap::Parser;
use iogauge::cli::{Cli, Command, ExplainArgs, ExplainFormat, ProfileOpts};
use iogauge::error::{exit, Error};
use iogauge::profile;
use iogauge::spec::export::{self, Explained};
use std::path::Path;

pub fn cmd_explain(e: &ExplainArgs) -> Result<u8, Error> {
    let (format, what) = explain_format(e)?;
    let passes = if what[0] == "run" {
        let mut argv = vec!["iogauge".to_string()];
        argv.extend(what.iter().cloned());
        let job = iogauge::spec::native::job_from_argv(&argv)?;
        vec![("run".to_string(), argv, job)]
    } else {
        profile_passes(&what)?
    };
    let text = match format {
        ExplainFormat::All => export::explain(&passes),
        ExplainFormat::Run => export::run_lines(&passes),
        ExplainFormat::Fio => export::fio_file(&passes),
        ExplainFormat::Diskspd => export::diskspd_lines(&passes),
    };
    write_output("-", &text)?;
    Ok(exit::OK)
}

/// `--format FORM` where people type it: after the profile's name and options too.
fn explain_format(e: &ExplainArgs) -> Result<(ExplainFormat, Vec<String>), Error> {
    use clap::ValueEnum;
    let mut format = e.format;
    let mut what = Vec::new();
    let mut args = e.what.iter();
    while let Some(a) = args.next() {
        let value = match a.strip_prefix("--format") {
            Some("") => args
                .next()
                .cloned()
                .ok_or_else(|| Error::usage("--format needs a value: run, fio, diskspd or all"))?,
            Some(v) if v.starts_with('=') => v[1..].to_string(),
            _ => {
                what.push(a.clone());
                continue;
            }
        };
        format = ExplainFormat::from_str(&value, true).map_err(|_| {
            Error::usage(format!(
                "invalid value '{value}' for --format: run, fio, diskspd or all"
            ))
        })?;
    }
    if what.is_empty() {
        return Err(Error::usage(
            "explain needs a profile name, or run and its flags",
        ));
    }
    Ok((format, what))
}

/// The passes of the profile `what[0]`, with the options after its name.
fn profile_passes(what: &[String]) -> Result<Vec<Explained>, Error> {
    let opts = profile_opts(what)?;
    let p = profile::find(&what[0])?;
    let params = profile_params(p, &opts)?;
    let target = Path::new("iogauge-test.dat");
    let mut passes = Vec::new();
    for pass in p.passes(&params) {
        let argv = profile::run_args(&pass, target, params.size);
        let job = iogauge::spec::native::job_from_argv(&argv)?;
        passes.push((pass.label, argv, job));
    }
    Ok(passes)
}

/// The profile's options come after its name: parse them as `iogauge profile` would.
fn profile_opts(what: &[String]) -> Result<ProfileOpts, Error> {
    let mut argv: Vec<String> = ["iogauge", "profile"].map(String::from).to_vec();
    argv.extend(what.iter().cloned());
    match Cli::try_parse_from(&argv) {
        Ok(Cli {
            db: _,
            command: Some(Command::Profile(p)),
        }) if p.dir == Path::new(".") => Ok(p.opts),
        Ok(Cli {
            db: _,
            command: Some(Command::Profile(p)),
        }) => Err(Error::usage(format!(
            "explain takes a profile and its options, not a folder ('{}')",
            p.dir.display()
        ))),
        Ok(_) => unreachable!("`iogauge profile` parses as a profile"),
        Err(err) => Err(Error::usage(one_line(&err.render().to_string()))),
    }
}
