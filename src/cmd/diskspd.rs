//! `iogauge diskspd`: a DiskSpd command line, with DiskSpd's meaning, run like `iogauge run`.

use super::{absolute, write_output};
use iogauge::cli::{Cli, SaveOpts};
use iogauge::error::{exit, Error};
use iogauge::os::owned::Cleanup;
use iogauge::progress::Progress;
use iogauge::report::text::applies_to_total;
use iogauge::report::{diskspd_exporter, diskspd_profile_exporter};
use iogauge::runner::{self, Observer};
use iogauge::spec::diskspd::{self, Diskspd, Targets};
use std::path::PathBuf;

pub fn cmd_diskspd(
    db: &Option<PathBuf>,
    args: &[String],
    command_line: Vec<String>,
) -> Result<u8, Error> {
    let mut save = SaveOpts {
        tags: Vec::new(),
        no_save: false,
    };
    let (mut allow_overwrite, mut keep, mut quiet) = (false, false, false);
    let mut output_file = "-".to_string();
    let mut rest = Vec::new();
    for a in args {
        let (key, value) = super::key_value(a);
        let need = |what: &str| super::value_of(key, value, what);
        match key {
            "-?" | "--help" => return help(),
            "--allow-overwrite" => allow_overwrite = true,
            "--keep" => keep = true,
            "--quiet" => quiet = true,
            "--no-save" => save.no_save = true,
            "--tag" => save.tags.push(need("TAG")?),
            "--output-file" => output_file = need("FILE")?,
            k if k.starts_with("--") => {
                return Err(Error::usage(format!(
                    "{a}: not an option of iogauge diskspd (DiskSpd's options are -x; iogauge's are --allow-overwrite, --keep, --quiet, --no-save, --tag=TAG, --output-file=FILE)"
                )))
            }
            _ => rest.push(a.clone()),
        }
    }
    let mut d = diskspd::parse(
        &rest,
        &Targets {
            disks: &diskspd::disks_here,
        },
    )?;
    for w in &d.warnings {
        eprintln!("iogauge: WARNING: {w} (DiskSpd's warning)");
    }
    if d.profile_only {
        return print_profile(&d, &command_line, &output_file);
    }
    d.job.allow_overwrite = allow_overwrite;
    d.job.keep = keep;
    for t in &mut d.job.targets {
        t.path = absolute(&t.path)?;
    }
    let mut ctx = super::context(db, &output_file, quiet, &save)?;
    let mut cleanup = Cleanup::new(d.job.keep);
    let mut progress = Progress::new(quiet);
    let result = runner::run_full(
        &d.job,
        command_line,
        ctx.interrupted(),
        &mut cleanup,
        &mut progress,
        runner::Keep {
            per_thread_series: d.iops_stats,
            ..runner::Keep::default()
        },
    );
    progress.end();
    let mut result = result?;
    result.notes.extend(d.notes.iter().cloned());
    let exporter = diskspd_exporter(&d);
    ctx.report_where(&result, exporter.as_ref(), &applies_to_total)?;
    ctx.save_and_end(result)
}

/// DiskSpd's -Rp: the profile, in text or (-Rpxml) XML; no target is opened or created.
fn print_profile(d: &Diskspd, command_line: &[String], output_file: &str) -> Result<u8, Error> {
    let text = diskspd_profile_exporter(d, command_line.join(" ")).render(d);
    write_output(output_file, &text)?;
    Ok(exit::OK)
}

fn help() -> Result<u8, Error> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let sub = cmd
        .find_subcommand_mut("diskspd")
        .expect("the diskspd subcommand exists");
    let mut sub = sub.clone().bin_name("iogauge diskspd");
    write_output("-", &sub.render_long_help().to_string())?;
    Ok(exit::OK)
}
