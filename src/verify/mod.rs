//! Data verification: every unit a run writes carries a header (magic, target, offset,
//! length, the writer's sequence number, the unit's generation, the run's seed, the thread)
//! and a checksum of its content ([`block`]); every read is checked against it, and against
//! the generation the unit must have now ([`map`]), so that an older self-consistent version
//! (a lost write, a stale read) is caught, not only corruption. A write run ends with a pass
//! that reads everything back ([`pass`]); a kept target carries its state ([`state`]) so that
//! `iogauge verify` can check it after a crash.
//!
//! What it must never do: report a mismatch a healthy device did not make (no two I/Os are
//! ever on one unit at once, reads of units never written are not judged), or cost the hot
//! path more than a claim, a header and a checksum of what was read.

pub mod block;
pub mod map;
pub mod pass;
pub mod state;
pub mod worker;

use crate::units::format_size;
use block::{Finding, Header};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What `--verify` (or fio's `verify=` family) asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifySpec {
    /// Bytes each header and checksum covers (fio's verify_interval); 0: the smallest I/O.
    pub unit: u64,
    /// Read everything written back when the run ends (fio's do_verify).
    pub pass: bool,
    /// Each thread reads back its last N writes after every N (fio's verify_backlog).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backlog: Option<u32>,
    /// Count mismatches and go on (--verify-continue; fio's verify_fatal=0), instead of
    /// stopping at the first.
    pub go_on: bool,
    /// Folder for the expected and found bytes of each mismatch (fio's verify_dump).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dump: Option<String>,
    /// The state file of each target (default: beside it, TARGET.iogauge-verify), saved at
    /// checkpoints and at the end when the target is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Start from the saved state (fio's verify_state_load): units written by an earlier run
    /// are checked too.
    #[serde(default)]
    pub load: bool,
    /// Start over where a state is saved, replacing it: without this or `load`, a run whose
    /// target's state is saved is refused, so that what it holds is not lost unasked.
    #[serde(default)]
    pub fresh: bool,
    /// The seed the headers carry and their content is made from, where not the job's (a
    /// native run draws a fresh one unless --seed is given): a target's headers then name the
    /// run that wrote them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Seconds between checkpoints of a kept target's state (0: none but the last).
    #[serde(default = "default_checkpoint")]
    pub checkpoint_s: u64,
    /// Keep a surviving target's state at all (fio's verify_state_save).
    #[serde(default = "yes")]
    pub save: bool,
}

fn yes() -> bool {
    true
}

fn default_checkpoint() -> u64 {
    1
}

impl Default for VerifySpec {
    fn default() -> Self {
        VerifySpec {
            unit: 0,
            pass: true,
            backlog: None,
            go_on: false,
            dump: None,
            state: None,
            load: false,
            fresh: false,
            seed: None,
            checkpoint_s: default_checkpoint(),
            save: true,
        }
    }
}

impl VerifySpec {
    /// The seed of the headers of a job seeded `job_seed`.
    pub fn header_seed(&self, job_seed: u64) -> u64 {
        self.seed.unwrap_or(job_seed)
    }
}

/// `dump` (the flag `flag` names) is a folder mismatches can be written into: checked before
/// any I/O, so that a missing one is not found only when the first mismatch is.
pub fn check_dump(flag: &str, dump: &std::path::Path) -> crate::error::Result<()> {
    // fio's verify_dump=1 dumps beside the target: for a bare file name that is "", the
    // current folder.
    let here = std::path::Path::new(".");
    let dump = if dump.as_os_str().is_empty() {
        here
    } else {
        dump
    };
    match std::fs::metadata(dump) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(crate::error::Error::usage(format!(
            "{flag} '{}' is not a folder",
            dump.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(crate::error::Error::usage(format!(
                "{flag} '{}': no such folder (make it first)",
                dump.display()
            )))
        }
        Err(e) => Err(crate::error::Error::usage(format!(
            "{flag} '{}': {e}",
            dump.display()
        ))),
    }
}

/// The state file of `target`: the spec's, else beside it.
pub fn state_path(
    spec: &VerifySpec,
    target: &std::path::Path,
    targets: usize,
    index: usize,
) -> std::path::PathBuf {
    match &spec.state {
        Some(s) if targets == 1 => s.into(),
        Some(s) => format!("{s}.{index}").into(),
        None => {
            let mut p = target.as_os_str().to_owned();
            p.push(".iogauge-verify");
            p.into()
        }
    }
}

/// How a laid-out file is stamped: every unit generation 1.
#[derive(Debug, Clone, Copy)]
pub struct Stamp {
    pub unit: u64,
    pub seed: u64,
    pub target: u32,
}

impl Stamp {
    /// Stamp `chunk`, the `n`-th of the layout's chunks, lying at `offset`: content of the
    /// layout writer, a header per unit.
    pub fn fill(&self, chunk: &mut [u8], n: u64, offset: u64) {
        block::fill_content(chunk, self.seed, block::LAYOUT, 0, n, 0);
        let unit = self.unit as usize;
        for (i, u) in chunk.chunks_exact_mut(unit).enumerate() {
            Header {
                unit_len: self.unit as u32,
                offset: offset + (i * unit) as u64,
                seq: n,
                seed: self.seed,
                target: self.target,
                thread: block::LAYOUT,
                gen: 1,
                slot: 0,
                index: i as u16,
                flags: block::REFILLED,
                content: block::content_sum(u),
            }
            .put(u);
        }
    }
}

/// One mismatch, as reported.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Mismatch {
    pub target: String,
    pub offset: u64,
    pub unit: u64,
    pub finding: Finding,
    /// When found: "read" (during the run), "backlog", "pass" (the read-back), "verify".
    pub during: String,
    pub expected_gen: u16,
    /// The header found, where there was a good one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<Header>,
    /// The first byte (of the unit) that differs from what its header says it held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_difference: Option<usize>,
    /// Where the expected and found bytes were written (verify_dump).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dumped: Vec<String>,
}

