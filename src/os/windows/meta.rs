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
    /// with the thread's last error set. Renames are the fs suite's ([`Folder::apply`]).
    #[inline]
    pub fn on_path(self, name: &Name) -> bool {
        self.on_wide(name.as_ptr())
    }

    /// As [`MetaOp::on_path`], on a NUL-terminated wide path.
    #[inline]
    fn on_wide(self, name: *const u16) -> bool {
        let open = |access: u32, disposition: u32, flags: u32| {
            // SAFETY: a NUL-terminated wide path; the handle is closed by the caller below.
            unsafe {
                CreateFileW(
                    name,
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
                MetaOp::Delete => DeleteFileW(name) != 0,
                MetaOp::Mkdir => CreateDirectoryW(name, std::ptr::null()) != 0,
                MetaOp::Rmdir => RemoveDirectoryW(name) != 0,
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

/// A folder the fs suite works in: its full path, to which each name is appended, as WinFsp's
/// fsbench names its files (Windows has no calls relative to an open folder in Win32).
pub struct Folder {
    /// The folder's path with a trailing `\`, no NUL; `\\?\`-prefixed where a name appended
    /// could pass MAX_PATH.
    path: Vec<u16>,
}

/// Full paths `<folder>\<prefix><n>`, NUL-terminated, formatted in place into a buffer made
/// once per loop. A rename's new name also keeps the FILE_RENAME_INFO that carries it.
pub struct Names {
    buf: Vec<u16>,
    base: usize,
    len: usize,
    rename: Vec<u64>,
}

/// Paths from here on may pass MAX_PATH once a name is appended: use the `\\?\` form.
const LONG_FROM: usize = 200;

impl Folder {
    pub fn open(path: &std::path::Path) -> std::io::Result<Folder> {
        let meta = std::fs::metadata(path)?;
        if !meta.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a folder",
            ));
        }
        let abs = std::path::absolute(path)?;
        let text = abs.to_string_lossy();
        let mut w: Vec<u16> = if text.len() < LONG_FROM || text.starts_with(r"\\?\") {
            text.encode_utf16().collect()
        } else if let Some(share) = text.strip_prefix(r"\\") {
            r"\\?\UNC\"
                .encode_utf16()
                .chain(share.encode_utf16())
                .collect()
        } else {
            r"\\?\".encode_utf16().chain(text.encode_utf16()).collect()
        };
        if w.last() != Some(&(b'\\' as u16)) {
            w.push(b'\\' as u16);
        }
        Ok(Folder { path: w })
    }

    /// A name buffer for `<prefix><n>` (`prefix` of at most 16 characters, no NUL).
    pub fn names(&self, prefix: &str) -> Names {
        assert!(prefix.len() <= 16 && !prefix.contains('\0'));
        let mut buf = Vec::with_capacity(self.path.len() + prefix.len() + 24);
        buf.extend_from_slice(&self.path);
        buf.extend(prefix.encode_utf16());
        let base = buf.len();
        buf.push(0);
        // FILE_RENAME_INFO's header and the longest name, in u64s so that it is aligned.
        let rename = Vec::with_capacity((24 + 2 * (base + 24)) / 8 + 1);
        Names {
            buf,
            base,
            len: base,
            rename,
        }
    }

    /// `op` once on `name` (`to`: a rename's new name). False on failure, the last error set.
    /// A rename is SetFileInformationByHandle(FileRenameInfo) on a handle opened for DELETE,
    /// as fsbench renames; the rest are [`MetaOp::on_path`]'s calls.
    #[inline]
    pub fn apply(&self, op: MetaOp, name: &Names, to: Option<&mut Names>) -> bool {
        match (op, to) {
            (MetaOp::Rename, Some(to)) => rename(name, to),
            _ => op.on_wide(name.buf.as_ptr()),
        }
    }

    /// A listing of the folder `sub` inside this one (None: this one itself), to be made many
    /// times ([`Lister::count`]).
    pub fn lister(&self, sub: Option<&str>) -> std::io::Result<Lister<'_>> {
        let mut pattern = self.path.clone();
        if let Some(sub) = sub {
            pattern.extend(sub.encode_utf16());
            pattern.push(b'\\' as u16);
        }
        pattern.extend([b'*' as u16, 0]);
        Ok(Lister {
            pattern,
            _folder: std::marker::PhantomData,
        })
    }
}

