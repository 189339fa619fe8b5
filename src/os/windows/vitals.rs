//! Windows: the signals of `os::vitals` from the disks' counters (IOCTL_DISK_PERFORMANCE, see
//! `diskstats.rs`), the machine's CPU (GetSystemTimes), this process's (GetProcessTimes) and
//! its workers' (the threads the runner names iogauge-t*, found by their descriptions, and
//! GetThreadTimes). Windows counts no thread's wait for a CPU and tells a guest no steal
//! time; it has no pressure stall information, cgroups or dirty limits: those are left out.
//! What cannot be read is said in `not_read`, never guessed.

use super::diskstats::{disks_under, PerfDisk};
use crate::os::diskstats::DiskPerf;
use crate::os::vitals::{pct, DiskSignal, MachineCpu, Signals, WorkerCpu};
use std::path::Path;
use std::time::Instant;
use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
};
use windows_sys::Win32::System::Threading::{
    GetActiveProcessorCount, GetCurrentProcess, GetProcessTimes, GetSystemTimes,
    GetThreadDescription, GetThreadTimes, OpenThread, ALL_PROCESSOR_GROUPS,
    THREAD_QUERY_LIMITED_INFORMATION,
};

/// Everything read at one moment; CPU times in 100 ns units.
#[derive(Clone)]
struct Snap {
    at: Instant,
    disks: Vec<Option<DiskPerf>>,
    workers: Vec<u64>,
    /// GetSystemTimes: idle, kernel (idle included), user.
    machine: Option<[u64; 3]>,
    process: Option<u64>,
}

/// A worker thread, opened for its times, closed when dropped.
struct Thread(HANDLE);

// SAFETY: a thread's handle is a kernel object's, usable from any thread; the sampler that
// holds it (a workload's meter samples on a thread of its own) is used by one thread at a time.
unsafe impl Send for Thread {}

impl Drop for Thread {
    fn drop(&mut self) {
        // SAFETY: opened by `worker_threads`, closed once here.
        unsafe { CloseHandle(self.0) };
    }
}

/// Reads the signals of one measured window; see `os::vitals`.
pub struct Sampler {
    disks: Vec<PerfDisk>,
    not_read: Vec<String>,
    workers: Vec<Thread>,
    first: Option<Snap>,
    prev: Option<Snap>,
    service_first: Vec<Option<f64>>,
    service_last: Vec<Option<f64>>,
    samples: u32,
    cost_ns: u64,
}

impl Sampler {
    /// Find what to watch for targets at `paths`: their disks and this process's workers.
    pub fn new(paths: &[&Path]) -> Sampler {
        let t = Instant::now();
        let found = disks_under(paths.iter().copied());
        let n = found.disks.len();
        let mut s = Sampler {
            disks: found.disks,
            not_read: found.not_read,
            workers: worker_threads(),
            first: None,
            prev: None,
            service_first: vec![None; n],
            service_last: vec![None; n],
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
            let ns = snap.at.duration_since(prev.at).as_nanos() as u64;
            for (i, (a, b)) in snap.disks.iter().zip(&prev.disks).enumerate() {
                let s = match (a, b) {
                    (Some(a), Some(b)) => a.since(b, ns).service_ms(),
                    _ => None,
                };
                if s.is_some() {
                    self.service_first[i] = self.service_first[i].or(s);
                    self.service_last[i] = s;
                }
            }
        }
        if self.first.is_none() {
            self.first = Some(snap.clone());
        }
        self.prev = Some(snap);
        self.samples += 1;
        self.cost_ns += t.elapsed().as_nanos() as u64;
    }

    /// Everything now. A disk or a worker that cannot be read keeps its last figures.
    fn snap(&self) -> Snap {
        let prev = self.prev.as_ref();
        Snap {
            at: Instant::now(),
            disks: (self.disks.iter().enumerate())
                .map(|(i, d)| d.read().ok().or_else(|| prev.and_then(|p| p.disks[i])))
                .collect(),
            workers: (self.workers.iter().enumerate())
                .map(|(i, t)| {
                    thread_time(t.0)
                        .or_else(|| prev.map(|p| p.workers[i]))
                        .unwrap_or(0)
                })
                .collect(),
            machine: system_times(),
            process: process_time(),
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
        let mut not_read = std::mem::take(&mut self.not_read);
        let disks = self.disk_signals(&first, &last, window_ns, &mut not_read);
        let mut s = Signals {
            window_ns,
            samples: self.samples,
            disks,
            workers: worker_cpu(&first.workers, &last.workers, window_ns),
            machine: machine_cpu(&first, &last, window_ns),
            not_read,
            ..Signals::default()
        };
        s.cost_ns = self.cost_ns + t.elapsed().as_nanos() as u64;
        Some(s)
    }

    fn disk_signals(
        &self,
        first: &Snap,
        last: &Snap,
        window_ns: u64,
        not_read: &mut Vec<String>,
    ) -> Vec<DiskSignal> {
        let mut out = Vec::new();
        for (i, d) in self.disks.iter().enumerate() {
            let (Some(a), Some(b)) = (first.disks[i], last.disks[i]) else {
                not_read.push(format!(
                    "the counters of {} could not be read over the window",
                    d.path
                ));
                continue;
            };
            let delta = b.since(&a, window_ns);
            out.push(delta.signal(
                &d.name,
                &d.path,
                self.service_first[i],
                self.service_last[i],
            ));
        }
        out
    }
}

fn ticks(f: FILETIME) -> u64 {
    (u64::from(f.dwHighDateTime) << 32) | u64::from(f.dwLowDateTime)
}

fn system_times() -> Option<[u64; 3]> {
    let mut t = [FILETIME::default(); 3];
    let [idle, kernel, user] = &mut t;
    // SAFETY: three FILETIMEs we own.
    let ok = unsafe { GetSystemTimes(idle, kernel, user) };
    (ok != 0).then(|| t.map(ticks))
}

/// This process's kernel and user time.
fn process_time() -> Option<u64> {
    let mut t = [FILETIME::default(); 4];
    let [created, exited, kernel, user] = &mut t;
    // SAFETY: the pseudo-handle of this process; four FILETIMEs we own.
    let ok = unsafe { GetProcessTimes(GetCurrentProcess(), created, exited, kernel, user) };
    (ok != 0).then(|| ticks(t[2]) + ticks(t[3]))
}

/// A thread's kernel and user time.
fn thread_time(h: HANDLE) -> Option<u64> {
    let mut t = [FILETIME::default(); 4];
    let [created, exited, kernel, user] = &mut t;
    // SAFETY: a thread handle we hold; four FILETIMEs we own.
    let ok = unsafe { GetThreadTimes(h, created, exited, kernel, user) };
    (ok != 0).then(|| ticks(t[2]) + ticks(t[3]))
}

/// This process's threads whose description (the name std gives a thread) starts with
/// iogauge-t: the runner's workers.
fn worker_threads() -> Vec<Thread> {
    let me = std::process::id();
    // SAFETY: a snapshot of the system's threads, closed below.
    let snap = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snap == INVALID_HANDLE_VALUE {
        return Vec::new();
    }
    let mut e = THREADENTRY32 {
        dwSize: std::mem::size_of::<THREADENTRY32>() as u32,
        ..Default::default()
    };
    let mut out = Vec::new();
    // SAFETY: the snapshot is open; `e` is ours, its size set.
    let mut more = unsafe { Thread32First(snap, &mut e) } != 0;
    while more {
        if e.th32OwnerProcessID == me {
            out.extend(worker(e.th32ThreadID));
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snap, &mut e) } != 0;
    }
    // SAFETY: opened above, closed once.
    unsafe { CloseHandle(snap) };
    out
}

