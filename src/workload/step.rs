//! One repetition of one step, in stages: its input made ready (an archive for an extract of
//! a tree, a copy for a delete; untimed) -> its outputs made (new names in the target) -> the
//! caches emptied and what they still hold of the input looked at -> the timed work, sampled
//! -> written back (syncfs, timed apart) -> what it made checked against the source.

use super::archive::{self, Packing};
use super::made::Made;
use super::meter::{Measured, Meter, Totals};
use super::setup::{Input, Reference};
use super::tools;
use super::tree::{self, Survey};
use super::{copy, delete, extract, read};
use super::{
    ArchiveFormat, CacheState, Compression, CopyMethod, CopyUse, CpuUse, Params, Rep, Step,
    StepKind, Verified, Work,
};
use crate::dataset::manifest::Manifest;
use crate::dataset::verify::{self as dverify, Expected};
use crate::dataset::MANIFEST;
use crate::error::{Error, Result};
use crate::os::cache::{self, CacheDrop};
use crate::os::dir::{Dir, Kind};
use crate::units::format_size_human;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

/// Everything the steps share.
pub struct Ctx<'a> {
    pub params: &'a Params,
    pub target: Option<PathBuf>,
    pub cache: CacheDrop,
    pub reference: Reference,
    pub survey: Option<Survey>,
    pub source: Input,
    pub stop: &'a AtomicBool,
    pub progress: &'a (dyn Fn(&str) + Sync),
    pub notes: Mutex<Vec<String>>,
}

impl Ctx<'_> {
    /// Say `n` in the report's notes, once.
    pub fn note(&self, n: impl Into<String>) {
        let n = n.into();
        let mut notes = self.notes.lock().unwrap_or_else(|p| p.into_inner());
        if !notes.contains(&n) {
            notes.push(n);
        }
    }

    fn target(&self) -> &Path {
        self.target
            .as_deref()
            .expect("checked: writing steps have a target")
    }

    /// The name step `i`'s output has in the target.
    pub fn out_name(&self, i: usize, base: &str) -> PathBuf {
        let name = if self.params.steps.len() == 1 {
            base.to_string()
        } else {
            format!("{}-{base}", i + 1)
        };
        self.target().join(name)
    }
}

/// Step `i`'s input, made ready: an archive made from a tree for extract, a copy for delete.
pub fn ready_input(
    ctx: &Ctx,
    i: usize,
    step: &Step,
    input: &Input,
    made: &mut Made,
    tag: &str,
) -> Result<Input> {
    match (step.kind, input) {
        (StepKind::Extract, Input::Tree(tree)) => {
            let f = step.format();
            let path = ctx.out_name(i, &format!("{tag}extract-input.{}", f.name()));
            let file = made.file(&path)?;
            let how = Packing {
                format: f,
                level: step.level(),
                threads: step.threads,
            };
            (ctx.progress)(&format!("making the archive {} to extract", path.display()));
            let meter = Meter::new(step.threads, ctx.params.interval_ns);
            archive::archive(tree, &file, &path, &how, &meter, ctx.stop)?;
            ctx.note(format!(
                "extract works on an archive: the tree was packed into a {} archive first, \
                 untimed",
                f.name()
            ));
            Ok(Input::Archive(path, f))
        }
        (StepKind::Delete, Input::Tree(tree)) if !made.made(tree) || !tag.is_empty() => {
            let path = ctx.out_name(i, &format!("{tag}delete"));
            copy_for(ctx, step, tree, &path, made)?;
            ctx.note(
                "delete removes a copy of its tree made just before it (untimed, by read and \
                 write): the source is never removed",
            );
            Ok(Input::Tree(path))
        }
        _ => Ok(input.clone()),
    }
}

