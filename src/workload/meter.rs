//! Counting a step's progress without slowing it: each thread adds to counters of its own
//! (on a cache line of their own, so threads never contend for one), and a sampler thread sums
//! them every interval into the step's time series. The last interval is taken after the work
//! ends, so the intervals sum to the totals exactly.

use crate::os::vitals::{Sampler, Signals};
use crate::result::{Sample, SampleDir, TimeSeries};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// One thread's counts: files and bytes read and written.
#[repr(align(128))]
#[derive(Default)]
pub struct Counter {
    read_files: AtomicU64,
    read_bytes: AtomicU64,
    write_files: AtomicU64,
    write_bytes: AtomicU64,
}

/// The system's copies count their bytes here as they move.
impl crate::os::copy::Progress for Counter {
    fn read(&self, bytes: u64) {
        Counter::read(self, bytes);
    }
    fn wrote(&self, bytes: u64) {
        Counter::wrote(self, bytes);
    }
}

impl Counter {
    #[inline]
    pub fn read(&self, bytes: u64) {
        self.read_bytes.fetch_add(bytes, Relaxed);
    }

    /// A file (an entry, for scan) done reading.
    #[inline]
    pub fn read_file(&self) {
        self.read_files.fetch_add(1, Relaxed);
    }

    #[inline]
    pub fn wrote(&self, bytes: u64) {
        self.write_bytes.fetch_add(bytes, Relaxed);
    }

    /// A file (an entry, for delete) done writing.
    #[inline]
    pub fn wrote_file(&self) {
        self.write_files.fetch_add(1, Relaxed);
    }
}

/// Everything counted so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub read_files: u64,
    pub read_bytes: u64,
    pub write_files: u64,
    pub write_bytes: u64,
}

impl Totals {
    fn minus(self, o: Totals) -> Totals {
        Totals {
            read_files: self.read_files - o.read_files,
            read_bytes: self.read_bytes - o.read_bytes,
            write_files: self.write_files - o.write_files,
            write_bytes: self.write_bytes - o.write_bytes,
        }
    }
}

/// The counters of a step's threads.
pub struct Meter {
    counters: Vec<Counter>,
    interval_ns: u64,
    /// Where the step reads and writes: the system's signals are sampled for them, as for a
    /// run, so a step gets the same verdict on what limited it (`result::limit`).
    watch: Vec<PathBuf>,
}

/// A step's work, timed, with its time series and CPU time.
pub struct Measured<T> {
    pub value: T,
    pub elapsed_ns: u64,
    pub user_ns: u64,
    pub system_ns: u64,
    pub series: TimeSeries,
    pub totals: Totals,
    /// What the system did meanwhile, where watched.
    pub signals: Option<Signals>,
}

impl Meter {
    /// Counters for `threads` threads (and one more, for a coordinating thread).
    pub fn new(threads: u32, interval_ns: u64) -> Meter {
        Meter {
            counters: (0..=threads).map(|_| Counter::default()).collect(),
            interval_ns,
            watch: Vec::new(),
        }
    }

    /// Sample the system's signals for `paths` while measuring.
    pub fn watching(mut self, paths: Vec<PathBuf>) -> Meter {
        self.watch = paths;
        self
    }

