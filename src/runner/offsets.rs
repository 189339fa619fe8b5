//! Offset generators: where each I/O of a thread lands in the working set.
//!
//! Every offset is in `[base, end - block]` and is `base` plus a multiple of the alignment
//! (random) or stride (sequential), so direct I/O stays aligned when the inputs are.

use crate::rng::Rng;
use crate::spec::slots::{random_slots, zone_layout};
use crate::spec::{Distribution, FileService, Pattern};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub enum OffsetGen {
    Random {
        base: u64,
        align: u64,
        slots: u64,
        sampler: Sampler,
        /// Percent of I/Os (0..99) that follow the I/O before instead (--random-pct).
        follow_pct: u64,
        /// I/Os per random offset (--random-every): the others of a run follow the one before.
        run: u64,
        left: u64,
        /// Where the I/O before ended, and the end of the working set.
        cursor: u64,
        end: u64,
    },
    /// Each I/O starts where the one before ended (block-size mixes read sequentially).
    Contiguous { base: u64, end: u64, cursor: u64 },
    Sequential {
        /// `base` plus the thread's phase within a stride (DiskSpd's -T).
        base: u64,
        stride: u64,
        positions: u64,
        next: u64,
    },
    /// Each I/O `stride` before the one before, from `cursor` down; below `base` it goes on
    /// from `wrap` (fio's `rw=read:-8k`: where it would have gone, counted back from the
    /// end).
    Backwards {
        base: u64,
        stride: u64,
        wrap: u64,
        cursor: u64,
    },
    /// fio's zonemode=strided: `cursor` runs through the zone from `zone`, back to its start
    /// at its end; after `zones.size` bytes the next zone, `range + skip` on. Random I/O
    /// (`align` > 0) draws each offset within the zone instead, in steps of `align`.
    Strided {
        base: u64,
        end: u64,
        zones: crate::spec::StridedZones,
        zone: u64,
        cursor: u64,
        done: u64,
        align: u64,
    },
    /// Threads of one target share the counter (DiskSpd's -si).
    Interlocked {
        base: u64,
        stride: u64,
        positions: u64,
        shared: Arc<AtomicU64>,
    },
}

/// Which of a thread's files its next I/O goes to (see [`FileService`]). Each file keeps its
/// own [`OffsetGen`], so a sequential walk goes on in a file where it left off.
pub struct FilePick {
    service: FileService,
    files: u32,
    cur: u32,
    /// I/Os (round robin, random) or bytes (sequential) before the next switch.
    left: u64,
    /// Each file's working set in bytes (sequential).
    sets: Vec<u64>,
}

impl FilePick {
    pub fn new(service: FileService, sets: Vec<u64>) -> Self {
        let left = match service {
            FileService::RoundRobin { every } => every as u64,
            // Drawn at the first I/O.
            FileService::Random { .. } => 0,
            FileService::Sequential => sets[0],
            FileService::Slots => 0,
        };
        FilePick {
            service,
            files: sets.len() as u32,
            cur: 0,
            left,
            sets,
        }
    }

    /// The file of an I/O of `len` bytes in `slot`.
    #[inline]
    pub fn next(&mut self, rng: &mut Rng, slot: u32, len: u64) -> u32 {
        match self.service {
            FileService::RoundRobin { every } => {
                if self.left == 0 {
                    self.cur = (self.cur + 1) % self.files;
                    self.left = every as u64;
                }
                self.left -= 1;
            }
            FileService::Random { every } => {
                if self.left == 0 {
                    self.cur = rng.below(self.files as u64) as u32;
                    self.left = every as u64;
                }
                self.left -= 1;
            }
            FileService::Sequential => {
                if self.left == 0 {
                    self.cur = (self.cur + 1) % self.files;
                    self.left = self.sets[self.cur as usize];
                }
                self.left = self.left.saturating_sub(len);
            }
            FileService::Slots => return slot % self.files,
        }
        self.cur
    }
}

