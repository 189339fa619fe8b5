//! A thread's files opened as its I/Os go to them, at most `open` at once (fio's openfiles),
//! around any engine that takes descriptors. The engine inside sees `open` places, each holding
//! one file at a time ([`IoEngine::set_file`]); an I/O to a file that is not open opens it in
//! the place of the least recently used file with no I/O in flight, which is closed first. Where
//! every open file has I/O in flight, the I/O waits here until one has none; where its file
//! cannot be opened, it completes with the error, named an open error.
//!
//! fio differs: it closes a file only once the file is done (its size read or written), and
//! while `openfiles` are open it reaps and passes over the files that are not, so its I/O goes
//! to the first `openfiles` files until they are done, then the next. Here the order of files
//! is the job's own (`--file-service`), whatever is open, and a switch costs an open and a close.
//!
//! Only runs that limit open files come here: a thread that keeps every file open drives its
//! engine directly, so the per-I/O path of those runs has nothing of this.

use super::{Cqe, IoEngine, Op, Sqe};
use crate::os::file::{self, How, Name};
use crate::os::owned::Identity;
use crate::os::{RawHandle, NO_HANDLE};
use std::collections::VecDeque;
use std::io;
use std::sync::Arc;

const NONE: u32 = u32::MAX;

/// The files of a set, as each of its threads opens them; shared by those threads.
pub struct Files {
    /// Paths, as the system's open call takes them.
    pub names: Vec<Name>,
    /// Each file's device, inode and birth time when the run was set up: a file opened again
    /// must still be that one, or a file put in its place would be written (or measured)
    /// instead. `None`: not known, not checked.
    pub ids: Vec<Option<Identity>>,
    /// As the targets were opened: access, unbuffered, write-through.
    pub how: How,
}

/// One place of the engine inside: the file it holds, and its neighbours in the order of use.
#[derive(Clone, Copy)]
struct Place {
    file: u32,
    fd: RawHandle,
    inflight: u32,
    /// Towards the most recently used (`prev`) and the least (`next`).
    prev: u32,
    next: u32,
}

/// Why an I/O's file has no place.
enum NoPlace {
    /// Every place has I/O in flight: wait for one to complete.
    Busy,
    /// The file could not be opened: this errno.
    Failed(i32),
}

pub struct Lazy<E> {
    inner: E,
    files: Arc<Files>,
    places: Vec<Place>,
    /// Each file's place, or NONE where it is not open.
    place_of: Vec<u32>,
    /// Most and least recently used places.
    head: u32,
    tail: u32,
    /// The place of the I/O in each slot.
    slot_place: Vec<u32>,
    /// Whether the I/O in each slot failed because its file could not be opened.
    open_failed: Vec<bool>,
    /// I/Os waiting for a place, in the order they came.
    waiting: VecDeque<Sqe>,
    /// Completions of I/Os whose file could not be opened, not yet handed out.
    failed: Vec<Cqe>,
    /// Slots of waiting I/Os that went to the engine inside since [`IoEngine::started_late`].
    late: Vec<u32>,
}

impl<E: IoEngine> Lazy<E> {
    /// `inner` was made for `open` files (descriptors -1); `depth`: the I/O slots.
    pub fn new(inner: E, files: Arc<Files>, open: u32, depth: u32) -> Self {
        let n = open.max(1);
        let places = (0..n)
            .map(|i| Place {
                file: NONE,
                fd: -1,
                inflight: 0,
                prev: if i == 0 { NONE } else { i - 1 },
                next: if i + 1 == n { NONE } else { i + 1 },
            })
            .collect();
        Lazy {
            inner,
            place_of: vec![NONE; files.names.len()],
            files,
            places,
            head: 0,
            tail: n - 1,
            slot_place: vec![NONE; depth as usize],
            open_failed: vec![false; depth as usize],
            waiting: VecDeque::with_capacity(depth as usize),
            failed: Vec::new(),
            late: Vec::with_capacity(depth as usize),
        }
    }

