//! Where a report goes: stdout, or a file named by the user. The file is opened before
//! anything is measured, so that a path that cannot be written is refused at once instead of
//! after a long run; it is only changed once the report exists, and a file iogauge created for
//! a report that never came is removed again.

use crate::error::{Error, Result};
use crate::os::owned::{Folders, Owned};
use std::fs::{File, OpenOptions};
use std::io::{Seek, Write};
use std::path::Path;

pub enum Sink {
    Stdout,
    File {
        file: File,
        shown: String,
        /// Set where iogauge created the file; removed if nothing was written.
        created: Option<Owned>,
        written: bool,
    },
}

impl Sink {
    /// `path` as typed after `flag` (`-` is stdout). A file there is opened for writing but
    /// not truncated yet: until the report is written, it keeps what it held.
    pub fn open(path: &str, flag: &str) -> Result<Sink> {
        if path == "-" {
            return Ok(Sink::Stdout);
        }
        let refuse =
            |e: std::io::Error| Error::usage(format!("{flag} '{path}': cannot write there: {e}"));
        let existed = std::fs::symlink_metadata(path).is_ok();
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(refuse)?;
        let created = if existed {
            None
        } else {
            Some(Owned::file(Path::new(path), &file, &mut Folders::default()).map_err(refuse)?)
        };
        Ok(Sink::File {
            file,
            shown: path.to_string(),
            created,
            written: false,
        })
    }

    /// Write the whole report, replacing what the file held.
    pub fn write(&mut self, text: &str) -> Result<()> {
        match self {
            Sink::Stdout => {
                let mut out = std::io::stdout().lock();
                // A closed pipe (| head) is not an error worth reporting.
                match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                    Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::runtime(
                        format!("cannot write the report to stdout: {e}"),
                    )),
                    _ => Ok(()),
                }
            }
            Sink::File {
                file,
                shown,
                written,
                ..
            } => {
                *written = true;
                // Only a regular file has old content to drop (/dev/null and pipes refuse it).
                let regular = file.metadata().is_ok_and(|m| m.is_file());
                let emptied = match regular {
                    true => file.set_len(0).and_then(|_| file.rewind()),
                    false => Ok(()),
                };
                emptied
                    .and_then(|_| file.write_all(text.as_bytes()))
                    .map_err(|e| {
                        Error::runtime(format!("cannot write the report to '{shown}': {e}"))
                    })
            }
        }
    }

    /// Whether the report goes to the terminal (or a pipe) rather than a file.
    pub fn is_stdout(&self) -> bool {
        matches!(self, Sink::Stdout)
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if let Sink::File {
            created: Some(o),
            written: false,
            ..
        } = self
        {
            let _ = o.remove();
        }
    }
}
