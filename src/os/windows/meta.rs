//! Windows' metadata calls for [`MetaOp`], as WinFsp's fsbench makes them: CreateFileW with
//! the disposition each needs (and CloseHandle), GetFileInformationByHandleEx for a stat,
//! MoveFileExW, DeleteFileW, CreateDirectoryW, RemoveDirectoryW.

use crate::os::file::Name;
use crate::os::meta::MetaOp;
use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE};
use windows_sys::Win32::Storage::FileSystem::{
    CreateDirectoryW, CreateFileW, DeleteFileW, FileStandardInfo, GetFileInformationByHandleEx,
    RemoveDirectoryW, CREATE_ALWAYS, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, FILE_FLAG_BACKUP_SEMANTICS,
    FILE_STANDARD_INFO, OPEN_EXISTING,
};

const GENERIC_READ: u32 = 0x8000_0000;
const GENERIC_WRITE: u32 = 0x4000_0000;
const FILE_READ_ATTRIBUTES: u32 = 0x80;

impl MetaOp {
    /// Do the operation once on a full path (the file-operation engines). False on failure,
    /// with the thread's last error set. Renames are the fs suite's (not yet on Windows).
    #[inline]
    pub fn on_path(self, name: &Name) -> bool {
        let open = |access: u32, disposition: u32, flags: u32| {
            // SAFETY: a NUL-terminated wide path; the handle is closed by the caller below.
            unsafe {
                CreateFileW(
                    name.as_ptr(),
                    access,
                    super::file::SHARE_ALL,
                    std::ptr::null(),
                    disposition,
                    flags,
                    std::ptr::null_mut(),
                )
            }
        };
        // SAFETY (all arms): calls on a NUL-terminated wide path, or on a handle just opened
        // and closed at once; the stat's output is a struct we own, its size given.
        unsafe {
            match self {
                MetaOp::Create | MetaOp::Open | MetaOp::Overwrite => {
                    let (access, disposition) = match self {
                        MetaOp::Create => (GENERIC_WRITE, CREATE_NEW),
                        MetaOp::Overwrite => (GENERIC_WRITE, CREATE_ALWAYS),
                        _ => (GENERIC_READ, OPEN_EXISTING),
                    };
                    let h = open(access, disposition, FILE_ATTRIBUTE_NORMAL);
                    h != INVALID_HANDLE_VALUE && CloseHandle(h) != 0
                }
                MetaOp::Stat => {
                    let h = open(
                        FILE_READ_ATTRIBUTES,
                        OPEN_EXISTING,
                        FILE_FLAG_BACKUP_SEMANTICS,
                    );
                    if h == INVALID_HANDLE_VALUE {
                        return false;
                    }
                    let mut info: FILE_STANDARD_INFO = std::mem::zeroed();
                    let ok = GetFileInformationByHandleEx(
                        h,
                        FileStandardInfo,
                        (&mut info as *mut FILE_STANDARD_INFO).cast(),
                        std::mem::size_of::<FILE_STANDARD_INFO>() as u32,
                    ) != 0;
                    CloseHandle(h);
                    ok
                }
                MetaOp::Delete => DeleteFileW(name.as_ptr()) != 0,
                MetaOp::Mkdir => CreateDirectoryW(name.as_ptr(), std::ptr::null()) != 0,
                MetaOp::Rmdir => RemoveDirectoryW(name.as_ptr()) != 0,
                MetaOp::Rename => {
                    windows_sys::Win32::Foundation::SetLastError(
                        crate::os::error::UNSUPPORTED as u32,
                    );
                    false
                }
            }
        }
    }
}