/// How one thread walks its working set, beyond the pattern.
#[derive(Clone, Copy, Default)]
pub struct Walk {
    /// See [`crate::spec::JobSpec::random_pct`].
    pub random_pct: Option<u8>,
    /// See [`crate::spec::JobSpec::random_every`].
    pub random_every: Option<u32>,
    /// Block sizes vary: sequential I/O follows each I/O's own length.
    pub mixed: bool,
    /// Sequential I/O begins this far into the working set, and wraps to this offset modulo
    /// the stride (DiskSpd's -T: threads interleave).
    pub start: u64,
    /// Sequential I/O in zones (fio's zonemode=strided).
    pub zones: Option<crate::spec::StridedZones>,
}

impl OffsetGen {
    /// `base..end` is the working set and `block` the largest I/O; `shared` is the target's
    /// counter for interlocked I/O.
    pub fn new(
        pattern: &Pattern,
        base: u64,
        end: u64,
        block: u64,
        shared: &Arc<AtomicU64>,
        walk: Walk,
    ) -> Self {
        let Walk {
            random_pct,
            random_every,
            mixed,
            start,
            zones,
        } = walk;
        debug_assert!(end >= base + block);
        let span = end - base - block;
        if let Some(zones) = zones {
            return OffsetGen::Strided {
                base,
                end,
                zones,
                zone: base,
                cursor: base,
                done: 0,
                // Random I/O draws within the zone; sequential I/O walks it.
                align: match pattern {
                    Pattern::Random { align_bytes, .. } => (*align_bytes).max(1),
                    Pattern::Sequential { .. } => 0,
                },
            };
        }
        match pattern {
            &Pattern::Random {
                align_bytes,
                ref distribution,
            } => {
                let slots = random_slots(end - base, block, align_bytes);
                OffsetGen::Random {
                    base,
                    align: align_bytes,
                    slots,
                    sampler: Sampler::new(distribution, slots, align_bytes, end - base),
                    follow_pct: 100 - random_pct.unwrap_or(100).min(100) as u64,
                    run: random_every.unwrap_or(1).max(1) as u64,
                    left: 0,
                    cursor: base,
                    end,
                }
            }
            Pattern::Sequential { .. } if mixed => OffsetGen::Contiguous {
                base,
                end,
                cursor: if start <= span { base + start } else { base },
            },
            &Pattern::Sequential {
                stride_bytes,
                backwards: true,
                ..
            } => OffsetGen::Backwards {
                base,
                stride: stride_bytes,
                // fio: the end plus its (negative) skip, which is -(stride + block).
                wrap: (end - block).saturating_sub(stride_bytes).max(base),
                cursor: base + start.min(span),
            },
            &Pattern::Sequential {
                stride_bytes,
                interlocked,
                ..
            } => {
                let positions = span / stride_bytes + 1;
                if interlocked {
                    OffsetGen::Interlocked {
                        base,
                        stride: stride_bytes,
                        positions,
                        shared: shared.clone(),
                    }
                } else {
                    let phase = (start % stride_bytes).min(span);
                    let positions = (span - phase) / stride_bytes + 1;
                    OffsetGen::Sequential {
                        base: base + phase,
                        stride: stride_bytes,
                        positions,
                        next: (start / stride_bytes) % positions,
                    }
                }
            }
        }
    }

