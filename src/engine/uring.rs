//! Linux io_uring. I/Os go to the kernel when the worker says (`submit`), each submission also
//! collects completions that arrived meanwhile, so that a look-aside (`peek`) sees them without
//! another system call; every completion in the ring is reaped at once (batched completions).
//!
//! Where the kernel allows it, the target and the buffers are registered with the ring (no
//! per-I/O file lookup or page pinning), and the ring runs completions only when this thread
//! asks (DEFER_TASKRUN), so the kernel does not interrupt the worker to post each one.

use super::kind::RingFeatures;
use super::{Cqe, IoEngine, Op, Sqe};
use io_uring::{opcode, types, IoUring};
use std::io;
use std::os::fd::{AsRawFd, RawFd};

const IORING_ENTER_GETEVENTS: u32 = 1;
// The kernel's uapi (Linux 5.18): a ring's own descriptor registered with itself.
const IORING_ENTER_REGISTERED_RING: u32 = 16;
const IORING_REGISTER_RING_FDS: u32 = 20;
const IORING_UNREGISTER_RING_FDS: u32 = 21;

/// The kernel's io_uring_rsrc_update.
#[repr(C)]
struct RsrcUpdate {
    offset: u32,
    resv: u32,
    data: u64,
}

pub use super::kind::UringOptions;
/// The deepest queue a ring can have (kind.rs says why: it is a capability of the engine).
pub use super::kind::URING_MAX_DEPTH as MAX_DEPTH;

pub struct UringEngine {
    ring: IoUring,
    fds: Vec<RawFd>,
    queued: u32,
    /// Completions of I/Os done at once in `queue` (discards), handed out with the ring's.
    done: Vec<Cqe>,
    ext_arg: bool,
    features: RingFeatures,
    /// The ring's descriptor registered with the thread's io_uring context: io_uring_enter
    /// then names it by this index and the kernel looks up no descriptor per call (as
    /// t/io_uring does). None where the kernel lacks it, and with sqpoll (the crate's submit
    /// wakes the polling thread).
    ring_index: Option<u32>,
}

/// Registers `ring`'s descriptor with the calling thread's io_uring context; its index.
fn register_ring_fd(ring: &IoUring) -> Option<u32> {
    let mut up = RsrcUpdate {
        offset: u32::MAX,
        resv: 0,
        data: ring.as_raw_fd() as u64,
    };
    // SAFETY: io_uring_register with one io_uring_rsrc_update that outlives the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            ring.as_raw_fd(),
            IORING_REGISTER_RING_FDS,
            &mut up as *mut RsrcUpdate,
            1u32,
        )
    };
    (r == 1).then_some(up.offset)
}

/// The kernel tears a closed ring down later, in a work queue, and only then lets go of its
/// registered files: the target's file system stayed busy ("target is busy" on umount) for a
/// while after iogauge exited. Unregistering puts them back at once, in this call; fio, which
/// registers none by default, never held them.
impl Drop for UringEngine {
    fn drop(&mut self) {
        if let Some(i) = self.ring_index {
            // Registered, the ring's descriptor is held by the thread until it exits.
            let up = RsrcUpdate {
                offset: i,
                resv: 0,
                data: 0,
            };
            // SAFETY: as in register_ring_fd.
            unsafe {
                libc::syscall(
                    libc::SYS_io_uring_register,
                    self.ring.as_raw_fd(),
                    IORING_UNREGISTER_RING_FDS,
                    &up as *const RsrcUpdate,
                    1u32,
                )
            };
        }
        let s = self.ring.submitter();
        if self.features.registered_file {
            let _ = s.unregister_files();
        }
        if self.features.registered_buffers {
            let _ = s.unregister_buffers();
        }
    }
}

fn build(depth: u32, opts: UringOptions, defer: bool) -> io::Result<IoUring> {
    let mut b = IoUring::builder();
    if opts.sqpoll {
        b.setup_sqpoll(1000);
    }
    if opts.hipri {
        b.setup_iopoll();
    }
    if defer && !opts.sqpoll {
        b.setup_coop_taskrun()
            .setup_single_issuer()
            .setup_defer_taskrun();
    }
    b.build(depth.next_power_of_two().max(2))
}

