//! Linux: /proc/stat, in clock ticks (sysconf(_SC_CLK_TCK)).

/// Per CPU: (user, kernel, idle) in clock ticks; empty without /proc/stat.
pub fn times() -> Vec<(u64, u64, u64)> {
    parse(&std::fs::read_to_string("/proc/stat").unwrap_or_default())
}

fn parse(text: &str) -> Vec<(u64, u64, u64)> {
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
    cpus
}

/// The "steal" column of /proc/stat's all-CPU line.
pub fn steal_ticks() -> u64 {
    let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with("cpu "))
        .and_then(|l| l.split_whitespace().nth(8))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

pub fn ticks_per_sec() -> u64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_proc_stat() {
        let a = super::parse(
            "cpu  1 1 1 1 1 1 1 0\ncpu0 10 2 30 400 5 1 1 0 0 0\ncpu1 1 0 1 100 0 0 0 0\nintr 5\n",
        );
        assert_eq!(a, vec![(12, 32, 405), (1, 1, 100)]);
    }
}
