//! Opening targets safely, creating test files, and removing what iogauge created.
//!
//! The rule this module enforces: iogauge never writes to a block device, or to an existing
//! file it did not create, unless `--allow-overwrite` was given. Reading is always allowed.

use crate::error::{Error, Result};
use crate::facts::{free_space, fs_name, parent_dir, Content, TargetKind};
use crate::os::error::Class;
use crate::os::file::{How, What};
use crate::os::owned::{Cleanup, Identity};
use crate::rng::Rng;
use crate::spec::{CacheMode, EngineKind, Flag, JobSpec, TargetSpec, MIN_DIRECT_ALIGN};
use crate::units::format_size;
use crate::verify::Stamp;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

pub struct OpenTarget {
    pub path: PathBuf,
    /// The open file; none for a file-operation engine's target, which is only a name.
    pub file: Option<File>,
    pub kind: TargetKind,
    pub size: u64,
    /// Working set: offsets in `start..end`.
    pub start: u64,
    pub end: u64,
    pub created: bool,
    pub facts: crate::facts::TargetFacts,
    /// What it was when opened, for a thread that opens it again (`--open-files`); none for
    /// a file-operation engine's target.
    pub id: Option<Identity>,
}

/// Open (creating where asked) every target of the job. Where its threads open their files
/// as I/Os go to them (`--open-files`), each target is checked and closed again: a job may
/// have more files than the process may hold open.
pub fn open_targets(
    job: &JobSpec,
    cleanup: &mut Cleanup,
    interrupted: &AtomicBool,
) -> Result<Vec<OpenTarget>> {
    let keep = job.open_files().is_none();
    open_each(job, keep, cleanup, interrupted)
}

/// Lay out and check every target of the job, holding none open (fio's create_only).
pub fn check_targets(job: &JobSpec, cleanup: &mut Cleanup, interrupted: &AtomicBool) -> Result<()> {
    open_each(job, false, cleanup, interrupted).map(drop)
}

/// How the job's targets are opened: read and write where it writes, and its cache mode
/// (unbuffered, write-through).
pub fn how(job: &JobSpec) -> How {
    How {
        write: job.shape.modifies(),
        direct: job.cache.is_direct(),
        write_through: job.cache.is_dsync(),
        overlapped: false,
        remote_uncached: job.remote_uncached,
    }
}

/// Open target `t` again, as [`open_targets`] opened it; it must still be the same file.
pub fn reopen(job: &JobSpec, t: &OpenTarget) -> Result<File> {
    let shown = t.path.display();
    let file = crate::os::file::options(how(job))
        .open(&t.path)
        .map_err(|e| Error::runtime(format!("cannot open target '{shown}' again: {e}")))?;
    if t.id.is_some() && Identity::of_file(&file).ok() != t.id {
        return Err(Error::runtime(format!(
            "'{shown}' was replaced by another file while iogauge ran; it was left alone"
        )));
    }
    Ok(file)
}

fn open_each(
    job: &JobSpec,
    keep: bool,
    cleanup: &mut Cleanup,
    interrupted: &AtomicBool,
) -> Result<Vec<OpenTarget>> {
    match job.engine.kind.filter(|e| e.is_file_op()) {
        Some(engine) => {
            // A job may name a million files in a few folders: the facts, once per folder.
            let mut facts: std::collections::HashMap<PathBuf, crate::facts::TargetFacts> =
                std::collections::HashMap::new();
            job.targets
                .iter()
                .map(|t| name_target(job, engine, t, &mut facts, cleanup, interrupted))
                .collect()
        }
        None => job
            .targets
            .iter()
            .enumerate()
            .map(|(i, t)| open_target(job, i, t, keep, cleanup, interrupted))
            .collect(),
    }
}

