//! A small, fast, seedable random generator (xoshiro256++ seeded through SplitMix64).
//!
//! Our own rather than a crate's so that `--seed N` gives the same offset sequence in every
//! iogauge version: a reproducible workload must not change when a dependency is updated.

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator for one stream; `streams` tell apart the threads and targets of one seed.
    pub fn new(seed: u64, streams: &[u64]) -> Self {
        let mut x = seed;
        for &s in streams {
            x = splitmix64(&mut x) ^ s.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        }
        let mut s = [0u64; 4];
        for v in &mut s {
            *v = splitmix64(&mut x);
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in 0..n (n > 0), without modulo bias worth measuring (Lemire's multiply-shift).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Fill a buffer with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        let mut chunks = buf.chunks_exact_mut(8);
        for c in &mut chunks {
            c.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = chunks.into_remainder();
        let last = self.next_u64().to_le_bytes();
        rest.copy_from_slice(&last[..rest.len()]);
    }
}

/// Fill a write buffer: random bytes, with the last `compress_pct`% of every 512 bytes zeroed
/// so that the data compresses by about that share.
pub fn fill_buffer(buf: &mut [u8], rng: &mut Rng, compress_pct: u8) {
    const CHUNK: usize = 512;
    if compress_pct >= 100 {
        buf.fill(0);
        return;
    }
    rng.fill(buf);
    if compress_pct > 0 {
        let random = CHUNK * (100 - compress_pct as usize) / 100;
        for chunk in buf.chunks_mut(CHUNK) {
            let keep = random.min(chunk.len());
            chunk[keep..].fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_other_stream_other_sequence() {
        let a: Vec<u64> = (0..8)
            .scan(Rng::new(7, &[0, 1]), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..8)
            .scan(Rng::new(7, &[0, 1]), |r, _| Some(r.next_u64()))
            .collect();
        let c: Vec<u64> = (0..8)
            .scan(Rng::new(7, &[0, 2]), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::new(1, &[]);
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            let v = r.below(10);
            counts[v as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        let u = r.unit();
        assert!((0.0..1.0).contains(&u));
    }
}
