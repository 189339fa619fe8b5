//! Files as a job opens them, on every system: how ([`How`]: access, unbuffered, write-through),
//! what stands at a path ([`What`]), and the calls made on an open file (positional reads and
//! writes, flushes, trims, space reserved). The calls are the port's; the words are here.

pub use super::sys::file::{
    after_open, allocate, block_device_number, close_raw, datasync, device_len, device_words,
    direct_alignment, discard, flush, ids, ids_at, is_device, may_write, open_folder, open_raw,
    options, punch_hole, read_at, read_exact_at, sync_folder, volume_of_letter, what, whole_disks,
    write_at, zoned, Handles, Name,
};

/// How a job opens its targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct How {
    /// Read and write (else read only).
    pub write: bool,
    /// Around the page cache: O_DIRECT on Linux, FILE_FLAG_NO_BUFFERING on Windows. Buffers,
    /// offsets and lengths must then be aligned to the device's unit.
    pub direct: bool,
    /// Each write reaches stable storage before it completes: O_DSYNC on Linux,
    /// FILE_FLAG_WRITE_THROUGH on Windows.
    pub write_through: bool,
    /// Windows: the handle takes overlapped I/O (FILE_FLAG_OVERLAPPED), for a completion port.
    /// Linux's descriptors need no such flag.
    pub overlapped: bool,
    /// Windows (DiskSpd's -Sr): the SMB client's local cache of the remote file is turned off
    /// on each handle once open ([`after_open`]); a local file refuses it.
    pub remote_uncached: bool,
}

/// What stands at a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// A regular file of this many bytes.
    File(u64),
    Dir,
    /// A block device (Linux), a volume or a physical drive (Windows: `\\.\C:`,
    /// `\\.\PhysicalDrive1`): its size is found once open ([`device_len`]).
    BlockDevice,
    /// A device that takes any write and reads zeros or nothing, harmless to measure the tool
    /// itself with (/dev/null, /dev/zero; NUL on Windows).
    NullDevice,
    /// Anything else (a socket, a pipe, another character device).
    Other,
}

/// Options for a file a pass reads or writes whole (a sweep's, iozone's): read only or write
/// only, unbuffered where `direct` (O_DIRECT; FILE_FLAG_NO_BUFFERING), and where `sync` each
/// write on stable storage with the file's metadata before it returns (O_SYNC, iozone's -o;
/// FILE_FLAG_WRITE_THROUGH). Not [`options`]: `How::write_through` is O_DSYNC on Linux.
pub fn pass_options(write: bool, direct: bool, sync: bool) -> std::fs::OpenOptions {
    super::sys::file::pass_options(write, direct, sync)
}

/// Close `file` and see the close's error (a File's drop ignores it; a close can report a
/// write that failed late).
pub fn close_checked(file: std::fs::File) -> std::io::Result<()> {
    super::sys::file::close_checked(file)
}