/// A target of a file-operation engine: a name that one create, stat or delete is applied
/// to. The rules are those of any target: a file iogauge did not create is only read (stat)
/// unless --allow-overwrite is given (delete); a file a stat or delete needs and that is not
/// there is laid out first, as fio lays it out, at -c SIZE. A create needs the name free.
/// No descriptor is held on the file: an open file would move the cost of its delete to its
/// close (and a job may name more files than a process may hold open).
fn name_target(
    job: &JobSpec,
    engine: EngineKind,
    t: &TargetSpec,
    facts: &mut std::collections::HashMap<PathBuf, crate::facts::TargetFacts>,
    cleanup: &mut Cleanup,
    interrupted: &AtomicBool,
) -> Result<OpenTarget> {
    let path = &t.path;
    let shown = path.display();
    let dir = parent_dir(path);
    if !dir.is_dir() {
        return Err(Error::usage(format!(
            "cannot use '{shown}': folder '{}' does not exist",
            dir.display()
        )));
    }
    let mut created = false;
    let caps = engine.caps();
    let size = match std::fs::symlink_metadata(path) {
        Ok(_) if caps.creates_files => {
            return Err(Error::usage(format!(
                "'{shown}' exists: {} times the creation of new files; remove it or name another folder",
                job.dialect.assign(Flag::Engine, engine.name())
            )))
        }
        Err(e) if caps.creates_files && e.kind() == std::io::ErrorKind::NotFound => {
            // The run creates it (with O_EXCL); the runner registers the ones it made.
            created = true;
            0
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let Some(want) = t.create_size else {
                return Err(Error::usage(format!(
                    "target '{shown}' does not exist; add {} to lay it out for {}",
                    job.dialect.assign(Flag::Create, "SIZE"),
                    job.dialect.assign(Flag::Engine, engine.name())
                )));
            };
            create_file(path, want, job.seed, None, cleanup, interrupted)?;
            created = true;
            want
        }
        Err(e) => return Err(Error::usage(format!("cannot read target '{shown}': {e}"))),
        Ok(m) if !m.is_file() => {
            return Err(Error::usage(format!(
                "target '{shown}' is not a regular file: {} works on files",
                job.dialect.assign(Flag::Engine, engine.name())
            )))
        }
        Ok(_) if caps.deletes_files && !job.allow_overwrite => {
            return Err(Error::usage(format!(
                "refusing to delete '{shown}': it exists and iogauge did not create it; pass {} if that is intended",
                Flag::AllowOverwrite.native()
            )))
        }
        Ok(m) => m.len(),
    };
    // Content stays not sampled: operations on names do not read it.
    let facts = match facts.get(dir) {
        Some(f) => f.clone(),
        None => {
            let folder = crate::os::file::open_folder(dir).map_err(|e| {
                Error::usage(format!("cannot open folder '{}': {e}", dir.display()))
            })?;
            let f = crate::facts::TargetFacts::collect(path, &folder, false, false);
            facts.insert(dir.to_path_buf(), f.clone());
            f
        }
    };
    Ok(OpenTarget {
        path: path.clone(),
        file: None,
        facts,
        kind: TargetKind::File,
        size,
        start: 0,
        end: 0,
        created,
        id: None,
    })
}

