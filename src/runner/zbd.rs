//! Zones with write pointers (`--zbd`, fio's zonemode=zbd), emulated as fio 3.33 emulates them
//! on a regular file or a block device the kernel does not show as zoned (zbd.c,
//! init_zone_info): every zone starts empty, a write goes to the write pointer of its zone or
//! of another open zone and moves it on, a full zone is reset before it is written again, and
//! a read sees only what lies below a write pointer.
//!
//! One [`ZoneTable`] per target is shared by every thread of every job on it for the life of
//! the process, as fio's jobs share theirs. Its lock is taken once per I/O; a write's bytes
//! are counted on the write pointer when the I/O is drawn (fio moves it as the I/O is queued),
//! so threads may have writes to one zone in flight together. fio instead holds a zone's lock
//! from one thread's I/O to its completion; on an emulated zone the data is the same either
//! way, and a real zoned device (which would need fio's order) is refused.

use crate::os::owned::Identity;
use crate::spec::WritePointerZones;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// One target's zones.
pub struct ZoneTable {
    geo: WritePointerZones,
    state: Mutex<State>,
}

struct State {
    /// Each zone's write pointer, in bytes from the start of the target.
    wp: Vec<u64>,
    /// Zones open for writing, and the thread that opened each (tracked only under a limit).
    open: Vec<(u32, u32)>,
    /// Bytes below the write pointers.
    with_data: u64,
    /// Writes before the next reset the reset frequency asks for.
    write_cnt: u64,
}

/// What becomes of a drawn I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zoned {
    /// Do it here, this long.
    Io { offset: u64, len: u32 },
    /// Nothing left this thread can do: no zone has data to read, or none can be opened.
    End,
}

type Key = (Identity, u64, u64, u64);

/// The process's zone tables, by target identity, size and geometry.
fn tables() -> &'static Mutex<HashMap<Key, Arc<ZoneTable>>> {
    static TABLES: OnceLock<Mutex<HashMap<Key, Arc<ZoneTable>>>> = OnceLock::new();
    TABLES.get_or_init(Default::default)
}

impl ZoneTable {
    /// The zones of a target of `size` bytes: the process's table for it where an earlier
    /// job made one, else a new one with every zone empty. Without an identity (nothing to
    /// know the file again by) always a new one.
    pub fn of(id: Option<Identity>, size: u64, geo: WritePointerZones) -> Arc<ZoneTable> {
        let make = || {
            let zones = size.div_ceil(geo.size) as usize;
            Arc::new(ZoneTable {
                geo,
                state: Mutex::new(State {
                    wp: (0..zones as u64).map(|z| z * geo.size).collect(),
                    open: Vec::new(),
                    with_data: 0,
                    write_cnt: first_count(geo.reset_frequency),
                }),
            })
        };
        let Some(id) = id else {
            return make();
        };
        let key = (id, size, geo.size, geo.capacity);
        let mut t = tables().lock().unwrap_or_else(|e| e.into_inner());
        t.entry(key).or_insert_with(make).clone()
    }

    /// The limit of open zones over all threads: the first job's on the target. A later job
    /// may leave it unset, not set another (fio: "Different 'max_open_zones' values").
    pub fn max_open(&self, asked: u32) -> std::result::Result<u32, u32> {
        match asked {
            0 => Ok(self.geo.max_open),
            n if n == self.geo.max_open => Ok(n),
            _ => Err(self.geo.max_open),
        }
    }

    fn zones(&self) -> u32 {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .wp
            .len() as u32
    }
}

/// Writes between resets at this frequency (fio's write_cnt).
fn first_count(frequency: f64) -> u64 {
    if frequency > 0.0 {
        (1.0 / frequency).min(u32::MAX as f64) as u64
    } else {
        u32::MAX as u64
    }
}

/// The zones of one of a thread's files: its table, and the part of it the thread works in.
pub struct ZbdFile {
    table: Arc<ZoneTable>,
    /// Zones `first..end` hold the thread's working set, bytes `start..stop`.
    first: u32,
    end: u32,
    start: u64,
    stop: u64,
    /// Where the next sequential I/O goes (fio's last_pos).
    next: u64,
}

