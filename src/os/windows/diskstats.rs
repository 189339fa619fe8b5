//! Windows: the disks' counters, from IOCTL_DISK_PERFORMANCE (DISK_PERFORMANCE) on the
//! physical drives under each target's volume (IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS), else on
//! the volume itself. Each is opened for queries only (no access asked), which needs no
//! administrator. Their arithmetic is the system-neutral `os::diskstats::DiskPerf`.
//!
//! A target whose disk cannot be found or counted (a network share, a volume the system
//! refuses the ioctl on, as Wine does) gets a one-line reason ([`Disks::not_read`]), never a
//! disk of zeros.

use super::{facts, handle, RawHandle};
use crate::os::diskstats::{DiskPerf, DiskUtil};
use std::path::Path;
use std::time::Instant;
use windows_sys::Win32::Foundation::CloseHandle;
use windows_sys::Win32::Storage::FileSystem::IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS;
use windows_sys::Win32::System::Ioctl::{DISK_EXTENT, DISK_PERFORMANCE, IOCTL_DISK_PERFORMANCE};
use windows_sys::Win32::System::IO::DeviceIoControl;

/// A device opened for queries, closed when dropped.
pub(crate) struct PerfDisk {
    /// As reports name it: PhysicalDrive0, or the volume (C:) where no drive was found.
    pub name: String,
    /// Its path: \\.\PhysicalDrive0, \\.\C:.
    pub path: String,
    h: RawHandle,
}

impl Drop for PerfDisk {
    fn drop(&mut self) {
        // SAFETY: opened by `open`, closed once here.
        unsafe { CloseHandle(handle(self.h)) };
    }
}

impl PerfDisk {
    fn open(name: String, path: String) -> Result<PerfDisk, String> {
        let h = facts::open_device(&path)
            .ok_or_else(|| format!("cannot open {path} ({})", last_error()))?;
        let d = PerfDisk { name, path, h };
        match d.read() {
            Ok(_) => Ok(d),
            Err(e) => Err(format!("IOCTL_DISK_PERFORMANCE on {} failed ({e})", d.path)),
        }
    }

    /// Its counters now.
    pub fn read(&self) -> Result<DiskPerf, String> {
        let mut p = DISK_PERFORMANCE::default();
        let mut got = 0u32;
        // SAFETY: no input; the output is the struct we own, its size given.
        let ok = unsafe {
            DeviceIoControl(
                handle(self.h),
                IOCTL_DISK_PERFORMANCE,
                std::ptr::null(),
                0,
                (&mut p as *mut DISK_PERFORMANCE).cast(),
                std::mem::size_of::<DISK_PERFORMANCE>() as u32,
                &mut got,
                std::ptr::null_mut(),
            )
        };
        if ok == 0 {
            return Err(last_error());
        }
        let u = |v: i64| v.max(0) as u64;
        Ok(DiskPerf {
            bytes: [u(p.BytesRead), u(p.BytesWritten)],
            time: [u(p.ReadTime), u(p.WriteTime)],
            idle: u(p.IdleTime),
            count: [p.ReadCount, p.WriteCount],
            queue_depth: p.QueueDepth,
            query_time: u(p.QueryTime),
        })
    }
}

/// The last Win32 error as winerror.h names it.
pub(crate) fn last_error() -> String {
    let code = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
    super::error::NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map_or_else(|| format!("Win32 error {code}"), |(_, n)| n.to_string())
}

/// The disks under some targets, and why a target has none.
#[derive(Default)]
pub(crate) struct Disks {
    pub disks: Vec<PerfDisk>,
    pub not_read: Vec<String>,
}

/// The disks under `paths`, each once, in the order first met.
pub(crate) fn disks_under<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Disks {
    let mut out = Disks::default();
    let mut volumes: Vec<String> = Vec::new();
    for p in paths {
        let Some(root) = existing(p).and_then(|e| facts::mount_of(&e)) else {
            continue;
        };
        let volume = root.mount_point;
        if volumes.contains(&volume) {
            continue;
        }
        volumes.push(volume.clone());
        if volume.starts_with(r"\\") {
            out.not_read.push(format!(
                "{volume} is a network share: no disk of this machine to count"
            ));
            continue;
        }
        match disks_of_volume(&volume) {
            Ok(found) => {
                for d in found {
                    if !out.disks.iter().any(|x| x.path == d.path) {
                        out.disks.push(d);
                    }
                }
            }
            Err(e) => out
                .not_read
                .push(format!("the disk counters of {volume} cannot be read: {e}")),
        }
    }
    out
}

