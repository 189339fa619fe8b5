//! Reading every unit back and checking it: the pass at the end of a verifying run (fio's
//! do_verify), and `iogauge verify` of a kept target after a crash, where a unit may hold
//! any generation from the last checkpoint's on. Chunks of a megabyte are shared out to the
//! threads; chunks with no unit of known generation are not read.

use super::block::{self, Expect};
use super::map::GenMap;
use super::worker::mismatch;
use super::Log;
use crate::error::{Error, Result};
use crate::os::memory::AlignedBuf;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const CHUNK: u64 = 1 << 20;

/// One target to read back.
pub struct PassTarget<'a> {
    pub file: &'a File,
    pub path: String,
    pub map: &'a GenMap,
    pub origin: u64,
    pub id: u32,
    /// The seed its headers carry.
    pub seed: u64,
}

/// How to check.
pub struct PassOpts {
    pub compress_pct: u8,
    pub threads: u32,
    /// After a crash: a unit may be newer than its saved generation.
    pub at_least: bool,
    /// "pass" or "verify", for the mismatches' reports.
    pub during: &'static str,
    pub dump: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PassResult {
    /// Units read and judged.
    pub checked: u64,
    /// Units of unknown generation (never written with verification), not read.
    pub unjudged: u64,
    pub bytes: u64,
    pub elapsed_ns: u64,
    pub mismatches: u64,
    /// Units found newer than the saved state: written after the last checkpoint, as they may
    /// be after a crash (not a fault).
    pub newer: u64,
    /// Mismatches by kind (stale, corrupt, no_header, torn_header, foreign, newer).
    pub by_kind: BTreeMap<String, u64>,
}

/// Read back every unit of known generation of `targets` and check it, mismatches to `log`.
pub fn read_back(
    targets: &[PassTarget],
    o: &PassOpts,
    log: &Log,
    stop: &AtomicBool,
) -> Result<PassResult> {
    let unit = targets.first().map_or(4096, |t| t.map.unit);
    let per_chunk = (CHUNK / unit).max(1);
    let chunks: Vec<(usize, u64, u64)> = targets
        .iter()
        .enumerate()
        .flat_map(|(ti, t)| {
            let units = t.map.units();
            (0..units.div_ceil(per_chunk)).map(move |c| {
                let first = c * per_chunk;
                (ti, first, per_chunk.min(units - first))
            })
        })
        .collect();
    let next = AtomicUsize::new(0);
    let totals = Mutex::new(PassResult::default());
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let newer = AtomicU64::new(0);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..o.threads.max(1) {
            s.spawn(|| {
                let mut buf = match AlignedBuf::new(1, (per_chunk * unit) as usize) {
                    Ok(b) => b,
                    Err(e) => {
                        lock(&failed).get_or_insert(Error::runtime(e));
                        return;
                    }
                };
                let mut mine = PassResult::default();
                while let Some(&(ti, first, n)) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if stop.load(Ordering::Relaxed) || lock(&failed).is_some() {
                        break;
                    }
                    let t = &targets[ti];
                    if let Err(e) = chunk(t, first, n, buf.slot_mut(0), o, log, &mut mine, &newer) {
                        lock(&failed).get_or_insert(e);
                        break;
                    }
                }
                let mut all = lock(&totals);
                all.checked += mine.checked;
                all.unjudged += mine.unjudged;
                all.bytes += mine.bytes;
                all.mismatches += mine.mismatches;
                for (k, v) in mine.by_kind {
                    *all.by_kind.entry(k).or_default() += v;
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted("interrupted while reading back".into()));
    }
    let mut r = totals.into_inner().unwrap_or_else(|p| p.into_inner());
    r.elapsed_ns = t0.elapsed().as_nanos() as u64;
    r.newer = newer.load(Ordering::Relaxed);
    Ok(r)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Read and check units `first..first + n` of `t`.
#[allow(clippy::too_many_arguments)]
fn chunk(
    t: &PassTarget,
    first: u64,
    n: u64,
    buf: &mut [u8],
    o: &PassOpts,
    log: &Log,
    r: &mut PassResult,
    newer: &AtomicU64,
) -> Result<()> {
    let unit = t.map.unit;
    let gens: Vec<u16> = (first..first + n).map(|u| t.map.gen(u)).collect();
    let unknown = gens.iter().filter(|&&g| g == 0).count() as u64;
    r.unjudged += unknown;
    if unknown == n {
        return Ok(());
    }
    let offset = t.origin + first * unit;
    let len = (n * unit) as usize;
    let data = &mut buf[..len];
    crate::os::file::read_exact_at(t.file, data, offset).map_err(|e| {
        Error::runtime(format!(
            "cannot read '{}' at offset {offset} to check it: {e}",
            t.path
        ))
    })?;
    r.bytes += len as u64;
    for (k, &gen) in gens.iter().enumerate() {
        if gen == 0 {
            continue;
        }
        let bytes = &data[k * unit as usize..(k + 1) * unit as usize];
        let e = Expect {
            seed: t.seed,
            target: t.id,
            offset: offset + k as u64 * unit,
            unit_len: unit as u32,
            gen,
            at_least: o.at_least,
        };
        r.checked += 1;
        let (finding, h) = block::check(bytes, &e);
        if finding.is_ok() {
            if o.at_least && h.is_some_and(|h| h.gen != gen) {
                newer.fetch_add(1, Ordering::Relaxed);
            }
            continue;
        }
        r.mismatches += 1;
        *r.by_kind.entry(finding.name().to_string()).or_default() += 1;
        log.add(mismatch(
            &t.path,
            &e,
            finding,
            h,
            bytes,
            o.compress_pct,
            o.during,
            o.dump.as_deref(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Stamp;
    use super::*;

    #[test]
    fn a_stamped_file_reads_back_clean_and_a_changed_unit_is_found() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t");
        let unit = 4096u64;
        let stamp = Stamp {
            unit,
            seed: 3,
            target: 0,
        };
        let mut data = vec![0u8; 3 << 20];
        for (n, c) in data.chunks_mut(1 << 20).enumerate() {
            stamp.fill(c, n as u64, n as u64 * (1 << 20));
        }
        std::fs::write(&p, &data).unwrap();
        let map = GenMap::new((3 << 20) / unit, unit).unwrap();
        map.set_all(1);
        let f = File::open(&p).unwrap();
        let t = PassTarget {
            file: &f,
            path: p.display().to_string(),
            map: &map,
            origin: 0,
            id: 0,
            seed: 3,
        };
        let o = PassOpts {
            compress_pct: 0,
            threads: 2,
            at_least: false,
            during: "pass",
            dump: None,
        };
        let log = Log::default();
        let stop = AtomicBool::new(false);
        let r = read_back(std::slice::from_ref(&t), &o, &log, &stop).unwrap();
        assert_eq!((r.checked, r.mismatches, r.bytes), (768, 0, 3 << 20));
        // A flipped byte in unit 300, and unit 5 expected one generation on (a lost write).
        data[300 * 4096 + 100] ^= 1;
        std::fs::write(&p, &data).unwrap();
        map.set(5, 2);
        let f = File::open(&p).unwrap();
        let t = PassTarget { file: &f, ..t };
        let r = read_back(&[t], &o, &log, &stop).unwrap();
        assert_eq!(r.mismatches, 2);
        assert_eq!(r.by_kind.get("corrupt"), Some(&1));
        assert_eq!(r.by_kind.get("stale"), Some(&1));
        let v = log.mismatches.lock().unwrap();
        let corrupt = v.iter().find(|m| m.offset == 300 * 4096).unwrap();
        assert_eq!(corrupt.first_difference, Some(100));
    }
}
