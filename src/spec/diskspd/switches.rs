//! The switch table: DiskSpd's command line cut into switches (`-` and one letter, the value
//! glued on: `-b8K`, `-o32`, `-Suw`) and targets, each switch handed to the concept that
//! reads it. Switches are read in the order given, as DiskSpd does, so that where two
//! conflict the later one is named; only -b is read first, because other sizes may be in
//! blocks.

use super::access::{seed, thread_stride, Access};
use super::cache::{mapped_flush, Cache};
use super::report::Report;
use super::targets::Extent;
use super::threads::{affinity_cpus, Threads};
use super::timing::{Pace, Timing};
use super::values::{bad, count, int, planned, size};
use super::writes::Writes;
use super::{Shown, BLOCK};
use crate::error::Result;

/// A DiskSpd command line, switch by switch, before the switches are put together.
#[derive(Default)]
pub(super) struct Switches {
    pub block: u64,
    pub targets: Vec<String>,
    pub threads: Threads,
    pub extent: Extent,
    pub access: Access,
    pub writes: Writes,
    pub cache: Cache,
    pub timing: Timing,
    pub pace: Pace,
    pub report: Report,
    pub shown: Shown,
    /// What runs differently from DiskSpd, as the switches say it.
    pub notes: Vec<String>,
}

impl Switches {
    pub fn read(args: &[String]) -> Result<Switches> {
        let mut s = Switches {
            block: block_size(args)?,
            ..Switches::default()
        };
        for a in args {
            if let Some(why) = crate::spec::pasted_dash(a, "-") {
                return Err(bad(why));
            }
            let Some(opt) = a.strip_prefix('-').filter(|o| !o.is_empty()) else {
                s.targets.push(a.clone());
                continue;
            };
            if !s.targets.is_empty() {
                return Err(bad(format!(
                    "{a}: parameters must come before targets on the command line (as DiskSpd requires)"
                )));
            }
            s.switch(a, opt)?;
        }
        Ok(s)
    }

    /// Switch `a`, `opt` without its `-`.
    fn switch(&mut self, a: &str, opt: &str) -> Result<()> {
        // One character, whatever its width: `-é` must not split inside it.
        let (flag, v) = opt.split_at(opt.chars().next().map_or(0, char::len_utf8));
        let block = self.block;
        let notes = &mut self.notes;
        match flag {
            "b" => {}
            // Threads.
            "t" => self.threads.per_target = Some(count(a, v, "t", "thread count")?),
            "F" => self.threads.fixed = Some(count(a, v, "F", "thread count")?),
            "o" => self.threads.qd = count(a, v, "o", "outstanding I/O count")?,
            "O" => self.threads.per_thread_qd = Some(count(a, v, "O", "outstanding I/O count")?),
            "a" => self.threads.cpus.extend(affinity_cpus(a, v)?),
            "n" if v.is_empty() => self.threads.no_affinity = true,
            // Targets.
            "c" => self.extent.create = Some(size(v, block, a)?),
            "B" => self.extent.base(a, v, block)?,
            "f" if v.starts_with(|c: char| c.is_ascii_digit()) => self.extent.max(a, v, block)?,
            // Access pattern.
            "r" => self.access.random(a, v, block)?,
            "s" => self.access.sequential(a, v, block)?,
            "T" => self.access.thread_start = Some(thread_stride(a, v, block)?),
            "z" => self.access.seed = seed(a, v)?,
            // Writes.
            "w" => self.writes.ratio(a, v)?,
            "Z" => self.writes.data(a, v, block, &mut self.shown, notes)?,
            // Cache.
            "S" => self.cache.s(a, v, notes)?,
            "h" if v.is_empty() => self.cache.h(a)?,
            "N" => self.shown.flush_mode = Some(mapped_flush(a, v)?),
            // Timing.
            "d" => self.timing.duration(a, v)?,
            // DiskSpd reads a bare -W (and -C) as 0 seconds.
            "W" if v.is_empty() => self.timing.warmup = 0,
            "W" => self.timing.warmup = int(v, "W", "warmup time")?,
            "C" if v.is_empty() => self.timing.cooldown = 0,
            "C" => self.timing.cooldown = int(v, "C", "cooldown time")?,
            "g" => self.pace.throughput(a, v)?,
            "i" => self.pace.burst = Some(count(a, v, "i", "burst size")?),
            "j" => self.pace.think_ms = Some(count(a, v, "j", "think time")?.into()),
            // Reports.
            "R" => self.report.format(a, v)?,
            "D" => self.report.iops_stats(v)?,
            "L" if v.is_empty() => self.report.latency = true,
            // Accepted, no effect here.
            "f" if !v.is_empty() && v.chars().all(|c| "rst".contains(c)) => {
                self.shown.hints(a, v, notes)
            }
            "I" => self.shown.io_priority(a, v, notes)?,
            "l" => self.shown.large_pages(a, notes),
            "P" => self.shown.progress(v),
            "v" => self.shown.verbose(a, v)?,
            "x" if v.is_empty() => self.shown.completion_routines(notes),
            // DiskSpd's experiment flags (-:1 lets its rate limiter sleep longer than 1 ms).
            ":" => notes.push(format!(
                "{a}: DiskSpd's experiment flags have no effect here"
            )),
            // Refused.
            "p" => return Err(planned(a, "-p (parallel I/Os from one offset)")),
            "X" => return Err(bad(format!("{a}: XML profiles (-X) are not supported"))),
            "e" => return Err(bad(format!("{a}: ETW tracing (-e) exists only on Windows"))),
            "y" => {
                return Err(bad(format!(
                    "{a}: Windows event synchronization (-y) is not supported"
                )))
            }
            _ => return Err(bad(format!("{a}: invalid option: '{opt}'"))),
        }
        Ok(())
    }
}

/// -b, read before the other switches: their sizes may be in blocks (`b`).
fn block_size(args: &[String]) -> Result<u64> {
    let mut block = BLOCK;
    for a in args {
        if let Some(v) = a.strip_prefix("-b").filter(|v| !v.is_empty()) {
            block = size(v, BLOCK, a)?;
            if block == 0 {
                return Err(bad(format!("{a}: invalid block size passed to -b")));
            }
        }
    }
    Ok(block)
}
