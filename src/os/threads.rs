//! Starting a run's threads together, and failing cleanly when the system will not start one.
//!
//! A thread can fail to start (the user's process limit, a cgroup's pids.max, no memory for
//! its stack). The threads already started then wait at a [`Gate`] for others that will never
//! come: the gate is opened with [`Gate::abort`] so that they return at once, and the run ends
//! with a one-line error that names the limit ([`start_error`]), instead of hanging.

use std::sync::{Condvar, Mutex};

/// A barrier for `parties` threads that can be called off: every waiter, present and future,
/// then returns `false`.
pub struct Gate {
    parties: usize,
    state: Mutex<GateState>,
    cv: Condvar,
}

#[derive(Default)]
struct GateState {
    waiting: usize,
    /// Counts the times the gate opened, so a waiter knows its own group has passed.
    opened: u64,
    aborted: bool,
}

impl Gate {
    pub fn new(parties: usize) -> Gate {
        Gate {
            parties,
            state: Mutex::new(GateState::default()),
            cv: Condvar::new(),
        }
    }

    /// Wait until `parties` threads are here; false if the gate was called off.
    pub fn wait(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if s.aborted {
            return false;
        }
        s.waiting += 1;
        if s.waiting == self.parties {
            s.waiting = 0;
            s.opened += 1;
            self.cv.notify_all();
            return true;
        }
        let group = s.opened;
        while s.opened == group && !s.aborted {
            s = self.cv.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        s.opened != group
    }

    /// Call the gate off: whoever waits, or will, returns false.
    pub fn abort(&self) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.aborted = true;
        self.cv.notify_all();
    }
}

/// The one-line error for thread `index` (from 0) of `count` that could not be started;
/// `asked` is how the user asked for that many (`-t 64`, `numjobs=64`).
pub fn start_error(index: usize, count: usize, asked: &str, e: &std::io::Error) -> String {
    // glibc answers EAGAIN both for the thread limit and for a stack it cannot map.
    let why = match e.raw_os_error() {
        Some(libc::EAGAIN) => {
            "a limit was reached: on threads (ulimit -u or RLIMIT_NPROC, a cgroup's pids.max) or on memory for their stacks (ulimit -v, a memory cgroup)"
        }
        Some(libc::ENOMEM) => {
            "there is no memory for its stack (ulimit -v, or a memory cgroup)"
        }
        _ => "the system refused it",
    };
    let errno = std::io::Error::from_raw_os_error(e.raw_os_error().unwrap_or(0));
    format!(
        "cannot start thread {} of {count} ({asked}): {why}: {}; use fewer threads",
        index + 1,
        errno.to_string().split(" (os error").next().unwrap_or("")
    )
}

/// Threads get a small stack: none of iogauge's keeps much on it, and thousands of them (a
/// fio job file with thousands of jobs) must not need gigabytes of address space.
pub const STACK_BYTES: usize = 512 << 10;

/// A fio job's thread runs a whole run (set-up, control loop, result), deeper than a worker.
pub const JOB_STACK_BYTES: usize = 2 << 20;

/// The threads a workload step or a read-back uses unless told: the CPUs, at most 8.
pub fn default_threads() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_gate_opens_for_its_parties_and_releases_them_when_called_off() {
        let g = Arc::new(Gate::new(3));
        let opened: Vec<_> = (0..3)
            .map(|_| {
                let g = g.clone();
                std::thread::spawn(move || g.wait())
            })
            .collect();
        assert!(opened.into_iter().all(|h| h.join().unwrap()));
        // Two of three arrive; the third never will.
        let stuck: Vec<_> = (0..2)
            .map(|_| {
                let g = g.clone();
                std::thread::spawn(move || g.wait())
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(50));
        g.abort();
        assert!(stuck.into_iter().all(|h| !h.join().unwrap()));
        assert!(!g.wait(), "a late comer does not wait");
    }
}