impl ZbdFile {
    /// The working set `start..stop` of a target with these zones. A job that writes works
    /// in whole zones, as fio rounds its offset up and its size down (zbd.c,
    /// zbd_zone_align_file_sizes); None where not one zone is left.
    pub fn new(table: Arc<ZoneTable>, start: u64, stop: u64, writes: bool) -> Option<ZbdFile> {
        let size = table.geo.size;
        let zones = table.zones();
        let (start, stop) = match writes {
            true => (start.div_ceil(size) * size, stop / size * size),
            false => (start, stop),
        };
        let first = (start / size).min(zones as u64) as u32;
        let end = (stop / size).min(zones as u64) as u32;
        (end > first && stop > start).then_some(ZbdFile {
            table,
            first,
            end,
            start,
            stop,
            next: start,
        })
    }

    /// The working set, as [`ZbdFile::new`] aligned it.
    pub fn range(&self) -> (u64, u64) {
        (self.start, self.stop)
    }
}

/// One thread's zones.
pub struct ZbdThread {
    files: Vec<ZbdFile>,
    /// The job's own settings: its limit of open zones per thread, whether it reads beyond
    /// the write pointers, its reset threshold and frequency. The zones' size, capacity and
    /// limit over all threads are the table's.
    job: WritePointerZones,
    /// This thread, among every thread on the tables (which opened a zone).
    me: u32,
    random: bool,
    /// Whether the job both reads and writes.
    mixed: bool,
    /// The smallest read and the smallest write.
    min_bs: [u64; 2],
    pub outcome: ZbdOutcome,
}

/// What a thread's zones came to.
#[derive(Debug, Default, Clone, Copy)]
pub struct ZbdOutcome {
    /// Zones this thread reset to write them again (fio's nr_zone_resets).
    pub resets: u64,
    /// The thread ended early: nothing written was left to read, or no zone could be opened.
    pub nothing_to_read: bool,
    pub no_zone_to_write: bool,
}

impl ZbdThread {
    pub fn new(
        job: WritePointerZones,
        files: Vec<ZbdFile>,
        random: bool,
        mixed: bool,
        min_bs: [u64; 2],
    ) -> ZbdThread {
        static THREADS: AtomicU32 = AtomicU32::new(0);
        ZbdThread {
            job,
            files,
            me: THREADS.fetch_add(1, Ordering::Relaxed),
            random,
            mixed,
            min_bs,
            outcome: ZbdOutcome::default(),
        }
    }

    /// The direction of a drawn I/O, before its size is drawn: a mixed job's read is a write
    /// while nothing is written anywhere to read (zbd_adjust_ddir).
    pub fn direction(&self, file: usize, write: bool) -> bool {
        if write || !self.mixed || self.job.read_beyond_wp {
            return write;
        }
        let st = self.files[file]
            .table
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        st.with_data == 0
    }

