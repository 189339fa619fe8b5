//! A file mapped into memory (mmap, MAP_SHARED): the mmap engine's and the fs suite's.

use std::io;
use std::os::fd::RawFd;

/// The first `len` bytes of a file, mapped shared (MAP_SHARED); unmapped on drop.
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
}

// Plain shared memory: threads that share a mapping touch disjoint pages of it.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Writable where the caller writes (the file must then be open for writing).
    pub fn new(fd: RawFd, len: u64, writable: bool) -> io::Result<Self> {
        let len = usize::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "target too large to map"))?;
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an empty target cannot be mapped",
            ));
        }
        let prot = libc::PROT_READ | if writable { libc::PROT_WRITE } else { 0 };
        // SAFETY: a fresh shared mapping of an open file; checked for MAP_FAILED below.
        let map = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, fd, 0) };
        if map == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapping {
            ptr: map.cast(),
            len,
        })
    }

    /// Tell the kernel how the mapping will be touched: random, so that a page not in the
    /// cache is read alone (as fio's mmap engine advises), or sequential, for read-ahead.
    pub fn advise(self, random: bool) -> Self {
        let advice = if random {
            libc::MADV_RANDOM
        } else {
            libc::MADV_SEQUENTIAL
        };
        // SAFETY: the mapping made in `new`. Advice only: a refusal changes nothing we rely on.
        unsafe { libc::madvise(self.ptr.cast(), self.len, advice) };
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

    /// msync(MS_SYNC) of the whole mapping: 0, or -errno.
    pub fn sync(&self) -> i32 {
        // SAFETY: the whole mapping made in `new`.
        if unsafe { libc::msync(self.ptr.cast(), self.len, libc::MS_SYNC) } == 0 {
            0
        } else {
            -io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO)
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_mapping_sees_the_file_and_refuses_empty() {
        let dir = std::env::temp_dir().join(format!("iogauge-map-{}", std::process::id()));
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&dir)
            .unwrap();
        f.write_all(&[5u8; 8192]).unwrap();
        let m = Mapping::new(f.as_raw_fd(), 8192, false)
            .unwrap()
            .advise(true);
        // SAFETY: byte 100 lies inside the 8192-byte mapping.
        assert_eq!(unsafe { *m.ptr().add(100) }, 5);
        assert_eq!(m.len(), 8192);
        assert!(Mapping::new(f.as_raw_fd(), 0, false).is_err());
        drop(m);
        std::fs::remove_file(&dir).unwrap();
    }
}
