//! fio's per-I/O logs (write_bw_log, write_iops_log, write_lat_log without log_avg_msec),
//! written while the job runs: the runner hands each worker's I/O records to [`IoLogs`], its
//! observer. The averaged logs are made after the run, from the time series
//! (`report::fio::logs`).

use iogauge::runner::worker::IoRecord;
use iogauge::runner::Observer;
use iogauge::spec::fio::options::FioRun;
use iogauge::spec::EngineKind;

/// fio's per-I/O logs (no log_avg_msec), written as the runner hands over its records: for
/// each clone N (from 1) `PREFIX_bw.N.log`, `_iops`, and for write_lat_log `_lat`, `_clat` and
/// `_slat`, each line `time (ms), value, direction (0 read, 1 write), block size, 0` as fio
/// 3.33 writes them: latencies in ns, bw in bytes per ms of the I/O's completion latency, iops
/// 1. fio leaves the _slat log empty for engines that run I/O inline; so does this.
pub struct IoLogs {
    /// Per clone: (kind, file name), made by `ready` once the run is set up.
    names: Vec<Vec<(&'static str, String)>>,
    /// Per clone: (kind, writer).
    files: Vec<Vec<(&'static str, std::io::BufWriter<std::fs::File>)>>,
    slat: bool,
    error: Option<String>,
}

impl IoLogs {
    /// The logs of `run`'s clones, to be made (empty, as fio makes them, even if no I/O is
    /// logged) when the run is set up: a job refused before leaves none behind.
    pub fn new(run: &FioRun) -> Self {
        let l = &run.logs;
        let mut kinds: Vec<(&'static str, &str)> = Vec::new();
        if let Some(p) = &l.bw {
            kinds.push(("bw", p));
        }
        if let Some(p) = &l.iops {
            kinds.push(("iops", p));
        }
        if let Some(p) = &l.lat {
            kinds.extend([("lat", p.as_str()), ("clat", p), ("slat", p)]);
        }
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
            slat: run.job.engine.kind == Some(EngineKind::IoUring),
            error: None,
        }
    }

    /// Make every file; where one cannot be made, remove those made before it.
    fn create(&mut self) -> Result<(), String> {
        let mut made = Vec::new();
        for clone in &self.names {
            let mut mine = Vec::new();
            for (kind, name) in clone {
                match open_log(name) {
                    Ok((f, id)) => {
                        made.extend(id.map(|id| (name, id)));
                        mine.push((*kind, std::io::BufWriter::new(f)));
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

    /// Flush the files: the first error met, if any.
    pub fn finish(mut self) -> Result<(), String> {
        use std::io::Write;
        for (kind, w) in self.files.iter_mut().flatten() {
            if let Err(e) = w.flush() {
                self.error
                    .get_or_insert(format!("cannot write the {kind} log: {e}"));
            }
        }
        self.error.map_or(Ok(()), Err)
    }
}

/// Open log `name` for writing, as fio does (a log already there is overwritten), with the
/// identity (device, inode) of a file that was not there before: iogauge's to remove.
fn open_log(name: &str) -> Result<(std::fs::File, Option<(u64, u64)>), String> {
    use std::os::unix::fs::MetadataExt;
    let err = |e: std::io::Error| format!("cannot create the log '{name}': {e}");
    let new = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(name);
    match new {
        Ok(f) => match f.metadata() {
            Ok(m) => Ok((f, Some((m.dev(), m.ino())))),
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
    use std::os::unix::fs::MetadataExt;
    if let Ok(m) = std::fs::symlink_metadata(name) {
        if (m.dev(), m.ino()) == id {
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
        use std::io::Write;
        let slat = self.slat;
        let Some(files) = self.files.get_mut(worker) else {
            return;
        };
        for (kind, w) in files.iter_mut() {
            for r in records {
                let value = match *kind {
                    "bw" => r.len as u64 * 1_000_000 / r.completion.max(1),
                    "iops" => 1,
                    "lat" => r.submission + r.completion,
                    "clat" => r.completion,
                    _ if slat => r.submission,
                    _ => continue,
                };
                if let Err(e) = writeln!(
                    w,
                    "{}, {value}, {}, {}, 0",
                    r.at / 1_000_000,
                    r.write as u8,
                    r.len
                ) {
                    self.error
                        .get_or_insert(format!("cannot write the {kind} log: {e}"));
                    return;
                }
            }
        }
    }
}
