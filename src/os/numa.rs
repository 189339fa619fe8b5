//! NUMA nodes and memory policies as a job names them (fio's numa_cpu_nodes and
//! numa_mem_policy); the port finds the nodes and their CPUs and sets a thread's CPUs and
//! policy (Linux: sysfs, sched_setaffinity, set_mempolicy; Windows: processor groups and
//! affinity masks, no memory policies).

use serde::{Deserialize, Serialize};

pub use super::sys::numa::{
    allowed_cpus, node_cpus, online_nodes, pin_to_cpu, set_cpus, set_mem_policy,
};

/// Node numbers, or every node the machine has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Nodes {
    All,
    List(Vec<u32>),
}

/// set_mempolicy(2)'s modes, as fio names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemMode {
    Default,
    Prefer,
    Bind,
    Interleave,
    Local,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemPolicy {
    pub mode: MemMode,
    /// Empty for default and local, one node for prefer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Nodes>,
}

impl MemMode {
    pub fn word(self) -> &'static str {
        match self {
            MemMode::Default => "default",
            MemMode::Prefer => "prefer",
            MemMode::Bind => "bind",
            MemMode::Interleave => "interleave",
            MemMode::Local => "local",
        }
    }
}

impl Nodes {
    /// As fio and numactl write it: `all`, `0-1,3`.
    pub fn text(&self) -> String {
        match self {
            Nodes::All => "all".into(),
            Nodes::List(n) => n
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(","),
        }
    }
}

impl MemPolicy {
    pub fn text(&self) -> String {
        match &self.nodes {
            Some(n) => format!("{}:{}", self.mode.word(), n.text()),
            None => self.mode.word().into(),
        }
    }
}

/// The nodes `nodes` names, each checked to be online here.
pub fn resolve(nodes: &Nodes) -> Result<Vec<usize>, String> {
    let online = online_nodes();
    match nodes {
        Nodes::All => Ok(online),
        Nodes::List(list) => {
            let list: Vec<usize> = list.iter().map(|&n| n as usize).collect();
            match list.iter().find(|n| !online.contains(n)) {
                Some(n) => Err(format!(
                    "node {n} is not online here (this machine has node{} {})",
                    if online.len() == 1 { "" } else { "s" },
                    online
                        .iter()
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                )),
                None => Ok(list),
            }
        }
    }
}
