//! Several runs that start together, as the jobs of one fio group do: each run sets up (its
//! files laid out, its workers ready) and waits at the start line; once every run has come
//! (or ended before it could), one coordinating thread opens the line, having first met the
//! other ranks of an MPI job there, and all start their clocks at once. fio does the same:
//! every job of a group is set up before any of them is let go.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

#[derive(Default)]
struct State {
    /// Runs that will come to the line.
    enlisted: usize,
    /// Those that came, or ended before they could.
    arrived: usize,
    /// Set once: whether the runs go (false: they stop before any I/O).
    open: Option<bool>,
}

#[derive(Default)]
pub struct StartLine {
    state: Mutex<State>,
    turn: Condvar,
}

impl StartLine {
    /// One more run will come to the line: its entry, taken before its thread starts and
    /// moved into it. The run arrives through it; dropped without arriving (the thread never
    /// started, its setup failed, it panicked), it withdraws, so that nobody waits for it.
    pub fn enlist(&self) -> Entry<'_> {
        self.lock().enlisted += 1;
        Entry {
            line: self,
            came: false,
        }
    }

    fn arrive(&self) -> bool {
        let mut s = self.lock();
        s.arrived += 1;
        self.turn.notify_all();
        loop {
            if let Some(go) = s.open {
                return go;
            }
            s = self.turn.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn withdraw(&self) {
        self.lock().arrived += 1;
        self.turn.notify_all();
    }

    /// The coordinator: wait until every enlisted run has come or withdrawn. False when
    /// `interrupted` was set meanwhile.
    pub fn wait_all(&self, interrupted: &AtomicBool) -> bool {
        let mut s = self.lock();
        while s.arrived < s.enlisted {
            if interrupted.load(Ordering::Relaxed) {
                return false;
            }
            let tick = Duration::from_millis(20);
            s = self
                .turn
                .wait_timeout(s, tick)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// Let every run go (`go`), or stop them all before any I/O.
    pub fn open(&self, go: bool) {
        self.lock().open.get_or_insert(go);
        self.turn.notify_all();
    }

    /// Wait for the line to open without being counted (a run that starts later, after a
    /// delay of its own); whether it may go.
    pub fn wait_open(&self) -> bool {
        let mut s = self.lock();
        loop {
            if let Some(go) = s.open {
                return go;
            }
            s = self.turn.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One enlisted run's place at the line (see [`StartLine::enlist`]).
pub struct Entry<'a> {
    line: &'a StartLine,
    came: bool,
}

impl Entry<'_> {
    /// The run is set up: wait until the line opens; whether it may go. Once.
    pub fn arrive(&mut self) -> bool {
        if std::mem::replace(&mut self.came, true) {
            return self.line.wait_open();
        }
        self.line.arrive()
    }
}

impl Drop for Entry<'_> {
    fn drop(&mut self) {
        if !self.came {
            self.line.withdraw();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_opens_once_every_run_came_or_withdrew() {
        let line = StartLine::default();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let waiting: Vec<_> = (0..2)
                .map(|_| {
                    let mut e = line.enlist();
                    s.spawn(move || e.arrive())
                })
                .collect();
            // Set up, then failed: dropped without arriving.
            drop(line.enlist());
            assert!(line.wait_all(&stop));
            line.open(true);
            for w in waiting {
                assert!(w.join().unwrap());
            }
        });
        // Opened once: a later verdict does not change it.
        line.open(false);
        assert!(line.wait_open());
    }

    #[test]
    fn a_run_that_panics_before_it_arrives_does_not_hold_the_line() {
        let line = StartLine::default();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let e = line.enlist();
            let h = s.spawn(move || {
                let _entry = e;
                panic!("a job's setup went wrong");
            });
            assert!(h.join().is_err());
        });
        assert!(
            line.wait_all(&stop),
            "the line waited for a thread that is gone"
        );
    }

    #[test]
    fn ctrl_c_while_waiting_for_the_runs_gives_up() {
        let line = StartLine::default();
        let mut e = line.enlist();
        let stop = AtomicBool::new(true);
        assert!(!line.wait_all(&stop));
        line.open(false);
        assert!(!e.arrive());
    }
}