/// `path`, or its nearest folder that exists (a file not made yet).
fn existing(path: &Path) -> Option<std::path::PathBuf> {
    let mut at = std::path::absolute(path).ok()?;
    while std::fs::metadata(&at).is_err() {
        at = at.parent()?.to_path_buf();
    }
    Some(at)
}

/// The drives a volume (C:\, or a folder it is mounted on) lies on, else the volume itself.
fn disks_of_volume(root: &str) -> Result<Vec<PerfDisk>, String> {
    let (name, path) = volume_device(root)?;
    let volume = facts::open_device(&path)
        .ok_or_else(|| format!("cannot open {path} ({})", last_error()))?;
    let numbers = disk_numbers(volume);
    // SAFETY: opened above, closed once.
    unsafe { CloseHandle(handle(volume)) };
    let drives: Vec<PerfDisk> = numbers
        .iter()
        .filter_map(|n| {
            PerfDisk::open(
                format!("PhysicalDrive{n}"),
                format!(r"\\.\PhysicalDrive{n}"),
            )
            .ok()
        })
        .collect();
    match drives.is_empty() {
        true => PerfDisk::open(name, path).map(|d| vec![d]),
        false => Ok(drives),
    }
}

/// The device of a volume's root: \\.\C: for a drive letter, else its \\?\Volume{GUID}.
fn volume_device(root: &str) -> Result<(String, String), String> {
    let b = root.as_bytes();
    if b.len() >= 2 && b[1] == b':' {
        let letter = &root[..2];
        return Ok((letter.to_string(), format!(r"\\.\{letter}")));
    }
    use windows_sys::Win32::Storage::FileSystem::GetVolumeNameForVolumeMountPointW;
    let mut at: Vec<u16> = root.encode_utf16().collect();
    if at.last() != Some(&u16::from(b'\\')) {
        at.push(u16::from(b'\\'));
    }
    at.push(0);
    let mut buf = [0u16; 64];
    // SAFETY: a NUL-terminated mount point; the output's size in characters is given.
    if unsafe { GetVolumeNameForVolumeMountPointW(at.as_ptr(), buf.as_mut_ptr(), buf.len() as u32) }
        == 0
    {
        return Err(format!("no volume found at {root}: {}", last_error()));
    }
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    // The device is the name without its trailing backslash (that would be its root folder).
    let guid = String::from_utf16_lossy(&buf[..end])
        .trim_end_matches('\\')
        .to_string();
    Ok((root.trim_end_matches('\\').to_string(), guid))
}

/// The numbers of the physical drives a volume's extents lie on; none where it cannot say.
fn disk_numbers(volume: RawHandle) -> Vec<u32> {
    // VOLUME_DISK_EXTENTS: a count (padded to 8) then DISK_EXTENTs; room for 32 of them.
    let ext = std::mem::size_of::<DISK_EXTENT>();
    let mut buf = vec![0u64; (8 + 32 * ext) / 8];
    let mut got = 0u32;
    // SAFETY: no input; the output buffer is ours, its size in bytes given.
    let ok = unsafe {
        DeviceIoControl(
            handle(volume),
            IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS,
            std::ptr::null(),
            0,
            buf.as_mut_ptr().cast(),
            (buf.len() * 8) as u32,
            &mut got,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Vec::new();
    }
    // SAFETY: the buffer is u64-aligned and `got` bytes of it were written.
    let bytes = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), got as usize) };
    let n = bytes
        .get(..4)
        .map_or(0, |b| u32::from_le_bytes(b.try_into().unwrap_or_default()));
    let mut v: Vec<u32> = (0..n as usize)
        .filter_map(|i| {
            let at = 8 + i * ext;
            Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        })
        .collect();
    v.dedup();
    v
}

/// The disks under some files, their counters read when watching began.
pub struct Watch {
    disks: Vec<(PerfDisk, DiskPerf)>,
    since: Instant,
}

impl Watch {
    pub fn start<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Watch {
        let disks = disks_under(paths)
            .disks
            .into_iter()
            .filter_map(|d| {
                let c = d.read().ok()?;
                Some((d, c))
            })
            .collect();
        Watch {
            disks,
            since: Instant::now(),
        }
    }

    /// fio's disk_util entries for the time since `start`.
    pub fn finish(self) -> Vec<DiskUtil> {
        let ns = self.since.elapsed().as_nanos() as u64;
        self.disks
            .iter()
            .map(|(d, before)| {
                let now = d.read().unwrap_or(*before);
                now.since(before, ns).disk_util(&d.name)
            })
            .collect()
    }
}
