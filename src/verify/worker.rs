//! One worker thread's side of verification, called from the worker loop around each I/O:
//! claim the units before it starts, stamp a write's headers, and when it completes commit
//! the generations of a write or check a read. A verifying worker has twice the buffers:
//! slot i reads into buffer i, as ever, and writes from buffer `slots + i`, filled once, so a
//! write costs its headers, not a checksum of its content (computed once per unit); reads
//! are checked where they land.

use super::block::{self, content_sum, next_gen, Expect, Finding, Header};
use super::map::GenMap;
use super::{Log, Mismatch};
use crate::os::memory::AlignedBuf;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

/// One file of the thread: its map and where the map starts.
pub struct File {
    pub map: Arc<GenMap>,
    pub origin: u64,
    pub id: u32,
    pub path: String,
    /// The seed in the target's headers: the run's that laid it out, or its saved state's.
    pub seed: u64,
}

/// An I/O drawn but not started: one of its units was taken by another I/O. It starts as soon
/// as they are free, before anything new is drawn.
#[derive(Debug, Clone, Copy)]
pub struct Pending {
    pub write: bool,
    /// A trim (drawn in a write's place: `write` is false).
    pub trim: bool,
    /// A write after its trim whose trim was counted (--trim then-write).
    pub follows: bool,
    pub len: u32,
    pub file: u32,
    pub offset: u64,
    pub scheduled: u64,
    /// A read-back of a recent write (verify_backlog), not a draw of the workload.
    pub backlog: bool,
}

/// How the thread verifies, set up once.
pub struct Setup {
    pub files: Vec<File>,
    pub unit: u64,
    /// The run's seed: the content of this thread's write buffers.
    pub seed: u64,
    /// Unique in the run: the worker's number.
    pub thread: u32,
    /// The queue depth: write buffers are the worker's buffers `slots..2 * slots`.
    pub slots: usize,
    pub compress_pct: u8,
    /// New content before each write (--refill-buffers): its checksum is then computed.
    pub refill: bool,
    /// Whether the engine moves data (not the null or delay engine): only then do writes
    /// change what a unit holds, and reads get checked.
    pub check_reads: bool,
    pub go_on: bool,
    pub backlog: Option<u32>,
    pub dump: Option<PathBuf>,
    pub log: Arc<Log>,
}

pub struct WorkerVerify {
    s: Setup,
    /// log2 of the unit, where it is a power of two (a shift, not a division, per I/O).
    shift: Option<u32>,
    /// Content checksum of unit k of slot i's buffer, at `i * per_slot + k`.
    sums: Vec<u64>,
    per_slot: usize,
    seq: u64,
    pub stash: Option<Pending>,
    /// Writes acknowledged since the last read-back (verify_backlog), and those due now.
    written: Vec<(u32, u64, u32)>,
    due: VecDeque<(u32, u64, u32)>,
}

impl WorkerVerify {
    /// Fill the write buffers of `bufs` (its second half) and checksum their units.
    pub fn new(s: Setup, bufs: &mut AlignedBuf) -> WorkerVerify {
        let per_slot = bufs.slot_len() / s.unit as usize;
        let mut sums = Vec::with_capacity(s.slots * per_slot);
        for i in 0..s.slots {
            let b = bufs.slot_mut((s.slots + i) as u32);
            block::fill_content(b, s.seed, s.thread, i as u16, 0, s.compress_pct);
            sums.extend(b.chunks_exact(s.unit as usize).map(content_sum));
        }
        WorkerVerify {
            shift: s.unit.is_power_of_two().then(|| s.unit.trailing_zeros()),
            s,
            sums,
            per_slot,
            seq: 0,
            stash: None,
            written: Vec::new(),
            due: VecDeque::new(),
        }
    }

    /// The buffer a write in `slot` goes from: its index among the worker's buffers.
    #[inline]
    pub fn write_buffer(&self, slot: u32) -> u32 {
        self.s.slots as u32 + slot
    }

    /// `bytes` in units.
    #[inline]
    fn in_units(&self, bytes: u64) -> u64 {
        match self.shift {
            Some(s) => bytes >> s,
            None => bytes / self.s.unit,
        }
    }

    /// The first unit and the number of units of an I/O.
    #[inline]
    fn units(&self, file: u32, offset: u64, len: u32) -> (&File, u64, u64) {
        let f = &self.s.files[file as usize];
        (
            f,
            self.in_units(offset - f.origin),
            self.in_units(u64::from(len)),
        )
    }

