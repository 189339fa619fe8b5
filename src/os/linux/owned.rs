//! Linux's side of what iogauge created ([`crate::os::owned`]): identities by statx (device,
//! inode, birth time), things found again through their folder's held descriptor, folders
//! emptied through descriptors, never by following a path or a link out of the tree.

use crate::os::owned::{hold, inside, kept, record_file, Removal, HELD};
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::dir::{Dir, MAX_DEPTH};

/// Device, inode and birth time (0 where the file system keeps none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Identity {
    dev: u64,
    ino: u64,
    born_ns: i128,
    folder: bool,
}

impl Identity {
    /// The identity as bytes, for the records of what was made.
    pub(crate) fn bytes(&self) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[..8].copy_from_slice(&self.dev.to_le_bytes());
        b[8..16].copy_from_slice(&self.ino.to_le_bytes());
        b[16..].copy_from_slice(&self.born_ns.to_le_bytes());
        b
    }

    /// The identity of the file `name` in `dir`, not following a final link.
    fn of(dir: RawFd, name: &CStr) -> io::Result<Identity> {
        statx(dir, name, libc::AT_SYMLINK_NOFOLLOW)
    }

    /// The identity of an open file.
    pub fn of_file(file: &File) -> io::Result<Identity> {
        Identity::of_raw(file.as_raw_fd())
    }

    /// The identity of open descriptor `fd`.
    pub fn of_raw(fd: RawFd) -> io::Result<Identity> {
        statx(fd, c"", libc::AT_EMPTY_PATH)
    }
}

