//! The Windows port of the platform layer (see `os/mod.rs` for the interface): HANDLEs, Win32
//! error codes, CreateFileW and overlapped I/O, volumes and physical drives, processor groups.
//!
//! What Windows cannot do the way a job asks (memory cgroups, memory policies, I/O priorities
//! per thread, emptying every cache: not yet) is answered with an error that says so.

pub mod cache;
pub mod cgroup;
pub mod copy;
pub mod cpu;
pub mod dir;
pub mod diskstats;
pub mod error;
pub mod extents;
pub mod facts;
pub mod file;
pub mod ioprio;
pub mod limits;
pub mod mapping;
pub mod memcg;
pub mod meta;
pub mod numa;
pub mod owned;
pub mod privilege;
pub mod process;
pub mod resolve;
pub mod signals;
pub mod topology;
pub mod vitals;

use std::os::windows::io::AsRawHandle;

/// A HANDLE's value: an integer, so that it is `Send` and `Copy` as a descriptor is.
pub type RawHandle = isize;

#[inline]
pub fn raw(file: &std::fs::File) -> RawHandle {
    file.as_raw_handle() as RawHandle
}

/// The HANDLE of a [`RawHandle`].
#[inline]
pub(crate) fn handle(h: RawHandle) -> windows_sys::Win32::Foundation::HANDLE {
    h as windows_sys::Win32::Foundation::HANDLE
}

pub fn page_size() -> u64 {
    use windows_sys::Win32::System::SystemInformation::{GetSystemInfo, SYSTEM_INFO};
    let mut info: SYSTEM_INFO = unsafe { std::mem::zeroed() };
    // SAFETY: GetSystemInfo fills the struct we own.
    unsafe { GetSystemInfo(&mut info) };
    match info.dwPageSize {
        0 => 4096,
        p => p as u64,
    }
}

/// `path` as the wide, NUL-terminated string the W calls take. A long absolute path gets the
/// `\\?\` prefix (`\\?\UNC\` for a share), which lifts MAX_PATH, as std does for its own calls.
pub(crate) fn wide(path: &std::path::Path) -> Vec<u16> {
    use std::os::windows::ffi::OsStrExt;
    // A long relative path is made absolute first: only an absolute one can carry the prefix.
    let absolute;
    let path = match path.as_os_str().len() >= 248 && !path.is_absolute() {
        true => {
            absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            absolute.as_path()
        }
        false => path,
    };
    let s = path.as_os_str();
    let plain: Vec<u16> = s.encode_wide().collect();
    let text = path.to_string_lossy();
    let mut out: Vec<u16> =
        if plain.len() < 248 || text.starts_with(r"\\?\") || text.starts_with(r"\\.\") {
            plain
        } else if let Some(share) = text.strip_prefix(r"\\") {
            r"\\?\UNC\"
                .encode_utf16()
                .chain(share.encode_utf16())
                .collect()
        } else if path.is_absolute() {
            r"\\?\".encode_utf16().chain(plain).collect()
        } else {
            plain
        };
    out.push(0);
    out
}

/// Whether this runs under Wine (its ntdll exports `wine_get_version`), which emulates some
/// calls differently from Windows (creation times, unbuffered I/O): said where it matters.
pub fn under_wine() -> bool {
    use std::sync::OnceLock;
    use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
    static WINE: OnceLock<bool> = OnceLock::new();
    *WINE.get_or_init(|| {
        let ntdll: Vec<u16> = "ntdll.dll\0".encode_utf16().collect();
        // SAFETY: ntdll is loaded in every process; the name is NUL-terminated.
        unsafe {
            let m = GetModuleHandleW(ntdll.as_ptr());
            !m.is_null() && GetProcAddress(m, c"wine_get_version".as_ptr().cast()).is_some()
        }
    })
}

pub fn data_home() -> Result<std::path::PathBuf, &'static str> {
    std::env::var_os("LOCALAPPDATA")
        .filter(|v| !v.is_empty())
        .map(Into::into)
        .ok_or("LOCALAPPDATA is not set")
}
