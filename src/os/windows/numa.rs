//! Windows: processors in groups of up to 64 (a thread runs in one group at a time), their
//! NUMA nodes, and a thread's affinity (SetThreadGroupAffinity: DiskSpd's `-a`, across groups
//! as its `-ag`). CPUs are numbered across groups in order: group 0's first, then group 1's.
//! Memory policies (fio's numa_mem_policy) are Linux's.

use crate::os::numa::MemPolicy;
use windows_sys::Win32::System::SystemInformation::GROUP_AFFINITY;
use windows_sys::Win32::System::Threading::{
    GetActiveProcessorCount, GetActiveProcessorGroupCount, GetCurrentThread,
    GetNumaHighestNodeNumber, GetNumaNodeProcessorMaskEx, SetThreadGroupAffinity,
};

/// Each group's active processor count, in group order.
fn groups() -> Vec<usize> {
    // SAFETY: plain queries.
    let n = unsafe { GetActiveProcessorGroupCount() };
    (0..n.max(1))
        .map(|g| unsafe { GetActiveProcessorCount(g) } as usize)
        .collect()
}

/// The group and the bit in it of CPU `cpu` (numbered across groups).
fn place(cpu: usize) -> Option<(u16, usize)> {
    let mut first = 0;
    for (g, &n) in groups().iter().enumerate() {
        if cpu < first + n {
            return Some((g as u16, cpu - first));
        }
        first += n;
    }
    None
}

/// Every active CPU.
pub fn allowed_cpus() -> Vec<usize> {
    (0..groups().iter().sum::<usize>()).collect()
}

pub fn online_nodes() -> Vec<usize> {
    let mut highest = 0u32;
    // SAFETY: writes the number we own.
    unsafe { GetNumaHighestNodeNumber(&mut highest) };
    (0..=highest as usize).collect()
}

/// The CPUs of `nodes`, numbered across groups.
pub fn node_cpus(nodes: &[usize]) -> Vec<usize> {
    let sizes = groups();
    let firsts: Vec<usize> = sizes
        .iter()
        .scan(0, |acc, &n| {
            let f = *acc;
            *acc += n;
            Some(f)
        })
        .collect();
    let mut out = Vec::new();
    for &node in nodes {
        let mut mask = GROUP_AFFINITY::default();
        // SAFETY: writes the struct we own.
        if unsafe { GetNumaNodeProcessorMaskEx(node as u16, &mut mask) } == 0 {
            // A machine of one node that does not say its mask (Wine): the node is every CPU.
            if node == 0 && online_nodes().len() == 1 {
                return allowed_cpus();
            }
            continue;
        }
        let first = firsts.get(mask.Group as usize).copied().unwrap_or(0);
        out.extend(
            (0..usize::BITS as usize)
                .filter(|b| mask.Mask >> b & 1 == 1)
                .map(|b| first + b),
        );
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Let the calling thread run on `cpus`: those of the first one's group (a thread runs in one
/// group at a time).
pub fn set_cpus(cpus: &[usize]) -> Result<(), String> {
    affinity(cpus).map_err(|e| format!("cannot run a worker on CPUs {cpus:?}: {e}"))
}

pub fn pin_to_cpu(cpu: usize) -> Result<(), String> {
    affinity(&[cpu]).map_err(|e| format!("cannot pin a worker to CPU {cpu}: {e}"))
}

fn affinity(cpus: &[usize]) -> std::io::Result<()> {
    let places: Vec<(u16, usize)> = cpus.iter().filter_map(|&c| place(c)).collect();
    let Some(&(group, _)) = places.first() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "no such CPU on this machine",
        ));
    };
    let mask = places
        .iter()
        .filter(|p| p.0 == group)
        .fold(0usize, |m, p| m | 1 << p.1);
    let a = GROUP_AFFINITY {
        Mask: mask,
        Group: group,
        Reserved: [0; 3],
    };
    // SAFETY: the current thread's pseudo-handle and a struct we own.
    if unsafe { SetThreadGroupAffinity(GetCurrentThread(), &a, std::ptr::null_mut()) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

pub fn set_mem_policy(_policy: &MemPolicy, _nodes: &[usize]) -> Result<(), String> {
    Err("memory policies (numa_mem_policy) are Linux's set_mempolicy: Windows has none to set per thread".into())
}