    /// Claim the units of an I/O; false where another I/O holds one of them.
    #[inline]
    pub fn claim(&self, file: u32, offset: u64, len: u32) -> bool {
        let (f, first, n) = self.units(file, offset, len);
        f.map.claim(first, n)
    }

    /// Stamp slot `slot`'s write buffer in `bufs` for a write of `len` bytes at `offset`: a
    /// header per unit, each one generation on from the unit's.
    #[inline]
    pub fn stamp(&mut self, bufs: &mut AlignedBuf, slot: u32, file: u32, offset: u64, len: u32) {
        self.seq += 1;
        let s = &self.s;
        let unit = s.unit as usize;
        let (flags, epoch) = match s.refill {
            true => (block::REFILLED, self.seq),
            false => (0, 0),
        };
        let b = bufs.slot_mut(s.slots as u32 + slot);
        if s.refill {
            block::fill_content(b, s.seed, s.thread, slot as u16, epoch, s.compress_pct);
        }
        let (f, first, n) = {
            let (f, first, n) = self.units(file, offset, len);
            (f, first, n as usize)
        };
        for k in 0..n {
            let u = &mut b[k * unit..(k + 1) * unit];
            let content = match s.refill {
                true => content_sum(u),
                false => self.sums[slot as usize * self.per_slot + k],
            };
            Header {
                unit_len: unit as u32,
                offset: offset + (k * unit) as u64,
                seq: self.seq,
                seed: f.seed,
                target: f.id,
                thread: s.thread,
                gen: next_gen(f.map.gen(first + k as u64)),
                slot: slot as u16,
                index: k as u16,
                flags,
                content,
            }
            .put(u);
        }
    }

    /// A write completed: on success its units are one generation on (and due for a
    /// read-back with verify_backlog); on failure what they hold is unknown.
    #[inline]
    pub fn written(&mut self, file: u32, offset: u64, len: u32, ok: bool) {
        let (f, first, n) = self.units(file, offset, len);
        if !self.s.check_reads {
            // Nothing was written: the unit holds what it held.
            f.map.release(first, n);
            return;
        }
        if ok {
            f.map.commit(first, n);
        } else {
            f.map.forget(first, n);
            return;
        }
        if let Some(every) = self.s.backlog {
            self.written.push((file, offset, len));
            if self.written.len() >= every as usize {
                self.due.extend(self.written.drain(..));
            }
        }
    }

    /// The next read-back due (verify_backlog), if any.
    #[inline]
    pub fn backlog_due(&mut self) -> Option<(u32, u64, u32)> {
        self.due.pop_front()
    }

    /// A read completed into `buf`: check each unit (where its generation is known and the
    /// engine brings data), then free the units. A message where a mismatch is to stop the run.
    #[inline]
    pub fn read(
        &mut self,
        buf: &[u8],
        file: u32,
        offset: u64,
        len: u32,
        ok: bool,
        during: &str,
    ) -> Option<String> {
        let (_, first, n) = self.units(file, offset, len);
        let mut stop = None;
        if ok && self.s.check_reads {
            stop = self.check(buf, file, first, n, during);
        }
        self.s.files[file as usize].map.release(first, n);
        stop
    }

    fn check(&self, buf: &[u8], file: u32, first: u64, n: u64, during: &str) -> Option<String> {
        let f = &self.s.files[file as usize];
        let unit = self.s.unit as usize;
        let mut stop = None;
        for k in 0..n {
            let gen = f.map.gen(first + k);
            if gen == 0 {
                self.s
                    .log
                    .unjudged
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                continue;
            }
            let bytes = &buf[k as usize * unit..(k as usize + 1) * unit];
            let e = Expect {
                seed: f.seed,
                target: f.id,
                offset: f.origin + (first + k) * self.s.unit,
                unit_len: unit as u32,
                gen,
                at_least: false,
            };
            self.s
                .log
                .checked
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let (finding, h) = block::check(bytes, &e);
            if finding.is_ok() {
                continue;
            }
            let m = mismatch(
                &f.path,
                &e,
                finding,
                h,
                bytes,
                self.s.compress_pct,
                during,
                self.s.dump.as_deref(),
            );
            let line = m.line();
            self.s.log.add(m);
            if !self.s.go_on && stop.is_none() {
                stop = Some(format!("verification failed: {line}"));
            }
        }
        stop
    }

    /// The units of an I/O that will not start after all (the run stopped): freed unchanged.
    pub fn unclaim(&self, file: u32, offset: u64, len: u32) {
        let (f, first, n) = self.units(file, offset, len);
        f.map.release(first, n);
    }
}

