//! DiskSpd's `<System>` and the place of each CPU in `<CpuUtilization>`, from what Linux
//! says of its processors (sysfs, [`crate::os::topology`]) in DiskSpd's shape: one processor
//! group (Linux has none; every CPU is in group 0, as iogauge's -a reads them), its NUMA
//! nodes, sockets (packages, numbered in order) and cores, each with its mask of CPUs.
//!
//! The power scheme is Windows' active power plan; Linux's nearest is the cpufreq governor,
//! written as the scheme's name (several, comma-separated, where CPUs differ). Where there is
//! no cpufreq (most VMs) the name is DiskSpd's own for a plan it cannot read, `<unknown>`.
//! Linux plans have no GUID: the Guid is empty, as DiskSpd writes it without one.

use super::xml::Xml;
use crate::os::topology::{Cpu, Topology};
use crate::result::RunResult;

/// The machine, for the `<System>` of one report.
pub(super) struct Machine {
    topo: Topology,
    /// The cores, in DiskSpd's order (by group, then mask), each its CPUs.
    cores: Vec<Vec<usize>>,
    /// Distinct `cpu_capacity` values, lowest first: a CPU's efficiency class is the rank of
    /// its capacity (DiskSpd: a higher class is a faster core; one class where cores match).
    capacities: Vec<u64>,
}

impl Machine {
    pub fn read() -> Machine {
        Machine::of(Topology::read())
    }

    pub(super) fn of(topo: Topology) -> Machine {
        let mut cores: Vec<Vec<usize>> = Vec::new();
        for c in &topo.cpus {
            if !cores.contains(&c.core) {
                cores.push(c.core.clone());
            }
        }
        // DiskSpd sorts cores by their mask as a number: by their highest CPUs first.
        cores.sort_by(|a, b| {
            let desc = |v: &Vec<usize>| {
                let mut v = v.clone();
                v.sort_unstable_by(|x, y| y.cmp(x));
                v
            };
            desc(a).cmp(&desc(b))
        });
        let mut capacities: Vec<u64> = topo.cpus.iter().filter_map(|c| c.capacity).collect();
        capacities.sort_unstable();
        capacities.dedup();
        Machine {
            topo,
            cores,
            capacities,
        }
    }

    fn cpu(&self, id: usize) -> Option<&Cpu> {
        self.topo.cpus.iter().find(|c| c.id == id)
    }

    fn efficiency(&self, c: &Cpu) -> usize {
        c.capacity
            .and_then(|cap| self.capacities.iter().position(|&v| v == cap))
            .unwrap_or(0)
    }

    /// Socket numbers as DiskSpd gives them: packages in order, from 0.
    fn packages(&self) -> Vec<u32> {
        let mut p: Vec<u32> = self.topo.cpus.iter().map(|c| c.package).collect();
        p.sort_unstable();
        p.dedup();
        p
    }

    fn mask_of(&self, keep: impl Fn(&Cpu) -> bool) -> String {
        mask(self.topo.cpus.iter().filter(|c| keep(c)).map(|c| c.id))
    }

    /// Socket, NUMA node, core and efficiency class of CPU `id` (zeros for one sysfs does
    /// not list, as DiskSpd's lookups give for a processor they cannot place).
    pub fn place(&self, id: usize) -> [usize; 4] {
        let Some(c) = self.cpu(id) else {
            return [0; 4];
        };
        let socket = self.packages().iter().position(|&p| p == c.package);
        let core = self.cores.iter().position(|k| *k == c.core);
        [
            socket.unwrap_or(0),
            c.node as usize,
            core.unwrap_or(0),
            self.efficiency(c),
        ]
    }
}

/// A CPU mask in DiskSpd's hex (`0x` and no leading zeros), of any width.
pub fn mask(cpus: impl Iterator<Item = usize>) -> String {
    let mut nibbles: Vec<u8> = Vec::new();
    for c in cpus {
        if nibbles.len() <= c / 4 {
            nibbles.resize(c / 4 + 1, 0);
        }
        nibbles[c / 4] |= 1 << (c % 4);
    }
    let hex: String = nibbles
        .iter()
        .rev()
        .skip_while(|&&n| n == 0)
        .map(|n| char::from_digit(*n as u32, 16).expect("a nibble"))
        .collect();
    format!("0x{}", if hex.is_empty() { "0" } else { &hex })
}

