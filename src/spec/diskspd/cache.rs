//! How the I/O meets the OS cache and the device: DiskSpd's -S letters (b, h, u, r, w, m)
//! and -h, made one [`CacheMode`]; memory-mapped I/O (-Sm) and how its writes are flushed
//! (-N). Conflicts are refused in DiskSpd's words.

use super::values::bad;
use crate::error::Result;
use crate::spec::{CacheMode, EngineKind, FlushEvery};

/// DiskSpd's `-N`: how a write to a memory-mapped target (-Sm) is flushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MappedFlush {
    /// `-Nv`: FlushViewOfFile.
    ViewOfFile,
    /// `-Nn`: RtlFlushNonVolatileMemory.
    NonVolatile,
    /// `-Ni`: RtlFlushNonVolatileMemory without waiting for the flush to drain.
    NonVolatileNoDrain,
}

impl MappedFlush {
    /// DiskSpd's name, as its XML profile writes it (`<FlushType>`).
    pub fn xml_name(self) -> &'static str {
        match self {
            MappedFlush::ViewOfFile => "ViewOfFile",
            MappedFlush::NonVolatile => "NonVolatileMemory",
            MappedFlush::NonVolatileNoDrain => "NonVolatileMemoryNoDrain",
        }
    }
}

/// The cache switches, as given: unset until a switch sets them, so that a second one
/// conflicts.
#[derive(Default)]
pub(super) struct Cache {
    pub os_cache: Option<bool>,
    pub write_through: Option<bool>,
    /// -Sm.
    pub mmap: bool,
    /// -Sr on Windows: the remote file's local cache off.
    pub remote: bool,
}

impl Cache {
    /// `-S[<letters>]`: a bare -S is -Su.
    pub fn s(&mut self, a: &str, v: &str, notes: &mut Vec<String>) -> Result<()> {
        let letters = if v.is_empty() { "u" } else { v };
        letters.chars().try_for_each(|c| self.letter(a, c, notes))
    }

    fn letter(&mut self, a: &str, c: char, notes: &mut Vec<String>) -> Result<()> {
        let conflict = |what: &str| {
            Err(bad(format!(
                "{a}: -S{c} conflicts with earlier specification of {what}"
            )))
        };
        match c {
            'b' => {
                if self.os_cache.is_some() {
                    return conflict("cache mode");
                }
                self.os_cache = Some(true);
            }
            'h' => {
                if self.os_cache.is_some() || self.write_through.is_some() || self.mmap {
                    return conflict("cache/writethrough/memory mapped");
                }
                self.os_cache = Some(false);
                self.write_through = Some(true);
            }
            'u' | 'r' => {
                if c == 'u' && self.mmap {
                    return conflict("cache mode/memory mapped IO");
                }
                if self.os_cache.is_some() {
                    return conflict("cache mode");
                }
                // Windows: -Sr keeps the OS cache and turns off the SMB client's local cache of
                // the remote file. Linux has no such switch: it runs unbuffered, as -Su.
                let remote = c == 'r' && cfg!(windows);
                if c == 'r' && !remote {
                    notes.push(format!(
                        "{a}: -Sr (no local cache for remote files) runs unbuffered, as -Su (O_DIRECT)"
                    ));
                }
                self.remote = remote;
                self.os_cache = Some(remote);
            }
            'w' => {
                if self.write_through.is_some() {
                    return conflict("write through");
                }
                self.write_through = Some(true);
            }
            'm' => {
                if self.mmap || self.os_cache == Some(false) {
                    return conflict("memory mapped IO/unbuffered IO");
                }
                self.mmap = true;
            }
            _ => return Err(bad(format!("{a}: unrecognized option provided to -S"))),
        }
        Ok(())
    }

    /// `-h`: -Sh, with its own conflict.
    pub fn h(&mut self, a: &str) -> Result<()> {
        if self.os_cache.is_some() || self.write_through.is_some() {
            return Err(bad(format!(
                "{a}: -h conflicts with earlier specification of cache/writethrough"
            )));
        }
        self.os_cache = Some(false);
        self.write_through = Some(true);
        Ok(())
    }

    /// Whether -Sr asked for the remote file's local cache off (Windows).
    pub fn remote_uncached(&self) -> bool {
        self.remote
    }

    /// The cache mode, and the mmap engine with -Sm. DiskSpd's default is the OS cache.
    pub fn mode(&self, notes: &mut Vec<String>) -> Result<(CacheMode, Option<EngineKind>)> {
        let cache = match (
            self.os_cache.unwrap_or(true),
            self.write_through.unwrap_or(false),
        ) {
            (true, false) => CacheMode::Buffered,
            (false, false) => CacheMode::Direct,
            (true, true) => CacheMode::WriteThrough,
            (false, true) => CacheMode::DirectWriteThrough,
        };
        if self.mmap && self.write_through == Some(true) {
            return Err(bad("-Sm with writethrough (-Sw, -Sh, -h): iogauge maps the target through the page cache and cannot write it through (planned)"));
        }
        if self.os_cache.is_none() && !self.mmap {
            notes.push(
                "DiskSpd's default: the OS cache is on (buffered I/O); -Su or -Sh for direct I/O"
                    .into(),
            );
        }
        Ok((cache, self.mmap.then_some(EngineKind::Mmap)))
    }

    /// -N with -Sm: each write to the mapping is flushed before the next I/O. Linux has one
    /// call for DiskSpd's three: msync(MS_SYNC), which on a DAX file system also writes back
    /// the CPU caches that the non-volatile-memory flush (-Nn, -Ni) is for.
    pub fn flush(
        &self,
        mode: Option<MappedFlush>,
        notes: &mut Vec<String>,
    ) -> Result<Option<FlushEvery>> {
        let Some(mode) = mode else {
            return Ok(None);
        };
        if !self.mmap {
            return Err(bad(
                "memory mapped flush mode (-N) can only be specified with memory mapped IO (-Sm)",
            ));
        }
        notes.push(match mode {
            MappedFlush::ViewOfFile => "-Nv: each write to the mapping is followed by msync(MS_SYNC), Linux's FlushViewOfFile",
            MappedFlush::NonVolatile => "-Nn: each write to the mapping is followed by msync(MS_SYNC): Linux has no call of its own for RtlFlushNonVolatileMemory (on a DAX file system msync writes back the CPU caches)",
            MappedFlush::NonVolatileNoDrain => "-Ni: runs as -Nn: msync(MS_SYNC) after each write, which always waits for the flush to drain",
        }.to_string());
        notes.push("-N: the flushes are timed apart from the writes (Flushes), where DiskSpd counts each in its write's latency".into());
        Ok(Some(FlushEvery {
            writes: 1,
            data_only: false,
        }))
    }
}

/// `-N<v|n|i>`, in either case, as DiskSpd reads it.
pub(super) fn mapped_flush(a: &str, v: &str) -> Result<MappedFlush> {
    match v.to_ascii_lowercase().as_str() {
        "v" => Ok(MappedFlush::ViewOfFile),
        "n" => Ok(MappedFlush::NonVolatile),
        "i" => Ok(MappedFlush::NonVolatileNoDrain),
        _ => Err(bad(format!(
            "{a}: incorrectly provided option (-N takes v, n or i: how memory mapped writes are flushed)"
        ))),
    }
}
