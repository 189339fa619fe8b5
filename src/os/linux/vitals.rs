//! Linux: the signals of `os::vitals` from /sys/block/*/stat, /proc/pressure, the workers'
//! /proc/self/task/*/schedstat, /proc/stat, /proc/vmstat, the cgroup files and a FUSE
//! daemon's /proc/PID/stat. What cannot be read is left out, never guessed.

use crate::os::vitals::{
    pct, CgroupLimits, Daemon, Dirty, DiskSignal, IoLimit, MachineCpu, Pressure, Signals, WorkerCpu,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A disk's counters (Documentation/block/stat.rst): I/Os, sectors read and written, ms
/// spent by I/Os, ms busy, ms weighted by the I/Os in flight.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct DiskCounters {
    ios: u64,
    sectors: [u64; 2],
    ticks: u64,
    io_ticks: u64,
    in_queue: u64,
}

impl DiskCounters {
    fn parse(line: &str) -> Option<DiskCounters> {
        let f: Vec<u64> = line
            .split_whitespace()
            .take(11)
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        (f.len() == 11).then(|| DiskCounters {
            ios: f[0] + f[4],
            sectors: [f[2], f[6]],
            ticks: f[3] + f[7],
            io_ticks: f[9],
            in_queue: f[10],
        })
    }

    fn since(&self, b: &DiskCounters) -> DiskCounters {
        let d = |x: u64, y: u64| x.saturating_sub(y);
        DiskCounters {
            ios: d(self.ios, b.ios),
            sectors: [
                d(self.sectors[0], b.sectors[0]),
                d(self.sectors[1], b.sectors[1]),
            ],
            ticks: d(self.ticks, b.ticks),
            io_ticks: d(self.io_ticks, b.io_ticks),
            in_queue: d(self.in_queue, b.in_queue),
        }
    }

    /// Mean ms an I/O spent, or None without I/O.
    fn service_ms(&self) -> Option<f64> {
        (self.ios > 0).then(|| self.ticks as f64 / self.ios as f64)
    }
}

/// A disk under a target and the facts of its queue.
struct Disk {
    name: String,
    dev: String,
    nr_requests: Option<u64>,
    scheduler: Option<String>,
}

/// Everything read at one moment.
#[derive(Clone)]
struct Snap {
    at: Instant,
    disks: Vec<DiskCounters>,
    /// Total µs stalled: io some, io full, cpu some, memory some, memory full.
    pressure: Option<[u64; 5]>,
    cgroup_pressure: Option<[u64; 5]>,
    /// Per worker: ns on a CPU, ns waiting for one.
    workers: Vec<(u64, u64)>,
    /// /proc/stat, all CPUs: busy, steal, all ticks.
    machine: Option<[u64; 3]>,
    process_ticks: u64,
    /// Per FUSE daemon candidate: its CPU ticks.
    daemons: Vec<u64>,
}

/// Reads the signals of one measured window; see `os::vitals`.
pub struct Sampler {
    disks: Vec<Disk>,
    workers: Vec<u32>,
    daemons: Vec<u32>,
    cgroup: Option<CgroupLimits>,
    cgroup_dir: Option<PathBuf>,
    first: Option<Snap>,
    prev: Option<Snap>,
    service_first: Vec<Option<f64>>,
    service_last: Vec<Option<f64>>,
    dirty: (u128, u64, u32),
    dirty_limits: Option<(u64, u64)>,
    /// Workers found paused at the dirty limit, of those looked at.
    paused: (u32, u32),
    samples: u32,
    cost_ns: u64,
}

impl Sampler {
    /// Find what to watch for targets at `paths`: their disks, this process's worker threads
    /// (named iogauge-t*), its cgroup and, for a FUSE target, the processes serving /dev/fuse.
    pub fn new(paths: &[&Path]) -> Sampler {
        let t = Instant::now();
        let disks = disks_under(paths);
        let workers = worker_tids();
        let fuse = paths
            .iter()
            .any(|p| super::facts::fs_type_of(p).is_some_and(|t| t.starts_with("fuse")));
        let daemons = if fuse { fuse_daemons() } else { Vec::new() };
        let task = workers
            .first()
            .map_or("self".to_string(), |t| format!("self/task/{t}"));
        let (cgroup, cgroup_dir) = cgroup_of(&task, &disks);
        let mut s = Sampler {
            disks,
            workers,
            daemons,
            cgroup,
            cgroup_dir,
            first: None,
            prev: None,
            service_first: Vec::new(),
            service_last: Vec::new(),
            dirty: (0, 0, 0),
            dirty_limits: None,
            paused: (0, 0),
            samples: 0,
            cost_ns: 0,
        };
        s.cost_ns += t.elapsed().as_nanos() as u64;
        s
    }

