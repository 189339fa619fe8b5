//! Folders held open, and everything done inside them through their descriptor: listing,
//! stat, opening, creating and removing by name (the `*at` calls). A tree walked this way is
//! never left through a link, nor redirected by a rename of a folder above, and each call
//! resolves one name rather than a whole path (what `find` and `rm -r` do, for the same
//! reasons).

use std::ffi::{CStr, CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The deepest a tree may go below its top, in folders: iogauge walks, copies, unpacks and
/// removes trees this deep and refuses deeper ones (a loop, or no tree real work has). Every
/// walk holds one descriptor per level, well within the descriptors a process may hold.
pub const MAX_DEPTH: usize = 512;

/// What a folder entry is, as the folder says (one stat where the file system does not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Link,
    /// A device, FIFO or socket: nothing a tree of files is made of.
    Other,
}

/// A name in a folder, as this system's calls take it (a C string here).
pub type Name = CString;
/// A borrowed [`Name`].
pub type NameRef = CStr;

/// `name` (one component, from a path or an archive) as a [`Name`].
pub fn name(name: &OsStr) -> io::Result<Name> {
    c_path(Path::new(name))
}

/// What a stat says of one entry, in the words every port has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    pub kind: Kind,
    /// Files: bytes; links: the target's length.
    pub size: u64,
    /// Permission bits.
    pub mode: u32,
    /// Seconds since 1970.
    pub mtime: i64,
}

/// One name in a folder.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: CString,
    pub kind: Kind,
}

impl Entry {
    pub fn name_os(&self) -> &OsStr {
        OsStr::from_bytes(self.name.as_bytes())
    }
}

/// An open folder.
#[derive(Debug)]
pub struct Dir(File);

fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// `path` as a C string (a NUL inside a name is refused, not cut).
pub fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the name"))
}

const DIR_FLAGS: i32 = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;

impl Dir {
    /// The folder at `path` (a link as the last name is followed: the user named it).
    pub fn open(path: &Path) -> io::Result<Dir> {
        let c = c_path(path)?;
        // SAFETY: open with a NUL-terminated path; the descriptor is owned by the File.
        let fd = check(unsafe { libc::open(c.as_ptr(), DIR_FLAGS) })?;
        Ok(Dir(unsafe { File::from_raw_fd(fd) }))
    }

    /// Subfolder `name`, never through a link.
    pub fn open_at(&self, name: &CStr) -> io::Result<Dir> {
        Dir::open_in(self.fd(), name)
    }

    /// Subfolder `name` of the folder open as `dir` (any descriptor of it, O_PATH too), never
    /// through a link.
    pub fn open_in(dir: RawFd, name: &CStr) -> io::Result<Dir> {
        // SAFETY: openat on a descriptor the caller holds; the new one is owned by the File.
        let fd = check(unsafe { libc::openat(dir, name.as_ptr(), DIR_FLAGS | libc::O_NOFOLLOW) })?;
        Ok(Dir(unsafe { File::from_raw_fd(fd) }))
    }

    /// Make subfolder `name` (it must not exist) and open it.
    pub fn mkdir_at(&self, name: &CStr, mode: u32) -> io::Result<Dir> {
        // SAFETY: mkdirat on a held descriptor and a NUL-terminated name.
        check(unsafe { libc::mkdirat(self.fd(), name.as_ptr(), mode as libc::mode_t) })?;
        self.open_at(name)
    }

