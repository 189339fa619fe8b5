//! I/O priorities: the job's own (`--ioprio`, fio's prio and prioclass), set on each worker
//! thread with ioprio_set, and per-I/O ones (`--cmdprio`, fio's cmdprio_percentage,
//! cmdprio_class, cmdprio and cmdprio_bssplit), set in each io_uring SQE's ioprio field for a
//! share of the I/Os, by size where the job says so.
//!
//! The kernel's priority value is the class in bits 13..15 over the level (0 highest, 7
//! lowest); classes 1 real time, 2 best effort, 3 idle. Class 0 ("none") is taken as best
//! effort, as fio's ioprio_value does, so that `prio=7` alone means best effort level 7.

pub use crate::os::ioprio::{IoPrio, CLASS_SHIFT};
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// The real-time class: fio's logs without log_prio mark the I/Os of this class.
pub const CLASS_RT: u8 = 1;

/// A share of a direction's I/Os (of one size, or of any) issued at a priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Share {
    /// I/Os of this size only; `None`: of any size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs: Option<u64>,
    pub pct: u8,
    pub prio: IoPrio,
}

/// The job's priorities. Default: none, the kernel's default for the thread.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Priority {
    /// Every I/O of the job's threads (ioprio_set on each), and every SQE not given one of
    /// `cmdprio`'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ioprio: Option<IoPrio>,
    /// [reads, writes]: per-I/O priorities, in order; the shares of one size add up to at
    /// most 100.
    #[serde(default, skip_serializing_if = "no_cmdprio")]
    pub cmdprio: [Vec<Share>; 2],
}

fn no_cmdprio(c: &[Vec<Share>; 2]) -> bool {
    c.iter().all(Vec::is_empty)
}

impl Priority {
    pub fn is_none(&self) -> bool {
        *self == Priority::default()
    }

    /// Whether some I/Os get a priority of their own (io_uring only).
    pub fn per_io(&self) -> bool {
        !no_cmdprio(&self.cmdprio)
    }

    /// The value an I/O of direction `write` and length `len` is issued with: as fio's
    /// fio_cmdprio_set_ioprio, one draw 0..99 against the shares that apply to its size, in
    /// order; else the job's own (0: none).
    #[inline]
    pub fn pick(&self, write: bool, len: u32, rng: &mut Rng) -> u16 {
        let default = self.ioprio.map_or(0, IoPrio::value);
        let shares = &self.cmdprio[write as usize];
        if shares.is_empty() {
            return default;
        }
        let fits = |s: &&Share| s.bs.is_none_or(|b| b == len as u64);
        if !shares.iter().filter(fits).any(|s| s.pct > 0) {
            return default;
        }
        let r = rng.below(100);
        let mut sum = 0u64;
        for s in shares.iter().filter(fits) {
            sum += s.pct as u64;
            if r < sum {
                return s.prio.value();
            }
        }
        default
    }

    /// The shares of one size (or of any) that add up to more than 100: their size.
    pub fn over_100(&self) -> Option<Option<u64>> {
        for shares in &self.cmdprio {
            for s in shares {
                let total: u64 = shares
                    .iter()
                    .filter(|o| o.bs == s.bs)
                    .map(|o| o.pct as u64)
                    .sum();
                if total > 100 {
                    return Some(s.bs);
                }
            }
        }
        None
    }
}

/// `--cmdprio`: `[BS/]PCT/CLASS/LEVEL[:...]` for reads and writes, or `READS,WRITES`; BS a
/// size with the usual suffixes. Entries of 0 % are allowed and do nothing (as in fio).
pub fn parse_cmdprio(text: &str) -> Result<[Vec<Share>; 2], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() > 2 {
        return Err(format!("'{text}': more than two parts (READS,WRITES)"));
    }
    let reads = parse_dir(parts[0], text)?;
    let writes = match parts.get(1) {
        Some(w) => parse_dir(w, text)?,
        None => reads.clone(),
    };
    Ok([reads, writes])
}