fn statx(dir: RawFd, name: &CStr, flags: i32) -> io::Result<Identity> {
    // SAFETY: statx writes into a zeroed struct we own; `name` is NUL-terminated.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    let mask = libc::STATX_TYPE | libc::STATX_INO | libc::STATX_BTIME;
    if unsafe { libc::statx(dir, name.as_ptr(), flags, mask, &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let born_ns = if st.stx_mask & libc::STATX_BTIME != 0 {
        st.stx_btime.tv_sec as i128 * 1_000_000_000 + st.stx_btime.tv_nsec as i128
    } else {
        0
    };
    Ok(Identity {
        dev: libc::makedev(st.stx_dev_major, st.stx_dev_minor),
        ino: st.stx_ino,
        born_ns,
        folder: st.stx_mode as u32 & libc::S_IFMT == libc::S_IFDIR,
    })
}

/// Record `name` in `dir` (a folder or link iogauge just made there).
pub fn record_at(dir: &Dir, name: &CStr) -> io::Result<()> {
    let id = Identity::of(dir.fd(), name)?;
    inside().insert(&id);
    Ok(())
}

/// Folders held open (O_PATH) for the things created in them: one descriptor per folder,
/// however many files it holds.
#[derive(Default)]
pub struct Folders(HashMap<PathBuf, Arc<File>>);

impl Folders {
    fn of(&mut self, path: &Path) -> io::Result<Arc<File>> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Some(f) = self.0.get(&dir) {
            return Ok(f.clone());
        }
        let c = cstring(&dir)?;
        // SAFETY: open with a NUL-terminated path; the descriptor is owned by the File.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd was just opened and is owned by nobody else.
        let f = Arc::new(unsafe { File::from_raw_fd(fd) });
        self.0.insert(dir, f.clone());
        Ok(f)
    }
}

fn cstring(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the name"))
}

fn file_name(p: &Path) -> io::Result<CString> {
    let name = p
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    CString::new(name.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the name"))
}

/// One thing iogauge created.
pub struct Owned {
    dir: Arc<File>,
    name: CString,
    id: Identity,
    path: PathBuf,
    /// Keeps the inode alive, so that its number cannot be given to another file.
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

impl Owned {
    /// `path`, just created by iogauge and open as `file`: the descriptor proves which file.
    pub fn file(path: &Path, file: &File, folders: &mut Folders) -> io::Result<Owned> {
        record_file(file)?;
        Ok(Owned {
            dir: folders.of(path)?,
            name: file_name(path)?,
            id: Identity::of_file(file)?,
            path: path.to_path_buf(),
            held: hold(file),
            only_recorded: false,
        })
    }

    /// `path`, a file or folder iogauge created and holds no descriptor on (a file made by a
    /// timed create, a folder just made): its identity is taken now.
    pub fn named(path: &Path, folders: &mut Folders) -> io::Result<Owned> {
        let dir = folders.of(path)?;
        let name = file_name(path)?;
        let id = Identity::of(dir.as_raw_fd(), &name)?;
        inside().insert(&id);
        Ok(Owned {
            dir,
            name,
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
        Identity::of(self.dir.as_raw_fd(), &self.name).is_ok_and(|id| id == self.id)
    }

    /// Remove it, a folder with everything in it, if it is still what iogauge created.
    pub fn remove(&self) -> io::Result<Removal> {
        self.remove_leaving(&mut Vec::new())
    }

    /// [`Owned::remove`], and what stays inside a folder that is `only_recorded` (with the
    /// folders that hold it) added to `left`.
    pub fn remove_leaving(&self, left: &mut Vec<PathBuf>) -> io::Result<Removal> {
        let dir = self.dir.as_raw_fd();
        match Identity::of(dir, &self.name) {
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(Removal::Gone),
            Err(e) => return Err(e),
            Ok(id) if id != self.id => return Ok(Removal::Replaced),
            Ok(_) => {}
        }
        let mut stays = false;
        if self.id.folder {
            let whole = !self.only_recorded;
            stays = empty_folder(dir, &self.name, (self.id, whole), &self.path, left)?;
        }
        let flags = if self.id.folder {
            libc::AT_REMOVEDIR
        } else {
            0
        };
        // SAFETY: unlinkat on a descriptor we hold and a NUL-terminated name.
        if unsafe { libc::unlinkat(dir, self.name.as_ptr(), flags) } != 0 {
            let e = io::Error::last_os_error();
            let busy = e.raw_os_error() == Some(libc::ENOTEMPTY) && stays;
            if e.raw_os_error() != Some(libc::ENOENT) && !busy {
                return Err(e);
            }
        }
        match stays {
            true => kept().insert(&self.id),
            false => inside().remove(&self.id),
        }
        Ok(Removal::Removed)
    }
}

/// A folder being emptied: its descriptor, what is left to look at in it, where it is.
struct Level {
    dir: Dir,
    entries: Vec<super::dir::Entry>,
    name: CString,
    path: PathBuf,
}

/// Remove what iogauge made inside folder `name` of `dir`, which must be `id` (shown as
/// `path`), or everything in it where `whole`; what stays is added to `left` (a folder kept
/// by an earlier removal aside, named then). Whether anything stays. Entries are reached through descriptors
/// opened without following links, so nothing outside is touched; one descriptor per level.
fn empty_folder(
    dir: RawFd,
    name: &CStr,
    (id, whole): (Identity, bool),
    path: &Path,
    left: &mut Vec<PathBuf>,
) -> io::Result<bool> {
    let mut stays = false;
    let top = open_checked(dir, name, id)?;
    let mut stack = vec![Level {
        entries: top.entries()?,
        dir: top,
        name: name.to_owned(),
        path: path.to_path_buf(),
    }];
    loop {
        let deep = stack.len() > MAX_DEPTH;
        let Some(level) = stack.last_mut() else { break };
        let Some(e) = level.entries.pop() else {
            let done = stack.pop().expect("not empty");
            if let Some(up) = stack.last() {
                remove_at(&up.dir, &done.name, libc::AT_REMOVEDIR)?;
            }
            continue;
        };
        let at = level.path.join(e.name_os());
        let eid = match Identity::of(level.dir.fd(), &e.name) {
            Err(err) if err.raw_os_error() == Some(libc::ENOENT) => continue,
            r => r?,
        };
        if kept().contains(&eid) {
            stays = true;
            continue;
        }
        if !whole && !inside().contains(&eid) {
            left.push(at);
            stays = true;
            continue;
        }
        if !eid.folder {
            remove_at(&level.dir, &e.name, 0)?;
            inside().remove(&eid);
            continue;
        }
        if deep {
            left.push(at);
            stays = true;
            continue;
        }
        let sub = open_checked(level.dir.fd(), &e.name, eid)?;
        inside().remove(&eid);
        stack.push(Level {
            entries: sub.entries()?,
            dir: sub,
            name: e.name,
            path: at,
        });
    }
    Ok(stays)
}

/// Folder `name` of `dir`, opened without following a link, checked to be `id`.
fn open_checked(dir: RawFd, name: &CStr, id: Identity) -> io::Result<Dir> {
    let d = Dir::open_in(dir, name)?;
    let here = Identity::of_file(d.file())?;
    if (here.dev, here.ino) != (id.dev, id.ino) {
        return Err(io::Error::other(
            "the folder changed while it was being removed",
        ));
    }
    Ok(d)
}

/// unlinkat `name` in `dir`; already gone is done, and a folder still holding what iogauge
/// did not make (ENOTEMPTY: named already) stays.
fn remove_at(dir: &Dir, name: &CStr, flags: i32) -> io::Result<()> {
    // SAFETY: unlinkat on a held descriptor and a NUL-terminated name.
    if unsafe { libc::unlinkat(dir.fd(), name.as_ptr(), flags) } != 0 {
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOENT) => {}
            Some(libc::ENOTEMPTY) if flags == libc::AT_REMOVEDIR => {}
            _ => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_put_in_place_of_ours_is_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.dat");
        let mut folders = Folders::default();
        let f = File::create_new(&path).unwrap();
        let owned = Owned::file(&path, &f, &mut folders).unwrap();
        drop(f);
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"the user's").unwrap();
        assert_eq!(owned.remove().unwrap(), Removal::Replaced);
        assert_eq!(std::fs::read(&path).unwrap(), b"the user's");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(owned.remove().unwrap(), Removal::Gone);
    }

    #[test]
    fn a_folder_goes_with_its_contents_but_not_through_links() {
        let d = tempfile::tempdir().unwrap();
        let outside = d.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("keep"), b"x").unwrap();
        let tree = d.path().join("tree");
        std::fs::create_dir_all(tree.join("a/b")).unwrap();
        std::fs::write(tree.join("a/b/f"), b"x").unwrap();
        std::os::unix::fs::symlink(&outside, tree.join("a/link")).unwrap();
        let mut folders = Folders::default();
        let owned = Owned::named(&tree, &mut folders).unwrap();
        assert_eq!(owned.remove().unwrap(), Removal::Removed);
        assert!(!tree.exists());
        assert!(outside.join("keep").exists());
    }
}
