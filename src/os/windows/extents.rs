//! Whether a file's data is shared with another file. Windows says so of no file: NTFS does
//! not share clusters, and ReFS keeps its block clones' reference counts to itself (no call
//! maps them per file). A copy made by block cloning says so itself (`os::copy`).

use std::fs::File;
use std::io;

/// Not known on Windows: an error that says so.
pub fn shared(_file: &File) -> io::Result<bool> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "Windows does not say which files share clusters",
    ))
}
