//! Linux's metadata calls for [`MetaOp`]: openat, fstatat, renameat, unlinkat, mkdirat.

use crate::os::file::Name;
use crate::os::meta::MetaOp;
use std::ffi::CStr;
use std::os::fd::RawFd;

impl MetaOp {
    /// Do the operation once on `name`, relative to the folder `dir` (or `libc::AT_FDCWD` for a
    /// path); `to` is the new name of a rename. False on failure, with errno set. This is what
    /// each of the suite's operations is, and what the file-operation engines of `iogauge run`
    /// and `iogauge fio` do per I/O.
    #[inline]
    pub fn apply(self, dir: RawFd, name: &CStr, to: Option<&CStr>) -> bool {
        // SAFETY (all arms): plain system calls on a folder descriptor the caller holds (or
        // AT_FDCWD) and NUL-terminated names; descriptors returned are closed at once.
        unsafe {
            match self {
                MetaOp::Create | MetaOp::Open | MetaOp::Overwrite => {
                    let flags = match self {
                        MetaOp::Create => libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY,
                        MetaOp::Overwrite => libc::O_CREAT | libc::O_TRUNC | libc::O_WRONLY,
                        _ => libc::O_RDONLY,
                    };
                    let fd = libc::openat(dir, name.as_ptr(), flags | libc::O_CLOEXEC, 0o644);
                    fd >= 0 && libc::close(fd) == 0
                }
                MetaOp::Stat => {
                    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
                    libc::fstatat(dir, name.as_ptr(), st.as_mut_ptr(), 0) == 0
                }
                MetaOp::Rename => {
                    let to = to.expect("a rename is given its new name");
                    libc::renameat(dir, name.as_ptr(), dir, to.as_ptr()) == 0
                }
                MetaOp::Delete => libc::unlinkat(dir, name.as_ptr(), 0) == 0,
                MetaOp::Mkdir => libc::mkdirat(dir, name.as_ptr(), 0o755) == 0,
                MetaOp::Rmdir => libc::unlinkat(dir, name.as_ptr(), libc::AT_REMOVEDIR) == 0,
            }
        }
    }

    /// Do the operation once on a full path (the file-operation engines).
    #[inline]
    pub fn on_path(self, name: &Name) -> bool {
        self.apply(libc::AT_FDCWD, name.as_c_str(), None)
    }
}

/// A folder the fs suite works in, open once: every operation is relative to it (`openat`,
/// `fstatat`...), so no path is resolved from the root per operation.
pub struct Folder(std::os::fd::OwnedFd);

/// Names `<prefix><n>` in a [`Folder`], formatted in place into a stack buffer with no
/// allocation: NUL-terminated, ready for the *at calls.
pub struct Names {
    buf: [u8; 40],
    prefix_len: usize,
    len: usize,
}

impl Folder {
    pub fn open(path: &std::path::Path) -> std::io::Result<Folder> {
        use std::os::fd::FromRawFd;
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte in the path")
        })?;
        // SAFETY: open on a NUL-terminated path; the descriptor is owned from here on.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: fd is a fresh descriptor nobody else owns.
        Ok(Folder(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }))
    }

    /// A name buffer for `<prefix><n>` (`prefix` of at most 16 bytes, no NUL).
    pub fn names(&self, prefix: &str) -> Names {
        assert!(prefix.len() <= 16 && !prefix.contains('\0'));
        let mut buf = [0u8; 40];
        buf[..prefix.len()].copy_from_slice(prefix.as_bytes());
        Names {
            buf,
            prefix_len: prefix.len(),
            len: prefix.len(),
        }
    }

    /// `op` once on `name` (`to`: a rename's new name). False on failure, errno set.
    #[inline]
    pub fn apply(&self, op: MetaOp, name: &Names, to: Option<&mut Names>) -> bool {
        use std::os::fd::AsRawFd;
        op.apply(self.0.as_raw_fd(), name.c_str(), to.map(|t| t.c_str()))
    }

    /// A listing of the folder `sub` inside this one (None: this one itself), to be made many
    /// times ([`Lister::count`]).
    pub fn lister(&self, sub: Option<&str>) -> std::io::Result<Lister<'_>> {
        let name = std::ffi::CString::new(sub.unwrap_or(".")).map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL byte in the name")
        })?;
        Ok(Lister { folder: self, name })
    }
}