fn parse_dir(part: &str, text: &str) -> Result<Vec<Share>, String> {
    let mut out = Vec::new();
    if part.is_empty() {
        return Ok(out);
    }
    for e in part.split(':') {
        let f: Vec<&str> = e.split('/').map(str::trim).collect();
        let num = |t: &str| {
            t.parse::<u64>()
                .map_err(|_| format!("'{text}': '{t}' in '{e}' is not a whole number"))
        };
        let (bs, rest) = match f.len() {
            3 => (None, &f[..]),
            4 => (
                Some(crate::units::parse_size(f[0]).map_err(|m| format!("'{text}': {m}"))?),
                &f[1..],
            ),
            _ => {
                return Err(format!(
                    "'{text}': '{e}' is not [BS/]PCT/CLASS/LEVEL (e.g. 20/1/0 or 64k/25/1/1)"
                ))
            }
        };
        let pct = num(rest[0])?;
        if pct > 100 {
            return Err(format!("'{text}': {pct} % is more than 100"));
        }
        let prio =
            IoPrio::new(num(rest[1])?, num(rest[2])?).map_err(|m| format!("'{text}': {m}"))?;
        if pct > 0 {
            out.push(Share {
                bs,
                pct: pct as u8,
                prio,
            });
        }
    }
    if out.iter().any(|s| s.bs.is_none()) && out.iter().any(|s| s.bs.is_some()) {
        return Err(format!(
            "'{text}': entries with a size and without one in the same direction"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_as_the_kernel_takes_them() {
        assert_eq!(IoPrio::new(1, 0).unwrap().value(), 0x2000);
        assert_eq!(IoPrio::new(3, 0).unwrap().value(), 0x6000);
        // Class 0 is best effort, as in fio.
        assert_eq!(IoPrio::new(0, 7).unwrap().value(), 0x4007);
        assert!(IoPrio::new(4, 0).is_err());
        assert!(IoPrio::new(1, 8).is_err());
        assert_eq!(IoPrio::parse("2:4").unwrap().value(), 0x4004);
        assert!(IoPrio::parse("2").is_err());
    }

    #[test]
    fn cmdprio_parses_both_forms() {
        let [r, w] = parse_cmdprio("20/1/0").unwrap();
        assert_eq!(r, w);
        assert_eq!(r[0].pct, 20);
        let [r, w] = parse_cmdprio("64k/25/1/1:64k/75/3/2:1m/0/1/0,1m/0/1/0").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].bs, Some(65536));
        assert!(w.is_empty());
        assert!(parse_cmdprio("20/1").is_err());
        assert!(parse_cmdprio("101/1/0").is_err());
        assert!(parse_cmdprio("20/4/0").is_err());
        assert!(parse_cmdprio("20/1/0:4k/10/1/0").is_err());
    }

    #[test]
    fn pick_draws_the_share() {
        let p = Priority {
            ioprio: Some(IoPrio::new(3, 0).unwrap()),
            cmdprio: parse_cmdprio("4096/20/1/0,0/1/0").unwrap(),
        };
        let mut rng = Rng::new(3, &[]);
        let n = 100_000;
        let rt = (0..n)
            .filter(|_| p.pick(false, 4096, &mut rng) == 0x2000)
            .count();
        assert!((rt as f64 / n as f64 - 0.2).abs() < 0.01, "{rt}");
        // Another size, and writes: the job's own.
        assert_eq!(p.pick(false, 8192, &mut rng), 0x6000);
        assert_eq!(p.pick(true, 4096, &mut rng), 0x6000);
    }

    #[test]
    fn over_100_names_the_size() {
        let p = Priority {
            ioprio: None,
            cmdprio: parse_cmdprio("4k/60/1/0:4k/50/3/0").unwrap(),
        };
        assert_eq!(p.over_100(), Some(Some(4096)));
    }
}
