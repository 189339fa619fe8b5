//! Making a thread's engine: the one place that turns an engine's kind and settings into a
//! running engine. The worker loop is generic over the engine (static calls in the hot
//! path), so the caller hands a [`Drive`] that is called with whichever engine was made.

#[cfg(target_os = "linux")]
use super::alloc::{FallocEngine, Fallocate, Ftruncate, FtruncateEngine};
use super::delay::DelayEngine;
use super::files::{FileOpEngine, FileOps};
use super::kind::RingFeatures;
use super::kind::UringOptions;
use super::kind::{DelayDist, DelayStep, EngineKind};
use super::lazy::{Files, Lazy};
use super::mmap::{Mapping, MmapEngine};
use super::null::NullEngine;
use super::sync::{Pread, SyncEngine};
#[cfg(target_os = "linux")]
use super::uring::UringEngine;
use super::IoEngine;
use crate::clock::Clock;
use crate::os::file::{Handles, How, Name};
use crate::os::RawHandle;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The engine a run uses and its settings: the same for every thread.
#[derive(Debug, Clone, Copy)]
pub struct EngineSettings {
    pub kind: EngineKind,
    pub uring: UringOptions,
    /// The delay engine's latencies.
    pub delay: Option<(DelayDist, Option<DelayStep>)>,
    pub seed: u64,
    /// How the targets are opened (a thread that opens its own handles opens them so). The
    /// mmap engine maps writable where the job writes, and advises random access where the
    /// job's offsets are random.
    pub how: How,
    pub random: bool,
}

/// What one thread's engine works on.
pub struct ThreadIo<'a> {
    /// (descriptor, size) of each file; -1 where the thread opens its files itself.
    pub files: Vec<(RawHandle, u64)>,
    /// `--open-files`: the files the thread opens itself, and how many at once.
    pub lazy: Option<(Arc<Files>, u32)>,
    pub queue_depth: u32,
    /// Each I/O slot's buffer, for engines that register them.
    pub buffers: Vec<(*mut u8, usize)>,
    /// A file-operation engine's names, and where it marks the ones it did.
    pub names: Vec<Name>,
    pub done: &'a [AtomicBool],
    pub clock: Clock,
    /// The thread's number in the run, for a random stream of its own.
    pub worker: u64,
}

/// Called with the engine made: the worker loop, monomorphised per engine.
pub trait Drive {
    type Out;
    fn drive<E: IoEngine>(self, engine: E) -> Self::Out;
}

/// Make the thread's engine and hand it to `d`; the ring's features where it is io_uring.
/// An engine that cannot be set up is an error in words for the user.
pub fn build<D: Drive>(
    s: &EngineSettings,
    io: ThreadIo,
    d: D,
) -> Result<(D::Out, Option<RingFeatures>), String> {
    let fds: Vec<RawHandle> = io.files.iter().map(|f| f.0).collect();
    // The thread's own handles where the system wants them (Windows: a completion port per
    // file object, and no serialised synchronous I/O); the run's own elsewhere. They live
    // until the engine, driven to its end below, is done.
    let how = How {
        overlapped: s.kind.caps().overlapped,
        ..s.how
    };
    let own =
        Handles::of(&fds, how).map_err(|e| format!("cannot open the targets for a thread: {e}"))?;
    let fds = own.raw().to_vec();
    let lazy = io.lazy;
    let out = match s.kind {
        #[cfg(target_os = "linux")]
        EngineKind::IoUring => {
            let e = UringEngine::new(&fds, io.queue_depth, s.uring, &io.buffers)
                .map_err(|e| format!("cannot set up io_uring: {e}"))?;
            let features = e.features();
            return Ok((through(e, lazy, io.queue_depth, d), Some(features)));
        }
        #[cfg(windows)]
        EngineKind::Iocp => {
            let e = super::iocp::IocpEngine::new(&fds, io.queue_depth)
                .map_err(|e| format!("cannot set up the completion port: {e}"))?;
            through(e, lazy, io.queue_depth, d)
        }
        EngineKind::Sync => through(SyncEngine::new(Pread(fds)), lazy, io.queue_depth, d),
        #[cfg(target_os = "linux")]
        EngineKind::Falloc => through(FallocEngine::new(Fallocate(fds)), lazy, io.queue_depth, d),
        #[cfg(target_os = "linux")]
        EngineKind::Ftruncate => through(
            FtruncateEngine::new(Ftruncate(fds)),
            lazy,
            io.queue_depth,
            d,
        ),
        EngineKind::Null => through(NullEngine::default(), lazy, io.queue_depth, d),
        EngineKind::Delay => {
            let (dist, step) = s.delay.expect("validated: --engine delay has --delay");
            let e = DelayEngine::new(io.clock, dist, step, s.seed, io.worker);
            through(e, lazy, io.queue_depth, d)
        }
        EngineKind::Mmap => {
            let maps = io
                .files
                .iter()
                .map(|&(fd, size)| Mapping::new(fd, size, s.how.write).map(|m| m.advise(s.random)))
                .collect::<std::io::Result<Vec<_>>>()
                .map_err(|e| format!("cannot map the target into memory: {e}"))?;
            d.drive(MmapEngine::new(maps))
        }
        EngineKind::FileCreate | EngineKind::FileStat | EngineKind::FileDelete => {
            let op = s.kind.file_op().expect("a file-operation engine");
            d.drive(FileOpEngine::new(FileOps::new(op, io.names, io.done)))
        }
        // Refused by validation (`EngineKind::is_here`): never reached.
        #[allow(unreachable_patterns)]
        other => return Err(format!("the {} engine is not on this system", other.name())),
    };
    Ok((out, None))
}

/// Drive `e` through [`Lazy`] where the thread keeps at most `open` files open; a thread that
/// keeps every file open drives its engine directly.
fn through<E: IoEngine, D: Drive>(
    e: E,
    lazy: Option<(Arc<Files>, u32)>,
    depth: u32,
    d: D,
) -> D::Out {
    match lazy {
        Some((files, open)) => d.drive(Lazy::new(e, files, open, depth)),
        None => d.drive(e),
    }
}
