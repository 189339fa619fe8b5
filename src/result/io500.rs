//! IO500's phases run as one (`iogauge io500`): each phase's score and time, and the scores
//! as IO500 computes them (main.c's calc_score): the bandwidth score is the geometric mean of
//! the ior phases in GiB/s, the metadata score that of the mdtest phases and find in kIOPS,
//! each over the phases that scored above 0, and the total the square root of their product.

use serde::{Deserialize, Serialize};

/// One phase: its IO500 name, its score (GiB/s for ior's, kIOPS for the others) and the
/// seconds the whole phase took on rank 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Io500Row {
    pub phase: String,
    pub score: f64,
    pub seconds: f64,
}

impl Io500Row {
    /// IO500's unit: the ior phases' bandwidth, the others' operations.
    pub fn bandwidth(&self) -> bool {
        self.phase.starts_with("ior")
    }

    pub fn unit(&self) -> &'static str {
        match self.bandwidth() {
            true => "GiB/s",
            false => "kIOPS",
        }
    }
}

/// The find phase's counts: the files it matched of the files it looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    pub matched: u64,
    pub files: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Io500Result {
    pub ranks: u32,
    /// The configuration, as (key, value) in IO500's words.
    pub config: Vec<(String, String)>,
    pub rows: Vec<Io500Row>,
    pub found: Option<Found>,
    /// Where the run differs from IO500's, said once each.
    pub notes: Vec<String>,
    /// The phase Ctrl-C or an error ended, where one did: the scores cover the phases before.
    pub ended_in: Option<String>,
}

/// IO500's three scores.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    pub bandwidth_gib_s: f64,
    pub md_kiops: f64,
    pub total: f64,
}

impl Io500Result {
    pub fn scores(&self) -> Scores {
        let bw = geomean(self.rows.iter().filter(|r| r.bandwidth()).map(|r| r.score));
        let md = geomean(self.rows.iter().filter(|r| !r.bandwidth()).map(|r| r.score));
        Scores {
            bandwidth_gib_s: bw,
            md_kiops: md,
            total: (bw * md).sqrt(),
        }
    }
}

/// The geometric mean of the scores above 0 (IO500 skips the others); 0 where none is.
fn geomean(scores: impl Iterator<Item = f64>) -> f64 {
    let kept: Vec<f64> = scores.filter(|&s| s > 0.0).collect();
    match kept.len() {
        0 => 0.0,
        n => (kept.iter().map(|s| s.ln()).sum::<f64>() / n as f64).exp(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(phase: &str, score: f64) -> Io500Row {
        Io500Row {
            phase: phase.into(),
            score,
            seconds: 1.0,
        }
    }

    #[test]
    fn scores_are_io500s_geometric_means() {
        let r = Io500Result {
            ranks: 1,
            config: Vec::new(),
            rows: vec![
                row("ior-easy-write", 2.0),
                row("ior-hard-write", 8.0),
                row("mdtest-easy-write", 10.0),
                row("find", 1000.0),
                row("mdtest-hard-read", 0.0),
            ],
            found: None,
            notes: Vec::new(),
            ended_in: None,
        };
        let s = r.scores();
        assert!((s.bandwidth_gib_s - 4.0).abs() < 1e-12);
        assert!(
            (s.md_kiops - 100.0).abs() < 1e-9,
            "a 0 is skipped, as IO500 skips it"
        );
        assert!((s.total - 20.0).abs() < 1e-9);
    }
}
