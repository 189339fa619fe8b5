//! DiskSpd's switches that change nothing here (Windows hints and APIs), accepted with a note
//! and kept as given, with the settings the job holds in other terms, for the profile (-Rp)
//! to show them as DiskSpd would.

use super::cache::MappedFlush;
use super::values::bad;
use crate::error::Result;

/// DiskSpd settings that change nothing here (Windows hints and APIs) or that the job holds
/// in other terms, kept as given so that the profile (-Rp) shows them as DiskSpd would.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    /// `-f<rst>`: the Windows access hints, as given.
    pub hints: String,
    /// `-I<1..3>`.
    pub io_priority: Option<u8>,
    /// `-l`.
    pub large_pages: bool,
    /// `-Z<size>`: DiskSpd's random write source buffer.
    pub write_buffer: Option<u64>,
    /// `-N<v|n|i>`: the flush after each write to a mapped target.
    pub flush_mode: Option<MappedFlush>,
    /// `-v`.
    pub verbose: bool,
    /// `-P<count>`: DiskSpd's progress dots.
    pub progress: u32,
    /// `-x`.
    pub completion_routines: bool,
}

impl Shown {
    /// `-f<r|s|t...>`.
    pub(super) fn hints(&mut self, a: &str, v: &str, notes: &mut Vec<String>) {
        self.hints.push_str(v);
        notes.push(format!(
            "{a}: Windows file access hints have no effect here"
        ));
    }

    /// `-I<1..3>`: DiskSpd's 1 very low, 2 low, 3 normal; anything else is refused.
    pub(super) fn io_priority(&mut self, a: &str, v: &str, notes: &mut Vec<String>) -> Result<()> {
        let p = v.parse().ok().filter(|p| (1..=3).contains(p));
        self.io_priority = Some(p.ok_or_else(|| bad(format!("{a}: incorrectly provided option")))?);
        notes.push(format!("{a}: I/O priority hints have no effect here"));
        Ok(())
    }

    /// `-l`.
    pub(super) fn large_pages(&mut self, a: &str, notes: &mut Vec<String>) {
        self.large_pages = true;
        notes.push(format!("{a}: large pages are not used for the buffers"));
    }

    /// `-P[<count>]`: DiskSpd prints a dot every N I/Os (65536 when N is missing or 0).
    pub(super) fn progress(&mut self, v: &str) {
        self.progress = v.parse().ok().filter(|&n| n > 0).unwrap_or(65536);
    }

    /// `-v[s]`.
    pub(super) fn verbose(&mut self, a: &str, v: &str) -> Result<()> {
        match v {
            "" | "s" => self.verbose = true,
            _ => return Err(bad(format!("{a}: invalid verbose mode (-v): '{v}'"))),
        }
        Ok(())
    }

    /// `-x`.
    pub(super) fn completion_routines(&mut self, notes: &mut Vec<String>) {
        self.completion_routines = true;
        notes.push(format!(
            "-x: completion routines: iogauge reaps completions with its default engine ({})",
            crate::engine::kind::DEFAULT_ENGINE.name()
        ))
    }
}
