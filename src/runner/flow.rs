//! fio's flow control (`flow`, `flow_id`, `flow_sleep`): the threads of every job that share
//! a flow id keep the I/Os each has started in proportion to their weights, whichever job
//! they belong to.
//!
//! As fio 3.33 does it (flow.c): the flow counts every I/O its members start, from 1; a
//! member whose own count, over the flow's, is above its weight over the flow's total weight
//! waits (`flow_sleep`) and asks again. A member that leaves takes its count and its weight
//! with it, so the others go on without it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The I/Os started and the weight of every member of one flow.
#[derive(Default)]
struct Flow {
    started: AtomicU64,
    weight: AtomicU64,
}

/// A flow and the number of its members.
type Members = (Arc<Flow>, usize);

/// The flows of this process by id.
static FLOWS: Mutex<Option<HashMap<u32, Members>>> = Mutex::new(None);

/// One thread's membership of a flow.
pub struct FlowGate {
    flow: Arc<Flow>,
    id: u32,
    weight: u64,
    /// I/Os this thread has started.
    own: u64,
    /// How long to wait when over its share.
    pub sleep_ns: u64,
}

impl FlowGate {
    /// Join flow `id` with `weight` (more than 0).
    pub fn join(id: u32, weight: u64, sleep_ns: u64) -> FlowGate {
        let mut flows = FLOWS.lock().unwrap_or_else(|e| e.into_inner());
        let (flow, members) = flows
            .get_or_insert_with(HashMap::new)
            .entry(id)
            .or_insert_with(|| {
                let f = Flow::default();
                // fio's flow counter starts at 1: the first I/O's ratio is then 0, below any share.
                f.started.store(1, Ordering::Relaxed);
                (Arc::new(f), 0)
            });
        *members += 1;
        flow.weight.fetch_add(weight, Ordering::Relaxed);
        FlowGate {
            flow: flow.clone(),
            id,
            weight,
            own: 0,
            sleep_ns,
        }
    }

    /// Whether this thread may start an I/O now; if so, the I/O is counted.
    #[inline]
    pub fn admit(&mut self) -> bool {
        let started = self.flow.started.load(Ordering::Relaxed).max(1) as f64;
        let total = self.flow.weight.load(Ordering::Relaxed).max(1) as f64;
        if self.own as f64 / started > self.weight as f64 / total {
            return false;
        }
        self.flow.started.fetch_add(1, Ordering::Relaxed);
        self.own += 1;
        true
    }
}

impl Drop for FlowGate {
    fn drop(&mut self) {
        self.flow.started.fetch_sub(self.own, Ordering::Relaxed);
        self.flow.weight.fetch_sub(self.weight, Ordering::Relaxed);
        let mut flows = FLOWS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(map) = flows.as_mut() {
            if let Some((_, members)) = map.get_mut(&self.id) {
                *members -= 1;
                if *members == 0 {
                    map.remove(&self.id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two members of weights 1 and 8 that ask in turn start I/Os 1 to 8; once the heavier
    /// one leaves, the other is never held back. (Flow ids here are this test's own: other
    /// tests of the process may use theirs at the same time.)
    #[test]
    fn members_start_ios_in_proportion_to_their_weights() {
        let mut light = FlowGate::join(9001, 1, 0);
        let mut heavy = FlowGate::join(9001, 8, 0);
        let (mut a, mut b) = (0u64, 0u64);
        for _ in 0..90_000 {
            a += light.admit() as u64;
            b += heavy.admit() as u64;
        }
        let ratio = b as f64 / a as f64;
        assert!((ratio - 8.0).abs() < 0.1, "{b} to {a}: not 8 to 1");
        drop(heavy);
        let before = a;
        for _ in 0..1000 {
            a += light.admit() as u64;
        }
        assert_eq!(a - before, 1000, "alone in its flow, a member always goes");
    }

    #[test]
    fn a_flow_is_forgotten_when_its_last_member_leaves() {
        let g = FlowGate::join(9002, 3, 0);
        drop(g);
        let flows = FLOWS.lock().unwrap();
        assert!(!flows.as_ref().is_some_and(|m| m.contains_key(&9002)));
    }
}
