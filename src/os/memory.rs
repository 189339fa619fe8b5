//! Memory the kernel does I/O to and from: buffers aligned for unbuffered I/O (O_DIRECT,
//! FILE_FLAG_NO_BUFFERING), and files mapped into memory ([`Mapping`], one per port). One of
//! each for the runner, the engines and the fs suite, so that the unsafe parts are written and
//! reviewed once.

use std::alloc::{alloc_zeroed, dealloc, Layout};

pub use super::sys::mapping::Mapping;

/// The alignment unbuffered I/O asks for on every device iogauge meets (a page; a volume's
/// sector is at most 4 KiB).
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
