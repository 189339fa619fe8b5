//! What the suites share when they make their ranks' results one on rank 0 (fs, sweep,
//! workload): every measurement started together on every rank (a fence), so its time is the
//! slowest rank's, and how far the slowest was from the fastest is kept.

use super::Place;
use crate::result::ranks::RankSpread;

/// The slowest of the ranks' times of one measurement, and how much longer it took than the
/// fastest, in percent (0 where the fastest took no time).
pub fn slowest(times: impl Iterator<Item = u64> + Clone) -> (u64, f64) {
    let lo = times.clone().min().unwrap_or(0);
    let hi = times.max().unwrap_or(0);
    let pct = match lo {
        0 => 0.0,
        lo => 100.0 * (hi - lo) as f64 / lo as f64,
    };
    (hi, pct)
}

/// The widest spread seen so far, and where.
#[derive(Debug, Default)]
pub struct Worst {
    pub pct: f64,
    pub at: Option<String>,
}

impl Worst {
    /// Keep `pct` if it is the widest yet; `at` names the measurement.
    pub fn see(&mut self, pct: f64, at: impl FnOnce() -> String) {
        if pct > self.pct {
            self.pct = pct;
            self.at = Some(at());
        }
    }
}

/// The ranks' spread for the result, and its notes: "4 ranks on 1 host: {how}", then the
/// widest spread where there was one.
pub fn summary(places: &[Place], worst: Worst, how: &str) -> (RankSpread, Vec<String>) {
    let mut hosts: Vec<&str> = places.iter().map(|p| p.host.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let mut notes = vec![format!(
        "{} ranks on {} host{}: {how}",
        places.len(),
        hosts.len(),
        if hosts.len() == 1 { "" } else { "s" }
    )];
    if let Some(at) = &worst.at {
        notes.push(format!(
            "the slowest rank took up to {:.0}% longer than the fastest ({at})",
            worst.pct
        ));
    }
    let spread = RankSpread {
        ranks: places.len() as u32,
        hosts: hosts.len() as u32,
        worst_spread_pct: worst.pct,
        worst_at: worst.at,
    };
    (spread, notes)
}

/// "rank 2 on node-b: {why}", what one rank met, for a merged result's reason.
pub fn on_rank(place: &Place, why: &str) -> String {
    format!("rank {} on {}: {why}", place.rank, place.host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(rank: u32, host: &str) -> Place {
        Place {
            rank,
            size: 3,
            host: host.into(),
            local_rank: 0,
        }
    }

    #[test]
    fn the_slowest_time_and_its_lead_over_the_fastest() {
        assert_eq!(slowest([100u64, 150, 120].into_iter()), (150, 50.0));
        assert_eq!(slowest([0u64, 10].into_iter()), (10, 0.0));
    }

    #[test]
    fn the_summary_counts_hosts_and_names_the_widest_spread() {
        let places = [place(0, "a"), place(1, "b"), place(2, "a")];
        let mut w = Worst::default();
        w.see(10.0, || "x".into());
        w.see(5.0, || "y".into());
        let (s, notes) = summary(&places, w, "how");
        assert_eq!((s.ranks, s.hosts), (3, 2));
        assert_eq!(s.worst_at.as_deref(), Some("x"));
        assert_eq!(notes[0], "3 ranks on 2 hosts: how");
        assert!(notes[1].contains("up to 10% longer") && notes[1].ends_with("(x)"));
        let (_, one) = summary(&places[..1], Worst::default(), "how");
        assert_eq!(one, vec!["1 ranks on 1 host: how".to_string()]);
    }
}