    /// The offset of the next I/O, `len` bytes long (at most the `block` given to `new`).
    #[inline]
    pub fn next(&mut self, rng: &mut Rng, len: u64) -> u64 {
        match self {
            OffsetGen::Random {
                base,
                align,
                slots,
                sampler,
                follow_pct: 0,
                run: 1,
                ..
            } => *base + sampler.sample(rng, *slots) * *align,
            OffsetGen::Random {
                base,
                align,
                slots,
                sampler,
                follow_pct,
                run,
                left,
                cursor,
                end,
            } => {
                let follow = if *run > 1 {
                    // fio's rw=randread:N: a random offset, then N-1 I/Os after it.
                    let f = *left > 0;
                    *left = if f { *left - 1 } else { *run - 1 };
                    f
                } else {
                    rng.below(100) < *follow_pct
                };
                let off = if follow {
                    if *cursor + len <= *end {
                        *cursor
                    } else {
                        *base
                    }
                } else {
                    *base + sampler.sample(rng, *slots) * *align
                };
                *cursor = off + len;
                off
            }
            OffsetGen::Contiguous { base, end, cursor } => {
                let off = if *cursor + len <= *end {
                    *cursor
                } else {
                    *base
                };
                *cursor = off + len;
                off
            }
            OffsetGen::Sequential {
                base,
                stride,
                positions,
                next,
            } => {
                let off = *base + *next * *stride;
                *next += 1;
                if *next == *positions {
                    *next = 0;
                }
                off
            }
            OffsetGen::Backwards {
                base,
                stride,
                wrap,
                cursor,
            } => {
                let off = *cursor;
                *cursor = match off.checked_sub(*stride) {
                    Some(c) if c >= *base => c,
                    _ => *wrap,
                };
                off
            }
            OffsetGen::Strided {
                base,
                end,
                zones,
                zone,
                cursor,
                done,
                align,
            } => {
                // As fio 3.33's setup_strided_zone_mode, before each I/O.
                if *done >= zones.size {
                    *done = 0;
                    *zone += zones.range + zones.skip;
                    if *zone >= *end {
                        *zone = *base;
                    }
                    *cursor = *zone;
                }
                // fio draws a random block of the zone's range (io_u.c, last_block).
                let room = (*zone + zones.range).min(*end) - *zone;
                if let Some(steps) = room.saturating_sub(len).checked_div(*align) {
                    *done += len;
                    return (*zone + rng.below(steps + 1) * *align).min(*end - len);
                }
                if *cursor >= *zone + zones.range || *cursor + len > *end {
                    *cursor = *zone;
                }
                let off = *cursor;
                *cursor += len;
                *done += len;
                off
            }
            OffsetGen::Interlocked {
                base,
                stride,
                positions,
                shared,
            } => {
                let n = shared.fetch_add(1, Ordering::Relaxed);
                *base + (n % *positions) * *stride
            }
        }
    }
}

/// Draws a slot index in `0..slots` from a distribution.
pub enum Sampler {
    Uniform,
    Zipf(Zipf),
    /// `exponent` = ln(h) / ln(1-h): a fraction h of the slots gets 1-h of the draws.
    Pareto {
        exponent: f64,
        scatter: Scatter,
    },
    /// (cumulative I/O share, first slot, slots) per zone; a share drawn below `total`.
    Zoned {
        zones: Vec<(u64, u64, u64)>,
        total: u64,
    },
}

impl Sampler {
    /// `slots` positions `align` apart over a working set of `len` bytes.
    fn new(dist: &Distribution, slots: u64, align: u64, len: u64) -> Self {
        match *dist {
            Distribution::Uniform => Sampler::Uniform,
            Distribution::Zipf { theta } => Sampler::Zipf(Zipf::new(slots, theta)),
            Distribution::Pareto { h } => Sampler::Pareto {
                exponent: h.ln() / (1.0 - h).ln(),
                scatter: Scatter::new(slots),
            },
            Distribution::Zoned {
                absolute,
                ref zones,
            } => {
                let mut out = Vec::new();
                let mut total = 0u64;
                for z in zone_layout(absolute, zones, slots, align, len) {
                    total += z.io_pct as u64;
                    out.push((total, z.first, z.slots));
                }
                if total == 0 {
                    // Every zone with I/O lay past the end of the working set.
                    return Sampler::Uniform;
                }
                Sampler::Zoned { zones: out, total }
            }
        }
    }

    #[inline]
    fn sample(&mut self, rng: &mut Rng, slots: u64) -> u64 {
        match self {
            Sampler::Uniform => rng.below(slots),
            Sampler::Zipf(z) => z.scatter.map(z.sample(rng) - 1),
            Sampler::Pareto { exponent, scatter } => {
                let rank = (slots as f64 * rng.unit().powf(*exponent)) as u64;
                scatter.map(rank.min(slots - 1))
            }
            Sampler::Zoned { zones, total } => {
                let r = rng.below(*total);
                let &(_, first, n) = zones
                    .iter()
                    .find(|z| r < z.0)
                    .unwrap_or(&zones[zones.len() - 1]);
                first + rng.below(n)
            }
        }
    }
}

