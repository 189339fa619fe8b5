//! The writes: their share of the I/O (-w) and the data they carry (-Z: zeros, -Zr new
//! random data per write, -Z<size> DiskSpd's random source buffer), and how that data
//! differs from DiskSpd's.

use super::values::{bad, int, planned, size};
use super::Shown;
use crate::error::Result;
use crate::spec::BufferFill;

/// The write switches, as given.
#[derive(Default)]
pub(super) struct Writes {
    /// -w.
    pub pct: u8,
    /// -Z, -Zr.
    pub buffers: BufferFill,
}

impl Writes {
    /// `-w<pct>`.
    pub fn ratio(&mut self, a: &str, v: &str) -> Result<()> {
        if v.is_empty() {
            return Err(bad(format!("{a}: no write ratio passed to -w")));
        }
        let w = int(v, "w", "write ratio")?;
        if w > 100 {
            return Err(bad(format!(
                "{a}: write ratio passed to -w must be between 0 and 100 (percent)"
            )));
        }
        self.pct = w as u8;
        Ok(())
    }

    /// `-Z`, `-Zr`, `-Z<size>`; `-Z<size>,<file>` is refused.
    pub fn data(
        &mut self,
        a: &str,
        v: &str,
        block: u64,
        shown: &mut Shown,
        notes: &mut Vec<String>,
    ) -> Result<()> {
        match v {
            "" => self.buffers.compress_pct = 100,
            "r" => self.buffers.refill = true,
            _ => {
                let (sz, file) = match v.split_once(',') {
                    Some((s, f)) => (s, Some(f)),
                    None => (v, None),
                };
                if file.is_some() {
                    return Err(planned(a, "-Z<size>,<file> (write data from a file)"));
                }
                let sz = size(sz, block, a)?;
                if sz < block {
                    return Err(bad(format!(
                        "{a}: custom write buffer (-Z) is smaller than the block size. Write buffer size: {sz} block size: {block}"
                    )));
                }
                shown.write_buffer = Some(sz);
                notes.push(format!(
                    "{a}: iogauge's write buffers hold random data, one buffer per outstanding I/O"
                ));
            }
        }
        Ok(())
    }

    /// The note on DiskSpd's write data, where the writes would carry it. With -Z<size>
    /// DiskSpd's writes are random data too (its note says how iogauge differs).
    pub fn note(&self, shown: &Shown, notes: &mut Vec<String>) {
        if self.pct > 0 && self.buffers.is_default() && shown.write_buffer.is_none() {
            notes.push("DiskSpd fills write buffers with a repeating byte pattern; iogauge writes incompressible random data (-Z writes zeros, -Zr new random data per write)".into());
        }
    }
}
