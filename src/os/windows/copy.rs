//! Windows' ways to copy a file's bytes (see `os/copy.rs`): CopyFileExW, what Explorer and
//! robocopy use (the system picks its buffers, and copies on the server for SMB), and block
//! cloning (FSCTL_DUPLICATE_EXTENTS_TO_FILE), with which ReFS shares the source's clusters
//! instead of copying them, as a reflink does on Linux.

use super::{handle, raw, wide};
use crate::os::copy::{stopped, Copied, Progress};
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use windows_sys::Win32::Storage::FileSystem::{
    CopyFileExW, GetDiskFreeSpaceW, GetVolumePathNameW, COPY_FILE_FAIL_IF_EXISTS, PROGRESS_CANCEL,
    PROGRESS_CONTINUE,
};
use windows_sys::Win32::System::Ioctl::{DUPLICATE_EXTENTS_DATA, FSCTL_DUPLICATE_EXTENTS_TO_FILE};
use windows_sys::Win32::System::IO::DeviceIoControl;

/// The methods `--method` takes here, the default first.
pub const METHODS: &[&str] = &["CopyFileExW", "read-write", "block-clone"];
/// What a copy uses unless told: the system's copy, as Explorer and robocopy.
pub const DEFAULT: &str = "CopyFileExW";

/// Bytes cloned per call: ReFS takes less than 4 GiB at once.
const CLONE_BYTES: u64 = 1 << 30;

fn not_here(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("{what} is Linux's: use CopyFileExW, block-clone or read-write on Windows"),
    )
}

/// copy_file_range is Linux's.
pub fn kernel_copy(
    _from: &File,
    _to: &File,
    _c: &dyn Progress,
    _stop: &AtomicBool,
) -> io::Result<Copied> {
    Err(not_here("copy_file_range"))
}

/// io_uring is Linux's.
pub struct Ring {
    _none: (),
}

impl Ring {
    pub fn new() -> io::Result<Ring> {
        Err(not_here("io_uring"))
    }

    pub fn copy(
        &mut self,
        _from: &File,
        _to: &File,
        _size: u64,
        _c: &dyn Progress,
        _stop: &AtomicBool,
    ) -> io::Result<bool> {
        Err(not_here("io_uring"))
    }
}

/// What CopyFileExW's progress routine is handed: where to count, and when to cancel.
struct Watch<'a> {
    c: &'a dyn Progress,
    stop: &'a AtomicBool,
    moved: u64,
}

unsafe extern "system" fn progress(
    _total: i64,
    transferred: i64,
    _stream_size: i64,
    _stream_transferred: i64,
    _stream: u32,
    _reason: u32,
    _from: windows_sys::Win32::Foundation::HANDLE,
    _to: windows_sys::Win32::Foundation::HANDLE,
    data: *const core::ffi::c_void,
) -> u32 {
    // SAFETY: `data` is the Watch that `copy_file_ex` lent for the call, alive until it returns.
    let w = unsafe { &mut *(data as *mut Watch) };
    let now = transferred.max(0) as u64;
    if now > w.moved {
        w.c.read(now - w.moved);
        w.c.wrote(now - w.moved);
        w.moved = now;
    }
    match w.stop.load(Ordering::Relaxed) {
        true => PROGRESS_CANCEL,
        false => PROGRESS_CONTINUE,
    }
}

/// Copy the file at `from` to a new file at `to` (never over one that exists:
/// COPY_FILE_FAIL_IF_EXISTS), counting its bytes as they move, cancelled by the stop.
pub fn copy_file_ex(from: &Path, to: &Path, c: &dyn Progress, stop: &AtomicBool) -> io::Result<()> {
    let (f, t) = (wide(from), wide(to));
    let mut watch = Watch { c, stop, moved: 0 };
    // SAFETY: NUL-terminated wide paths; the routine's data is `watch`, which outlives the
    // call; no cancel flag (the routine cancels).
    let ok = unsafe {
        CopyFileExW(
            f.as_ptr(),
            t.as_ptr(),
            Some(progress),
            (&mut watch as *mut Watch).cast(),
            std::ptr::null_mut(),
            COPY_FILE_FAIL_IF_EXISTS,
        )
    };
    if ok == 0 {
        return Err(match stop.load(Ordering::Relaxed) {
            true => stopped(),
            false => io::Error::last_os_error(),
        });
    }
    // The routine may not have been told every byte (Wine's CopyFileExW never calls it): what
    // it was not told is counted from the new file's length, which the copy made whole.
    let len = std::fs::metadata(to)?.len();
    if len > watch.moved {
        c.read(len - watch.moved);
        c.wrote(len - watch.moved);
    }
    Ok(())
}

