//! IO500's find phase (pfind's `DIR -newer FILE -size 3901c -name *01*`), shared by the
//! ranks without pfind's work stealing: every rank reads every folder (a listing is cheap
//! beside a stat), and checks the entries that fall to it (entry i of a folder's sorted
//! listing to rank i mod ranks): the name first, and only a matching name is stated for its
//! size and time. Each file is counted once, by its rank; the ranks' counts are summed and
//! the time is the slowest rank's, as mdtest's phases are timed.

use super::mdtest::Ranked;
use crate::error::{Error, Result};
use crate::result::io500::Found;
use crate::spec::io500::Find;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Instant, SystemTime};

/// The find on this rank; every rank's counts and the slowest rank's seconds, on every rank.
pub fn run(f: &Find, r: &Ranked) -> Result<(Found, f64)> {
    if let Some(c) = r.team {
        if !c.fence(r.stop) {
            return Err(Error::Interrupted("interrupted before find".into()));
        }
    }
    let t0 = Instant::now();
    let mut mine = Found {
        matched: 0,
        files: 0,
    };
    let newer = std::fs::metadata(&f.newer)
        .and_then(|m| m.modified())
        .map_err(|e| Error::runtime(format!("cannot stat '{}': {e}", f.newer)));
    let outcome = newer.and_then(|t| walk(Path::new(&f.root), f, t, r, &mut mine));
    let ns = t0.elapsed().as_nanos() as u64;
    if let Some(c) = r.team {
        if c.max_u64(u64::from(outcome.is_err())) > 0 {
            return outcome.and(Err(Error::runtime("another rank's find failed")));
        }
    }
    outcome?;
    Ok(sum(r, mine, ns))
}

/// Every rank's counts added, and the slowest rank's time in seconds (never 0).
fn sum(r: &Ranked, mine: Found, ns: u64) -> (Found, f64) {
    let Some(c) = r.team else {
        return (mine, ns.max(1) as f64 / 1e9);
    };
    let mut bytes = mine.matched.to_le_bytes().to_vec();
    bytes.extend_from_slice(&mine.files.to_le_bytes());
    let mut all = Found {
        matched: 0,
        files: 0,
    };
    for b in c.gather_all(&bytes) {
        let half = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        all.matched += half(0);
        all.files += half(8);
    }
    (all, c.max_u64(ns).max(1) as f64 / 1e9)
}

/// One folder and (every rank) the folders below it.
fn walk(dir: &Path, f: &Find, newer: SystemTime, r: &Ranked, n: &mut Found) -> Result<()> {
    if r.stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted("interrupted in find".into()));
    }
    let cannot =
        |e: std::io::Error| Error::runtime(format!("cannot read '{}': {e}", dir.display()));
    let mut entries: Vec<std::fs::DirEntry> = std::fs::read_dir(dir)
        .map_err(cannot)?
        .collect::<std::io::Result<_>>()
        .map_err(cannot)?;
    entries.sort_by_key(|e| e.file_name());
    for (i, e) in entries.iter().enumerate() {
        let kind = e.file_type().map_err(cannot)?;
        if kind.is_dir() {
            walk(&e.path(), f, newer, r, n)?;
        } else if i as u64 % u64::from(r.size.max(1)) == u64::from(r.rank) {
            n.files += 1;
            n.matched += u64::from(matches(e, f, newer));
        }
    }
    Ok(())
}

/// The name, then the size and time of a matching name (a file gone meanwhile matches not).
fn matches(e: &std::fs::DirEntry, f: &Find, newer: SystemTime) -> bool {
    if !e.file_name().to_string_lossy().contains(&f.name_part) {
        return false;
    }
    e.metadata()
        .is_ok_and(|m| m.len() == f.size && m.modified().is_ok_and(|t| t > newer))
}