/// One folder's listing, made again and again by the fs suite's listing tests.
pub struct Lister<'a> {
    pattern: Vec<u16>,
    _folder: std::marker::PhantomData<&'a Folder>,
}

impl Lister<'_> {
    /// FindFirstFileExW (basic information, FIND_FIRST_EX_LARGE_FETCH, as fsbench lists),
    /// FindNextFileW to the end, FindClose: the entries besides "." and "..". `_buf` is
    /// Linux's getdents buffer; Windows fills a WIN32_FIND_DATAW per entry.
    pub fn count(&mut self, _buf: &mut [u8]) -> std::io::Result<u64> {
        use windows_sys::Win32::Foundation::{GetLastError, ERROR_NO_MORE_FILES};
        use windows_sys::Win32::Storage::FileSystem::{
            FindClose, FindExInfoBasic, FindExSearchNameMatch, FindFirstFileExW, FindNextFileW,
            FIND_FIRST_EX_LARGE_FETCH, WIN32_FIND_DATAW,
        };
        // SAFETY: a struct of plain fields, filled by the calls below.
        let mut data: WIN32_FIND_DATAW = unsafe { std::mem::zeroed() };
        // SAFETY: a NUL-terminated wide pattern; `data` is ours; the handle is closed below.
        let h = unsafe {
            FindFirstFileExW(
                self.pattern.as_ptr(),
                FindExInfoBasic,
                (&mut data as *mut WIN32_FIND_DATAW).cast(),
                FindExSearchNameMatch,
                std::ptr::null(),
                FIND_FIRST_EX_LARGE_FETCH,
            )
        };
        if h == INVALID_HANDLE_VALUE {
            return Err(std::io::Error::last_os_error());
        }
        let mut entries = 0u64;
        let outcome = loop {
            entries += u64::from(!is_dot(&data.cFileName));
            // SAFETY: the search handle is open; `data` is ours.
            if unsafe { FindNextFileW(h, &mut data) } == 0 {
                // SAFETY: reads this thread's last error.
                break match unsafe { GetLastError() } {
                    ERROR_NO_MORE_FILES => Ok(entries),
                    e => Err(std::io::Error::from_raw_os_error(e as i32)),
                };
            }
        };
        // SAFETY: closing our own search handle.
        unsafe { FindClose(h) };
        outcome
    }
}

/// "." or "..", NUL-terminated in a fixed array.
fn is_dot(name: &[u16]) -> bool {
    let dot = b'.' as u16;
    matches!(name, [d, 0, ..] if *d == dot)
        || matches!(name, [d, e, 0, ..] if *d == dot && *e == dot)
}

impl Names {
    /// Set the number after the prefix: its digits, then a NUL, over the last ones.
    #[inline]
    pub fn set(&mut self, n: u64) {
        let (digits, at) = crate::os::meta::decimal(n);
        self.buf.truncate(self.base);
        self.buf.extend(digits[at..].iter().map(|d| *d as u16));
        self.len = self.buf.len();
        self.buf.push(0);
    }

    /// The path as set, for messages.
    pub fn show(&self) -> String {
        String::from_utf16_lossy(&self.buf[..self.len])
    }

