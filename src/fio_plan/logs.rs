//! fio's logs made from each I/O, written while the job runs: the per-I/O logs
//! (write_bw_log, write_iops_log, write_lat_log without log_avg_msec) and the averaged latency
//! logs (write_lat_log with log_avg_msec), which fio averages per clone over the I/Os
//! themselves, and the completion latency histograms of write_hist_log. The runner hands each worker's I/O records to [`IoLogs`], its observer. The
//! averaged bw and iops logs are made after the run, from the time series
//! (`report::fio::logs`).

use crate::runner::worker::IoRecord;
use crate::runner::Observer;
use crate::spec::fio::options::FioRun;
use crate::stats::fio_bins;
use std::io::Write;

/// fio's logs made from each I/O: for each clone N (from 1) `PREFIX_bw.N.log`, `_iops`, and
/// for write_lat_log `_lat`, `_clat` and `_slat`, each line `time (ms), value, direction (0
/// read, 1 write), block size, 0` as fio 3.33 writes them: latencies in ns, bw in bytes per
/// ms of the I/O's completion latency, iops 1. With log_avg_msec only the latency logs, each
/// line the mean of a window (block size 0). fio leaves the _slat log empty for engines that
/// run I/O inline; so does this. write_hist_log: `PREFIX_clat_hist.N.log`, each line `time,
/// direction, block size,` and the completion latencies of the window in fio's bins.
pub struct IoLogs {
    /// Per clone: (kind, file name), made by `ready` once the run is set up.
    names: Vec<Vec<(&'static str, String)>>,
    /// Per clone: its logs.
    files: Vec<Vec<Log>>,
    /// Per clone: the time (ms) of its last I/O, which stamps the windows left at the end.
    last_ms: Vec<u64>,
    slat: bool,
    /// log_avg_msec: a line per window of this many ms; none, a line per I/O.
    avg_ms: Option<u64>,
    /// log_hist_msec and log_hist_coarseness.
    hist: (u64, u32),
    /// log_offset: the offset column before the priority.
    offset: bool,
    /// log_prio: the priority column is the I/O's priority value, not 1 for real time.
    prio: bool,
    error: Option<String>,
}

/// One log file of one clone.
struct Log {
    kind: &'static str,
    w: std::io::BufWriter<std::fs::File>,
    acc: Acc,
}

/// What a log gathers between its lines.
enum Acc {
    /// Nothing: a line per I/O.
    Each,
    /// log_avg_msec: [read, write, trim] means over windows of this many ms.
    Mean(u64, [Window; 3]),
    /// write_hist_log: [read, write, trim] histograms over windows of log_hist_msec, each
    /// line summing 2^log_hist_coarseness bins.
    Hist(u64, u32, Box<[Hist; 3]>),
}

/// The I/Os of one direction since the window began, as fio's `avg_window`.
#[derive(Default)]
struct Window {
    sum: u128,
    n: u64,
    start_ms: u64,
}

impl Window {
    /// Count a value at `ms`. As in fio's add_log_sample, the window closes with the first
    /// I/O at least `avg_ms` after its start, that I/O included: then its mean, and the next
    /// window starts at the last multiple of `avg_ms`.
    fn add(&mut self, value: u64, ms: u64, avg_ms: u64) -> Option<u64> {
        self.sum += value as u128;
        self.n += 1;
        if ms < self.start_ms + avg_ms {
            return None;
        }
        self.start_ms = ms - ms % avg_ms;
        self.take()
    }

    /// The mean so far, rounded as fio rounds it, and an empty window.
    fn take(&mut self) -> Option<u64> {
        let mean = (self.n > 0).then(|| (self.sum as f64 / self.n as f64 + 0.5) as u64);
        self.sum = 0;
        self.n = 0;
        mean
    }
}

/// The completion latencies of one direction since the window began, in fio's bins.
struct Hist {
    bins: Vec<u64>,
    start_ms: Option<u64>,
}

impl Default for Hist {
    fn default() -> Self {
        Hist {
            bins: vec![0; fio_bins::BINS],
            start_ms: None,
        }
    }
}

impl Hist {
    /// Count a latency at `ms`. As in fio's add_clat_sample, the first I/O starts the window,
    /// which closes with the first I/O at least `every_ms` after its start, that I/O included
    /// (true: write the line); the next starts `every_ms` after it, so that lines keep time.
    fn add(&mut self, ns: u64, ms: u64, every_ms: u64) -> bool {
        self.bins[fio_bins::bin(ns)] += 1;
        let start = *self.start_ms.get_or_insert(ms);
        if every_ms == 0 || ms - start < every_ms {
            return false;
        }
        self.start_ms = Some(start + every_ms);
        true
    }