    fn unlink(&mut self, p: u32) {
        let Place { prev, next, .. } = self.places[p as usize];
        match prev {
            NONE => self.head = next,
            q => self.places[q as usize].next = next,
        }
        match next {
            NONE => self.tail = prev,
            q => self.places[q as usize].prev = prev,
        }
    }

    /// Make `p` the most recently used place.
    fn touch(&mut self, p: u32) {
        if self.head == p {
            return;
        }
        self.unlink(p);
        let old = self.head;
        self.places[p as usize].prev = NONE;
        self.places[p as usize].next = old;
        if old != NONE {
            self.places[old as usize].prev = p;
        }
        self.head = p;
        if self.tail == NONE {
            self.tail = p;
        }
    }

    /// The least recently used place with no I/O in flight: at most as many places are passed
    /// over as there are I/Os in flight.
    fn idle_place(&self) -> Option<u32> {
        let mut p = self.tail;
        while p != NONE {
            if self.places[p as usize].inflight == 0 {
                return Some(p);
            }
            p = self.places[p as usize].prev;
        }
        None
    }

    /// Close the file in place `p`, if any.
    fn close(&mut self, p: u32) {
        let place = &mut self.places[p as usize];
        if place.file != NONE {
            self.place_of[place.file as usize] = NONE;
            // Opened here and closed nowhere else; no I/O on it is in flight.
            file::close_raw(place.fd);
        }
        place.file = NONE;
        place.fd = NO_HANDLE;
    }

    /// The place of `file`, opened now in the least recently used idle place if it is not
    /// open. The old file is closed first, so that a thread never holds more than `open`.
    fn place_for(&mut self, file: u32) -> Result<u32, NoPlace> {
        let p = self.place_of[file as usize];
        if p != NONE {
            return Ok(p);
        }
        let p = self.idle_place().ok_or(NoPlace::Busy)?;
        self.close(p);
        let fd = self.open(file).map_err(NoPlace::Failed)?;
        if let Err(e) = self.inner.set_file(p, fd) {
            // Just opened above, owned by nobody else.
            file::close_raw(fd);
            return Err(NoPlace::Failed(
                e.raw_os_error().unwrap_or(crate::os::error::IO),
            ));
        }
        let place = &mut self.places[p as usize];
        place.file = file;
        place.fd = fd;
        self.place_of[file as usize] = p;
        Ok(p)
    }

    /// Open `file` as the run's targets were opened; it must still be the file that was
    /// checked then (ESTALE where another stands at its path).
    fn open(&self, file: u32) -> Result<RawHandle, i32> {
        let fd = file::open_raw(&self.files.names[file as usize], self.files.how)?;
        let was = self.files.ids[file as usize];
        if was.is_some() && Identity::of_raw(fd).ok() != was {
            file::close_raw(fd);
            return Err(crate::os::error::STALE);
        }
        Ok(fd)
    }

    /// Queue `sqe` on its file's place, or keep it waiting, or fail it.
    fn place(&mut self, sqe: Sqe) -> bool {
        match self.place_for(sqe.file) {
            Ok(p) => {
                let slot = sqe.slot as usize;
                self.places[p as usize].inflight += 1;
                self.slot_place[slot] = p;
                self.open_failed[slot] = false;
                self.touch(p);
                self.inner.queue(Sqe { file: p, ..sqe });
                true
            }
            Err(NoPlace::Busy) => false,
            Err(NoPlace::Failed(errno)) => {
                self.open_failed[sqe.slot as usize] = true;
                self.failed.push(Cqe {
                    slot: sqe.slot,
                    result: -errno,
                });
                true
            }
        }
    }

    /// The I/O in `slot` is no longer in flight on its place.
    fn release(&mut self, slot: u32) {
        let p = std::mem::replace(&mut self.slot_place[slot as usize], NONE);
        if p != NONE {
            self.places[p as usize].inflight -= 1;
        }
    }

