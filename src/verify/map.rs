//! The generation of every unit of a target, in memory: what a read must find there. Two
//! bytes a unit (a 1 TiB target in 4 KiB units costs 512 MiB), as atomics shared by every
//! thread on the target: the top bit marks a unit an I/O has claimed, so that no two I/Os, of
//! any thread, are ever on one unit at once (a read racing a write would see half of each).

use super::block::{next_gen, MAX_GEN};
use std::sync::atomic::{AtomicU16, Ordering};

const BUSY: u16 = 0x8000;

pub struct GenMap {
    gens: Box<[AtomicU16]>,
    /// Bytes per unit.
    pub unit: u64,
    /// More than one thread claims units (otherwise a claim is a plain load and store: the
    /// one thread's own I/Os are all it must keep apart).
    shared: bool,
}

/// Bytes of memory a map of `units` units takes.
pub fn cost(units: u64) -> u64 {
    units.saturating_mul(2)
}

impl GenMap {
    /// A map of `units` units, every one unknown (0); refused, not aborted, where memory is
    /// short.
    pub fn new(units: u64, unit: u64) -> Result<GenMap, String> {
        let n =
            usize::try_from(units).map_err(|_| format!("{units} units do not fit in memory"))?;
        let mut v: Vec<AtomicU16> = Vec::new();
        v.try_reserve_exact(n).map_err(|_| {
            format!(
                "cannot allocate {} for the generations of {units} units",
                crate::units::format_size_human(cost(units))
            )
        })?;
        v.resize_with(n, || AtomicU16::new(0));
        Ok(GenMap {
            gens: v.into_boxed_slice(),
            unit,
            shared: true,
        })
    }

    /// Only one thread will claim units of this map.
    pub fn one_thread(mut self) -> GenMap {
        self.shared = false;
        self
    }

    pub fn units(&self) -> u64 {
        self.gens.len() as u64
    }

    /// Every unit at generation `g` (a target just laid out, or a saved state).
    pub fn set_all(&self, g: u16) {
        for a in self.gens.iter() {
            a.store(g, Ordering::Relaxed);
        }
    }

    pub fn set(&self, u: u64, g: u16) {
        self.gens[u as usize].store(g & MAX_GEN, Ordering::Relaxed);
    }

    /// Unit `u`'s generation (whether claimed or not).
    #[inline]
    pub fn gen(&self, u: u64) -> u16 {
        self.gens[u as usize].load(Ordering::Acquire) & !BUSY
    }

    /// Claim units `first..first + n` for one I/O; false (and nothing claimed) where one of
    /// them is claimed already.
    #[inline]
    pub fn claim(&self, first: u64, n: u64) -> bool {
        for k in 0..n {
            let a = &self.gens[(first + k) as usize];
            let v = a.load(Ordering::Relaxed);
            if v & BUSY != 0
                || a.compare_exchange(v, v | BUSY, Ordering::Acquire, Ordering::Relaxed)
                    .is_err()
            {
                self.release(first, k);
                return false;
            }
        }
        true
    }

    /// Give back units claimed, unchanged.
    #[inline]
    pub fn release(&self, first: u64, n: u64) {
        for k in 0..n {
            let a = &self.gens[(first + k) as usize];
            a.store(a.load(Ordering::Relaxed) & !BUSY, Ordering::Release);
        }
    }

    /// A write to units claimed was acknowledged: each is one generation on, and free.
    #[inline]
    pub fn commit(&self, first: u64, n: u64) {
        for k in 0..n {
            let a = &self.gens[(first + k) as usize];
            let g = a.load(Ordering::Relaxed) & !BUSY;
            a.store(next_gen(g), Ordering::Release);
        }
    }

    /// A write to units claimed failed: what they hold is unknown now.
    pub fn forget(&self, first: u64, n: u64) {
        for k in 0..n {
            self.gens[(first + k) as usize].store(0, Ordering::Release);
        }
    }

    /// The generations as they are (claims left out): what a checkpoint saves.
    pub fn snapshot(&self) -> Vec<u16> {
        self.gens
            .iter()
            .map(|a| a.load(Ordering::Acquire) & !BUSY)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_is_claimed_by_one_io_at_a_time() {
        let m = GenMap::new(8, 4096).unwrap();
        m.set_all(1);
        assert!(m.claim(2, 3));
        assert!(!m.claim(4, 2), "unit 4 is taken");
        assert!(m.claim(5, 1), "the failed claim gave unit 5 back");
        m.commit(2, 3);
        assert_eq!((m.gen(2), m.gen(4), m.gen(5)), (2, 2, 1));
        m.release(5, 1);
        assert!(m.claim(4, 2));
        m.forget(4, 2);
        assert_eq!(m.snapshot(), vec![1, 1, 2, 2, 0, 0, 1, 1]);
    }

    #[test]
    fn threads_never_share_a_unit() {
        let m = GenMap::new(4, 512).unwrap();
        let held = std::sync::atomic::AtomicU32::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..20_000 {
                        if m.claim(1, 2) {
                            assert_eq!(held.fetch_add(1, Ordering::SeqCst), 0);
                            held.fetch_sub(1, Ordering::SeqCst);
                            m.commit(1, 2);
                        }
                    }
                });
            }
        });
        assert_eq!(m.gen(1), m.gen(2));
    }
}