/// The cluster size of the volume that holds `path`: block clones go by whole clusters.
fn cluster_of(path: &Path) -> io::Result<u64> {
    let w = wide(path);
    let mut root = vec![0u16; 1024];
    // SAFETY: a NUL-terminated path; the buffer's length in characters is given.
    if unsafe { GetVolumePathNameW(w.as_ptr(), root.as_mut_ptr(), root.len() as u32) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let (mut sectors, mut bytes, mut free, mut total) = (0u32, 0u32, 0u32, 0u32);
    // SAFETY: the root is NUL-terminated by the call above; each output is ours.
    let ok = unsafe {
        GetDiskFreeSpaceW(
            root.as_ptr(),
            &mut sectors,
            &mut bytes,
            &mut free,
            &mut total,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((u64::from(sectors) * u64::from(bytes)).max(512))
}

/// Clone `from`'s clusters into `to` (new and empty, at `to_path`), ReFS's block cloning: `to`
/// is sized first, then FSCTL_DUPLICATE_EXTENTS_TO_FILE maps the source's clusters into it a
/// gigabyte at a time, the last range rounded up to a whole cluster (the file's end stays
/// where it was set). Copied::Refused where the volume refuses it before anything was cloned
/// (NTFS, FAT, Wine: ERROR_INVALID_FUNCTION, ERROR_NOT_SUPPORTED): the caller copies instead.
pub fn clone_blocks(
    from: &File,
    to: &File,
    to_path: &Path,
    c: &dyn Progress,
    stop: &AtomicBool,
) -> io::Result<Copied> {
    let size = from.metadata()?.len();
    to.set_len(size)?;
    let cluster = match cluster_of(to_path) {
        Ok(n) => n,
        Err(e) => return Ok(refused(&e)),
    };
    let mut at = 0u64;
    while at < size {
        let n = (size - at).min(CLONE_BYTES).next_multiple_of(cluster);
        if let Err(e) = duplicate(from, to, at, n) {
            if at == 0 {
                to.set_len(0)?;
                return Ok(refused(&e));
            }
            return Err(e);
        }
        let moved = n.min(size - at);
        c.read(moved);
        c.wrote(moved);
        at += moved;
        if stop.load(Ordering::Relaxed) {
            return Err(stopped());
        }
    }
    Ok(Copied::Done)
}

fn refused(e: &io::Error) -> Copied {
    Copied::Refused(format!(
        "the volume refused block cloning (FSCTL_DUPLICATE_EXTENTS_TO_FILE: {e}): those files \
         were copied by read and write"
    ))
}

fn duplicate(from: &File, to: &File, at: u64, n: u64) -> io::Result<()> {
    let d = DUPLICATE_EXTENTS_DATA {
        FileHandle: handle(raw(from)),
        SourceFileOffset: at as i64,
        TargetFileOffset: at as i64,
        ByteCount: n as i64,
    };
    let mut returned = 0u32;
    // SAFETY: the input is the struct we own, its size given; no output; synchronous handle.
    let ok = unsafe {
        DeviceIoControl(
            handle(raw(to)),
            FSCTL_DUPLICATE_EXTENTS_TO_FILE,
            (&d as *const DUPLICATE_EXTENTS_DATA).cast(),
            std::mem::size_of::<DUPLICATE_EXTENTS_DATA>() as u32,
            std::ptr::null_mut(),
            0,
            &mut returned,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