impl UringEngine {
    /// A ring for `depth` I/Os in flight on `fds` (a thread's files), with the files and
    /// `buffers` (one per slot) registered where possible. Fails where io_uring is missing or
    /// forbidden, or an option is refused.
    pub fn new(
        fds: &[RawFd],
        depth: u32,
        opts: UringOptions,
        buffers: &[(*mut u8, usize)],
    ) -> io::Result<Self> {
        // DEFER_TASKRUN and SINGLE_ISSUER need Linux 6.1: a plain ring before that.
        let (ring, defer) = match build(depth, opts, true) {
            Ok(r) => (r, !opts.sqpoll),
            Err(_) => (build(depth, opts, false)?, false),
        };
        let ext_arg = ring.params().is_feature_ext_arg();
        let mut features = RingFeatures {
            defer_taskrun: defer,
            sqpoll: opts.sqpoll,
            hipri: opts.hipri,
            ..Default::default()
        };
        if opts.register {
            features.registered_file =
                !opts.changing_files && ring.submitter().register_files(fds).is_ok();
            let iovecs: Vec<libc::iovec> = buffers
                .iter()
                .map(|&(p, len)| libc::iovec {
                    iov_base: p as *mut libc::c_void,
                    iov_len: len,
                })
                .collect();
            // SAFETY: the buffers outlive the ring: the worker drops the engine first.
            features.registered_buffers =
                unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        }
        let ring_index = match opts.sqpoll {
            true => None,
            false => register_ring_fd(&ring),
        };
        features.registered_ring = ring_index.is_some();
        Ok(UringEngine {
            ring,
            fds: fds.to_vec(),
            queued: 0,
            done: Vec::new(),
            ext_arg,
            features,
            ring_index,
        })
    }

    pub fn features(&self) -> RingFeatures {
        self.features
    }

    /// Whether io_uring can be used here at all, with the reason when not.
    pub fn probe() -> Result<(), String> {
        match IoUring::new(2) {
            Ok(_) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[inline]
    fn push(&mut self, entry: io_uring::squeue::Entry) {
        // SAFETY: the buffer stays valid until the completion for this slot is reaped (`Sqe`).
        // The ring has at least `depth` entries and the runner never has more in flight.
        unsafe { self.ring.submission().push(&entry) }
            .expect("submission queue sized to the queue depth");
        self.queued += 1;
    }

    /// io_uring_enter with no argument, by the registered index where there is one.
    #[inline]
    fn enter(&self, to_submit: u32, min: u32, flags: u32) -> io::Result<usize> {
        let Some(i) = self.ring_index else {
            // SAFETY: plain io_uring_enter on our ring, no argument.
            return unsafe {
                self.ring
                    .submitter()
                    .enter::<libc::sigset_t>(to_submit, min, flags, None)
            };
        };
        // SAFETY: io_uring_enter on the index this thread registered, no argument.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                i,
                to_submit,
                min,
                flags | IORING_ENTER_REGISTERED_RING,
                std::ptr::null::<libc::c_void>(),
                0usize,
            )
        };
        match r {
            r if r < 0 => Err(io::Error::last_os_error()),
            r => Ok(r as usize),
        }
    }

    fn drain(&mut self, out: &mut Vec<Cqe>) {
        out.append(&mut self.done);
        for cqe in self.ring.completion() {
            out.push(Cqe {
                slot: cqe.user_data() as u32,
                result: cqe.result(),
            });
        }
    }
}

impl IoEngine for UringEngine {
    const ASYNC: bool = true;
    const REAP_SUBMITS: bool = true;