/// Spreads hot ranks over the whole working set (rank * P mod n, P prime and coprime to n),
/// so that the hottest blocks are not all at the start of the file. A bijection on 0..n.
pub struct Scatter {
    n: u64,
    p: u64,
}

impl Scatter {
    fn new(n: u64) -> Self {
        const PRIMES: [u64; 3] = [2_147_483_647, 1_000_000_007, 998_244_353];
        let p = PRIMES
            .iter()
            .copied()
            .find(|p| !n.is_multiple_of(*p))
            .unwrap_or(1);
        Scatter { n, p: p % n.max(1) }
    }
    #[inline]
    fn map(&self, rank: u64) -> u64 {
        ((rank as u128 * self.p as u128) % self.n as u128) as u64
    }
}

/// Zipf over ranks 1..=n by rejection-inversion (Hörmann and Derflinger, 1996): constant time
/// per draw and no table, so a distribution over billions of blocks costs nothing to set up.
pub struct Zipf {
    n: f64,
    s: f64,
    h_int_x1: f64,
    h_int_n: f64,
    cut: f64,
    scatter: Scatter,
}

impl Zipf {
    pub fn new(n: u64, s: f64) -> Self {
        let mut z = Zipf {
            n: n as f64,
            s,
            h_int_x1: 0.0,
            h_int_n: 0.0,
            cut: 0.0,
            scatter: Scatter::new(n),
        };
        z.h_int_x1 = z.h_integral(1.5) - 1.0;
        z.h_int_n = z.h_integral(z.n + 0.5);
        z.cut = 2.0 - z.h_integral_inv(z.h_integral(2.5) - z.h(2.0));
        z
    }

    /// h(x) = x^-s, the unnormalised density.
    fn h(&self, x: f64) -> f64 {
        (-self.s * x.ln()).exp()
    }

    /// H(x) = integral of h: (x^(1-s) - 1) / (1-s), or ln x when s = 1, computed stably.
    fn h_integral(&self, x: f64) -> f64 {
        let lx = x.ln();
        expm1_over_x((1.0 - self.s) * lx) * lx
    }

    fn h_integral_inv(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.s)).max(-1.0);
        (log1p_over_x(t) * x).exp()
    }

    /// A rank in 1..=n; rank 1 is the most frequent, rank k has weight k^-s.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let u = self.h_int_n + rng.unit() * (self.h_int_x1 - self.h_int_n);
            let x = self.h_integral_inv(u);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.cut || u >= self.h_integral(k + 0.5) - self.h(k) {
                return k as u64;
            }
        }
    }
}

/// expm1(x)/x, continuous at 0.
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0)
    }
}