    /// The I/Os of `slots` are no longer in flight on their places; those waiting go out where
    /// a place is free now.
    fn done(&mut self, slots: impl Iterator<Item = u32>) -> io::Result<()> {
        for slot in slots {
            self.release(slot);
        }
        let mut queued = false;
        while let Some(&sqe) = self.waiting.front() {
            if !self.place(sqe) {
                break;
            }
            self.waiting.pop_front();
            if !self.open_failed[sqe.slot as usize] {
                self.late.push(sqe.slot);
                queued = true;
            }
        }
        if queued {
            self.inner.submit()?;
        }
        Ok(())
    }
}

impl<E: IoEngine> IoEngine for Lazy<E> {
    const ASYNC: bool = E::ASYNC;
    const INJECTS: bool = E::INJECTS;
    const PEEK_IS_A_CALL: bool = E::PEEK_IS_A_CALL;
    const MOVES_DATA: bool = E::MOVES_DATA;
    const OPENS_FILES: bool = true;

    #[inline]
    fn queue(&mut self, sqe: Sqe) {
        // Those waiting go first: a file freed later is theirs.
        if !self.waiting.is_empty() || !self.place(sqe) {
            self.waiting.push_back(sqe);
        }
    }

    fn submit(&mut self) -> io::Result<()> {
        self.inner.submit()
    }

    fn peek(&mut self, out: &mut Vec<Cqe>) {
        let from = out.len();
        self.inner.peek(out);
        // A failed submission of waiting I/Os is seen again at the next submit or reap.
        let _ = self.done(out[from..].iter().map(|c| c.slot));
        out.append(&mut self.failed);
    }

    fn reap(&mut self, min: usize, timeout_ns: Option<u64>, out: &mut Vec<Cqe>) -> io::Result<()> {
        let failed = self.failed.len();
        out.append(&mut self.failed);
        let from = out.len();
        self.inner
            .reap(min.saturating_sub(failed), timeout_ns, out)?;
        self.done(out[from..].iter().map(|c| c.slot))?;
        out.append(&mut self.failed);
        Ok(())
    }

    fn cancel(&mut self, out: &mut Vec<u32>) {
        let from = out.len();
        self.inner.cancel(out);
        for &slot in &out[from..] {
            self.release(slot);
        }
        // Those still waiting never started.
        out.extend(self.waiting.drain(..).map(|s| s.slot));
    }

    fn started_late(&mut self, out: &mut Vec<u32>) {
        out.append(&mut self.late);
    }

    fn verb(&self, op: Op) -> &'static str {
        self.inner.verb(op)
    }

    fn verb_of(&self, slot: u32, op: Op) -> &'static str {
        if self.open_failed[slot as usize] {
            "open"
        } else {
            self.inner.verb_of(slot, op)
        }
    }

    fn injected_ns(&self, slot: u32) -> u64 {
        self.inner.injected_ns(slot)
    }
}