    /// Read everything once: the first call opens the window, each later one a period.
    pub fn sample(&mut self) {
        let t = Instant::now();
        let snap = self.snap();
        if let Some(prev) = &self.prev {
            let per_disk: Vec<Option<f64>> = snap
                .disks
                .iter()
                .zip(&prev.disks)
                .map(|(a, b)| a.since(b).service_ms())
                .collect();
            for (i, s) in per_disk.into_iter().enumerate() {
                if self.service_last.len() <= i {
                    self.service_last.resize(i + 1, None);
                    self.service_first.resize(i + 1, None);
                }
                if s.is_some() {
                    self.service_first[i] = self.service_first[i].or(s);
                    self.service_last[i] = s;
                }
            }
        }
        for &t in &self.workers {
            self.paused.1 += 1;
            self.paused.0 += u32::from(paused_for_dirty(t));
        }
        if let Some((dirty, limits)) = dirty_now() {
            self.dirty.0 += u128::from(dirty);
            self.dirty.1 = self.dirty.1.max(dirty);
            self.dirty.2 += 1;
            self.dirty_limits = Some(limits);
        }
        if self.first.is_none() {
            self.first = Some(snap.clone());
        }
        self.prev = Some(snap);
        self.samples += 1;
        self.cost_ns += t.elapsed().as_nanos() as u64;
    }

