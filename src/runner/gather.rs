//! How many completions a thread waits for with its queue full (`--complete-batch`).
//!
//! Waiting for a batch saves a system call and a wake-up per I/O, which is what keeps
//! t/io_uring ahead where the CPU is the limit (zram on one core: 0.45x of t/io_uring waking
//! for each completion, 0.9x waiting for 16). Where the device is the limit, it costs: the
//! completions held back are slots the device does not get, and a device that serves 32 I/Os
//! at once with varied latencies lost 23% of its IOPS to batches of 16 (the delay engine,
//! uniform 50-150 us, QD32). The two look alike from outside (the same depth, IOPS and
//! latency), so `auto` tries them: during the warm-up it takes turns of short epochs with one
//! completion per wait, half the queue and the whole queue (t/io_uring's way: on zram the
//! whole queue is 0.95x of t/io_uring where half is 0.91x), and keeps batches only where they
//! moved more I/Os per second by a clear margin. One at a time also means each I/O submitted
//! at once, which the virtio disk of our test machines prefers (85K IOPS against 75K in
//! batches, QD32): the trial weighs the whole of each way. The measured window then runs with the
//! choice fixed. Without a warm-up there is nothing to try in: one at a time, as fio does.

/// Epochs take turns with each arm; the first is a lead-in, not counted.
const EPOCHS: u32 = 10;
const ARMS: usize = 3;
const MIN_EPOCH_NS: u64 = 2_000_000;
const MAX_EPOCH_NS: u64 = 200_000_000;
/// Batches must beat one-at-a-time by this much (percent) to be kept: within the noise,
/// the choice that keeps the device's queue fullest wins.
const MARGIN_PCT: u64 = 5;

pub struct Gather {
    /// The completions waited for now.
    k: usize,
    /// `auto`: while batching, a pass's I/Os go to the kernel together, whatever
    /// --submit-batch's default.
    auto: bool,
    trial: Option<Trial>,
    /// Whether a trial ran and chose batches (reported).
    pub chose_batches: bool,
    pub tried: bool,
}

struct Trial {
    /// Completions per wait of each arm: one, half the queue, the whole queue.
    arms: [usize; ARMS],
    epoch_ns: u64,
    epoch: u32,
    epoch_start: u64,
    count_at_start: u64,
    /// The end of the warm-up: the choice is made by then, however many epochs ran (an epoch
    /// ends only when a wait returns, so on a slow device they run late).
    end: u64,
    /// Completions per second summed over each arm's counted epochs, and how many counted.
    rate: [u64; ARMS],
    counted: [u64; ARMS],
}

impl Gather {
    /// Always `k` completions per wait (given, or 1).
    pub fn fixed(k: usize) -> Gather {
        Gather {
            k: k.max(1),
            auto: false,
            trial: None,
            chose_batches: false,
            tried: false,
        }
    }

    /// `auto` at queue depth `depth`: try batches during the warm-up from `now` to `m0`.
    pub fn auto(depth: usize, now: u64, m0: u64) -> Gather {
        let epoch_ns = m0.saturating_sub(now) / EPOCHS as u64;
        if depth <= 1 || epoch_ns < MIN_EPOCH_NS {
            return Gather::fixed(1);
        }
        Gather {
            k: 1,
            auto: true,
            trial: Some(Trial {
                arms: [1, (depth / 2).max(1), depth],
                epoch_ns: epoch_ns.min(MAX_EPOCH_NS),
                epoch: 0,
                epoch_start: now,
                count_at_start: 0,
                end: m0,
                rate: [0; ARMS],
                counted: [0; ARMS],
            }),
            chose_batches: false,
            tried: true,
        }
    }

    /// The completions to wait for now.
    #[inline]
    pub fn k(&self) -> usize {
        self.k
    }

    /// Whether completions are waited for in batches, so submissions go in batches too.
    #[inline]
    pub fn batched(&self) -> bool {
        self.k > 1
    }

    /// Whether `auto` batches now: the whole pass is submitted at once.
    #[inline]
    pub fn whole_pass(&self) -> bool {
        self.auto && self.k > 1
    }

    /// After a reap: `completed` is the thread's count of completions so far.
    #[inline]
    pub fn tick(&mut self, completed: u64, now: u64) {
        if self.trial.is_some() {
            self.step(completed, now);
        }
    }

