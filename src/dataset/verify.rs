//! `iogauge dataset verify`: every file of the manifest read whole, by several threads, its
//! size and XXH3 checked; then the tree walked for files the manifest does not name. Only
//! reads: a copy or an extract is checked where it lies.

use super::manifest::{Entry, Manifest};
use super::MANIFEST;
use crate::error::{Error, Result};
use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use xxhash_rust::xxh3::Xxh3;

pub use crate::result::dataset::{Problems, VerifyReport};

/// A file a tree should hold. Its name is bytes, as Linux keeps names: a copy of a tree
/// holding `caf\xe9.txt` (Latin-1) or `bad\xffname` is checked against those very names,
/// never a lossy text that names no file (a manifest's names are text; a tree hashed where
/// it lies need not be).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Below the top.
    pub rel: PathBuf,
    pub size: u64,
    pub xxh3: u64,
}

impl From<&Entry> for Expected {
    fn from(e: &Entry) -> Expected {
        Expected {
            rel: PathBuf::from(&e.path),
            size: e.size,
            xxh3: e.xxh3,
        }
    }
}

/// Check the tree in `top` against the manifest at `manifest` (by default, top's own).
pub fn verify(
    top: &Path,
    manifest: Option<&Path>,
    threads: u32,
    interrupted: &AtomicBool,
) -> Result<VerifyReport> {
    let at = manifest.map_or_else(|| super::manifest_path(top), Path::to_path_buf);
    let m = Manifest::read(&at)?;
    let expected: Vec<Expected> = m.entries.iter().map(Expected::from).collect();
    let mut r = check_tree(top, &expected, threads, interrupted)?;
    r.manifest = at.display().to_string();
    r.manifest_xxh3 = format!("{:016x}", m.checksum());
    Ok(r)
}

/// Check the tree in `top` against `entries`: each file there, of its size and checksum; and
/// which files are there that `entries` does not name.
pub fn check_tree(
    top: &Path,
    entries: &[Expected],
    threads: u32,
    interrupted: &AtomicBool,
) -> Result<VerifyReport> {
    if !top.is_dir() {
        return Err(Error::usage(format!("'{}' is not a folder", top.display())));
    }
    let t0 = Instant::now();
    let mut r = check_files(top, entries, threads, interrupted)?;
    r.elapsed_ns = t0.elapsed().as_nanos() as u64;
    r.extra = extra_files(top, entries)?;
    r.dir = top.display().to_string();
    r.files = entries.len() as u64;
    r.bytes = entries.iter().fold(0u64, |n, e| n.saturating_add(e.size));
    r.threads = threads.max(1);
    r.mib_per_s = r.bytes as f64 / (r.elapsed_ns as f64 / 1e9).max(1e-9) / f64::from(1 << 20);
    r.ok = [&r.missing, &r.wrong_size, &r.wrong_content]
        .iter()
        .all(|p| p.count == 0);
    Ok(r)
}

/// What a file was found to be.
enum Found {
    Same,
    Missing,
    WrongSize,
    WrongContent,
}