/// Open target `t`, creating it where asked, and check it; `keep`: keep it open for the run.
fn open_target(
    job: &JobSpec,
    index: usize,
    t: &TargetSpec,
    keep: bool,
    cleanup: &mut Cleanup,
    interrupted: &AtomicBool,
) -> Result<OpenTarget> {
    let path = &t.path;
    let stamp = job.verify_unit().map(|unit| Stamp {
        unit,
        seed: job
            .verify
            .as_ref()
            .map_or(job.seed, |v| v.header_seed(job.seed)),
        target: index as u32,
    });
    let (kind, size, created) = examine(job, t, stamp.as_ref(), cleanup, interrupted)?;
    let (file, size) = open_checked(job, path, kind, size, created, cleanup)?;
    let (start, end) = working_set(job, path, size)?;
    let mut facts = crate::facts::TargetFacts::collect(
        path,
        &file,
        kind == TargetKind::BlockDevice,
        job.cache.is_direct(),
    );
    facts.content = if created {
        Content::Created
    } else {
        crate::facts::sample_content(&file, start, end)
    };
    Ok(OpenTarget {
        path: path.clone(),
        id: Identity::of_file(&file).ok(),
        file: keep.then_some(file),
        facts,
        kind,
        size,
        start,
        end,
        created,
    })
}
/// What stands at `t`'s path (creating the file where asked and missing): its kind, its size
/// (0 for a block device, found once open), and whether iogauge created it. Refuses what
/// must not be written.
fn examine(
    job: &JobSpec,
    t: &TargetSpec,
    stamp: Option<&Stamp>,
    cleanup: &mut Cleanup,
    interrupted: &AtomicBool,
) -> Result<(TargetKind, u64, bool)> {
    let path = &t.path;
    let shown = path.display();
    let writes = job.shape.modifies();
    let mut created = false;
    let (kind, size) = match crate::os::file::what(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let Some(want) = t.create_size else {
                return Err(Error::usage(format!(
                    "target '{shown}' does not exist; add {} to create it",
                    job.dialect.assign(Flag::Create, "SIZE")
                )));
            };
            if job.fill {
                create_empty(path, cleanup)?;
            } else {
                lay_out(path, want, job.seed, stamp, cleanup, interrupted)?;
            }
            created = true;
            (TargetKind::File, want)
        }
        Err(e) => return Err(Error::usage(format!("cannot read target '{shown}': {e}"))),
        Ok(What::Dir) => {
            return Err(Error::usage(format!(
                "target '{shown}' is a directory; give a file or a block device"
            )))
        }
        Ok(What::BlockDevice) => {
            if writes && !job.allow_overwrite {
                return Err(Error::usage(format!(
                    "refusing to write to block device '{shown}': its data would be destroyed; pass {} if that is intended",
                    Flag::AllowOverwrite.native()
                )));
            }
            (TargetKind::BlockDevice, 0)
        }
        Ok(What::File(len)) => {
            if writes && !job.allow_overwrite {
                return Err(Error::usage(format!(
                    "refusing to write to '{shown}': it exists and iogauge did not create it; pass {}, or name a new file with {}",
                    Flag::AllowOverwrite.native(),
                    job.dialect.assign(Flag::Create, "SIZE")
                )));
            }
            // An ftruncate job sets the file's length as it goes: any length will do.
            let resized = job.engine.kind.is_some_and(|e| e.caps().sets_length);
            if let Some(want) = t.create_size.filter(|_| !resized) {
                if len < want {
                    return Err(Error::usage(format!(
                        "target '{shown}' exists with {}, smaller than {}; remove it or give a smaller {}",
                        format_size(len),
                        job.dialect.assign(Flag::Create, &format_size(want)),
                        job.name(Flag::Create)
                    )));
                }
            }
            (TargetKind::File, len)
        }
        Ok(What::NullDevice) => {
            let Some(want) = t.create_size else {
                return Err(Error::usage(format!(
                    "target '{shown}' has no size of its own: give {}",
                    job.dialect.assign(Flag::Create, "SIZE")
                )));
            };
            (TargetKind::NullDevice, want)
        }
        Ok(What::Other) => {
            return Err(Error::usage(format!(
                "target '{shown}' is neither a regular file nor a block device (nor /dev/null or /dev/zero)"
            )))
        }
    };

    Ok((kind, size, created))
}

