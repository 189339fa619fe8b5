//! Windows' side of what iogauge created ([`crate::os::owned`]): identities by
//! GetFileInformationByHandle (volume serial number, file index, creation time), and removal
//! through the handle whose identity was just checked (FileDispositionInfo), so that what is
//! removed is exactly what was checked, never what a path leads to a moment later. Links and
//! junctions are opened as themselves (FILE_FLAG_OPEN_REPARSE_POINT), never followed.

use super::{handle, wide, RawHandle};
use crate::os::owned::{hold, inside, kept, record_file, Removal, HELD};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE};
use windows_sys::Win32::Storage::FileSystem::{
    CreateFileW, GetFileInformationByHandle, BY_HANDLE_FILE_INFORMATION, FILE_ATTRIBUTE_DIRECTORY,
    FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, OPEN_EXISTING,
};

/// How deep a folder iogauge made is emptied, as on Linux.
const MAX_DEPTH: usize = 512;
const DELETE: u32 = 0x0001_0000;
const FILE_READ_ATTRIBUTES: u32 = 0x80;
const ERROR_DIR_NOT_EMPTY: i32 = 145;

/// Volume serial number, file index and creation time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Identity {
    volume: u32,
    index: u64,
    born: u64,
    folder: bool,
}

impl Identity {
    pub fn of_file(file: &File) -> io::Result<Identity> {
        Identity::of_raw(super::raw(file))
    }

    pub fn of_raw(h: RawHandle) -> io::Result<Identity> {
        let mut i: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
        // SAFETY: writes the struct we own; `h` is open.
        if unsafe { GetFileInformationByHandle(handle(h), &mut i) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let t = i.ftCreationTime;
        // Wine gives a file's Unix ctime as its creation time, which moves with every write:
        // there the volume and the file index (the inode) decide alone.
        let born = match super::under_wine() {
            true => 0,
            false => (t.dwHighDateTime as u64) << 32 | t.dwLowDateTime as u64,
        };
        Ok(Identity {
            volume: i.dwVolumeSerialNumber,
            index: (i.nFileIndexHigh as u64) << 32 | i.nFileIndexLow as u64,
            born,
            folder: i.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY != 0,
        })
    }

    /// The identity as bytes, for the records of what was made.
    pub(crate) fn bytes(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[..4].copy_from_slice(&self.volume.to_le_bytes());
        b[8..16].copy_from_slice(&self.index.to_le_bytes());
        b[16..24].copy_from_slice(&self.born.to_le_bytes());
        b
    }
}

/// A handle on what stands at `path` itself (a link is not followed), able to delete it.
struct Held(RawHandle);

impl Held {
    fn open(path: &Path) -> io::Result<Held> {
        let w = wide(path);
        // SAFETY: a NUL-terminated wide path; the handle is closed on drop.
        let h = unsafe {
            CreateFileW(
                w.as_ptr(),
                DELETE | FILE_READ_ATTRIBUTES,
                super::file::SHARE_ALL,
                std::ptr::null(),
                OPEN_EXISTING,
                FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
                std::ptr::null_mut(),
            )
        };
        if h == INVALID_HANDLE_VALUE {
            return Err(io::Error::last_os_error());
        }
        Ok(Held(h as RawHandle))
    }

    fn id(&self) -> io::Result<Identity> {
        Identity::of_raw(self.0)
    }

