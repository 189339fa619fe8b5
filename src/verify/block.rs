//! What a verified unit holds: a 64-byte header (who wrote it, where, which generation, the
//! checksum of the content after it and of the header itself), then content that can be made
//! again from the header alone, so a mismatch can name the first byte that differs.
//!
//! ```text
//!  0 magic "IOGV"      4 unit length     8 offset in the target   16 writer's write sequence
//! 24 run seed         32 target          36 thread                 40 generation  42 slot
//! 44 unit's index in its buffer          46 flags                  48 content XXH3-64
//! 56 header checksum (of the seven words 0..56, see [`words_sum`])
//! ```
//!
//! Content is [`fill_content`] of (seed, thread, slot, epoch): a writing thread's buffer for a
//! slot is filled once (epoch 0) and only its headers change from write to write, so a write
//! costs a header and no checksum of its content (precomputed per unit); with buffers refilled
//! before each write the epoch is the write's sequence number and the checksum is computed.

use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

/// Bytes of header at the start of every unit.
pub const HEADER: usize = 64;
pub const MAGIC: [u8; 4] = *b"IOGV";
/// Generations run 1..=MAX_GEN and wrap; 0 means unknown (never written with verification,
/// or a write that failed).
pub const MAX_GEN: u16 = 0x7fff;
/// The writer of a laid-out file (not a thread of the run).
pub const LAYOUT: u32 = u32::MAX;
/// Flag: the content was refilled for this write (epoch = seq).
pub const REFILLED: u16 = 1;
const CONTENT_STREAM: u64 = 0x5645_5249_4659; // "VERIFY"

/// The next generation after `g`.
#[inline]
pub fn next_gen(g: u16) -> u16 {
    if g >= MAX_GEN {
        1
    } else {
        g + 1
    }
}

/// How `found` stands to `expected`: 0 the same, positive newer, negative older (by how many
/// writes, modulo the wrap; half the cycle each way).
pub fn gen_distance(found: u16, expected: u16) -> i32 {
    let n = i32::from(MAX_GEN);
    let d = (i32::from(found) - i32::from(expected)).rem_euclid(n);
    if d > n / 2 {
        d - n
    } else {
        d
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub unit_len: u32,
    pub offset: u64,
    pub seq: u64,
    pub seed: u64,
    pub target: u32,
    pub thread: u32,
    pub gen: u16,
    pub slot: u16,
    pub index: u16,
    pub flags: u16,
    pub content: u64,
}

/// Why the first bytes of a unit are not a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadHeader {
    /// No magic: never written with verification (zeros, another program's data).
    Missing,
    /// The magic is there but the header's own checksum fails: a torn or corrupted header.
    Torn,
}

/// A checksum of the header's seven little-endian words: four independent 64x64->128-bit
/// multiplies folded, then mixed. Computed from the values, not from bytes just stored (which
/// the processor cannot forward to wider loads at once): a header costs a few nanoseconds.
#[inline]
pub fn words_sum(w: &[u64; 7]) -> u64 {
    const K: [u64; 8] = [
        0x9e37_79b9_7f4a_7c15,
        0xc2b2_ae3d_27d4_eb4f,
        0x1656_6791_9e37_79f9,
        0x85eb_ca77_c2b2_ae63,
        0x27d4_eb2f_1656_67c5,
        0x94d0_49bb_1331_11eb,
        0xbf58_476d_1ce4_e5b9,
        0x2545_f491_4f6c_dd1d,
    ];
    let mum = |a: u64, b: u64| {
        let r = u128::from(a) * u128::from(b);
        (r as u64) ^ ((r >> 64) as u64)
    };
    let h = mum(w[0] ^ K[0], w[1] ^ K[1])
        ^ mum(w[2] ^ K[2], w[3] ^ K[3])
        ^ mum(w[4] ^ K[4], w[5] ^ K[5])
        ^ mum(w[6] ^ K[6], K[7]);
    let h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 29)
}

impl Header {
    /// The header as seven words, in the order they lie.
    #[inline]
    fn words(&self) -> [u64; 7] {
        [
            u64::from(u32::from_le_bytes(MAGIC)) | u64::from(self.unit_len) << 32,
            self.offset,
            self.seq,
            self.seed,
            u64::from(self.target) | u64::from(self.thread) << 32,
            u64::from(self.gen)
                | u64::from(self.slot) << 16
                | u64::from(self.index) << 32
                | u64::from(self.flags) << 48,
            self.content,
        ]
    }

