//! Deduplicable write data (--dedupe, fio's dedupe_percentage): which writes carry an
//! earlier write's content and which carry new content.
//!
//! A buffer's content is a function of a seed: the `k`th write with new content of a source
//! (a thread) is drawn from the pair (source, k), compressible as --compressible asks. So a
//! write repeats another by drawing from the same pair, byte for byte, whatever thread wrote
//! the original: nothing is kept but counts. The worker calls [`DedupeFill::fill`] only when
//! --dedupe is on; without it, its refill is what it always was.
//!
//! As fio 3.33 (io_u.c's get_buf_state, dedupe.c):
//! - each write repeats with probability `pct`%, drawn apart from the worker's offsets;
//! - `repeat`: it repeats the thread's latest write with new content (fio repeats the seed
//!   that will make its *next* new write, so that its duplicate comes first; here the
//!   original comes first, as a dedupe-capable store sees it in the real world);
//! - `working set`: it repeats one drawn at random from the thread's first N writes with new
//!   content, N the working set's share of the thread's region in blocks of the smallest
//!   write. fio draws from all N from the start, some not written yet; here a draw of one of
//!   the thread's own not yet written is folded onto those written, so that every duplicate
//!   repeats content already on the target;
//! - `global`: the working set is spread over the threads that share it, N / threads pages
//!   from each in turn starting with the thread's own. Another thread's page may not be
//!   written yet when drawn (its thread is writing it meanwhile), as in fio.

use crate::rng::{fill_buffer, Rng};
use crate::spec::{DedupeMode, JobSpec};

/// Streams of the job's seed that no other use of it draws from.
const PICK: u64 = 0xDED0_0001;
const OWN: u64 = 0xDED0_0002;
const SHARED: u64 = 0xDED0_0003;

/// One thread's writer of deduplicable buffers.
pub struct DedupeFill {
    pct: u64,
    compress_pct: u8,
    /// Draws whether a write repeats, and which: apart from the worker's generator, so that
    /// the offsets are the same with --dedupe as without.
    pick: Rng,
    /// This thread's source of new content, and its writes with new content so far.
    own: u64,
    written: u64,
    working_set: Option<WorkingSet>,
}

struct WorkingSet {
    pages: u64,
    /// Pages from each source in turn, and the sources: this thread's place among the
    /// threads that share the set, how many do, and the seed of their sources (`None`: not
    /// shared, the thread's own only).
    per_source: u64,
    me: u64,
    of: u64,
    shared_seed: Option<u64>,
}

/// Where one worker stands: its index among the job's threads, its set and its thread.
#[derive(Clone, Copy)]
pub struct Place {
    pub id: u64,
    pub set: u64,
    pub thread: u64,
}

impl DedupeFill {
    /// The writer of worker `at`, whose region (all its files) is `region` bytes long;
    /// `None` without --dedupe.
    pub fn new(job: &JobSpec, at: Place, region: u64) -> Option<DedupeFill> {
        let d = job.per_io.buffers.dedupe?;
        let stream = |tag: u64| Rng::new(job.seed, &[tag, d.job as u64, at.set, at.thread]);
        let working_set = match d.mode {
            DedupeMode::Repeat => None,
            DedupeMode::WorkingSet { pct } => {
                let smallest = job.shape.sizes().1.smallest().max(1);
                let pages = (region * pct as u64 / 100 / smallest).max(1);
                let (me, of, seed) = match (d.global, d.shared) {
                    (false, _) => (0, 1, None),
                    (true, None) => (at.id, job.total_threads().max(1), Some(job.seed)),
                    (true, Some(s)) => (s.first as u64 + at.id, (s.of as u64).max(1), Some(s.seed)),
                };
                Some(WorkingSet {
                    pages,
                    per_source: (pages / of).max(1),
                    me,
                    of,
                    shared_seed: seed,
                })
            }
        };
        let own = match working_set
            .as_ref()
            .and_then(|w| w.shared_seed.map(|s| (s, w.me)))
        {
            Some((seed, me)) => shared_source(seed, me),
            None => stream(OWN).next_u64(),
        };
        Some(DedupeFill {
            pct: d.pct as u64,
            compress_pct: job.per_io.buffers.compress_pct,
            pick: stream(PICK),
            own,
            written: 0,
            working_set,
        })
    }

    /// Fill the buffer of the next write.
    pub fn fill(&mut self, buf: &mut [u8]) {
        let (source, k) = self.next_content();
        fill_buffer(buf, &mut content(source, k), self.compress_pct);
    }

    /// The source and number of the next write's content: new, or an earlier write's.
    fn next_content(&mut self) -> (u64, u64) {
        if self.written == 0 || self.pick.below(100) >= self.pct {
            self.written += 1;
            return (self.own, self.written - 1);
        }
        let Some(ws) = &self.working_set else {
            return (self.own, self.written - 1);
        };
        let page = self.pick.below(ws.pages);
        let turn = page / ws.per_source;
        let k = page - turn * ws.per_source;
        match (turn % ws.of, ws.shared_seed) {
            // Its own: one it has written.
            (0, _) | (_, None) => (self.own, k % self.written),
            (t, Some(seed)) => (shared_source(seed, (ws.me + t) % ws.of), k),
        }
    }
}