impl<E> Drop for Lazy<E> {
    fn drop(&mut self) {
        for p in &self.places {
            if p.file != NONE {
                // Opened here, closed nowhere else. An I/O still in flight (after an engine
                // failure) holds its own reference to the file.
                file::close_raw(p.fd);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Completes its I/Os in the order they came, `min` at a time, and keeps the descriptors
    /// it is given.
    struct Fifo {
        queued: VecDeque<Sqe>,
        fds: Vec<RawHandle>,
    }

    impl IoEngine for Fifo {
        const ASYNC: bool = true;
        fn queue(&mut self, sqe: Sqe) {
            self.queued.push_back(sqe);
        }
        fn submit(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn peek(&mut self, _out: &mut Vec<Cqe>) {}
        fn reap(&mut self, min: usize, _t: Option<u64>, out: &mut Vec<Cqe>) -> io::Result<()> {
            for s in self.queued.drain(..min.min(self.queued.len())) {
                out.push(Cqe {
                    slot: s.slot,
                    result: s.len as i32,
                });
            }
            Ok(())
        }
        fn set_file(&mut self, index: u32, fd: RawHandle) -> io::Result<()> {
            self.fds[index as usize] = fd;
            Ok(())
        }
    }

    fn sqe(slot: u32, file: u32) -> Sqe {
        Sqe {
            slot,
            op: Op::Read,
            file,
            offset: 0,
            len: 512,
            buf: std::ptr::null_mut(),
            buf_index: slot,
            ioprio: 0,
        }
    }

    /// Four files, at most two open, four I/O slots.
    fn setup(dir: &std::path::Path) -> Lazy<Fifo> {
        let paths: Vec<_> = (0..4).map(|i| dir.join(format!("f{i}"))).collect();
        let ids = paths
            .iter()
            .map(|p| {
                let f = std::fs::File::create(p).unwrap();
                Identity::of_file(&f).ok()
            })
            .collect();
        let names = paths.iter().map(|p| Name::new(p).unwrap()).collect();
        let files = Arc::new(Files {
            names,
            ids,
            how: How::default(),
        });
        let inner = Fifo {
            queued: VecDeque::new(),
            fds: vec![-1; 2],
        };
        Lazy::new(inner, files, 2, 4)
    }

    fn file_at(l: &Lazy<Fifo>, place: usize) -> u32 {
        let id = Identity::of_raw(l.inner.fds[place]).ok();
        l.files.ids.iter().position(|&x| x == id).unwrap() as u32
    }

    #[test]
    fn an_io_waits_for_a_place_then_takes_the_least_recently_used() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = setup(dir.path());
        let mut out = Vec::new();
        l.queue(sqe(0, 0));
        l.queue(sqe(1, 1));
        let zero = l.inner.queued[0].file;
        assert_eq!(file_at(&l, zero as usize), 0);
        // Both places have an I/O in flight: the third waits.
        l.queue(sqe(2, 2));
        assert_eq!(l.inner.queued.len(), 2);
        l.reap(1, None, &mut out).unwrap();
        assert_eq!(out.iter().map(|c| c.slot).collect::<Vec<_>>(), [0]);
        // File 0's place was freed: file 2 is opened there.
        let last = *l.inner.queued.back().unwrap();
        assert_eq!((last.slot, last.file), (2, zero));
        let mut late = Vec::new();
        l.started_late(&mut late);
        assert_eq!(late, [2]);
        assert_eq!(file_at(&l, zero as usize), 2);
        // File 1 used again: file 2's place is now the least recently used.
        l.queue(sqe(0, 1));
        l.reap(3, None, &mut out).unwrap();
        l.queue(sqe(1, 3));
        assert_eq!(l.inner.queued.back().unwrap().file, zero);
        assert_eq!(file_at(&l, zero as usize), 3);
        assert_eq!(file_at(&l, 1 - zero as usize), 1);
    }

    #[test]
    fn a_file_that_cannot_be_opened_or_was_replaced_fails_its_io_as_an_open_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut l = setup(dir.path());
        let mut out = Vec::new();
        std::fs::remove_file(dir.path().join("f0")).unwrap();
        l.queue(sqe(0, 0));
        // Another file in f1's place.
        std::fs::File::create(dir.path().join("new")).unwrap();
        std::fs::rename(dir.path().join("new"), dir.path().join("f1")).unwrap();
        l.queue(sqe(1, 1));
        l.reap(1, None, &mut out).unwrap();
        let got: Vec<(u32, i32)> = out.iter().map(|c| (c.slot, c.result)).collect();
        assert_eq!(
            got,
            [
                (0, -crate::os::error::NOT_FOUND),
                (1, -crate::os::error::STALE)
            ]
        );
        assert_eq!(l.verb_of(0, Op::Read), "open");
        // A slot used again for an I/O that opens its file is not an open error.
        l.queue(sqe(0, 2));
        assert_eq!(l.verb_of(0, Op::Read), "read");
        assert!(l.inner.queued.len() == 1 && l.waiting.is_empty());
    }
}