/// A plain copy of `tree` at `path` (untimed), for a delete to remove.
fn copy_for(ctx: &Ctx, step: &Step, tree: &Path, path: &Path, made: &mut Made) -> Result<()> {
    made.folder(path)?;
    (ctx.progress)(&format!(
        "copying the tree to {} to delete it",
        path.display()
    ));
    let meter = Meter::new(step.threads, ctx.params.interval_ns);
    copy::copy(
        tree,
        path,
        CopyMethod::ReadWrite,
        step.threads,
        &meter,
        ctx.stop,
    )
    .map(drop)
}

/// Empty the caches before a measurement, and see what of the input they still hold.
pub fn empty_caches(ctx: &Ctx, input: &Input) -> Result<CacheState> {
    let fail = |e: std::io::Error| Error::runtime(format!("cannot drop caches: {e}"));
    match (ctx.cache, input) {
        (CacheDrop::DropCaches, _) => cache::drop_all().map_err(fail)?,
        (CacheDrop::Fadvise, Input::Archive(p, _)) => {
            let f = File::open(p).map_err(fail)?;
            ctx.cache.apply(Some(&f)).map_err(fail)?;
        }
        (CacheDrop::Fadvise, Input::Tree(root)) => {
            tree::walk(root, ctx.stop, &mut |item| {
                if item.kind == Kind::File {
                    let f = File::open(root.join(&item.rel)).map_err(fail)?;
                    ctx.cache.apply(Some(&f)).map_err(fail)?;
                }
                Ok(())
            })?;
        }
        (CacheDrop::None, _) => {}
    }
    let sample: Vec<PathBuf> = match input {
        Input::Archive(p, _) => vec![p.clone()],
        Input::Tree(root) => ctx
            .survey
            .iter()
            .flat_map(|s| s.sample.iter().map(|rel| root.join(rel)))
            .collect(),
    };
    let (mut cached, mut pages, mut files) = (0u64, 0u64, 0u32);
    for p in &sample {
        let Ok(f) = File::open(p) else { continue };
        if let Ok((c, n)) = cache::resident(&f) {
            cached += c;
            pages += n;
            files += 1;
        }
    }
    Ok(CacheState {
        dropped: ctx.cache != CacheDrop::None,
        resident_pct: (files > 0).then(|| 100.0 * cached as f64 / (pages as f64).max(1.0)),
        sampled_files: files,
    })
}

