//! A kept target's verification state: what every unit's generation was at the last
//! checkpoint, whose writes were all flushed to the device before the state was saved. Saved
//! crash-safely (a new file, synced, renamed over the old, the folder synced), so a kill or a
//! power cut leaves the last whole state, never half of one.
//!
//! ```text
//! iogauge verify state 2\n
//! {JSON meta}\n
//! generations: 2 bytes each, little-endian
//! XXH3-64 of everything above, 8 bytes little-endian
//! ```

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

const HEAD: &str = "iogauge verify state 2\n";

/// Format 1 (iogauge before states named their target and run): its seed was the job's (0
/// unless --seed), the same for every run, so it cannot tell one target or run from another.
const HEAD_1: &str = "iogauge verify state 1\n";

/// Which file a state is of: a block device by its device number, a file by its file
/// system's and its inode; and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetId {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
}

impl TargetId {
    /// The identity of the open target `f`.
    pub fn of(f: &File) -> std::io::Result<TargetId> {
        let m = f.metadata();
        if let (false, Some(dev)) = (
            m.as_ref().is_ok_and(|m| m.is_file()),
            crate::os::file::block_device_number(f),
        ) {
            let size = crate::os::file::device_len(f)?;
            return Ok(TargetId { dev, ino: 0, size });
        }
        let (dev, ino) = crate::os::file::ids(f)?;
        Ok(TargetId {
            dev,
            ino,
            size: m?.len(),
        })
    }

    /// Whether `now` is the target this identity was taken of. A file's device number is
    /// not compared: it is the number the kernel gave its file system at mount, which a
    /// reboot after the crash being checked for may change (btrfs, NFS, FUSE mounts); its
    /// inode and size, and the run's seed in every unit's header, tell files apart. A block
    /// device is known by its device number and size (its /dev inode is new every boot).
    pub fn is(&self, now: &TargetId) -> bool {
        match self.ino {
            0 => now.ino == 0 && (self.dev, self.size) == (now.dev, now.size),
            ino => (ino, self.size) == (now.ino, now.size),
        }
    }

    fn words(&self) -> String {
        let dev = crate::os::file::device_words(self.dev);
        let size = crate::units::format_size(self.size);
        match self.ino {
            0 => format!("block device {dev} of {size}"),
            ino => format!("inode {ino} on device {dev}, {size}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub target: String,
    /// The target the state is of, as it was when saved.
    pub identity: TargetId,
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
            crate::os::file::sync_folder(dir)?;
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
    if bytes.starts_with(HEAD_1.as_bytes()) {
        return Err(Error::usage(format!(
            "'{shown}' is a verification state of an earlier iogauge, which did not record its \
             target or run: write the target again with --verify --keep"
        )));
    }
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

impl Meta {
    /// Refuse a state (saved at `state`) of another target than `target` (open as `f`): its
    /// units and seed would be checked against another file's.
    pub fn check_target(&self, state: &Path, target: &Path, f: &File) -> Result<()> {
        let now = TargetId::of(f).map_err(|e| {
            Error::runtime(format!("cannot read what '{}' is: {e}", target.display()))
        })?;
        if self.identity.is(&now) {
            return Ok(());
        }
        Err(Error::usage(format!(
            "the verification state '{}' is of '{}' ({}), not of '{}' ({}): each target is \
             checked against the state its own run saved",
            state.display(),
            self.target,
            self.identity.words(),
            target.display(),
            now.words()
        )))
    }
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
            identity: TargetId {
                dev: 1,
                ino: 2,
                size: 3,
            },
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

    #[test]
    fn a_file_is_known_after_a_remount_renumbers_its_file_system() {
        let file = TargetId {
            dev: 40,
            ino: 12,
            size: 1 << 20,
        };
        assert!(
            file.is(&TargetId { dev: 41, ..file }),
            "a new mount's number"
        );
        assert!(!file.is(&TargetId { ino: 13, ..file }));
        assert!(!file.is(&TargetId { size: 1, ..file }));
        let device = TargetId { ino: 0, ..file };
        assert!(device.is(&device));
        assert!(
            !device.is(&TargetId { dev: 41, ..device }),
            "another device"
        );
        assert!(!device.is(&file), "a file is not the device");
    }

    #[test]
    fn a_state_of_another_file_or_format_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::write(&a, [0u8; 4096]).unwrap();
        std::fs::write(&b, [0u8; 4096]).unwrap();
        let fa = File::open(&a).unwrap();
        let meta = Meta {
            target: b.display().to_string(),
            identity: TargetId::of(&File::open(&b).unwrap()).unwrap(),
            origin: 0,
            unit: 4096,
            units: 1,
            seed: 5,
            id: 0,
            compress_pct: 0,
            saved_unix_ns: 1,
        };
        let s = d.path().join("b.iogauge-verify");
        let e = meta.check_target(&s, &a, &fa).unwrap_err().to_string();
        assert!(
            e.contains("b.iogauge-verify") && e.contains(&format!("not of '{}'", a.display())),
            "{e}"
        );
        let mine = Meta {
            identity: TargetId::of(&fa).unwrap(),
            ..meta
        };
        mine.check_target(&s, &a, &fa).unwrap();
        std::fs::write(&s, "iogauge verify state 1\n{}\n").unwrap();
        let e = load(&s).unwrap_err().to_string();
        assert!(e.contains("an earlier iogauge"), "{e}");
    }
}
