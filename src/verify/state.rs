//! A kept target's verification state: what every unit's generation was at the last
//! checkpoint, whose writes were all flushed to the device before the state was saved. Saved
//! crash-safely (a new file, synced, renamed over the old, the folder synced), so a kill or a
//! power cut leaves the last whole state, never half of one.
//!
//! ```text
//! iogauge verify state 1\n
//! {JSON meta}\n
//! generations: 2 bytes each, little-endian
//! XXH3-64 of everything above, 8 bytes little-endian
//! ```

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

const HEAD: &str = "iogauge verify state 1\n";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub target: String,
    /// The target offset of unit 0, and the unit.
    pub origin: u64,
    pub unit: u64,
    pub units: u64,
    pub seed: u64,
    /// The target's id in the headers.
    pub id: u32,
    pub compress_pct: u8,
    pub saved_unix_ns: u64,
}

/// Save `gens` with `meta` at `path`, replacing what was there only once the new state is
/// whole on the device.
pub fn save(path: &Path, meta: &Meta, gens: &[u16]) -> Result<()> {
    let cannot = |e: std::io::Error| {
        Error::runtime(format!(
            "cannot save the verification state '{}': {e}",
            path.display()
        ))
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp);
    let mut bytes = Vec::with_capacity(gens.len() * 2 + 256);
    bytes.extend_from_slice(HEAD.as_bytes());
    bytes.extend_from_slice(
        serde_json::to_string(meta)
            .expect("meta serializes")
            .as_bytes(),
    );
    bytes.push(b'\n');
    for g in gens {
        bytes.extend_from_slice(&g.to_le_bytes());
    }
    let mut h = Xxh3::new();
    h.update(&bytes);
    bytes.extend_from_slice(&h.digest().to_le_bytes());
    let r = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    })();
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r.map_err(cannot)
}

/// The state at `path`; an error names the file and what is wrong with it.
pub fn load(path: &Path) -> Result<(Meta, Vec<u16>)> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| {
        Error::usage(format!(
            "cannot read the verification state '{shown}': {e} (a run with --verify --keep \
             saves it)"
        ))
    })?;
    let bad = |why: &str| {
        Error::usage(format!(
            "'{shown}' is not a whole verification state: {why}"
        ))
    };
    if !bytes.starts_with(HEAD.as_bytes()) || bytes.len() < HEAD.len() + 8 {
        return Err(bad("it does not begin as one"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let mut h = Xxh3::new();
    h.update(body);
    if h.digest().to_le_bytes() != sum {
        return Err(bad("its checksum fails (cut short or changed)"));
    }
    let rest = &body[HEAD.len()..];
    let nl = rest
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| bad("no description"))?;
    let meta: Meta =
        serde_json::from_slice(&rest[..nl]).map_err(|e| bad(&format!("its description: {e}")))?;
    let raw = &rest[nl + 1..];
    if raw.len() as u64 != meta.units.saturating_mul(2) {
        return Err(bad("its generations do not number its units"));
    }
    let gens = raw
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    Ok((meta, gens))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_reads_back_and_a_damaged_one_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.iogauge-verify");
        let meta = Meta {
            target: "/t".into(),
            origin: 0,
            unit: 4096,
            units: 3,
            seed: 5,
            id: 0,
            compress_pct: 0,
            saved_unix_ns: 1,
        };
        save(&p, &meta, &[1, 2, 3]).unwrap();
        save(&p, &meta, &[1, 2, 4]).unwrap();
        assert_eq!(load(&p).unwrap(), (meta, vec![1, 2, 4]));
        let mut b = std::fs::read(&p).unwrap();
        let n = b.len();
        b[n - 10] ^= 1;
        std::fs::write(&p, &b).unwrap();
        let e = load(&p).unwrap_err().to_string();
        assert!(e.contains("checksum fails"), "{e}");
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }
}
