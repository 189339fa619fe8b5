//! How the jobs of a fio run end one another and wait for one another: fio's `exitall` (with
//! `exit_what` and `exitall_on_error`) and `wait_for`.
//!
//! Every job thread says when it starts and when it ends; a job ended by another stops as at
//! the end of its own time (its result stands, as fio reports it), or never starts.

use crate::spec::fio::options::ExitWhat;
use crate::spec::fio::options::FioRun;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Pending,
    Running,
    Ended,
}

/// The jobs' states and the stop each may be given, shared by every job thread of the run.
pub(super) struct Ends {
    states: Mutex<Vec<State>>,
    changed: Condvar,
    halt: Vec<AtomicBool>,
    /// fio's exitall is the whole run's once any job sets it.
    exitall: bool,
    /// exit_what=all ended the run: no later batch starts.
    all: AtomicBool,
}

impl Ends {
    pub(super) fn new(runs: &[FioRun]) -> Self {
        Ends {
            states: Mutex::new(vec![State::Pending; runs.len()]),
            changed: Condvar::new(),
            halt: runs.iter().map(|_| AtomicBool::new(false)).collect(),
            exitall: runs.iter().any(|r| r.exit.all),
            all: AtomicBool::new(false),
        }
    }

    fn set(&self, i: usize, s: State) {
        if let Ok(mut states) = self.states.lock() {
            states[i] = s;
        }
        self.changed.notify_all();
    }

    /// Job `i` starts its I/O.
    pub(super) fn started(&self, i: usize) {
        self.set(i, State::Running);
    }

    /// Whether another job's end has ended job `i`.
    pub(super) fn halted(&self, i: usize) -> bool {
        self.halt[i].load(Ordering::Relaxed)
    }

    /// Whether a job with exit_what=all has ended the run.
    pub(super) fn ended_all(&self) -> bool {
        self.all.load(Ordering::Relaxed)
    }

    /// Job `i` has ended (`failed`: with an error): the jobs its end ends are told to stop.
    pub(super) fn ended(&self, i: usize, failed: bool, runs: &[FioRun]) {
        let run = &runs[i];
        let ends_others = self.exitall || (run.exit.on_error && failed);
        if let (true, Ok(states)) = (ends_others, self.states.lock()) {
            for (k, other) in runs.iter().enumerate() {
                let hit = match run.exit.what {
                    ExitWhat::Group => other.group == run.group,
                    ExitWhat::Stonewall => states[k] == State::Running,
                    ExitWhat::All => true,
                };
                if hit && k != i {
                    self.halt[k].store(true, Ordering::Relaxed);
                }
            }
            if run.exit.what == ExitWhat::All {
                self.all.store(true, Ordering::Relaxed);
            }
        }
        self.set(i, State::Ended);
    }

    /// Wait until job `waitee` has ended (fio's wait_for); false if job `i` was ended first
    /// or Ctrl-C came.
    pub(super) fn wait_for(&self, i: usize, waitee: usize, interrupted: &AtomicBool) -> bool {
        let Ok(mut states) = self.states.lock() else {
            return false;
        };
        while states[waitee] != State::Ended {
            if self.halted(i) || interrupted.load(Ordering::Relaxed) {
                return false;
            }
            // Woken by every change; the timeout is for Ctrl-C, which changes no state.
            match self.changed.wait_timeout(states, Duration::from_millis(50)) {
                Ok((s, _)) => states = s,
                Err(_) => return false,
            }
        }
        !self.halted(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::fio::options::Exit;

    fn runs(groups: &[u32], exit: Exit) -> Vec<FioRun> {
        let text: String = (0..groups.len())
            .map(|i| format!("[j{i}]\nfilename=/x\nsize=1m\n"))
            .collect();
        let vars = crate::spec::fio::Vars {
            pagesize: 4096,
            mb_memory: 1024,
            ncpus: 2,
            env: &|_| None,
        };
        let dir = std::path::Path::new(".");
        let jobs = crate::spec::fio::read_str(&text, "t.fio", dir, &vars).unwrap();
        let o = crate::spec::fio::options::MapOptions {
            ignore_unsupported: false,
            allow_overwrite: false,
            keep: false,
            size_of: &|_| Some(1 << 20),
            exists: &|_| true,
            free_space_of: &|_| None,
        };
        let mut plan = crate::spec::fio::options::plan(&jobs, &o).unwrap().runs;
        for (r, &g) in plan.iter_mut().zip(groups) {
            r.group = g;
            r.exit = exit;
        }
        plan
    }

    #[test]
    fn exitall_ends_the_group_the_running_jobs_or_all() {
        let group = Exit {
            all: true,
            on_error: false,
            what: ExitWhat::Group,
        };
        let r = runs(&[0, 0, 1], group);
        let e = Ends::new(&r);
        e.ended(0, false, &r);
        assert_eq!(
            (e.halted(1), e.halted(2), e.ended_all()),
            (true, false, false)
        );

        let r = runs(
            &[0, 1, 1],
            Exit {
                what: ExitWhat::Stonewall,
                ..group
            },
        );
        let e = Ends::new(&r);
        e.started(1);
        e.ended(0, false, &r);
        assert_eq!(
            (e.halted(1), e.halted(2)),
            (true, false),
            "only the running job"
        );

        let r = runs(
            &[0, 1, 2],
            Exit {
                what: ExitWhat::All,
                ..group
            },
        );
        let e = Ends::new(&r);
        e.ended(1, false, &r);
        assert!(e.halted(0) && e.halted(2) && e.ended_all());
    }

    #[test]
    fn exitall_on_error_ends_others_only_when_the_job_failed() {
        let r = runs(
            &[0, 0],
            Exit {
                all: false,
                on_error: true,
                what: ExitWhat::Group,
            },
        );
        let e = Ends::new(&r);
        e.ended(0, false, &r);
        assert!(!e.halted(1));
        e.ended(0, true, &r);
        assert!(e.halted(1));
    }

    #[test]
    fn a_waiter_starts_when_its_waitee_ends_and_not_when_halted() {
        let r = runs(&[0, 0, 0], Exit::default());
        let e = Ends::new(&r);
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            let w = s.spawn(|| e.wait_for(1, 0, &stop));
            std::thread::sleep(Duration::from_millis(100));
            assert!(!w.is_finished(), "the waiter went before its waitee ended");
            e.ended(0, false, &r);
            assert!(w.join().unwrap());
        });
        let r = runs(
            &[0, 0],
            Exit {
                all: true,
                on_error: false,
                what: ExitWhat::Group,
            },
        );
        let e = Ends::new(&r);
        e.halt[1].store(true, Ordering::Relaxed);
        assert!(!e.wait_for(1, 0, &stop));
    }
}
