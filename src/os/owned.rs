//! What iogauge created, and may therefore remove: never anything else.
//!
//! The port keeps each thing's identity and removes it (`Owned`, `Identity`: on Linux by
//! folder descriptor, name, device, inode and birth time; on Windows by handle, volume serial,
//! file ID and creation time, removed through the very handle whose identity was checked).
//! What is common is here: the records of what was made inside folders iogauge made, the
//! handles held, and [`Cleanup`].
//!
//! A path is not proof: while a run goes on, a user may delete the file iogauge made and put
//! their own in its place, or lazily unmount the file system so that the same path now leads
//! into the mount point's own folder. So each thing iogauge creates is remembered by the
//! folder it lies in (held open, so it is found again wherever that folder now hangs), its
//! name there, and its identity: device, inode and birth time (inode numbers are reused soon
//! after a delete; together with the birth time they are not). It is removed only while all
//! three still match, and a folder's contents are removed through descriptors, never by
//! following a path or a link out of the tree. File systems stamp birth times with a coarse
//! clock (a few milliseconds), so a file deleted and replaced within one tick of its creation
//! could share all three: for the files it opened, iogauge keeps a descriptor (up to
//! [`held_max`] of them), which keeps the inode from being reused at all.
//!
//! What iogauge makes inside a folder it made (a copy's files, an extract's folders) is
//! recorded too ([`record_file`], `record_at`): a folder is emptied of those and nothing
//! else, so a file a user puts in it during a run stays, named in a message, with the folders
//! that hold it. The emptying goes folder by folder with a stack of descriptors, not by
//! recursion, down to the port's `MAX_DEPTH`, as deep as any tree iogauge walks or makes.
//!
//! [`Cleanup`] holds what one command made, and removes it when dropped (unless kept).

// The records and held handles are the ports' to use: a system without a port (unsupported/)
// makes nothing it could record.
#![cfg_attr(not(any(target_os = "linux", windows)), allow(dead_code))]

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};

#[cfg(any(target_os = "linux", windows))]
pub use super::sys::owned::record_at;
pub use super::sys::owned::{Folders, Identity, Owned};

/// Everything made inside folders iogauge made, by this process: the only things their
/// removal takes.
/// Each kept as a 64-bit hash of its identity (a copy of millions of files holds 8 bytes and
/// the table's own per file, not the identity's 48).
static INSIDE: LazyLock<Mutex<HashSet<u64>>> = LazyLock::new(Default::default);
/// Folders iogauge made that stay because they hold a user's things (named already): a
/// removal of the folder above passes them by without a word.
static KEPT: LazyLock<Mutex<HashSet<u64>>> = LazyLock::new(Default::default);

pub(crate) struct Inside(std::sync::MutexGuard<'static, HashSet<u64>>);

pub(crate) fn inside() -> Inside {
    Inside(INSIDE.lock().unwrap_or_else(|p| p.into_inner()))
}

pub(crate) fn kept() -> Inside {
    Inside(KEPT.lock().unwrap_or_else(|p| p.into_inner()))
}

impl Inside {
    fn key(id: &Identity) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&id.bytes())
    }
    pub(crate) fn insert(&mut self, id: &Identity) {
        self.0.insert(Inside::key(id));
    }
    pub(crate) fn contains(&self, id: &Identity) -> bool {
        self.0.contains(&Inside::key(id))
    }
    pub(crate) fn remove(&mut self, id: &Identity) {
        self.0.remove(&Inside::key(id));
    }
}

/// Record `file`, just created by iogauge inside a folder it made.
pub fn record_file(file: &File) -> io::Result<()> {
    let id = Identity::of_file(file)?;
    inside().insert(&id);
    Ok(())
}

/// Descriptors held on created files, in this process, at most; past this many, identity
/// rests on device, inode and birth time alone (a run of thousands of files must not run out
/// of descriptors for this).
pub const HELD_MAX: usize = 256;
pub(crate) static HELD: AtomicUsize = AtomicUsize::new(0);

