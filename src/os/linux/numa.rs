//! NUMA through the kernel's own interfaces: the nodes and their CPUs from sysfs, a thread's
//! CPUs with sched_setaffinity(2), its memory policy with set_mempolicy(2). No libnuma.

use crate::os::numa::{MemMode, MemPolicy};
use std::path::Path;

const NODES: &str = "/sys/devices/system/node";

use crate::os::topology::cpu_list as parse_list;

/// The CPUs this process may run on.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: sched_getaffinity fills a cpu_set_t we own; CPU_ISSET reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1))
                .collect();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// The nodes this machine has online (node 0 alone where the kernel has no NUMA).
pub fn online_nodes() -> Vec<usize> {
    match std::fs::read_to_string(Path::new(NODES).join("online")) {
        Ok(t) => parse_list(&t),
        Err(_) => vec![0],
    }
}

/// The CPUs of `nodes` (resolved: online).
pub fn node_cpus(nodes: &[usize]) -> Vec<usize> {
    let mut cpus: Vec<usize> = nodes
        .iter()
        .filter_map(|n| {
            std::fs::read_to_string(Path::new(NODES).join(format!("node{n}/cpulist"))).ok()
        })
        .flat_map(|t| parse_list(&t))
        .collect();
    if cpus.is_empty() && nodes == [0] {
        // A kernel without NUMA has no node folder: node 0 is the whole machine.
        cpus = allowed_cpus();
    }
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

/// Let the calling thread run on any of `cpus`.
pub fn set_cpus(cpus: &[usize]) -> Result<(), String> {
    affinity(cpus).map_err(|e| format!("cannot run a worker on CPUs {cpus:?}: {e}"))
}

/// Pin the calling thread to one CPU.
pub fn pin_to_cpu(cpu: usize) -> Result<(), String> {
    affinity(&[cpu]).map_err(|e| format!("cannot pin a worker to CPU {cpu}: {e}"))
}

fn affinity(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET writes inside it (cpus below CPU_SETSIZE);
    // sched_setaffinity(0) is this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
/// The calling thread's memory policy; `nodes` resolved (empty for default and local).
pub fn set_mem_policy(policy: &MemPolicy, nodes: &[usize]) -> Result<(), String> {
    // linux/mempolicy.h
    let mode: libc::c_long = match policy.mode {
        MemMode::Default => 0,
        MemMode::Prefer => 1,
        MemMode::Bind => 2,
        MemMode::Interleave => 3,
        MemMode::Local => 4,
    };
    let bits = libc::c_ulong::BITS as usize;
    let mut mask = vec![0 as libc::c_ulong; nodes.iter().max().map_or(1, |m| m / bits + 1)];
    for &n in nodes {
        mask[n / bits] |= 1 << (n % bits);
    }
    let (ptr, maxnode) = if nodes.is_empty() {
        (std::ptr::null(), 0)
    } else {
        (mask.as_ptr(), mask.len() * bits + 1)
    };
    // SAFETY: the mask outlives the call; maxnode counts its bits (plus one, as the kernel
    // reads maxnode - 1 bits).
    let r = unsafe { libc::syscall(libc::SYS_set_mempolicy, mode, ptr, maxnode) };
    if r != 0 {
        return Err(format!(
            "cannot set the memory policy {}: {}",
            policy.text(),
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::numa::{resolve, Nodes};

    #[test]
    fn this_machine_has_node_0_and_its_cpus() {
        assert_eq!(parse_list("0-2,5\n"), vec![0, 1, 2, 5]);
        assert!(online_nodes().contains(&0));
        assert!(!node_cpus(&[0]).is_empty());
        let e = resolve(&Nodes::List(vec![0, 999])).unwrap_err();
        assert!(e.starts_with("node 999 is not online here"), "{e}");
        // A policy the kernel takes, on this thread only, then back to the default.
        let bind = MemPolicy {
            mode: MemMode::Bind,
            nodes: Some(Nodes::List(vec![0])),
        };
        set_mem_policy(&bind, &[0]).unwrap();
        let default = MemPolicy {
            mode: MemMode::Default,
            nodes: None,
        };
        set_mem_policy(&default, &[]).unwrap();
    }
}