/// `<System>`: the machine, the tool, when, the power scheme and the processors.
pub(super) fn write_system(x: &mut Xml, r: &RunResult, m: &Machine) {
    x.open("System");
    x.leaf("ComputerName", &r.header.system.hostname);
    x.open("Tool");
    x.leaf("Version", format!("iogauge {}", r.header.tool_version));
    x.close("Tool");
    let when = crate::dates::format_utc(r.header.started_unix_ns).replacen('-', "/", 2);
    x.leaf("RunTime", format!("{when} UTC"));
    x.empty("PowerScheme", &[("Name", &scheme_name(m)), ("Guid", "")]);
    write_topology(x, m);
    x.close("System");
}

fn scheme_name(m: &Machine) -> String {
    match m.topo.governors.as_slice() {
        [] => "<unknown>".to_string(),
        g => g.join(","),
    }
}

fn write_topology(x: &mut Xml, m: &Machine) {
    let heterogeneous = m.capacities.len() > 1;
    x.open_with(
        "ProcessorTopology",
        &[("Heterogeneous", &heterogeneous.to_string())],
    );
    x.empty(
        "Group",
        &[
            ("Group", "0"),
            ("MaximumProcessors", &m.topo.possible.to_string()),
            ("ActiveProcessors", &m.topo.cpus.len().to_string()),
            ("ActiveProcessorMask", &m.mask_of(|_| true)),
        ],
    );
    let mut nodes: Vec<u32> = m.topo.cpus.iter().map(|c| c.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    for n in nodes {
        x.open_with("Node", &[("Node", &n.to_string())]);
        x.empty(
            "Group",
            &[("Group", "0"), ("Mask", &m.mask_of(|c| c.node == n))],
        );
        x.close("Node");
    }
    for (i, p) in m.packages().into_iter().enumerate() {
        x.open_with("Socket", &[("Socket", &i.to_string())]);
        x.empty(
            "Group",
            &[("Group", "0"), ("Mask", &m.mask_of(|c| c.package == p))],
        );
        x.close("Socket");
    }
    for (i, core) in m.cores.iter().enumerate() {
        let class = m.cpu(core[0]).map_or(0, |c| m.efficiency(c));
        x.empty(
            "Core",
            &[
                ("Group", "0"),
                ("Core", &i.to_string()),
                ("Mask", &mask(core.iter().copied())),
                ("EfficiencyClass", &class.to_string()),
            ],
        );
    }
    x.close("ProcessorTopology");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(id: usize, package: u32, core: &[usize], capacity: Option<u64>) -> Cpu {
        Cpu {
            id,
            package,
            node: package,
            core: core.to_vec(),
            capacity,
        }
    }

    #[test]
    fn masks_as_diskspd_prints_them() {
        assert_eq!(mask([0, 1, 2, 3].into_iter()), "0xf");
        assert_eq!(mask([4].into_iter()), "0x10");
        assert_eq!(mask([64].into_iter()), "0x10000000000000000");
        assert_eq!(mask(std::iter::empty()), "0x0");
    }

    #[test]
    fn cores_sockets_and_classes_numbered_as_diskspd_does() {
        // SMT siblings 0+2 and 1+3 on package 7; CPU 4 alone on package 9, a faster core.
        let m = Machine::of(Topology {
            possible: 8,
            cpus: vec![
                cpu(0, 7, &[0, 2], Some(512)),
                cpu(1, 7, &[1, 3], Some(512)),
                cpu(2, 7, &[0, 2], Some(512)),
                cpu(3, 7, &[1, 3], Some(512)),
                cpu(4, 9, &[4], Some(1024)),
            ],
            governors: vec![],
        });
        assert_eq!(m.place(3), [0, 7, 1, 0]);
        assert_eq!(m.place(4), [1, 9, 2, 1]);
        assert_eq!(scheme_name(&m), "<unknown>");
        let mut x = Xml::new();
        write_topology(&mut x, &m);
        assert!(x.o.contains("<ProcessorTopology Heterogeneous=\"true\">"));
        assert!(x.o.contains(
            "<Group Group=\"0\" MaximumProcessors=\"8\" ActiveProcessors=\"5\" ActiveProcessorMask=\"0x1f\"/>"
        ));
        assert!(x
            .o
            .contains("<Core Group=\"0\" Core=\"0\" Mask=\"0x5\" EfficiencyClass=\"0\"/>"));
        assert!(x
            .o
            .contains("<Core Group=\"0\" Core=\"2\" Mask=\"0x10\" EfficiencyClass=\"1\"/>"));
    }
}