/// Open the target as the job will use it; a created file must still be the one iogauge made.
fn open_checked(
    job: &JobSpec,
    path: &Path,
    kind: TargetKind,
    mut size: u64,
    created: bool,
    cleanup: &Cleanup,
) -> Result<(File, u64)> {
    let shown = path.display();
    let file = crate::os::file::options(how(job)).open(path).map_err(|e| {
        let invalid = e.raw_os_error().map(crate::os::error::class) == Some(Class::Invalid);
        if invalid && job.cache.is_direct() {
            Error::usage(format!(
                "O_DIRECT is not supported by the file system of '{shown}' ({}); use {}",
                fs_name(path),
                job.dialect.cache(CacheMode::Buffered)
            ))
        } else {
            Error::usage(format!("cannot open target '{shown}': {e}"))
        }
    })?;
    crate::os::file::after_open(&file, how(job)).map_err(|e| {
        Error::usage(format!(
            "-Sr: cannot turn off the local cache of '{shown}' ({e}): only a remote file (an SMB share, Windows 8 or later) has one; use -Su for unbuffered I/O"
        ))
    })?;
    if created && !cleanup.holds(path, &file) {
        return Err(Error::runtime(format!(
            "'{shown}' was replaced by another file while iogauge created it; it was left alone"
        )));
    }
    if kind == TargetKind::BlockDevice {
        size = crate::os::file::device_len(&file)
            .map_err(|e| Error::runtime(format!("cannot find the size of '{shown}': {e}")))?;
    }
    if job.cache.is_direct() {
        job.check_direct_alignment(
            crate::os::file::direct_alignment(&file).unwrap_or(MIN_DIRECT_ALIGN),
            Some(path),
        )?;
    }

    Ok((file, size))
}

/// The part of the target the job's I/Os go to, checked against its size.
fn working_set(job: &JobSpec, path: &Path, size: u64) -> Result<(u64, u64)> {
    let shown = path.display();
    let start = job.shape.base_offset;
    let end = job.shape.max_offset.unwrap_or(size);
    // ftruncate's offsets are lengths to set, not places to read or write: a file shorter
    // than them (from a job before) is grown by them.
    let size = if job.engine.kind.is_some_and(|e| e.caps().sets_length) {
        size.max(end)
    } else {
        size
    };
    if end > size {
        return Err(Error::usage(format!(
            "{} {} is past the end of '{shown}' ({})",
            job.name(Flag::MaxOffset),
            format_size(end),
            format_size(size)
        )));
    }
    // With --thread-offset the last thread's working set lies furthest out.
    let shift = job.shape.thread_offset * (job.threads_per_target as u64 - 1);
    // No end given: every thread's set ends where the last one's reaches the end of the
    // target (fio lets each run to the end; the sets start at the same places).
    let end = match job.shape.max_offset {
        None if end + shift > size && size.saturating_sub(shift) > start => size - shift,
        _ => end,
    };
    if end + shift > size {
        return Err(Error::usage(format!(
            "{} {}: thread {}'s working set ends at {}, past the end of '{shown}' ({})",
            job.name(Flag::ThreadOffset),
            format_size(job.shape.thread_offset),
            job.threads_per_target - 1,
            format_size(end + shift),
            format_size(size)
        )));
    }
    if start >= end || end - start < job.shape.block_size {
        return Err(Error::usage(format!(
            "{} {} is larger than the working set of '{shown}' ({} from {} {})",
            job.name(Flag::BlockSize),
            format_size(job.shape.block_size),
            format_size(end.saturating_sub(start)),
            job.name(Flag::BaseOffset),
            format_size(start)
        )));
    }
    Ok((start, end))
}

/// Lay out a new file `path` of `size` bytes as iogauge lays out the targets it creates
/// ([`create_file`]), registered with `cleanup`: for a target, or for a file several jobs
/// share, laid out once before they start.
pub fn lay_out(
    path: &Path,
    size: u64,
    seed: u64,
    stamp: Option<&Stamp>,
    cleanup: &mut Cleanup,
    interrupted: &AtomicBool,
) -> Result<()> {
    let dir = parent_dir(path);
    if !dir.is_dir() {
        return Err(Error::usage(format!(
            "cannot create '{}': folder '{}' does not exist",
            path.display(),
            dir.display()
        )));
    }
    create_file(path, size, seed, stamp, cleanup, interrupted)
}

