//! `iogauge iozone`: an iozone command line run as a sweep, reported as iogauge does, then in
//! iozone's own layouts: its result table (or, with -t, its throughput lines) always, as
//! iozone prints them, and with -R or -b its Excel report.

use super::sweep::{run_and_report, How};
use iogauge::cli::SaveOpts;
use iogauge::error::{Error, Result};
use iogauge::report::{OutputFormat, Subject};
use iogauge::spec::iozone::{self, Iozone};
use iogauge::sweep::SweepResult;
use iogauge::units::parse_size;
use std::path::PathBuf;

pub fn cmd_iozone(db: &Option<PathBuf>, args: &[String], argv: Vec<String>) -> Result<u8> {
    let mut save = SaveOpts {
        tags: Vec::new(),
        no_save: false,
    };
    let (mut quiet, mut output, mut output_file) = (false, OutputFormat::Text, "-".to_string());
    let (mut memory_limit, mut knee_drop) = (None, None);
    let mut rest = Vec::new();
    for a in args {
        let (key, value) = super::key_value(a);
        let need = |what: &str| super::value_of(key, value, what);
        match key {
            "-h" | "--help" => return help(),
            "--quiet" => quiet = true,
            "--no-save" => save.no_save = true,
            "--tag" => save.tags.push(need("TAG")?),
            "--output-file" => output_file = need("FILE")?,
            "--output" => output = format(&need("text|json|csv")?)?,
            "--memory-limit" => memory_limit = Some(size(&need("SIZE")?)?),
            "--knee-drop" => knee_drop = Some(pct(&need("PCT")?)?),
            k if k.starts_with("--") => {
                return Err(Error::usage(format!(
                    "{a}: not an option of iogauge iozone (iozone's options are -x; iogauge's \
                     are --output=FORMAT, --output-file=FILE, --memory-limit=SIZE, \
                     --knee-drop=PCT, --quiet, --no-save, --tag=TAG)"
                )))
            }
            _ => rest.push(a.clone()),
        }
    }
    let mut z = iozone::parse(&rest)?;
    z.params.memory_limit = memory_limit;
    if let Some(k) = knee_drop {
        z.params.knee_drop_pct = k;
    }
    let how = How {
        exporter: Subject::Sweep.exporter::<SweepResult>(output)?,
        output_file: &output_file,
        quiet,
        save: &save,
        notes: z.notes.clone(),
        keep_files: z.keep_files,
    };
    let dir = z.dir.clone();
    let params = z.params.clone();
    run_and_report(db, &dir, &params, argv, how, &mut |r| iozone_reports(&z, r))
}

/// iozone's own layouts after iogauge's report, on stdout: -t's throughput lines or else
/// iozone's table (iozone prints one or the other whatever the options; scripts read their
/// rows), -+u's CPU sections where -R does not carry them, the -R report; the same report in
/// -b's file.
fn iozone_reports(z: &Iozone, r: &SweepResult) -> Result<()> {
    use iogauge::report::iozone::{cpu, excel, table, throughput};
    let mut o = match z.throughput {
        true => throughput(r, z.layout),
        false => table(r, z.layout),
    };
    if z.layout.cpu && !z.excel && !z.throughput {
        o.push_str(&cpu(r));
    }
    if z.excel {
        o.push('\n');
        o.push_str(&excel(r, z.layout));
    }
    // iozone's last line, which scripts wait for and grep around.
    o.push_str("\niozone test complete.\n");
    super::write_output("-", &o)?;
    if let Some(f) = &z.excel_file {
        std::fs::File::create_new(f)
            .and_then(|mut file| {
                std::io::Write::write_all(&mut file, excel(r, z.layout).as_bytes())
            })
            .map_err(|e| Error::runtime(format!("cannot write -b {}: {e}", f.display())))?;
    }
    Ok(())
}

fn format(v: &str) -> Result<OutputFormat> {
    match v {
        "text" => Ok(OutputFormat::Text),
        "json" => Ok(OutputFormat::Json),
        "csv" => Ok(OutputFormat::Csv),
        _ => Err(Error::usage(format!(
            "invalid value '{v}' for --output: text, json or csv"
        ))),
    }
}

fn size(v: &str) -> Result<u64> {
    parse_size(v).map_err(|e| Error::usage(format!("invalid value '{v}' for --memory-limit: {e}")))
}

fn pct(v: &str) -> Result<f64> {
    v.parse()
        .map_err(|_| Error::usage(format!("invalid value '{v}' for --knee-drop: a percentage")))
}

fn help() -> Result<u8> {
    use clap::CommandFactory;
    let mut cmd = iogauge::cli::Cli::command();
    let sub = cmd
        .find_subcommand_mut("iozone")
        .expect("the iozone command exists");
    println!("{}", sub.render_long_help());
    Ok(iogauge::error::exit::OK)
}
