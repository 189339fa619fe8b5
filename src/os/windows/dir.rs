//! Folders held open, and everything done inside them by name: listing, stat, opening,
//! creating and removing, as Linux's `*at` calls do (see `os/linux/dir.rs`).
//!
//! Win32 has no `openat`: a name is reached as the folder's path joined with it, the folder
//! held open meanwhile (it cannot be removed while held; a rename of a folder above stays
//! possible, which is why removals check identity in `owned`). What the Linux port gets from
//! O_NOFOLLOW this one gets from FILE_FLAG_OPEN_REPARSE_POINT: each name is opened as itself,
//! and a link or junction found where a file or folder was expected is refused, never
//! followed. Files are made with CREATE_NEW: never one that exists, whatever stands there.

use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::windows::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use windows_sys::Win32::Storage::FileSystem::{
    FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_REPARSE_POINT, FILE_FLAG_BACKUP_SEMANTICS,
    FILE_FLAG_OPEN_REPARSE_POINT,
};

/// As on Linux: the deepest a tree may go below its top, in folders.
pub const MAX_DEPTH: usize = 512;

/// What a folder entry is, as the folder says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// A symbolic link or a junction (a name-surrogate reparse point).
    Link,
    Other,
}

/// A name in a folder, as this system's calls take it (UTF-16 inside an OsString).
pub type Name = OsString;
/// A borrowed [`Name`].
pub type NameRef = OsStr;

/// `name` (one component, from a path or an archive) as a [`Name`]: a NUL or a separator
/// inside it is refused, not cut.
pub fn name(name: &OsStr) -> io::Result<Name> {
    let text = name.to_string_lossy();
    if text.contains(['\0', '\\', '/']) || name.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("'{text}' is not one name"),
        ));
    }
    Ok(name.to_owned())
}

/// What a stat says of one entry, in the words every port has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    pub kind: Kind,
    /// Files: bytes; links: 0 (Windows keeps the target in the reparse data).
    pub size: u64,
    /// Permission bits as Windows has them: read-only or not.
    pub mode: u32,
    /// Seconds since 1970.
    pub mtime: i64,
}

/// One name in a folder.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: Name,
    pub kind: Kind,
}

impl Entry {
    pub fn name_os(&self) -> &OsStr {
        &self.name
    }
}

/// An open folder, and the path it was opened at.
#[derive(Debug)]
pub struct Dir {
    file: File,
    path: PathBuf,
}

fn is_link(attributes: u32) -> bool {
    attributes & FILE_ATTRIBUTE_REPARSE_POINT != 0
}

fn refused_link(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("'{}' is a link or junction, not followed", path.display()),
    )
}

/// `path` opened as itself (a link is not followed) with `options`; refused if it is a
/// link, or not a folder where `folder` (a file where not).
fn open_as_itself(path: &Path, options: &mut OpenOptions, folder: bool) -> io::Result<File> {
    let f = options
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)?;
    let attributes = f.metadata()?.file_attributes();
    if is_link(attributes) {
        return Err(refused_link(path));
    }
    if (attributes & FILE_ATTRIBUTE_DIRECTORY != 0) != folder {
        let what = if folder { "not a folder" } else { "a folder" };
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("'{}' is {what}", path.display()),
        ));
    }
    Ok(f)
}