/// --fill: the file is made empty; the job's writes grow it until the file system is full.
fn create_empty(path: &Path, cleanup: &mut Cleanup) -> Result<()> {
    let f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::usage(format!("cannot create '{}': {e}", path.display())))?;
    cleanup.created(path, &f)
}

fn enospc(path: &Path, want: u64) -> Error {
    let avail = free_space(parent_dir(path))
        .map(format_size)
        .unwrap_or_else(|| "unknown".into());
    Error::runtime(format!(
        "not enough space to create '{}': it needs {}, the file system has {} free",
        path.display(),
        format_size(want),
        avail
    ))
}

/// Create `path` with `size` bytes of incompressible, non-repeating data: each 1 MiB chunk is
/// fresh random bytes, so neither compression nor deduplication can flatter the result.
/// On any failure the partial file is removed.
fn create_file(
    path: &Path,
    size: u64,
    seed: u64,
    stamp: Option<&Stamp>,
    cleanup: &mut Cleanup,
    interrupted: &AtomicBool,
) -> Result<()> {
    if let Some(avail) = free_space(parent_dir(path)) {
        if avail < size {
            return Err(enospc(path, size));
        }
    }
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::usage(format!("cannot create '{}': {e}", path.display())))?;
    cleanup.created(path, &f)?;
    if let Err(e) = fill(&mut f, size, seed, stamp, interrupted) {
        // A partial file is of no use, even with --keep.
        cleanup.discard(path);
        return Err(match e.raw_os_error() {
            Some(code) if crate::os::error::is_full(code) => enospc(path, size),
            _ if e.kind() == std::io::ErrorKind::Interrupted => Error::Interrupted(format!(
                "interrupted while creating '{}'; the partial file was removed",
                path.display()
            )),
            _ => Error::runtime(format!(
                "cannot write '{}' while creating it: {e}",
                path.display()
            )),
        });
    }
    // Drop the freshly written pages: the run should not start with the whole file cached.
    // Advice only: a file system that keeps them gives a warm start, which warnings report.
    let _ = crate::os::cache::drop_file(&f);
    Ok(())
}

/// Write `size` bytes of fresh random data to `f` and sync it; a signal ends it with
/// `ErrorKind::Interrupted`. With `stamp` (--verify), every whole unit carries a header of
/// generation 1, so that reads of units the run never writes can be checked too.
fn fill(
    f: &mut File,
    size: u64,
    seed: u64,
    stamp: Option<&Stamp>,
    interrupted: &AtomicBool,
) -> std::io::Result<()> {
    // Reserve the space first where the file system can: ENOSPC comes at once, not midway.
    crate::os::file::allocate(f, size)?;
    let mut rng = Rng::new(seed ^ 0xC4EA_7E00, &[size]);
    // Whole units a chunk, so that every unit boundary of the file is one of a chunk.
    let chunk_len = match stamp {
        Some(s) => ((1u64 << 20) / s.unit).max(1) * s.unit,
        None => 1 << 20,
    };
    let mut chunk = vec![0u8; chunk_len as usize];
    let mut left = size;
    let mut n_chunk = 0u64;
    while left > 0 {
        if interrupted.load(Ordering::Relaxed) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = left.min(chunk.len() as u64) as usize;
        match stamp {
            Some(s) => {
                // A last part shorter than a unit is only random bytes.
                let whole = n - n % s.unit as usize;
                s.fill(&mut chunk[..whole], n_chunk, size - left);
                rng.fill(&mut chunk[whole..n]);
            }
            None => rng.fill(&mut chunk[..n]),
        }
        f.write_all(&chunk[..n])?;
        left -= n as u64;
        n_chunk += 1;
    }
    f.sync_all()
}