/// Thread `tid`, opened, if it is a worker.
fn worker(tid: u32) -> Option<Thread> {
    // SAFETY: a thread of this process, opened for queries; closed by `Thread`'s drop.
    let h = unsafe { OpenThread(THREAD_QUERY_LIMITED_INFORMATION, 0, tid) };
    if h.is_null() {
        return None;
    }
    let t = Thread(h);
    (description(h)?.starts_with("iogauge-t")).then_some(t)
}

fn description(h: HANDLE) -> Option<String> {
    let mut p: windows_sys::core::PWSTR = std::ptr::null_mut();
    // SAFETY: the system allocates the string, freed below with LocalFree.
    if unsafe { GetThreadDescription(h, &mut p) } < 0 || p.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string the system gave.
    let text = unsafe {
        let n = (0..).take_while(|&i| *p.add(i) != 0).count();
        String::from_utf16_lossy(std::slice::from_raw_parts(p, n))
    };
    // SAFETY: allocated by GetThreadDescription, freed once.
    unsafe { windows_sys::Win32::Foundation::LocalFree(p.cast()) };
    Some(text)
}

/// The workers' time on a CPU over the window (no wait: Windows does not count it).
fn worker_cpu(first: &[u64], last: &[u64], window_ns: u64) -> Option<WorkerCpu> {
    let n = first.len();
    if n == 0 {
        return None;
    }
    let w = window_ns as f64 / 100.0;
    let runs: Vec<f64> = (0..n)
        .map(|i| pct(last[i].saturating_sub(first[i]) as f64, w))
        .collect();
    Some(WorkerCpu {
        threads: n as u32,
        allowed_cpus: std::thread::available_parallelism().map_or(1, |c| c.get() as u32),
        busiest_run_pct: runs.iter().copied().fold(0.0, f64::max),
        mean_run_pct: runs.iter().sum::<f64>() / n as f64,
        mean_wait_pct: None,
    })
}

fn machine_cpu(first: &Snap, last: &Snap, window_ns: u64) -> Option<MachineCpu> {
    let (a, b) = (first.machine?, last.machine?);
    let d = |i: usize| b[i].saturating_sub(a[i]) as f64;
    let (idle, all) = (d(0), d(1) + d(2));
    let process = match (first.process, last.process) {
        (Some(x), Some(y)) => y.saturating_sub(x) as f64,
        _ => 0.0,
    };
    // SAFETY: no arguments but the group selector.
    let cpus = unsafe { GetActiveProcessorCount(ALL_PROCESSOR_GROUPS) }.max(1);
    Some(MachineCpu {
        cpus,
        busy_pct: pct(all - idle, all).clamp(0.0, 100.0),
        steal_pct: 0.0,
        process_cpus: process / (window_ns as f64 / 100.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_is_read_from_this_machine() {
        let dir = std::env::temp_dir();
        let mut s = Sampler::new(&[dir.as_path()]);
        s.sample();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let v = s.finish().expect("two samples");
        assert_eq!(v.samples, 2);
        assert!(v.window_ns >= 30_000_000, "{}", v.window_ns);
        let m = v.machine.expect("GetSystemTimes");
        assert!(m.cpus >= 1 && (0.0..=100.0).contains(&m.busy_pct), "{m:?}");
        // Each disk of the temporary folder is either counted or said to be unreadable.
        assert!(!v.disks.is_empty() || !v.not_read.is_empty(), "{v:?}");
    }

    #[test]
    fn the_runners_workers_are_found_by_name() {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s2 = stop.clone();
        let t = std::thread::Builder::new()
            .name("iogauge-t0-0".into())
            .spawn(move || {
                while !s2.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let found = worker_threads().len();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        t.join().unwrap();
        assert_eq!(found, 1);
    }
}