    /// Write the header into the first [`HEADER`] bytes of `unit`.
    #[inline]
    pub fn put(&self, unit: &mut [u8]) {
        let w = self.words();
        let sum = words_sum(&w);
        let h = &mut unit[..HEADER];
        for (i, v) in w.iter().chain(std::iter::once(&sum)).enumerate() {
            h[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
    }

    /// The header at the start of `unit`.
    pub fn get(unit: &[u8]) -> Result<Header, BadHeader> {
        let h = &unit[..HEADER];
        if h[0..4] != MAGIC {
            return Err(BadHeader::Missing);
        }
        let word = |i: usize| u64::from_le_bytes(h[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        let w: [u64; 7] = std::array::from_fn(word);
        if words_sum(&w) != word(7) {
            return Err(BadHeader::Torn);
        }
        Ok(Header {
            unit_len: (w[0] >> 32) as u32,
            offset: w[1],
            seq: w[2],
            seed: w[3],
            target: w[4] as u32,
            thread: (w[4] >> 32) as u32,
            gen: w[5] as u16,
            slot: (w[5] >> 16) as u16,
            index: (w[5] >> 32) as u16,
            flags: (w[5] >> 48) as u16,
            content: w[6],
        })
    }

    /// The epoch its content was made in.
    pub fn epoch(&self) -> u64 {
        if self.flags & REFILLED != 0 {
            self.seq
        } else {
            0
        }
    }
}

/// Fill `buf` (a writing thread's buffer for one slot) with the content of (seed, thread,
/// slot, epoch): random bytes, the last `compress_pct`% of every 512 zeroed, as every
/// iogauge write buffer is.
pub fn fill_content(
    buf: &mut [u8],
    seed: u64,
    thread: u32,
    slot: u16,
    epoch: u64,
    compress_pct: u8,
) {
    let mut rng = Rng::new(
        seed,
        &[CONTENT_STREAM, u64::from(thread), u64::from(slot), epoch],
    );
    crate::rng::fill_buffer(buf, &mut rng, compress_pct);
}

/// The checksum a unit's header carries of its content.
#[inline]
pub fn content_sum(unit: &[u8]) -> u64 {
    xxh3_64(&unit[HEADER..])
}

/// What one unit read back was found to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Finding {
    Ok,
    /// No header: never written with verification, or zeros where a write should be.
    NoHeader,
    /// A header that fails its own checksum: torn or corrupted.
    TornHeader,
    /// A good header of another place or run: `fields` names what differs (a misdirected
    /// write, another test's data).
    Foreign {
        fields: Vec<String>,
    },
    /// A good header of an older generation than the last write acknowledged: a lost write
    /// (the device kept the old version), or a stale read.
    Stale {
        expected: u16,
        found: u16,
    },
    /// A newer generation than any written (only where the expected one is exact).
    Newer {
        expected: u16,
        found: u16,
    },
    /// The header is right and the content is not: corruption after it was written.
    Corrupt,
}

impl Finding {
    pub fn is_ok(&self) -> bool {
        matches!(self, Finding::Ok)
    }

    /// A short name, for counts and scripts.
    pub fn name(&self) -> &'static str {
        match self {
            Finding::Ok => "ok",
            Finding::NoHeader => "no_header",
            Finding::TornHeader => "torn_header",
            Finding::Foreign { .. } => "foreign",
            Finding::Stale { .. } => "stale",
            Finding::Newer { .. } => "newer",
            Finding::Corrupt => "corrupt",
        }
    }
}

/// Where a unit is and what it must be.
#[derive(Debug, Clone, Copy)]
pub struct Expect {
    pub seed: u64,
    pub target: u32,
    pub offset: u64,
    pub unit_len: u32,
    /// The generation of the last write acknowledged.
    pub gen: u16,
    /// `gen` is the least the unit may hold, not the exact one: after a crash, writes after
    /// the last flush may or may not be there.
    pub at_least: bool,
}

/// Check one unit read back.
pub fn check(unit: &[u8], e: &Expect) -> (Finding, Option<Header>) {
    let h = match Header::get(unit) {
        Ok(h) => h,
        Err(BadHeader::Missing) => return (Finding::NoHeader, None),
        Err(BadHeader::Torn) => return (Finding::TornHeader, None),
    };
    let mut fields = Vec::new();
    if h.seed != e.seed {
        fields.push("seed".to_string());
    }
    if h.target != e.target {
        fields.push("target".to_string());
    }
    if h.offset != e.offset {
        fields.push("offset".to_string());
    }
    if h.unit_len != e.unit_len {
        fields.push("unit length".to_string());
    }
    if !fields.is_empty() {
        return (Finding::Foreign { fields }, Some(h));
    }
    let d = gen_distance(h.gen, e.gen);
    if d < 0 {
        return (
            Finding::Stale {
                expected: e.gen,
                found: h.gen,
            },
            Some(h),
        );
    }
    if d > 0 && !e.at_least {
        return (
            Finding::Newer {
                expected: e.gen,
                found: h.gen,
            },
            Some(h),
        );
    }
    if content_sum(unit) != h.content {
        return (Finding::Corrupt, Some(h));
    }
    (Finding::Ok, Some(h))
}

/// The content the header says `unit` should have (made again), and the first byte of the
/// whole unit at which `unit` differs from it; `unit_len` the buffer's units.
pub fn first_difference(unit: &[u8], h: &Header, compress_pct: u8) -> Option<usize> {
    let len = unit.len();
    let mut buf = vec![0u8; (usize::from(h.index) + 1) * len];
    fill_content(&mut buf, h.seed, h.thread, h.slot, h.epoch(), compress_pct);
    let expected = &buf[usize::from(h.index) * len..];
    unit[HEADER..]
        .iter()
        .zip(&expected[HEADER..])
        .position(|(a, b)| a != b)
        .map(|p| p + HEADER)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(gen: u16) -> Header {
        Header {
            unit_len: 4096,
            offset: 8192,
            seq: 7,
            seed: 42,
            target: 1,
            thread: 3,
            gen,
            slot: 2,
            index: 1,
            flags: 0,
            content: 0,
        }
    }

    /// Unit 1 of slot 2's buffer of thread 3, written as generation `gen`.
    fn written(gen: u16) -> Vec<u8> {
        let mut buf = vec![0u8; 2 * 4096];
        fill_content(&mut buf, 42, 3, 2, 0, 0);
        let mut unit = buf[4096..].to_vec();
        let mut h = header(gen);
        h.content = content_sum(&unit);
        h.put(&mut unit);
        unit
    }

    fn expect(gen: u16) -> Expect {
        Expect {
            seed: 42,
            target: 1,
            offset: 8192,
            unit_len: 4096,
            gen,
            at_least: false,
        }
    }

    #[test]
    fn a_unit_reads_back_as_written() {
        let u = written(5);
        let (f, h) = check(&u, &expect(5));
        assert_eq!(f, Finding::Ok);
        assert_eq!(h.unwrap().seq, 7);
    }

    #[test]
    fn every_kind_of_fault_is_named() {
        assert_eq!(check(&vec![0u8; 4096], &expect(5)).0, Finding::NoHeader);
        let mut torn = written(5);
        torn[20] ^= 1;
        assert_eq!(check(&torn, &expect(5)).0, Finding::TornHeader);
        let (f, _) = check(&written(4), &expect(5));
        assert_eq!(
            f,
            Finding::Stale {
                expected: 5,
                found: 4
            }
        );
        let (f, _) = check(&written(6), &expect(5));
        assert_eq!(
            f,
            Finding::Newer {
                expected: 5,
                found: 6
            }
        );
        let after_crash = Expect {
            at_least: true,
            ..expect(5)
        };
        assert_eq!(check(&written(6), &after_crash).0, Finding::Ok);
        assert!(matches!(
            check(&written(4), &after_crash).0,
            Finding::Stale { .. }
        ));
        let mut moved = expect(5);
        moved.offset = 12288;
        let (f, _) = check(&written(5), &moved);
        assert_eq!(
            f,
            Finding::Foreign {
                fields: vec!["offset".into()]
            }
        );
        let mut flipped = written(5);
        flipped[1000] ^= 0x40;
        let (f, h) = check(&flipped, &expect(5));
        assert_eq!(f, Finding::Corrupt);
        assert_eq!(first_difference(&flipped, &h.unwrap(), 0), Some(1000));
    }

    #[test]
    fn generations_wrap_and_compare_across_the_wrap() {
        assert_eq!(next_gen(MAX_GEN), 1);
        assert_eq!(gen_distance(1, MAX_GEN), 1);
        assert_eq!(gen_distance(MAX_GEN, 1), -1);
        assert_eq!(gen_distance(10, 12), -2);
    }
}
