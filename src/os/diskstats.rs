//! The disks' own counters over a run, in fio's disk_util shape (ios, merges, ticks, time
//! busy): the port watches the disks under the targets (`Watch`: /sys/block on Linux;
//! IOCTL_DISK_PERFORMANCE on Windows, whose arithmetic is here, [`DiskPerf`], so that it is
//! tested on every system).

use serde::Serialize;

use super::vitals::DiskSignal;

pub use super::sys::diskstats::Watch;

/// One entry of fio's disk_util, its fields named as fio 3.33 names them (aggr_write_merge
/// included). The aggr_ fields only for a device built on others (dm, md): their mean, and
/// the busiest one's util.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DiskUtil {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    pub util: f64,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub aggr: Option<Aggr>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Aggr {
    pub aggr_read_ios: u64,
    pub aggr_write_ios: u64,
    pub aggr_read_merges: u64,
    pub aggr_write_merge: u64,
    pub aggr_read_ticks: u64,
    pub aggr_write_ticks: u64,
    pub aggr_in_queue: u64,
    pub aggr_util: f64,
}

/// A disk's counters as Windows' IOCTL_DISK_PERFORMANCE gives them (DISK_PERFORMANCE), times
/// in 100 ns units: cumulative but for `queue_depth`, the I/Os outstanding at `query_time`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DiskPerf {
    /// Bytes read, written.
    pub bytes: [u64; 2],
    /// Time spent by reads, by writes: each I/O's own, added up (several at once count
    /// several times, which makes their sum over the elapsed time the mean in flight).
    pub time: [u64; 2],
    pub idle: u64,
    /// Reads and writes completed: 32 bits, which wrap.
    pub count: [u32; 2],
    pub queue_depth: u32,
    /// When the counters were read (the system time).
    pub query_time: u64,
}

/// What a disk did between two reads of its [`DiskPerf`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerfDelta {
    pub bytes: [u64; 2],
    pub time: [u64; 2],
    pub idle: u64,
    pub ios: [u64; 2],
    /// 100 ns units between the two reads.
    pub elapsed: u64,
}

impl DiskPerf {
    /// From `before` to `self`; `window_ns` stands in for the elapsed time where the disk's
    /// own clock did not move (counters that went back count 0).
    pub fn since(&self, before: &DiskPerf, window_ns: u64) -> PerfDelta {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        let elapsed = match d(self.query_time, before.query_time) {
            0 => window_ns / 100,
            e => e,
        };
        PerfDelta {
            bytes: [
                d(self.bytes[0], before.bytes[0]),
                d(self.bytes[1], before.bytes[1]),
            ],
            time: [
                d(self.time[0], before.time[0]),
                d(self.time[1], before.time[1]),
            ],
            idle: d(self.idle, before.idle),
            ios: [
                u64::from(self.count[0].wrapping_sub(before.count[0])),
                u64::from(self.count[1].wrapping_sub(before.count[1])),
            ],
            elapsed,
        }
    }
}

impl PerfDelta {
    pub fn ios(&self) -> u64 {
        self.ios[0] + self.ios[1]
    }

    /// Time with at least one I/O outstanding: the time not idle, at most 100%.
    pub fn busy_pct(&self) -> f64 {
        match self.elapsed {
            0 => 0.0,
            e => (100.0 * e.saturating_sub(self.idle) as f64 / e as f64).min(100.0),
        }
    }

    /// I/Os in flight on average: the time they spent over the time elapsed (Little's law).
    pub fn in_flight(&self) -> f64 {
        match self.elapsed {
            0 => 0.0,
            e => (self.time[0] + self.time[1]) as f64 / e as f64,
        }
    }

    /// Mean ms from an I/O's start at the disk to its end, None without I/O.
    pub fn service_ms(&self) -> Option<f64> {
        let n = self.ios();
        (n > 0).then(|| (self.time[0] + self.time[1]) as f64 / 1e4 / n as f64)
    }

