//! What every result kind run as the ranks of an MPI job says of its ranks: how many, on how
//! many hosts, and how evenly they went.

use serde::{Deserialize, Serialize};

/// How the ranks were spread and how evenly they went.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RankSpread {
    pub ranks: u32,
    pub hosts: u32,
    /// Over every measurement: the most the slowest rank's time exceeded the fastest's, in
    /// percent (0 where every rank took the same).
    pub worst_spread_pct: f64,
    /// Which measurement that was (a test on a file system, a cell, a step).
    pub worst_at: Option<String>,
}
