//! One pass of a sweep test over one file: the only code whose time is the measurement. The
//! loop makes one pread or pwrite per record, reads no clock and allocates nothing; the order
//! of the records is computed, not stored, so a pass over a file larger than memory needs no
//! memory of its own (a memory cgroup's limit is for the page cache, not for us).

use crate::os::RawHandle;
use crate::result::sweep::Test;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The order a pass visits the file's records in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Forward,
    Backward,
    /// Each record once, in an order drawn from the seed.
    Shuffled(u64),
    /// Record i * stride (mod records), the stride made coprime with the count so that each
    /// record is read once.
    Stride(u64),
    /// The first record, again and again (iozone's record rewrite).
    First,
}

/// How to open the file for a pass.
#[derive(Debug, Clone, Copy)]
pub struct Open {
    pub write: bool,
    /// A new file (the write test): it must not exist.
    pub create: bool,
    pub direct: bool,
    /// O_SYNC on writes (iozone -o).
    pub sync: bool,
}

/// What ended a pass early.
#[derive(Debug)]
pub enum Stop {
    Interrupted,
    Failed(io::Error),
}

impl Test {
    pub(super) fn order(self, seed: u64, stride: u64) -> Order {
        match self {
            Test::Write | Test::Rewrite | Test::Read | Test::Reread => Order::Forward,
            Test::RandomRead | Test::RandomWrite => Order::Shuffled(seed),
            Test::BackwardRead => Order::Backward,
            Test::RecordRewrite => Order::First,
            Test::StrideRead => Order::Stride(stride),
        }
    }
}

pub fn open(path: &Path, how: Open) -> io::Result<File> {
    let mut o = crate::os::file::pass_options(how.write, how.direct, how.sync);
    if how.create {
        o.create_new(true);
    }
    o.open(path)
}

/// What one pass does after its loop.
#[derive(Debug, Clone, Copy)]
pub struct Finish {
    /// fsync the file inside the timed part (iozone -e); writes only.
    pub flush: bool,
    /// close the file inside the timed part (iozone -c).
    pub close: bool,
}

/// What a pass moves: `size` bytes in records of `record` (the last one shorter where
/// `size` is not a multiple), in `order`.
#[derive(Debug, Clone, Copy)]
pub struct Walk {
    pub size: u64,
    pub record: u64,
    pub order: Order,
    pub write: bool,
}

/// One pass of `walk` over `file`; returns when the timed part started and ended.
pub fn pass(
    file: File,
    walk: Walk,
    finish: Finish,
    buf: &mut [u8],
    stop: &AtomicBool,
) -> Result<(Instant, Instant), Stop> {
    let Walk {
        size,
        record,
        order,
        write,
    } = walk;
    let n = size.div_ceil(record);
    let mut visit = Visit::new(order, n);
    let fd = crate::os::raw(&file);
    let t0 = Instant::now();
    for _ in 0..n {
        if stop.load(Ordering::Relaxed) {
            return Err(Stop::Interrupted);
        }
        let i = visit.next();
        let off = i * record;
        let len = record.min(size - off) as usize;
        full(fd, &mut buf[..len], off, write).map_err(Stop::Failed)?;
    }
    if finish.flush && write {
        file.sync_all().map_err(Stop::Failed)?;
    }
    if finish.close {
        crate::os::file::close_checked(file).map_err(Stop::Failed)?;
        return Ok((t0, Instant::now()));
    }
    let t1 = Instant::now();
    drop(file);
    Ok((t0, t1))
}

/// The most one call moves: a count the ports return as an i32.
const MOST_PER_CALL: usize = 1 << 30;

/// One record moved, retried where the system moved part of it.
fn full(fd: RawHandle, buf: &mut [u8], off: u64, write: bool) -> io::Result<()> {
    use crate::os::file::{read_at, write_at};
    let mut done = 0usize;
    while done < buf.len() {
        let rest = &mut buf[done..];
        let len = rest.len().min(MOST_PER_CALL) as u32;
        let at = off + done as u64;
        let n = if write {
            write_at(fd, rest.as_ptr(), len, at)
        } else {
            read_at(fd, rest.as_mut_ptr(), len, at)
        };
        match n {
            n if n > 0 => done += n as usize,
            0 if write => {
                return Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "a write moved no bytes",
                ))
            }
            0 => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file ended early",
                ))
            }
            code => return Err(io::Error::from_raw_os_error(-code)),
        }
    }
    Ok(())
}

