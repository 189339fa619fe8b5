//! Windows: the processors as GetLogicalProcessorInformationEx describes them (packages,
//! cores and their logical processors, NUMA nodes), numbered across groups in order. Windows
//! has no cpufreq governor: none is given.

use crate::os::topology::{Cpu, Topology};
use windows_sys::Win32::System::SystemInformation::{
    GetLogicalProcessorInformationEx, RelationAll, RelationNumaNode, RelationProcessorCore,
    RelationProcessorPackage, GROUP_AFFINITY, SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX,
};

impl Topology {
    pub fn read() -> Topology {
        let cpus_n = super::numa::allowed_cpus().len();
        let mut cpus: Vec<Cpu> = (0..cpus_n)
            .map(|id| Cpu {
                id,
                package: 0,
                node: 0,
                core: vec![id],
                capacity: None,
            })
            .collect();
        let firsts = group_firsts();
        let at = |g: &GROUP_AFFINITY| -> Vec<usize> {
            let first = firsts.get(g.Group as usize).copied().unwrap_or(0);
            (0..usize::BITS as usize)
                .filter(|b| g.Mask >> b & 1 == 1)
                .map(|b| first + b)
                .filter(|&c| c < cpus_n)
                .collect()
        };
        let (mut package, mut node) = (0u32, 0u32);
        for (kind, groups, number) in entries() {
            let members: Vec<usize> = groups.iter().flat_map(&at).collect();
            for &c in &members {
                let cpu = &mut cpus[c];
                match kind {
                    k if k == RelationProcessorCore => cpu.core = members.clone(),
                    k if k == RelationProcessorPackage => cpu.package = package,
                    k if k == RelationNumaNode => cpu.node = number.unwrap_or(node),
                    _ => {}
                }
            }
            match kind {
                k if k == RelationProcessorPackage => package += 1,
                k if k == RelationNumaNode => node += 1,
                _ => {}
            }
        }
        Topology {
            possible: cpus_n,
            cpus,
            governors: Vec::new(),
        }
    }
}

/// Each group's first CPU number.
fn group_firsts() -> Vec<usize> {
    use windows_sys::Win32::System::Threading::{
        GetActiveProcessorCount, GetActiveProcessorGroupCount,
    };
    // SAFETY: plain queries.
    let n = unsafe { GetActiveProcessorGroupCount() }.max(1);
    let mut first = 0;
    (0..n)
        .map(|g| {
            let f = first;
            first += unsafe { GetActiveProcessorCount(g) } as usize;
            f
        })
        .collect()
}

/// Each relation the system lists: its kind, the groups' masks it covers, and a node's number.
fn entries() -> Vec<(i32, Vec<GROUP_AFFINITY>, Option<u32>)> {
    let mut len = 0u32;
    // SAFETY: a first call with no buffer asks the size.
    unsafe { GetLogicalProcessorInformationEx(RelationAll, std::ptr::null_mut(), &mut len) };
    if len == 0 {
        return Vec::new();
    }
    let mut buf = vec![0u64; (len as usize).div_ceil(8)];
    let base = buf.as_mut_ptr().cast::<u8>();
    // SAFETY: the buffer holds `len` bytes, 8-aligned.
    if unsafe { GetLogicalProcessorInformationEx(RelationAll, base.cast(), &mut len) } == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut off = 0usize;
    while off + std::mem::size_of::<u32>() * 2 <= len as usize {
        // SAFETY: each record starts inside the buffer and says its own size.
        let rec = unsafe {
            &*base
                .add(off)
                .cast::<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX>()
        };
        if rec.Size == 0 {
            break;
        }
        // SAFETY: the union's member is the one the relationship names.
        let (groups, number) = unsafe {
            match rec.Relationship {
                k if k == RelationProcessorCore || k == RelationProcessorPackage => {
                    let p = &rec.Anonymous.Processor;
                    let n = p.GroupCount as usize;
                    let first = p.GroupMask.as_ptr();
                    ((0..n).map(|i| *first.add(i)).collect(), None)
                }
                k if k == RelationNumaNode => {
                    let nn = &rec.Anonymous.NumaNode;
                    (vec![nn.Anonymous.GroupMask], Some(nn.NodeNumber))
                }
                _ => (Vec::new(), None),
            }
        };
        out.push((rec.Relationship, groups, number));
        off += rec.Size as usize;
    }
    out
}
