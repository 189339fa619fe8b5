//! `iogauge dataset create`: the folders, then the files by several threads (each takes the
//! next file's index; where it goes, its size and its bytes follow from the index), then the
//! manifest. Nothing is written over: every folder and file is made new, and an error or
//! Ctrl-C removes what was made (each only while it is still iogauge's: [`Owned`]).
//!
//! The folder typed is resolved first ([`resolve`]): `/tmp/nx/../u` is `/tmp/u` once `nx`
//! exists, so the "new or empty" rule is applied to `/tmp/u`, and `nx` is never made.

use super::manifest::{Entry, Manifest};
use super::{manifest_path, DatasetSpec, MANIFEST};
use crate::error::{Error, Result};
use crate::os::owned::{Folders, Owned, Removal};
use crate::os::resolve::resolve;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use xxhash_rust::xxh3::Xxh3;

/// How the files are written: chunks of at most this, each hashed as it goes.
const CHUNK: usize = 1 << 20;

pub struct CreateOptions {
    pub threads: u32,
    /// Make it in a folder that already holds other things (never writing over them).
    pub force: bool,
    /// Keep what was made when it fails or is interrupted.
    pub keep_partial: bool,
}

pub use crate::result::dataset::CreateReport;

/// Make `spec`'s dataset in the folder `typed` (as the user typed it) leads to.
pub fn create(
    spec: &DatasetSpec,
    typed: &Path,
    opts: &CreateOptions,
    interrupted: &AtomicBool,
) -> Result<CreateReport> {
    spec.validate()?;
    let top = resolve(typed)
        .map_err(|e| Error::usage(format!("cannot resolve '{}': {e}", typed.display())))?;
    let shown = shown(typed, &top);
    let mut made = Made::default();
    // Whether iogauge made the top folder: then it owns everything in it.
    let owns_top = claim_top(&top, &shown, opts.force, &mut made)?;
    let made = Mutex::new(made);
    let result = make(spec, &top, opts, owns_top, &made, interrupted);
    let mut made = made.into_inner().unwrap_or_else(|e| e.into_inner());
    made.keep = result.is_ok() || opts.keep_partial;
    match result {
        Ok(report) => Ok(report),
        Err(e) if opts.keep_partial => Err(match e {
            Error::Interrupted(_) => Error::Interrupted(format!(
                "interrupted: the dataset was not finished; what was made is kept in {shown} \
                 (--keep)"
            )),
            e => e,
        }),
        Err(e) => Err(after_removal(e, made.remove_all())),
    }
}

/// The folder as typed, and where it really leads when that differs: `'/tmp/nx/../u' (that
/// is '/tmp/u')`.
fn shown(typed: &Path, top: &Path) -> String {
    if typed == top {
        format!("'{}'", typed.display())
    } else {
        format!("'{}' (that is '{}')", typed.display(), top.display())
    }
}

/// `e`, saying what became of what was made: removed, or how many things were left.
fn after_removal(e: Error, left: usize) -> Error {
    let left_text = |m: &str| {
        format!("{m}; {left} of the things iogauge made could not be removed (named above)")
    };
    match e {
        Error::Interrupted(_) if left == 0 => Error::Interrupted(
            "interrupted: the dataset was not finished, and what was made is removed".into(),
        ),
        Error::Interrupted(_) => {
            Error::Interrupted(left_text("interrupted: the dataset was not finished"))
        }
        e if left == 0 => e,
        Error::Usage(m) => Error::Usage(left_text(&m)),
        Error::Runtime(m) => Error::Runtime(left_text(&m)),
    }
}

/// The folders, the files and the manifest, in `top` (resolved, and claimed).
fn make(
    spec: &DatasetSpec,
    top: &Path,
    opts: &CreateOptions,
    owns_top: bool,
    made: &Mutex<Made>,
    interrupted: &AtomicBool,
) -> Result<CreateReport> {
    let t0 = Instant::now();
    make_folders(spec, top, owns_top, made, interrupted)?;
    let entries = write_files(spec, top, opts.threads, owns_top, made, interrupted)?;
    let elapsed_ns = t0.elapsed().as_nanos() as u64;
    let t1 = Instant::now();
    sync_fs(top)?;
    let sync_ns = t1.elapsed().as_nanos() as u64;
    let manifest = Manifest {
        spec: spec.clone(),
        entries,
    };
    let at = manifest_path(top);
    manifest.write(&at)?;
    if !owns_top {
        lock(made).own(&at)?;
    }
    let bytes = manifest.total_bytes();
    let secs = (elapsed_ns as f64 / 1e9).max(1e-9);
    Ok(CreateReport {
        dir: top.display().to_string(),
        spec: spec.clone(),
        files: spec.files,
        dirs: spec.dirs,
        bytes,
        threads: opts.threads,
        elapsed_ns,
        sync_ns,
        files_per_s: spec.files as f64 / secs,
        mib_per_s: bytes as f64 / secs / f64::from(1 << 20),
        manifest: at.display().to_string(),
        manifest_xxh3: format!("{:016x}", manifest.checksum()),
    })
}