    /// Write the window's line as fio's flush_hist_samples does, and empty it.
    fn write(
        &mut self,
        w: &mut impl Write,
        head: (u64, usize, u32),
        coarseness: u32,
    ) -> std::io::Result<()> {
        let (ms, dir, bs) = head;
        write!(w, "{ms}, {dir}, {bs}")?;
        for group in self.bins.chunks(1 << coarseness) {
            write!(w, ", {}", group.iter().sum::<u64>())?;
        }
        self.bins.fill(0);
        writeln!(w)
    }
}

impl IoLogs {
    /// The logs of `run`'s clones, to be made (empty, as fio makes them, even if no I/O is
    /// logged) when the run is set up: a job refused before leaves none behind.
    pub fn new(run: &FioRun) -> Self {
        let l = &run.logs;
        let mut kinds: Vec<(&'static str, &str)> = Vec::new();
        if l.per_io {
            kinds.extend(l.bw.as_deref().map(|p| ("bw", p)));
            kinds.extend(l.iops.as_deref().map(|p| ("iops", p)));
        }
        if let Some(p) = &l.lat {
            kinds.extend([("lat", p.as_str()), ("clat", p), ("slat", p)]);
        }
        kinds.extend(l.hist.as_deref().map(|p| ("clat_hist", p)));
        let clones = run.job.total_threads() as usize;
        let names = (1..=clones)
            .map(|n| {
                kinds
                    .iter()
                    .map(|&(kind, prefix)| (kind, format!("{prefix}_{kind}.{n}.log")))
                    .collect()
            })
            .collect();
        IoLogs {
            names,
            files: Vec::new(),
            last_ms: vec![0; clones],
            slat: run.job.engine.kind.is_some_and(|e| e.caps().submit_latency),
            avg_ms: (!l.per_io).then_some(run.job.timing.interval_ns / 1_000_000),
            hist: (l.hist_msec, l.hist_coarseness),
            offset: l.offset,
            prio: l.prio,
            error: None,
        }
    }

    /// What a log of `kind` gathers between its lines.
    fn acc(&self, kind: &str) -> Acc {
        match (kind, self.avg_ms) {
            ("clat_hist", _) => Acc::Hist(self.hist.0, self.hist.1, Default::default()),
            ("bw" | "iops", _) | (_, None) => Acc::Each,
            (_, Some(ms)) => Acc::Mean(ms, Default::default()),
        }
    }

    /// Make every file; where one cannot be made, remove those made before it.
    fn create(&mut self) -> Result<(), String> {
        let mut made = Vec::new();
        for clone in &self.names {
            let mut mine = Vec::new();
            for &(kind, ref name) in clone {
                match open_log(name) {
                    Ok((f, id)) => {
                        made.extend(id.map(|id| (name, id)));
                        mine.push(Log {
                            kind,
                            w: std::io::BufWriter::new(f),
                            acc: self.acc(kind),
                        });
                    }
                    Err(e) => {
                        for (name, id) in made {
                            remove_if_ours(name, id);
                        }
                        return Err(e);
                    }
                }
            }
            self.files.push(mine);
        }
        Ok(())
    }

    /// Write the windows left open (fio's finalize_logs, stamped with each clone's last I/O)
    /// and flush the files: the first error met, if any.
    pub fn finish(mut self) -> Result<(), String> {
        for (log, &ms) in self
            .files
            .iter_mut()
            .zip(&self.last_ms)
            .flat_map(|(logs, ms)| logs.iter_mut().map(move |l| (l, ms)))
        {
            if let Acc::Mean(_, windows) = &mut log.acc {
                for (dir, window) in windows.iter_mut().enumerate() {
                    if let Some(mean) = window.take() {
                        let r = writeln!(
                            log.w,
                            "{ms}, {mean}, {dir}, 0{}",
                            crate::report::fio::averaged_tail(self.offset, self.prio)
                        );
                        note(&mut self.error, log.kind, r);
                    }
                }
            }
            note(&mut self.error, log.kind, log.w.flush());
        }
        self.error.map_or(Ok(()), Err)
    }
}

/// A per-I/O line's last column, as fio 3.33's flush_samples writes it: with log_prio the
/// I/O's priority value (`0x%04x`), else 1 for a real-time one and 0 for any other.
struct PrioColumn(u16, bool);

impl std::fmt::Display for PrioColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.1 {
            true => write!(f, "0x{:04x}", self.0),
            false => {
                let rt =
                    self.0 >> crate::spec::prio::CLASS_SHIFT == crate::spec::prio::CLASS_RT as u16;
                write!(f, "{}", rt as u8)
            }
        }
    }
}

