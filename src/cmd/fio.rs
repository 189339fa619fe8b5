//! `iogauge fio`: fio job files and command lines, run with fio's meaning on iogauge's runner.
//!
//! The reading and the meaning of options live in `spec::fio`; this file runs the plan: the
//! jobs of one batch together (each its own run, as fio's jobs are), batches one after the
//! other, and reports them as fio does (text or fio-shaped JSON).

use super::{absolute, write_output};
use iogauge::cli::{Cli, SaveOpts};
use iogauge::cluster::Place;
use iogauge::context::ranks::Ranks;
use iogauge::context::Outputs;
use iogauge::error::{exit, Error};
use iogauge::fio_plan::{
    parse_only, preflight, report, run_plan, save, team as fio_team, write_logs,
};
use iogauge::report::FioFormat;
use iogauge::spec::fio::names::Arg;
use iogauge::spec::fio::options::{self, FioPlan, MapOptions};
use iogauge::spec::fio::{self, Vars};
use std::path::{Path, PathBuf};

/// iogauge's own options among fio's.
struct Own {
    format: FioFormat,
    output: Option<String>,
    sections: Vec<String>,
    parse_only: bool,
    ignore_unsupported: bool,
    allow_overwrite: bool,
    keep: bool,
    save: SaveOpts,
    /// Say on stderr what runs and where it is saved. Off by default: fio writes nothing
    /// there on a clean run, and tools that run fio (fio-plot's bench-fio) take anything
    /// there as a failure.
    verbose: bool,
    help: bool,
    version: bool,
    /// What fio's program options that change nothing here were taken as, one line each.
    notes: Vec<String>,
    /// fio's --readonly: refuse any job that writes or trims.
    readonly: bool,
    /// fio's --showcmd: print each job file as one fio command line, run nothing.
    showcmd: bool,
}

/// Take iogauge's options (and fio's program options) out of the argument list; what is left
/// is job options and job files. `args` are in the long forms [`fio::long_forms`] writes, so a
/// value is always attached (`--output=out.json`).
fn split_own(args: &[String]) -> Result<(Own, Vec<String>), Error> {
    let mut own = Own {
        format: FioFormat::Normal,
        output: None,
        sections: Vec::new(),
        parse_only: false,
        ignore_unsupported: false,
        allow_overwrite: false,
        keep: false,
        save: SaveOpts {
            tags: Vec::new(),
            no_save: false,
        },
        verbose: false,
        help: false,
        version: false,
        notes: Vec::new(),
        readonly: false,
        showcmd: false,
    };
    let mut rest = Vec::new();
    // Applied once all are read: fio keeps it whichever of --minimal, --output-format and
    // --terse-version comes first.
    let mut terse_version = None;
    for a in args {
        let (key, value) = super::key_value(a);
        let need = |what: &str| super::value_of(key, value, what);
        match key {
            "--help" => own.help = true,
            "--version" => own.version = true,
            "--output-format" => {
                own.format = FioFormat::from_name(&need("normal|json|json+|terse")?)?
            }
            "--minimal" => own.format = FioFormat::from_name("terse")?,
            "--terse-version" => {
                let v = need("N")?;
                let n = v.trim().parse().map_err(|_| {
                    Error::usage(format!(
                        "--terse-version={v}: fio's terse versions are 2, 3, 4 and 5"
                    ))
                })?;
                terse_version = Some(n);
            }
            "--output" => own.output = Some(need("FILE")?),
            "--section" => own.sections.push(need("NAME")?),
            "--parse-only" => own.parse_only = true,
            "--readonly" => own.readonly = true,
            "--showcmd" => own.showcmd = true,
            "--ignore-unsupported" => own.ignore_unsupported = true,
            "--allow-overwrite" => own.allow_overwrite = true,
            "--keep" => own.keep = true,
            "--verbose" => own.verbose = true,
            "--no-save" => own.save.no_save = true,
            "--tag" => own.save.tags.push(need("TAG")?),
            // fio's progress line; iogauge prints none while a job runs.
            "--eta" | "--eta-newline" | "--eta-interval" => {}
            // fio 3.33 takes a value and ignores it ("we don't track/need this anymore");
            // cdmpy passes --max-jobs=1 with 8 clones.
            "--max-jobs" => {
                need("N")?;
            }
            _ => match program_note(key) {
                Some(Ok(note)) => own.notes.push(note),
                Some(Err(e)) => return Err(e),
                None => rest.push(a.clone()),
            },
        }
    }
    if let Some(v) = terse_version {
        own.format = own.format.with_terse_version(v)?;
    }
    Ok((own, rest))
}

/// iogauge's own options among fio's, and how each takes a value (for [`fio::long_forms`]).
const OWN_OPTIONS: &[(&str, Arg)] = &[
    ("ignore-unsupported", Arg::None),
    ("allow-overwrite", Arg::None),
    ("keep", Arg::None),
    ("verbose", Arg::None),
    ("no-save", Arg::None),
    ("tag", Arg::Required),
];

