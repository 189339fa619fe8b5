//! IOR's stonewalling with wear-out, inside one run: at the deadline every worker stops
//! issuing, lets its I/Os in flight complete and waits here; once every worker has stopped
//! (or had already finished), the control thread learns the most bytes any one worker had
//! done, agrees on it with the other ranks (see [`super::Observer::stonewall`]) and gives
//! every worker that as its new quota. A worker that had finished before the deadline simply
//! says how much it had done.
//!
//! Without wear-out no worker waits: the deadline is the run's stop time.

use std::sync::{Condvar, Mutex};

/// Where the workers stand at the deadline.
#[derive(Debug, Default)]
struct State {
    /// Workers stopped at the deadline, waiting for the verdict.
    waiting: usize,
    /// Workers that ended before reaching it (their bytes done, or a failure).
    gone: usize,
    /// The most bytes any one worker had done, and their sum.
    most: u64,
    sum: u64,
    /// Given once: each worker's quota from now on; `None` stops them.
    verdict: Option<Option<u64>>,
    /// When the last worker stopped, on the run clock.
    settled_at: u64,
}

/// What the deadline found, for the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtWall {
    /// Whether any worker still had work when the deadline came.
    pub reached: bool,
    /// Bytes done by every worker together when the last of them stopped.
    pub bytes: u64,
    /// When that was, on the run clock.
    pub settled_at: u64,
    /// The quota every worker was then given (wear-out), or `None` where they stopped.
    pub quota: Option<u64>,
}

pub struct Wall {
    /// On the run clock; `u64::MAX` where there is no wear-out deadline.
    pub deadline_ns: std::sync::atomic::AtomicU64,
    state: Mutex<State>,
    turn: Condvar,
}

impl Default for Wall {
    fn default() -> Wall {
        Wall {
            deadline_ns: std::sync::atomic::AtomicU64::new(u64::MAX),
            state: Mutex::default(),
            turn: Condvar::new(),
        }
    }
}

impl Wall {
    /// A worker has stopped at the deadline with `bytes` done and nothing in flight: wait for
    /// the verdict, its quota from now on (`None`: stop).
    pub fn arrive(&self, bytes: u64, now: u64) -> Option<u64> {
        let Ok(mut s) = self.state.lock() else {
            return None;
        };
        s.waiting += 1;
        s.most = s.most.max(bytes);
        s.sum += bytes;
        s.settled_at = s.settled_at.max(now);
        while s.verdict.is_none() {
            s = match self.turn.wait(s) {
                Ok(s) => s,
                Err(_) => return None,
            };
        }
        s.verdict.flatten()
    }

    /// A worker ended before the deadline (its bytes done, cut short, or failed).
    pub fn leave(&self, bytes: u64) {
        if let Ok(mut s) = self.state.lock() {
            if s.verdict.is_none() {
                s.gone += 1;
                s.most = s.most.max(bytes);
                s.sum += bytes;
            }
        }
    }

    /// For the control thread: the most bytes one worker had done, once all `workers` have
    /// stopped at the deadline or ended, and no verdict has been given yet.
    pub fn settled(&self, workers: usize) -> Option<u64> {
        let s = self.state.lock().ok()?;
        (s.verdict.is_none() && s.waiting + s.gone == workers).then_some(s.most)
    }

    /// For the control thread: every waiting worker's quota from now on (`None`: stop).
    /// Only the first verdict counts.
    pub fn decide(&self, quota: Option<u64>) {
        if let Ok(mut s) = self.state.lock() {
            if s.verdict.is_none() {
                s.verdict = Some(quota);
                self.turn.notify_all();
            }
        }
    }

    /// What the deadline found; `None` where no verdict was given (no wear-out, or the run
    /// ended another way first).
    pub fn outcome(&self) -> Option<AtWall> {
        let s = self.state.lock().ok()?;
        let quota = s.verdict?;
        Some(AtWall {
            reached: s.waiting > 0,
            bytes: s.sum,
            settled_at: s.settled_at,
            quota,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn workers_wait_for_the_verdict_and_all_get_the_most_any_had_done() {
        let wall = Arc::new(Wall::default());
        let waiting: Vec<_> = [300u64, 700]
            .into_iter()
            .map(|b| {
                let w = Arc::clone(&wall);
                std::thread::spawn(move || w.arrive(b, 10))
            })
            .collect();
        wall.leave(500);
        let most = loop {
            if let Some(m) = wall.settled(3) {
                break m;
            }
            std::thread::yield_now();
        };
        assert_eq!(most, 700);
        wall.decide(Some(most));
        for w in waiting {
            assert_eq!(w.join().unwrap(), Some(700));
        }
        let out = wall.outcome().unwrap();
        assert!(out.reached);
        assert_eq!((out.bytes, out.quota), (1500, Some(700)));
        assert_eq!(wall.settled(3), None, "decided once");
    }

    #[test]
    fn workers_all_done_before_the_deadline_did_not_reach_it() {
        let wall = Wall::default();
        wall.leave(4096);
        wall.leave(8192);
        assert_eq!(wall.settled(2), Some(8192));
        wall.decide(Some(8192));
        let out = wall.outcome().unwrap();
        assert!(!out.reached);
        assert_eq!(out.bytes, 12288);
    }
}
