//! Latency histograms and the summaries made from them.
//!
//! Every latency is recorded into an HDR histogram of identical configuration (1 ns lowest
//! discernible value, two hours highest, 3 significant digits), so histograms from any thread,
//! target or interval merge exactly: a merged percentile equals the percentile of all values.

pub mod cpu;
pub mod fio_bins;
pub mod flat;
pub mod phases;
pub mod reps;
pub mod spread;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest trackable latency. Longer values are clamped to it and counted in `clamped`.
pub const MAX_LATENCY_NS: u64 = 2 * 3600 * 1_000_000_000;
const SIGNIFICANT_DIGITS: u8 = 3;

/// The percentiles every report prints.
pub const PERCENTILES: [f64; 7] = [50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999];

/// A latency histogram that takes memory only once something is recorded in it: an HDR
/// histogram of our configuration is about 250 KB, and a job file of thousands of jobs makes
/// a dozen per job, most never used (flushes, submission latency, the delay engine's). While
/// empty, every read sees [`empty`], so an empty one counts, merges and serialises exactly as
/// an allocated empty one. Recording allocates once, on the first value; never after.
#[derive(Clone, Debug, Default)]
pub struct LatencyHistogram {
    h: Option<Box<Histogram<u64>>>,
}

/// A histogram of our configuration.
fn fresh() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_NS, SIGNIFICANT_DIGITS)
        .expect("static histogram bounds are valid")
}

/// The one empty histogram that every unallocated [`LatencyHistogram`] reads from.
fn empty() -> &'static Histogram<u64> {
    static EMPTY: std::sync::OnceLock<Histogram<u64>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(fresh)
}

impl LatencyHistogram {
    /// An empty histogram; allocates nothing until the first value.
    pub fn new() -> Self {
        LatencyHistogram { h: None }
    }

    /// Whether the HDR histogram behind it has been allocated (tests of the laziness).
    pub fn is_allocated(&self) -> bool {
        self.h.is_some()
    }

    fn hist(&self) -> &Histogram<u64> {
        self.h.as_deref().unwrap_or_else(|| empty())
    }

    /// The HDR histogram, allocated on first use.
    fn hist_mut(&mut self) -> &mut Histogram<u64> {
        self.h.get_or_insert_with(Self::allocate)
    }

    #[cold]
    fn allocate() -> Box<Histogram<u64>> {
        Box::new(fresh())
    }

