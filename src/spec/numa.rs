//! NUMA placement of a job's threads: the nodes whose CPUs they may run on, and the memory
//! policy their buffers are allocated under (fio's `numa_cpu_nodes` and `numa_mem_policy`,
//! iogauge's `--numa-nodes` and `--numa-mem`). Only the syntax is checked here; whether the
//! nodes exist is the runner's question (runner::plan), asked of the machine that runs.

pub use crate::os::numa::{MemMode, MemPolicy, Nodes};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Numa {
    /// Threads may run on the CPUs of these nodes (all of them, not one each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_nodes: Option<Nodes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemPolicy>,
}

/// A node list: `all`, or numbers and ranges joined by commas (`0-1,3`). The error says
/// what is wrong with the text; the caller names the setting.
pub fn parse_nodes(text: &str) -> Result<Nodes, String> {
    let text = text.trim();
    if text == "all" {
        return Ok(Nodes::All);
    }
    let mut nodes = Vec::new();
    for part in text.split(',') {
        let bad = || format!("'{part}' is not a node number or a range of nodes such as 0-1");
        let num = |s: &str| s.trim().parse::<u32>().ok().filter(|&n| n < 1024);
        match part.split_once('-') {
            Some((a, b)) => match (num(a), num(b)) {
                (Some(a), Some(b)) if a <= b => nodes.extend(a..=b),
                _ => return Err(bad()),
            },
            None => nodes.push(num(part).ok_or_else(bad)?),
        }
    }
    nodes.sort_unstable();
    nodes.dedup();
    Ok(Nodes::List(nodes))
}

/// `MODE[:NODES]`: default and local take no nodes, prefer exactly one, bind and interleave
/// a list (fio's HOWTO).
pub fn parse_mem_policy(text: &str) -> Result<MemPolicy, String> {
    let (word, list) = match text.split_once(':') {
        Some((w, l)) => (w.trim(), Some(l)),
        None => (text.trim(), None),
    };
    let mode = match word {
        "default" => MemMode::Default,
        "prefer" => MemMode::Prefer,
        "bind" => MemMode::Bind,
        "interleave" => MemMode::Interleave,
        "local" => MemMode::Local,
        _ => {
            return Err(format!(
                "'{word}' is not a memory policy (default, prefer, bind, interleave or local)"
            ))
        }
    };
    let nodes = list.map(parse_nodes).transpose()?;
    match (mode, &nodes) {
        (MemMode::Default | MemMode::Local, Some(_)) => {
            Err(format!("{word} takes no nodes: write '{word}'"))
        }
        (MemMode::Prefer, Some(Nodes::List(n))) if n.len() == 1 => Ok(MemPolicy { mode, nodes }),
        (MemMode::Prefer, _) => Err("prefer takes exactly one node, such as prefer:0".into()),
        (MemMode::Bind | MemMode::Interleave, None) => {
            Err(format!("{word} needs nodes, such as {word}:0-1"))
        }
        _ => Ok(MemPolicy { mode, nodes }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lists_and_policies_as_fio_writes_them() {
        assert_eq!(parse_nodes("0-1,3"), Ok(Nodes::List(vec![0, 1, 3])));
        assert_eq!(parse_nodes("all"), Ok(Nodes::All));
        assert!(parse_nodes("1-0").unwrap_err().contains("'1-0'"));
        assert!(parse_nodes("x").is_err());
        let p = parse_mem_policy("interleave:0-1").unwrap();
        assert_eq!(
            (p.mode, p.nodes),
            (MemMode::Interleave, Some(Nodes::List(vec![0, 1])))
        );
        assert_eq!(parse_mem_policy("local").unwrap().text(), "local");
        assert_eq!(parse_mem_policy("bind:0").unwrap().text(), "bind:0");
        assert!(parse_mem_policy("prefer:0-1")
            .unwrap_err()
            .contains("exactly one"));
        assert!(parse_mem_policy("bind")
            .unwrap_err()
            .contains("needs nodes"));
        assert!(parse_mem_policy("local:0")
            .unwrap_err()
            .contains("takes no nodes"));
        assert!(parse_mem_policy("spread").unwrap_err().contains("'spread'"));
    }
}
