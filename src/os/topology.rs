//! The processors as the system describes them: which are online, their packages, cores,
//! NUMA nodes and capacities, and the frequency governor, for reports that describe the
//! machine in another tool's terms (DiskSpd's ProcessorTopology and PowerScheme). The port
//! reads them (`Topology::read`: sysfs on Linux, GetLogicalProcessorInformationEx on
//! Windows); what the system does not say is left empty, never guessed.

/// One online CPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cpu {
    pub id: usize,
    /// `physical_package_id` (0 where sysfs gives none or -1, as some VMs do).
    pub package: u32,
    pub node: u32,
    /// The CPUs of its core (SMT siblings, itself included), online ones only.
    pub core: Vec<usize>,
    /// `cpu_capacity`: where the kernel knows cores differ (big.LITTLE, hybrid).
    pub capacity: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    /// CPUs the kernel could bring online.
    pub possible: usize,
    /// Online CPUs, by id.
    pub cpus: Vec<Cpu>,
    /// The cpufreq governors in use, each once (none without cpufreq, as in many VMs).
    pub governors: Vec<String>,
}

/// A kernel CPU list: `0-3,8,10-11`.
pub fn cpu_list(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        let mut ends = part.splitn(2, '-').map(|v| v.parse::<usize>());
        match (ends.next(), ends.next()) {
            (Some(Ok(a)), Some(Ok(b))) => out.extend(a..=b),
            (Some(Ok(a)), None) => out.push(a),
            _ => {}
        }
    }
    out
}
