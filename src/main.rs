//! The `iogauge` binary: parse the command line, hand it to its command (`cmd/`), and map
//! the outcome to an exit code.

mod cmd;

use clap::Parser;
use iogauge::cli::{normalize_diskspd_args, Cli, Command};
use iogauge::error::{exit, Error};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    // A job of thousands of files needs more descriptors than the usual soft limit of 1024.
    iogauge::os::limits::raise_nofile();
    // A run killed with the file cache capped (--memory-limit on Windows) is undone first.
    if let Some(line) = iogauge::os::memcg::restore_left_cap() {
        eprintln!("iogauge: {line}");
    }
    // Flags, job files and paths are read as UTF-8 text: other bytes are refused by name, not
    // a panic.
    let raw: Vec<String> = match std::env::args_os().map(|a| a.into_string()).collect() {
        Ok(raw) => raw,
        Err(bad) => {
            let shown = bad.to_string_lossy();
            eprintln!("iogauge: error: argument '{shown}' is not valid UTF-8; name the file by a path in UTF-8");
            return ExitCode::from(exit::USAGE);
        }
    };
    // fio's, DiskSpd's, iozone's, IOR's and mdtest's own front ends read their arguments
    // themselves (iozone's `-s4m` is its own, not DiskSpd's `-s=4m`).
    let args = if matches!(
        subcommand(&raw),
        Some("fio" | "diskspd" | "iozone" | "ior" | "mdtest")
    ) {
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
            eprintln!("iogauge: {}", cmd::one_line(&e.render().to_string()));
            return ExitCode::from(exit::USAGE);
        }
    };
    if let Err(e) = alone_unless_run(&cli.command, &args) {
        eprintln!("iogauge: error: {e}");
        return ExitCode::from(e.exit_code());
    }
    match dispatch(&cli.db, cli.command, args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("iogauge: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// `iogauge run`, `fio`, `fs`, `sweep`, `iozone`, `workload`, `ior`, `mdtest` and `io500` run as
/// the ranks of an MPI job; any other command started as several ranks would run once per
/// rank on the same files, and is refused by name.
fn alone_unless_run(command: &Option<Command>, args: &[String]) -> Result<(), Error> {
    let ranks = iogauge::cluster::launched_ranks().filter(|(n, _)| *n > 1);
    if let Some((n, var)) = ranks.filter(|_| cfg!(windows)) {
        return Err(iogauge::cluster::not_yet_on_windows(n, var));
    }
    match (command, ranks) {
        (Some(Command::Run(_) | Command::Fio(_) | Command::Fs(_)), _) | (_, None) => Ok(()),
        (Some(Command::Sweep(_) | Command::Iozone(_) | Command::Workload(_)), _) => Ok(()),
        (Some(Command::Ior(_) | Command::Mdtest(_) | Command::Io500(_)), _) => Ok(()),
        (_, Some((n, var))) => Err(Error::usage(format!(
            "iogauge {} runs alone, not as one of {n} MPI ranks ({var}={n}); under mpirun, \
             run `iogauge run`, `fio`, `fs`, `sweep`, `iozone`, `workload`, `ior`, `mdtest` or \
             `io500`",
            subcommand(args).unwrap_or("(the default job)")
        ))),
    }
}

/// Run `command`; `args` is the whole command line, kept with what is saved.
fn dispatch(
    db: &Option<PathBuf>,
    command: Option<Command>,
    args: Vec<String>,
) -> Result<u8, Error> {
    use cmd::{baseline, check, compare, completions, diskspd, explain, fio, fs, man, profile};
    #[cfg(any(target_os = "linux", windows))]
    use cmd::{dataset, iozone, sweep, workload};
    use cmd::{report, results, run, selftest, verify};
    match command {
        None => profile::cmd_default(db, args),
        Some(Command::Run(run)) => run::cmd_run(db, &run, args),
        Some(Command::Quick(q)) => profile::cmd_profile(db, "quick", &q.dir, &q.opts, args),
        Some(Command::Profile(p)) => profile::cmd_profile(db, &p.name, &p.dir, &p.opts, args),
        Some(Command::Results(r)) => results::cmd_results(db, &r),
        Some(Command::Compare(c)) => compare::cmd_compare(db, &c),
        Some(Command::Baseline(b)) => baseline::cmd_baseline(db, &b),
        Some(Command::Check(c)) => check::cmd_check(db, &c, args),
        Some(Command::Report(r)) => report::cmd_report(db, &r),
        Some(Command::Fs(f)) => fs::cmd_fs(db, &f, args),
        #[cfg(any(target_os = "linux", windows))]
        Some(Command::Sweep(s)) => sweep::cmd_sweep(db, &s, args),
        #[cfg(any(target_os = "linux", windows))]
        Some(Command::Iozone(z)) => iozone::cmd_iozone(db, &z.args, args),
        Some(Command::Fio(f)) => fio::cmd_fio(db, &f.args, args),
        Some(Command::Diskspd(d)) => diskspd::cmd_diskspd(db, &d.args, args),
        Some(Command::Ior(i)) => cmd::ior::cmd_ior(&i.args, args),
        #[cfg(target_os = "linux")]
        Some(Command::Mdtest(m)) => cmd::mdtest::cmd_mdtest(&m.args, args),
        #[cfg(target_os = "linux")]
        Some(Command::Io500(a)) => cmd::io500::cmd_io500(&a, args),
        Some(Command::Profiles) => profile::cmd_profiles(),
        Some(Command::Explain(e)) => explain::cmd_explain(&e),
        Some(Command::Selftest(st)) => selftest::cmd_selftest(&st),
        #[cfg(any(target_os = "linux", windows))]
        Some(Command::Dataset(d)) => dataset::cmd_dataset(&d),
        #[cfg(any(target_os = "linux", windows))]
        Some(Command::Workload(w)) => workload::cmd_workload(db, &w, args),
        Some(Command::Verify(v)) => verify::cmd_verify(&v),
        Some(Command::Man(m)) => man::cmd_man(&m),
        Some(Command::Completions(c)) => completions::cmd_completions(&c),
        #[cfg(not(any(target_os = "linux", windows)))]
        Some(
            Command::Sweep(_) | Command::Iozone(_) | Command::Dataset(_) | Command::Workload(_),
        ) => Err(not_yet_here(&args)),
        #[cfg(not(target_os = "linux"))]
        Some(Command::Mdtest(_) | Command::Io500(_)) => Err(not_yet_here(&args)),
    }
}

/// The commands not yet ported to this system, refused by name.
#[cfg(not(target_os = "linux"))]
fn not_yet_here(args: &[String]) -> Error {
    Error::usage(format!(
        "iogauge {} is not yet on {}: mdtest and io500 run on Linux for now, sweeps, iozone \
         lines, datasets and workloads on Linux and Windows; `iogauge run`, `quick`, `fs`, \
         `diskspd` and `fio` run here",
        subcommand(args).unwrap_or("?"),
        std::env::consts::OS
    ))
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
