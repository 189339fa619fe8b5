//! Latency histograms and the summaries made from them.
//!
//! Every latency is recorded into an HDR histogram of identical configuration (1 ns lowest
//! discernible value, two hours highest, 3 significant digits), so histograms from any thread,
//! target or interval merge exactly: a merged percentile equals the percentile of all values.

pub mod cpu;
pub mod fio_bins;
pub mod flat;
pub mod phases;
pub mod spread;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Highest trackable latency. Longer values are clamped to it and counted in `clamped`.
pub const MAX_LATENCY_NS: u64 = 2 * 3600 * 1_000_000_000;
const SIGNIFICANT_DIGITS: u8 = 3;

/// The percentiles every report prints.
pub const PERCENTILES: [f64; 7] = [50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999];

#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    h: Histogram<u64>,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    pub fn new() -> Self {
        let h = Histogram::new_with_bounds(1, MAX_LATENCY_NS, SIGNIFICANT_DIGITS)
            .expect("static histogram bounds are valid");
        LatencyHistogram { h }
    }

    /// Record one latency; 0 ns (possible with a coarse clock) counts as 1 ns.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.h.saturating_record(ns.clamp(1, MAX_LATENCY_NS));
    }

    /// Exact merge: both histograms share one configuration.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        self.h
            .add(&other.h)
            .expect("histograms of one configuration always merge");
    }

    pub fn count(&self) -> u64 {
        self.h.len()
    }

    pub fn value_at_percentile(&self, p: f64) -> u64 {
        self.h.value_at_percentile(p)
    }

    /// The histogram in HdrHistogram's V2 format, deflated, as base64: compact, exact, and
    /// readable by any HdrHistogram library, so percentiles can be recomputed and histograms
    /// merged long after the run.
    pub fn to_base64(&self) -> String {
        use base64::Engine;
        use hdrhistogram::serialization::Serializer;
        let mut buf = Vec::new();
        hdrhistogram::serialization::V2DeflateSerializer::new()
            .serialize(&self.h, &mut buf)
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
            ours.h = h;
        } else {
            for v in h.iter_recorded() {
                ours.h.saturating_record_n(
                    v.value_iterated_to().clamp(1, MAX_LATENCY_NS),
                    v.count_at_value(),
                );
            }
        }
        Ok(ours)
    }

    /// Every recorded value (the highest value of its bucket) with its count, lowest first.
    pub fn recorded(&self) -> Vec<(u64, u64)> {
        self.h
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    }

    /// Latency at each of `points` evenly spaced "nines" (x = -log10(1 - p)), from the median
    /// to the maximum: the data of a percentile plot.
    pub fn nines_curve(&self, max_nines: f64, points: usize) -> Vec<(f64, u64)> {
        if self.h.is_empty() {
            return Vec::new();
        }
        (0..=points)
            .map(|i| {
                let x = max_nines * i as f64 / points as f64;
                let p = 100.0 * (1.0 - 10f64.powf(-x));
                (x, self.h.value_at_percentile(p))
            })
            .collect()
    }

    /// Counts in `bins` logarithmically spaced bins from the minimum to the maximum:
    /// (bin low ns, bin high ns, count).
    pub fn log_bins(&self, bins: usize) -> Vec<(u64, u64, u64)> {
        if self.h.is_empty() || bins == 0 {
            return Vec::new();
        }
        let lo = (self.h.min().max(1) as f64).ln();
        let hi = ((self.h.max() + 1) as f64).ln();
        let edge = |i: usize| (lo + (hi - lo) * i as f64 / bins as f64).exp().round() as u64;
        let mut out: Vec<(u64, u64, u64)> = (0..bins).map(|i| (edge(i), edge(i + 1), 0)).collect();
        for v in self.h.iter_recorded() {
            let x = (v.value_iterated_to().max(1) as f64).ln();
            let i = (((x - lo) / (hi - lo)) * bins as f64)
                .floor()
                .clamp(0.0, (bins - 1) as f64);
            out[i as usize].2 += v.count_at_value();
        }
        out
    }

    pub fn summary(&self) -> Option<LatencySummary> {
        if self.h.is_empty() {
            return None;
        }
        Some(LatencySummary {
            min_ns: self.h.min(),
            mean_ns: self.h.mean(),
            stdev_ns: self.h.stdev(),
            max_ns: self.h.max(),
            percentiles: PERCENTILES
                .iter()
                .map(|&p| Percentile {
                    percentile: p,
                    ns: self.h.value_at_percentile(p),
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
