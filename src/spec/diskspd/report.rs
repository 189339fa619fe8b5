//! What the run reports and in what form: DiskSpd's text or XML (-R), the profile alone
//! (-Rp), per-interval IOPS statistics (-D) and latency (-L).

use super::values::{bad, int, scaled};
use crate::error::Result;

/// The reporting switches, as given.
pub(super) struct Report {
    /// -Rxml.
    pub xml: bool,
    /// -Rp.
    pub profile_only: bool,
    /// -D.
    pub iops_stats: bool,
    /// -D<ms>.
    pub interval_ms: u64,
    /// -L.
    pub latency: bool,
}

impl Default for Report {
    fn default() -> Self {
        Report {
            xml: false,
            profile_only: false,
            iops_stats: false,
            interval_ms: 1000,
            latency: false,
        }
    }
}

impl Report {
    /// `-R[p]<text|xml>`.
    pub fn format(&mut self, a: &str, v: &str) -> Result<()> {
        let f = match v.strip_prefix('p') {
            Some(f) => {
                self.profile_only = true;
                f
            }
            None => v,
        };
        match f {
            "text" => self.xml = false,
            "xml" => self.xml = true,
            // -Rp alone: the profile in the format given elsewhere, else text.
            "" if self.profile_only => {}
            "" => {
                return Err(bad(format!(
                    "{a}: unspecified results format -R: use [p]<text|xml>"
                )))
            }
            _ => return Err(bad(format!("{a}: invalid results format (-R): '{f}'"))),
        }
        Ok(())
    }

    /// `-D[<ms>]`.
    pub fn iops_stats(&mut self, v: &str) -> Result<()> {
        self.iops_stats = true;
        if !v.is_empty() {
            self.interval_ms = int(v, "D", "interval")?;
        }
        Ok(())
    }

    pub fn interval_ns(&self) -> Result<u64> {
        scaled(self.interval_ms, 1_000_000, "D")
    }
}