impl Dir {
    /// The folder at `path` (a link as the last name is followed: the user named it).
    pub fn open(path: &Path) -> io::Result<Dir> {
        let file = super::file::open_folder(path)?;
        Ok(Dir {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Subfolder `name`, never through a link.
    pub fn open_at(&self, name: &OsStr) -> io::Result<Dir> {
        let path = self.path.join(name);
        let file = open_as_itself(&path, OpenOptions::new().read(true), true)?;
        Ok(Dir { file, path })
    }

    /// Make subfolder `name` (it must not exist) and open it.
    pub fn mkdir_at(&self, name: &OsStr, _mode: u32) -> io::Result<Dir> {
        std::fs::create_dir(self.path.join(name))?;
        self.open_at(name)
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    /// The path it was opened at (each name inside is reached from it).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// File `name` for reading, never through a link.
    pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
        open_as_itself(&self.path.join(name), OpenOptions::new().read(true), false)
    }

    /// A new file `name` for writing: never one that exists (CREATE_NEW), whatever stands
    /// there, a link included.
    pub fn create_file(&self, name: &OsStr, _mode: u32) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.path.join(name))
    }

    /// What entry `name` is (a link as itself).
    pub fn info_at(&self, name: &OsStr) -> io::Result<Info> {
        let m = std::fs::symlink_metadata(self.path.join(name))?;
        Ok(info_of(&m))
    }

    /// The target of link `name`.
    pub fn read_link(&self, name: &OsStr) -> io::Result<Name> {
        Ok(std::fs::read_link(self.path.join(name))?.into_os_string())
    }

    /// A new link `name` pointing at `target` (a folder link where the target, as seen from
    /// this folder, is a folder). Windows asks for a privilege or developer mode for it.
    pub fn symlink_at(&self, target: &OsStr, name: &OsStr) -> io::Result<()> {
        let at = self.path.join(name);
        match self.path.join(target).is_dir() {
            true => std::os::windows::fs::symlink_dir(target, at),
            false => std::os::windows::fs::symlink_file(target, at),
        }
    }

    /// Remove file or link `name` (a link to a folder too: the link, never what it leads to).
    pub fn unlink_at(&self, name: &OsStr) -> io::Result<()> {
        delete_as_itself(&self.path.join(name))
    }

    /// Remove empty subfolder `name`.
    pub fn rmdir_at(&self, name: &OsStr) -> io::Result<()> {
        delete_as_itself(&self.path.join(name))
    }

    /// Every name in the folder but `.` and `..`, in the folder's order.
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(&self.path)? {
            let e = e?;
            let t = e.file_type()?;
            let kind = if t.is_symlink() {
                Kind::Link
            } else if t.is_dir() {
                Kind::Dir
            } else if t.is_file() {
                Kind::File
            } else {
                Kind::Other
            };
            out.push(Entry {
                name: e.file_name(),
                kind,
            });
        }
        Ok(out)
    }
}

fn info_of(m: &Metadata) -> Info {
    let t = m.file_type();
    let kind = if t.is_symlink() {
        Kind::Link
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Other
    };
    let write = if m.permissions().readonly() { 0 } else { 0o200 };
    let exec = if kind == Kind::Dir { 0o111 } else { 0 };
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() as i64);
    Info {
        kind,
        size: if kind == Kind::File { m.len() } else { 0 },
        mode: 0o444 | write | exec,
        mtime,
    }
}

/// The permission bits of an open file's metadata, for its copy: read-only or not (a
/// copy made by iogauge keeps only that, and Windows ignores the mode at creation).
pub fn mode_of(meta: &Metadata) -> u32 {
    info_of(meta).mode
}

/// Delete what stands at `path` itself, through a handle opened on it (a link is deleted,
/// never followed): gone once the handle closes.
fn delete_as_itself(path: &Path) -> io::Result<()> {
    const DELETE: u32 = 0x0001_0000;
    const FILE_READ_ATTRIBUTES: u32 = 0x80;
    let f = OpenOptions::new()
        .access_mode(DELETE | FILE_READ_ATTRIBUTES)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)?;
    super::file::delete_by_handle(super::raw(&f))
}

/// The file at `path` for reading, never through a link as its last name.
pub fn open_file_nofollow(path: &Path) -> io::Result<File> {
    open_as_itself(path, OpenOptions::new().read(true), false)
}

/// `file` will be read from start to end. Windows takes that hint (FILE_FLAG_SEQUENTIAL_SCAN)
/// only as a file is opened, and its cache manager reads ahead of a sequential reader anyway:
/// nothing to do here.
pub fn advise_sequential(_file: &File) {}

/// Write all of `buf` at `offset` (positional: threads share the file).
pub fn write_all_at(file: &File, mut buf: &[u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match file.seek_write(buf, offset) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                buf = &buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_listed_created_in_and_emptied_by_name() {
        let t = tempfile::tempdir().unwrap();
        let d = Dir::open(t.path()).unwrap();
        let sub = d.mkdir_at(OsStr::new("sub"), 0o755).unwrap();
        std::fs::write(t.path().join("sub/f"), b"x").unwrap();
        let seen: Vec<(OsString, Kind)> = d
            .entries()
            .unwrap()
            .into_iter()
            .map(|e| (e.name, e.kind))
            .collect();
        assert_eq!(seen, [(OsString::from("sub"), Kind::Dir)]);
        // A file that exists is never made again, nor opened as a folder.
        assert!(sub.create_file(OsStr::new("f"), 0o644).is_err());
        assert!(sub.open_at(OsStr::new("f")).is_err());
        assert_eq!(sub.info_at(OsStr::new("f")).unwrap().size, 1);
        assert_eq!(sub.info_at(OsStr::new("f")).unwrap().kind, Kind::File);
        sub.unlink_at(OsStr::new("f")).unwrap();
        drop(sub);
        d.rmdir_at(OsStr::new("sub")).unwrap();
        assert!(d.entries().unwrap().is_empty());
        assert!(name(OsStr::new("a\\b")).is_err());
    }
}
