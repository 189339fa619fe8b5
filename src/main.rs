//! The `iogauge` binary: parse, run, report, map the outcome to an exit code.

use clap::Parser;
use iogauge::cli::{normalize_diskspd_args, Cli, Command, OutputFormat, RunArgs, SelftestArgs};
use iogauge::error::{exit, Error};
use iogauge::result::StopReason;
use iogauge::runner::{self, target::Cleanup};
use iogauge::spec::native::job_from_args;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn main() -> ExitCode {
    let args = normalize_diskspd_args(std::env::args());
    let cli = match Cli::try_parse_from(&args) {
        Ok(c) => c,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::from(exit::OK);
        }
        Err(e) => {
            eprintln!("iogauge: {}", one_line(&e.render().to_string()));
            return ExitCode::from(exit::USAGE);
        }
    };
    let outcome = match cli.command {
        Command::Run(run) => cmd_run(&run, args),
        Command::Selftest(st) => cmd_selftest(&st),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("iogauge: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// clap's errors span several lines (tips, usage); ours are one line that names the culprit.
/// Keep clap's first line and its list of possible values, if any.
fn one_line(clap_error: &str) -> String {
    let mut lines = clap_error.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut msg = lines.next().unwrap_or("invalid arguments").to_string();
    if let Some(values) = lines.find(|l| l.starts_with("[possible values")) {
        msg.push(' ');
        msg.push_str(values);
    }
    msg.push_str(" (see iogauge --help)");
    msg
}

fn write_output(path: &str, text: &str) -> Result<(), Error> {
    if path == "-" {
        let mut out = std::io::stdout().lock();
        // A closed pipe (| head) is not an error worth reporting.
        match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::runtime(format!(
                "cannot write the report to stdout: {e}"
            ))),
            _ => Ok(()),
        }
    } else {
        std::fs::write(path, text)
            .map_err(|e| Error::runtime(format!("cannot write the report to '{path}': {e}")))
    }
}

fn interrupt_flag() -> Result<Arc<AtomicBool>, Error> {
    let interrupted = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, interrupted.clone())
            .map_err(|e| Error::runtime(format!("cannot install the signal handler: {e}")))?;
    }
    Ok(interrupted)
}

fn cmd_selftest(args: &SelftestArgs) -> Result<u8, Error> {
    if !(args.seconds > 0.0 && args.seconds <= 600.0) {
        return Err(Error::usage(format!(
            "--seconds {} must be between 0 and 600",
            args.seconds
        )));
    }
    if !args.dir.is_dir() {
        return Err(Error::usage(format!(
            "--dir '{}' is not a folder",
            args.dir.display()
        )));
    }
    let interrupted = interrupt_flag()?;
    let st = iogauge::selftest::run(&args.dir, args.seconds, &interrupted)?;
    let text = match args.output {
        OutputFormat::Json => serde_json::to_string_pretty(&st).expect("serializes") + "\n",
        OutputFormat::Text => st.text(),
        OutputFormat::Csv => return Err(Error::usage("selftest writes text or json, not csv")),
    };
    write_output("-", &text)?;
    Ok(if st.passed() { exit::OK } else { exit::FAILURE })
}

fn cmd_run(args: &RunArgs, command_line: Vec<String>) -> Result<u8, Error> {
    let job = job_from_args(args)?;
    let interrupted = interrupt_flag()?;
    // Dropped at the end of this function, after the report: created files go on every path.
    let mut cleanup = Cleanup::new(job.keep);
    let result = runner::run(&job, command_line, &interrupted, &mut cleanup)?;
    let text = iogauge::report::exporter(args.output).render(&result);
    write_output(&args.output_file, &text)?;
    // The text report lists warnings itself; other formats carry them as data, so a person
    // watching the terminal still needs to see them.
    if args.output != OutputFormat::Text || args.output_file != "-" {
        for w in &result.warnings {
            eprintln!("iogauge: warning: {} ({})", w.message, w.fix);
        }
    }
    match result.stop_reason {
        StopReason::Completed => Ok(exit::OK),
        StopReason::Interrupted => {
            eprintln!("iogauge: interrupted; the results above are partial");
            Ok(exit::INTERRUPTED)
        }
        StopReason::IoError => {
            eprintln!(
                "iogauge: error: {}; the results above are partial",
                result.stop_message.as_deref().unwrap_or("I/O error")
            );
            Ok(exit::FAILURE)
        }
    }
}