/// fio's program options that change nothing iogauge measures or writes: accepted, with the
/// note a run carries. Those that ask for what iogauge does not do are refused in one line.
/// `None` for anything else (a job option).
fn program_note(key: &str) -> Option<Result<String, Error>> {
    let note = |why: &str| Some(Ok(format!("{key}: {why}")));
    match key {
        "--debug" => note("fio's debug tracing has no counterpart; iogauge traces nothing"),
        "--alloc-size" => note("fio's shared-memory pool size; iogauge needs none"),
        "--warnings-fatal" => note("iogauge's refusals are errors already, and its notes are not warnings"),
        "--aux-path" => note("iogauge writes no state files beside the job's (verify_state_save names its own)"),
        "--idle-prof" => note("fio's CPU idleness profile is not computed; each job's CPU use (usr_cpu, sys_cpu) is"),
        "--status-interval" => note("iogauge prints no interim status; --output-format=json gives the whole run at its end"),
        k if is_program_option(k) => Some(Err(Error::usage(format!(
            "{k}: fio's program option is not supported by iogauge fio (it runs jobs and reports them; see iogauge fio --help)"
        )))),
        _ => None,
    }
}

/// Whether `--key` names one of fio's program options (not a job option).
fn is_program_option(key: &str) -> bool {
    let name = key.trim_start_matches('-');
    fio::names::PROGRAM.iter().any(|(n, _, _)| *n == name)
}

fn help() -> Result<u8, Error> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let sub = cmd
        .find_subcommand_mut("fio")
        .expect("the fio subcommand exists");
    let mut sub = sub.clone().bin_name("iogauge fio");
    write_output("-", &sub.render_long_help().to_string())?;
    Ok(exit::OK)
}

/// The size of an existing file or block device.
fn size_of(p: &Path) -> Option<u64> {
    use std::io::Seek;
    let m = std::fs::metadata(p).ok()?;
    if m.is_file() {
        return Some(m.len());
    }
    let mut f = std::fs::File::open(p).ok()?;
    f.seek(std::io::SeekFrom::End(0)).ok()
}

pub fn cmd_fio(
    db: &Option<PathBuf>,
    args: &[String],
    command_line: Vec<String>,
) -> Result<u8, Error> {
    let args = fio::long_forms(args, OWN_OPTIONS)?;
    let (own, rest) = split_own(&args)?;
    if own.help {
        return help();
    }
    if own.version {
        // fio's version line first: tools that run fio check it (fio-plot's bench-fio wants
        // fio-3); iogauge follows fio 3.33's options and writes its output shapes.
        write_output(
            "-",
            &format!("fio-3.33 (iogauge-{})\n", env!("CARGO_PKG_VERSION")),
        )?;
        return Ok(exit::OK);
    }
    if own.showcmd {
        write_output("-", &show_cmd(&rest)?)?;
        return Ok(exit::OK);
    }
    let ranks = Ranks::join()?;
    let root = ranks.is_root();
    // Each rank reads the job files and sizes its own files (on its own host, maybe): no rank
    // goes on unless every rank can, and rank 0 says what stopped which.
    let planned = make_plan(&own, &rest, root, ranks.place());
    let mut plan = match ranks.agree(planned)? {
        Ok(plan) => plan,
        Err(code) => return Ok(code),
    };
    let templates = match ranks.team() {
        None => {
            alone_placeholders(&mut plan)?;
            None
        }
        // Collectives inside: entered by every rank or by none.
        Some(c) => match ranks.agree(fio_team::localize(c, &mut plan))? {
            Ok(templates) => Some(templates),
            Err(code) => return Ok(code),
        },
    };
    if own.parse_only {
        if root {
            write_output("-", &parse_only(&plan))?;
        }
        return Ok(exit::OK);
    }
    ranks.alone_or_abort(preflight(&plan))?;
    let mut ctx = ranks.open(Outputs {
        output_file: own.output.as_deref().unwrap_or("-"),
        output_flag: "--output",
        quiet: true,
        saving: super::saving(db, &own.save),
    })?;
    let verbose = own.verbose && root;
    let team = ctx.team();
    let mut outcome = run_plan(&mut plan, &command_line, ctx.interrupted(), verbose, team);
    if let (Some(c), Some(templates)) = (team, &templates) {
        if let fio_team::Gathered::Done(code) =
            fio_team::combine(c, &mut plan, templates, &mut outcome)?
        {
            return Ok(code);
        }
    }
    // Rank 0 (or the only process) from here on.
    if !root {
        return outcome.exit_status();
    }
    // Interrupted before any job had a result, JSON is still asked for: a document with no
    // jobs, as fio writes one (a consumer reading stdout gets valid JSON).
    let json = matches!(own.format, FioFormat::Json | FioFormat::JsonPlus);
    if outcome.results.iter().any(Option::is_some) || (outcome.interrupted && json) {
        ctx.write(&report(own.format, &plan, &outcome))?;
    }
    write_logs(&plan, &outcome.results)?;
    let results = std::mem::take(&mut outcome.results);
    save(ctx.saver(), &plan, results, own.verbose)?;
    outcome.exit_status()
}

