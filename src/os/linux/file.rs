//! Linux: files opened with open(2)'s flags, examined by stat, read and written with
//! pread/pwrite, flushed, trimmed (fallocate's PUNCH_HOLE, BLKDISCARD), reserved
//! (posix_fallocate).

use crate::os::file::{How, What};
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// A path as open(2) takes it, made once so that opening it again costs no allocation.
#[derive(Clone, Debug)]
pub struct Name(CString);

impl Name {
    pub fn new(path: &Path) -> io::Result<Name> {
        CString::new(path.as_os_str().as_bytes())
            .map(Name)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the path"))
    }

    pub fn as_c_str(&self) -> &std::ffi::CStr {
        &self.0
    }
}

fn cache_flags(how: How) -> i32 {
    let mut flags = 0;
    if how.direct {
        flags |= libc::O_DIRECT;
    }
    if how.write_through {
        flags |= libc::O_DSYNC;
    }
    flags
}

/// Options that open an existing file as `how` says.
pub fn options(how: How) -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true).write(how.write).custom_flags(cache_flags(how));
    o
}

/// Open `name` as `how` says: a raw descriptor the caller closes ([`close_raw`]), or the errno.
pub fn open_raw(name: &Name, how: How) -> Result<RawFd, i32> {
    let access = if how.write {
        libc::O_RDWR
    } else {
        libc::O_RDONLY
    };
    // SAFETY: a NUL-terminated path; the descriptor is the caller's from now on.
    let fd = unsafe { libc::open(name.0.as_ptr(), access | cache_flags(how) | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(crate::os::error::last());
    }
    Ok(fd)
}

/// Close a descriptor from [`open_raw`].
pub fn close_raw(fd: RawFd) {
    // SAFETY: the caller owns `fd` and closes it once.
    unsafe { libc::close(fd) };
}

/// What stands at `path` (following links); NotFound where nothing does.
pub fn what(path: &Path) -> io::Result<What> {
    let m = std::fs::metadata(path)?;
    let t = m.file_type();
    Ok(if m.is_dir() {
        What::Dir
    } else if t.is_block_device() {
        What::BlockDevice
    } else if m.is_file() {
        What::File(m.len())
    } else if t.is_char_device()
        && libc::major(m.rdev()) == 1
        && matches!(libc::minor(m.rdev()), 3 | 5)
    {
        // The kernel's mem devices 1:3 and 1:5: /dev/null and /dev/zero.
        What::NullDevice
    } else {
        What::Other
    })
}

/// The size of an open block device.
pub fn device_len(file: &File) -> io::Result<u64> {
    use std::io::{Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::End(0))
}

/// The direct-I/O alignment the kernel reports for this file (statx STATX_DIOALIGN, Linux 6.1+).
pub fn direct_alignment(file: &File) -> Option<u64> {
    const STATX_DIOALIGN: u32 = 0x2000;
    // SAFETY: statx writes into a zeroed struct we own; the fd is open; "" with AT_EMPTY_PATH
    // names the fd itself.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    let r = unsafe {
        libc::statx(
            file.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            STATX_DIOALIGN,
            &mut st,
        )
    };
    if r != 0 || st.stx_mask & STATX_DIOALIGN == 0 || st.stx_dio_offset_align == 0 {
        return None;
    }
    Some(st.stx_dio_offset_align as u64)
}

/// Reserve `len` bytes for `file` where the file system can, so that a full file system is
/// found at once, not midway through writing. Err only for ENOSPC; other refusals are advice.
pub fn allocate(file: &File, len: u64) -> io::Result<()> {
    // SAFETY: plain syscall on a descriptor we own.
    let r = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len as libc::off_t) };
    if r == libc::ENOSPC {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(())
}

/// fdatasync: the data of `file` on stable storage.
pub fn datasync(file: &File) -> io::Result<()> {
    file.sync_data()
}

/// A syscall's return as a completion's result: the count, or a negative errno.
fn result(ret: isize) -> i32 {
    if ret < 0 {
        -crate::os::error::last()
    } else {
        ret as i32
    }
}

/// Repeat `call` while it is interrupted by a signal.
#[inline]
fn again(mut call: impl FnMut() -> isize) -> i32 {
    loop {
        let r = result(call());
        if r != -libc::EINTR {
            return r;
        }
    }
}

/// pread of `len` bytes at `offset` into `buf`: the count, or a negative errno.
#[inline]
pub fn read_at(fd: RawFd, buf: *mut u8, len: u32, offset: u64) -> i32 {
    // SAFETY: the caller's `buf` holds `len` bytes it owns until this returns.
    again(|| unsafe { libc::pread(fd, buf.cast(), len as usize, offset as libc::off_t) })
}

/// pwrite of `len` bytes at `offset` from `buf`: the count, or a negative errno.
#[inline]
pub fn write_at(fd: RawFd, buf: *const u8, len: u32, offset: u64) -> i32 {
    // SAFETY: as `read_at`; pwrite only reads the buffer.
    again(|| unsafe { libc::pwrite(fd, buf.cast(), len as usize, offset as libc::off_t) })
}

/// fsync, or fdatasync where `data_only`: 0 or a negative errno.
pub fn flush(fd: RawFd, data_only: bool) -> i32 {
    // SAFETY: plain syscalls on a descriptor.
    again(|| unsafe {
        if data_only {
            libc::fdatasync(fd) as isize
        } else {
            libc::fsync(fd) as isize
        }
    })
}