impl Mismatch {
    /// One line: where, what, and how it differs.
    pub fn line(&self) -> String {
        let what = match &self.finding {
            Finding::Ok => "ok".to_string(),
            Finding::NoHeader => "no header where a write was acknowledged (a lost write, or \
                                  zeros)"
                .to_string(),
            Finding::TornHeader => "a header that fails its checksum (torn or corrupted)".into(),
            Finding::Foreign { fields } => format!(
                "a header of another place or run (its {} differ{})",
                fields.join(", "),
                if fields.len() == 1 { "s" } else { "" }
            ),
            Finding::Stale { expected, found } => format!(
                "generation {found} where {expected} was acknowledged: an older version (a \
                 lost write or a stale read)"
            ),
            Finding::Newer { expected, found } => {
                format!("generation {found} where {expected} was the last written")
            }
            Finding::Corrupt => "the header is right, the content is not (corrupted)".into(),
        };
        let mut l = format!(
            "'{}' offset {} ({} unit, {}): {what}",
            self.target,
            self.offset,
            format_size(self.unit),
            self.during
        );
        if let Some(h) = &self.found {
            l.push_str(&format!(
                "; found: offset {}, generation {}, thread {}, write {}",
                h.offset, h.gen, h.thread, h.seq
            ));
        }
        if let Some(b) = self.first_difference {
            l.push_str(&format!("; first differing byte: {b}"));
        }
        if !self.dumped.is_empty() {
            l.push_str(&format!("; bytes in {}", self.dumped.join(" and ")));
        }
        l
    }
}

/// The most mismatches kept whole; the rest are counted.
pub const KEPT: usize = 100;

/// Mismatches of a run, from every thread and the pass.
#[derive(Default)]
pub struct Log {
    pub mismatches: Mutex<Vec<Mismatch>>,
    pub count: AtomicU64,
    /// Units checked (reads during the run; the pass counts its own).
    pub checked: AtomicU64,
    /// Reads not judged: units whose generation is unknown.
    pub unjudged: AtomicU64,
    pub stop: AtomicBool,
}

impl Log {
    /// Keep `m` (the first [`KEPT`] whole).
    pub fn add(&self, m: Mismatch) {
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut v = self.mismatches.lock().unwrap_or_else(|p| p.into_inner());
        if v.len() < KEPT {
            v.push(m);
        }
    }
}

/// What the result says of verification.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VerifyResult {
    pub unit: u64,
    /// Memory the generations took: 2 bytes per unit of every target.
    pub map_bytes: u64,
    /// Units checked as they were read during the run.
    pub checked: u64,
    /// Units read that could not be judged (never written with verification).
    pub unjudged: u64,
    pub mismatch_count: u64,
    /// The first mismatches (at most 100).
    pub mismatches: Vec<Mismatch>,
    /// The read-back at the end, where there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<pass::PassResult>,
    /// Where each kept target's state was saved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    /// Checkpoints saved during the run.
    pub checkpoints: u64,
}

/// One target's verification during a run.
pub struct VerifyTarget {
    pub path: String,
    pub map: Arc<map::GenMap>,
    /// The target offset of the map's unit 0.
    pub origin: u64,
    /// The target's id in headers.
    pub id: u32,
}

#[cfg(test)]
mod dump_tests {
    use super::check_dump;
    use std::path::Path;

    #[test]
    fn the_folder_of_a_bare_target_name_is_the_current_one() {
        check_dump("verify_dump", Path::new("")).unwrap();
        check_dump("--dump", Path::new(".")).unwrap();
        let e = check_dump("--dump", Path::new("/no/such/folder")).unwrap_err();
        assert!(e.to_string().contains("no such folder"), "{e}");
    }
}
