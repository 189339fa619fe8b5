//! The run clock: nanoseconds since the start of the run, read once per batch (or per I/O in
//! latency mode), so its cost is part of iogauge's overhead per I/O.
//!
//! Where the CPU has an invariant TSC (constant and non-stop, as Linux reports it), reading it
//! is cheaper than clock_gettime; it is calibrated against CLOCK_MONOTONIC at start-up and used
//! only if it measures cheaper. Otherwise `Instant` (CLOCK_MONOTONIC through the vDSO).

use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockSource {
    /// The CPU's invariant time-stamp counter, calibrated against CLOCK_MONOTONIC.
    Tsc,
    /// clock_gettime(CLOCK_MONOTONIC).
    Monotonic,
}

/// What the report says about the clock.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClockInfo {
    pub source: ClockSource,
    /// Measured cost of one read of the chosen clock.
    pub read_cost_ns: f64,
    /// Cost of one clock_gettime(CLOCK_MONOTONIC), for comparison.
    pub monotonic_cost_ns: f64,
    /// TSC ticks per second, where the TSC was calibrated.
    pub tsc_hz: Option<f64>,
}

#[derive(Clone, Copy, Debug)]
pub struct Clock {
    base: Instant,
    tsc: Option<Tsc>,
}

#[derive(Clone, Copy, Debug)]
struct Tsc {
    base: u64,
    ns_per_tick: f64,
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn rdtsc() -> u64 {
    // SAFETY: RDTSC is available on every x86_64 CPU and has no memory effects.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn rdtsc() -> u64 {
    0
}

/// Linux says "constant_tsc nonstop_tsc" when the TSC ticks at one rate in every power state.
fn invariant_tsc() -> bool {
    if !cfg!(target_arch = "x86_64") {
        return false;
    }
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return false;
    };
    let Some(flags) = info.lines().find(|l| l.starts_with("flags")) else {
        return false;
    };
    let has = |f: &str| flags.split_whitespace().any(|x| x == f);
    has("constant_tsc") && has("nonstop_tsc")
}

/// Average cost of one call of `read`, over enough calls to dwarf the timer's own cost.
fn cost_ns(mut read: impl FnMut() -> u64) -> f64 {
    const N: u32 = 200_000;
    let mut sink = 0u64;
    let t = Instant::now();
    for _ in 0..N {
        sink = sink.wrapping_add(read());
    }
    std::hint::black_box(sink);
    t.elapsed().as_nanos() as f64 / N as f64
}

impl Clock {
    /// CLOCK_MONOTONIC only; for tests and where calibration is not wanted.
    pub fn monotonic() -> Self {
        Clock {
            base: Instant::now(),
            tsc: None,
        }
    }

    /// Calibrate (about 20 ms) and choose the cheaper clock.
    pub fn calibrated() -> (Self, ClockInfo) {
        let mono = Clock::monotonic();
        let monotonic_cost_ns = cost_ns(|| mono.now_ns());
        if !invariant_tsc() {
            let info = ClockInfo {
                source: ClockSource::Monotonic,
                read_cost_ns: monotonic_cost_ns,
                monotonic_cost_ns,
                tsc_hz: None,
            };
            return (mono, info);
        }
        // Ticks against nanoseconds over 20 ms: the rate is then known to better than 1e-6.
        let (t0, i0) = (rdtsc(), Instant::now());
        std::thread::sleep(Duration::from_millis(20));
        let (t1, i1) = (rdtsc(), Instant::now());
        let hz = (t1 - t0) as f64 / (i1 - i0).as_secs_f64();
        let base = Instant::now();
        let tsc = Clock {
            base,
            tsc: Some(Tsc {
                base: rdtsc(),
                ns_per_tick: 1e9 / hz,
            }),
        };
        let tsc_cost = cost_ns(|| tsc.now_ns());
        if tsc_cost < monotonic_cost_ns && hz > 1e6 {
            let info = ClockInfo {
                source: ClockSource::Tsc,
                read_cost_ns: tsc_cost,
                monotonic_cost_ns,
                tsc_hz: Some(hz),
            };
            (tsc, info)
        } else {
            let info = ClockInfo {
                source: ClockSource::Monotonic,
                read_cost_ns: monotonic_cost_ns,
                monotonic_cost_ns,
                tsc_hz: Some(hz),
            };
            (Clock { base, tsc: None }, info)
        }
    }

    /// Busy-wait until `t`: for waits that must not be late by a scheduler's wake-up delay.
    pub fn spin_until(&self, t: u64) {
        while self.now_ns() < t {
            std::hint::spin_loop();
        }
    }

    #[inline(always)]
    pub fn now_ns(&self) -> u64 {
        match self.tsc {
            Some(t) => (rdtsc().wrapping_sub(t.base) as f64 * t.ns_per_tick) as u64,
            None => self.base.elapsed().as_nanos() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chosen_clock_agrees_with_monotonic_time() {
        let (clock, info) = Clock::calibrated();
        assert!(info.read_cost_ns > 0.0 && info.read_cost_ns <= info.monotonic_cost_ns * 1.01);
        let (c0, i0) = (clock.now_ns(), Instant::now());
        std::thread::sleep(Duration::from_millis(50));
        let (c1, i1) = (clock.now_ns(), Instant::now());
        let clock_ns = (c1 - c0) as f64;
        let mono_ns = (i1 - i0).as_nanos() as f64;
        // Within 0.1% over 50 ms (the two reads are not simultaneous: allow 20 us).
        assert!(
            (clock_ns - mono_ns).abs() < mono_ns * 1e-3 + 20_000.0,
            "{clock_ns} vs {mono_ns} ({info:?})"
        );
        // Monotonic and nanosecond-grained.
        let mut last = clock.now_ns();
        let mut distinct = 0;
        for _ in 0..10_000 {
            let t = clock.now_ns();
            assert!(t >= last);
            distinct += (t != last) as u32;
            last = t;
        }
        assert!(
            distinct > 1000,
            "the clock should advance between most reads"
        );
    }
}