    /// fio's disk_util entry. Windows' storage stack merges no requests: merges are 0.
    pub fn disk_util(&self, name: &str) -> DiskUtil {
        let ms = |t: u64| t / 10_000;
        DiskUtil {
            name: name.to_string(),
            read_ios: self.ios[0],
            write_ios: self.ios[1],
            read_merges: 0,
            write_merges: 0,
            read_ticks: ms(self.time[0]),
            write_ticks: ms(self.time[1]),
            in_queue: ms(self.time[0] + self.time[1]),
            util: self.busy_pct(),
            aggr: None,
        }
    }

    /// The signal of one disk over a window; `first` and `last` are the service times of
    /// the first and last sample periods that saw I/O.
    pub fn signal(
        &self,
        name: &str,
        dev: &str,
        first: Option<f64>,
        last: Option<f64>,
    ) -> DiskSignal {
        let service = self.service_ms().unwrap_or(0.0);
        DiskSignal {
            name: name.to_string(),
            dev: dev.to_string(),
            ios: self.ios(),
            read_bytes: self.bytes[0],
            write_bytes: self.bytes[1],
            busy_pct: self.busy_pct(),
            in_flight: self.in_flight(),
            service_ms: service,
            service_first_ms: first.unwrap_or(service),
            service_last_ms: last.unwrap_or(service),
            nr_requests: None,
            scheduler: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perf(idle: u64, time: [u64; 2], count: [u32; 2], at: u64) -> DiskPerf {
        DiskPerf {
            bytes: [u64::from(count[0]) * 4096, u64::from(count[1]) * 65536],
            time,
            idle,
            count,
            queue_depth: 0,
            query_time: at,
        }
    }

    #[test]
    fn disk_performance_makes_the_signals() {
        // Two seconds (20 M units of 100 ns): idle 0.5 s, 1000 reads and 1000 writes that
        // spent 6 s together: busy 75%, 3 in flight, 3 ms each.
        let a = perf(1_000, [0, 0], [u32::MAX - 499, 10], 50_000_000);
        let mut b = perf(
            5_001_000,
            [20_000_000, 40_000_000],
            [500, 1_010],
            70_000_000,
        );
        b.bytes = [a.bytes[0] + 1000 * 4096, a.bytes[1] + 1000 * 65536];
        let d = b.since(&a, 0);
        assert_eq!(d.ios, [1000, 1000], "the read count wrapped");
        assert_eq!(d.elapsed, 20_000_000);
        assert_eq!(d.busy_pct(), 75.0);
        assert_eq!(d.in_flight(), 3.0);
        assert_eq!(d.service_ms(), Some(3.0));
        let s = d.signal("PhysicalDrive0", r"\\.\PhysicalDrive0", Some(2.0), None);
        assert_eq!((s.ios, s.busy_pct, s.in_flight), (2000, 75.0, 3.0));
        assert_eq!((s.service_first_ms, s.service_last_ms), (2.0, 3.0));
        assert_eq!(s.read_bytes, 1000 * 4096);
        let u = d.disk_util("PhysicalDrive0");
        assert_eq!(
            (u.read_ticks, u.write_ticks, u.in_queue),
            (2000, 4000, 6000)
        );
        assert_eq!((u.read_ios, u.util), (1000, 75.0));
    }

    #[test]
    fn a_stopped_clock_or_no_io_gives_no_figure_out_of_nothing() {
        let a = perf(0, [0, 0], [0, 0], 7);
        // The disk's clock did not move: the window's own length stands in.
        let d = perf(10_000_000, [0, 0], [0, 0], 7).since(&a, 2_000_000_000);
        assert_eq!((d.elapsed, d.busy_pct()), (20_000_000, 50.0));
        assert_eq!(d.service_ms(), None);
        // Idle longer than the time elapsed (the clocks differ): not busy, not below 0.
        let d = perf(30_000_000, [0, 0], [0, 0], 20_000_007).since(&a, 0);
        assert_eq!(d.busy_pct(), 0.0);
        assert_eq!(PerfDelta::default().busy_pct(), 0.0);
        assert_eq!(PerfDelta::default().in_flight(), 0.0);
    }
}
