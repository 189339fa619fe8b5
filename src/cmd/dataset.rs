//! `iogauge dataset create` and `iogauge dataset verify`: the flags made one validated
//! [`DatasetSpec`] (a preset, then what was given over it), made or checked, reported.

use iogauge::cli::{DatasetArgs, DatasetCommand, DatasetCreateArgs, DatasetVerifyArgs};
use iogauge::dataset::create::{create, CreateOptions};
use iogauge::dataset::verify::verify;
use iogauge::dataset::{self, DatasetSpec, SizeDist};
use iogauge::error::{exit, Error};
use iogauge::report::Subject;

pub fn cmd_dataset(a: &DatasetArgs) -> Result<u8, Error> {
    match &a.command {
        DatasetCommand::Create(c) => cmd_create(c),
        DatasetCommand::Verify(v) => cmd_verify(v),
    }
}

fn cmd_create(a: &DatasetCreateArgs) -> Result<u8, Error> {
    let exporter = Subject::Dataset.exporter(a.output)?;
    let spec = spec_of(a)?;
    let opts = CreateOptions {
        threads: threads(a.threads)?,
        force: a.force,
        keep_partial: a.keep,
    };
    let mut ctx = super::unsaved()?;
    let report = create(&spec, &super::absolute(&a.dir)?, &opts, ctx.interrupted())?;
    ctx.write(&exporter.render(&report))?;
    Ok(exit::OK)
}

fn cmd_verify(a: &DatasetVerifyArgs) -> Result<u8, Error> {
    let exporter = Subject::Dataset.exporter(a.output)?;
    let mut ctx = super::unsaved()?;
    let manifest = a.manifest.as_deref();
    let report = verify(&a.dir, manifest, threads(a.threads)?, ctx.interrupted())?;
    ctx.write(&exporter.render(&report))?;
    Ok(if report.ok {
        exit::OK
    } else {
        exit::CHECK_FAILED
    })
}

/// The dataset the flags ask for: the preset's (or the defaults), each flag given over it.
fn spec_of(a: &DatasetCreateArgs) -> Result<DatasetSpec, Error> {
    check_counts(a)?;
    let mut s = match &a.preset {
        Some(p) => dataset::preset(p, a.seed)?,
        None => DatasetSpec {
            files: 1000,
            dirs: dataset::default_dirs(1000),
            fanout: dataset::fanout_for(dataset::default_dirs(1000), 2),
            sizes: SizeDist::Lognormal {
                median: 64 << 10,
                sigma: 1.0,
            },
            compressible_pct: 50,
            extension: ".dat".into(),
            seed: a.seed,
            preset: None,
        },
    };
    if let Some(n) = a.files {
        s.files = n;
        s.dirs = dataset::default_dirs(n);
    }
    if let Some(d) = &a.size_dist {
        s.sizes = SizeDist::parse(d)?;
    }
    if let Some(p) = a.compressible {
        s.compressible_pct = p;
    }
    let depth = a.depth.unwrap_or(2);
    if depth == 0 && (a.dirs.is_some_and(|d| d > 0) || a.fanout.is_some()) {
        return Err(Error::usage(
            "--depth 0 puts every file in DIR itself: no --dirs or --fanout with it",
        ));
    }
    match (a.dirs, a.fanout) {
        (_, Some(f)) => {
            s.fanout = f;
            s.dirs = dataset::dirs_for(f, depth);
        }
        (Some(d), None) => {
            s.dirs = d;
            s.fanout = dataset::fanout_for(d, depth);
        }
        (None, None) if depth == 0 => s.dirs = 0,
        // The preset's folders, or about one per 64 files, in `depth` levels.
        (None, None) if a.depth.is_some() || a.files.is_some() || a.preset.is_none() => {
            s.fanout = dataset::fanout_for(s.dirs, depth);
        }
        (None, None) => {}
    }
    s.validate()?;
    Ok(s)
}

/// Each count as typed, refused at once where it is more than iogauge makes: the folder
/// arithmetic that follows (the fanout for --dirs, the folders of --fanout and --depth)
/// must never start on an absurd number.
fn check_counts(a: &DatasetCreateArgs) -> Result<(), Error> {
    let checks = [
        ("--files", a.files, dataset::MAX_FILES, "files"),
        ("--dirs", a.dirs, dataset::MAX_DIRS, "folders"),
        (
            "--fanout",
            a.fanout,
            dataset::MAX_DIRS,
            "folders in a level",
        ),
        (
            "--depth",
            a.depth.map(u64::from),
            dataset::MAX_DEPTH,
            "levels",
        ),
    ];
    for (flag, value, max, what) in checks {
        if let Some(v) = value.filter(|&v| v > max) {
            return Err(Error::usage(format!(
                "{flag} {v}: more than iogauge makes (at most {max} {what})"
            )));
        }
    }
    Ok(())
}

/// Threads beyond this are refused: each is an OS thread with its own buffer.
const MAX_THREADS: u32 = 1024;

/// `--threads`, or the CPUs (at most 8).
fn threads(asked: Option<u32>) -> Result<u32, Error> {
    match asked {
        Some(0) => Err(Error::usage("--threads 0: at least one thread")),
        Some(n) if n > MAX_THREADS => Err(Error::usage(format!(
            "--threads {n}: more than iogauge starts (at most {MAX_THREADS})"
        ))),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get().min(8) as u32)),
    }
}