    /// Where a drawn I/O goes in the zones of file `file`, and how long it is. A reset is
    /// counted where `measured` (fio clears its count after ramp_time).
    pub fn place(
        &mut self,
        file: usize,
        write: bool,
        offset: u64,
        len: u32,
        measured: bool,
    ) -> Zoned {
        let f = &mut self.files[file];
        let table = f.table.clone();
        let geo = WritePointerZones {
            thread_max_open: self.job.thread_max_open,
            read_beyond_wp: self.job.read_beyond_wp,
            reset_threshold: self.job.reset_threshold,
            reset_frequency: self.job.reset_frequency,
            ..table.geo
        };
        let mut st = table.state.lock().unwrap_or_else(|e| e.into_inner());
        // fio follows its own last position in sequential I/O, wherever the zones sent it;
        // a sequential write at a zone's capacity goes on at the next zone's start
        // (setup_zbd_zone_mode).
        let offset = match self.random {
            true => offset,
            false if write && f.next % geo.size >= geo.capacity => {
                let next = (f.next / geo.size + 1) * geo.size;
                if next >= f.stop {
                    f.start
                } else {
                    next
                }
            }
            false => f.next,
        };
        let at = Place {
            me: self.me,
            random: self.random,
            min_bs: self.min_bs[write as usize],
        };
        let z = match write {
            true => {
                let mut resets = 0;
                let z = at.write(&geo, &mut st, f, offset, len, &mut resets);
                if measured {
                    self.outcome.resets += resets;
                }
                z
            }
            false if geo.read_beyond_wp => Zoned::Io { offset, len },
            false => at.read(&geo, &st, f, offset, len),
        };
        if z == Zoned::End {
            match write {
                true => self.outcome.no_zone_to_write = true,
                false => self.outcome.nothing_to_read = true,
            }
        }
        if let (Zoned::Io { offset, len, .. }, false) = (z, self.random) {
            f.next = offset + len as u64;
            if f.next >= f.stop {
                f.next = f.start;
            }
        }
        z
    }
}

/// What one placement needs of its thread.
struct Place {
    me: u32,
    random: bool,
    min_bs: u64,
}

impl Place {
    fn write(
        &self,
        geo: &WritePointerZones,
        st: &mut State,
        f: &ZbdFile,
        offset: u64,
        len: u32,
        resets: &mut u64,
    ) -> Zoned {
        let zone = zone_of(geo, f, offset);
        let zone = match self.open(geo, st, zone) {
            true => zone,
            false => match self.other_zone(geo, st, f, offset) {
                Some(z) => z,
                None => return Zoned::End,
            },
        };
        let due = geo.reset_frequency > 0.0
            && st.with_data as f64 >= (f.stop - f.start) as f64 * geo.reset_threshold
            && count_down(st, geo);
        let start = zone as u64 * geo.size;
        let cap_end = start + geo.capacity;
        let z = zone as usize;
        if due || st.wp[z] + self.min_bs > cap_end {
            st.with_data -= st.wp[z] - start;
            if st.wp[z] != start {
                *resets += 1;
            }
            st.wp[z] = start;
        }
        let at = st.wp[z];
        let len = (len as u64).min(cap_end - at) / self.min_bs * self.min_bs;
        if len == 0 {
            return Zoned::End;
        }
        st.wp[z] = at + len;
        st.with_data += len;
        if at + len >= cap_end {
            // Full: no longer open (fio closes it as the write completes).
            st.open.retain(|&(o, _)| o != zone);
        }
        Zoned::Io {
            offset: at,
            len: len as u32,
        }
    }

    /// Open `zone` for writing, where the limits allow; true where it is open (or nothing
    /// is tracked). An open zone that is full is not (zbd_open_zone).
    fn open(&self, geo: &WritePointerZones, st: &mut State, zone: u32) -> bool {
        if geo.max_open == 0 {
            return true;
        }
        if st.open.iter().any(|&(o, _)| o == zone) {
            return st.wp[zone as usize] < zone as u64 * geo.size + geo.capacity;
        }
        let mine = st.open.iter().filter(|&&(_, t)| t == self.me).count() as u32;
        if (geo.thread_max_open > 0 && mine >= geo.thread_max_open)
            || st.open.len() as u32 >= geo.max_open
        {
            return false;
        }
        st.open.push((zone, self.me));
        true
    }

