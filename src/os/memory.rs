//! Memory the kernel does I/O to and from: buffers aligned for O_DIRECT, and files mapped into
//! memory. One of each for the runner, the engines and the fs suite, so that the unsafe parts
//! (allocation, mmap, munmap) are written and reviewed once.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::io;
use std::os::fd::RawFd;

/// The alignment O_DIRECT asks for on every device iogauge meets (a page).
const ALIGN: usize = 4096;

/// `slots` buffers of `slot_len` bytes each, one allocation aligned for O_DIRECT, zeroed;
/// callers fill them. Slot `i` starts `i * slot_len` bytes in.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
    slot_len: usize,
    slots: usize,
}

// The buffer is plain memory owned by one value; whoever holds it may move it to a thread.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// Refused, not aborted, when memory is short: a run with thousands of threads must end
    /// with a message.
    pub fn new(slots: usize, slot_len: usize) -> Result<Self, String> {
        let (slots, slot_len) = (slots.max(1), slot_len.max(1));
        let bytes = slots.saturating_mul(slot_len);
        let no_memory = || format!("cannot allocate {bytes} bytes of I/O buffers");
        let layout = Layout::from_size_align(bytes, ALIGN).map_err(|_| no_memory())?;
        // SAFETY: the layout has a non-zero size (both factors are at least 1).
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(no_memory());
        }
        Ok(AlignedBuf {
            ptr,
            layout,
            slot_len,
            slots,
        })
    }

    #[inline]
    pub fn slot(&self, i: u32) -> *mut u8 {
        debug_assert!((i as usize) < self.slots);
        // SAFETY: i < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.add(i as usize * self.slot_len) }
    }

    /// Bytes per slot.
    pub fn slot_len(&self) -> usize {
        self.slot_len
    }

    /// (address, length) of every slot, for registering with an engine.
    pub fn slots(&self) -> Vec<(*mut u8, usize)> {
        (0..self.slots as u32)
            .map(|i| (self.slot(i), self.slot_len))
            .collect()
    }

    /// Slot `i` as bytes.
    pub fn slot_mut(&mut self, i: u32) -> &mut [u8] {
        // SAFETY: the slot lies inside the allocation, which `&mut self` holds exclusively.
        unsafe { std::slice::from_raw_parts_mut(self.slot(i), self.slot_len) }
    }

    /// The whole allocation as bytes.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: the allocation is `layout.size()` bytes, zeroed at creation.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

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
    fn slots_are_aligned_and_apart() {
        let mut b = AlignedBuf::new(3, 4096).unwrap();
        let s = b.slots();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].0 as usize % ALIGN, 0);
        assert_eq!(s[1].0 as usize - s[0].0 as usize, 4096);
        b.slot_mut(2).fill(7);
        assert_eq!(b.bytes_mut()[2 * 4096], 7);
        assert_eq!(b.bytes_mut()[4095], 0);
    }

    #[test]
    fn an_impossible_buffer_is_an_error() {
        let e = AlignedBuf::new(usize::MAX / 2, 4).err().unwrap();
        assert!(e.starts_with("cannot allocate"), "{e}");
    }

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
