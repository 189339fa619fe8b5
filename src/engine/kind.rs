//! Which engines exist, what each can do, and the settings that belong to one engine alone
//! (the delay engine's distributions). A job names an engine with these; the front ends, the
//! runner and the reports read them from here.
//!
//! What an engine can do is one table, [`EngineKind::caps`], as fio's `ioengine_ops` carry
//! their flags: code outside `engine/` asks a capability ("has a ring", "takes a priority
//! in each I/O") and never compares an engine's identity, except where a user's word is
//! turned into an engine or back (the front ends' name mappings).

use crate::os::meta::MetaOp;
use serde::{Deserialize, Serialize};

/// The most I/Os an io_uring ring keeps in flight: the kernel refuses a ring of more than
/// IORING_MAX_ENTRIES (32768) entries with EINVAL, and the engine rounds the queue depth up to
/// a power of two, so 32768 is the deepest queue it can set up.
pub const URING_MAX_DEPTH: u32 = 32768;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    Sync,
    IoUring,
    /// Windows: overlapped ReadFile/WriteFile on a completion port per thread, reaped in
    /// batches (DiskSpd's design; fio's windowsaio does the same work).
    Iocp,
    Null,
    /// Completes each I/O after a latency drawn from a known distribution (tests, selftest).
    Delay,
    /// The target mapped into memory, each I/O a copy (fio's mmap, DiskSpd's -Sm).
    Mmap,
    /// Each I/O creates one file of the set: open(O_CREAT|O_EXCL) and close, as the fs suite's
    /// file_create (fio's filecreate). Once per file; no data moves.
    #[serde(rename = "filecreate")]
    FileCreate,
    /// Each I/O is a stat() of one file, as the fs suite's file_stat (fio's filestat).
    #[serde(rename = "filestat")]
    FileStat,
    /// Each I/O deletes one file, as the fs suite's file_delete (fio's filedelete).
    #[serde(rename = "filedelete")]
    FileDelete,
    /// Each I/O is a fallocate of its range (fio's falloc): a read allocates keeping the
    /// size, a write allocates growing the file, a trim punches a hole.
    Falloc,
    /// Each write sets the file's length to its offset (fio's ftruncate); no data moves.
    Ftruncate,
}

/// The engine a job that names none runs: io_uring on Linux, where the kernel lets it set up a
/// ring; the completion port engine on Windows.
pub const DEFAULT_ENGINE: EngineKind = if cfg!(windows) {
    EngineKind::Iocp
} else {
    EngineKind::IoUring
};
/// The engine a job that names none runs where [`DEFAULT_ENGINE`] cannot be set up.
pub const FALLBACK_ENGINE: EngineKind = EngineKind::Sync;

/// What an engine can do. Validation refuses an option the engine lacks, the runner sets up
/// what it has, and the reports describe it, each by asking here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// A ring set up per thread (one descriptor each), probed before a run: the host may not
    /// offer one.
    pub ring: bool,
    /// Submission polling: a kernel thread polls the submission queue (`--sqpoll`).
    pub sqpoll: bool,
    /// Polled completions (`--hipri`: IOPOLL, with direct I/O).
    pub hipri: bool,
    /// A priority carried in each I/O (`--cmdprio`; fio's cmdprio options).
    pub per_io_prio: bool,
    /// I/Os run after submission returns: a submission latency of their own (fio's slat).
    pub submit_latency: bool,
    /// The files and buffers can be registered with the engine (`--register`).
    pub registered_files: bool,
    /// One I/O at a time per thread, done inside the worker's wait: a queue depth above 1
    /// runs as 1.
    pub inline: bool,
    /// The deepest queue the engine can set up per thread, where it has a limit of its own
    /// (below validation's general one).
    pub max_queue_depth: Option<u32>,
    /// What a trim becomes.
    pub trim: TrimAs,
    /// Its I/Os reach no storage (null, delay): nothing is read, written or cached, and
    /// verification has nothing to check.
    pub diskless: bool,
    /// Completes each I/O after a latency it injects (`--delay`, `--delay-step`).
    pub injects_latency: bool,
    /// The files are mapped into memory, each I/O a copy: through the page cache only, each
    /// file mapped for the whole run (DiskSpd's memory-mapped I/O, -Sm).
    pub mapped: bool,
    /// Each write sets the file's length to its offset: the job only writes, and the file
    /// may have any length (offsets past its end grow it).
    pub sets_length: bool,
    /// Each I/O creates its file: the files must not exist, and those made are iogauge's.
    pub creates_files: bool,
    /// Each I/O deletes its file: destructive as a write is.
    pub deletes_files: bool,
    /// Its handles take overlapped I/O (a completion port's): opened so on Windows.
    pub overlapped: bool,
}