/// A hole of `len` bytes punched at `offset`, the file's size kept: 0 or a negative errno.
pub fn punch_hole(fd: RawFd, offset: u64, len: u32) -> i32 {
    let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
    // SAFETY: fallocate reads only its arguments.
    again(|| unsafe {
        libc::fallocate(fd, mode, offset as libc::off_t, len as libc::off_t) as isize
    })
}

/// `_IO(0x12, 119)` from linux/fs.h: discard a byte range `[start, len]` of a block device.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// A block device's range discarded: 0 or a negative errno.
pub fn discard(fd: RawFd, offset: u64, len: u32) -> i32 {
    let range: [u64; 2] = [offset, len as u64];
    // SAFETY: ioctl(BLKDISCARD) reads `range`, which lives across the call.
    again(|| unsafe { libc::ioctl(fd, BLKDISCARD, range.as_ptr()) as isize })
}

/// A thread's handles on its files. On Linux these are the run's own descriptors: positional
/// I/O on a shared descriptor is neither serialised nor tied to one ring.
pub struct Handles(Vec<RawFd>);

impl Handles {
    pub fn of(fds: &[RawFd], _how: How) -> io::Result<Handles> {
        Ok(Handles(fds.to_vec()))
    }

    pub fn raw(&self) -> &[RawFd] {
        &self.0
    }
}

/// Whether this user may write `path` (access(W_OK), as the effective user).
pub fn may_write(path: &Path) -> bool {
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path; faccessat only reads it.
    unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) == 0 }
}

/// (device, inode) of an open file.
pub fn ids(file: &File) -> io::Result<(u64, u64)> {
    let m = file.metadata()?;
    Ok((m.dev(), m.ino()))
}

/// (device, inode) of what stands at `path`, following a final link where `follow`.
pub fn ids_at(path: &Path, follow: bool) -> io::Result<(u64, u64)> {
    let m = match follow {
        true => std::fs::metadata(path)?,
        false => std::fs::symlink_metadata(path)?,
    };
    Ok((m.dev(), m.ino()))
}

/// A block or character device (a path two processes may share without a file's identity).
pub fn is_device(path: &Path) -> bool {
    std::fs::metadata(path)
        .is_ok_and(|m| m.file_type().is_block_device() || m.file_type().is_char_device())
}

/// The device number of an open block device; None for anything else.
pub fn block_device_number(file: &File) -> Option<u64> {
    let m = file.metadata().ok()?;
    m.file_type().is_block_device().then(|| m.rdev())
}

/// A device number as the system writes it: `major:minor`.
pub fn device_words(dev: u64) -> String {
    format!("{}:{}", libc::major(dev), libc::minor(dev))
}

/// Read exactly `buf.len()` bytes at `offset`.
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.read_exact_at(buf, offset)
}

/// The zone model of an open block device the kernel shows as zoned (host-managed,
/// host-aware); None for one that is not, or for anything else.
pub fn zoned(file: &File) -> Option<String> {
    let rdev = block_device_number(file)?;
    let dev = format!("/sys/dev/block/{}", device_words(rdev));
    // A partition's queue is its disk's.
    let model = ["queue/zoned", "../queue/zoned"]
        .iter()
        .find_map(|q| std::fs::read_to_string(format!("{dev}/{q}")).ok())?;
    let m = model.trim();
    (m != "none").then(|| m.to_string())
}

/// Whole disks, by name (sysfs, less loop, RAM, device-mapper, md, optical and network
/// block devices): what DiskSpd's `#0`, `#1`... mean here.
pub fn whole_disks() -> Vec<std::path::PathBuf> {
    let mut names: Vec<String> = std::fs::read_dir("/sys/block")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    !["loop", "ram", "zram", "dm-", "md", "sr", "nbd"]
                        .iter()
                        .any(|p| n.starts_with(p))
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .map(|n| std::path::PathBuf::from("/dev").join(n))
        .collect()
}

/// Linux has no drive letters.
pub fn volume_of_letter(_letter: &str) -> Option<std::path::PathBuf> {
    None
}

/// A folder opened for reading its facts.
pub fn open_folder(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// A folder's entries on stable storage (a rename into it survives a crash): fsync of the
/// folder.
pub fn sync_folder(path: &Path) -> io::Result<()> {
    File::open(path)?.sync_all()
}

/// Nothing is needed after an open on Linux (its flags say everything).
pub fn after_open(_file: &File, _how: How) -> io::Result<()> {
    Ok(())
}

/// [`crate::os::file::pass_options`]: O_DIRECT, O_SYNC.
pub fn pass_options(write: bool, direct: bool, sync: bool) -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(!write).write(write);
    let mut flags = 0;
    if direct {
        flags |= libc::O_DIRECT;
    }
    if sync && write {
        flags |= libc::O_SYNC;
    }
    o.custom_flags(flags);
    o
}

/// close(2) with its error seen.
pub fn close_checked(file: File) -> io::Result<()> {
    use std::os::fd::IntoRawFd;
    let fd = file.into_raw_fd();
    // SAFETY: fd was just released by its File; it is closed once, here.
    if unsafe { libc::close(fd) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