    /// Thread `i`'s counter.
    pub fn slot(&self, i: usize) -> &Counter {
        &self.counters[i % self.counters.len()]
    }

    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for c in &self.counters {
            t.read_files += c.read_files.load(Relaxed);
            t.read_bytes += c.read_bytes.load(Relaxed);
            t.write_files += c.write_files.load(Relaxed);
            t.write_bytes += c.write_bytes.load(Relaxed);
        }
        t
    }

    /// Run `work` while a sampler thread records the time series; `tick` is called by the
    /// sampler after each interval with the totals so far (a progress line).
    pub fn measure<T>(
        &self,
        tick: &(dyn Fn(Totals) + Sync),
        work: impl FnOnce() -> T,
    ) -> Measured<T> {
        let done = AtomicBool::new(false);
        let mut vitals = (!self.watch.is_empty()).then(|| {
            let paths: Vec<&Path> = self.watch.iter().map(PathBuf::as_path).collect();
            let mut v = Sampler::new(&paths);
            v.sample();
            v
        });
        let cpu0 = process_cpu();
        let t0 = Instant::now();
        let (value, elapsed_ns, samples, vitals) = std::thread::scope(|s| {
            let (done, tick) = (&done, tick);
            let sampler = s.spawn(move || {
                let samples = self.sample(t0, done, tick, vitals.as_mut());
                (samples, vitals)
            });
            let value = work();
            let elapsed_ns = t0.elapsed().as_nanos() as u64;
            done.store(true, Relaxed);
            sampler.thread().unpark();
            let (mut samples, vitals) = sampler.join().unwrap_or_default();
            // The last interval, cut short by the end of the work.
            let before = samples.iter().fold(Totals::default(), add);
            let start_ns = samples.len() as u64 * self.interval_ns;
            if elapsed_ns > start_ns || samples.is_empty() {
                samples.push(sample_of(
                    self.totals().minus(before),
                    start_ns,
                    elapsed_ns.saturating_sub(start_ns),
                ));
            }
            (value, elapsed_ns, samples, vitals)
        });
        let cpu1 = process_cpu();
        Measured {
            value,
            elapsed_ns,
            user_ns: cpu1.0.saturating_sub(cpu0.0),
            system_ns: cpu1.1.saturating_sub(cpu0.1),
            series: TimeSeries {
                interval_ns: self.interval_ns,
                samples,
            },
            totals: self.totals(),
            signals: vitals.and_then(Sampler::finish),
        }
    }

    /// Every whole interval until `done`.
    fn sample(
        &self,
        t0: Instant,
        done: &AtomicBool,
        tick: &(dyn Fn(Totals) + Sync),
        mut vitals: Option<&mut Sampler>,
    ) -> Vec<Sample> {
        let mut samples = Vec::new();
        let mut last = Totals::default();
        let iv = self.interval_ns;
        loop {
            let due = t0 + Duration::from_nanos(iv * (samples.len() as u64 + 1));
            while !done.load(Relaxed) {
                let now = Instant::now();
                if now >= due {
                    break;
                }
                std::thread::park_timeout(due - now);
            }
            if done.load(Relaxed) {
                return samples;
            }
            let now = self.totals();
            samples.push(sample_of(now.minus(last), samples.len() as u64 * iv, iv));
            last = now;
            if let Some(v) = vitals.as_deref_mut() {
                v.sample();
            }
            tick(now);
        }
    }
}

fn sample_of(d: Totals, start_ns: u64, duration_ns: u64) -> Sample {
    let dir = |ios, bytes| SampleDir {
        ios,
        bytes,
        ..SampleDir::default()
    };
    Sample {
        start_ns,
        duration_ns,
        read: dir(d.read_files, d.read_bytes),
        write: dir(d.write_files, d.write_bytes),
        trim: None,
    }
}

fn add(acc: Totals, s: &Sample) -> Totals {
    Totals {
        read_files: acc.read_files + s.read.ios,
        read_bytes: acc.read_bytes + s.read.bytes,
        write_files: acc.write_files + s.write.ios,
        write_bytes: acc.write_bytes + s.write.bytes,
    }
}

/// This process's (user, system) CPU time so far, every thread's.
fn process_cpu() -> (u64, u64) {
    let u = crate::os::process::usage();
    (u.user_ns, u.system_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_intervals_sum_to_the_totals_and_the_last_is_cut_short() {
        let m = Meter::new(2, 10_000_000);
        let r = m.measure(&|_| {}, || {
            for i in 0..50u64 {
                m.slot(i as usize).read(100);
                m.slot(i as usize).read_file();
                m.slot(1).wrote(7);
                std::thread::sleep(Duration::from_millis(1));
            }
            42
        });
        assert_eq!(r.value, 42);
        let s = &r.series.samples;
        assert!(s.len() >= 4, "{} samples", s.len());
        let read: u64 = s.iter().map(|x| x.read.bytes).sum();
        let files: u64 = s.iter().map(|x| x.read.ios).sum();
        let wrote: u64 = s.iter().map(|x| x.write.bytes).sum();
        assert_eq!((read, files, wrote), (5000, 50, 350));
        assert_eq!(r.totals.read_bytes, 5000);
        assert!(s[..s.len() - 1].iter().all(|x| x.duration_ns == 10_000_000));
        let last = s.last().unwrap();
        assert_eq!(last.start_ns + last.duration_ns, r.elapsed_ns);
    }
}