    /// Everything now. A thread or process gone since the last sample (a worker that has
    /// ended, a daemon) keeps its last figures.
    fn snap(&self) -> Snap {
        let prev = self.prev.as_ref();
        let kept = |i: usize, of: fn(&Snap) -> &Vec<(u64, u64)>| {
            prev.and_then(|p| of(p).get(i).copied()).unwrap_or_default()
        };
        Snap {
            at: Instant::now(),
            disks: self
                .disks
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    disk_counters(&d.name)
                        .or_else(|| prev.map(|p| p.disks[i]))
                        .unwrap_or_default()
                })
                .collect(),
            pressure: pressure_in(Path::new("/proc/pressure"), ""),
            cgroup_pressure: self
                .cgroup_dir
                .as_deref()
                .and_then(|d| pressure_in(d, ".pressure")),
            workers: (self.workers.iter().enumerate())
                .map(|(i, &t)| schedstat(t).unwrap_or_else(|| kept(i, |p| &p.workers)))
                .collect(),
            machine: machine_ticks(),
            process_ticks: proc_ticks("self").map_or(0, |(t, _)| t),
            daemons: (self.daemons.iter().enumerate())
                .map(|(i, p)| {
                    proc_ticks(&p.to_string())
                        .map(|(t, _)| t)
                        .or_else(|| prev.and_then(|s| s.daemons.get(i).copied()))
                        .unwrap_or(0)
                })
                .collect(),
        }
    }

    /// The window's signals, from its first sample to this last one; None with fewer than
    /// two samples (a window too short to say anything).
    pub fn finish(mut self) -> Option<Signals> {
        self.sample();
        let (first, last) = (self.first.take()?, self.prev.take()?);
        let window_ns = last.at.duration_since(first.at).as_nanos() as u64;
        if self.samples < 2 || window_ns == 0 {
            return None;
        }
        let t = Instant::now();
        let mut s = Signals {
            window_ns,
            samples: self.samples,
            disks: self.disk_signals(&first, &last, window_ns),
            pressure: pressure_pct(first.pressure, last.pressure, window_ns),
            cgroup_pressure: pressure_pct(first.cgroup_pressure, last.cgroup_pressure, window_ns),
            workers: self.worker_cpu(&first, &last, window_ns),
            machine: machine_cpu(&first, &last, window_ns),
            cgroup: self.cgroup.take(),
            dirty: self.dirty_signal(),
            fuse_daemon: self.daemon(&first, &last, window_ns),
            not_read: Vec::new(),
            cost_ns: 0,
        };
        s.cost_ns = self.cost_ns + t.elapsed().as_nanos() as u64;
        Some(s)
    }

    fn disk_signals(&self, first: &Snap, last: &Snap, window_ns: u64) -> Vec<DiskSignal> {
        let ms = window_ns as f64 / 1e6;
        self.disks
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let c = last.disks[i].since(&first.disks[i]);
                let service = c.service_ms().unwrap_or(0.0);
                DiskSignal {
                    name: d.name.clone(),
                    dev: d.dev.clone(),
                    ios: c.ios,
                    read_bytes: c.sectors[0] * 512,
                    write_bytes: c.sectors[1] * 512,
                    busy_pct: pct(c.io_ticks as f64, ms).min(100.0),
                    in_flight: c.in_queue as f64 / ms,
                    service_ms: service,
                    service_first_ms: self
                        .service_first
                        .get(i)
                        .copied()
                        .flatten()
                        .unwrap_or(service),
                    service_last_ms: self
                        .service_last
                        .get(i)
                        .copied()
                        .flatten()
                        .unwrap_or(service),
                    nr_requests: d.nr_requests,
                    scheduler: d.scheduler.clone(),
                }
            })
            .collect()
    }

    fn worker_cpu(&self, first: &Snap, last: &Snap, window_ns: u64) -> Option<WorkerCpu> {
        let n = self.workers.len();
        if n == 0 {
            return None;
        }
        let w = window_ns as f64;
        let runs: Vec<f64> = (0..n)
            .map(|i| {
                pct(
                    last.workers[i].0.saturating_sub(first.workers[i].0) as f64,
                    w,
                )
            })
            .collect();
        let waits: f64 = (0..n)
            .map(|i| {
                pct(
                    last.workers[i].1.saturating_sub(first.workers[i].1) as f64,
                    w,
                )
            })
            .sum();
        Some(WorkerCpu {
            threads: n as u32,
            allowed_cpus: std::thread::available_parallelism().map_or(1, |c| c.get() as u32),
            busiest_run_pct: runs.iter().copied().fold(0.0, f64::max),
            mean_run_pct: runs.iter().sum::<f64>() / n as f64,
            mean_wait_pct: Some(waits / n as f64),
        })
    }

    fn dirty_signal(&self) -> Option<Dirty> {
        let (sum, max, n) = self.dirty;
        let (limit, background) = self.dirty_limits?;
        (n > 0).then(|| Dirty {
            mean_bytes: (sum / u128::from(n)) as u64,
            max_bytes: max,
            limit_bytes: limit,
            background_bytes: background,
            writers_paused_pct: pct(f64::from(self.paused.0), f64::from(self.paused.1)),
        })
    }

    /// The candidate that used the most CPU (a machine may run several FUSE daemons).
    fn daemon(&self, first: &Snap, last: &Snap, window_ns: u64) -> Option<Daemon> {
        let hz = super::cpu::ticks_per_sec() as f64;
        let secs = window_ns as f64 / 1e9;
        let (i, ticks) = (0..self.daemons.len())
            .map(|i| (i, last.daemons[i].saturating_sub(first.daemons[i])))
            .max_by_key(|&(_, t)| t)?;
        let pid = self.daemons[i];
        Some(Daemon {
            pid,
            name: std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .map(|s| s.trim().to_string())
                .unwrap_or_default(),
            cpus: ticks as f64 / hz / secs,
            threads: proc_ticks(&pid.to_string()).map_or(1, |(_, n)| n),
        })
    }
}

fn pressure_pct(a: Option<[u64; 5]>, b: Option<[u64; 5]>, window_ns: u64) -> Option<Pressure> {
    let (a, b) = (a?, b?);
    let us = window_ns as f64 / 1e3;
    let p = |i: usize| pct(b[i].saturating_sub(a[i]) as f64, us).min(100.0);
    Some(Pressure {
        io_some_pct: p(0),
        io_full_pct: p(1),
        cpu_some_pct: p(2),
        memory_some_pct: p(3),
        memory_full_pct: p(4),
    })
}

fn machine_cpu(first: &Snap, last: &Snap, window_ns: u64) -> Option<MachineCpu> {
    let (a, b) = (first.machine?, last.machine?);
    let d = |i: usize| b[i].saturating_sub(a[i]) as f64;
    let hz = super::cpu::ticks_per_sec() as f64;
    let proc = last.process_ticks.saturating_sub(first.process_ticks) as f64;
    Some(MachineCpu {
        cpus: super::cpu::times().len() as u32,
        busy_pct: pct(d(0), d(2)),
        steal_pct: pct(d(1), d(2)),
        process_cpus: proc / hz / (window_ns as f64 / 1e9),
    })
}

