//! Completes each I/O after a latency drawn from a known distribution, without touching
//! storage. Because the injected latencies are known (and recorded here), a run on this engine
//! shows how far iogauge's reported latencies are from the truth, at any queue depth.
//!
//! Waiting spins on the clock and never sleeps: a timed sleep adds the scheduler's wake-up
//! delay to the latency, and on the virtual machines measured here that delay sometimes passed
//! a millisecond. The engine is a check of the instrument, so it spends one CPU per thread.

use super::kind::{DelayDist, DelayStep};
use super::{Cqe, IoEngine, Sqe};
use crate::clock::Clock;
use crate::rng::Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;

/// The longest a wait goes without returning to the worker.
const MAX_WAIT_NS: u64 = 10_000_000;

pub struct DelayEngine {
    clock: Clock,
    rng: Rng,
    dist: DelayDist,
    /// (clock time, distribution from then on)
    step: Option<(u64, DelayDist)>,
    /// (due time, slot, result), earliest first.
    due: BinaryHeap<Reverse<(u64, u32, i32)>>,
    /// The latency injected for the I/O now (or last) in each slot.
    injected: Vec<u64>,
}

impl DelayEngine {
    pub fn new(
        clock: Clock,
        dist: DelayDist,
        step: Option<DelayStep>,
        seed: u64,
        stream: u64,
    ) -> Self {
        let start = clock.now_ns();
        DelayEngine {
            clock,
            rng: Rng::new(seed ^ 0xDE1A_4000, &[stream]),
            dist,
            step: step.map(|s| (start + s.after_ns, s.dist)),
            due: BinaryHeap::new(),
            injected: Vec::new(),
        }
    }

    fn sample(&mut self, now: u64) -> u64 {
        if let Some((at, dist)) = self.step {
            if now >= at {
                self.dist = dist;
                self.step = None;
            }
        }
        match self.dist {
            DelayDist::Fixed { ns } => ns,
            DelayDist::Uniform { min_ns, max_ns } => min_ns + self.rng.below(max_ns - min_ns + 1),
            DelayDist::Lognormal { median_ns, sigma } => {
                // Box-Muller: a standard normal from two uniforms.
                let u1 = 1.0 - self.rng.unit();
                let u2 = self.rng.unit();
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                (median_ns as f64 * (sigma * z).exp()).round() as u64
            }
        }
    }

    fn pop_due(&mut self, now: u64, out: &mut Vec<Cqe>) -> usize {
        let mut n = 0;
        while let Some(&Reverse((t, slot, result))) = self.due.peek() {
            if t > now {
                break;
            }
            self.due.pop();
            out.push(Cqe { slot, result });
            n += 1;
        }
        n
    }
}

impl IoEngine for DelayEngine {
    const ASYNC: bool = true;

    /// No I/O goes to the file: any descriptor will do.
    fn set_file(&mut self, _index: u32, _fd: crate::os::RawHandle) -> io::Result<()> {
        Ok(())
    }

    fn queue(&mut self, sqe: Sqe) {
        let now = self.clock.now_ns();
        let d = self.sample(now);
        let slot = sqe.slot as usize;
        if self.injected.len() <= slot {
            self.injected.resize(slot + 1, 0);
        }
        self.injected[slot] = d;
        let due = now + d;
        self.due.push(Reverse((due, sqe.slot, sqe.len as i32)));
    }

    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn peek(&mut self, out: &mut Vec<Cqe>) {
        let now = self.clock.now_ns();
        self.pop_due(now, out);
    }

    fn reap(&mut self, min: usize, timeout_ns: Option<u64>, out: &mut Vec<Cqe>) -> io::Result<()> {
        let start = self.clock.now_ns();
        // Come back now and then even with nothing done, so the worker sees a stop (Ctrl-C)
        // during a long delay; it then cancels what is left.
        let deadline = timeout_ns
            .map_or(u64::MAX, |t| start + t)
            .min(start + MAX_WAIT_NS);
        let mut got = self.pop_due(start, out);
        while got < min {
            let Some(&Reverse((next, _, _))) = self.due.peek() else {
                break;
            };
            if next > deadline {
                self.clock.spin_until(deadline);
                break;
            }
            self.clock.spin_until(next);
            got += self.pop_due(self.clock.now_ns(), out);
        }
        Ok(())
    }

    fn cancel(&mut self, out: &mut Vec<u32>) {
        out.extend(self.due.drain().map(|Reverse((_, slot, _))| slot));
    }

    const INJECTS: bool = true;

    fn injected_ns(&self, slot: u32) -> u64 {
        self.injected[slot as usize]
    }
}