    #[cold]
    fn step(&mut self, completed: u64, now: u64) {
        let Some(t) = self.trial.as_mut() else {
            return;
        };
        let elapsed = now.saturating_sub(t.epoch_start);
        let out_of_time = now >= t.end;
        if elapsed < t.epoch_ns && !out_of_time {
            return;
        }
        // Epoch e >= 1 ran arm (e - 1) % ARMS: three of each are counted.
        if t.epoch > 0 && elapsed > 0 {
            let arm = (t.epoch as usize - 1) % ARMS;
            t.rate[arm] += (completed - t.count_at_start) * 1_000_000_000 / elapsed;
            t.counted[arm] += 1;
        }
        t.epoch += 1;
        t.epoch_start = now;
        t.count_at_start = completed;
        if t.epoch == EPOCHS || out_of_time {
            // Mean rates; an arm never counted is never chosen, and without a count of one at
            // a time there is nothing to beat: one at a time.
            let mean = |a: usize| t.rate[a].checked_div(t.counted[a]).unwrap_or(0);
            let best = if mean(2) >= mean(1) { 2 } else { 1 };
            self.chose_batches =
                t.counted[0] > 0 && mean(best) * 100 > mean(0) * (100 + MARGIN_PCT);
            self.k = if self.chose_batches { t.arms[best] } else { 1 };
            self.trial = None;
        } else {
            self.k = t.arms[(t.epoch as usize - 1) % ARMS];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives a trial where each epoch moves `per_epoch(k)` completions.
    fn run(per_epoch: impl Fn(usize) -> u64) -> Gather {
        let mut g = Gather::auto(32, 0, 1_000_000_000);
        let (mut t, mut done) = (0, 0);
        for _ in 0..EPOCHS {
            done += per_epoch(g.k());
            t += 100_000_000;
            g.tick(done, t);
        }
        g
    }

    #[test]
    fn batches_are_kept_only_where_they_move_more() {
        let g = run(|k| if k > 1 { 2000 } else { 1000 });
        assert!(g.tried && g.chose_batches);
        assert_eq!(g.k(), 32);
        // The better of half and whole queue.
        let g = run(|k| match k {
            1 => 1000,
            16 => 2000,
            _ => 1500,
        });
        assert_eq!(g.k(), 16);
        let g = run(|k| match k {
            1 => 1000,
            16 => 1500,
            _ => 2000,
        });
        assert_eq!(g.k(), 32);
        let g = run(|k| if k > 1 { 800 } else { 1000 });
        assert!(g.tried && !g.chose_batches);
        assert_eq!(g.k(), 1);
        // Within the margin: one at a time, which keeps the device's queue fullest.
        let g = run(|k| if k > 1 { 1030 } else { 1000 });
        assert_eq!(g.k(), 1);
    }

    #[test]
    fn the_choice_is_made_by_the_end_of_the_warm_up_from_mean_rates() {
        // Epochs run three times late (a slow device): at the warm-up's end, one epoch of
        // each arm was counted, and the choice is made there.
        let mut g = Gather::auto(32, 0, 1_000_000_000);
        let (mut t, mut done) = (0, 0);
        let mut ticks = 0;
        while g.trial.is_some() {
            done += if g.k() == 16 { 3000 } else { 1000 };
            t += 300_000_000;
            g.tick(done, t);
            ticks += 1;
        }
        assert_eq!((ticks, g.k()), (4, 16));
        assert!(t >= 1_000_000_000);
        // Out of time before one at a time was counted: nothing to beat it, so it stays.
        let mut g = Gather::auto(32, 0, 1_000_000_000);
        g.tick(0, 1_000_000_000);
        assert!(g.trial.is_none() && !g.chose_batches);
        assert_eq!(g.k(), 1);
    }

    #[test]
    fn no_warm_up_or_no_batch_means_one_at_a_time() {
        let g = Gather::auto(16, 0, 0);
        assert!(!g.tried);
        assert_eq!(g.k(), 1);
        let g = Gather::auto(1, 0, 1_000_000_000);
        assert!(!g.tried);
        assert_eq!(Gather::fixed(8).k(), 8);
    }
}