fn disk_counters(name: &str) -> Option<DiskCounters> {
    DiskCounters::parse(&std::fs::read_to_string(format!("/sys/block/{name}/stat")).ok()?)
}

/// Each target's whole disk, once, with the disks a dm or md device is built on.
fn disks_under(paths: &[&Path]) -> Vec<Disk> {
    let mut names: Vec<String> = Vec::new();
    for p in paths {
        let Some(disk) = super::diskstats::disk_under(p) else {
            continue;
        };
        for n in std::iter::once(disk.clone()).chain(super::diskstats::slaves_of(&disk)) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    let read = |n: &str, f: &str| {
        std::fs::read_to_string(format!("/sys/block/{n}/{f}"))
            .ok()
            .map(|s| s.trim().to_string())
    };
    names
        .into_iter()
        .filter(|n| disk_counters(n).is_some())
        .map(|n| Disk {
            dev: read(&n, "dev").unwrap_or_default(),
            nr_requests: read(&n, "queue/nr_requests").and_then(|s| s.parse().ok()),
            scheduler: read(&n, "queue/scheduler").and_then(|s| active_scheduler(&s)),
            name: n,
        })
        .collect()
}

/// "mq-deadline [none]" names the active one in brackets.
fn active_scheduler(s: &str) -> Option<String> {
    let open = s.find('[')?;
    let close = s[open..].find(']')? + open;
    Some(s[open + 1..close].to_string())
}

/// This process's worker threads, by the names the runner gives them.
fn worker_tids() -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut v: Vec<u32> = dir
        .flatten()
        .filter_map(|e| {
            let tid: u32 = e.file_name().to_str()?.parse().ok()?;
            let comm = std::fs::read_to_string(e.path().join("comm")).ok()?;
            comm.starts_with("iogauge-t").then_some(tid)
        })
        .collect();
    v.sort_unstable();
    v
}

/// A thread's ns on a CPU and ns waiting in the run queue.
fn schedstat(tid: u32) -> Option<(u64, u64)> {
    let s = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
    let mut f = s.split_whitespace().map(|x| x.parse::<u64>().ok());
    Some((f.next()??, f.next()??))
}

/// Whether a thread sleeps where the kernel holds writers back at the dirty limit.
fn paused_for_dirty(tid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/self/task/{tid}/wchan"))
        .is_ok_and(|w| w.starts_with("balance_dirty_pages"))
}

/// The all-CPU line of /proc/stat: busy, steal, all (user nice system idle iowait irq
/// softirq steal).
fn machine_ticks() -> Option<[u64; 3]> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    let busy = get(0) + get(1) + get(2) + get(5) + get(6);
    Some([busy, get(7), v.iter().sum()])
}

/// A process's user and system ticks, and its thread count (/proc/PID/stat).
fn proc_ticks(pid: &str) -> Option<(u64, u32)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name may hold spaces and parentheses: the fields start after the last ')'.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields from 3 (state) on: utime is 14, stime 15, num_threads 20.
    let get = |n: usize| f.get(n - 3).and_then(|x| x.parse::<u64>().ok());
    Some((get(14)? + get(15)?, get(20).unwrap_or(1) as u32))
}

/// Totals of io, cpu and memory pressure in `dir` (files io, cpu, memory under
/// /proc/pressure; io.pressure... in a cgroup v2 folder).
fn pressure_in(dir: &Path, suffix: &str) -> Option<[u64; 5]> {
    let read = |what: &str| std::fs::read_to_string(dir.join(format!("{what}{suffix}"))).ok();
    let (io, cpu, mem) = (read("io")?, read("cpu")?, read("memory")?);
    let (io_some, io_full) = psi_totals(&io);
    let (cpu_some, _) = psi_totals(&cpu);
    let (mem_some, mem_full) = psi_totals(&mem);
    Some([io_some, io_full, cpu_some, mem_some, mem_full])
}

