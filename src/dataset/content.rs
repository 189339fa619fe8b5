//! File content that real compressors shrink by a chosen share, the way they shrink real
//! files: random literals (which nothing compresses) between copies of earlier bytes within
//! deflate's 32 KiB window (which every LZ compressor finds). Neither zeros nor one repeated
//! block: a compressor that special-cases those (zstd's RLE blocks, a file system's zero
//! detection) sees here what it sees in documents and source code.
//!
//! The share of bytes that are copies, `c`, is set from the asked saving `s`: a compressor
//! writes each literal as about a byte and each copy as a few bytes (length and distance),
//! so the output is about `(1 - c) + c * COPY_COST / mean copy length` of the input; `c`
//! is solved from that. The tests measure it with flate2 (deflate) and zstd.

use crate::rng::Rng;

/// deflate's window: the farthest back a copy may reach, so that deflate finds every one.
const WINDOW: usize = 32 << 10;
/// Copy lengths are uniform in this range (deflate's longest match is 258).
const COPY_MIN: usize = 128;
const COPY_MAX: usize = 384;
/// About what a copy costs in the compressed stream, in bytes (deflate: a length code and a
/// distance code with their extra bits; zstd: a sequence). Measured, see the tests.
const COPY_COST: f64 = 5.0;

/// A stream of one file's content; the same seed and stream give the same bytes.
pub struct Content {
    /// Lengths and distances.
    rng: Rng,
    /// Literal bytes, drawn 8 at a time; `spare` holds those drawn and not yet used, so that
    /// a run split between two chunks takes the same bytes as one that is not.
    bytes: Rng,
    spare: ([u8; 8], usize),
    /// Mean length of a literal run between copies (infinite: no copies at all).
    literal_mean: f64,
    /// The bytes produced so far that a copy may reach, then the chunk being produced.
    buf: Vec<u8>,
    /// Bytes of `buf` before the chunk being produced (history).
    kept: usize,
    /// A copy or literal run that ran past the end of the last chunk: what is left of it.
    pending: Pending,
}

/// What runs on from one chunk into the next, so that the bytes do not depend on how the
/// file is asked for.
#[derive(Clone, Copy)]
enum Pending {
    None,
    Literal(usize),
    Copy { dist: usize, left: usize },
}

impl Content {
    /// Content that compresses by about `saving` (0.0 to 0.99) of its size.
    pub fn new(seed: u64, stream: &[u64], saving: f64) -> Content {
        let mean_copy = (COPY_MIN + COPY_MAX) as f64 / 2.0;
        let copy_share = (saving / (1.0 - COPY_COST / mean_copy)).clamp(0.0, 0.995);
        // Literal bytes per copied byte, times the mean copy: the mean literal run.
        let literal_mean = match copy_share {
            c if c <= 0.0 => f64::INFINITY,
            c => mean_copy * (1.0 - c) / c,
        };
        let part = |k: u64| Rng::new(seed, &[stream, &[k]].concat());
        Content {
            rng: part(0),
            bytes: part(1),
            spare: ([0; 8], 0),
            literal_mean,
            buf: Vec::new(),
            kept: 0,
            pending: Pending::None,
        }
    }

    /// The next `n` bytes of the file.
    pub fn next_chunk(&mut self, n: usize) -> &[u8] {
        // Keep the last window of what came before, for copies to reach.
        let keep_from = self.buf.len().saturating_sub(WINDOW);
        self.buf.drain(..keep_from);
        self.kept = self.buf.len();
        let end = self.kept + n;
        self.buf.resize(end, 0);
        let mut at = self.kept;
        while at < end {
            at = self.step(at, end);
        }
        &self.buf[self.kept..end]
    }

    /// Produce a literal run or a copy from `at`, ending by `end`; where the next begins.
    fn step(&mut self, at: usize, end: usize) -> usize {
        let literal = match self.pending {
            Pending::Literal(n) => n,
            Pending::Copy { dist, left } => return self.copy(at, end, dist, left),
            Pending::None if at >= COPY_MAX && self.literal_mean.is_finite() => {
                let len = COPY_MIN + self.rng.below((COPY_MAX - COPY_MIN + 1) as u64) as usize;
                let reach = at.min(WINDOW);
                // Never overlapping itself: that would be one short block repeated.
                let dist = len + self.rng.below((reach - len + 1) as u64) as usize;
                return self.copy(at, end, dist, len);
            }
            Pending::None => self.literal_run().max(1),
        };
        let n = literal.min(end - at);
        self.literal_bytes(at, n);
        self.pending = match literal - n {
            0 => Pending::None,
            left => Pending::Literal(left),
        };
        at + n
    }