    #[inline]
    fn queue(&mut self, sqe: Sqe) {
        let f = &self.features;
        let (slot, len, off) = (sqe.slot, sqe.len, sqe.offset);
        // A registered file is its index; otherwise the descriptor.
        let (fixed, fd) = (
            types::Fixed(sqe.file),
            types::Fd(self.fds[sqe.file as usize]),
        );
        let write = match sqe.op {
            Op::Read => false,
            Op::Write => true,
            Op::PunchHole => {
                let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
                let entry = if f.registered_file {
                    opcode::Fallocate::new(fixed, len as u64)
                        .offset(off)
                        .mode(mode)
                        .build()
                } else {
                    opcode::Fallocate::new(fd, len as u64)
                        .offset(off)
                        .mode(mode)
                        .build()
                };
                self.push(entry.user_data(slot as u64));
                return;
            }
            // io_uring has no discard of its own before Linux 6.12's block commands: done here,
            // at once, as fio's io_uring engine does its trims; the completion waits in `done`.
            Op::Discard => {
                let fd = self.fds[sqe.file as usize];
                let result = super::trim_once(fd, Op::Discard, off, len);
                self.done.push(Cqe { slot, result });
                return;
            }
            Op::Fsync | Op::Fdatasync => {
                let flags = if sqe.op == Op::Fdatasync {
                    types::FsyncFlags::DATASYNC
                } else {
                    types::FsyncFlags::empty()
                };
                let entry = if f.registered_file {
                    opcode::Fsync::new(fixed).flags(flags).build()
                } else {
                    opcode::Fsync::new(fd).flags(flags).build()
                };
                self.push(entry.user_data(slot as u64));
                return;
            }
        };
        let entry = match (write, f.registered_file, f.registered_buffers) {
            (false, true, true) => {
                opcode::ReadFixed::new(fixed, sqe.buf, len, sqe.buf_index as u16)
                    .offset(off)
                    .ioprio(sqe.ioprio)
                    .build()
            }
            (true, true, true) => {
                opcode::WriteFixed::new(fixed, sqe.buf, len, sqe.buf_index as u16)
                    .offset(off)
                    .ioprio(sqe.ioprio)
                    .build()
            }
            (false, true, false) => opcode::Read::new(fixed, sqe.buf, len)
                .offset(off)
                .ioprio(sqe.ioprio)
                .build(),
            (true, true, false) => opcode::Write::new(fixed, sqe.buf, len)
                .offset(off)
                .ioprio(sqe.ioprio)
                .build(),
            (false, false, true) => opcode::ReadFixed::new(fd, sqe.buf, len, sqe.buf_index as u16)
                .offset(off)
                .ioprio(sqe.ioprio)
                .build(),
            (true, false, true) => opcode::WriteFixed::new(fd, sqe.buf, len, sqe.buf_index as u16)
                .offset(off)
                .ioprio(sqe.ioprio)
                .build(),
            (false, false, false) => opcode::Read::new(fd, sqe.buf, len)
                .offset(off)
                .ioprio(sqe.ioprio)
                .build(),
            (true, false, false) => opcode::Write::new(fd, sqe.buf, len)
                .offset(off)
                .ioprio(sqe.ioprio)
                .build(),
        }
        .user_data(slot as u64);
        self.push(entry);
    }

    /// Only for a ring made with [`UringOptions::changing_files`]: its files are not registered.
    fn set_file(&mut self, index: u32, fd: RawFd) -> io::Result<()> {
        if self.features.registered_file {
            return Err(io::ErrorKind::Unsupported.into());
        }
        self.fds[index as usize] = fd;
        Ok(())
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        if self.queued == 0 {
            return Ok(());
        }
        let r = if self.features.sqpoll {
            // The crate wakes the polling thread when it sleeps.
            self.ring.submit()
        } else {
            // GETEVENTS with no minimum: submit, and post completions that arrived meanwhile
            // (deferred ones included) so that the look-aside after this call finds them.
            self.enter(self.queued, 0, IORING_ENTER_GETEVENTS)
        };
        match r {
            Ok(n) => {
                self.queued -= (n as u32).min(self.queued);
                Ok(())
            }
            // Busy or interrupted: the entries stay queued; `reap` submits them.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EBUSY | libc::EAGAIN | libc::EINTR)
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    #[inline]
    fn peek(&mut self, out: &mut Vec<Cqe>) {
        self.drain(out);
    }

    fn reap(&mut self, min: usize, timeout_ns: Option<u64>, out: &mut Vec<Cqe>) -> io::Result<()> {
        let ready = self.ring.completion().len() + self.done.len();
        let want = if ready >= min { 0 } else { min };
        if self.queued > 0 || want > 0 {
            let r = match timeout_ns {
                Some(ns) if want > 0 && self.ext_arg => {
                    let ts = types::Timespec::new()
                        .sec(ns / 1_000_000_000)
                        .nsec((ns % 1_000_000_000) as u32);
                    let args = types::SubmitArgs::new().timespec(&ts);
                    self.ring.submitter().submit_with_args(want, &args)
                }
                _ if self.features.sqpoll => self.ring.submit_and_wait(want),
                _ => {
                    // Submit and wait, by the registered index. GETEVENTS even with nothing to
                    // wait for: deferred completions are posted only by a call that carries it.
                    let to_submit = self.ring.submission().len() as u32;
                    self.enter(to_submit, want as u32, IORING_ENTER_GETEVENTS)
                }
            };
            match r {
                Ok(_) => self.queued = 0,
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::ETIME | libc::EINTR | libc::EBUSY)
                    ) =>
                {
                    self.queued = self.ring.submission().len() as u32;
                }
                Err(e) => return Err(e),
            }
        }
        self.drain(out);
        Ok(())
    }
}