/// "some avg10=... total=N" and "full ... total=M": (N, M).
fn psi_totals(text: &str) -> (u64, u64) {
    let total = |kind: &str| {
        text.lines()
            .find(|l| l.starts_with(kind))
            .and_then(|l| l.split_whitespace().find_map(|f| f.strip_prefix("total=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (total("some"), total("full"))
}

/// Dirty and writeback bytes now, and the limits (nr_dirty_threshold, the background one).
fn dirty_now() -> Option<(u64, (u64, u64))> {
    let text = std::fs::read_to_string("/proc/vmstat").ok()?;
    let get = |key: &str| {
        text.lines().find_map(|l| {
            l.strip_prefix(key)?
                .strip_prefix(' ')?
                .trim()
                .parse::<u64>()
                .ok()
        })
    };
    let page = crate::os::page_size();
    let dirty = (get("nr_dirty")? + get("nr_writeback")?) * page;
    let limits = (
        get("nr_dirty_threshold")? * page,
        get("nr_dirty_background_threshold")? * page,
    );
    Some((dirty, limits))
}

/// Processes other than this one holding /dev/fuse open: the daemons serving FUSE mounts.
fn fuse_daemons() -> Vec<u32> {
    let me = std::process::id();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
                fds.flatten().any(|fd| {
                    std::fs::read_link(fd.path()).is_ok_and(|l| l == Path::new("/dev/fuse"))
                })
            })
        })
        .collect()
}

/// The cgroup of `task` ("self" or "self/task/TID"): its limits on `disks` and its memory
/// (the tightest of it and those above it), and its v2 folder for pressure.
fn cgroup_of(task: &str, disks: &[Disk]) -> (Option<CgroupLimits>, Option<PathBuf>) {
    let Ok(text) = std::fs::read_to_string(format!("/proc/{task}/cgroup")) else {
        return (None, None);
    };
    let devs: Vec<&str> = disks.iter().map(|d| d.dev.as_str()).collect();
    let v1 = |controller: &str| {
        text.lines().find_map(|l| {
            let mut f = l.splitn(3, ':');
            let (_, ctl, path) = (f.next()?, f.next()?, f.next()?);
            ctl.split(',')
                .any(|c| c == controller)
                .then(|| path.to_string())
        })
    };
    let v2 = text
        .lines()
        .find_map(|l| l.strip_prefix("0::").map(str::to_string));
    if let (Some(blkio), Some(mount)) = (v1("blkio"), v1_mount("blkio")) {
        let memory = v1("memory").and_then(|p| Some((v1_mount("memory")?, p)));
        let limits = CgroupLimits {
            io: v1_io_limits(&mount, &blkio, &devs),
            memory_bytes: memory.and_then(|(m, p)| v1_memory(&m, &p)),
            path: blkio,
            version: "v1".into(),
        };
        return (Some(limits), None);
    }
    let Some((path, mount)) = v2.zip(v2_mount()) else {
        return (None, None);
    };
    let dir = under(&mount, &path);
    let limits = CgroupLimits {
        io: v2_io_limits(&mount, &path, &devs),
        memory_bytes: ancestors(&mount, &path)
            .filter_map(|d| std::fs::read_to_string(d.join("memory.max")).ok())
            .filter_map(|s| s.trim().parse::<u64>().ok())
            .min(),
        path,
        version: "v2".into(),
    };
    (Some(limits), Some(dir))
}

fn under(mount: &Path, path: &str) -> PathBuf {
    mount.join(path.trim_start_matches('/'))
}

/// The folder of `path` under `mount` and each folder above it, up to the mount.
fn ancestors<'a>(mount: &'a Path, path: &str) -> impl Iterator<Item = PathBuf> + 'a {
    under(mount, path)
        .ancestors()
        .take_while(move |d| d.starts_with(mount))
        .map(Path::to_path_buf)
        .collect::<Vec<_>>()
        .into_iter()
}

/// Where cgroup v1's hierarchy with `controller` is mounted.
fn v1_mount(controller: &str) -> Option<PathBuf> {
    cgroup_mounts()
        .into_iter()
        .find(|(fs, opts, _)| fs == "cgroup" && opts.split(',').any(|o| o == controller))
        .map(|(_, _, mp)| mp)
}

fn v2_mount() -> Option<PathBuf> {
    cgroup_mounts()
        .into_iter()
        .find(|(fs, _, _)| fs == "cgroup2")
        .map(|(_, _, mp)| mp)
}

/// (fs type, super options, mount point) of every cgroup mount.
fn cgroup_mounts() -> Vec<(String, String, PathBuf)> {
    let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    info.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let mp = left.split(' ').nth(4)?;
            let r: Vec<&str> = right.split(' ').collect();
            let (fs, opts) = (*r.first()?, *r.get(2)?);
            fs.starts_with("cgroup")
                .then(|| (fs.to_string(), opts.to_string(), PathBuf::from(mp)))
        })
        .collect()
}

