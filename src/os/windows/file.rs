//! Windows: files opened with CreateFileW's flags (FILE_FLAG_NO_BUFFERING for unbuffered I/O,
//! FILE_FLAG_WRITE_THROUGH), volumes and physical drives (`\\.\C:`, `\\.\PhysicalDrive1`) as
//! block devices, positional ReadFile/WriteFile, FlushFileBuffers, space reserved with
//! FileAllocationInfo. Every handle shares read, write and delete, as DiskSpd's do, so that a
//! thread's own handle ([`reopen`]) and iogauge's removal by handle both work.

use super::{handle, wide, RawHandle};
use crate::os::file::{How, What};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::path::Path;
use windows_sys::Win32::Foundation::{CloseHandle, GetLastError, INVALID_HANDLE_VALUE};
use windows_sys::Win32::Storage::FileSystem::{
    CreateFileW, FileAllocationInfo, FileDispositionInfo, FlushFileBuffers,
    GetFinalPathNameByHandleW, ReOpenFile, ReadFile, SetFileInformationByHandle, WriteFile,
    FILE_ALLOCATION_INFO, FILE_DISPOSITION_INFO, FILE_FLAG_NO_BUFFERING, FILE_FLAG_OVERLAPPED,
    FILE_FLAG_WRITE_THROUGH, FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE, OPEN_EXISTING,
};
use windows_sys::Win32::System::IO::{DeviceIoControl, OVERLAPPED};

const GENERIC_READ: u32 = 0x8000_0000;
const GENERIC_WRITE: u32 = 0x4000_0000;
/// Every handle iogauge opens lets others read, write and delete.
pub(crate) const SHARE_ALL: u32 = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;
const ERROR_HANDLE_EOF: u32 = 38;
/// winioctl.h: IOCTL_DISK_GET_LENGTH_INFO.
const IOCTL_DISK_GET_LENGTH_INFO: u32 = 0x0007_405C;

/// A path as CreateFileW takes it (wide, NUL-terminated), made once.
#[derive(Clone, Debug)]
pub struct Name(Vec<u16>);

impl Name {
    pub fn new(path: &Path) -> io::Result<Name> {
        let w = wide(path);
        if w[..w.len() - 1].contains(&0) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a NUL in the path",
            ));
        }
        Ok(Name(w))
    }

    pub(crate) fn as_ptr(&self) -> *const u16 {
        self.0.as_ptr()
    }
}

fn cache_flags(how: How) -> u32 {
    let mut flags = 0;
    if how.overlapped {
        flags |= FILE_FLAG_OVERLAPPED;
    }
    if how.direct {
        flags |= FILE_FLAG_NO_BUFFERING;
    }
    if how.write_through {
        flags |= FILE_FLAG_WRITE_THROUGH;
    }
    flags
}

fn access(write: bool) -> u32 {
    if write {
        GENERIC_READ | GENERIC_WRITE
    } else {
        GENERIC_READ
    }
}

/// Options that open an existing file as `how` says.
pub fn options(how: How) -> OpenOptions {
    let mut o = OpenOptions::new();
    o.read(true)
        .write(how.write)
        .share_mode(SHARE_ALL)
        .custom_flags(cache_flags(how));
    o
}

/// Open `name` as `how` says: a raw handle the caller closes ([`close_raw`]), or the error.
pub fn open_raw(name: &Name, how: How) -> Result<RawHandle, i32> {
    // SAFETY: a NUL-terminated wide path; the handle is the caller's from now on.
    let h = unsafe {
        CreateFileW(
            name.as_ptr(),
            access(how.write),
            SHARE_ALL,
            std::ptr::null(),
            OPEN_EXISTING,
            cache_flags(how),
            std::ptr::null_mut(),
        )
    };
    if h == INVALID_HANDLE_VALUE {
        return Err(crate::os::error::last());
    }
    if let Err(e) = after_open_raw(h as RawHandle, how) {
        close_raw(h as RawHandle);
        return Err(e.raw_os_error().unwrap_or(crate::os::error::IO));
    }
    Ok(h as RawHandle)
}