    pub fn fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }

    pub fn file(&self) -> &File {
        &self.0
    }

    /// File `name` for reading, never through a link.
    pub fn open_file(&self, name: &CStr) -> io::Result<File> {
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: openat on a held descriptor; the new one is owned by the File.
        let fd = check(unsafe { libc::openat(self.fd(), name.as_ptr(), flags) })?;
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// A new file `name` for writing: never one that exists, never through a link.
    pub fn create_file(&self, name: &CStr, mode: u32) -> io::Result<File> {
        let flags =
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: openat on a held descriptor; the new one is owned by the File.
        let fd = check(unsafe { libc::openat(self.fd(), name.as_ptr(), flags, mode) })?;
        Ok(unsafe { File::from_raw_fd(fd) })
    }

    /// `lstat` of `name`.
    pub fn stat_at(&self, name: &CStr) -> io::Result<libc::stat> {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: fstatat fills `st` on success; a held descriptor, a NUL-terminated name.
        check(unsafe {
            libc::fstatat(
                self.fd(),
                name.as_ptr(),
                st.as_mut_ptr(),
                libc::AT_SYMLINK_NOFOLLOW,
            )
        })?;
        Ok(unsafe { st.assume_init() })
    }

    /// What entry `name` is (a link as itself), in every port's words.
    pub fn info_at(&self, name: &CStr) -> io::Result<Info> {
        let st = self.stat_at(name)?;
        Ok(Info {
            kind: kind_of_mode(st.st_mode),
            size: st.st_size as u64,
            mode: st.st_mode & 0o7777,
            mtime: st.st_mtime,
        })
    }

    /// The target of link `name`.
    pub fn read_link(&self, name: &CStr) -> io::Result<CString> {
        let mut buf = vec![0u8; libc::PATH_MAX as usize];
        // SAFETY: readlinkat writes at most buf.len() bytes into buf.
        let n = unsafe {
            libc::readlinkat(self.fd(), name.as_ptr(), buf.as_mut_ptr().cast(), buf.len())
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        buf.truncate(n as usize);
        CString::new(buf).map_err(|_| io::Error::other("a NUL byte in a link"))
    }

    /// A new link `name` pointing at `target`.
    pub fn symlink_at(&self, target: &CStr, name: &CStr) -> io::Result<()> {
        // SAFETY: symlinkat with NUL-terminated strings and a held descriptor.
        check(unsafe { libc::symlinkat(target.as_ptr(), self.fd(), name.as_ptr()) }).map(drop)
    }

    /// Remove file or link `name`.
    pub fn unlink_at(&self, name: &CStr) -> io::Result<()> {
        // SAFETY: unlinkat on a held descriptor and a NUL-terminated name.
        check(unsafe { libc::unlinkat(self.fd(), name.as_ptr(), 0) }).map(drop)
    }

    /// Remove empty subfolder `name`.
    pub fn rmdir_at(&self, name: &CStr) -> io::Result<()> {
        // SAFETY: unlinkat on a held descriptor and a NUL-terminated name.
        check(unsafe { libc::unlinkat(self.fd(), name.as_ptr(), libc::AT_REMOVEDIR) }).map(drop)
    }

    /// Every name in the folder but `.` and `..`, in the folder's order.
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        // fdopendir takes its descriptor over: give it a copy, which closedir closes.
        // SAFETY: fcntl dup of a held descriptor.
        let fd = check(unsafe { libc::fcntl(self.fd(), libc::F_DUPFD_CLOEXEC, 0) })?;
        // SAFETY: fdopendir on the copy; on failure the copy is closed here.
        let d = unsafe { libc::fdopendir(fd) };
        if d.is_null() {
            let e = io::Error::last_os_error();
            unsafe { libc::close(fd) };
            return Err(e);
        }
        let mut out = Vec::new();
        let result = loop {
            // readdir returns null at the end and on error; errno tells them apart.
            // SAFETY: errno is thread-local; the entry is read before the next call.
            unsafe { *libc::__errno_location() = 0 };
            let ent = unsafe { libc::readdir64(d) };
            if ent.is_null() {
                let errno = unsafe { *libc::__errno_location() };
                break if errno == 0 {
                    Ok(())
                } else {
                    Err(io::Error::from_raw_os_error(errno))
                };
            }
            let name = unsafe { CStr::from_ptr((*ent).d_name.as_ptr()) };
            if name == c"." || name == c".." {
                continue;
            }
            let kind = match unsafe { (*ent).d_type } {
                libc::DT_REG => Kind::File,
                libc::DT_DIR => Kind::Dir,
                libc::DT_LNK => Kind::Link,
                libc::DT_UNKNOWN => match self.stat_at(name) {
                    Ok(st) => kind_of_mode(st.st_mode),
                    Err(_) => Kind::Other,
                },
                _ => Kind::Other,
            };
            out.push(Entry {
                name: name.to_owned(),
                kind,
            });
        };
        // SAFETY: the stream opened above, closed once.
        unsafe { libc::closedir(d) };
        result.map(|()| out)
    }
}

/// The permission bits of an open file's metadata, for its copy.
pub fn mode_of(meta: &std::fs::Metadata) -> u32 {
    std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777
}

/// The file at `path` for reading, never through a link as its last name.
pub fn open_file_nofollow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// `file` will be read from start to end: as cat does, ask for a larger read-ahead.
pub fn advise_sequential(file: &File) {
    // SAFETY: fadvise on a descriptor we hold; advice only.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
}

/// Write all of `buf` at `offset` (the file's own position untouched: threads share it).
pub fn write_all_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, offset)
}

/// The kind of a `st_mode`.
pub fn kind_of_mode(mode: libc::mode_t) -> Kind {
    match mode & libc::S_IFMT {
        libc::S_IFREG => Kind::File,
        libc::S_IFDIR => Kind::Dir,
        libc::S_IFLNK => Kind::Link,
        _ => Kind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_listed_created_in_and_emptied_by_name() {
        let t = tempfile::tempdir().unwrap();
        let d = Dir::open(t.path()).unwrap();
        let sub = d.mkdir_at(c"sub", 0o755).unwrap();
        std::fs::write(t.path().join("sub/f"), b"x").unwrap();
        d.symlink_at(c"sub", c"ln").unwrap();
        let mut seen: Vec<(String, Kind)> = d
            .entries()
            .unwrap()
            .into_iter()
            .map(|e| (e.name.to_string_lossy().into_owned(), e.kind))
            .collect();
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            seen,
            [
                ("ln".to_string(), Kind::Link),
                ("sub".to_string(), Kind::Dir)
            ]
        );
        assert_eq!(d.read_link(c"ln").unwrap().as_bytes(), b"sub");
        // A link is never followed as a folder, nor written through.
        assert!(d.open_at(c"ln").is_err());
        assert!(sub.create_file(c"f", 0o644).is_err());
        assert_eq!(sub.stat_at(c"f").unwrap().st_size, 1);
        sub.unlink_at(c"f").unwrap();
        d.unlink_at(c"ln").unwrap();
        d.rmdir_at(c"sub").unwrap();
        assert!(d.entries().unwrap().is_empty());
    }
}