    /// Another zone for a write its own zone could not take (zbd_convert_to_open_zone): an
    /// open zone of the working set with room, picked by the drawn offset; else the next
    /// zone after it that can be opened; else any open zone with room.
    fn other_zone(
        &self,
        geo: &WritePointerZones,
        st: &mut State,
        f: &ZbdFile,
        offset: u64,
    ) -> Option<u32> {
        let room = |st: &State, z: u32| {
            st.wp[z as usize] + self.min_bs <= z as u64 * geo.size + geo.capacity
        };
        let ours = |z: u32| f.first <= z && z < f.end;
        let mut zone = zone_of(geo, f, offset);
        if !st.open.is_empty() {
            let n = st.open.len();
            let pick =
                ((offset - f.start) as u128 * n as u128 / (f.stop - f.start) as u128) as usize;
            let z = (0..n)
                .map(|i| st.open[(pick + i) % n].0)
                .find(|&z| ours(z))?;
            if room(st, z) {
                return Some(z);
            }
            zone = z;
        }
        let span = f.end - f.first;
        for _ in 0..span {
            zone = if zone + 1 >= f.end { f.first } else { zone + 1 };
            if st.open.iter().any(|&(o, _)| o == zone) {
                continue;
            }
            if self.open(geo, st, zone) {
                return Some(zone);
            }
        }
        let open: Vec<u32> = st
            .open
            .iter()
            .map(|&(o, _)| o)
            .filter(|&z| ours(z))
            .collect();
        open.into_iter().find(|&z| room(st, z))
    }

    fn read(
        &self,
        geo: &WritePointerZones,
        st: &State,
        f: &ZbdFile,
        offset: u64,
        len: u32,
    ) -> Zoned {
        let first = zone_of(geo, f, offset);
        let from = first as u64 * geo.size;
        let mut zone = first;
        let filled = |z: u32| st.wp[z as usize] - z as u64 * geo.size;
        let mut offset = offset;
        if filled(zone) < self.min_bs
            || (!self.random && offset + self.min_bs > st.wp[zone as usize])
        {
            match self.zone_with_data(geo, st, f, zone) {
                Some(z) => zone = z,
                None => return Zoned::End,
            }
            if !self.random {
                offset = zone as u64 * geo.size;
            }
        }
        let start = zone as u64 * geo.size;
        let range = filled(zone);
        if range <= len as u64 {
            offset = start;
        } else if self.random {
            offset = start
                + (offset.saturating_sub(from) % (range - len as u64)) / self.min_bs * self.min_bs;
        }
        let len = (len as u64).min(st.wp[zone as usize] - offset) / self.min_bs * self.min_bs;
        Zoned::Io {
            offset,
            len: len as u32,
        }
    }

    /// The next zone after `zone` with a block's worth of data; random I/O also looks before
    /// it, nearest first (zbd_find_zone).
    fn zone_with_data(
        &self,
        geo: &WritePointerZones,
        st: &State,
        f: &ZbdFile,
        zone: u32,
    ) -> Option<u32> {
        let has = |z: u32| z as u64 * geo.size + self.min_bs <= st.wp[z as usize];
        let (mut up, mut down) = (zone as i64 + 1, zone as i64 - 1);
        while up < f.end as i64 || down >= f.first as i64 {
            if up < f.end as i64 {
                if has(up as u32) {
                    return Some(up as u32);
                }
            } else if !self.random {
                return None;
            }
            if self.random && down >= f.first as i64 && has(down as u32) {
                return Some(down as u32);
            }
            up += 1;
            down -= 1;
        }
        None
    }
}

/// The zone of `offset`, kept within the thread's zones.
fn zone_of(geo: &WritePointerZones, f: &ZbdFile, offset: u64) -> u32 {
    ((offset / geo.size) as u32).clamp(f.first, f.end - 1)
}

/// One write less before the next reset; true where it is due (and the count starts again).
fn count_down(st: &mut State, geo: &WritePointerZones) -> bool {
    st.write_cnt = st.write_cnt.saturating_sub(1);
    if st.write_cnt == 0 {
        st.write_cnt = first_count(geo.reset_frequency);
        return true;
    }
    false
}