    /// Record one latency; 0 ns (possible with a coarse clock) counts as 1 ns.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.hist_mut()
            .saturating_record(ns.clamp(1, MAX_LATENCY_NS));
    }

    /// Exact merge: both histograms share one configuration. Merging an empty one changes
    /// nothing and allocates nothing.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        let Some(o) = other.h.as_deref() else {
            return;
        };
        self.hist_mut()
            .add(o)
            .expect("histograms of one configuration always merge");
    }

    pub fn count(&self) -> u64 {
        self.hist().len()
    }

    pub fn value_at_percentile(&self, p: f64) -> u64 {
        self.hist().value_at_percentile(p)
    }

    /// The histogram in HdrHistogram's V2 format, deflated, as base64: compact, exact, and
    /// readable by any HdrHistogram library, so percentiles can be recomputed and histograms
    /// merged long after the run.
    pub fn to_base64(&self) -> String {
        use base64::Engine;
        use hdrhistogram::serialization::Serializer;
        let mut buf = Vec::new();
        hdrhistogram::serialization::V2DeflateSerializer::new()
            .serialize(self.hist(), &mut buf)
            .expect("serializing into memory cannot fail");
        base64::engine::general_purpose::STANDARD.encode(buf)
    }

    /// The inverse of [`Self::to_base64`]. Histograms of another configuration (from another
    /// tool) are re-recorded into ours, so merging stays exact for our own.
    pub fn from_base64(text: &str) -> Result<Self, String> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|e| format!("not base64: {e}"))?;
        let bytes = v2::checked(&bytes)?;
        let h: Histogram<u64> = hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .map_err(|e| format!("not an HdrHistogram: {e:?}"))?;
        let mut ours = LatencyHistogram::new();
        if h.low() == 1 && h.high() == MAX_LATENCY_NS && h.sigfig() == SIGNIFICANT_DIGITS {
            ours.h = Some(Box::new(h));
        } else {
            for v in h.iter_recorded() {
                ours.hist_mut().saturating_record_n(
                    v.value_iterated_to().clamp(1, MAX_LATENCY_NS),
                    v.count_at_value(),
                );
            }
        }
        Ok(ours)
    }

    /// Every recorded value (the highest value of its bucket) with its count, lowest first.
    pub fn recorded(&self) -> Vec<(u64, u64)> {
        self.hist()
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    }

    /// Latency at each of `points` evenly spaced "nines" (x = -log10(1 - p)), from the median
    /// to the maximum: the data of a percentile plot.
    pub fn nines_curve(&self, max_nines: f64, points: usize) -> Vec<(f64, u64)> {
        if self.hist().is_empty() {
            return Vec::new();
        }
        (0..=points)
            .map(|i| {
                let x = max_nines * i as f64 / points as f64;
                let p = 100.0 * (1.0 - 10f64.powf(-x));
                (x, self.hist().value_at_percentile(p))
            })
            .collect()
    }

    /// Counts in `bins` logarithmically spaced bins from the minimum to the maximum:
    /// (bin low ns, bin high ns, count).
    pub fn log_bins(&self, bins: usize) -> Vec<(u64, u64, u64)> {
        if self.hist().is_empty() || bins == 0 {
            return Vec::new();
        }
        let lo = (self.hist().min().max(1) as f64).ln();
        let hi = ((self.hist().max() + 1) as f64).ln();
        let edge = |i: usize| (lo + (hi - lo) * i as f64 / bins as f64).exp().round() as u64;
        let mut out: Vec<(u64, u64, u64)> = (0..bins).map(|i| (edge(i), edge(i + 1), 0)).collect();
        for v in self.hist().iter_recorded() {
            let x = (v.value_iterated_to().max(1) as f64).ln();
            let i = (((x - lo) / (hi - lo)) * bins as f64)
                .floor()
                .clamp(0.0, (bins - 1) as f64);
            out[i as usize].2 += v.count_at_value();
        }
        out
    }

    pub fn summary(&self) -> Option<LatencySummary> {
        if self.hist().is_empty() {
            return None;
        }
        Some(LatencySummary {
            min_ns: self.hist().min(),
            mean_ns: self.hist().mean(),
            stdev_ns: self.hist().stdev(),
            max_ns: self.hist().max(),
            percentiles: PERCENTILES
                .iter()
                .map(|&p| Percentile {
                    percentile: p,
                    ns: self.hist().value_at_percentile(p),
                })
                .collect(),
        })
    }
}

/// HdrHistogram's V2 serial form, checked before the hdrhistogram crate reads it: the crate
/// trusts the lengths it is given (a header can make it allocate 4 GiB) and negates a count
/// that may be i64::MIN (a panic in a build with overflow checks). Histograms come from result
/// files, which may be made by hand.
mod v2 {
    use std::io::Read;

    const COOKIE: u32 = 0x1c84_9313;
    const DEFLATED: u32 = 0x1c84_9314;
    /// cookie, payload length, normalizing offset, digits, lowest, highest, ratio.
    const HEADER: usize = 40;
    /// Far more than any histogram of ours takes inflated (about 0.5 MB).
    const MAX_BYTES: u64 = 64 << 20;

    fn u32_at(b: &[u8], at: usize) -> Option<u32> {
        Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
    }

    /// `bytes` uncompressed, with a payload that is all there and has no count of i64::MIN.
    pub fn checked(bytes: &[u8]) -> Result<Vec<u8>, String> {
        let plain = match u32_at(bytes, 0) {
            Some(DEFLATED) => inflate(bytes)?,
            Some(COOKIE) => bytes.to_vec(),
            _ => return Err("not an HdrHistogram: unknown cookie".into()),
        };
        let len = u32_at(&plain, 4).ok_or("not an HdrHistogram: truncated header")? as usize;
        let payload = plain
            .get(HEADER..)
            .filter(|p| p.len() >= len)
            .ok_or_else(|| format!("not an HdrHistogram: its payload of {len} bytes is cut"))?;
        counts_fit(&payload[..len])?;
        Ok(plain)
    }

    /// The deflated form's inner document, at most [`MAX_BYTES`].
    fn inflate(bytes: &[u8]) -> Result<Vec<u8>, String> {
        let len = u32_at(bytes, 4).ok_or("not an HdrHistogram: truncated header")? as usize;
        let deflated = bytes
            .get(8..8 + len)
            .unwrap_or(&bytes[8.min(bytes.len())..]);
        let mut plain = Vec::new();
        flate2::read::ZlibDecoder::new(deflated)
            .take(MAX_BYTES + 1)
            .read_to_end(&mut plain)
            .map_err(|e| format!("not an HdrHistogram: {e}"))?;
        if plain.len() as u64 > MAX_BYTES {
            return Err(format!(
                "not an HdrHistogram: inflates past {MAX_BYTES} bytes"
            ));
        }
        Ok(plain)
    }