/// The jobs of the job files and the command line (those `--section` names, if any), as
/// iogauge will run them.
/// `say_warnings`: on stderr (rank 0 alone says them for every rank). `rank`: this rank's
/// place, under MPI, whose own files (`{rank}` and the like filled in) give the sizes.
fn make_plan(
    own: &Own,
    rest: &[String],
    say_warnings: bool,
    rank: Option<&Place>,
) -> Result<FioPlan, Error> {
    let vars = Vars::here();
    let cl = fio::read_args(rest, &vars)?;
    let mut jobs = Vec::new();
    for f in &cl.files {
        for mut j in fio::read_file(Path::new(f), &vars)? {
            j.inherit(&cl.globals);
            jobs.push(j);
        }
    }
    jobs.extend(cl.jobs);
    if !own.sections.is_empty() {
        if let Some(s) = own
            .sections
            .iter()
            .find(|s| !jobs.iter().any(|j| &&j.name == s))
        {
            return Err(Error::usage(format!("--section={s}: no job of that name")));
        }
        jobs.retain(|j| own.sections.contains(&j.name));
    }
    if own.parse_only && jobs.is_empty() {
        // Options and no job: fio parses them and says nothing, and scripts ask it so whether
        // an engine loads (OpenZFS's dio tests: fio --ioengine=io_uring --parse-only).
        let globals = fio::FioJob {
            name: "global".into(),
            options: cl.globals.clone(),
            inherited: 0,
            at: fio::Location {
                file: fio::COMMAND_LINE.into(),
                line: 1,
            },
        };
        if let Some(e) = fio::unloadable_engine(&globals) {
            return Err(Error::usage(e));
        }
        return Ok(FioPlan {
            runs: Vec::new(),
            global_options: Vec::new(),
            warnings: Vec::new(),
        });
    }
    let mut plan = options::plan(
        &jobs,
        &MapOptions {
            ignore_unsupported: own.ignore_unsupported,
            allow_overwrite: own.allow_overwrite,
            keep: own.keep,
            size_of: &|p| size_of(&rank_path(p, rank)),
            exists: &|p| rank_path(p, rank).exists(),
            free_space_of: &iogauge::facts::free_space,
        },
    )?;
    iogauge::fio_plan::fit_descriptors(&mut plan);
    if let Some(r) = plan
        .runs
        .iter()
        .find(|r| own.readonly && r.job.shape.modifies())
    {
        // fio 3.33's words.
        return Err(Error::usage(format!(
            "job <{}> has write or trim bit set, but fio is in read-only mode (--readonly)",
            r.name
        )));
    }
    for run in &mut plan.runs {
        run.notes.extend(own.notes.iter().cloned());
    }
    for w in plan.warnings.iter().filter(|_| say_warnings) {
        eprintln!("iogauge: warning: {w}");
    }
    for run in &mut plan.runs {
        for t in &mut run.job.targets {
            t.path = absolute(&t.path)?;
        }
    }
    Ok(plan)
}

/// Each job file as the fio command line that runs the same jobs, as fio's --showcmd prints
/// it: the file's global options, then each job's `--name` and its own options, in order.
/// Jobs given on the command line are not shown (fio shows none).
fn show_cmd(rest: &[String]) -> Result<String, Error> {
    let vars = Vars::here();
    let cl = fio::read_args(rest, &vars)?;
    let mut out = String::new();
    for f in &cl.files {
        let mut line = String::from("fio ");
        let mut shown = 0;
        for j in fio::read_file(Path::new(f), &vars)? {
            let (globals, own) = j.options.split_at(j.inherited);
            let new_globals = globals.get(shown..).unwrap_or_default();
            shown = globals.len();
            line.push_str(&format!("{}--name={} ", words(new_globals), j.name));
            line.push_str(&words(own));
        }
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

/// Options as fio's command line writes them, each followed by a space.
fn words(options: &[fio::FioOption]) -> String {
    options
        .iter()
        .map(|o| match &o.value {
            Some(v) => format!("--{}={v} ", o.key),
            None => format!("--{} ", o.key),
        })
        .collect()
}

/// `path` as rank `rank` (alone: rank 0) will use it; as written where the placeholders do
/// not expand (which localizing the plan then refuses, naming the job).
fn rank_path(path: &Path, rank: Option<&Place>) -> PathBuf {
    let expanded = iogauge::cluster::expand_here(&path.to_string_lossy(), rank).ok();
    expanded.map_or_else(|| path.to_path_buf(), PathBuf::from)
}

/// Alone, a target's placeholders are rank 0's, and a `{word}` that is not one is refused,
/// as under mpirun (a typo would otherwise name a file `{rnak}`).
fn alone_placeholders(plan: &mut fio::options::FioPlan) -> Result<(), Error> {
    for run in &mut plan.runs {
        for t in &mut run.job.targets {
            let path = iogauge::cluster::expand_here(&t.path.to_string_lossy(), None)
                .map_err(|e| Error::usage(format!("{}: job '{}': {e}", run.at, run.name)))?;
            t.path = path.into();
        }
    }
    Ok(())
}
