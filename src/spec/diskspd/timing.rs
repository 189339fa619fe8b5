//! When the I/O is issued: for how long (a -W warm-up, -d measured, a -C cool-down, in
//! DiskSpd's whole seconds) and how fast (-g throughput, -j think time after every -i I/Os).

use super::values::{bad, count, int, scaled};
use super::{DURATION_S, WARMUP_S};
use crate::error::Result;
use crate::spec::Think;

const NS_PER_S: u64 = 1_000_000_000;
const NS_PER_MS: u64 = 1_000_000;

/// The run's phases, in seconds as given.
pub(super) struct Timing {
    pub warmup: u64,
    pub duration: u64,
    pub cooldown: u64,
}

/// The phases in nanoseconds.
pub(super) struct Phases {
    pub warmup_ns: u64,
    pub duration_ns: u64,
    pub cooldown_ns: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            warmup: WARMUP_S,
            duration: DURATION_S,
            cooldown: 0,
        }
    }
}

impl Timing {
    /// `-d<seconds>`: DiskSpd measures for at least a second.
    pub fn duration(&mut self, a: &str, v: &str) -> Result<()> {
        self.duration = int(v, "d", "measured duration time")?;
        if self.duration == 0 {
            return Err(bad(format!(
                "{a}: invalid measured duration time (-d): '{v}'"
            )));
        }
        Ok(())
    }

    pub fn phases(&self) -> Result<Phases> {
        Ok(Phases {
            warmup_ns: scaled(self.warmup, NS_PER_S, "W")?,
            duration_ns: scaled(self.duration, NS_PER_S, "d")?,
            cooldown_ns: scaled(self.cooldown, NS_PER_S, "C")?,
        })
    }
}

/// DiskSpd's pacing switches, as given.
#[derive(Default)]
pub(super) struct Pace {
    /// -g<n>i.
    pub rate_iops: Option<u64>,
    /// -g<n>, in bytes per second.
    pub rate_bw: Option<u64>,
    /// -i.
    pub burst: Option<u32>,
    /// -j.
    pub think_ms: Option<u64>,
}

impl Pace {
    /// `-g<bytes per ms>` or `-g<I/Os per s>i`.
    pub fn throughput(&mut self, a: &str, v: &str) -> Result<()> {
        let (n, iops) = match v.strip_suffix('i') {
            Some(n) => (n, true),
            None => (v, false),
        };
        let n = u64::from(count(a, n, "g", "throughput")?);
        if iops {
            self.rate_iops = Some(n);
        } else {
            // DiskSpd's unit is bytes per millisecond.
            self.rate_bw = Some(scaled(n, 1000, "g")?);
        }
        Ok(())
    }

    /// The think time: -j after every -i I/Os; -i alone is DiskSpd's warning.
    pub fn think(&self, warnings: &mut Vec<String>) -> Result<Option<Think>> {
        Ok(match (self.think_ms, self.burst) {
            (Some(ms), burst) => Some(Think {
                ns: scaled(ms, NS_PER_MS, "j")?,
                spin_ns: 0,
                // Without -i every I/O is followed by the think time.
                every: burst.unwrap_or(1),
            }),
            (None, Some(_)) => {
                warnings.push("-i (burst size) has no effect without -j (think time)".into());
                None
            }
            (None, None) => None,
        })
    }
}