/// How many descriptors [`hold`] keeps: [`HELD_MAX`], or a quarter of the descriptors this
/// process may hold where that is less, so that the rest go to the files a job keeps open.
pub fn held_max() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| {
        let soft = super::limits::nofile().0;
        HELD_MAX.min(usize::try_from(soft / 4).unwrap_or(HELD_MAX))
    })
}

/// A copy of `file`'s descriptor while fewer than [`held_max`] are held.
pub(crate) fn hold(file: &File) -> Option<File> {
    if HELD.fetch_add(1, Ordering::Relaxed) >= held_max() {
        HELD.fetch_sub(1, Ordering::Relaxed);
        return None;
    }
    match file.try_clone() {
        Ok(f) => Some(f),
        Err(_) => {
            HELD.fetch_sub(1, Ordering::Relaxed);
            None
        }
    }
}

/// What [`Owned::remove`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Removal {
    Removed,
    /// Already gone: nothing to do.
    Gone,
    /// Something else stands at its place now: left alone.
    Replaced,
}

/// Files iogauge created; removed when dropped unless kept. Lives until the report is written,
/// so that every way out (error, Ctrl-C, panic) removes them. Each is removed only while it is
/// still the file iogauge created ([`Owned`]): one a user put in its place stays.
#[derive(Default)]
pub struct Cleanup {
    owned: Vec<Owned>,
    folders: Folders,
    keep: bool,
}

impl Cleanup {
    pub fn new(keep: bool) -> Self {
        Cleanup {
            owned: Vec::new(),
            folders: Folders::default(),
            keep,
        }
    }

    /// Keep everything from now on: what was made is what the command was for (a dataset
    /// made whole).
    pub fn keep_all(&mut self) {
        self.keep = true;
    }

    /// `path` was just created by iogauge and is open as `file`.
    pub fn created(&mut self, path: &Path, file: &File) -> crate::error::Result<()> {
        let o = Owned::file(path, file, &mut self.folders).map_err(|e| untracked(path, e))?;
        self.owned.push(o);
        Ok(())
    }

    /// `path` was created by iogauge, which holds no descriptor on it (a timed create).
    pub fn created_named(&mut self, path: &Path) -> crate::error::Result<()> {
        match Owned::named(path, &mut self.folders) {
            Ok(o) => self.owned.push(o),
            // Removed meanwhile: nothing is left to clean up.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(untracked(path, e)),
        }
        Ok(())
    }

    /// Whether `file`, opened at `path`, is the file iogauge created there last. Looked for
    /// from the end: it was just created, and a job may lay out 20,000 files one by one.
    pub(crate) fn holds(&self, path: &Path, file: &File) -> bool {
        let path = path.as_os_str();
        self.owned
            .iter()
            .rev()
            .find(|o| o.path().as_os_str() == path)
            .is_some_and(|o| o.is(file))
    }

    /// Remove `path` now, even where files are kept: a partial file is of no use.
    pub(crate) fn discard(&mut self, path: &Path) {
        if let Some(i) = self.owned.iter().rposition(|o| o.path() == path) {
            remove_owned(&self.owned.remove(i));
        }
    }
}

fn untracked(path: &Path, e: std::io::Error) -> crate::error::Error {
    crate::error::Error::runtime(format!(
        "cannot keep track of '{}', which iogauge created: {e}",
        path.display()
    ))
}

fn remove_owned(o: &Owned) {
    match o.remove() {
        Ok(Removal::Removed | Removal::Gone) => {}
        Ok(Removal::Replaced) => eprintln!(
            "iogauge: left '{}' in place: it is no longer the file iogauge created",
            o.path().display()
        ),
        Err(e) => eprintln!(
            "iogauge: cannot remove '{}', which iogauge created: {e}",
            o.path().display()
        ),
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        for o in self.owned.iter().rev() {
            remove_owned(o);
        }
    }
}