    /// Delete what this handle is open on: gone once the last handle on it closes.
    fn delete(&self) -> io::Result<()> {
        super::file::delete_by_handle(self.0)
    }
}

/// Record `name` in `dir` (a folder or link iogauge just made there), opened as itself.
pub fn record_at(dir: &super::dir::Dir, name: &std::ffi::OsStr) -> io::Result<()> {
    let id = Held::open(&dir.path().join(name))?.id()?;
    inside().insert(&id);
    Ok(())
}

impl Drop for Held {
    fn drop(&mut self) {
        // SAFETY: opened in `open`, closed once.
        unsafe { CloseHandle(handle(self.0)) };
    }
}

/// Nothing is held per folder on Windows: a removal opens the thing itself, checks it and
/// deletes through that handle.
#[derive(Default)]
pub struct Folders {
    _none: (),
}

/// One thing iogauge created.
pub struct Owned {
    id: Identity,
    path: PathBuf,
    /// Keeps the file open, so that it cannot be deleted and its index given to another.
    held: Option<File>,
    /// A folder emptied only of what iogauge recorded making in it ([`record_file`]), not of
    /// everything (a workload's outputs, where a user may put a file during the run).
    pub only_recorded: bool,
}

impl Drop for Owned {
    fn drop(&mut self) {
        if self.held.take().is_some() {
            HELD.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

fn is_gone(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound
}

impl Owned {
    /// `path`, just created by iogauge and open as `file`: the handle proves which file.
    pub fn file(path: &Path, file: &File, _folders: &mut Folders) -> io::Result<Owned> {
        record_file(file)?;
        Ok(Owned {
            id: Identity::of_file(file)?,
            path: path.to_path_buf(),
            held: hold(file),
            only_recorded: false,
        })
    }

    /// `path`, a file or folder iogauge created and holds no handle on: its identity is
    /// taken now.
    pub fn named(path: &Path, _folders: &mut Folders) -> io::Result<Owned> {
        let id = Held::open(path)?.id()?;
        inside().insert(&id);
        Ok(Owned {
            id,
            path: path.to_path_buf(),
            held: None,
            only_recorded: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether `file` is what iogauge created.
    pub fn is(&self, file: &File) -> bool {
        Identity::of_file(file).is_ok_and(|id| id == self.id)
    }

    /// Whether its place still holds what iogauge created.
    pub fn still_ours(&self) -> bool {
        Held::open(&self.path)
            .and_then(|h| h.id())
            .is_ok_and(|id| id == self.id)
    }

    pub fn remove(&self) -> io::Result<Removal> {
        self.remove_leaving(&mut Vec::new())
    }

    /// Remove it, a folder with what is in it (only what iogauge recorded where
    /// `only_recorded`; what stays is added to `left`), if it is still what iogauge created.
    pub fn remove_leaving(&self, left: &mut Vec<PathBuf>) -> io::Result<Removal> {
        let mut h = match Held::open(&self.path) {
            Err(e) if is_gone(&e) => return Ok(Removal::Gone),
            r => r?,
        };
        if h.id()? != self.id {
            return Ok(Removal::Replaced);
        }
        let mut stays = false;
        if self.id.folder {
            h = match emptied(h, &self.path, &self.id, |p| {
                empty_folder(p, !self.only_recorded, 0, left)
            })? {
                Some((h, s)) => {
                    stays = s;
                    h
                }
                None => return Ok(Removal::Replaced),
            };
        }
        match h.delete() {
            Err(e) if e.raw_os_error() == Some(ERROR_DIR_NOT_EMPTY) && stays => {}
            Err(e) if !is_gone(&e) => return Err(e),
            _ => {}
        }
        match stays {
            true => kept().insert(&self.id),
            false => inside().remove(&self.id),
        }
        Ok(Removal::Removed)
    }
}

/// Empty the folder `h` is open on with `empty`, with `h` closed meanwhile (Wine lists a
/// folder through a handle that does not share delete, so a listing fails while a handle that
/// may delete the folder is open); then open it again: the handle and whether anything stays,
/// or None where the folder at `path` is no longer the one checked.
fn emptied(
    h: Held,
    path: &Path,
    id: &Identity,
    empty: impl FnOnce(&Path) -> io::Result<bool>,
) -> io::Result<Option<(Held, bool)>> {
    drop(h);
    let stays = empty(path)?;
    let h = Held::open(path)?;
    Ok((h.id()? == *id).then_some((h, stays)))
}

/// Remove what iogauge made inside folder `path` (everything where `whole`); what stays is
/// added to `left`. Whether anything stays. Each entry is opened as itself and deleted through
/// that handle; a link or junction is deleted, never followed.
fn empty_folder(
    path: &Path,
    whole: bool,
    depth: usize,
    left: &mut Vec<PathBuf>,
) -> io::Result<bool> {
    let mut stays = false;
    for entry in std::fs::read_dir(path)? {
        let at = entry?.path();
        let h = match Held::open(&at) {
            Err(e) if is_gone(&e) => continue,
            r => r?,
        };
        let id = h.id()?;
        if kept().contains(&id) {
            stays = true;
            continue;
        }
        if !whole && !inside().contains(&id) {
            left.push(at);
            stays = true;
            continue;
        }
        let link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
        let mut h = h;
        if id.folder && !link {
            if depth >= MAX_DEPTH {
                left.push(at);
                stays = true;
                continue;
            }
            match emptied(h, &at, &id, |p| empty_folder(p, whole, depth + 1, left))? {
                Some((again, false)) => h = again,
                _ => {
                    stays = true;
                    continue;
                }
            }
        }
        h.delete()?;
        inside().remove(&id);
    }
    Ok(stays)
}