    /// Each LEB128 number of the payload (the 9th byte whole), zig-zag encoded: u64::MAX
    /// stands for i64::MIN, which the crate cannot negate.
    fn counts_fit(payload: &[u8]) -> Result<(), String> {
        let mut value = 0u64;
        let mut n = 0;
        for &b in payload {
            value |= if n == 8 {
                u64::from(b) << 56
            } else {
                u64::from(b & 0x7f) << (7 * n)
            };
            n += 1;
            if n == 9 || b & 0x80 == 0 {
                if value == u64::MAX {
                    return Err("not an HdrHistogram: a count out of range".into());
                }
                (value, n) = (0, 0);
            }
        }
        Ok(())
    }
}

/// Latencies of one interval, for the time series' per-interval percentiles only: 2 significant
/// digits (within 1%) and 32-bit counts make it about 16 times smaller than
/// [`LatencyHistogram`], so many intervals can wait in the collector without memory growing.
/// Totals never come from these.
#[derive(Clone, Debug)]
pub struct IntervalHistogram {
    h: Histogram<u32>,
}

impl Default for IntervalHistogram {
    fn default() -> Self {
        IntervalHistogram {
            h: Histogram::new_with_bounds(1, MAX_LATENCY_NS, 2)
                .expect("static histogram bounds are valid"),
        }
    }
}

impl IntervalHistogram {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.h.saturating_record(ns.clamp(1, MAX_LATENCY_NS));
    }
    pub fn merge(&mut self, other: &IntervalHistogram) {
        self.h
            .add(&other.h)
            .expect("histograms of one configuration always merge");
    }
    pub fn reset(&mut self) {
        self.h.reset();
    }
    pub fn value_at_percentile(&self, p: f64) -> u64 {
        self.h.value_at_percentile(p)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Percentile {
    pub percentile: f64,
    pub ns: u64,
}

/// Latency of one direction of one thread, target or run. Values are the histogram's: within
/// 0.1% of the exact value (3 significant digits), exact below 2048 ns.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    pub min_ns: u64,
    pub mean_ns: f64,
    pub stdev_ns: f64,
    pub max_ns: u64,
    pub percentiles: Vec<Percentile>,
}

impl LatencySummary {
    pub fn at(&self, p: f64) -> Option<u64> {
        self.percentiles
            .iter()
            .find(|x| x.percentile == p)
            .map(|x| x.ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn merging_is_exact() {
        // Three "threads" with different latency ranges; the merged histogram must give the
        // same percentiles as one histogram that saw every value.
        let mut rng = Rng::new(5, &[]);
        let mut all = LatencyHistogram::new();
        let mut parts = vec![LatencyHistogram::new(); 3];
        for i in 0..300_000u64 {
            let part = (i % 3) as usize;
            let v = 1 + rng.below(1_000 * 10u64.pow(part as u32 + 1));
            parts[part].record(v);
            all.record(v);
        }
        let mut merged = LatencyHistogram::new();
        for p in &parts {
            merged.merge(p);
        }
        assert_eq!(merged.count(), 300_000);
        assert_eq!(merged.summary(), all.summary());
    }

    #[test]
    fn percentiles_are_within_the_stated_precision() {
        let mut h = LatencyHistogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 10);
        }
        let s = h.summary().unwrap();
        let p99 = s.at(99.0).unwrap() as f64;
        assert!((p99 / 990_000.0 - 1.0).abs() < 0.001, "{p99}");
        assert_eq!(s.min_ns, 10);
        assert!((s.mean_ns / 500_005.0 - 1.0).abs() < 0.001);
    }

