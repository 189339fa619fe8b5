//! Whether a file's data is shared with another file (a reflink: what copy_file_range makes on
//! xfs and btrfs instead of copying), from the kernel's extent map (FIEMAP).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// `_IOWR('f', 11, struct fiemap)`.
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
/// Write delayed allocations first, so that every extent is on the map.
const FIEMAP_FLAG_SYNC: u32 = 0x1;
const FIEMAP_EXTENT_SHARED: u32 = 0x2000;
/// Extents asked for at once: enough to see whether any is shared.
const EXTENTS: usize = 32;

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Extent {
    logical: u64,
    physical: u64,
    length: u64,
    reserved64: [u64; 2],
    flags: u32,
    reserved: [u32; 3],
}

#[repr(C)]
struct Map {
    start: u64,
    length: u64,
    flags: u32,
    mapped_extents: u32,
    extent_count: u32,
    reserved: u32,
    extents: [Extent; EXTENTS],
}

/// Whether any of the first extents of `f` is shared with another file. An error where the
/// file system keeps no extent map (tmpfs, FUSE: EOPNOTSUPP).
pub fn shared(f: &File) -> io::Result<bool> {
    let mut map = Map {
        start: 0,
        length: u64::MAX,
        flags: FIEMAP_FLAG_SYNC,
        mapped_extents: 0,
        extent_count: EXTENTS as u32,
        reserved: 0,
        extents: [Extent::default(); EXTENTS],
    };
    // SAFETY: the ioctl writes at most `extent_count` extents into the map we own.
    let r = unsafe { libc::ioctl(f.as_raw_fd(), FS_IOC_FIEMAP as _, &mut map as *mut Map) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let n = (map.mapped_extents as usize).min(EXTENTS);
    Ok(map.extents[..n]
        .iter()
        .any(|e| e.flags & FIEMAP_EXTENT_SHARED != 0))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_plain_file_shares_nothing_where_the_map_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, vec![1u8; 1 << 16]).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        match super::shared(&f) {
            Ok(s) => assert!(!s),
            // tmpfs keeps no extent map.
            Err(e) => assert_eq!(e.raw_os_error(), Some(libc::EOPNOTSUPP), "{e}"),
        }
    }
}
