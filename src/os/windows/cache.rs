//! Windows: every cache emptied as WinFsp's fsbench empties it (administrator): the system file
//! cache's working set flushed with SetSystemFileCacheSize(-1, -1), then the modified page list
//! written and the standby list purged (NtSetSystemInformation, SystemMemoryListInformation).
//! Otherwise a file's cached pages let go by opening it unbuffered (FILE_FLAG_NO_BUFFERING: the
//! cache manager flushes and purges a file opened so).

use crate::os::cache::CacheDrop;
use std::fs::File;
use std::io;

impl CacheDrop {
    pub fn describe(self) -> &'static str {
        match self {
            CacheDrop::DropCaches => {
                "caches emptied before each measurement: the system file cache's working set \
                 (SetSystemFileCacheSize -1, -1), then the modified list written and the \
                 standby list purged (NtSetSystemInformation)"
            }
            CacheDrop::Fadvise => {
                "caches emptied before each measurement by an unbuffered open \
                 (FILE_FLAG_NO_BUFFERING) of the data files only (emptying the whole system \
                 cache needs an administrator's SeIncreaseQuotaPrivilege and \
                 SeProfileSingleProcessPrivilege, or was refused); folder and metadata caches \
                 stay warm"
            }
            CacheDrop::None => "caches not dropped (--no-drop-caches)",
        }
    }
}

fn not_yet(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("{what} is not yet done on Windows"),
    )
}

/// Flushing a whole volume needs a volume handle (administrator): not yet done on Windows.
pub fn sync_fs(_path: &std::path::Path) -> io::Result<()> {
    Err(not_yet("flushing a whole volume"))
}

/// Let the system cache go of `f`'s clean pages: an unbuffered handle opened on it and closed
/// (dirty pages are the caller's to write first, as on Linux: `CacheDrop::apply` does).
pub fn drop_file(f: &File) -> io::Result<()> {
    let how = crate::os::file::How {
        write: false,
        direct: true,
        write_through: false,
        overlapped: false,
        remote_uncached: false,
    };
    let h = super::file::reopen(super::raw(f), how)?;
    super::file::close_raw(h);
    Ok(())
}

/// Whether this process may empty every cache: both privileges enabled, and one emptying
/// done (a system that refuses the calls, as Wine does, is found here, not mid-suite).
pub fn can_drop_all() -> bool {
    drop_all().is_ok()
}

/// The privileges the calls need, enabled on this process's token: SeIncreaseQuotaPrivilege
/// for SetSystemFileCacheSize, SeProfileSingleProcessPrivilege for the memory lists.
fn enable_privileges() -> io::Result<()> {
    super::privilege::enable("SeIncreaseQuotaPrivilege")?;
    super::privilege::enable("SeProfileSingleProcessPrivilege")
}

/// NtSetSystemInformation's class for the memory lists, and its commands.
const SYSTEM_MEMORY_LIST_INFORMATION: i32 = 80;
const MEMORY_FLUSH_MODIFIED_LIST: u32 = 3;
const MEMORY_PURGE_STANDBY_LIST: u32 = 4;

/// Empty the system file cache's working set, write the modified list, purge the standby list.
pub fn drop_all() -> io::Result<()> {
    use windows_sys::Win32::System::Memory::SetSystemFileCacheSize;
    enable_privileges()?;
    // SAFETY: -1, -1 asks the cache manager to trim the file cache's working set; no memory
    // is passed.
    if unsafe { SetSystemFileCacheSize(usize::MAX, usize::MAX, 0) } == 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("SetSystemFileCacheSize(-1, -1): {e}"),
        ));
    }
    memory_list(MEMORY_FLUSH_MODIFIED_LIST, "writing the modified page list")?;
    memory_list(MEMORY_PURGE_STANDBY_LIST, "purging the standby list")
}

/// One command on the system's memory lists, through ntdll's NtSetSystemInformation (found at
/// run time: no import library declares it).
fn memory_list(command: u32, what: &str) -> io::Result<()> {
    use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
    type SetInfo = unsafe extern "system" fn(i32, *const core::ffi::c_void, u32) -> i32;
    let ntdll: Vec<u16> = "ntdll.dll\0".encode_utf16().collect();
    // SAFETY: ntdll is loaded in every process; the names are NUL-terminated.
    let f = unsafe {
        let m = GetModuleHandleW(ntdll.as_ptr());
        GetProcAddress(m, c"NtSetSystemInformation".as_ptr().cast())
    };
    let Some(f) = f else {
        return Err(not_yet("NtSetSystemInformation"));
    };
    // SAFETY: the function has this signature (NTSTATUS NtSetSystemInformation(class, buffer,
    // length)); the command is a u32 we own for the call.
    let status = unsafe {
        let set: SetInfo = std::mem::transmute(f);
        set(
            SYSTEM_MEMORY_LIST_INFORMATION,
            (&command as *const u32).cast(),
            4,
        )
    };
    match status {
        0 => Ok(()),
        s => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{what} was refused (NTSTATUS {:#010x})", s as u32),
        )),
    }
}

/// Windows does not say how much of a file is cached (there is no mincore or cachestat).
pub fn resident(_f: &File) -> io::Result<(u64, u64)> {
    Err(not_yet("counting a file's cached pages"))
}
