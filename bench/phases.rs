//! Phase detection's speed goal: a 24-hour series at 1 s intervals (86,400 points) is cut
//! into phases in under 1 s.
//!
//! Run: cargo bench --bench phases
//!
//! Three series of that length, each timed (median of 5): one level with 5% noise (PELT's
//! worst case: no change prunes its candidates), a burst then a baseline, and a level with
//! a spike every minute and a stall every hour. It prints each against the goal and what was
//! found, and exits non-zero if a goal is missed.

use iogauge::rng::Rng;
use iogauge::stats::phases;
use std::time::Instant;

const DAY: usize = 86_400;

/// `parts` of (intervals, level), each value with up to about 5% noise.
fn series(parts: &[(usize, f64)], seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed, &[]);
    parts
        .iter()
        .flat_map(|&(n, level)| std::iter::repeat_n(level, n))
        .map(|level| {
            let u: f64 = (0..4).map(|_| rng.unit() - 0.5).sum::<f64>() / 0.577;
            level * (1.0 + 0.05 * u)
        })
        .collect()
}

fn main() {
    let flat = series(&[(DAY, 100.0)], 1);
    let burst = series(&[(20_000, 287.5), (DAY - 20_000, 32.0)], 2);
    let mut spiky = series(&[(DAY, 100.0)], 3);
    for i in (30..DAY).step_by(60) {
        spiky[i] = 400.0;
    }
    for i in (1800..DAY).step_by(3600) {
        spiky[i] = 0.0;
    }
    let mut missed = false;
    println!("series (86,400 points)       median of 5   goal   phases found");
    for (name, s) in [
        ("one level", &flat),
        ("burst then baseline", &burst),
        ("spikes and stalls", &spiky),
    ] {
        let mut times = Vec::new();
        let mut found = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            found = phases::find(s, false);
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let median = times[2];
        let labels: Vec<&str> = found.iter().map(|p| p.label.name()).collect();
        let ok = median < 1.0;
        missed |= !ok;
        println!(
            "{name:<28} {:>8.1} ms   1 s    {} {}",
            median * 1e3,
            labels.join(", "),
            if ok { "" } else { "  MISSED" }
        );
    }
    if missed {
        std::process::exit(1);
    }
}