/// The record indices of a pass, one at a time.
struct Visit {
    order: Order,
    n: u64,
    i: u64,
    /// For Shuffled: the power-of-two domain's mask and the seed; for Stride: the step
    /// (below n) and the record it is at.
    mask: u64,
    step: u64,
    at: u64,
}

impl Visit {
    fn new(order: Order, n: u64) -> Visit {
        let mask = n.max(2).next_power_of_two() - 1;
        let step = match order {
            Order::Stride(s) => coprime_step(s, n) % n.max(1),
            Order::Shuffled(seed) => seed,
            _ => 1,
        };
        Visit {
            order,
            n,
            i: 0,
            mask,
            step,
            at: 0,
        }
    }

    fn next(&mut self) -> u64 {
        let i = self.i;
        self.i += 1;
        match self.order {
            Order::Forward => i,
            Order::Backward => self.n - 1 - i,
            Order::First => 0,
            // i * step mod n, kept by adding: no division per record.
            Order::Stride(_) => {
                let at = self.at;
                self.at += self.step;
                if self.at >= self.n {
                    self.at -= self.n;
                }
                at
            }
            Order::Shuffled(_) => self.shuffled(i),
        }
    }

    /// A bijection of the power-of-two domain around n, walked until it lands below n
    /// (fewer than two steps on average): every record once, in no order readahead follows.
    fn shuffled(&self, i: u64) -> u64 {
        let mut x = i;
        loop {
            x = mix(x, self.step, self.mask);
            if x < self.n {
                return x;
            }
        }
    }
}

/// Odd multipliers and right xor-shifts are each invertible modulo a power of two, so this is
/// a permutation of 0..=mask.
fn mix(x: u64, seed: u64, mask: u64) -> u64 {
    let bits = mask.count_ones();
    let shift = (bits / 2).max(1);
    let mut x = (x ^ seed) & mask;
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15 | 1) & mask;
    x ^= x >> shift;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9 | 1) & mask;
    x ^= x >> shift;
    x
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The first step from `stride` up that is coprime with `n`.
fn coprime_step(stride: u64, n: u64) -> u64 {
    if n <= 1 {
        return 1;
    }
    let mut s = stride.max(1);
    while gcd(s % n, n) != 1 {
        s += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visits(order: Order, n: u64) -> Vec<u64> {
        let mut v = Visit::new(order, n);
        (0..n).map(|_| v.next()).collect()
    }

    #[test]
    fn every_order_but_first_visits_each_record_once() {
        for n in [1, 2, 3, 7, 16, 17, 100, 1000, 4096] {
            for order in [
                Order::Forward,
                Order::Backward,
                Order::Shuffled(42),
                Order::Stride(17),
            ] {
                let mut v = visits(order, n);
                v.sort_unstable();
                assert_eq!(v, (0..n).collect::<Vec<_>>(), "{order:?} over {n}");
            }
        }
        assert!(visits(Order::First, 5).iter().all(|&i| i == 0));
    }

    #[test]
    fn shuffled_is_not_sequential_and_stride_steps() {
        let v = visits(Order::Shuffled(7), 1000);
        let ascending = v.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(ascending < 50, "{ascending} sequential steps");
        assert_eq!(&visits(Order::Stride(17), 100)[..3], &[0, 17, 34]);
        // 17 shares no factor with 34? It does: the step moves on to 19.
        assert_eq!(visits(Order::Stride(17), 34)[1], 19);
    }

    #[test]
    fn a_pass_reads_what_was_written_and_stops_on_request() {
        let dir = std::env::temp_dir().join(format!("iogauge-pass-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let how = |write, create| Open {
            write,
            create,
            direct: false,
            sync: false,
        };
        let fin = Finish {
            flush: true,
            close: true,
        };
        let go = AtomicBool::new(false);
        let mut buf = vec![7u8; 4096];
        let walk = |order, write| Walk {
            size: 10_000,
            record: 4096,
            order,
            write,
        };
        let f = open(&path, how(true, true)).unwrap();
        pass(f, walk(Order::Shuffled(1), true), fin, &mut buf, &go).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 10_000);
        let f = open(&path, how(false, false)).unwrap();
        let mut back = vec![0u8; 4096];
        pass(f, walk(Order::Backward, false), fin, &mut back, &go).unwrap();
        assert!(back.iter().all(|&b| b == 7));
        let halt = AtomicBool::new(true);
        let f = open(&path, how(false, false)).unwrap();
        let r = pass(f, walk(Order::Forward, false), fin, &mut back, &halt);
        assert!(matches!(r, Err(Stop::Interrupted)));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
