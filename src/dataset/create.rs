//! `iogauge dataset create`: the folders, then the files by several threads (each takes the
//! next file's index; where it goes, its size and its bytes follow from the index), then the
//! manifest. Nothing is written over: every folder and file is made new, and an error or
//! Ctrl-C removes what was made (through [`Cleanup`], which checks each is still iogauge's).

use super::manifest::{Entry, Manifest};
use super::{manifest_path, DatasetSpec, MANIFEST};
use crate::error::{Error, Result};
use crate::runner::target::Cleanup;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;
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

/// What was made, and how fast.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CreateReport {
    pub dir: String,
    pub spec: DatasetSpec,
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    pub threads: u32,
    /// Making the folders and writing the files (what `cp -r` of the tree would do).
    pub elapsed_ns: u64,
    /// Then syncing the file system, apart.
    pub sync_ns: u64,
    pub files_per_s: f64,
    pub mib_per_s: f64,
    pub manifest: String,
    /// The whole dataset's checksum (see [`Manifest::checksum`]).
    pub manifest_xxh3: String,
}

/// Make `spec`'s dataset in `top`.
pub fn create(
    spec: &DatasetSpec,
    top: &Path,
    opts: &CreateOptions,
    interrupted: &AtomicBool,
) -> Result<CreateReport> {
    spec.validate()?;
    let mut cleanup = Cleanup::new(opts.keep_partial);
    // Whether iogauge made the top folder: then it owns everything in it.
    let owns_top = claim_top(top, opts.force, &mut cleanup)?;
    let cleanup = Mutex::new(cleanup);
    let t0 = Instant::now();
    make_folders(spec, top, owns_top, &cleanup)?;
    let entries = write_files(spec, top, opts.threads, owns_top, &cleanup, interrupted)?;
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
    let mut cleanup = cleanup.into_inner().unwrap_or_else(|e| e.into_inner());
    if !owns_top {
        cleanup.created_named(&at)?;
    }
    cleanup.keep_all();
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

/// Make the top folder, or check the one there: empty unless `force`, and never one that
/// holds a dataset already. Whether iogauge made it (registered with `cleanup`, with any
/// parent it made).
fn claim_top(top: &Path, force: bool, cleanup: &mut Cleanup) -> Result<bool> {
    let shown = top.display();
    match std::fs::symlink_metadata(top) {
        Ok(m) if !m.is_dir() => Err(Error::usage(format!(
            "'{shown}' is not a folder: a dataset is made in a new or empty folder"
        ))),
        Ok(_) => {
            if manifest_path(top).exists() {
                return Err(Error::usage(format!(
                    "'{shown}' already holds a dataset ({MANIFEST}): iogauge dataset verify \
                     checks it; remove it first to make another"
                )));
            }
            let mut entries = std::fs::read_dir(top)
                .map_err(|e| Error::usage(format!("cannot read '{shown}': {e}")))?;
            if entries.next().is_some() && !force {
                return Err(Error::usage(format!(
                    "'{shown}' is not empty: a dataset is made in a new or empty folder (--force \
                     makes it beside what is there, never writing over any of it)"
                )));
            }
            Ok(false)
        }
        Err(_) => {
            // The highest folder that is missing: iogauge makes it, and owns it.
            let mut first = top.to_path_buf();
            while let Some(p) = first
                .parent()
                .filter(|p| !p.as_os_str().is_empty() && !p.exists())
            {
                first = p.to_path_buf();
            }
            std::fs::create_dir_all(top)
                .map_err(|e| Error::usage(format!("cannot make the folder '{shown}': {e}")))?;
            cleanup.created_named(&first)?;
            Ok(true)
        }
    }
}

/// Every folder, parents first (breadth first: a folder's parent has a lower number).
fn make_folders(
    spec: &DatasetSpec,
    top: &Path,
    owns_top: bool,
    cleanup: &Mutex<Cleanup>,
) -> Result<()> {
    for k in 1..=spec.dirs {
        let rel = spec.dir_path(k);
        let path = top.join(&rel);
        std::fs::create_dir(&path).map_err(|e| made_error(&path, "folder", e))?;
        if !owns_top && rel.components().count() == 1 {
            lock(cleanup).created_named(&path)?;
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

fn lock(c: &Mutex<Cleanup>) -> std::sync::MutexGuard<'_, Cleanup> {
    c.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every file, by `threads` threads; their entries in file order.
fn write_files(
    spec: &DatasetSpec,
    top: &Path,
    threads: u32,
    owns_top: bool,
    cleanup: &Mutex<Cleanup>,
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
                        match write_file(spec, top, i, root_file.then_some(cleanup), interrupted) {
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
        return Err(Error::Interrupted(
            "interrupted: the dataset was not finished, and what was made is removed".into(),
        ));
    }
    let mut all: Vec<(u64, Entry)> = parts.into_iter().flatten().collect();
    if all.len() as u64 != spec.files {
        return Err(Error::runtime("a thread making the dataset ended early"));
    }
    all.sort_unstable_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, e)| e).collect())
}

/// File `i`, written new and hashed as it goes. `cleanup`: where it must be registered (a
/// file in a top folder iogauge did not make).
fn write_file(
    spec: &DatasetSpec,
    top: &Path,
    i: u64,
    cleanup: Option<&Mutex<Cleanup>>,
    interrupted: &AtomicBool,
) -> Result<Entry> {
    let (rel, size) = spec.file(i);
    let path = top.join(&rel);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| made_error(&path, "file", e))?;
    if let Some(c) = cleanup {
        lock(c).created(&path, &f)?;
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

fn rel_text(rel: &Path) -> String {
    rel.to_string_lossy().into_owned()
}

/// Flush the dataset to the device (syncfs): the workloads then start from data on disk.
fn sync_fs(top: &Path) -> Result<()> {
    crate::os::cache::sync_fs(top).map_err(|e| {
        Error::runtime(format!(
            "cannot sync the file system of '{}': {e}",
            top.display()
        ))
    })
}