/// One folder's listing, made again and again by the fs suite's listing tests.
pub struct Lister<'a> {
    folder: &'a Folder,
    name: std::ffi::CString,
}

impl Lister<'_> {
    /// Open the folder, read all its entries with getdents64 into `buf`, close it: the
    /// entries besides "." and "..".
    pub fn count(&mut self, buf: &mut [u8]) -> std::io::Result<u64> {
        use std::os::fd::AsRawFd;
        // SAFETY: openat on a NUL-terminated name; the descriptor is closed below.
        let fd = unsafe {
            libc::openat(
                self.folder.0.as_raw_fd(),
                self.name.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut entries = 0u64;
        let outcome = loop {
            // SAFETY: getdents64 writes at most buf.len() bytes into buf.
            let n = unsafe {
                libc::syscall(
                    libc::SYS_getdents64,
                    fd,
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                )
            };
            match n {
                n if n < 0 => break Err(std::io::Error::last_os_error()),
                0 => break Ok(entries),
                n => entries += count_entries(&buf[..n as usize]),
            }
        };
        // SAFETY: closing our own descriptor.
        unsafe { libc::close(fd) };
        outcome
    }
}

impl Names {
    /// Set the number after the prefix. The digits are written from the right, then moved
    /// next to the prefix: no allocation, no formatting machinery.
    #[inline]
    pub fn set(&mut self, n: u64) {
        let (digits, at) = crate::os::meta::decimal(n);
        let p = self.prefix_len;
        let len = digits.len() - at;
        self.buf[p..p + len].copy_from_slice(&digits[at..]);
        self.buf[p + len] = 0;
        self.len = p + len;
    }

    fn c_str(&self) -> &CStr {
        CStr::from_bytes_with_nul(&self.buf[..self.len + 1]).expect("one NUL at the end")
    }

    /// The name as set, for messages.
    pub fn show(&self) -> String {
        String::from_utf8_lossy(&self.buf[..self.len]).into_owned()
    }
}

/// Entries in a getdents64 buffer, "." and ".." not counted.
fn count_entries(buf: &[u8]) -> u64 {
    // struct linux_dirent64 { u64 d_ino; i64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
    let mut off = 0;
    let mut n = 0;
    while off + 19 < buf.len() {
        let reclen = u16::from_ne_bytes([buf[off + 16], buf[off + 17]]) as usize;
        let name = &buf[off + 19..off + reclen];
        let dot = name.starts_with(b".\0") || name.starts_with(b"..\0");
        n += u64::from(!dot);
        if reclen == 0 {
            break;
        }
        off += reclen;
    }
    n
}

pub const CALLS: crate::os::meta::Calls = crate::os::meta::Calls {
    create: "create a new file: open(O_CREAT|O_EXCL) + close",
    open: "open an existing file, each a different one: open + close",
    reopen: "open the same files again, --iterations times: open + close",
    overwrite: "open an existing file with truncation: open(O_TRUNC) + close",
    stat: "stat an existing file",
    list: "one entry of a listing of the folder of --files files, listed --iterations times",
    list_single: "list a folder that holds one file: open + getdents + close",
    rename: "rename a file within its folder",
    delete: "delete a file",
    mkdir: "create a folder",
    rmdir: "remove an empty folder",
    cc_write: "buffered pwrite of one page, --iterations passes over the file",
    cc_read: "buffered pread of one page, --iterations passes over the file",
    nc_write: "O_DIRECT pwrite of one page, --iterations passes over the file",
    nc_read: "O_DIRECT pread of one page, --iterations passes over the file",
    mmap_write: "write a whole mapped page (MAP_SHARED), --iterations passes",
    mmap_read: "read a whole mapped page, --iterations passes",
    fsync: "pwrite one page, then fsync; one pass over the file",
    direct: "O_DIRECT",
};