fn check_files(
    top: &Path,
    entries: &[Expected],
    threads: u32,
    interrupted: &AtomicBool,
) -> Result<VerifyReport> {
    let next = AtomicUsize::new(0);
    let report = Mutex::new(VerifyReport::default());
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut buf = vec![0u8; 1 << 20];
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(e) = entries.get(i) else { break };
                    if interrupted.load(Ordering::Relaxed) {
                        break;
                    }
                    let found = match check(top, e, &mut buf) {
                        Ok(f) => f,
                        Err(err) => {
                            lock(&failed).get_or_insert(err);
                            break;
                        }
                    };
                    let mut r = lock(&report);
                    match found {
                        Found::Same => {}
                        Found::Missing => r.missing.add(&e.rel),
                        Found::WrongSize => r.wrong_size.add(&e.rel),
                        Found::WrongContent => r.wrong_content.add(&e.rel),
                    }
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    if interrupted.load(Ordering::Relaxed) {
        return Err(Error::Interrupted(
            "interrupted: the dataset was not checked whole".into(),
        ));
    }
    Ok(report.into_inner().unwrap_or_else(|p| p.into_inner()))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One file against its entry. An error other than a missing file (a read that fails) ends
/// the check: the storage, not the dataset, is then what is wrong.
fn check(top: &Path, e: &Expected, buf: &mut [u8]) -> Result<Found> {
    let path = top.join(&e.rel);
    let cannot =
        |err: std::io::Error| Error::runtime(format!("cannot read '{}': {err}", path.display()));
    let mut f = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
        Err(err) => return Err(cannot(err)),
    };
    let len = f.metadata().map_err(cannot)?.len();
    if len != e.size {
        return Ok(Found::WrongSize);
    }
    let (n, xxh3) = hash(&mut f, buf).map_err(cannot)?;
    Ok(match n == e.size && xxh3 == e.xxh3 {
        true => Found::Same,
        false => Found::WrongContent,
    })
}

/// Read `f` to its end: how many bytes, and their XXH3-64.
pub fn hash(f: &mut impl Read, buf: &mut [u8]) -> std::io::Result<(u64, u64)> {
    let mut h = Xxh3::new();
    let mut n = 0u64;
    loop {
        match f.read(buf) {
            Ok(0) => return Ok((n, h.digest())),
            Ok(k) => {
                h.update(&buf[..k]);
                n += k as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Files below `top` the manifest does not name (the manifest itself aside); links are not
/// followed.
fn extra_files(top: &Path, entries: &[Expected]) -> Result<Problems> {
    let named: HashSet<&Path> = entries.iter().map(|e| e.rel.as_path()).collect();
    let mut extra = Problems::default();
    let mut stack = vec![(top.to_path_buf(), PathBuf::new())];
    while let Some((dir, rel)) = stack.pop() {
        let list = std::fs::read_dir(&dir)
            .map_err(|e| Error::runtime(format!("cannot list '{}': {e}", dir.display())))?;
        for item in list {
            let item =
                item.map_err(|e| Error::runtime(format!("cannot list '{}': {e}", dir.display())))?;
            let path = rel.join(item.file_name());
            let is_dir = item.file_type().is_ok_and(|t| t.is_dir());
            if is_dir {
                stack.push((item.path(), path));
            } else if !named.contains(path.as_path()) && path != Path::new(MANIFEST) {
                extra.add(&path);
            }
        }
    }
    extra.paths.sort();
    Ok(extra)
}

// Names that are not text exist as bytes on Linux only (Windows names are UTF-16).
#[cfg(all(test, unix))]
mod bytes_tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn names_that_are_not_text_are_checked_as_themselves() {
        let t = tempfile::tempdir().unwrap();
        let name = OsStr::from_bytes(b"caf\xe9.txt");
        std::fs::write(t.path().join(name), b"coffee").unwrap();
        std::fs::write(t.path().join(OsStr::from_bytes(b"bad\xffname")), b"").unwrap();
        let stop = AtomicBool::new(false);
        let xxh3 = |d: &[u8]| hash(&mut &d[..], &mut [0u8; 64]).unwrap().1;
        let want = vec![
            Expected {
                rel: PathBuf::from(name),
                size: 6,
                xxh3: xxh3(b"coffee"),
            },
            Expected {
                rel: PathBuf::from(OsStr::from_bytes(b"bad\xffname")),
                size: 0,
                xxh3: xxh3(b""),
            },
        ];
        let f = check_tree(t.path(), &want, 2, &stop).unwrap();
        assert!(f.ok, "{f:?}");
        assert_eq!(f.extra.count, 0);
        std::fs::write(t.path().join(name), b"tea!!!").unwrap();
        let f = check_tree(t.path(), &want, 1, &stop).unwrap();
        assert_eq!(f.wrong_content.count, 1);
    }
}
