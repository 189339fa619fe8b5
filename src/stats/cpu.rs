//! CPU time per CPU from /proc/stat, sampled at the start and end of the measured window,
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

/// Read /proc/stat; empty on systems without it.
pub fn sample() -> CpuTicks {
    let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    parse(&text)
}

fn parse(text: &str) -> CpuTicks {
    let mut cpus = Vec::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let Some(name) = f.next() else { continue };
        if !name.starts_with("cpu") || name == "cpu" {
            continue;
        }
        let v: Vec<u64> = f.map(|x| x.parse().unwrap_or(0)).collect();
        let get = |i: usize| v.get(i).copied().unwrap_or(0);
        // user nice system idle iowait irq softirq steal
        let user = get(0) + get(1);
        let kernel = get(2) + get(5) + get(6);
        let idle = get(3) + get(4);
        cpus.push((user, kernel, idle));
    }
    CpuTicks { cpus }
}

/// CPU time the hypervisor gave to others while this machine wanted to run (the "steal"
/// column of /proc/stat, all CPUs), in nanoseconds since boot. 0 where not reported.
pub fn steal_ns() -> u64 {
    let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: u64 = text
        .lines()
        .find(|l| l.starts_with("cpu "))
        .and_then(|l| l.split_whitespace().nth(8))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no memory-safety preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    ticks * 1_000_000_000 / hz
}

/// CPU use between two samples, in nanoseconds per CPU.
pub fn usage(start: &CpuTicks, end: &CpuTicks) -> Vec<CpuUsage> {
    // SAFETY: sysconf has no memory-safety preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
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
    fn parses_proc_stat() {
        let a = parse(
            "cpu  1 1 1 1 1 1 1 0\ncpu0 10 2 30 400 5 1 1 0 0 0\ncpu1 1 0 1 100 0 0 0 0\nintr 5\n",
        );
        let b = parse(
            "cpu  1 1 1 1 1 1 1 0\ncpu0 20 2 40 500 5 1 1 0 0 0\ncpu1 1 0 1 200 0 0 0 0\nintr 5\n",
        );
        assert_eq!(a.cpus, vec![(12, 32, 405), (1, 1, 100)]);
        let u = usage(&a, &b);
        assert_eq!(u.len(), 2);
        assert!((u[0].pct(u[0].user_ns) - 100.0 * 10.0 / 120.0).abs() < 1e-9);
        assert_eq!(u[1].user_ns, 0);
        assert!(u[1].idle_ns > 0);
    }
}