/// What an engine does with a trim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrimAs {
    /// A hole punched in a file (its size kept), a discard of a block device's range.
    HoleOrDiscard,
    /// A hole punched, whatever the target (fio's falloc).
    Hole,
    /// Counted as done; nothing reaches storage.
    Nothing,
    /// The engine has no trim: validation refuses a job that trims.
    Refused,
}

/// An engine that can do none of what [`Caps`] lists; each engine says what it adds.
const PLAIN: Caps = Caps {
    ring: false,
    sqpoll: false,
    hipri: false,
    per_io_prio: false,
    submit_latency: false,
    registered_files: false,
    inline: false,
    max_queue_depth: None,
    trim: TrimAs::Refused,
    diskless: false,
    injects_latency: false,
    mapped: false,
    sets_length: false,
    creates_files: false,
    deletes_files: false,
    overlapped: false,
};

/// What a ring-based engine ([`Caps::ring`]) ended up using, for the result: what was asked
/// and what the kernel granted. Its fields are the result's `io_uring` keys.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct RingFeatures {
    pub registered_file: bool,
    pub registered_buffers: bool,
    pub defer_taskrun: bool,
    pub sqpoll: bool,
    pub hipri: bool,
    /// The ring's own descriptor registered (io_uring_enter by index). Results from before
    /// it was reported read as false.
    #[serde(default)]
    pub registered_ring: bool,
}

/// The engine a job asks for, and the settings only some engines take, as one value. Each
/// setting is checked against the engine in validation, which words a refusal in the job's
/// own tool's terms. Flat in a job's JSON (`engine`, `sqpoll`, `hipri`, `register`, `delay`,
/// `delay_step`), as these were fields of the job before they were grouped.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct EngineSpec {
    /// `None`: io_uring where the kernel allows it, else sync.
    #[serde(rename = "engine")]
    pub kind: Option<EngineKind>,
    /// io_uring: a kernel thread polls the submission queue.
    pub sqpoll: bool,
    /// io_uring: polled completions (IOPOLL; O_DIRECT on devices with poll queues).
    pub hipri: bool,
    /// io_uring: register the files and buffers with the ring (skipped where refused).
    pub register: bool,
    /// The delay engine's injected latency.
    pub delay: Option<DelayDist>,
    /// Delay engine: a later distribution (--delay-step).
    pub delay_step: Option<DelayStep>,
}

/// io_uring's settings (they are a job's on every system; the engine is Linux's).
#[derive(Clone, Copy, Debug, Default)]
pub struct UringOptions {
    pub sqpoll: bool,
    pub hipri: bool,
    pub register: bool,
    /// The files change while the ring runs ([`IoEngine::set_file`], `--open-files`): they
    /// are not registered, as fio registers none with openfiles below nrfiles. Updating a
    /// registered place is a system call per file switch that costs more than the fixed file
    /// saves (measured: a fifth of the IOPS at a switch per I/O, even at 64 I/Os per switch).
    pub changing_files: bool,
}

/// The latency the delay engine injects.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DelayDist {
    Fixed {
        ns: u64,
    },
    Uniform {
        min_ns: u64,
        max_ns: u64,
    },
    /// exp(N(ln median, sigma^2)).
    Lognormal {
        median_ns: u64,
        sigma: f64,
    },
}

