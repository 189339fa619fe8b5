//! Windows' facts: the registry (Windows' version, the CPU's name), GlobalMemoryStatusEx, the
//! volume holding a path (GetVolumePathNameW, GetVolumeInformationW: its file system), free
//! space (GetDiskFreeSpaceExW), the drive under it (IOCTL_STORAGE_QUERY_PROPERTY: vendor
//! and product, and whether it pays a seek penalty: rotational), and for a file on a share the
//! protocol the client reaches it by (FILE_REMOTE_PROTOCOL_INFO: SMB's dialect, encryption,
//! multichannel).

use super::{handle, wide};
use crate::os::facts::{Device, Mount, Remote, System};
use std::fs::File;
use std::path::Path;
use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE};
use windows_sys::Win32::Storage::FileSystem::{
    CreateFileW, GetDiskFreeSpaceExW, GetVolumeInformationW, GetVolumePathNameW, OPEN_EXISTING,
};
use windows_sys::Win32::System::Ioctl::{
    PropertyStandardQuery, StorageDeviceProperty, StorageDeviceSeekPenaltyProperty,
    DEVICE_SEEK_PENALTY_DESCRIPTOR, IOCTL_STORAGE_QUERY_PROPERTY, STORAGE_PROPERTY_QUERY,
};
use windows_sys::Win32::System::Registry::{
    RegGetValueW, HKEY_LOCAL_MACHINE, RRF_RT_REG_DWORD, RRF_RT_REG_SZ,
};
use windows_sys::Win32::System::IO::DeviceIoControl;

fn w(s: &str) -> Vec<u16> {
    s.encode_utf16().chain(std::iter::once(0)).collect()
}

/// A wide buffer up to its NUL, as text.
fn text(buf: &[u16]) -> String {
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    String::from_utf16_lossy(&buf[..end])
}