/// A block device the kernel shows as zoned (host-managed or host-aware) has zones of its own,
/// which iogauge does not read or reset yet: it is refused rather than written out of order.
pub fn refuse_zoned_device(
    t: &super::target::OpenTarget,
    flag: impl std::fmt::Display,
) -> crate::error::Result<()> {
    if t.kind != crate::facts::TargetKind::BlockDevice {
        return Ok(());
    }
    let model = t.file.as_ref().and_then(crate::os::file::zoned);
    match model {
        None => Ok(()),
        Some(m) => Err(crate::error::Error::usage(format!(
            "{flag}: '{}' is a zoned block device ({m}); iogauge emulates zones on files and devices that are not zoned, and does not drive a zoned device's own zones yet (planned)",
            t.path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u64 = 1 << 20;
    const K: u64 = 1024;

    fn geo(size: u64) -> WritePointerZones {
        WritePointerZones {
            size,
            capacity: size,
            max_open: 0,
            thread_max_open: 0,
            read_beyond_wp: false,
            reset_threshold: 0.0,
            reset_frequency: 0.0,
        }
    }

    /// A thread on a fresh table of `target` bytes, working over all of it.
    fn thread(g: WritePointerZones, target: u64, random: bool, mixed: bool) -> ZbdThread {
        let table = ZoneTable::of(None, target, g);
        let file = ZbdFile::new(table, 0, target, true).unwrap();
        ZbdThread::new(g, vec![file], random, mixed, [64 * K, 256 * K])
    }

    fn io(z: Zoned) -> (u64, u32) {
        match z {
            Zoned::Io { offset, len } => (offset, len),
            Zoned::End => panic!("ended"),
        }
    }

    #[test]
    fn sequential_writes_fill_each_zone_then_reset_it_on_the_next_pass() {
        let mut t = thread(geo(M), 4 * M, false, false);
        let offsets: Vec<u64> = (0..32)
            .map(|_| io(t.place(0, true, 0, 256 * K as u32, true)).0)
            .collect();
        let pass: Vec<u64> = (0..16).map(|i| i * 256 * K).collect();
        assert_eq!(offsets[..16], pass[..]);
        assert_eq!(offsets[16..], pass[..]);
        // The second pass finds each of the 4 zones full.
        assert_eq!(t.outcome.resets, 4);
    }

    #[test]
    fn random_writes_go_to_the_write_pointer_of_the_zone_drawn() {
        let mut t = thread(geo(M), 4 * M, true, false);
        assert_eq!(
            io(t.place(0, true, 2 * M + 700 * K, 256 * K as u32, true)).0,
            2 * M
        );
        assert_eq!(
            io(t.place(0, true, 2 * M + 10 * K, 256 * K as u32, true)).0,
            2 * M + 256 * K
        );
        assert_eq!(io(t.place(0, true, 100 * K, 256 * K as u32, true)).0, 0);
        assert_eq!(t.outcome.resets, 0);
    }

    #[test]
    fn reads_see_only_what_lies_below_a_write_pointer() {
        let mut t = thread(geo(M), 4 * M, false, false);
        // Nothing written: nothing to read, and the thread is told so.
        assert_eq!(t.place(0, false, 0, 64 * K as u32, true), Zoned::End);
        assert!(t.outcome.nothing_to_read);
        let mut w = thread(geo(M), 4 * M, true, false);
        w.files[0].table = t.files[0].table.clone();
        for at in [M, M, M, M, 2 * M, 2 * M] {
            io(w.place(0, true, at + 5, 256 * K as u32, true));
        }
        // Zone 1 full, zone 2 half: a sequential read skips zone 0, reads 1.5 MiB and ends.
        let mut r = ZbdThread::new(
            geo(M),
            vec![ZbdFile::new(t.files[0].table.clone(), 0, 4 * M, false).unwrap()],
            false,
            false,
            [64 * K, 64 * K],
        );
        let mut read = 0;
        while let Zoned::Io { offset, len } = r.place(0, false, 0, 64 * K as u32, true) {
            assert!((M..M + 1536 * K).contains(&offset), "{offset}");
            read += len as u64;
        }
        assert_eq!(read, 1536 * K);
        // A random read drawn in an empty zone lands in the nearest zone with data, below its
        // write pointer.
        let mut rr = ZbdThread::new(
            geo(M),
            vec![ZbdFile::new(t.files[0].table.clone(), 0, 4 * M, false).unwrap()],
            true,
            false,
            [64 * K, 64 * K],
        );
        for drawn in [0, 3 * M + 64 * K, 2 * M + 900 * K] {
            let (off, len) = io(rr.place(0, false, drawn, 128 * K as u32, true));
            let end = if off < 2 * M { 2 * M } else { 2 * M + 512 * K };
            assert!(
                off >= M && off + len as u64 <= end,
                "{drawn} -> {off}+{len}"
            );
        }
    }

    #[test]
    fn a_mixed_job_writes_first_where_nothing_is_written() {
        let mut t = thread(geo(M), 4 * M, true, true);
        assert!(t.direction(0, false));
        io(t.place(0, true, M, 256 * K as u32, true));
        assert!(!t.direction(0, false));
        assert!(t.direction(0, true));
    }

    #[test]
    fn open_zones_are_limited_over_all_threads_and_per_thread() {
        let g = WritePointerZones {
            max_open: 2,
            ..geo(M)
        };
        let mut a = thread(g, 4 * M, true, false);
        // Zones 0 and 3 open; a write drawn in zone 1 goes to one of them.
        io(a.place(0, true, 0, 256 * K as u32, true));
        io(a.place(0, true, 3 * M, 256 * K as u32, true));
        let (off, _) = io(a.place(0, true, M, 256 * K as u32, true));
        assert!(!(M..3 * M).contains(&off), "{off}");
        // A thread of its own limited to one zone: it opens none, and writes to the open ones.
        let g1 = WritePointerZones {
            thread_max_open: 1,
            ..g
        };
        let file = ZbdFile::new(a.files[0].table.clone(), 0, 4 * M, true).unwrap();
        let mut b = ZbdThread::new(g1, vec![file], true, false, [64 * K, 256 * K]);
        let (off, _) = io(b.place(0, true, 2 * M, 256 * K as u32, true));
        assert!(!(M..3 * M).contains(&off), "{off}");
    }

    #[test]
    fn a_sequential_write_at_a_zones_capacity_goes_on_at_the_next_zone() {
        let g = WritePointerZones {
            capacity: 768 * K,
            ..geo(M)
        };
        let mut t = thread(g, 2 * M, false, false);
        let offsets: Vec<u64> = (0..8)
            .map(|_| io(t.place(0, true, 0, 256 * K as u32, true)).0 / K)
            .collect();
        assert_eq!(offsets, [0, 256, 512, 1024, 1280, 1536, 0, 256]);
        assert_eq!(t.outcome.resets, 1);
    }

    #[test]
    fn the_reset_frequency_resets_zones_once_the_threshold_is_reached() {
        let g = WritePointerZones {
            reset_threshold: 0.25,
            reset_frequency: 0.5,
            ..geo(M)
        };
        let mut t = thread(g, 4 * M, true, false);
        // 1 MiB written is the threshold: from then, every second write resets its zone.
        for _ in 0..4 {
            io(t.place(0, true, 0, 256 * K as u32, true));
        }
        assert_eq!(t.outcome.resets, 0);
        assert_eq!(io(t.place(0, true, M, 256 * K as u32, true)).0, M);
        assert_eq!(t.outcome.resets, 0);
        // The second write from the threshold on resets zone 1 and writes at its start.
        assert_eq!(io(t.place(0, true, M, 256 * K as u32, true)).0, M);
        assert_eq!(t.outcome.resets, 1);
    }

    #[test]
    fn a_writing_job_works_in_whole_zones() {
        let table = ZoneTable::of(None, 8 * M, geo(M));
        let f = ZbdFile::new(table.clone(), 1500 * K, 7 * M + 5, true).unwrap();
        assert_eq!(f.range(), (2 * M, 7 * M));
        assert!(ZbdFile::new(table.clone(), 100 * K, 1500 * K, true).is_none());
        assert!(ZbdFile::new(table, 100 * K, 1500 * K, false).is_some());
    }
}