/// The source of new content of the `n`th thread sharing a working set.
fn shared_source(seed: u64, n: u64) -> u64 {
    Rng::new(seed, &[SHARED, n]).next_u64()
}

/// The generator of the `k`th new content of `source`.
fn content(source: u64, k: u64) -> Rng {
    Rng::new(source, &[k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::native::job_from_argv;
    use std::collections::HashMap;

    const BS: usize = 4096;

    fn job(flags: &str) -> JobSpec {
        let argv: Vec<String> = format!("iogauge run -b 4k -s -w 100 {flags} f")
            .split_whitespace()
            .map(String::from)
            .collect();
        job_from_argv(&argv).unwrap_or_else(|e| panic!("{flags}: {e}"))
    }

    fn place(id: u64) -> Place {
        Place {
            id,
            set: 0,
            thread: id,
        }
    }

    /// `n` writes of one thread over an 8 MiB region.
    fn writes(job: &JobSpec, at: Place, n: usize) -> Vec<Vec<u8>> {
        let mut d = DedupeFill::new(job, at, 8 << 20).expect("dedupe on");
        (0..n)
            .map(|_| {
                let mut b = vec![0u8; BS];
                d.fill(&mut b);
                b
            })
            .collect()
    }

    /// The share of blocks whose content came before, in percent.
    fn duplicate_pct(blocks: &[Vec<u8>]) -> f64 {
        let mut seen: HashMap<&[u8], ()> = HashMap::new();
        let dups = blocks
            .iter()
            .filter(|b| seen.insert(b.as_slice(), ()).is_some())
            .count();
        dups as f64 * 100.0 / blocks.len() as f64
    }

    #[test]
    fn the_same_seed_writes_the_same_data() {
        let j = job("--dedupe 50 --seed 9");
        assert_eq!(writes(&j, place(0), 64), writes(&j, place(0), 64));
        assert_ne!(writes(&j, place(0), 64), writes(&j, place(1), 64));
        let other = job("--dedupe 50 --seed 10");
        assert_ne!(writes(&j, place(0), 64), writes(&other, place(0), 64));
    }

    #[test]
    fn repeat_writes_the_latest_new_content_again() {
        let w = writes(&job("--dedupe 50"), place(0), 2048);
        let pct = duplicate_pct(&w);
        assert!((46.0..54.0).contains(&pct), "{pct}");
        // A duplicate repeats the block before it, or the one that block repeats.
        let mut latest_new = &w[0];
        let mut seen = std::collections::HashSet::new();
        for b in &w {
            if !seen.insert(b.as_slice()) {
                assert_eq!(b, latest_new);
            } else {
                latest_new = b;
            }
        }
    }

    #[test]
    fn a_working_set_is_the_first_new_writes() {
        // 10% of 8 MiB in 4 KiB pages: 204 pages, the first 204 writes with new content.
        let w = writes(
            &job("--dedupe 40 --dedupe-mode working-set --dedupe-working-set 10"),
            place(0),
            2048,
        );
        let pct = duplicate_pct(&w);
        assert!((36.0..44.0).contains(&pct), "{pct}");
        let mut order: Vec<&[u8]> = Vec::new();
        for b in &w {
            match order.iter().position(|o| *o == b.as_slice()) {
                Some(i) => assert!(i < 204, "repeats new write {i}"),
                None => order.push(b),
            }
        }
    }

    #[test]
    fn compressible_duplicates_are_whole_copies() {
        let w = writes(&job("--dedupe 50 --compressible 50"), place(0), 256);
        for b in &w {
            assert!(b[256..512].iter().all(|&x| x == 0));
            assert!(b[..256].iter().any(|&x| x != 0));
        }
        let pct = duplicate_pct(&w);
        assert!((40.0..60.0).contains(&pct), "{pct}");
        // All of them repeat: the first write's content.
        let w = writes(&job("--dedupe 100"), place(0), 16);
        assert!(w.iter().all(|b| *b == w[0]));
    }

    #[test]
    fn a_global_working_set_repeats_other_threads_writes() {
        let j = job(
            "-t 2 --dedupe 50 --dedupe-mode working-set --dedupe-working-set 50 --dedupe-global",
        );
        let (a, b) = (writes(&j, place(0), 2048), writes(&j, place(1), 2048));
        let within = |w: &[Vec<u8>]| duplicate_pct(w);
        let both: Vec<Vec<u8>> = a.iter().chain(&b).cloned().collect();
        let pct = duplicate_pct(&both);
        assert!((46.0..54.0).contains(&pct), "{pct}");
        // Half of each thread's duplicates repeat the other's: fewer repeat within one.
        assert!(within(&a) < 40.0, "{}", within(&a));
        // Not shared: no block of one thread is the other's.
        let j = job("-t 2 --dedupe 50 --dedupe-mode working-set --dedupe-working-set 50");
        let (a, b) = (writes(&j, place(0), 512), writes(&j, place(1), 512));
        assert!(a.iter().all(|x| !b.contains(x)));
    }
}
