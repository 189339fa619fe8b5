//! The processors as sysfs describes them: which are online, their packages, cores, NUMA
//! nodes and capacities, and the frequency governor. Read for reports that describe the
//! machine in another tool's terms (DiskSpd's ProcessorTopology and PowerScheme); what a
//! file does not say is left empty here, never guessed.

use crate::os::topology::{cpu_list, Cpu, Topology};
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

const CPU: &str = "/sys/devices/system/cpu";
const NODE: &str = "/sys/devices/system/node";

impl Topology {
    pub fn read() -> Topology {
        Topology::read_from(Path::new(CPU), Path::new(NODE))
    }

    fn read_from(cpu_dir: &Path, node_dir: &Path) -> Topology {
        let list = |p: &Path| fs::read_to_string(p).ok().map(|s| cpu_list(s.trim()));
        let online = list(&cpu_dir.join("online")).unwrap_or_else(|| vec![0]);
        let possible = list(&cpu_dir.join("possible")).map_or(online.len(), |p| p.len());
        let nodes = nodes(node_dir);
        let mut governors = BTreeSet::new();
        let cpus = online
            .iter()
            .map(|&id| {
                let dir = cpu_dir.join(format!("cpu{id}"));
                let read = |f: &str| fs::read_to_string(dir.join(f)).ok();
                if let Some(g) = read("cpufreq/scaling_governor") {
                    governors.insert(g.trim().to_string());
                }
                let siblings = read("topology/core_cpus_list")
                    .or_else(|| read("topology/thread_siblings_list"))
                    .map_or_else(|| vec![id], |s| cpu_list(s.trim()));
                Cpu {
                    id,
                    package: read("topology/physical_package_id")
                        .and_then(|s| s.trim().parse().ok())
                        .unwrap_or(0),
                    node: nodes
                        .iter()
                        .find(|(_, cpus)| cpus.contains(&id))
                        .map_or(0, |(n, _)| *n),
                    core: siblings
                        .into_iter()
                        .filter(|c| online.contains(c))
                        .collect(),
                    capacity: read("cpu_capacity").and_then(|s| s.trim().parse().ok()),
                }
            })
            .collect();
        Topology {
            possible,
            cpus,
            governors: governors.into_iter().collect(),
        }
    }
}

/// Each NUMA node with its CPUs, by node number.
fn nodes(node_dir: &Path) -> Vec<(u32, Vec<usize>)> {
    let Ok(entries) = fs::read_dir(node_dir) else {
        return Vec::new();
    };
    let mut out: Vec<(u32, Vec<usize>)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n = name.strip_prefix("node")?.parse().ok()?;
            let cpus = fs::read_to_string(e.path().join("cpulist")).ok()?;
            Some((n, cpu_list(cpus.trim())))
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_as_the_kernel_writes_them() {
        assert_eq!(cpu_list("0-3,8,10-11"), vec![0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(cpu_list("5"), vec![5]);
        assert_eq!(cpu_list(""), Vec::<usize>::new());
    }

    #[test]
    fn a_made_up_sysfs_is_read_as_written() {
        let t = tempfile::tempdir().unwrap();
        let (cpu, node) = (t.path().join("cpu"), t.path().join("node"));
        let put = |p: std::path::PathBuf, v: &str| {
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, v).unwrap();
        };
        put(cpu.join("online"), "0-2\n");
        put(cpu.join("possible"), "0-3\n");
        for (id, pkg, sib) in [(0, "0", "0-1"), (1, "0", "0-1"), (2, "1", "2-3")] {
            put(
                cpu.join(format!("cpu{id}/topology/physical_package_id")),
                pkg,
            );
            put(cpu.join(format!("cpu{id}/topology/core_cpus_list")), sib);
        }
        put(cpu.join("cpu0/cpufreq/scaling_governor"), "performance\n");
        put(node.join("node0/cpulist"), "0-1\n");
        put(node.join("node1/cpulist"), "2-3\n");
        let topo = Topology::read_from(&cpu, &node);
        assert_eq!(topo.possible, 4);
        assert_eq!(topo.governors, vec!["performance".to_string()]);
        let c2 = &topo.cpus[2];
        assert_eq!((c2.package, c2.node, c2.core.clone()), (1, 1, vec![2]));
        assert_eq!(topo.cpus[0].core, vec![0, 1]);
    }
}