    /// `n` random bytes at `at`: the spare ones first, then fresh ones.
    fn literal_bytes(&mut self, at: usize, n: usize) {
        let (spare, have) = &mut self.spare;
        let from_spare = n.min(*have);
        self.buf[at..at + from_spare].copy_from_slice(&spare[8 - *have..8 - *have + from_spare]);
        *have -= from_spare;
        let rest = &mut self.buf[at + from_spare..at + n];
        let mut whole = rest.chunks_exact_mut(8);
        for c in &mut whole {
            c.copy_from_slice(&self.bytes.next_u64().to_le_bytes());
        }
        let tail = whole.into_remainder();
        if !tail.is_empty() {
            let fresh = self.bytes.next_u64().to_le_bytes();
            let k = tail.len();
            tail.copy_from_slice(&fresh[..k]);
            self.spare = (fresh, 8 - k);
        }
    }

    /// Copy `len` bytes from `dist` back to `at` (what fits before `end`); then a literal run.
    fn copy(&mut self, at: usize, end: usize, dist: usize, len: usize) -> usize {
        let n = len.min(end - at);
        self.buf.copy_within(at - dist..at - dist + n, at);
        self.pending = match len - n {
            0 => Pending::Literal(self.literal_run()),
            left => Pending::Copy { dist, left },
        };
        at + n
    }

    /// A literal run's length: geometric about the mean, so runs vary as in real files.
    fn literal_run(&mut self) -> usize {
        if !self.literal_mean.is_finite() {
            return usize::MAX / 2;
        }
        let u = self.rng.unit().max(1e-12);
        (-u.ln() * self.literal_mean) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn make(saving: f64, size: usize) -> Vec<u8> {
        let mut c = Content::new(7, &[1], saving);
        let mut out = Vec::new();
        while out.len() < size {
            let n = (size - out.len()).min(100_000);
            out.extend_from_slice(c.next_chunk(n));
        }
        out
    }

    fn deflate_saving(data: &[u8]) -> f64 {
        use std::io::Write;
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        e.write_all(data).unwrap();
        1.0 - e.finish().unwrap().len() as f64 / data.len() as f64
    }

    #[test]
    fn the_same_seed_gives_the_same_bytes_however_they_are_asked_for() {
        let whole = make(0.5, 300_000);
        let mut c = Content::new(7, &[1], 0.5);
        let mut parts = Vec::new();
        for n in [1, 4095, 70_000, 225_904] {
            parts.extend_from_slice(c.next_chunk(n));
        }
        assert_eq!(whole, parts);
        assert_ne!(whole, {
            let mut o = Content::new(7, &[2], 0.5);
            o.next_chunk(300_000).to_vec()
        });
    }

    #[test]
    fn deflate_and_zstd_compress_it_by_about_the_asked_share() {
        for pct in [0u32, 30, 50, 83, 95] {
            let data = make(f64::from(pct) / 100.0, 4 << 20);
            let deflate = 100.0 * deflate_saving(&data);
            let zstd = zstd::bulk::compress(&data, 3).unwrap();
            let zstd = 100.0 * (1.0 - zstd.len() as f64 / data.len() as f64);
            eprintln!("asked {pct}%: deflate {deflate:.1}%, zstd {zstd:.1}%");
            for (name, got) in [("deflate", deflate), ("zstd", zstd)] {
                assert!(
                    (got - f64::from(pct)).abs() < 3.0,
                    "asked {pct}%, {name} saved {got:.1}%"
                );
            }
        }
    }

    #[test]
    fn not_zeros_nor_a_repeated_block() {
        let data = make(0.9, 1 << 20);
        let zeros = data.iter().filter(|&&b| b == 0).count();
        // Random literals copied about: each byte value about as common as any other.
        assert!(
            zeros < data.len() / 128,
            "{zeros} zero bytes of {}",
            data.len()
        );
        let first = &data[..4096];
        let repeats = data.chunks(4096).filter(|c| *c == first).count();
        assert_eq!(repeats, 1);
    }
}
