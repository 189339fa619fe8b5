//! The latency target's search for a queue depth (fio's latency_target, latency_window,
//! latency_percentile, latency_run; io_u.c's lat_target_*): from depth 1, a thread doubles
//! the I/Os it lets in flight while each window meets the target, bisects between the last
//! depth that met it and the first that did not, and settles where a step up would not move
//! it. The slots stay allocated to the full queue depth; only how many may be in flight
//! changes.
//!
//! Where iogauge differs from fio, on purpose: a window with no completions gives no verdict
//! (fio divides 0 by 0 and fails it), and the completions that come in while the thread waits
//! for its I/Os in flight after a change are not judged (fio judges them, one more change
//! each for a percentile of 100).

use crate::spec::LatencyTarget;

/// What the thread is to do after a completion or a window's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Go on at the depth allowed.
    Go,
    /// The depth settled: one more window at it, then the search ends (fio's final run).
    Final,
    /// The final window met the target too: the job ends (not with `keep_adjusting`).
    Done,
    /// An I/O over the target at depth 1 with a percentile of 100: no depth meets it, and
    /// the job fails (fio's "max latency exceeded").
    Missed,
}

/// One thread's search.
#[derive(Debug, Clone)]
pub struct DepthSearch {
    target: LatencyTarget,
    /// The job's queue depth: the most the search may allow.
    iodepth: u32,
    /// fio's latency_qd, latency_qd_low, latency_qd_high, latency_stable_count.
    qd: u32,
    low: u32,
    high: u32,
    stable: u32,
    /// The depth settled and the final window runs (fio's latency_end_run).
    end_run: bool,
    /// The current window: when it began (`None`: at the next completion judged), the I/Os
    /// judged in it and those over the target.
    started: Option<u64>,
    ios: u64,
    failed: u64,
    /// After a change, nothing new starts until every I/O in flight has completed (fio's
    /// io_u_quiesce), and the next window begins then.
    quiescing: bool,
}

impl DepthSearch {
    pub fn new(target: LatencyTarget, iodepth: u32) -> Self {
        DepthSearch {
            target,
            iodepth: iodepth.max(1),
            qd: 1,
            low: 1,
            high: iodepth.max(1),
            stable: 0,
            end_run: false,
            started: None,
            ios: 0,
            failed: 0,
            quiescing: false,
        }
    }

    /// The depth allowed now: the depth found, once the search has ended.
    pub fn depth(&self) -> u32 {
        self.qd
    }

    pub fn target_ns(&self) -> u64 {
        self.target.ns
    }

    /// Whether one more I/O may start with `inflight` in flight.
    #[inline]
    pub fn may_start(&self, inflight: usize) -> bool {
        !self.quiescing && inflight < self.qd as usize
    }

    /// One data I/O completed after `lat_ns` (queued to completed), judged (past the
    /// warm-up).
    #[inline]
    pub fn completed(&mut self, lat_ns: u64, t: u64) -> Step {
        if self.quiescing {
            return Step::Go;
        }
        self.started.get_or_insert(t);
        self.ios += 1;
        if lat_ns <= self.target.ns {
            return Step::Go;
        }
        // A percentile of 100: one I/O over the target fails the depth at once.
        if self.target.pct >= 100.0 {
            if self.qd == 1 {
                return Step::Missed;
            }
            self.ramp_down();
            return Step::Go;
        }
        self.failed += 1;
        Step::Go
    }

    /// After a batch of completions at `t`, `inflight` still in flight: end a wait for the
    /// I/Os in flight, or judge the window once it has lasted `window_ns`.
    pub fn after(&mut self, t: u64, inflight: usize) -> Step {
        let step = match self.started {
            Some(start)
                if !self.quiescing && t - start >= self.target.window_ns && self.ios > 0 =>
            {
                let met = (self.ios - self.failed) as f64 * 100.0 / self.ios as f64;
                self.judge(met >= self.target.pct, t)
            }
            _ => Step::Go,
        };
        // Nothing left in flight (perhaps already when the depth changed): no completion
        // will come to end the wait, so it ends here.
        if self.quiescing && inflight == 0 {
            self.quiescing = false;
            self.new_window(None);
        }
        step
    }

    /// A window's verdict (fio's lat_target_success and __lat_target_failed).
    pub fn judge(&mut self, met: bool, t: u64) -> Step {
        if met {
            return self.ramp_up(t);
        }
        // At depth 1 fio leaves the window running: its failures add up with the next ones.
        if self.qd > 1 {
            self.ramp_down();
        }
        Step::Go
    }

    fn ramp_down(&mut self) {
        self.high = self.qd;
        if self.qd == self.low {
            self.low -= 1;
        }
        self.qd = (self.qd + self.low) / 2;
        self.stable = 0;
        self.quiescing = true;
    }

