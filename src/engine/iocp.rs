//! Windows' I/O completion ports, designed as DiskSpd's engine is: one completion port per
//! thread, overlapped ReadFile/WriteFile at explicit offsets on the thread's own handles
//! (opened with FILE_FLAG_OVERLAPPED: `os::file::Handles`), completions reaped in batches with
//! GetQueuedCompletionStatusEx, and no completion thread: the worker reaps on its own thread.
//! In latency mode the worker looks aside after each submission (`peek`: a zero-wait reap);
//! in IOPS mode it does not (`PEEK_IS_A_CALL`), and completions come in batches.
//!
//! Nothing is allocated per I/O: each slot's OVERLAPPED lives in a boxed array made once, so
//! its address is stable while the system owns it, and the completion's OVERLAPPED pointer
//! names its slot.
//!
//! Flushes (FlushFileBuffers) are done at once on the worker's thread, as fio's windowsaio does
//! them; trims are refused by validation on Windows.

use super::{Cqe, IoEngine, Op, Sqe};
use crate::os::RawHandle;
use std::io;
use windows_sys::Win32::Foundation::{
    CloseHandle, GetLastError, ERROR_HANDLE_EOF, ERROR_IO_PENDING, HANDLE, INVALID_HANDLE_VALUE,
    WAIT_TIMEOUT,
};
use windows_sys::Win32::Storage::FileSystem::{ReadFile, WriteFile};
use windows_sys::Win32::System::IO::{
    CancelIoEx, CreateIoCompletionPort, GetOverlappedResult, GetQueuedCompletionStatusEx,
    OVERLAPPED, OVERLAPPED_ENTRY,
};

/// One I/O slot: its OVERLAPPED first, so that the completion's pointer is the slot's.
#[repr(C)]
struct Slot {
    ov: OVERLAPPED,
    file: u32,
}

pub struct IocpEngine {
    port: HANDLE,
    files: Vec<HANDLE>,
    slots: Box<[Slot]>,
    /// Queued and not yet issued, in order (capacity: the depth, never grown).
    queued: Vec<Sqe>,
    /// Completions known without the port: issues refused at once, flushes done inline.
    done: Vec<Cqe>,
    entries: Box<[OVERLAPPED_ENTRY]>,
    in_flight: u32,
}

// The handles and the port are the thread's own; the engine moves to its thread once.
unsafe impl Send for IocpEngine {}

impl IocpEngine {
    /// A port for `files` (overlapped handles, owned by the caller, open longer than this
    /// engine), `depth` slots.
    pub fn new(files: &[RawHandle], depth: u32) -> io::Result<IocpEngine> {
        // SAFETY: a new port, tied to no file yet; one thread reaps it.
        let port =
            unsafe { CreateIoCompletionPort(INVALID_HANDLE_VALUE, std::ptr::null_mut(), 0, 1) };
        if port.is_null() {
            return Err(io::Error::last_os_error());
        }
        let mut e = IocpEngine {
            port,
            files: Vec::with_capacity(files.len()),
            slots: (0..depth.max(1))
                .map(|_| Slot {
                    // SAFETY: OVERLAPPED is plain data; all zeros is its initial state.
                    ov: unsafe { std::mem::zeroed() },
                    file: 0,
                })
                .collect(),
            queued: Vec::with_capacity(depth.max(1) as usize),
            done: Vec::with_capacity(depth.max(1) as usize),
            // SAFETY: plain data, filled by the system before it is read.
            entries: (0..depth.max(1))
                .map(|_| unsafe { std::mem::zeroed() })
                .collect(),
            in_flight: 0,
        };
        for &f in files {
            e.files.push(std::ptr::null_mut());
            e.attach(e.files.len() - 1, f)?;
        }
        Ok(e)
    }

    /// Tie handle `f` to the port at place `index` (none where the thread opens its own).
    fn attach(&mut self, index: usize, f: RawHandle) -> io::Result<()> {
        let h = f as HANDLE;
        if f != crate::os::NO_HANDLE {
            // SAFETY: `f` is an open overlapped handle, tied to no other port.
            if unsafe { CreateIoCompletionPort(h, self.port, 0, 0) }.is_null() {
                return Err(io::Error::last_os_error());
            }
        }
        self.files[index] = h;
        Ok(())
    }

    /// Issue one queued I/O; one refused at once completes now with its error.
    #[inline]
    fn issue(&mut self, sqe: Sqe) {
        let h = self.files[sqe.file as usize];
        let result = match sqe.op {
            Op::Read | Op::Write => {
                let slot = &mut self.slots[sqe.slot as usize];
                slot.file = sqe.file;
                // SAFETY: OVERLAPPED is plain data: reset before each use, as the system asks.
                slot.ov = unsafe { std::mem::zeroed() };
                slot.ov.Anonymous.Anonymous.Offset = sqe.offset as u32;
                slot.ov.Anonymous.Anonymous.OffsetHigh = (sqe.offset >> 32) as u32;
                // SAFETY: the buffer and the OVERLAPPED stay valid and untouched until the
                // completion for this slot is reaped (`Sqe`; the slots never move).
                let ok = unsafe {
                    if sqe.op == Op::Read {
                        ReadFile(h, sqe.buf, sqe.len, std::ptr::null_mut(), &mut slot.ov)
                    } else {
                        WriteFile(h, sqe.buf, sqe.len, std::ptr::null_mut(), &mut slot.ov)
                    }
                };
                // SAFETY: reads the calling thread's last error.
                match (ok, unsafe { GetLastError() }) {
                    // Done or started: either way a completion comes through the port.
                    (0, ERROR_IO_PENDING) | (1.., _) => {
                        self.in_flight += 1;
                        return;
                    }
                    (_, ERROR_HANDLE_EOF) => 0,
                    (_, e) => -(e as i32),
                }
            }
            Op::Fsync | Op::Fdatasync => crate::os::file::flush(h as RawHandle, true),
            Op::PunchHole | Op::Discard => -crate::os::error::UNSUPPORTED,
        };
        self.done.push(Cqe {
            slot: sqe.slot,
            result,
        });
    }

