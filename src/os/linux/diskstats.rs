//! fio's disk_util: what the disks under a job's files did while it ran, from the kernel's
//! counters in /sys/block/<disk>/stat read at the start and at the end, as fio reads them.
//! Only whole disks and the devices a device-mapper or md device is built on; a file system
//! without a block device (tmpfs, overlay) has none, as with fio.

use crate::os::diskstats::{Aggr, DiskUtil};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The counters fio reads from a disk's stat file (the first 11 fields, Documentation/
/// block/stat.rst): [read, write] I/Os, merges and ms spent; ms busy and ms weighted by the
/// I/Os in flight.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Counters {
    ios: [u64; 2],
    merges: [u64; 2],
    ticks: [u64; 2],
    io_ticks: u64,
    in_queue: u64,
}

impl Counters {
    fn parse(line: &str) -> Option<Counters> {
        let f: Vec<u64> = line
            .split_whitespace()
            .take(11)
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        (f.len() == 11).then(|| Counters {
            ios: [f[0], f[4]],
            merges: [f[1], f[5]],
            ticks: [f[3], f[7]],
            io_ticks: f[9],
            in_queue: f[10],
        })
    }

    fn read(disk: &str) -> Option<Counters> {
        Counters::parse(&std::fs::read_to_string(format!("/sys/block/{disk}/stat")).ok()?)
    }

    /// What happened from `before` to `self` (counters that went back count 0).
    fn since(&self, before: &Counters) -> Counters {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        let d2 = |a: [u64; 2], b: [u64; 2]| [d(a[0], b[0]), d(a[1], b[1])];
        Counters {
            ios: d2(self.ios, before.ios),
            merges: d2(self.merges, before.merges),
            ticks: d2(self.ticks, before.ticks),
            io_ticks: d(self.io_ticks, before.io_ticks),
            in_queue: d(self.in_queue, before.in_queue),
        }
    }

    /// fio's util: percent of the time the disk was busy, at most 100.
    fn util(&self, ms: u64) -> f64 {
        match ms {
            0 => 0.0,
            _ => (100.0 * self.io_ticks as f64 / ms as f64).min(100.0),
        }
    }
}

/// The disks under some files, their counters read when watching began.
pub struct Watch {
    /// (disk, the disks it is built on, its counters then).
    disks: Vec<(String, Vec<String>, Counters)>,
    since: Instant,
}

impl Watch {
    /// Start watching the disks under `paths` (for a file not made yet, under its folder),
    /// each once, in the order first met, each followed by the disks it is built on.
    pub fn start<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Watch {
        let mut names: Vec<String> = Vec::new();
        for disk in paths.into_iter().filter_map(disk_under) {
            for name in std::iter::once(disk.clone()).chain(slaves_of(&disk)) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        let disks = names
            .into_iter()
            .filter_map(|n| {
                let c = Counters::read(&n)?;
                Some((n.clone(), slaves_of(&n), c))
            })
            .collect();
        Watch {
            disks,
            since: Instant::now(),
        }
    }

    /// fio's disk_util entries for the time since `start`.
    pub fn finish(self) -> Vec<DiskUtil> {
        let ms = self.since.elapsed().as_millis() as u64;
        let now: Vec<(&str, Counters)> = self
            .disks
            .iter()
            .map(|(n, _, before)| {
                (
                    n.as_str(),
                    Counters::read(n).unwrap_or(*before).since(before),
                )
            })
            .collect();
        let of = |name: &str| now.iter().find(|(n, _)| *n == name).map(|(_, c)| *c);
        self.disks
            .iter()
            .zip(&now)
            .map(|((name, slaves, _), (_, c))| {
                let under: Vec<Counters> = slaves.iter().filter_map(|s| of(s)).collect();
                DiskUtil {
                    name: name.clone(),
                    read_ios: c.ios[0],
                    write_ios: c.ios[1],
                    read_merges: c.merges[0],
                    write_merges: c.merges[1],
                    read_ticks: c.ticks[0],
                    write_ticks: c.ticks[1],
                    in_queue: c.in_queue,
                    util: c.util(ms),
                    aggr: aggregate(&under, ms),
                }
            })
            .collect()
    }
}

/// fio's aggregate of the disks a device is built on: the mean of each counter, the most
/// busy one's util.
fn aggregate(under: &[Counters], ms: u64) -> Option<Aggr> {
    let n = under.len() as u64;
    let mean = |f: fn(&Counters) -> u64| under.iter().map(f).sum::<u64>() / n.max(1);
    (n > 0).then(|| Aggr {
        aggr_read_ios: mean(|c| c.ios[0]),
        aggr_write_ios: mean(|c| c.ios[1]),
        aggr_read_merges: mean(|c| c.merges[0]),
        aggr_write_merge: mean(|c| c.merges[1]),
        aggr_read_ticks: mean(|c| c.ticks[0]),
        aggr_write_ticks: mean(|c| c.ticks[1]),
        aggr_in_queue: mean(|c| c.in_queue),
        aggr_util: under.iter().map(|c| c.util(ms)).fold(0.0, f64::max),
    })
}

/// The whole disk under `path`: a block device's own, else that of the file system holding
/// it (or its nearest folder that exists), a partition's parent disk as fio takes it.
pub(crate) fn disk_under(path: &Path) -> Option<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let mut at: PathBuf = std::path::absolute(path).ok()?;
    let meta = loop {
        match std::fs::metadata(&at) {
            Ok(m) => break m,
            Err(_) => at = at.parent()?.to_path_buf(),
        }
    };
    let dev = match meta.file_type().is_block_device() {
        true => meta.rdev(),
        false => meta.dev(),
    };
    crate::os::facts::disk_of_dev(dev)
}

/// The disks `disk` is built on (a dm or md device's), as /sys/block/<disk>/slaves lists them.
pub(crate) fn slaves_of(disk: &str) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(format!("/sys/block/{disk}/slaves")) else {
        return Vec::new();
    };
    let mut v: Vec<String> = dir
        .flatten()
        // A slave may be a partition: its disk is what /sys/block has.
        .filter_map(|e| crate::os::facts::disk_of_sysfs(&std::fs::canonicalize(e.path()).ok()?))
        .collect();
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_read_as_fio_reads_them() {
        let line = "  26331  0 210648 2897 26548 1246 221080 3389 0 5120 6288 0 0 0 0 0 0\n";
        let c = Counters::parse(line).unwrap();
        assert_eq!(c.ios, [26331, 26548]);
        assert_eq!(c.merges, [0, 1246]);
        assert_eq!(c.ticks, [2897, 3389]);
        assert_eq!((c.io_ticks, c.in_queue), (5120, 6288));
        assert_eq!(c.util(10240), 50.0);
        assert_eq!(c.util(1000), 100.0);
        assert_eq!(Counters::parse("1 2 3"), None);
        let later = Counters {
            io_ticks: 6000,
            ..c
        };
        assert_eq!(later.since(&c).io_ticks, 880);
    }

    #[test]
    fn aggregates_are_fios_means() {
        let a = Counters {
            ios: [10, 20],
            io_ticks: 500,
            ..Default::default()
        };
        let b = Counters {
            ios: [30, 40],
            io_ticks: 1000,
            ..Default::default()
        };
        let g = aggregate(&[a, b], 1000).unwrap();
        assert_eq!((g.aggr_read_ios, g.aggr_write_ios), (20, 30));
        assert_eq!(g.aggr_util, 100.0);
        assert!(aggregate(&[], 1000).is_none());
    }
}