/// A mismatch as reported, with the first differing byte where the header says what the
/// content was, and the bytes dumped where asked.
#[allow(clippy::too_many_arguments)]
pub fn mismatch(
    path: &str,
    e: &Expect,
    finding: Finding,
    h: Option<Header>,
    bytes: &[u8],
    compress_pct: u8,
    during: &str,
    dump: Option<&std::path::Path>,
) -> Mismatch {
    let first_difference = match (&finding, &h) {
        (Finding::Corrupt, Some(h)) => block::first_difference(bytes, h, compress_pct),
        _ => None,
    };
    let mut m = Mismatch {
        target: path.to_string(),
        offset: e.offset,
        unit: u64::from(e.unit_len),
        finding,
        during: during.to_string(),
        expected_gen: e.gen,
        found: h,
        first_difference,
        dumped: Vec::new(),
    };
    if let Some(dir) = dump {
        m.dumped = dump_bytes(dir, path, e.offset, bytes, h.as_ref(), compress_pct);
    }
    m
}

/// fio's verify_dump: the bytes found, and (where the header says what they were) the bytes
/// expected, in `dir` as NAME.OFFSET.received and NAME.OFFSET.expected, as fio names them.
fn dump_bytes(
    dir: &std::path::Path,
    path: &str,
    offset: u64,
    found: &[u8],
    h: Option<&Header>,
    compress_pct: u8,
) -> Vec<String> {
    let name = std::path::Path::new(path)
        .file_name()
        .map_or("target".into(), |n| n.to_string_lossy().into_owned());
    let mut out = Vec::new();
    let mut write = |suffix: &str, bytes: &[u8]| {
        let p = dir.join(format!("{name}.{offset}.{suffix}"));
        if std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
            .and_then(|mut f| std::io::Write::write_all(&mut f, bytes))
            .is_ok()
        {
            out.push(p.display().to_string());
        }
    };
    write("received", found);
    if let Some(h) = h {
        let len = found.len();
        let mut buf = vec![0u8; (usize::from(h.index) + 1) * len];
        block::fill_content(&mut buf, h.seed, h.thread, h.slot, h.epoch(), compress_pct);
        let mut expected = buf[usize::from(h.index) * len..].to_vec();
        h.put(&mut expected);
        write("expected", &expected);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(map: &Arc<GenMap>, log: &Arc<Log>) -> Setup {
        Setup {
            files: vec![File {
                map: map.clone(),
                origin: 0,
                id: 0,
                path: "/t".into(),
                seed: 9,
            }],
            unit: 4096,
            seed: 9,
            thread: 1,
            slots: 2,
            compress_pct: 0,
            refill: false,
            check_reads: true,
            go_on: false,
            backlog: Some(2),
            dump: None,
            log: log.clone(),
        }
    }

    #[test]
    fn what_a_thread_writes_it_reads_back_and_a_lost_write_is_caught() {
        let map = Arc::new(GenMap::new(4, 4096).unwrap());
        map.set_all(1);
        let log = Arc::new(Log::default());
        let mut bufs = AlignedBuf::new(4, 8192).unwrap();
        let mut w = WorkerVerify::new(setup(&map, &log), &mut bufs);
        // Write units 2 and 3 (generation 2), keep a copy as the device would.
        assert!(w.claim(0, 8192, 8192));
        w.stamp(&mut bufs, 1, 0, 8192, 8192);
        assert_eq!(w.write_buffer(1), 3);
        let device = bufs.slot_mut(3).to_vec();
        assert!(!w.claim(0, 12288, 4096), "unit 3 is the write's");
        w.written(0, 8192, 8192, true);
        assert_eq!((map.gen(2), map.gen(3)), (2, 2));
        assert!(w.claim(0, 8192, 8192));
        assert_eq!(w.read(&device, 0, 8192, 8192, true, "read"), None);
        assert_eq!(log.checked.load(std::sync::atomic::Ordering::Relaxed), 2);
        // The device keeps that version while a second write is acknowledged: a lost write.
        assert!(w.claim(0, 8192, 8192));
        w.stamp(&mut bufs, 1, 0, 8192, 8192);
        w.written(0, 8192, 8192, true);
        assert!(w.claim(0, 8192, 8192));
        let stop = w.read(&device, 0, 8192, 8192, true, "read").unwrap();
        assert!(
            stop.contains("generation 2 where 3 was acknowledged"),
            "{stop}"
        );
        assert_eq!(log.count.load(std::sync::atomic::Ordering::Relaxed), 2);
        // Two writes done: both are due for a read-back.
        assert_eq!(w.backlog_due(), Some((0, 8192, 8192)));
        assert!(w.backlog_due().is_some());
    }
}