    /// Reap what the port has within `ms` milliseconds (0: only what is there), appending it.
    fn drain(&mut self, ms: u32, out: &mut Vec<Cqe>) -> io::Result<usize> {
        let mut got = 0u32;
        // SAFETY: `entries` holds `len` entries for the system to fill.
        let ok = unsafe {
            GetQueuedCompletionStatusEx(
                self.port,
                self.entries.as_mut_ptr(),
                self.entries.len() as u32,
                &mut got,
                ms,
                0,
            )
        };
        if ok == 0 {
            // SAFETY: reads the calling thread's last error.
            return match unsafe { GetLastError() } {
                WAIT_TIMEOUT => Ok(0),
                e => Err(io::Error::from_raw_os_error(e as i32)),
            };
        }
        let base = self.slots.as_ptr() as usize;
        for i in 0..got as usize {
            let e = self.entries[i];
            let index = (e.lpOverlapped as usize - base) / std::mem::size_of::<Slot>();
            let result = match e.Internal {
                0 => e.dwNumberOfBytesTransferred as i32,
                _ => self.error_of(index),
            };
            out.push(Cqe {
                slot: index as u32,
                result,
            });
        }
        self.in_flight -= got;
        Ok(got as usize)
    }

    /// The Win32 error of the finished I/O in slot `index`, as a completion's result (0 at the
    /// end of the file, as a read past it).
    #[cold]
    fn error_of(&self, index: usize) -> i32 {
        let slot = &self.slots[index];
        let mut n = 0u32;
        // SAFETY: the I/O in this slot has completed; the call only reads its status.
        let ok =
            unsafe { GetOverlappedResult(self.files[slot.file as usize], &slot.ov, &mut n, 0) };
        if ok != 0 {
            return n as i32;
        }
        // SAFETY: reads the calling thread's last error.
        match unsafe { GetLastError() } {
            ERROR_HANDLE_EOF => 0,
            e => -(e as i32),
        }
    }
}

impl IoEngine for IocpEngine {
    const ASYNC: bool = true;
    const PEEK_IS_A_CALL: bool = true;
    const REAP_SUBMITS: bool = true;

    #[inline]
    fn queue(&mut self, sqe: Sqe) {
        self.queued.push(sqe);
    }

    fn submit(&mut self) -> io::Result<()> {
        for i in 0..self.queued.len() {
            let sqe = self.queued[i];
            self.issue(sqe);
        }
        self.queued.clear();
        Ok(())
    }

    fn peek(&mut self, out: &mut Vec<Cqe>) {
        out.append(&mut self.done);
        if self.in_flight > 0 {
            // A look-aside: a failure here is seen again by the next reap.
            let _ = self.drain(0, out);
        }
    }

    fn reap(&mut self, min: usize, timeout_ns: Option<u64>, out: &mut Vec<Cqe>) -> io::Result<()> {
        self.submit()?;
        let mut got = self.done.len();
        out.append(&mut self.done);
        let ms = timeout_ns.map_or(u32::MAX, |ns| {
            ns.div_ceil(1_000_000).min(u32::MAX as u64 - 1) as u32
        });
        // Each call takes every completion there is (the entries hold the whole depth), so
        // one call is enough unless it came back with fewer than asked.
        while got < min && self.in_flight > 0 {
            let n = self.drain(ms, out)?;
            if n == 0 {
                break;
            }
            got += n;
        }
        Ok(())
    }

    fn set_file(&mut self, index: u32, fd: RawHandle) -> io::Result<()> {
        self.attach(index as usize, fd)
    }
}

impl Drop for IocpEngine {
    fn drop(&mut self) {
        // The system owns the buffers of I/Os in flight: cancel them and wait for each to
        // come back before the slots and buffers go.
        if self.in_flight > 0 {
            for &h in self.files.iter().filter(|h| !h.is_null()) {
                // SAFETY: cancels this thread's I/O on a handle it holds open.
                unsafe { CancelIoEx(h, std::ptr::null()) };
            }
            let mut sink = Vec::new();
            while self.in_flight > 0 {
                if !matches!(self.drain(u32::MAX, &mut sink), Ok(1..)) {
                    break;
                }
                sink.clear();
            }
        }
        // SAFETY: the port made in `new`, closed once.
        unsafe { CloseHandle(self.port) };
    }
}
