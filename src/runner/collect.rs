//! The collector: on the main thread, merges what workers send at each interval boundary into
//! the run's time series. Totals are kept by the workers themselves; the collector only builds
//! per-interval figures, so if it falls behind, the totals are unaffected.

use super::worker::{HistPool, IntervalDir, IntervalMsg};
use crate::stats::spread::LatencySpread;
use crate::stats::IntervalHistogram;

/// One finished interval of the whole run, kept compact (216 bytes): a day at 1 s is 19 MB.
#[derive(Clone, Copy, Default, Debug)]
pub struct SampleRec {
    pub ios: [u64; 3],
    /// Bytes, not ios times the block size: block sizes may vary per I/O.
    pub bytes: [u64; 3],
    pub mean_ns: [u64; 3],
    pub p99_ns: [u64; 3],
    /// Queued to completed, exactly (latency mode only).
    pub total: [LatencySpread; 3],
}

struct Pending {
    index: u64,
    ios: [u64; 3],
    bytes: [u64; 3],
    lat_sum: [u64; 3],
    hist: [IntervalHistogram; 3],
    total: [LatencySpread; 3],
}

pub struct Collector {
    last_index: Vec<Option<u64>>,
    done: Vec<bool>,
    /// Intervals some worker has not reported yet, oldest first.
    pending: Vec<Pending>,
    /// Cleared histograms for new pending intervals: no allocation per interval.
    spare: Vec<IntervalHistogram>,
    pub samples: Vec<SampleRec>,
    /// Each worker's own intervals, where asked for (DiskSpd's -D per target): one record per
    /// worker and interval, so only kept when a report needs them.
    pub per_worker: Option<Vec<Vec<SampleRec>>>,
}

impl Collector {
    /// `per_worker`: keep each worker's intervals too.
    pub fn new(workers: usize, per_worker: bool) -> Self {
        Collector {
            last_index: vec![None; workers],
            done: vec![false; workers],
            pending: Vec::new(),
            spare: Vec::new(),
            samples: Vec::new(),
            per_worker: per_worker.then(|| vec![Vec::new(); workers]),
        }
    }

    pub fn workers(&self) -> usize {
        self.done.len()
    }

    pub fn all_done(&self) -> bool {
        self.done.iter().all(|&d| d)
    }

    fn new_pending(&mut self, index: u64) -> Pending {
        let mut h = || self.spare.pop().unwrap_or_default();
        Pending {
            index,
            ios: [0; 3],
            bytes: [0; 3],
            lat_sum: [0; 3],
            hist: [h(), h(), h()],
            total: Default::default(),
        }
    }

    pub fn add(&mut self, msg: IntervalMsg, pool: &HistPool) {
        let w = msg.worker;
        if let Some(series) = self.per_worker.as_mut() {
            keep_worker_interval(&mut series[w], msg.index, &msg.dirs);
        }
        let pos = match self.pending.iter().position(|p| p.index >= msg.index) {
            Some(i) if self.pending[i].index == msg.index => i,
            Some(i) => {
                let p = self.new_pending(msg.index);
                self.pending.insert(i, p);
                i
            }
            None => {
                let p = self.new_pending(msg.index);
                self.pending.push(p);
                self.pending.len() - 1
            }
        };
        let p = &mut self.pending[pos];
        let mut recycled = Vec::with_capacity(3);
        for (d, mut dir) in msg.dirs.into_iter().enumerate() {
            // An unused direction's histogram is still clear: no merge, no reset.
            p.ios[d] += dir.ios;
            p.bytes[d] += dir.bytes;
            p.lat_sum[d] += dir.lat_sum_ns;
            p.total[d].merge(&dir.total);
            if let Some(mut h) = dir.hist.take() {
                if dir.ios > 0 {
                    p.hist[d].merge(&h);
                    h.reset();
                }
                recycled.push(h);
            }
        }
        if let Ok(mut pool) = pool.lock() {
            pool.extend(recycled);
        }
        self.last_index[w] = Some(msg.index);
        self.finish_complete();
    }

    pub fn worker_done(&mut self, w: usize) {
        self.done[w] = true;
        self.finish_complete();
    }

    /// Turn into samples the intervals every running worker has moved past.
    fn finish_complete(&mut self) {
        let horizon = self
            .last_index
            .iter()
            .zip(&self.done)
            .filter(|(_, &d)| !d)
            .map(|(i, _)| i.map(|i| i as i64).unwrap_or(-1))
            .min();
        while let Some(first) = self.pending.first() {
            if let Some(h) = horizon {
                if first.index as i64 > h {
                    break;
                }
            }
            let mut p = self.pending.remove(0);
            let idx = p.index as usize;
            if self.samples.len() <= idx {
                self.samples.resize(idx + 1, SampleRec::default());
            }
            let s = &mut self.samples[idx];
            for d in 0..3 {
                s.ios[d] = p.ios[d];
                s.bytes[d] = p.bytes[d];
                s.total[d] = p.total[d];
                // Latency mode only: in IOPS mode nothing was timed.
                if p.lat_sum[d] > 0 {
                    s.mean_ns[d] = p.lat_sum[d] / p.ios[d].max(1);
                    s.p99_ns[d] = p.hist[d].value_at_percentile(99.0);
                    p.hist[d].reset();
                }
            }
            self.spare.extend(p.hist);
        }
    }
}

/// A worker's interval `index` as a record of its own (its histogram read before the merge).
fn keep_worker_interval(series: &mut Vec<SampleRec>, index: u64, dirs: &[IntervalDir; 3]) {
    let idx = index as usize;
    if series.len() <= idx {
        series.resize(idx + 1, SampleRec::default());
    }
    let s = &mut series[idx];
    for (d, dir) in dirs.iter().enumerate() {
        s.ios[d] = dir.ios;
        s.bytes[d] = dir.bytes;
        s.total[d] = dir.total;
        if dir.lat_sum_ns > 0 {
            s.mean_ns[d] = dir.lat_sum_ns / dir.ios.max(1);
            s.p99_ns[d] = dir.hist.as_ref().map_or(0, |h| h.value_at_percentile(99.0));
        }
    }
}