/// ln(1+x)/x, continuous at 0.
fn log1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x / 3.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(pattern: Pattern, base: u64, end: u64, block: u64) -> OffsetGen {
        OffsetGen::new(
            &pattern,
            base,
            end,
            block,
            &Arc::new(AtomicU64::new(0)),
            Walk::default(),
        )
    }

    /// Zones get their shares of the I/O, uniformly within each; an absolute zone past the
    /// working set is cut off and the others keep their proportions.
    #[test]
    fn zoned_distributions_put_each_share_in_its_zone() {
        use crate::spec::Zone;
        let block = 4096;
        let share = |dist: Distribution, blocks: u64, upto: u64| -> f64 {
            let mut g = gen(
                Pattern::Random {
                    align_bytes: block,
                    distribution: dist,
                },
                0,
                blocks * block,
                block,
            );
            let mut rng = Rng::new(9, &[]);
            let n = 100_000;
            let hits = (0..n)
                .filter(|_| g.next(&mut rng, block) < upto * block)
                .count();
            hits as f64 / n as f64
        };
        let z = |io_pct, span| Zone { io_pct, span };
        // 90% of the I/O in the first 10% of 1000 blocks.
        let pct = Distribution::Zoned {
            absolute: false,
            zones: vec![z(90, 10), z(10, 90)],
        };
        assert!((share(pct.clone(), 1000, 100) - 0.9).abs() < 0.01);
        // Spans short of 100%: nothing past them. Half of the I/O in 20 blocks, half in 30.
        let short = Distribution::Zoned {
            absolute: false,
            zones: vec![z(50, 20), z(50, 30)],
        };
        assert!((share(short.clone(), 100, 20) - 0.5).abs() < 0.01);
        assert_eq!(share(short, 100, 50), 1.0);
        // A hole (0%) gets nothing.
        let hole = Distribution::Zoned {
            absolute: false,
            zones: vec![z(0, 50), z(100, 50)],
        };
        assert_eq!(share(hole, 100, 50), 0.0);
        // Absolute: 60% in the first 10 blocks, 40% in the rest (span 0).
        let abs = Distribution::Zoned {
            absolute: true,
            zones: vec![z(60, 10 * block), z(40, 0)],
        };
        assert!((share(abs, 100, 10) - 0.6).abs() < 0.01);
        // Past the end: a 100-block working set keeps the first zone only.
        let cut = Distribution::Zoned {
            absolute: true,
            zones: vec![z(30, 100 * block), z(70, 1000 * block)],
        };
        assert_eq!(share(cut, 100, 100), 1.0);
    }

    /// Which file each I/O goes to, for every file service.
    #[test]
    fn files_take_turns_as_the_service_says() {
        let mut rng = Rng::new(5, &[]);
        let mut seq = |service, sets: Vec<u64>, n: usize, len: u64| -> Vec<u32> {
            let mut p = FilePick::new(service, sets);
            (0..n).map(|i| p.next(&mut rng, i as u32, len)).collect()
        };
        let rr = seq(FileService::RoundRobin { every: 2 }, vec![1; 3], 8, 1);
        assert_eq!(rr, [0, 0, 1, 1, 2, 2, 0, 0]);
        let rr = seq(FileService::RoundRobin { every: 1 }, vec![1; 2], 4, 1);
        assert_eq!(rr, [0, 1, 0, 1]);
        // Sequential: a file's working set (here 3 I/Os of 4 KiB, then 2), then the next.
        let sq = seq(FileService::Sequential, vec![12288, 8192], 7, 4096);
        assert_eq!(sq, [0, 0, 0, 1, 1, 0, 0]);
        // Slots: each slot keeps its file.
        let sl = seq(FileService::Slots, vec![1; 3], 6, 1);
        assert_eq!(sl, [0, 1, 2, 0, 1, 2]);
        // Random: each file about equally often; runs of `every` on one file.
        let rnd = seq(FileService::Random { every: 1 }, vec![1; 4], 40_000, 1);
        for f in 0..4 {
            let share = rnd.iter().filter(|&&x| x == f).count() as f64 / 40_000.0;
            assert!((share - 0.25).abs() < 0.01, "file {f}: {share}");
        }
        let runs = seq(FileService::Random { every: 4 }, vec![1; 4], 400, 1);
        assert!(runs.chunks(4).all(|c| c.iter().all(|&x| x == c[0])));
        assert!(runs.chunks(4).any(|c| c[0] != runs[0]));
    }

    /// Draw `n` offsets and count how often each block (offset / block) was hit.
    fn histogram(g: &mut OffsetGen, n: usize, blocks: usize, block: u64) -> Vec<u64> {
        let mut rng = Rng::new(42, &[]);
        let mut counts = vec![0u64; blocks];
        for _ in 0..n {
            counts[(g.next(&mut rng, block) / block) as usize] += 1;
        }
        counts
    }

    #[test]
    fn random_offsets_stay_in_range_aligned_and_cover_the_set() {
        let (base, end, block, align) = (8192u64, 8192 + 1_000 * 4096 + 100, 4096u64, 512u64);
        let mut g = gen(
            Pattern::Random {
                align_bytes: align,
                distribution: Distribution::Uniform,
            },
            base,
            end,
            block,
        );
        let mut rng = Rng::new(3, &[]);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200_000 {
            let off = g.next(&mut rng, block);
            assert!(off >= base && off + block <= end, "{off}");
            assert_eq!((off - base) % align, 0);
            seen.insert(off);
        }
        // Every aligned position is reachable: (end - base - block) / align + 1 of them.
        assert_eq!(seen.len() as u64, (end - base - block) / align + 1);
    }

    #[test]
    fn sequential_walks_and_wraps() {
        let mut g = gen(
            Pattern::Sequential {
                stride_bytes: 4096,
                interlocked: false,
                backwards: false,
            },
            4096,
            4096 * 5,
            4096,
        );
        let mut rng = Rng::new(0, &[]);
        let offs: Vec<u64> = (0..6).map(|_| g.next(&mut rng, 4096)).collect();
        assert_eq!(offs, [4096, 8192, 12288, 16384, 4096, 8192]);
        // A stride larger than the block skips; the last I/O still fits.
        let mut g = gen(
            Pattern::Sequential {
                stride_bytes: 8192,
                interlocked: false,
                backwards: false,
            },
            0,
            20480,
            4096,
        );
        let offs: Vec<u64> = (0..4).map(|_| g.next(&mut rng, 4096)).collect();
        assert_eq!(offs, [0, 8192, 16384, 0]);
    }

    /// fio 3.33 with size=64k bs=4k rw=read:-8k reads at 0, then 56k, 52k, ... 4k, 0, and
    /// 56k again (seen with fio's --debug=io): where the I/O would have gone below the
    /// start, it goes on from the end less the stride and the block.
    #[test]
    fn backwards_walks_down_and_wraps_as_fio() {
        let mut g = gen(
            Pattern::Sequential {
                stride_bytes: 4096,
                interlocked: false,
                backwards: true,
            },
            0,
            65536,
            4096,
        );
        let mut rng = Rng::new(0, &[]);
        let offs: Vec<u64> = (0..17).map(|_| g.next(&mut rng, 4096) / 1024).collect();
        assert_eq!(
            offs,
            [0, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0, 56]
        );
    }

    #[test]
    fn mixed_sizes_walk_without_gaps_and_wrap_before_the_end() {
        let p = Pattern::Sequential {
            stride_bytes: 16384,
            interlocked: false,
            backwards: false,
        };
        let mut g = OffsetGen::new(
            &p,
            4096,
            4096 + 40960,
            16384,
            &Arc::new(AtomicU64::new(0)),
            Walk {
                mixed: true,
                ..Walk::default()
            },
        );
        let mut rng = Rng::new(0, &[]);
        let lens = [4096u64, 16384, 8192, 16384, 4096, 8192];
        let offs: Vec<u64> = lens.iter().map(|&l| g.next(&mut rng, l)).collect();
        // 4096+4096+16384+8192 = 32768; the next 16k would pass the end (45056): wrap.
        assert_eq!(offs, [4096, 8192, 24576, 4096, 20480, 24576]);
    }

    /// fio's zonemode=strided, zonesize=2 blocks, zoneskip=3 blocks over 12 blocks: blocks
    /// 0,1 then 5,6 then 10,11, then from the start again; a zone larger than its range
    /// (zonesize 3, zonerange 2) goes round its range again.
    #[test]
    fn strided_zones_as_fio_walks_them() {
        let p = Pattern::Sequential {
            stride_bytes: 4096,
            interlocked: false,
            backwards: false,
        };
        let blocks = |size: u64, range: u64, skip: u64, n: usize| -> Vec<u64> {
            let zones = crate::spec::StridedZones {
                size: size * 4096,
                range: range * 4096,
                skip: skip * 4096,
            };
            let walk = Walk {
                zones: Some(zones),
                ..Walk::default()
            };
            let shared = Arc::new(AtomicU64::new(0));
            let mut g = OffsetGen::new(&p, 0, 12 * 4096, 4096, &shared, walk);
            let mut rng = Rng::new(0, &[]);
            (0..n).map(|_| g.next(&mut rng, 4096) / 4096).collect()
        };
        assert_eq!(blocks(2, 2, 3, 8), [0, 1, 5, 6, 10, 11, 0, 1]);
        assert_eq!(blocks(3, 2, 3, 7), [0, 1, 0, 5, 6, 5, 10]);
    }

    /// Random I/O in strided zones (zonesize 4 blocks, zonerange 3, zoneskip 2 over 20
    /// blocks): the first 4 I/Os anywhere in blocks 0..3, the next 4 in 5..8, then 10..13,
    /// 15..18, and the first zone again.
    #[test]
    fn random_io_in_strided_zones_stays_in_each_zone_for_its_size() {
        let p = Pattern::Random {
            align_bytes: 4096,
            distribution: crate::spec::Distribution::Uniform,
        };
        let walk = Walk {
            zones: Some(crate::spec::StridedZones {
                size: 4 * 4096,
                range: 3 * 4096,
                skip: 2 * 4096,
            }),
            ..Walk::default()
        };
        let shared = Arc::new(AtomicU64::new(0));
        let mut g = OffsetGen::new(&p, 0, 20 * 4096, 4096, &shared, walk);
        let mut rng = Rng::new(7, &[]);
        let mut seen = std::collections::HashSet::new();
        for round in 0..50 {
            for zone in [0, 5, 10, 15] {
                for _ in 0..4 {
                    let b = g.next(&mut rng, 4096) / 4096;
                    assert!(
                        (zone..zone + 3).contains(&b),
                        "round {round}: {b} not in {zone}.."
                    );
                    seen.insert(b);
                }
            }
        }
        // Every block of every zone's range is drawn.
        assert_eq!(seen.len(), 12);
    }

    /// DiskSpd's -T1b -s8b with 8 threads: thread k reads blocks k, k+8, k+16... and wraps to
    /// block k, so that together the threads read the file in order.
    #[test]
    fn thread_starts_interleave_sequential_threads() {
        let p = Pattern::Sequential {
            stride_bytes: 8 * 4096,
            interlocked: false,
            backwards: false,
        };
        let shared = Arc::new(AtomicU64::new(0));
        let mut rng = Rng::new(0, &[]);
        let (base, end) = (4096, 4096 + 20 * 4096);
        let mut seen = Vec::new();
        for k in 0..8u64 {
            let walk = Walk {
                start: k * 4096,
                ..Walk::default()
            };
            let mut g = OffsetGen::new(&p, base, end, 4096, &shared, walk);
            let offs: Vec<u64> = (0..4)
                .map(|_| (g.next(&mut rng, 4096) - base) / 4096)
                .collect();
            // 20 blocks: thread k has blocks k, k+8 (and k+16 where k < 4), then wraps.
            let want: Vec<u64> = if k < 4 {
                vec![k, k + 8, k + 16, k]
            } else {
                vec![k, k + 8, k, k + 8]
            };
            assert_eq!(offs, want, "thread {k}");
            seen.extend(offs);
        }
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, (0..20).collect::<Vec<_>>(), "every block read");
    }

    #[test]
    fn random_every_n_ios_runs_sequentially_between() {
        let p = Pattern::Random {
            align_bytes: 4096,
            distribution: Distribution::Uniform,
        };
        let walk = Walk {
            random_every: Some(4),
            ..Walk::default()
        };
        let mut g = OffsetGen::new(&p, 0, 1 << 30, 4096, &Arc::new(AtomicU64::new(0)), walk);
        let mut rng = Rng::new(2, &[]);
        let offs: Vec<u64> = (0..400).map(|_| g.next(&mut rng, 4096)).collect();
        for run in offs.chunks(4) {
            // Each run of 4: a random offset, then the three blocks after it (a run that
            // would pass the end starts again at the base).
            for w in run.windows(2) {
                assert!(w[1] == w[0] + 4096 || w[1] == 0, "{run:?}");
            }
        }
        let starts: std::collections::HashSet<u64> = offs.chunks(4).map(|r| r[0]).collect();
        assert!(starts.len() > 95, "new random offsets: {}", starts.len());
    }

    #[test]
    fn partly_random_io_follows_the_one_before() {
        let p = Pattern::Random {
            align_bytes: 4096,
            distribution: Distribution::Uniform,
        };
        let blocks = 1u64 << 20;
        let mut g = OffsetGen::new(
            &p,
            0,
            blocks * 4096,
            4096,
            &Arc::new(AtomicU64::new(0)),
            Walk {
                random_pct: Some(30),
                ..Walk::default()
            },
        );
        let mut rng = Rng::new(5, &[]);
        let n = 100_000;
        let mut prev_end = u64::MAX;
        let mut followed = 0;
        for _ in 0..n {
            let off = g.next(&mut rng, 4096);
            assert!(off.is_multiple_of(4096) && off + 4096 <= blocks * 4096);
            if off == prev_end {
                followed += 1;
            }
            prev_end = off + 4096;
        }
        // 70% follow; a random draw lands on the next block one time in a million.
        let share = followed as f64 / n as f64;
        assert!((share - 0.7).abs() < 0.01, "{share}");
    }

    #[test]
    fn interlocked_threads_share_one_sequence() {
        let shared = Arc::new(AtomicU64::new(0));
        let p = Pattern::Sequential {
            stride_bytes: 4096,
            interlocked: true,
            backwards: false,
        };
        let mut a = OffsetGen::new(&p, 0, 4096 * 4, 4096, &shared, Walk::default());
        let mut b = OffsetGen::new(&p, 0, 4096 * 4, 4096, &shared, Walk::default());
        let mut rng = Rng::new(0, &[]);
        let offs = [
            a.next(&mut rng, 4096),
            b.next(&mut rng, 4096),
            a.next(&mut rng, 4096),
            b.next(&mut rng, 4096),
            a.next(&mut rng, 4096),
        ];
        assert_eq!(offs, [0, 4096, 8192, 12288, 0]);
    }

    #[test]
    fn zipf_has_the_power_law_shape() {
        let blocks = 1000;
        let theta = 1.2;
        let mut g = gen(
            Pattern::Random {
                align_bytes: 1,
                distribution: Distribution::Zipf { theta },
            },
            0,
            blocks as u64,
            1,
        );
        let mut counts = histogram(&mut g, 400_000, blocks, 1);
        counts.sort_unstable_by(|a, b| b.cmp(a));
        // Frequency of rank k is proportional to k^-theta.
        for k in [2usize, 3, 5] {
            let expect = (k as f64).powf(theta);
            let got = counts[0] as f64 / counts[k - 1] as f64;
            assert!(
                (got / expect - 1.0).abs() < 0.08,
                "rank {k}: ratio {got:.3}, expected {expect:.3}"
            );
        }
        // Share of the top rank: 1 / H(n, theta).
        let hn: f64 = (1..=blocks).map(|k| (k as f64).powf(-theta)).sum();
        let share = counts[0] as f64 / 400_000.0;
        assert!((share * hn - 1.0).abs() < 0.03, "top share {share}");
    }

    #[test]
    fn zipf_works_at_theta_one_and_below() {
        for theta in [1.0, 0.5] {
            let z = Zipf::new(100, theta);
            let mut rng = Rng::new(9, &[]);
            let mut c = [0u64; 101];
            for _ in 0..200_000 {
                c[z.sample(&mut rng) as usize] += 1;
            }
            let ratio = c[1] as f64 / c[4] as f64;
            let expect = 4f64.powf(theta);
            assert!(
                (ratio / expect - 1.0).abs() < 0.08,
                "theta {theta}: {ratio} vs {expect}"
            );
        }
    }

    #[test]
    fn pareto_sends_one_minus_h_of_the_io_to_h_of_the_blocks() {
        let blocks = 1000;
        let mut g = gen(
            Pattern::Random {
                align_bytes: 1,
                distribution: Distribution::Pareto { h: 0.2 },
            },
            0,
            blocks as u64,
            1,
        );
        let mut counts = histogram(&mut g, 200_000, blocks, 1);
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let hot: u64 = counts[..200].iter().sum();
        let share = hot as f64 / 200_000.0;
        assert!(
            (share - 0.8).abs() < 0.02,
            "top 20% of blocks got {share:.3}"
        );
    }

    #[test]
    fn scatter_is_a_bijection() {
        for n in [1u64, 7, 1000, 4096] {
            let s = Scatter::new(n);
            let mut seen: Vec<u64> = (0..n).map(|r| s.map(r)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>());
        }
    }
}