/// What the dataset made, by identity ([`Owned`]): the top folder where iogauge made it,
/// else the things made directly in it. Removed when asked ([`Made::remove_all`]), so that
/// the message can say what really became of them, or when dropped unless kept (a panic).
#[derive(Default)]
struct Made {
    folders: Folders,
    items: Vec<Owned>,
    keep: bool,
}

impl Drop for Made {
    fn drop(&mut self) {
        if !self.keep {
            self.remove_all();
        }
    }
}

impl Made {
    /// `path`, a folder or file iogauge just made.
    fn own(&mut self, path: &Path) -> Result<()> {
        let o = Owned::named(path, &mut self.folders).map_err(|e| untracked(path, e))?;
        self.items.push(o);
        Ok(())
    }

    /// `path`, a file iogauge just made and holds open as `file`.
    fn own_file(&mut self, path: &Path, file: &File) -> Result<()> {
        let o = Owned::file(path, file, &mut self.folders).map_err(|e| untracked(path, e))?;
        self.items.push(o);
        Ok(())
    }

    /// Remove everything made, newest first, each only while it is still what iogauge made;
    /// how many were left (each named on stderr).
    fn remove_all(&mut self) -> usize {
        let mut left = 0;
        while let Some(o) = self.items.pop() {
            let why = match o.remove() {
                Ok(Removal::Removed | Removal::Gone) => continue,
                Ok(Removal::Replaced) => "it is no longer what iogauge made".to_string(),
                Err(e) => e.to_string(),
            };
            eprintln!("iogauge: left '{}' in place: {why}", o.path().display());
            left += 1;
        }
        left
    }
}

fn untracked(path: &Path, e: std::io::Error) -> Error {
    Error::runtime(format!(
        "cannot keep track of '{}', which iogauge made: {e}",
        path.display()
    ))
}

/// Make the top folder, or check the one there: empty unless `force`, and never one that
/// holds a dataset already. Whether iogauge made it (owned by `made`, with any parent it
/// made). `top` is resolved (no `..`, no links), so the folders made are the ones named.
fn claim_top(top: &Path, shown: &str, force: bool, made: &mut Made) -> Result<bool> {
    match std::fs::symlink_metadata(top) {
        Ok(m) if !m.is_dir() => Err(Error::usage(format!(
            "{shown} is not a folder: a dataset is made in a new or empty folder"
        ))),
        Ok(_) => {
            if manifest_path(top).exists() {
                return Err(Error::usage(format!(
                    "{shown} already holds a dataset ({MANIFEST}): iogauge dataset verify \
                     checks it; remove it first to make another"
                )));
            }
            let mut entries = std::fs::read_dir(top)
                .map_err(|e| Error::usage(format!("cannot read {shown}: {e}")))?;
            if entries.next().is_some() && !force {
                return Err(Error::usage(format!(
                    "{shown} is not empty: a dataset is made in a new or empty folder (--force \
                     makes it beside what is there, never writing over any of it)"
                )));
            }
            Ok(false)
        }
        Err(_) => {
            // The highest folder that is missing: iogauge makes it, and owns it.
            let mut first: PathBuf = top.to_path_buf();
            while let Some(p) = first
                .parent()
                .filter(|p| !p.as_os_str().is_empty() && !p.exists())
            {
                first = p.to_path_buf();
            }
            std::fs::create_dir_all(top)
                .map_err(|e| Error::usage(format!("cannot make the folder {shown}: {e}")))?;
            made.own(&first)?;
            Ok(true)
        }
    }
}

