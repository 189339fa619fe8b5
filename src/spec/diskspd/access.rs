//! Where on a target each I/O goes: random (-r, with its alignment; -rs a random share of a
//! mix; -rd zones, read in [`super::zones`]) or sequential (-s with its stride, -si one
//! stream shared by the threads), where each sequential thread begins (-T), and the seed of
//! the random offsets (-z). DiskSpd's rules for combining them, in its words.

use super::values::{bad, size};
use super::zones::random_zones;
use crate::error::Result;
use crate::spec::{Distribution, Pattern};

/// The access switches, as given.
#[derive(Default)]
pub(super) struct Access {
    /// -r<align>.
    pub random: Option<u64>,
    /// -rs: the share of random I/O; -r alone sets it to 100, as DiskSpd does.
    pub random_ratio: Option<u8>,
    /// -rdpct/-rdabs.
    pub zones: Option<Distribution>,
    /// -s<stride>.
    pub sequential: Option<u64>,
    /// -si.
    pub interlocked: bool,
    /// -T.
    pub thread_start: Option<u64>,
    /// -z.
    pub seed: u64,
}

impl Access {
    /// `-r[<align>]`, `-rs<pct>`, `-rd<zones>`.
    pub fn random(&mut self, a: &str, v: &str, block: u64) -> Result<()> {
        if let Some(pct) = v.strip_prefix('s') {
            return self.random_share(a, pct);
        }
        if let Some(spec) = v.strip_prefix('d') {
            self.zones = Some(random_zones(a, spec, block)?);
            return Ok(());
        }
        if self.random.is_some() {
            return Err(bad(format!("{a}: random IO (-r) specified multiple times")));
        }
        if self.sequential.is_some() {
            return Err(bad(format!(
                "{a}: sequential IO (-s) conflicts with random IO (-r/-rs)"
            )));
        }
        let align = if v.is_empty() {
            block
        } else {
            size(v, block, a)?
        };
        if align == 0 {
            return Err(bad(format!("{a}: invalid alignment passed to -r")));
        }
        self.random = Some(align);
        self.random_ratio.get_or_insert(100);
        Ok(())
    }

    /// `-rs<pct>`: a mix; -r (before or after) gives its alignment, -s may not.
    fn random_share(&mut self, a: &str, pct: &str) -> Result<()> {
        if pct.is_empty() {
            return Err(bad(format!("{a}: no random percentage passed to -rs")));
        }
        let pct = pct.parse::<u64>().unwrap_or(0);
        if !(1..=100).contains(&pct) {
            return Err(bad(format!(
                "{a}: random percentage passed to -rs should be between 1 and 100"
            )));
        }
        if self.random_ratio.is_none() && self.sequential.is_some() {
            return Err(bad(format!(
                "{a}: use -r to specify IO alignment when using mixed random/sequential IO (-rs)"
            )));
        }
        if self.random_ratio.is_some_and(|r| r != 100) {
            return Err(bad(format!(
                "{a}: mixed random/sequential IO (-rs) specified multiple times"
            )));
        }
        self.random_ratio = Some(pct as u8);
        Ok(())
    }

    /// `-s[i][<stride>]`.
    pub fn sequential(&mut self, a: &str, v: &str, block: u64) -> Result<()> {
        match self.random_ratio {
            Some(100) => {
                return Err(bad(format!(
                    "{a}: sequential IO (-s) conflicts with random IO (-r/-rs)"
                )))
            }
            Some(_) => return Err(bad(format!("{a}: use -r to specify IO alignment for -rs"))),
            None => {}
        }
        if self.sequential.is_some() {
            return Err(bad(format!(
                "{a}: sequential IO (-s) specified multiple times"
            )));
        }
        let rest = match v.strip_prefix('i') {
            Some(r) => {
                self.interlocked = true;
                r
            }
            None => v,
        };
        let stride = if rest.is_empty() {
            block
        } else {
            size(rest, block, a)?
        };
        // DiskSpd takes -s0 (every I/O at the same offset); iogauge's sequential
        // pattern needs a step.
        if stride == 0 {
            return Err(bad(format!(
                "{a}: a stride of 0 (every I/O at the base offset) cannot run here"
            )));
        }
        self.sequential = Some(stride);
        Ok(())
    }

    /// DiskSpd's warnings on sequential I/O; `multi`: more than one thread per target.
    pub fn warnings(&self, multi: bool) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.random_ratio.is_none() {
            if self.interlocked && !multi {
                warnings.push("single-threaded test, -si ignored".into());
            }
            // -T gives each thread its own sequential stream: DiskSpd does not warn then.
            if !self.interlocked && multi && self.thread_start.is_none() {
                warnings.push("target access pattern will not be sequential, consider -si".into());
            }
        }
        warnings
    }

    pub fn pattern(&self, block: u64) -> Result<Pattern> {
        if self.zones.is_some() && self.random_ratio.is_none() {
            return Err(bad(
                "random distribution ranges (-rd) do not apply to sequential-only IO patterns",
            ));
        }
        Ok(match self.random_ratio {
            Some(_) => Pattern::Random {
                align_bytes: self.random.unwrap_or(block),
                distribution: self.zones.clone().unwrap_or(Distribution::Uniform),
            },
            None => Pattern::Sequential {
                stride_bytes: self.sequential.unwrap_or(block),
                interlocked: self.interlocked,
                backwards: false,
            },
        })
    }

    /// The share of random I/O in a mix (-rs below 100).
    pub fn random_pct(&self) -> Option<u8> {
        self.random_ratio.filter(|&r| r < 100)
    }

    /// As DiskSpd: the thread stride (-T) moves where sequential threads begin; random and
    /// interlocked I/O do not use it.
    pub fn thread_start(&self, notes: &mut Vec<String>) -> u64 {
        match self.thread_start {
            Some(t) if self.random_ratio.is_none() && !self.interlocked => t,
            Some(_) => {
                notes.push(format!(
                    "-T has no effect on {} I/O",
                    if self.interlocked {
                        "interlocked sequential"
                    } else {
                        "random"
                    }
                ));
                0
            }
            None => 0,
        }
    }
}

/// `-T<size>`: above 0.
pub(super) fn thread_stride(a: &str, v: &str, block: u64) -> Result<u64> {
    size(v, block, a)
        .ok()
        .filter(|&t| t > 0)
        .ok_or_else(|| bad(format!("{a}: invalid offset passed to -T")))
}

/// `-z[<seed>]`: DiskSpd's seed is a 32-bit value; without one it is taken from the clock.
pub(super) fn seed(a: &str, v: &str) -> Result<u64> {
    if v.is_empty() {
        return Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64 & 0xffff_ffff));
    }
    // DiskSpd: strtoul, a 32-bit unsigned value.
    let s = v.parse::<u32>().map_err(|_| {
        bad(format!(
            "{a}: invalid random seed value '{v}' specified - must be a valid 32 bit integer"
        ))
    })?;
    Ok(s as u64)
}
