//! The `iogauge` binary: parse, run, report, map the outcome to an exit code.

mod cmd;

use clap::Parser;
use iogauge::cli::{
    normalize_diskspd_args, Cli, Command, CompletionsArgs, ExplainArgs, ExplainFormat, ManArgs,
    OutputFormat, ProfileOpts, RunArgs, SelftestArgs,
};
use iogauge::error::{exit, Error};
use iogauge::profile::{self, Params, Profile};
use iogauge::progress::Progress;
use iogauge::report::sink::Sink;
use iogauge::result::StopReason;
use iogauge::runner::Observer;
use iogauge::runner::{self, target::Cleanup};
use iogauge::spec::native::job_from_args;
use iogauge::store::record::Record;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn main() -> ExitCode {
    // A job of thousands of files needs more descriptors than the usual soft limit of 1024.
    iogauge::os::limits::raise_nofile();
    let raw: Vec<String> = std::env::args().collect();
    // fio's and DiskSpd's own front ends read their arguments themselves.
    let args = if matches!(subcommand(&raw), Some("fio" | "diskspd")) {
        raw
    } else {
        normalize_diskspd_args(raw)
    };
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
    let db = &cli.db;
    let outcome = match cli.command {
        None => cmd_profile(db, "quick", Path::new("."), &default_profile_opts()),
        Some(Command::Run(run)) => cmd_run(db, &run, args),
        Some(Command::Quick(q)) => cmd_profile(db, "quick", &q.dir, &q.opts),
        Some(Command::Profile(p)) => cmd_profile(db, &p.name, &p.dir, &p.opts),
        Some(Command::Results(r)) => cmd::saved::cmd_results(db, &r),
        Some(Command::Compare(c)) => cmd::saved::cmd_compare(db, &c),
        Some(Command::Baseline(b)) => cmd::saved::cmd_baseline(db, &b),
        Some(Command::Check(c)) => cmd::saved::cmd_check(db, &c, args),
        Some(Command::Report(r)) => cmd::saved::cmd_report(db, &r),
        Some(Command::Fs(f)) => cmd::fs::cmd_fs(db, &f, args),
        Some(Command::Fio(f)) => cmd::fio::cmd_fio(db, &f.args, args),
        Some(Command::Diskspd(d)) => cmd::diskspd::cmd_diskspd(db, &d.args, args),
        Some(Command::Profiles) => cmd_profiles(),
        Some(Command::Explain(e)) => cmd_explain(&e),
        Some(Command::Selftest(st)) => cmd_selftest(&st),
        Some(Command::Man(m)) => cmd_man(&m),
        Some(Command::Completions(c)) => cmd_completions(&c),
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("iogauge: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// The subcommand's name: the first argument that is not the global --db option or its value.
fn subcommand(args: &[String]) -> Option<&str> {
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        if a == "--db" {
            it.next();
        } else if !a.starts_with("--db=") {
            return Some(a);
        }
    }
    None
}

/// clap's errors span several lines (tips, usage); ours are one line that names the culprit.
/// Keep clap's first line and its list of possible values, if any.
fn one_line(clap_error: &str) -> String {
    let mut lines = clap_error.lines().map(str::trim).filter(|l| !l.is_empty());
    // clap begins with its own "error: "; ours is added where the error is printed.
    let first = lines.next().unwrap_or("invalid arguments");
    let mut msg = first.strip_prefix("error: ").unwrap_or(first).to_string();
    // "the following required arguments were not provided:" names them on the next lines.
    if msg.ends_with(':') {
        let named: Vec<&str> = lines
            .clone()
            .take_while(|l| !l.starts_with("Usage:"))
            .collect();
        msg.push(' ');
        msg.push_str(&named.join(", "));
    }
    if let Some(values) = lines.find(|l| l.starts_with("[possible values")) {
        msg.push(' ');
        msg.push_str(values);
    }
    msg.push_str(" (see iogauge --help)");
    msg
}

pub(crate) fn write_output(path: &str, text: &str) -> Result<(), Error> {
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

pub(crate) fn interrupt_flag() -> Result<Arc<AtomicBool>, Error> {
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
    if matches!(args.output, OutputFormat::Csv | OutputFormat::FioJson) {
        return Err(Error::usage("selftest writes text or json"));
    }
    let interrupted = interrupt_flag()?;
    let st = iogauge::selftest::run(&args.dir, args.seconds, &interrupted)?;
    let text = match args.output {
        OutputFormat::Json => serde_json::to_string_pretty(&st).expect("serializes") + "\n",
        OutputFormat::Text => st.text(),
        OutputFormat::Csv | OutputFormat::FioJson => unreachable!("refused above"),
    };
    write_output("-", &text)?;
    Ok(if st.passed() { exit::OK } else { exit::FAILURE })
}

fn cmd_run(db: &Option<PathBuf>, args: &RunArgs, command_line: Vec<String>) -> Result<u8, Error> {
    let mut job = job_from_args(args)?;
    // Saved jobs are run again by `iogauge check`, maybe from another folder: keep where
    // the targets really are.
    for t in &mut job.targets {
        t.path = absolute(&t.path)?;
    }
    let mut sink = Sink::open(&args.output_file, "--output-file")?;
    let mut saver = cmd::saved::Saver::new(db, &args.save, args.quiet)?;
    let interrupted = interrupt_flag()?;
    // Dropped at the end of this function, after the report: created files go on every path.
    let mut cleanup = Cleanup::new(job.keep);
    let mut progress = Progress::new(args.quiet);
    let result = runner::run_observed(
        &job,
        command_line,
        &interrupted,
        &mut cleanup,
        &mut progress,
    );
    progress.end();
    let result = result?;
    let text = iogauge::report::exporter(args.output).render(&result);
    sink.write(&text)?;
    // The text report lists warnings itself; other formats carry them as data, so a person
    // watching the terminal still needs to see them.
    if args.output != OutputFormat::Text || !sink.is_stdout() {
        for w in &result.warnings {
            eprintln!("iogauge: warning: {} ({})", w.message, w.fix);
        }
    }
    let stop_reason = result.stop_reason;
    let stop_message = result.stop_message.clone();
    saver.save(&Record::Run(Box::new(result)))?;
    Ok(exit_for(stop_reason, stop_message.as_deref()))
}

/// The exit status of a single run that has been reported and saved, saying on stderr why
/// its results are partial when they are.
pub(crate) fn exit_for(reason: StopReason, message: Option<&str>) -> u8 {
    match reason {
        StopReason::Completed => exit::OK,
        StopReason::Interrupted => {
            eprintln!("iogauge: interrupted; the results above are partial");
            exit::INTERRUPTED
        }
        StopReason::IoError => {
            eprintln!(
                "iogauge: error: {}; the results above are partial",
                message.unwrap_or("I/O error")
            );
            exit::FAILURE
        }
    }
}

/// `path` from the current folder, without resolving links (a device path stays as given).
pub(crate) fn absolute(path: &Path) -> Result<PathBuf, Error> {
    std::path::absolute(path)
        .map_err(|e| Error::usage(format!("cannot resolve '{}': {e}", path.display())))
}

fn default_profile_opts() -> ProfileOpts {
    // The flags' own defaults, so that `iogauge` alone is exactly `iogauge quick`.
    match Cli::try_parse_from(["iogauge", "quick"]) {
        Ok(Cli {
            db: _,
            command: Some(Command::Quick(q)),
        }) => q.opts,
        _ => unreachable!("`iogauge quick` parses"),
    }
}

/// A profile's parameters from its flags and this machine's memory.
fn profile_params(p: &Profile, opts: &ProfileOpts) -> Result<Params, Error> {
    use iogauge::spec::units::{parse_duration_ns, parse_size};
    let memory_bytes = iogauge::facts::memory_bytes().unwrap_or(0);
    let size = match &opts.size {
        Some(s) => parse_size(s)
            .map_err(|e| Error::usage(format!("invalid value '{s}' for --size: {e}")))?,
        None => (p.default_size)(memory_bytes),
    };
    let secs = |flag: &str, v: &str| -> Result<f64, Error> {
        let with_unit = if v.chars().last().is_some_and(|c| c.is_ascii_digit()) {
            format!("{v}s")
        } else {
            v.to_string()
        };
        parse_duration_ns(&with_unit)
            .map(|ns| ns as f64 / 1e9)
            .map_err(|e| Error::usage(format!("invalid value '{v}' for {flag}: {e}")))
    };
    let seconds = match &opts.duration {
        Some(d) => secs("--duration", d)?,
        None => p.default_seconds,
    };
    let params = Params {
        size,
        seconds,
        cache: opts.cache.clone(),
        steady_window_s: secs("--steady-window", &opts.steady_window)?,
        memory_bytes,
    };
    // A pass that sets its own caching keeps it; a --cache no pass would take is an error.
    let own = Params {
        cache: None,
        ..params.clone()
    };
    if opts.cache.is_some() && p.passes(&own).iter().all(|x| x.sets_cache()) {
        return Err(Error::usage(format!(
            "--cache does not apply to the {} profile: its passes set their own caching",
            p.name
        )));
    }
    Ok(params)
}

fn cmd_profile(
    db: &Option<PathBuf>,
    name: &str,
    dir: &Path,
    opts: &ProfileOpts,
) -> Result<u8, Error> {
    let p = profile::find(name)?;
    let params = profile_params(p, opts)?;
    if matches!(opts.output, OutputFormat::Csv | OutputFormat::FioJson) {
        return Err(Error::usage(
            "profiles write text or json (iogauge run writes csv and fio-json)",
        ));
    }
    let mut sink = Sink::open(&opts.output_file, "--output-file")?;
    let mut saver = cmd::saved::Saver::new(db, &opts.save, opts.quiet)?;
    let interrupted = interrupt_flag()?;
    let mut progress = Progress::new(opts.quiet);
    let dir = absolute(dir)?;
    let (result, failure) = profile::run(p, &params, &dir, &interrupted, &mut progress)?;
    let text = match opts.output {
        OutputFormat::Json => serde_json::to_string_pretty(&result).expect("serializes") + "\n",
        _ => iogauge::report::table::profile_text(&result),
    };
    if !result.passes.is_empty() {
        sink.write(&text)?;
    }
    let partial = result.partial;
    let saved = if result.passes.is_empty() {
        Ok(None)
    } else {
        saver.save(&Record::Profile(Box::new(result)))
    };
    if let Some(e) = failure {
        return Err(e);
    }
    saved?;
    Ok(if partial { exit::INTERRUPTED } else { exit::OK })
}

fn cmd_profiles() -> Result<u8, Error> {
    let mut o = String::from(
        "Profiles (iogauge profile NAME [DIR]; iogauge explain NAME shows every pass):\n\n",
    );
    for p in profile::PROFILES {
        o.push_str(&format!("  {:<11} {}\n", p.name, p.summary));
    }
    write_output("-", &o)?;
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

fn cmd_explain(e: &ExplainArgs) -> Result<u8, Error> {
    use iogauge::spec::export;
    let (format, what) = explain_format(e)?;
    let what = &what;
    let passes = if what[0] == "run" {
        let mut argv = vec!["iogauge".to_string()];
        argv.extend(what.iter().cloned());
        let job = iogauge::spec::native::job_from_argv(&argv)?;
        vec![("run".to_string(), argv, job)]
    } else {
        // The profile's options come after its name: parse them as `iogauge profile` would.
        let mut argv: Vec<String> = ["iogauge", "profile"].map(String::from).to_vec();
        argv.extend(what.iter().cloned());
        let opts = match Cli::try_parse_from(&argv) {
            Ok(Cli {
                db: _,
                command: Some(Command::Profile(p)),
            }) if p.dir == Path::new(".") => p.opts,
            Ok(Cli {
                db: _,
                command: Some(Command::Profile(p)),
            }) => {
                return Err(Error::usage(format!(
                    "explain takes a profile and its options, not a folder ('{}')",
                    p.dir.display()
                )))
            }
            Ok(_) => unreachable!("`iogauge profile` parses as a profile"),
            Err(err) => return Err(Error::usage(one_line(&err.render().to_string()))),
        };
        let p = profile::find(&what[0])?;
        let params = profile_params(p, &opts)?;
        let target = Path::new("iogauge-test.dat");
        let mut passes = Vec::new();
        for pass in p.passes(&params) {
            let argv = profile::run_args(&pass, target, params.size);
            let job = iogauge::spec::native::job_from_argv(&argv)?;
            passes.push((pass.label, argv, job));
        }
        passes
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

fn cmd_man(m: &ManArgs) -> Result<u8, Error> {
    use clap::CommandFactory;
    let fail = |e: std::io::Error| {
        Error::runtime(format!(
            "cannot write man pages to '{}': {e}",
            m.dir.display()
        ))
    };
    std::fs::create_dir_all(&m.dir).map_err(fail)?;
    let cmd = Cli::command();
    let mut pages = vec![("iogauge".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands() {
        pages.push((format!("iogauge-{}", sub.get_name()), sub.clone()));
    }
    for (name, c) in pages {
        let mut buf = Vec::new();
        clap_mangen::Man::new(c)
            .title(name.clone())
            .render(&mut buf)
            .map_err(fail)?;
        std::fs::write(m.dir.join(format!("{name}.1")), buf).map_err(fail)?;
    }
    Ok(exit::OK)
}

fn cmd_completions(c: &CompletionsArgs) -> Result<u8, Error> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(c.shell, &mut cmd, "iogauge", &mut buf);
    write_output("-", &String::from_utf8_lossy(&buf))?;
    Ok(exit::OK)
}