/// Every folder, parents first (breadth first: a folder's parent has a lower number).
fn make_folders(
    spec: &DatasetSpec,
    top: &Path,
    owns_top: bool,
    made: &Mutex<Made>,
    interrupted: &AtomicBool,
) -> Result<()> {
    for k in 1..=spec.dirs {
        if interrupted.load(Ordering::Relaxed) {
            return Err(Error::Interrupted("interrupted".into()));
        }
        let rel = spec.dir_path(k);
        let path = top.join(&rel);
        std::fs::create_dir(&path).map_err(|e| made_error(&path, "folder", e))?;
        if !owns_top && rel.components().count() == 1 {
            lock(made).own(&path)?;
        }
    }
    Ok(())
}

fn made_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    let why = match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            "something is already there, and iogauge writes only what it makes".to_string()
        }
        _ => e.to_string(),
    };
    Error::runtime(format!(
        "cannot make the {what} '{}': {why}",
        path.display()
    ))
}

fn lock(c: &Mutex<Made>) -> std::sync::MutexGuard<'_, Made> {
    c.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every file, by `threads` threads; their entries in file order.
fn write_files(
    spec: &DatasetSpec,
    top: &Path,
    threads: u32,
    owns_top: bool,
    made: &Mutex<Made>,
    interrupted: &AtomicBool,
) -> Result<Vec<Entry>> {
    let next = AtomicU64::new(0);
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let parts: Vec<Vec<(u64, Entry)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= spec.files || stop.load(Ordering::Relaxed) {
                            break;
                        }
                        if interrupted.load(Ordering::Relaxed) {
                            stop.store(true, Ordering::Relaxed);
                            break;
                        }
                        let root_file = !owns_top && i.is_multiple_of(spec.dirs + 1);
                        match write_file(spec, top, i, root_file.then_some(made), interrupted) {
                            Ok(e) => mine.push((i, e)),
                            Err(e) => {
                                stop.store(true, Ordering::Relaxed);
                                failed
                                    .lock()
                                    .unwrap_or_else(|p| p.into_inner())
                                    .get_or_insert(e);
                                break;
                            }
                        }
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_default())
            .collect()
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    if interrupted.load(Ordering::Relaxed) {
        // Worded by `create`, which knows what became of what was made.
        return Err(Error::Interrupted("interrupted".into()));
    }
    let mut all: Vec<(u64, Entry)> = parts.into_iter().flatten().collect();
    if all.len() as u64 != spec.files {
        return Err(Error::runtime("a thread making the dataset ended early"));
    }
    all.sort_unstable_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, e)| e).collect())
}

/// File `i`, written new and hashed as it goes. `made`: where it must be owned (a file in a
/// top folder iogauge did not make).
fn write_file(
    spec: &DatasetSpec,
    top: &Path,
    i: u64,
    made: Option<&Mutex<Made>>,
    interrupted: &AtomicBool,
) -> Result<Entry> {
    let (rel, size) = spec.file(i);
    let path = top.join(&rel);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| made_error(&path, "file", e))?;
    if let Some(m) = made {
        lock(m).own_file(&path, &f)?;
    }
    let mut content = spec.content(i);
    let mut hash = Xxh3::new();
    let mut left = size;
    while left > 0 {
        if interrupted.load(Ordering::Relaxed) {
            break;
        }
        let n = left.min(CHUNK as u64) as usize;
        let chunk = content.next_chunk(n);
        hash.update(chunk);
        f.write_all(chunk)
            .map_err(|e| Error::runtime(format!("cannot write '{}': {e}", path.display())))?;
        left -= n as u64;
    }
    Ok(Entry {
        path: rel_text(&rel),
        size,
        xxh3: hash.digest(),
    })
}

/// A path below the top as the manifest keeps it: '/' between names, whatever the system,
/// so that a dataset made on one system is verified on another.
fn rel_text(rel: &Path) -> String {
    let parts: Vec<_> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

/// Flush the dataset to the device (syncfs): the workloads then start from data on disk.
fn sync_fs(top: &Path) -> Result<()> {
    match crate::os::cache::sync_fs(top) {
        // Not yet on Windows: the files are flushed one by one by the system's lazy writer.
        Err(e) if e.kind() == std::io::ErrorKind::Unsupported => return Ok(()),
        r => r,
    }
    .map_err(|e| {
        Error::runtime(format!(
            "cannot sync the file system of '{}': {e}",
            top.display()
        ))
    })
}