    fn ramp_up(&mut self, t: u64) -> Step {
        let before = self.qd;
        self.low = self.qd;
        // One step below the highest that failed: the bisection cannot move up any more, so
        // after three windows met in a row the ceiling is raised by one, lest the depth stay
        // below what the device can do.
        if self.qd + 1 == self.high {
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        // Doubling until a depth fails; then bisecting below the depth that failed.
        self.qd = if self.high != self.iodepth {
            (self.qd + self.high) / 2
        } else {
            self.qd * 2
        };
        self.qd = self.qd.min(self.iodepth);
        let mut step = Step::Go;
        if !self.target.keep_adjusting && self.qd == before {
            if self.end_run {
                step = Step::Done;
            } else {
                self.end_run = true;
                self.quiescing = true;
                step = Step::Final;
            }
        }
        self.new_window(Some(t));
        step
    }

    fn new_window(&mut self, t: Option<u64>) {
        self.started = t;
        self.ios = 0;
        self.failed = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(pct: f64, keep_adjusting: bool) -> LatencyTarget {
        LatencyTarget {
            ns: 1_000,
            window_ns: 100,
            pct,
            keep_adjusting,
        }
    }

    /// Judge windows on a device that meets the target up to `best`, as fio would, and
    /// return the depths tried and how the search ended.
    fn search(iodepth: u32, best: u32, keep: bool, windows: usize) -> (Vec<u32>, Step) {
        let mut s = DepthSearch::new(target(99.0, keep), iodepth);
        let mut tried = vec![s.depth()];
        for w in 0..windows {
            let step = s.judge(s.depth() <= best, w as u64);
            // The quiesce ends once nothing is in flight.
            s.after(w as u64, 0);
            if step == Step::Done {
                return (tried, step);
            }
            tried.push(s.depth());
        }
        (tried, Step::Go)
    }

    #[test]
    fn doubles_then_bisects_then_settles_as_fio_does() {
        // 1, 2, 4, 8 (fails: ceiling 8), (4+8)/2 = 6 met, (6+8)/2 = 7 fails (ceiling 7),
        // (7+6)/2 = 6 met: one below the ceiling, (6+7)/2 = 6 again: the final window,
        // met: done at 6.
        let (tried, end) = search(32, 6, false, 20);
        assert_eq!(tried, [1, 2, 4, 8, 6, 7, 6, 6]);
        assert_eq!(end, Step::Done);
    }

    #[test]
    fn a_device_that_meets_every_depth_ends_at_the_queue_depth() {
        let (tried, end) = search(16, 64, false, 20);
        assert_eq!(tried, [1, 2, 4, 8, 16, 16]);
        assert_eq!(end, Step::Done);
    }

    #[test]
    fn a_device_that_meets_none_stays_at_depth_1() {
        let (tried, end) = search(8, 0, false, 5);
        assert_eq!(tried, [1; 6]);
        assert_eq!(end, Step::Go);
    }

    #[test]
    fn keep_adjusting_raises_the_ceiling_after_three_windows_met() {
        // latency_run: never done; at 6 below a ceiling of 7, three windows met raise the
        // ceiling to 8, and the next step tries 7 again.
        let (tried, end) = search(32, 6, true, 12);
        assert_eq!(end, Step::Go);
        assert_eq!(&tried[..10], [1, 2, 4, 8, 6, 7, 6, 6, 6, 7]);
    }

    #[test]
    fn one_io_over_the_target_fails_a_percentile_of_100_at_once() {
        let mut s = DepthSearch::new(target(100.0, false), 8);
        for t in 0..3 {
            assert_eq!(s.judge(true, t), Step::Go);
            s.after(t, 0);
        }
        assert_eq!(s.depth(), 8);
        assert_eq!(s.completed(5_000, 10), Step::Go);
        // Halved toward the last depth met (4), waiting for what is in flight.
        assert_eq!(s.depth(), 6);
        assert!(!s.may_start(3));
        s.after(11, 0);
        assert!(s.may_start(3) && !s.may_start(6));
        let mut one = DepthSearch::new(target(100.0, false), 8);
        assert_eq!(one.completed(5_000, 0), Step::Missed);
    }

    #[test]
    fn a_change_with_nothing_in_flight_does_not_wait() {
        // Depth 1: the I/O whose completion ends the window was the only one in flight.
        let mut s = DepthSearch::new(target(100.0, false), 4);
        s.completed(10, 0);
        s.after(200, 0);
        assert_eq!(s.depth(), 2);
        assert!(s.may_start(0));
    }

    #[test]
    fn a_window_is_judged_on_its_percentile_once_it_has_lasted() {
        let mut s = DepthSearch::new(target(75.0, false), 8);
        s.completed(10, 0);
        s.completed(10, 20);
        s.completed(10, 30);
        s.completed(5_000, 40);
        // 99 ns into a 100 ns window: no verdict yet.
        assert_eq!(s.after(99, 1), Step::Go);
        assert_eq!(s.depth(), 1);
        // 3 of 4 within the target: 75% met.
        s.after(100, 1);
        assert_eq!(s.depth(), 2);
        for t in 100..105 {
            s.completed(5_000, t);
        }
        s.after(200, 1);
        // Failed at 2: back to 1, after what is in flight.
        assert_eq!(s.depth(), 1);
        assert!(!s.may_start(0));
        s.after(201, 0);
        assert!(s.may_start(0));
    }
}