/// A handle of the thread's own on the file `h` is open on (a new file object: a completion
/// port is tied to one, and synchronous I/O on a shared one is serialised by the system), as
/// DiskSpd opens each thread's targets. ReOpenFile where
/// the system has it; the file's final path opened again otherwise (Wine).
pub fn reopen(h: RawHandle, how: How) -> io::Result<RawHandle> {
    let flags = cache_flags(how);
    // SAFETY: `h` is an open handle; the new one is the caller's.
    let again = unsafe { ReOpenFile(handle(h), access(how.write), SHARE_ALL, flags) };
    if again != INVALID_HANDLE_VALUE && !again.is_null() {
        return Ok(again as RawHandle);
    }
    let mut path = vec![0u16; 32768];
    // SAFETY: the buffer holds `path.len()` wide characters.
    let n =
        unsafe { GetFinalPathNameByHandleW(handle(h), path.as_mut_ptr(), path.len() as u32, 0) };
    if n == 0 || n as usize >= path.len() {
        return Err(io::Error::last_os_error());
    }
    path.truncate(n as usize);
    path.push(0);
    // SAFETY: a NUL-terminated wide path.
    let h2 = unsafe {
        CreateFileW(
            path.as_ptr(),
            access(how.write),
            SHARE_ALL,
            std::ptr::null(),
            OPEN_EXISTING,
            flags,
            std::ptr::null_mut(),
        )
    };
    if h2 == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    Ok(h2 as RawHandle)
}

/// Close a handle from [`open_raw`] or [`reopen`].
pub fn close_raw(h: RawHandle) {
    // SAFETY: the caller owns `h` and closes it once.
    unsafe { CloseHandle(handle(h)) };
}

/// What stands at `path`: `\\.\` names a device (a volume, a physical drive: a block device
/// here; `\\.\NUL` the null device), anything else is asked of the file system.
pub fn what(path: &Path) -> io::Result<What> {
    let text = path.to_string_lossy();
    if text.eq_ignore_ascii_case("NUL") || text.eq_ignore_ascii_case(r"\\.\NUL") {
        return Ok(What::NullDevice);
    }
    if text.starts_with(r"\\.\") {
        return Ok(What::BlockDevice);
    }
    let m = std::fs::metadata(path)?;
    Ok(if m.is_dir() {
        What::Dir
    } else if m.is_file() {
        What::File(m.len())
    } else {
        What::Other
    })
}