/// One repetition of step `i`, its figures added to `reps` (cut short, when an error or Ctrl-C
/// stopped it); what it leaves for the next step.
pub fn run_step(
    ctx: &Ctx,
    (i, rep): (usize, u32),
    step: &Step,
    input: &Input,
    made: &mut Made,
    reps: &mut Vec<Rep>,
    start: &mut dyn FnMut() -> bool,
) -> Result<Option<Input>> {
    let input = ready_input(ctx, i, step, input, made, "")?;
    let out = Output::make(ctx, i, step, made)?;
    let doomed = doomed(step, &input, made)?;
    let cache_state = empty_caches(ctx, &input)?;
    // An MPI job's ranks start the timed part together (alone: at once).
    if !start() {
        return Err(Error::Interrupted(
            "interrupted while waiting for the other ranks".into(),
        ));
    }
    let watched: Vec<PathBuf> = match &input {
        Input::Archive(p, _) => vec![p.clone()],
        Input::Tree(root) => vec![root.clone()],
    }
    .into_iter()
    .chain(out.path.clone())
    .collect();
    let meter = Meter::new(step.threads, ctx.params.interval_ns).watching(watched.clone());
    let what = format!(
        "repetition {}/{}, {}",
        rep + 1,
        ctx.params.repeat,
        step.kind.name()
    );
    let tick = |t: Totals| (ctx.progress)(&progress_line(&what, t));
    let m = meter.measure(&tick, || {
        work(ctx, step, &input, &out, doomed, made, &meter)
    });
    let Measured {
        value,
        elapsed_ns,
        user_ns,
        system_ns,
        series,
        totals,
        signals,
    } = m;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let cpu = CpuUse::of(step.threads, cpus, user_ns, system_ns, elapsed_ns);
    let phases = step.kind.work().series(&series).phases(true);
    let mut r = Rep {
        elapsed_ns,
        sync_ns: None,
        files: 0,
        dirs: 0,
        links: 0,
        skipped: 0,
        bytes_read: totals.read_bytes,
        bytes_written: totals.write_bytes,
        cpu,
        cache: cache_state,
        time_series: series,
        phases,
        copy: None,
        compression: None,
        verify: None,
        cut_short: false,
        limit: signals.map(|s| step_limit(step.threads, &watched, elapsed_ns, &totals, &s)),
    };
    let done = match value {
        Ok(d) => d,
        Err(e) => {
            // What was done until it stopped is kept, marked as cut short.
            r.files = match step.kind.work() {
                Work::Read => totals.read_files,
                Work::Written => totals.write_files,
                Work::Entries => totals.read_files + totals.write_files,
            };
            r.cut_short = true;
            reps.push(r);
            return Err(e);
        }
    };
    r.sync_ns = write_back(ctx, step)?;
    r.verify = match (&out.path, step.kind) {
        (Some(o), StepKind::Copy | StepKind::Extract) if ctx.params.verify => {
            (ctx.progress)(&format!("checking {}", o.display()));
            check(ctx, o, step.threads, &input)?
        }
        _ => None,
    };
    r.copy = done.copy.map(|c| copy_use(ctx, c, &out, &done.largest));
    if done.skipped > 0 {
        ctx.note(format!(
            "{}: {} entries that are neither files, folders nor links were left out",
            step.kind.name(),
            done.skipped
        ));
    }
    (r.files, r.dirs, r.links, r.skipped) = (done.files, done.dirs, done.links, done.skipped);
    r.compression = done.compression;
    reps.push(r);
    Ok(match (step.kind, out.path) {
        (StepKind::Copy | StepKind::Extract, Some(o)) => Some(Input::Tree(o)),
        (StepKind::Archive, Some(o)) => Some(Input::Archive(o, step.format())),
        _ => None,
    })
}

/// What a step makes: a folder (copy, extract) or an archive file, new in the target.
struct Output {
    path: Option<PathBuf>,
    file: Option<File>,
}

impl Output {
    fn make(ctx: &Ctx, i: usize, step: &Step, made: &mut Made) -> Result<Output> {
        let mut o = Output {
            path: None,
            file: None,
        };
        match step.kind {
            StepKind::Copy | StepKind::Extract => {
                let p = ctx.out_name(i, step.kind.name());
                made.folder(&p)?;
                o.path = Some(p);
            }
            StepKind::Archive => {
                let p = ctx.out_name(i, &tools::archive_name(step.format()));
                o.file = Some(made.file(&p)?);
                o.path = Some(p);
            }
            _ => {}
        }
        Ok(o)
    }

    fn path(&self) -> &Path {
        self.path.as_deref().expect("the step makes an output")
    }
}

/// The tree a delete removes, opened and checked to be the one iogauge made, before the clock
/// starts.
fn doomed(step: &Step, input: &Input, made: &Made) -> Result<Option<Dir>> {
    if step.kind != StepKind::Delete {
        return Ok(None);
    }
    let p = input.path();
    let top =
        Dir::open(p).map_err(|e| Error::runtime(format!("cannot open '{}': {e}", p.display())))?;
    if !made.is(p, top.file()) {
        return Err(Error::runtime(format!(
            "'{}' is not the tree iogauge made: left alone",
            p.display()
        )));
    }
    Ok(Some(top))
}

/// What the timed part of a step did.
#[derive(Default)]
struct Done {
    files: u64,
    dirs: u64,
    links: u64,
    skipped: u64,
    copy: Option<CopyUse>,
    largest: Option<PathBuf>,
    compression: Option<Compression>,
}