    /// The FILE_RENAME_INFO naming this path (no replace, no root: a full path), built into
    /// the buffer made with the names. Returns it and its size in bytes.
    fn rename_info(&mut self) -> (*const u8, u32) {
        use windows_sys::Win32::Storage::FileSystem::FILE_RENAME_INFO;
        let head = std::mem::offset_of!(FILE_RENAME_INFO, FileName);
        let name_bytes = 2 * self.len;
        let size = head + name_bytes + 2;
        self.rename.clear();
        self.rename.resize(size.div_ceil(8), 0);
        let info = self.rename.as_mut_ptr() as *mut FILE_RENAME_INFO;
        // SAFETY: the buffer holds `size` bytes, 8-aligned (u64s); the header's fields are
        // written in place and the name (with its NUL) copied after it.
        unsafe {
            (*info).RootDirectory = std::ptr::null_mut();
            (*info).FileNameLength = name_bytes as u32;
            let at = std::ptr::addr_of_mut!((*info).FileName) as *mut u16;
            std::ptr::copy_nonoverlapping(self.buf.as_ptr(), at, self.len + 1);
        }
        (self.rename.as_ptr().cast(), size as u32)
    }
}

/// Rename `from` to `to` by handle: open for DELETE, SetFileInformationByHandle
/// (FileRenameInfo), close.
fn rename(from: &Names, to: &mut Names) -> bool {
    use windows_sys::Win32::Storage::FileSystem::{FileRenameInfo, SetFileInformationByHandle};
    const DELETE: u32 = 0x0001_0000;
    const SYNCHRONIZE: u32 = 0x0010_0000;
    let (info, size) = to.rename_info();
    // SAFETY: a NUL-terminated wide path; the handle is closed before returning; `info`
    // points at `size` bytes of a FILE_RENAME_INFO that outlives the call.
    unsafe {
        let h = CreateFileW(
            from.buf.as_ptr(),
            DELETE | SYNCHRONIZE,
            super::file::SHARE_ALL,
            std::ptr::null(),
            OPEN_EXISTING,
            FILE_ATTRIBUTE_NORMAL,
            std::ptr::null_mut(),
        );
        if h == INVALID_HANDLE_VALUE {
            return false;
        }
        let ok = SetFileInformationByHandle(h, FileRenameInfo, info.cast(), size) != 0;
        // CloseHandle may reset the last error: keep the rename's.
        let err = windows_sys::Win32::Foundation::GetLastError();
        CloseHandle(h);
        windows_sys::Win32::Foundation::SetLastError(err);
        ok
    }
}

/// The fs suite's operations in Win32's words: the calls WinFsp's fsbench makes.
pub const CALLS: crate::os::meta::Calls = crate::os::meta::Calls {
    create: "create a new file: CreateFileW(CREATE_NEW) + CloseHandle",
    open: "open an existing file, each a different one: CreateFileW(OPEN_EXISTING) + CloseHandle",
    reopen: "open the same files again, --iterations times: CreateFileW + CloseHandle",
    overwrite: "open an existing file with truncation: CreateFileW(CREATE_ALWAYS) + CloseHandle",
    stat: "open for attributes + GetFileInformationByHandleEx(FileStandardInfo) + CloseHandle",
    list: "one entry of a listing of the folder of --files files, listed --iterations times \
           (FindFirstFileExW with FIND_FIRST_EX_LARGE_FETCH + FindNextFileW)",
    list_single: "list a folder that holds one file: FindFirstFileExW + FindNextFileW + FindClose",
    rename: "rename a file within its folder: SetFileInformationByHandle(FileRenameInfo)",
    delete: "delete a file: DeleteFileW",
    mkdir: "create a folder: CreateDirectoryW",
    rmdir: "remove an empty folder: RemoveDirectoryW",
    cc_write: "cached WriteFile of one page, --iterations passes over the file",
    cc_read: "cached ReadFile of one page, --iterations passes over the file",
    nc_write: "FILE_FLAG_NO_BUFFERING WriteFile of one page, --iterations passes over the file",
    nc_read: "FILE_FLAG_NO_BUFFERING ReadFile of one page, --iterations passes over the file",
    mmap_write:
        "write a whole mapped page (CreateFileMappingW + MapViewOfFile), --iterations passes",
    mmap_read: "read a whole mapped page, --iterations passes",
    fsync: "WriteFile one page, then FlushFileBuffers; one pass over the file",
    direct: "FILE_FLAG_NO_BUFFERING",
};
