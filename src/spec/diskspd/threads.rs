//! Who issues the I/O: threads per target (-t) or threads over every target (-F), the I/Os
//! each keeps outstanding (-o per target, -O per thread with -F), and the CPUs they run on
//! (-a, -n), with DiskSpd's rules for combining them.

use super::timing::Pace;
use super::values::bad;
use super::OUTSTANDING;
use crate::error::Result;
use crate::spec::{Affinity, FileService, FileSets};

/// The thread switches, as given.
pub(super) struct Threads {
    /// -t.
    pub per_target: Option<u32>,
    /// -F.
    pub fixed: Option<u32>,
    /// -o.
    pub qd: u32,
    /// -O: outstanding I/Os per thread over all its targets (with -F).
    pub per_thread_qd: Option<u32>,
    /// -a: the CPUs listed, over all -a options (a bare -a or -ag lists none).
    pub cpus: Vec<usize>,
    /// -n.
    pub no_affinity: bool,
}

/// The threads of the job and the I/Os each keeps in flight.
pub(super) struct Plan {
    pub threads_per_target: u32,
    pub queue_depth: u32,
    pub file_sets: Option<FileSets>,
}

impl Default for Threads {
    fn default() -> Self {
        Threads {
            per_target: None,
            fixed: None,
            qd: OUTSTANDING,
            per_thread_qd: None,
            cpus: Vec::new(),
            no_affinity: false,
        }
    }
}

impl Threads {
    /// DiskSpd's validator, on the switches that choose threads and CPUs.
    pub fn check(&self) -> Result<()> {
        if self.no_affinity && !self.cpus.is_empty() {
            return Err(bad("-n and -a parameters cannot be used together"));
        }
        if self.fixed.is_some() && self.per_target.is_some() {
            return Err(bad("-F and -t parameters cannot be used together"));
        }
        Ok(())
    }

    /// The threads over `targets` targets. DiskSpd refuses -O with pacing (-g, -j).
    ///
    /// -F: that many threads, each on every target. Its I/Os keep their targets, -o on each
    /// (DiskSpd's requests per target), unless -O gives a count per thread: then each I/O goes
    /// to a target drawn at random, as DiskSpd's GetNextTarget does with equal weights.
    pub fn plan(&self, targets: usize, pace: &Pace, notes: &mut Vec<String>) -> Result<Plan> {
        let Some(fixed) = self.fixed else {
            if self.per_thread_qd.is_some() {
                notes.push("-O applies to threads set with -F: ignored, as DiskSpd does".into());
            }
            return Ok(Plan {
                threads_per_target: self.per_target.unwrap_or(1),
                queue_depth: self.qd,
                file_sets: None,
            });
        };
        if self.per_thread_qd.is_some() {
            if pace.rate_iops.is_some() || pace.rate_bw.is_some() {
                return Err(bad(
                    "-g throughput control cannot be used with -O outstanding requests per thread",
                ));
            }
            if pace.think_ms.is_some() {
                return Err(bad(
                    "-j think time cannot be used with -O outstanding requests per thread",
                ));
            }
        }
        let n = targets as u32;
        let (queue_depth, service) = match self.per_thread_qd {
            Some(o) => (o, FileService::Random { every: 1 }),
            None => (self.qd.saturating_mul(n), FileService::Slots),
        };
        Ok(Plan {
            threads_per_target: fixed,
            queue_depth,
            file_sets: (n > 1).then_some(FileSets {
                files: n,
                service,
                open_files: None,
            }),
        })
    }

    pub fn affinity(self) -> Option<Affinity> {
        match (self.no_affinity, self.cpus.is_empty()) {
            (true, _) => None,
            (false, false) => Some(Affinity::Cpus { cpus: self.cpus }),
            // DiskSpd's default: threads spread round-robin over the CPUs.
            (false, true) => Some(Affinity::Auto),
        }
    }
}

/// `-a[g#,]#[,#...]`, as DiskSpd reads it: CPUs, each in the group named last by `g#` (0
/// until one is named). `-a` and `-ag` alone list none (DiskSpd's default, round robin).
/// Linux has one group: CPUs of group 0 are the CPUs, any other group is refused.
pub(super) fn affinity_cpus(a: &str, v: &str) -> Result<Vec<usize>> {
    let list = match v {
        "" | "g" => return Ok(Vec::new()),
        _ => v,
    };
    // DiskSpd: a list ends with a CPU, not with a group.
    if list.ends_with(',') || list.rsplit(',').next().is_some_and(|l| l.starts_with('g')) {
        return Err(bad(format!("{a}: incomplete affinity specification")));
    }
    let syntax = |at: &str| bad(format!("{a}: syntax error parsing affinity at '{at}'"));
    let mut cpus = Vec::new();
    for part in list.split(',') {
        if let Some(group) = part.strip_prefix('g') {
            match group.parse::<u64>() {
                Ok(0) => continue,
                Ok(_) => {
                    return Err(bad(format!(
                        "{a}: processor groups other than 0 do not exist on Linux"
                    )))
                }
                Err(_) => return Err(syntax(part)),
            }
        }
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax(part));
        }
        cpus.push(part.parse().map_err(|_| syntax(part))?);
    }
    Ok(cpus)
}