/// The timed work.
fn work(
    ctx: &Ctx,
    step: &Step,
    input: &Input,
    out: &Output,
    doomed: Option<Dir>,
    made: &mut Made,
    meter: &Meter,
) -> Result<Done> {
    let (stop, threads) = (ctx.stop, step.threads);
    match (step.kind, input) {
        (StepKind::Copy, Input::Tree(src)) => {
            let method = step.method.unwrap_or_else(CopyMethod::native);
            let c = copy::copy(src, out.path(), method, threads, meter, stop)?;
            Ok(Done {
                files: c.files,
                dirs: c.dirs,
                links: c.links,
                skipped: c.skipped,
                copy: Some(c.how),
                largest: c.largest,
                compression: None,
            })
        }
        (StepKind::Archive, Input::Tree(src)) => {
            let how = Packing {
                format: step.format(),
                level: step.level(),
                threads,
            };
            let file = out.file.as_ref().expect("made with the output");
            let a = archive::archive(src, file, out.path(), &how, meter, stop)?;
            Ok(Done {
                files: a.files,
                dirs: a.dirs,
                links: a.links,
                skipped: a.skipped,
                compression: Some(Compression {
                    format: how.format,
                    level: how.level,
                    tree_bytes: a.tree_bytes,
                    archive_bytes: a.archive_bytes,
                }),
                ..Done::default()
            })
        }
        (StepKind::Extract, Input::Archive(a, f)) => {
            let x = extract::extract(a, *f, out.path(), threads, meter, stop)?;
            Ok(Done {
                files: x.files,
                dirs: x.dirs,
                links: x.links,
                skipped: x.skipped,
                compression: Some(Compression {
                    format: *f,
                    level: 0,
                    tree_bytes: x.tree_bytes,
                    archive_bytes: std::fs::metadata(a).map(|m| m.len()).unwrap_or(0),
                }),
                ..Done::default()
            })
        }
        (StepKind::Scan | StepKind::Readall, Input::Tree(src)) => {
            let found = if step.kind == StepKind::Scan {
                read::scan(src, threads, meter, stop)?
            } else {
                read::readall(src, threads, meter, stop)?
            };
            Ok(Done {
                files: found.files,
                dirs: found.dirs,
                links: found.links,
                skipped: found.other,
                ..Done::default()
            })
        }
        (StepKind::Delete, Input::Tree(tree)) => {
            let top = doomed.expect("opened before the clock started");
            let r = delete::empty(top, tree, threads, meter, stop)?;
            // rm -rf removes the folder itself too: so does the timed step.
            made.remove_checked(tree)?;
            Ok(Done {
                files: r.files,
                dirs: r.dirs + 1,
                links: r.links,
                ..Done::default()
            })
        }
        _ => Err(Error::runtime(format!(
            "{} cannot work on {}",
            step.kind.name(),
            input.path().display()
        ))),
    }
}

/// Write back what a writing step wrote (syncfs of the target's file system), timed apart.
fn write_back(ctx: &Ctx, step: &Step) -> Result<Option<u64>> {
    if !step.kind.writes() {
        return Ok(None);
    }
    let t0 = std::time::Instant::now();
    match cache::sync_fs(ctx.target()) {
        Ok(()) => Ok(Some(t0.elapsed().as_nanos() as u64)),
        // A system that cannot write a whole file system back (not yet on Windows): the step
        // is timed without it, and the report says so.
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => {
            ctx.note(format!(
                "what the steps wrote was not written back apart: {e}"
            ));
            Ok(None)
        }
        Err(e) => Err(Error::runtime(format!(
            "cannot sync '{}': {e}",
            ctx.target().display()
        ))),
    }
}

