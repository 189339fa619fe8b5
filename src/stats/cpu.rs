//! CPU time per CPU (the port's: /proc/stat on Linux, the processors' performance counters
//! on Windows), sampled at the start and end of the measured window,
//! as DiskSpd reports it: a run that saturates a CPU measures the CPU, not the storage.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default)]
pub struct CpuTicks {
    /// Per CPU: (user, kernel, idle) in clock ticks.
    pub cpus: Vec<(u64, u64, u64)>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CpuUsage {
    pub cpu: usize,
    pub user_ns: u64,
    pub kernel_ns: u64,
    pub idle_ns: u64,
}

impl CpuUsage {
    pub fn total_ns(&self) -> u64 {
        self.user_ns
            .saturating_add(self.kernel_ns)
            .saturating_add(self.idle_ns)
    }
    pub fn pct(&self, part: u64) -> f64 {
        if self.total_ns() == 0 {
            0.0
        } else {
            100.0 * part as f64 / self.total_ns() as f64
        }
    }
}

/// Each CPU's time so far, as the system counts it; empty where it says none.
pub fn sample() -> CpuTicks {
    CpuTicks {
        cpus: crate::os::cpu::times(),
    }
}

/// CPU time the hypervisor gave to others while this machine wanted to run (Linux's "steal",
/// all CPUs), in nanoseconds since boot. 0 where not reported.
pub fn steal_ns() -> u64 {
    crate::os::cpu::steal_ticks() * 1_000_000_000 / crate::os::cpu::ticks_per_sec()
}

/// CPU use between two samples, in nanoseconds per CPU.
pub fn usage(start: &CpuTicks, end: &CpuTicks) -> Vec<CpuUsage> {
    let hz = crate::os::cpu::ticks_per_sec();
    let ns = |ticks: u64| ticks * 1_000_000_000 / hz;
    start
        .cpus
        .iter()
        .zip(&end.cpus)
        .enumerate()
        .map(|(cpu, (a, b))| CpuUsage {
            cpu,
            user_ns: ns(b.0.saturating_sub(a.0)),
            kernel_ns: ns(b.1.saturating_sub(a.1)),
            idle_ns: ns(b.2.saturating_sub(a.2)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_between_two_samples() {
        let a = CpuTicks {
            cpus: vec![(12, 32, 405), (1, 1, 100)],
        };
        let b = CpuTicks {
            cpus: vec![(22, 42, 505), (1, 1, 200)],
        };
        let u = usage(&a, &b);
        assert_eq!(u.len(), 2);
        assert!((u[0].pct(u[0].user_ns) - 100.0 * 10.0 / 120.0).abs() < 1e-9);
        assert_eq!(u[1].user_ns, 0);
        assert!(u[1].idle_ns > 0);
    }
}