    #[test]
    fn serialized_histograms_merge_exactly() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        let mut all = LatencyHistogram::new();
        for v in 1..=50_000u64 {
            a.record(v * 7);
            b.record(v * 300);
            all.record(v * 7);
            all.record(v * 300);
        }
        let mut merged = LatencyHistogram::from_base64(&a.to_base64()).unwrap();
        merged.merge(&LatencyHistogram::from_base64(&b.to_base64()).unwrap());
        assert_eq!(merged.summary(), all.summary());
        assert!(LatencyHistogram::from_base64("not a histogram").is_err());
        let bins = all.log_bins(40);
        assert_eq!(bins.iter().map(|b| b.2).sum::<u64>(), 100_000);
        let curve = all.nines_curve(3.0, 30);
        assert_eq!(curve[0].1, all.value_at_percentile(0.0));
        assert!(curve.windows(2).all(|w| w[0].1 <= w[1].1));
    }

    /// Histogram documents made by hand: a length past the data, a count of i64::MIN, an
    /// inflated size past the limit. Each is an error, not a panic or a 4 GiB allocation.
    #[test]
    fn crafted_histograms_are_errors() {
        use base64::Engine;
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let header = |len: u32| {
            let mut h = 0x1c84_9313u32.to_be_bytes().to_vec();
            h.extend(len.to_be_bytes());
            h.extend(0u32.to_be_bytes());
            h.extend(3u32.to_be_bytes());
            h.extend(1u64.to_be_bytes());
            h.extend(MAX_LATENCY_NS.to_be_bytes());
            h.extend(1f64.to_be_bytes());
            h
        };
        let mut huge = header(u32::MAX);
        huge.extend([2, 2]);
        let mut min_count = header(9);
        min_count.extend([0xff; 9]);
        for (doc, says) in [
            (huge, "payload of 4294967295 bytes is cut"),
            (min_count, "a count out of range"),
            (vec![0x1c, 0x84], "unknown cookie"),
        ] {
            let e = LatencyHistogram::from_base64(&b64(&doc)).unwrap_err();
            assert!(e.contains(says), "{e}");
        }
        let mut ok = header(2);
        ok.extend([2, 0]);
        assert_eq!(LatencyHistogram::from_base64(&b64(&ok)).unwrap().count(), 1);
    }

    /// The serial form of an allocated empty histogram of our configuration: what every
    /// empty histogram wrote before histograms were allocated lazily.
    fn allocated_empty_base64() -> String {
        use base64::Engine;
        use hdrhistogram::serialization::Serializer;
        let mut buf = Vec::new();
        hdrhistogram::serialization::V2DeflateSerializer::new()
            .serialize(&fresh(), &mut buf)
            .unwrap();
        base64::engine::general_purpose::STANDARD.encode(buf)
    }

    #[test]
    fn an_empty_histogram_allocates_nothing_and_reads_as_empty() {
        let h = LatencyHistogram::new();
        assert!(!h.is_allocated());
        assert!(!LatencyHistogram::default().is_allocated());
        assert_eq!(h.count(), 0);
        assert_eq!(h.summary(), None);
        assert_eq!(
            h.value_at_percentile(99.0),
            fresh().value_at_percentile(99.0)
        );
        assert!(h.recorded().is_empty());
        assert!(h.nines_curve(3.0, 30).is_empty());
        assert!(h.log_bins(10).is_empty());
        assert_eq!(h.to_base64(), allocated_empty_base64());
        let back = LatencyHistogram::from_base64(&h.to_base64()).unwrap();
        assert_eq!((back.count(), back.summary()), (0, None));
        assert!(!h.clone().is_allocated());
    }

    #[test]
    fn the_first_record_allocates_once() {
        let mut h = LatencyHistogram::new();
        h.record(1_000);
        assert!(h.is_allocated());
        let at = h.h.as_deref().map(|x| x as *const Histogram<u64>);
        h.record(2_000);
        h.record(MAX_LATENCY_NS);
        assert_eq!(h.h.as_deref().map(|x| x as *const Histogram<u64>), at);
        assert_eq!(h.count(), 3);
        assert_eq!(h.summary().unwrap().min_ns, 1_000);
    }

    #[test]
    fn merging_empty_and_full_histograms() {
        let mut full = LatencyHistogram::new();
        for v in 1..=10_000u64 {
            full.record(v * 13);
        }
        let (sum, b64) = (full.summary(), full.to_base64());
        // empty into empty: still empty, still nothing allocated
        let mut empty = LatencyHistogram::new();
        empty.merge(&LatencyHistogram::new());
        assert!(!empty.is_allocated());
        assert_eq!(empty.to_base64(), allocated_empty_base64());
        // empty into full: unchanged
        full.merge(&LatencyHistogram::new());
        assert_eq!(
            (full.summary(), full.to_base64()),
            (sum.clone(), b64.clone())
        );
        // full into empty: the same histogram
        empty.merge(&full);
        assert!(empty.is_allocated());
        assert_eq!((empty.summary(), empty.to_base64()), (sum, b64));
    }

    #[test]
    fn extremes_are_clamped_not_lost() {
        let mut h = LatencyHistogram::new();
        h.record(0);
        h.record(u64::MAX);
        assert_eq!(h.count(), 2);
        assert_eq!(h.summary().unwrap().min_ns, 1);
        assert!(h.summary().unwrap().max_ns >= MAX_LATENCY_NS);
    }
}
