//! io_uring's options checked on a target before a run (Linux only, as io_uring is).

use super::target::{self, OpenTarget};
use super::worker;
use crate::engine::uring::{UringEngine, UringOptions};
use crate::engine::{Op, Sqe};
use crate::error::{Error, Result};
use crate::os::error::Class;
use crate::os::NO_HANDLE;
use crate::spec::{Flag, JobSpec};

/// Check --sqpoll and --hipri on the target before the run (io_uring's, so Linux's: validation
/// refuses them elsewhere): one read (never a write) through
/// a ring set up as the run's will be, so that a refusal is a clear error, not a failed run.
pub(super) fn probe_uring_options(t: &OpenTarget, job: &JobSpec, opts: UringOptions) -> Result<()> {
    let shown = t.path.display();
    let flag = job.name(if job.engine.hipri {
        Flag::Hipri
    } else {
        Flag::Sqpoll
    });
    let mut rng = crate::rng::Rng::new(1, &[]);
    let buf = worker::buffers(1, job.shape.block_size as usize, &mut rng, 0, None)
        .map_err(Error::runtime)?;
    // A target checked and closed (--open-files) is opened again for the test.
    let again = match &t.file {
        Some(_) => None,
        None => Some(target::reopen(job, t)?),
    };
    let fd = t
        .file
        .as_ref()
        .or(again.as_ref())
        .map_or(NO_HANDLE, crate::os::raw);
    let mut e = UringEngine::new(&[fd], 1, opts, &buf.slots()).map_err(|e| {
        Error::usage(format!(
            "{flag}: this kernel refuses the io_uring set-up ({e}); drop {flag}"
        ))
    })?;
    use crate::engine::IoEngine;
    e.queue(Sqe {
        slot: 0,
        op: Op::Read,
        file: 0,
        offset: t.start,
        len: job.shape.block_size as u32,
        buf: buf.slot(0),
        buf_index: 0,
        ioprio: 0,
    });
    let mut out = Vec::new();
    e.reap(1, Some(1_000_000_000), &mut out).map_err(|err| {
        Error::usage(format!(
            "{flag}: io_uring failed on '{shown}' ({err}); drop {flag}"
        ))
    })?;
    match out.first() {
        Some(c) if c.result == job.shape.block_size as i32 => Ok(()),
        Some(c) if job.engine.hipri && matches!(crate::os::error::class(-c.result), Class::Unsupported | Class::Invalid) => Err(Error::usage(format!(
            "{flag}: '{shown}' does not support polled I/O (its device has no poll queues; for NVMe see nvme.poll_queues); drop {flag}"
        ))),
        Some(c) => Err(Error::usage(format!(
            "{flag}: a test read of '{shown}' failed ({}); drop {flag}",
            std::io::Error::from_raw_os_error(-c.result.min(-1))
        ))),
        None => {
            // The read may still be in the kernel's hands: never free its buffer.
            drop(e);
            std::mem::forget(buf);
            let why = if job.engine.hipri {
                "its device has no poll queues (for NVMe see nvme.poll_queues)"
            } else {
                "the submission thread did not pick it up"
            };
            Err(Error::usage(format!("{flag}: a test read of '{shown}' did not complete within 1 s: {why}; drop {flag}")))
        }
    }
}
