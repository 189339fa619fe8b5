//! Which engines exist, what each can do, and the settings that belong to one engine alone
//! (the delay engine's distributions). A job names an engine with these; the front ends, the
//! runner and the reports read them from here.

use crate::os::meta::MetaOp;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    Sync,
    IoUring,
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
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Sync => "sync",
            EngineKind::IoUring => "io_uring",
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
        match self {
            EngineKind::IoUring => Some(super::uring::MAX_DEPTH),
            _ => None,
        }
    }

    /// Engines whose data moves through the page cache unless the job asks for direct I/O
    /// (the null and delay engines move none).
    pub fn can_cache(self) -> bool {
        !matches!(self, EngineKind::Null | EngineKind::Delay)
    }

    /// Engines that run one I/O at a time per thread, inside the worker's wait.
    pub fn is_inline(self) -> bool {
        matches!(
            self,
            EngineKind::Sync | EngineKind::Mmap | EngineKind::Falloc | EngineKind::Ftruncate
        ) || self.is_file_op()
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
        matches!(self, EngineKind::IoUring | EngineKind::Delay)
    }
}
