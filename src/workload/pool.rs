//! Threads sharing one stack of tasks that tasks add to: a folder's task adds its files and
//! subfolders, so a walk spreads over the threads as it goes (no list made first). Last in,
//! first out, so a thread goes deep into the folder it just opened and few folders are open
//! at once. The first error stops every thread; so does the stop flag (Ctrl-C), between tasks.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

struct Shared<T> {
    tasks: Vec<T>,
    /// Threads running a task (which may add more).
    busy: usize,
    failed: Option<Error>,
}

/// Run `work` on every task, `seeds` and those tasks add, with `threads` threads; each thread
/// has a state made by `state(index)`, returned at the end in thread order.
pub fn run<T, S, F, W>(
    threads: u32,
    seeds: Vec<T>,
    stop: &AtomicBool,
    state: F,
    work: W,
) -> Result<Vec<S>>
where
    T: Send,
    S: Send,
    F: Fn(usize) -> S + Sync,
    W: Fn(&mut S, T, &mut Vec<T>) -> Result<()> + Sync,
{
    let shared = Mutex::new(Shared {
        tasks: seeds,
        busy: 0,
        failed: None,
    });
    let wake = Condvar::new();
    let lock = || shared.lock().unwrap_or_else(|p| p.into_inner());
    let states = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.max(1) as usize)
            .map(|i| {
                let (state, work, wake, lock) = (&state, &work, &wake, &lock);
                s.spawn(move || {
                    let mut mine = state(i);
                    let mut added = Vec::new();
                    loop {
                        let task = {
                            let mut g = lock();
                            loop {
                                if g.failed.is_some() || stop.load(Ordering::Relaxed) {
                                    break None;
                                }
                                if let Some(t) = g.tasks.pop() {
                                    g.busy += 1;
                                    break Some(t);
                                }
                                if g.busy == 0 {
                                    break None;
                                }
                                g = wake.wait(g).unwrap_or_else(|p| p.into_inner());
                            }
                        };
                        let Some(task) = task else { break };
                        let r = work(&mut mine, task, &mut added);
                        let mut g = lock();
                        g.busy -= 1;
                        match r {
                            Ok(()) => g.tasks.append(&mut added),
                            Err(e) => {
                                added.clear();
                                g.failed.get_or_insert(e);
                            }
                        }
                        if !g.tasks.is_empty() || g.busy == 0 || g.failed.is_some() {
                            wake.notify_all();
                        }
                    }
                    // Threads waiting for tasks must learn that the stop flag was set.
                    wake.notify_all();
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<Vec<S>>()
    });
    let g = shared.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = g.failed {
        return Err(e);
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted("interrupted".into()));
    }
    Ok(states)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_added_by_tasks_all_run_once() {
        // A full binary tree of depth 10: 2047 nodes, each adding its two children.
        let stop = AtomicBool::new(false);
        let states = run(
            4,
            vec![1u32],
            &stop,
            |_| 0u64,
            |n, depth, more| {
                *n += 1;
                if depth < 11 {
                    more.extend([depth + 1, depth + 1]);
                }
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(states.iter().sum::<u64>(), 2047);
    }

    #[test]
    fn the_first_error_stops_the_rest() {
        let stop = AtomicBool::new(false);
        let r = run(
            2,
            (0..1000u32).collect(),
            &stop,
            |_| (),
            |_, t, _| {
                if t == 500 {
                    Err(Error::runtime("task 500 failed"))
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r.err().unwrap().to_string(), "task 500 failed");
        stop.store(true, Ordering::Relaxed);
        let r = run(2, vec![1u32], &stop, |_| (), |_, _, _| Ok(()));
        assert!(matches!(r, Err(Error::Interrupted(_))));
    }
}
