//! A file mapped into memory (CreateFileMappingW, MapViewOfFile): the mmap engine's.

use super::{handle, RawHandle};
use std::io;
use windows_sys::Win32::Foundation::CloseHandle;
use windows_sys::Win32::Storage::FileSystem::FlushFileBuffers;
use windows_sys::Win32::System::Memory::{
    CreateFileMappingW, FlushViewOfFile, MapViewOfFile, UnmapViewOfFile, FILE_MAP_READ,
    FILE_MAP_WRITE, MEMORY_MAPPED_VIEW_ADDRESS, PAGE_READONLY, PAGE_READWRITE,
};

/// The first `len` bytes of a file, mapped shared; unmapped on drop.
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
    section: RawHandle,
    file: RawHandle,
}

// Plain shared memory: threads that share a mapping touch disjoint pages of it.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Writable where the caller writes (the file must then be open for writing).
    pub fn new(file: RawHandle, len: u64, writable: bool) -> io::Result<Self> {
        let size = usize::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "target too large to map"))?;
        if size == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an empty target cannot be mapped",
            ));
        }
        let protect = if writable {
            PAGE_READWRITE
        } else {
            PAGE_READONLY
        };
        // SAFETY: a section of an open file, no name, no security attributes.
        let section = unsafe {
            CreateFileMappingW(
                handle(file),
                std::ptr::null(),
                protect,
                (len >> 32) as u32,
                len as u32,
                std::ptr::null(),
            )
        };
        if section.is_null() {
            return Err(io::Error::last_os_error());
        }
        let access = if writable {
            FILE_MAP_WRITE
        } else {
            FILE_MAP_READ
        };
        // SAFETY: a view of the whole section just made.
        let view = unsafe { MapViewOfFile(section, access, 0, 0, size) };
        if view.Value.is_null() {
            let e = io::Error::last_os_error();
            // SAFETY: made above, closed once.
            unsafe { CloseHandle(section) };
            return Err(e);
        }
        Ok(Mapping {
            ptr: view.Value.cast(),
            len: size,
            section: section as RawHandle,
            file,
        })
    }

    /// Windows takes no advice on a view's use: the mapping is returned as it is.
    pub fn advise(self, _random: bool) -> Self {
        self
    }

    #[inline]
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: an empty mapping is refused in `new`.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// FlushViewOfFile, then FlushFileBuffers (the view's pages written, then the file's data
    /// on stable storage, as msync(MS_SYNC)): 0, or a negative error code.
    pub fn sync(&self) -> i32 {
        // SAFETY: the whole view made in `new`, and the file it maps.
        let ok = unsafe {
            FlushViewOfFile(self.ptr.cast(), self.len) != 0
                && FlushFileBuffers(handle(self.file)) != 0
        };
        if ok {
            0
        } else {
            -crate::os::error::last()
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the view and section made in `new`, released once.
        unsafe {
            UnmapViewOfFile(MEMORY_MAPPED_VIEW_ADDRESS {
                Value: self.ptr.cast(),
            });
            CloseHandle(handle(self.section));
        }
    }
}