/// A change of the delay engine's distribution during the run: a device that slows down
/// (a burst that ends), for testing what sees phases.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DelayStep {
    /// From the start of the run, warm-up included.
    pub after_ns: u64,
    pub dist: DelayDist,
}

impl EngineKind {
    /// What the engine can do: the one place that says which engine has which capability.
    pub fn caps(self) -> Caps {
        match self {
            EngineKind::IoUring => Caps {
                ring: true,
                sqpoll: true,
                hipri: true,
                per_io_prio: true,
                submit_latency: true,
                registered_files: true,
                max_queue_depth: Some(URING_MAX_DEPTH),
                trim: TrimAs::HoleOrDiscard,
                ..PLAIN
            },
            EngineKind::Iocp => Caps {
                submit_latency: true,
                overlapped: true,
                ..PLAIN
            },
            EngineKind::Sync => Caps {
                inline: true,
                trim: if cfg!(windows) {
                    TrimAs::Refused
                } else {
                    TrimAs::HoleOrDiscard
                },
                ..PLAIN
            },
            EngineKind::Null => Caps {
                diskless: true,
                trim: TrimAs::Nothing,
                ..PLAIN
            },
            EngineKind::Delay => Caps {
                diskless: true,
                injects_latency: true,
                submit_latency: true,
                trim: TrimAs::Nothing,
                ..PLAIN
            },
            EngineKind::Mmap => Caps {
                inline: true,
                mapped: true,
                ..PLAIN
            },
            EngineKind::Falloc => Caps {
                inline: true,
                trim: TrimAs::Hole,
                ..PLAIN
            },
            EngineKind::Ftruncate => Caps {
                inline: true,
                sets_length: true,
                ..PLAIN
            },
            EngineKind::FileCreate => Caps {
                inline: true,
                creates_files: true,
                ..PLAIN
            },
            EngineKind::FileStat => Caps {
                inline: true,
                ..PLAIN
            },
            EngineKind::FileDelete => Caps {
                inline: true,
                deletes_files: true,
                ..PLAIN
            },
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Sync => "sync",
            EngineKind::IoUring => "io_uring",
            EngineKind::Iocp => "iocp",
            EngineKind::Null => "null",
            EngineKind::Delay => "delay",
            EngineKind::Mmap => "mmap",
            EngineKind::FileCreate => "filecreate",
            EngineKind::FileStat => "filestat",
            EngineKind::FileDelete => "filedelete",
            EngineKind::Falloc => "falloc",
            EngineKind::Ftruncate => "ftruncate",
        }
    }