/// blkio.throttle.* on `devs`, the tightest over the cgroup and those above it.
fn v1_io_limits(mount: &Path, path: &str, devs: &[&str]) -> Vec<IoLimit> {
    let mut out: Vec<IoLimit> = devs
        .iter()
        .map(|d| IoLimit {
            dev: d.to_string(),
            ..Default::default()
        })
        .collect();
    for dir in ancestors(mount, path) {
        for (file, which) in [
            ("read_bps_device", 0),
            ("write_bps_device", 1),
            ("read_iops_device", 2),
            ("write_iops_device", 3),
        ] {
            let text = std::fs::read_to_string(dir.join(format!("blkio.throttle.{file}")))
                .unwrap_or_default();
            for (dev, v) in text.lines().filter_map(|l| {
                let (d, v) = l.split_once(' ')?;
                Some((d, v.trim().parse::<u64>().ok()?))
            }) {
                if let Some(l) = out.iter_mut().find(|l| l.dev == dev) {
                    tighten(l, which, v);
                }
            }
        }
    }
    out.retain(has_limit);
    out
}

/// io.max ("MAJ:MIN rbps=N wbps=max riops=N wiops=N") on `devs`, over the ancestors too.
fn v2_io_limits(mount: &Path, path: &str, devs: &[&str]) -> Vec<IoLimit> {
    let mut out: Vec<IoLimit> = devs
        .iter()
        .map(|d| IoLimit {
            dev: d.to_string(),
            ..Default::default()
        })
        .collect();
    for dir in ancestors(mount, path) {
        let text = std::fs::read_to_string(dir.join("io.max")).unwrap_or_default();
        for line in text.lines() {
            let mut f = line.split_whitespace();
            let Some(l) = f.next().and_then(|d| out.iter_mut().find(|l| l.dev == d)) else {
                continue;
            };
            for kv in f {
                let Some((k, v)) = kv.split_once('=') else {
                    continue;
                };
                let Ok(v) = v.parse::<u64>() else { continue };
                let which = ["rbps", "wbps", "riops", "wiops"]
                    .iter()
                    .position(|x| *x == k);
                if let Some(w) = which {
                    tighten(l, w, v);
                }
            }
        }
    }
    out.retain(has_limit);
    out
}

fn tighten(l: &mut IoLimit, which: usize, v: u64) {
    let slot = match which {
        0 => &mut l.read_bps,
        1 => &mut l.write_bps,
        2 => &mut l.read_iops,
        _ => &mut l.write_iops,
    };
    *slot = Some(slot.map_or(v, |s| s.min(v)));
}

fn has_limit(l: &IoLimit) -> bool {
    l.read_bps.is_some() || l.write_bps.is_some() || l.read_iops.is_some() || l.write_iops.is_some()
}

/// memory.limit_in_bytes, the tightest over the cgroup and those above it; "no limit" is a
/// number near 2^63 there.
fn v1_memory(mount: &Path, path: &str) -> Option<u64> {
    ancestors(mount, path)
        .filter_map(|d| std::fs::read_to_string(d.join("memory.limit_in_bytes")).ok())
        .filter_map(|s| s.trim().parse::<u64>().ok())
        .filter(|&v| v < 1 << 60)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_kernels_formats() {
        let c = DiskCounters::parse("100 0 800 50 100 0 800 150 3 120 400 0 0 0 0").unwrap();
        assert_eq!((c.ios, c.sectors, c.ticks), (200, [800, 800], 200));
        assert_eq!(c.service_ms(), Some(1.0));
        let psi = "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234\n\
                   full avg10=0.00 avg60=0.00 avg300=0.00 total=99\n";
        assert_eq!(psi_totals(psi), (1234, 99));
        assert_eq!(
            active_scheduler("mq-deadline [none] bfq").as_deref(),
            Some("none")
        );
        assert_eq!(active_scheduler("none"), None);
        let mut l = IoLimit::default();
        tighten(&mut l, 0, 100);
        tighten(&mut l, 0, 50);
        tighten(&mut l, 0, 70);
        assert_eq!(l.read_bps, Some(50));
        assert!(has_limit(&l));
    }

    #[test]
    fn a_window_is_read_from_this_machine() {
        let mut s = Sampler::new(&[Path::new("/")]);
        s.sample();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let v = s.finish().expect("two samples");
        assert_eq!(v.samples, 2);
        assert!(v.window_ns >= 30_000_000, "{}", v.window_ns);
        let m = v.machine.expect("/proc/stat");
        assert!(m.cpus >= 1 && (0.0..=100.0).contains(&m.busy_pct), "{m:?}");
        assert!(v.cost_ns > 0);
    }
}