/// Open log `name` for writing, as fio does (a log already there is overwritten), with the
/// identity (device, inode) of a file that was not there before: iogauge's to remove.
fn open_log(name: &str) -> Result<(std::fs::File, Option<(u64, u64)>), String> {
    let err = |e: std::io::Error| format!("cannot create the log '{name}': {e}");
    let new = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(name);
    match new {
        Ok(f) => match crate::os::file::ids(&f) {
            Ok(id) => Ok((f, Some(id))),
            Err(e) => {
                let _ = std::fs::remove_file(name);
                Err(err(e))
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            Ok((std::fs::File::create(name).map_err(err)?, None))
        }
        Err(e) => Err(err(e)),
    }
}

/// Remove `name` if it is still the file iogauge made there (same device and inode).
fn remove_if_ours(name: &str, id: (u64, u64)) {
    if let Ok(now) = crate::os::file::ids_at(std::path::Path::new(name), false) {
        if now == id {
            let _ = std::fs::remove_file(name);
        }
    }
}

impl Observer for IoLogs {
    fn ready(&mut self) -> Result<(), String> {
        self.create()
    }

    fn wants_ios(&self) -> bool {
        true
    }

    fn ios(&mut self, worker: usize, records: &[IoRecord]) {
        let (slat, with_offset, log_prio) = (self.slat, self.offset, self.prio);
        let Some(files) = self.files.get_mut(worker) else {
            return;
        };
        if let (Some(last), Some(r)) = (self.last_ms.get_mut(worker), records.last()) {
            *last = r.at / 1_000_000;
        }
        for log in files.iter_mut() {
            for r in records {
                let Some(value) = value(log.kind, r, slat) else {
                    continue;
                };
                let (ms, dir) = (r.at / 1_000_000, r.dir as usize);
                let written = match &mut log.acc {
                    Acc::Each if with_offset => {
                        let p = PrioColumn(r.prio, log_prio);
                        writeln!(log.w, "{ms}, {value}, {dir}, {}, {}, {p}", r.len, r.offset)
                    }
                    Acc::Each => {
                        let p = PrioColumn(r.prio, log_prio);
                        writeln!(log.w, "{ms}, {value}, {dir}, {}, {p}", r.len)
                    }
                    Acc::Mean(every, windows) => match windows[dir].add(value, ms, *every) {
                        Some(mean) => {
                            writeln!(
                                log.w,
                                "{ms}, {mean}, {dir}, 0{}",
                                crate::report::fio::averaged_tail(with_offset, log_prio)
                            )
                        }
                        None => Ok(()),
                    },
                    Acc::Hist(every, coarseness, hists) => {
                        match hists[dir].add(value, ms, *every) {
                            true => hists[dir].write(&mut log.w, (ms, dir, r.len), *coarseness),
                            false => Ok(()),
                        }
                    }
                };
                if note(&mut self.error, log.kind, written) {
                    return;
                }
            }
        }
    }
}

/// What one I/O puts in a log of `kind`; nothing in _slat where the engine runs I/O inline.
fn value(kind: &str, r: &IoRecord, slat: bool) -> Option<u64> {
    Some(match kind {
        "bw" => r.len as u64 * 1_000_000 / r.completion.max(1),
        "iops" => 1,
        "lat" => r.submission + r.completion,
        "clat" | "clat_hist" => r.completion,
        _ if slat => r.submission,
        _ => return None,
    })
}

/// Keep the first write error met; whether `r` is one.
fn note(error: &mut Option<String>, kind: &str, r: std::io::Result<()>) -> bool {
    match r {
        Ok(()) => false,
        Err(e) => {
            error.get_or_insert(format!("cannot write the {kind} log: {e}"));
            true
        }
    }
}