    /// The fio ioengine that does the same work, for a fio job written from an iogauge job
    /// (`explain`). The delay engine has none: null, with a comment saying so.
    pub fn fio_name(self) -> &'static str {
        match self {
            EngineKind::IoUring => "io_uring",
            EngineKind::Iocp => "windowsaio",
            EngineKind::Sync => "psync",
            EngineKind::Null | EngineKind::Delay => "null",
            EngineKind::Mmap => "mmap",
            EngineKind::FileCreate
            | EngineKind::FileStat
            | EngineKind::FileDelete
            | EngineKind::Falloc
            | EngineKind::Ftruncate => self.name(),
        }
    }

    /// The one system the engine exists on, where it is not on every system: io_uring and the
    /// fallocate engines are Linux's, the completion port engine is Windows's.
    pub fn only_on(self) -> Option<&'static str> {
        match self {
            EngineKind::IoUring | EngineKind::Falloc | EngineKind::Ftruncate => Some("Linux"),
            EngineKind::Iocp => Some("Windows"),
            _ => None,
        }
    }

    /// Whether the engine exists on the system iogauge was built for.
    pub fn is_here(self) -> bool {
        match self.only_on() {
            Some("Linux") => cfg!(target_os = "linux"),
            Some(_) => cfg!(windows),
            None => true,
        }
    }

    /// An engine whose I/Os are operations on file names (filecreate, filestat, filedelete),
    /// one per file: no data moves, and no descriptor is held on the file.
    pub fn is_file_op(self) -> bool {
        matches!(
            self,
            EngineKind::FileCreate | EngineKind::FileStat | EngineKind::FileDelete
        )
    }

    /// The deepest queue the engine can set up per thread, where it has a limit of its own
    /// (below validation's general one).
    pub fn max_queue_depth(self) -> Option<u32> {
        self.caps().max_queue_depth
    }

    /// Engines whose data moves through the page cache unless the job asks for direct I/O
    /// (the null and delay engines move none).
    pub fn can_cache(self) -> bool {
        !self.caps().diskless
    }

    /// Engines that run one I/O at a time per thread, inside the worker's wait.
    pub fn is_inline(self) -> bool {
        self.caps().inline
    }

    /// The metadata call each I/O of a file-operation engine makes.
    pub fn file_op(self) -> Option<MetaOp> {
        match self {
            EngineKind::FileCreate => Some(MetaOp::Create),
            EngineKind::FileStat => Some(MetaOp::Stat),
            EngineKind::FileDelete => Some(MetaOp::Delete),
            _ => None,
        }
    }

    /// Engines whose I/Os change a file's allocation or length instead of moving data: they
    /// read and write no buffer, so verification has nothing to check.
    pub fn moves_no_data(self) -> bool {
        matches!(self, EngineKind::Falloc | EngineKind::Ftruncate) || self.is_file_op()
    }

    /// Engines whose I/Os run after submission returns: they have a submission latency of
    /// their own.
    pub fn is_async(self) -> bool {
        self.caps().submit_latency
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [EngineKind; 11] = [
        EngineKind::Sync,
        EngineKind::IoUring,
        EngineKind::Iocp,
        EngineKind::Null,
        EngineKind::Delay,
        EngineKind::Mmap,
        EngineKind::FileCreate,
        EngineKind::FileStat,
        EngineKind::FileDelete,
        EngineKind::Falloc,
        EngineKind::Ftruncate,
    ];

    /// Validation and the runner read these together: a table that broke one of them would
    /// let a job through that the engine cannot run.
    #[test]
    fn capabilities_agree_with_each_other() {
        for e in ALL {
            let c = e.caps();
            let ring_only =
                c.sqpoll || c.hipri || c.registered_files || c.max_queue_depth.is_some();
            assert!(
                c.ring || !ring_only,
                "{}: a ring's options without a ring",
                e.name()
            );
            assert!(
                !(c.inline && c.submit_latency),
                "{}: inline yet async",
                e.name()
            );
            assert!(!(c.diskless && e.is_file_op()), "{}", e.name());
            // What moves no data through a buffer cannot trim it away either.
            if e.is_file_op() || c.mapped || c.sets_length {
                assert_eq!(c.trim, TrimAs::Refused, "{}", e.name());
            }
            assert_eq!(c.injects_latency, e == EngineKind::Delay, "{}", e.name());
        }
        assert!(!FALLBACK_ENGINE.caps().ring);
        assert!(DEFAULT_ENGINE.caps().ring || cfg!(windows));
        assert!(DEFAULT_ENGINE.is_here() && FALLBACK_ENGINE.is_here());
    }

    /// The file-operation engines are told apart by what their I/O does to a file.
    #[test]
    fn file_operations_create_delete_or_look() {
        for e in ALL.into_iter().filter(|e| e.is_file_op()) {
            let c = e.caps();
            let op = e.file_op();
            assert_eq!(c.creates_files, op == Some(MetaOp::Create), "{}", e.name());
            assert_eq!(c.deletes_files, op == Some(MetaOp::Delete), "{}", e.name());
        }
        assert!(ALL
            .iter()
            .all(|e| e.is_file_op() || !(e.caps().creates_files || e.caps().deletes_files)));
    }
}