/// How a copy moved its bytes, with whether the largest file's copy shares extents (asked of
/// the file system after the clock stopped).
fn copy_use(ctx: &Ctx, mut c: CopyUse, out: &Output, largest: &Option<PathBuf>) -> CopyUse {
    // A block clone says so itself; otherwise the file system is asked.
    if let Some(shared) = largest
        .as_ref()
        .and_then(|b| copy::shares_extents(out.path(), b))
    {
        c.shared_extents = Some(shared);
    }
    if let Some(r) = &c.refused {
        ctx.note(r.clone());
    }
    if c.shared_extents == Some(true) {
        let how = match c.method {
            CopyMethod::BlockClone => "block cloning shared the source's clusters (ReFS)",
            _ => "copy_file_range made a reflink, as cp does",
        };
        ctx.note(format!(
            "the copy shares its data with the source ({how}): no bytes were copied; \
             --method read-write copies them"
        ));
    }
    c
}

fn progress_line(what: &str, t: Totals) -> String {
    format!(
        "{what}: {} files read, {} written; {} read, {} written",
        t.read_files,
        t.write_files,
        format_size_human(t.read_bytes),
        format_size_human(t.write_bytes)
    )
}

/// Check the tree `out` made by a step against the source; None where nothing can say what
/// it should hold.
fn check(ctx: &Ctx, out: &Path, threads: u32, input: &Input) -> Result<Option<Verified>> {
    let own_manifest = out.join(MANIFEST);
    let (against, report) = match &ctx.reference {
        Reference::Manifest(at, entries) => (
            format!("the source's manifest {}", at.display()),
            dverify::check_tree(out, entries, threads, ctx.stop)?,
        ),
        Reference::Hashed(entries) => (
            "the source's files".to_string(),
            dverify::check_tree(out, entries, threads, ctx.stop)?,
        ),
        Reference::Own if own_manifest.is_file() => {
            let m = Manifest::read(&own_manifest)?;
            let expected: Vec<Expected> = m.entries.iter().map(Expected::from).collect();
            (
                format!("the manifest it holds, {}", own_manifest.display()),
                dverify::check_tree(out, &expected, threads, ctx.stop)?,
            )
        }
        Reference::Own => {
            // An archive's checksums were checked as it was read: a mismatch ended the step.
            let how = match input {
                Input::Archive(_, ArchiveFormat::Zip) => "the archive's own CRC-32s",
                Input::Archive(_, ArchiveFormat::TarZst) => "the archive's own zstd checksum",
                Input::Tree(_) => return Ok(None),
            };
            return Ok(Some(Verified {
                ok: true,
                against: format!("{how}, checked while it was read"),
                files: 0,
                missing: 0,
                wrong_size: 0,
                wrong_content: 0,
                extra: 0,
                first: Vec::new(),
            }));
        }
    };
    let mut first: Vec<String> = Vec::new();
    for p in [&report.missing, &report.wrong_size, &report.wrong_content] {
        first.extend(p.paths.iter().take(10).cloned());
    }
    Ok(Some(Verified {
        ok: report.ok,
        against,
        files: report.files,
        missing: report.missing.count,
        wrong_size: report.wrong_size.count,
        wrong_content: report.wrong_content.count,
        extra: report.extra.count,
        first,
    }))
}

/// What limited a repetition: the rules a run is judged by, on what the step read and wrote
/// through the page cache, with its threads as the I/Os asked in flight.
fn step_limit(
    threads: u32,
    watched: &[PathBuf],
    elapsed_ns: u64,
    t: &Totals,
    s: &crate::os::vitals::Signals,
) -> crate::result::limit::Limit {
    let fs: Vec<String> = watched
        .iter()
        .filter_map(|p| crate::os::facts::fs_type_of(p))
        .collect();
    let subject = crate::result::limit::Subject {
        buffered: true,
        read_bytes: t.read_bytes,
        write_bytes: t.write_bytes,
        read_ios: t.read_files,
        write_ios: t.write_files,
        secs: elapsed_ns as f64 / 1e9,
        depth: u64::from(threads),
        fs_types: fs.iter().map(String::as_str).collect(),
    };
    crate::result::limit::judge_subject(&subject, s)
}