/// The size of an open volume or drive (IOCTL_DISK_GET_LENGTH_INFO).
pub fn device_len(file: &File) -> io::Result<u64> {
    let mut len: i64 = 0;
    let mut got = 0u32;
    // SAFETY: the output buffer is an i64 (GET_LENGTH_INFORMATION) we own.
    let ok = unsafe {
        DeviceIoControl(
            handle(super::raw(file)),
            IOCTL_DISK_GET_LENGTH_INFO,
            std::ptr::null(),
            0,
            (&mut len as *mut i64).cast(),
            8,
            &mut got,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(len as u64)
}

/// The volume's sector size, which unbuffered I/O must align buffers, offsets and lengths to
/// (FileStorageInfo: the physical sector size the volume reports for performance, else its
/// logical one). None where the system does not say.
pub fn direct_alignment(file: &File) -> Option<u64> {
    use windows_sys::Win32::Storage::FileSystem::{
        FileStorageInfo, GetFileInformationByHandleEx, FILE_STORAGE_INFO,
    };
    let mut info: FILE_STORAGE_INFO = unsafe { std::mem::zeroed() };
    // SAFETY: the output buffer is the struct we own, its size given.
    let ok = unsafe {
        GetFileInformationByHandleEx(
            handle(super::raw(file)),
            FileStorageInfo,
            (&mut info as *mut FILE_STORAGE_INFO).cast(),
            std::mem::size_of::<FILE_STORAGE_INFO>() as u32,
        )
    };
    if ok == 0 {
        return None;
    }
    let sector = info
        .PhysicalBytesPerSectorForPerformance
        .max(info.LogicalBytesPerSector);
    (sector > 0).then_some(sector as u64)
}

/// Reserve `len` bytes for `file` (FileAllocationInfo), so that a full volume is found at once.
/// Err only for a full volume or quota; other refusals are advice.
pub fn allocate(file: &File, len: u64) -> io::Result<()> {
    let info = FILE_ALLOCATION_INFO {
        AllocationSize: len as i64,
    };
    // SAFETY: the input is the struct we own, its size given.
    let ok = unsafe {
        SetFileInformationByHandle(
            handle(super::raw(file)),
            FileAllocationInfo,
            (&info as *const FILE_ALLOCATION_INFO).cast(),
            std::mem::size_of::<FILE_ALLOCATION_INFO>() as u32,
        )
    };
    if ok == 0 {
        let e = crate::os::error::last();
        if crate::os::error::is_full(e) {
            return Err(io::Error::from_raw_os_error(e));
        }
    }
    Ok(())
}

/// The data of `file` on stable storage (FlushFileBuffers).
pub fn datasync(file: &File) -> io::Result<()> {
    file.sync_data()
}

/// An OVERLAPPED that places a synchronous call at `offset`.
#[inline]
fn at(offset: u64) -> OVERLAPPED {
    let mut ov: OVERLAPPED = unsafe { std::mem::zeroed() };
    ov.Anonymous.Anonymous.Offset = offset as u32;
    ov.Anonymous.Anonymous.OffsetHigh = (offset >> 32) as u32;
    ov
}

/// A ReadFile or WriteFile's outcome as a completion's result: the count, 0 at the end of the
/// file, or a negative error code.
#[inline]
fn result(ok: i32, n: u32) -> i32 {
    if ok != 0 {
        return n as i32;
    }
    // SAFETY: reads the calling thread's last error.
    match unsafe { GetLastError() } {
        ERROR_HANDLE_EOF => 0,
        e => -(e as i32),
    }
}

/// ReadFile of `len` bytes at `offset` into `buf` on a synchronous handle: the count, or a
/// negative error code. `buf` is the caller's, valid for `len` bytes (an engine's `Sqe`).
#[inline]
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn read_at(h: RawHandle, buf: *mut u8, len: u32, offset: u64) -> i32 {
    let mut ov = at(offset);
    let mut n = 0u32;
    // SAFETY: the caller's `buf` holds `len` bytes it owns until this returns; a synchronous
    // handle completes the call before it returns.
    let ok = unsafe { ReadFile(handle(h), buf, len, &mut n, &mut ov) };
    result(ok, n)
}

/// WriteFile of `len` bytes at `offset` from `buf` on a synchronous handle.
#[inline]
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn write_at(h: RawHandle, buf: *const u8, len: u32, offset: u64) -> i32 {
    let mut ov = at(offset);
    let mut n = 0u32;
    // SAFETY: as `read_at`; WriteFile only reads the buffer.
    let ok = unsafe { WriteFile(handle(h), buf, len, &mut n, &mut ov) };
    result(ok, n)
}

/// FlushFileBuffers (Windows has no data-only flush: `data_only` flushes all): 0 or a
/// negative error code.
pub fn flush(h: RawHandle, _data_only: bool) -> i32 {
    // SAFETY: a plain call on a handle.
    result(unsafe { FlushFileBuffers(handle(h)) }, 0)
}

/// Trims are not yet done on Windows (validation refuses them): ERROR_NOT_SUPPORTED.
pub fn punch_hole(_h: RawHandle, _offset: u64, _len: u32) -> i32 {
    -crate::os::error::UNSUPPORTED
}

/// As [`punch_hole`].
pub fn discard(_h: RawHandle, _offset: u64, _len: u32) -> i32 {
    -crate::os::error::UNSUPPORTED
}

/// A thread's own handles on its files ([`reopen`]), closed when dropped; where the run holds
/// none ([`crate::os::NO_HANDLE`]: the thread opens its own), none.
pub struct Handles(Vec<RawHandle>);

impl Handles {
    pub fn of(hs: &[RawHandle], how: How) -> io::Result<Handles> {
        let mut own = Handles(Vec::with_capacity(hs.len()));
        for &h in hs {
            own.0.push(match h {
                crate::os::NO_HANDLE => h,
                _ => reopen(h, how)?,
            });
            if let Some(&mine) = own.0.last().filter(|&&m| m != crate::os::NO_HANDLE) {
                after_open_raw(mine, how)?;
            }
        }
        Ok(own)
    }

    pub fn raw(&self) -> &[RawHandle] {
        &self.0
    }
}

impl Drop for Handles {
    fn drop(&mut self) {
        for &h in self.0.iter().filter(|&&h| h != crate::os::NO_HANDLE) {
            close_raw(h);
        }
    }
}

/// Whether `path` may be written: a folder unless it is gone, a file unless it is read-only
/// (access lists are not evaluated: a refusal then comes from the open itself).
pub fn may_write(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir() || !m.permissions().readonly())
}

/// (volume serial number, file index) of an open file.
pub fn ids(file: &File) -> io::Result<(u64, u64)> {
    ids_raw(super::raw(file))
}

fn ids_raw(h: RawHandle) -> io::Result<(u64, u64)> {
    use windows_sys::Win32::Storage::FileSystem::{
        GetFileInformationByHandle, BY_HANDLE_FILE_INFORMATION,
    };
    let mut i: BY_HANDLE_FILE_INFORMATION = unsafe { std::mem::zeroed() };
    // SAFETY: writes the struct we own; `h` is open.
    if unsafe { GetFileInformationByHandle(handle(h), &mut i) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let index = (i.nFileIndexHigh as u64) << 32 | i.nFileIndexLow as u64;
    Ok((i.dwVolumeSerialNumber as u64, index))
}

/// (volume serial number, file index) of what stands at `path`, following a final link where
/// `follow`.
pub fn ids_at(path: &Path, follow: bool) -> io::Result<(u64, u64)> {
    use windows_sys::Win32::Storage::FileSystem::{
        FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT,
    };
    let flags = FILE_FLAG_BACKUP_SEMANTICS
        | if follow {
            0
        } else {
            FILE_FLAG_OPEN_REPARSE_POINT
        };
    let w = wide(path);
    // SAFETY: a NUL-terminated path; the handle is closed below.
    let h = unsafe {
        CreateFileW(
            w.as_ptr(),
            0x80,
            SHARE_ALL,
            std::ptr::null(),
            OPEN_EXISTING,
            flags,
            std::ptr::null_mut(),
        )
    };
    if h == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    let r = ids_raw(h as RawHandle);
    close_raw(h as RawHandle);
    r
}

/// A device path (`\\.\...`).
pub fn is_device(path: &Path) -> bool {
    path.to_string_lossy().starts_with(r"\\.\")
}

/// The device number of an open volume or drive (IOCTL_STORAGE_GET_DEVICE_NUMBER: the disk's
/// number, and the partition's in the low bits); None for a file.
pub fn block_device_number(file: &File) -> Option<u64> {
    const IOCTL_STORAGE_GET_DEVICE_NUMBER: u32 = 0x002D_1080;
    let mut n = [0u32; 3];
    let mut got = 0u32;
    // SAFETY: the output is a STORAGE_DEVICE_NUMBER-sized array we own.
    let ok = unsafe {
        DeviceIoControl(
            handle(super::raw(file)),
            IOCTL_STORAGE_GET_DEVICE_NUMBER,
            std::ptr::null(),
            0,
            n.as_mut_ptr().cast(),
            12,
            &mut got,
            std::ptr::null_mut(),
        )
    };
    (ok != 0).then(|| (n[1] as u64) << 32 | n[2] as u64)
}

/// A device number as `disk N partition M`.
pub fn device_words(dev: u64) -> String {
    format!("disk {} partition {}", dev >> 32, dev & 0xffff_ffff)
}

/// Read exactly `buf.len()` bytes at `offset`.
pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// Windows' zoned drives (SMR, ZNS) are not detected yet.
pub fn zoned(_file: &File) -> Option<String> {
    None
}

/// DiskSpd's `#N` is `\\.\PhysicalDriveN`: the drives up to the highest that opens (a gap
/// opens to an error naming it).
pub fn whole_disks() -> Vec<std::path::PathBuf> {
    let exists = |n: u32| {
        let w = wide(Path::new(&format!(r"\\.\PhysicalDrive{n}")));
        // SAFETY: a NUL-terminated path; no access asked; closed at once.
        let h = unsafe {
            CreateFileW(
                w.as_ptr(),
                0,
                SHARE_ALL,
                std::ptr::null(),
                OPEN_EXISTING,
                0,
                std::ptr::null_mut(),
            )
        };
        if h == INVALID_HANDLE_VALUE {
            return false;
        }
        close_raw(h as RawHandle);
        true
    };
    let highest = (0..64).rev().find(|&n| exists(n));
    highest.map_or_else(Vec::new, |h| {
        (0..=h)
            .map(|n| std::path::PathBuf::from(format!(r"\\.\PhysicalDrive{n}")))
            .collect()
    })
}

/// A drive letter (`C:`) as DiskSpd takes it: the volume, `\\.\C:`.
pub fn volume_of_letter(letter: &str) -> Option<std::path::PathBuf> {
    let c = letter.chars().next()?;
    c.is_ascii_alphabetic()
        .then(|| std::path::PathBuf::from(format!(r"\\.\{}:", c.to_ascii_uppercase())))
}

/// A folder opened for reading its facts (FILE_FLAG_BACKUP_SEMANTICS: a folder opens no
/// other way).
pub fn open_folder(path: &Path) -> io::Result<File> {
    use windows_sys::Win32::Storage::FileSystem::FILE_FLAG_BACKUP_SEMANTICS;
    OpenOptions::new()
        .read(true)
        .share_mode(SHARE_ALL)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
}

/// Windows has no fsync of a folder: NTFS and ReFS journal a rename (MoveFileExW) with the
/// folder's entries, so there is nothing more to flush.
pub fn sync_folder(_path: &Path) -> io::Result<()> {
    Ok(())
}

/// What a handle needs once open: with `remote_uncached` (DiskSpd's -Sr), the SMB client's
/// local cache of the remote file turned off (FSCTL_DISABLE_LOCAL_BUFFERING), as DiskSpd does
/// on each of its handles; a local file system refuses it.
pub fn after_open(file: &File, how: How) -> io::Result<()> {
    after_open_raw(super::raw(file), how)
}

fn after_open_raw(h: RawHandle, how: How) -> io::Result<()> {
    use windows_sys::Win32::System::Ioctl::FSCTL_DISABLE_LOCAL_BUFFERING;
    if !how.remote_uncached {
        return Ok(());
    }
    let mut got = 0u32;
    // SAFETY: a control code with no input or output, on a handle we hold.
    let ok = unsafe {
        DeviceIoControl(
            handle(h),
            FSCTL_DISABLE_LOCAL_BUFFERING,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            0,
            &mut got,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// [`crate::os::file::pass_options`]: FILE_FLAG_NO_BUFFERING, FILE_FLAG_WRITE_THROUGH; every
/// handle shares all, so the workspace's removal by handle works while a pass's is open.
pub fn pass_options(write: bool, direct: bool, sync: bool) -> OpenOptions {
    let how = How {
        direct,
        write_through: sync && write,
        ..How::default()
    };
    let mut o = OpenOptions::new();
    o.read(!write)
        .write(write)
        .share_mode(SHARE_ALL)
        .custom_flags(cache_flags(how));
    o
}

/// CloseHandle with its error seen.
pub fn close_checked(file: File) -> io::Result<()> {
    use std::os::windows::io::IntoRawHandle;
    let h = file.into_raw_handle();
    // SAFETY: h was just released by its File; it is closed once, here.
    if unsafe { CloseHandle(h) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Delete what `h` (opened with DELETE access) is open on: gone once the last handle on it
/// closes.
pub(crate) fn delete_by_handle(h: RawHandle) -> io::Result<()> {
    let info = FILE_DISPOSITION_INFO { DeleteFile: true };
    // SAFETY: the input is the struct we own, its size given; the handle has DELETE.
    let ok = unsafe {
        SetFileInformationByHandle(
            super::handle(h),
            FileDispositionInfo,
            (&info as *const FILE_DISPOSITION_INFO).cast(),
            std::mem::size_of::<FILE_DISPOSITION_INFO>() as u32,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