fn reg_text(key: &str, value: &str) -> Option<String> {
    let mut buf = [0u16; 256];
    let mut len = (buf.len() * 2) as u32;
    let (k, v) = (w(key), w(value));
    // SAFETY: NUL-terminated names; the output buffer's size in bytes is given.
    let r = unsafe {
        RegGetValueW(
            HKEY_LOCAL_MACHINE,
            k.as_ptr(),
            v.as_ptr(),
            RRF_RT_REG_SZ,
            std::ptr::null_mut(),
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    (r == 0).then(|| text(&buf).trim().to_string())
}

fn reg_number(key: &str, value: &str) -> Option<u32> {
    let mut n = 0u32;
    let mut len = 4u32;
    let (k, v) = (w(key), w(value));
    // SAFETY: as `reg_text`, into a u32.
    let r = unsafe {
        RegGetValueW(
            HKEY_LOCAL_MACHINE,
            k.as_ptr(),
            v.as_ptr(),
            RRF_RT_REG_DWORD,
            std::ptr::null_mut(),
            (&mut n as *mut u32).cast(),
            &mut len,
        )
    };
    (r == 0).then_some(n)
}

const CURRENT: &str = r"SOFTWARE\Microsoft\Windows NT\CurrentVersion";

pub fn system() -> System {
    let version = match (
        reg_number(CURRENT, "CurrentMajorVersionNumber"),
        reg_number(CURRENT, "CurrentMinorVersionNumber"),
        reg_text(CURRENT, "CurrentBuildNumber"),
    ) {
        (Some(a), Some(b), Some(c)) => format!("Windows {a}.{b}.{c}"),
        (_, _, Some(c)) => format!("Windows build {c}"),
        _ => "Windows".to_string(),
    };
    System {
        hostname: std::env::var("COMPUTERNAME").unwrap_or_default(),
        kernel: version,
        cpu_model: reg_text(
            r"HARDWARE\DESCRIPTION\System\CentralProcessor\0",
            "ProcessorNameString",
        ),
    }
}

/// The physical memory (GlobalMemoryStatusEx).
pub fn memory_bytes() -> Option<u64> {
    use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
    let mut m: MEMORYSTATUSEX = unsafe { std::mem::zeroed() };
    m.dwLength = std::mem::size_of::<MEMORYSTATUSEX>() as u32;
    // SAFETY: fills the struct we own, its length set.
    (unsafe { GlobalMemoryStatusEx(&mut m) } != 0).then_some(m.ullTotalPhys)
}

/// Windows keeps FILE_FLAG_NO_BUFFERING or refuses the open: it is never dropped silently.
/// (Wine accepts the flag and ignores it; Wine is not Windows.)
pub fn direct_kept(_file: &File) -> bool {
    true
}

/// The volume holding `path` (C:\, a mounted folder, \\server\share\) and its file system.
pub fn mount_of(path: &Path) -> Option<Mount> {
    let mut root = [0u16; 1024];
    let p = wide(path);
    // SAFETY: a NUL-terminated path; the output's size in characters is given.
    if unsafe { GetVolumePathNameW(p.as_ptr(), root.as_mut_ptr(), root.len() as u32) } == 0 {
        return None;
    }
    let mut label = [0u16; 261];
    let mut fs = [0u16; 261];
    let (mut serial, mut max, mut flags) = (0u32, 0u32, 0u32);
    // SAFETY: a NUL-terminated root; each output's size in characters is given.
    let ok = unsafe {
        GetVolumeInformationW(
            root.as_ptr(),
            label.as_mut_ptr(),
            label.len() as u32,
            &mut serial,
            &mut max,
            &mut flags,
            fs.as_mut_ptr(),
            fs.len() as u32,
        )
    };
    // A verbatim path (\\?\C:\, \\?\UNC\server\share\) is shown as users write it.
    let root = text(&root);
    let mount_point = match root.strip_prefix(r"\\?\UNC\") {
        Some(share) => format!(r"\\{share}"),
        None => root.strip_prefix(r"\\?\").unwrap_or(&root).to_string(),
    };
    Some(Mount {
        fs_type: if ok != 0 { text(&fs) } else { String::new() },
        source: if mount_point.starts_with(r"\\") {
            mount_point.clone()
        } else {
            text(&label)
        },
        mount_point,
        options: if ok != 0 {
            format!("serial={serial:08X},flags={flags:#x}")
        } else {
            String::new()
        },
    })
}

pub fn fs_type_of(path: &Path) -> Option<String> {
    mount_of(path).map(|m| m.fs_type).filter(|t| !t.is_empty())
}

/// Bytes free to this user on the volume holding `dir`.
pub fn free_space(dir: &Path) -> Option<u64> {
    let p = wide(dir);
    let mut free = 0u64;
    // SAFETY: a NUL-terminated path; writes the number we own.
    let ok = unsafe {
        GetDiskFreeSpaceExW(
            p.as_ptr(),
            &mut free,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    (ok != 0).then_some(free)
}

/// The drive under `file`: the volume's own device (\\.\C:) asked for its vendor and product
/// and its seek penalty. Nothing for a share.
pub fn device_of(file: &File, is_block_device: bool, mount: Option<&Mount>) -> Device {
    let volume = match (is_block_device, mount) {
        (true, _) => None,
        (false, Some(m)) if m.mount_point.len() >= 2 && m.mount_point.as_bytes()[1] == b':' => {
            Some(format!(r"\\.\{}", &m.mount_point[..2]))
        }
        _ => return Device::default(),
    };
    let opened = volume.as_deref().map(open_device);
    let h = match &opened {
        Some(Some(h)) => *h,
        Some(None) => return Device::default(),
        None => super::raw(file),
    };
    let (name, model) = describe(h);
    let rotational = seek_penalty(h);
    if let Some(Some(h)) = opened {
        // SAFETY: opened above, closed once.
        unsafe { CloseHandle(handle(h)) };
    }
    Device {
        name: volume.or(name),
        model,
        rotational,
        ..Device::default()
    }
}

/// A device opened for queries only (no access asked: no administrator needed).
pub(crate) fn open_device(path: &str) -> Option<super::RawHandle> {
    let p = w(path);
    // SAFETY: a NUL-terminated path; the handle is the caller's.
    let h = unsafe {
        CreateFileW(
            p.as_ptr(),
            0,
            super::file::SHARE_ALL,
            std::ptr::null(),
            OPEN_EXISTING,
            0,
            std::ptr::null_mut(),
        )
    };
    (h != INVALID_HANDLE_VALUE).then_some(h as super::RawHandle)
}

fn query(h: super::RawHandle, property: i32, out: &mut [u8]) -> bool {
    let q = STORAGE_PROPERTY_QUERY {
        PropertyId: property,
        QueryType: PropertyStandardQuery,
        AdditionalParameters: [0],
    };
    let mut got = 0u32;
    // SAFETY: the query is ours, the output buffer's size is given.
    unsafe {
        DeviceIoControl(
            handle(h),
            IOCTL_STORAGE_QUERY_PROPERTY,
            (&q as *const STORAGE_PROPERTY_QUERY).cast(),
            std::mem::size_of::<STORAGE_PROPERTY_QUERY>() as u32,
            out.as_mut_ptr().cast(),
            out.len() as u32,
            &mut got,
            std::ptr::null_mut(),
        ) != 0
    }
}

/// The drive's vendor and product (STORAGE_DEVICE_DESCRIPTOR's strings).
fn describe(h: super::RawHandle) -> (Option<String>, Option<String>) {
    let mut buf = [0u8; 1024];
    if !query(h, StorageDeviceProperty, &mut buf) {
        return (None, None);
    }
    let at = |field: usize| {
        let off = u32::from_le_bytes(buf[field..field + 4].try_into().ok()?) as usize;
        let s = buf.get(off..)?;
        let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
        let t = String::from_utf8_lossy(&s[..end]).trim().to_string();
        (off != 0 && !t.is_empty()).then_some(t)
    };
    // STORAGE_DEVICE_DESCRIPTOR: VendorIdOffset at 12, ProductIdOffset at 16.
    let model = match (at(12), at(16)) {
        (Some(v), Some(p)) => Some(format!("{v} {p}")),
        (v, p) => p.or(v),
    };
    (None, model)
}

fn seek_penalty(h: super::RawHandle) -> Option<bool> {
    let mut buf = [0u8; std::mem::size_of::<DEVICE_SEEK_PENALTY_DESCRIPTOR>()];
    query(h, StorageDeviceSeekPenaltyProperty, &mut buf).then(|| buf[8] != 0)
}

/// The protocol `file` is reached by, where it is on a share (GetFileInformationByHandleEx's
/// FileRemoteProtocolInfo); None for a local file, which the system answers with an error.
pub fn remote_of(file: &File) -> Option<Remote> {
    use windows_sys::Win32::Storage::FileSystem::{
        FileRemoteProtocolInfo, GetFileInformationByHandleEx,
    };
    // FILE_REMOTE_PROTOCOL_INFO is 180 bytes; u32s keep it aligned.
    let mut buf = [0u32; 45];
    // SAFETY: an open handle; the output buffer is ours, its size in bytes given.
    let ok = unsafe {
        GetFileInformationByHandleEx(
            handle(super::raw(file)),
            FileRemoteProtocolInfo,
            buf.as_mut_ptr().cast(),
            std::mem::size_of_val(&buf) as u32,
        )
    };
    if ok == 0 {
        return None;
    }
    let bytes: Vec<u8> = buf.iter().flat_map(|w| w.to_le_bytes()).collect();
    crate::os::facts::parse_remote_protocol(&bytes)
}
