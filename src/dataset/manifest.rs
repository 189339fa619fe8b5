//! A dataset's manifest: what was asked for (the spec, as JSON) and, a line each, every
//! file's size, XXH3-64 checksum and path below the top folder. Text, so that `grep`, `awk`
//! and a diff of two manifests work on it:
//!
//! ```text
//! # iogauge dataset manifest 1
//! {"files":2,...}
//! 4096<TAB>9f2c...<TAB>d00/f0000001.dat
//! ```

use super::DatasetSpec;
use crate::error::{Error, Result};
use std::io::{BufWriter, Write};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

const HEADER: &str = "# iogauge dataset manifest 1";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Below the top folder, '/'-separated.
    pub path: String,
    pub size: u64,
    pub xxh3: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub spec: DatasetSpec,
    /// In file order.
    pub entries: Vec<Entry>,
}

impl Manifest {
    /// One checksum for the whole dataset (every path, size and checksum in order): the same
    /// seed and spec give the same, on any machine.
    pub fn checksum(&self) -> u64 {
        let mut h = Xxh3::new();
        for e in &self.entries {
            h.update(line(e).as_bytes());
        }
        h.digest()
    }

    pub fn total_bytes(&self) -> u64 {
        // Saturating: a manifest from elsewhere may claim sizes no file system holds.
        self.entries.iter().fold(0, |n, e| n.saturating_add(e.size))
    }

    /// Written to a new file at `path` (never over one).
    pub fn write(&self, path: &Path) -> Result<()> {
        let cannot = |e: std::io::Error| {
            Error::runtime(format!(
                "cannot write the manifest '{}': {e}",
                path.display()
            ))
        };
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(cannot)?;
        let mut w = BufWriter::new(f);
        let spec = serde_json::to_string(&self.spec).map_err(|e| Error::runtime(e.to_string()))?;
        writeln!(w, "{HEADER}\n{spec}").map_err(cannot)?;
        for e in &self.entries {
            w.write_all(line(e).as_bytes()).map_err(cannot)?;
        }
        w.into_inner()
            .map_err(|e| cannot(e.into_error()))?
            .sync_all()
            .map_err(cannot)
    }

    /// The manifest at `path`; an error names the file and the line.
    pub fn read(path: &Path) -> Result<Manifest> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::usage(format!(
                "cannot read the manifest '{shown}': {e} (iogauge dataset create writes it)"
            ))
        })?;
        Manifest::parse(&text, &shown)
    }

    /// A manifest's text; `shown`: where it came from, for errors.
    pub fn parse(text: &str, shown: &str) -> Result<Manifest> {
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return Err(Error::usage(format!(
                "'{shown}' is not an iogauge dataset manifest (its first line is not '{HEADER}')"
            )));
        }
        let spec: DatasetSpec = serde_json::from_str(lines.next().unwrap_or_default())
            .map_err(|e| Error::usage(format!("'{shown}' line 2: {e}")))?;
        let entries = lines
            .enumerate()
            .map(|(k, l)| {
                parse_line(l).ok_or_else(|| {
                    Error::usage(format!(
                        "'{shown}' line {}: expected SIZE<tab>XXH3<tab>PATH, found '{l}'",
                        k + 3
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Manifest { spec, entries })
    }
}

fn line(e: &Entry) -> String {
    format!("{}\t{:016x}\t{}\n", e.size, e.xxh3, e.path)
}

fn parse_line(l: &str) -> Option<Entry> {
    let mut f = l.splitn(3, '\t');
    let size = f.next()?.parse().ok()?;
    let xxh3 = u64::from_str_radix(f.next()?, 16).ok()?;
    let path = f.next()?.to_string();
    // A path that climbs out of the dataset, or starts at the root, is not one iogauge wrote.
    let inside = !path.is_empty()
        && !path.starts_with('/')
        && path.split('/').all(|c| !c.is_empty() && c != "..");
    inside.then_some(Entry { path, size, xxh3 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::SizeDist;

    fn manifest() -> Manifest {
        Manifest {
            spec: DatasetSpec {
                files: 2,
                dirs: 1,
                fanout: 1,
                sizes: SizeDist::Fixed { bytes: 3 },
                compressible_pct: 0,
                extension: ".dat".into(),
                seed: 9,
                preset: None,
            },
            entries: vec![
                Entry {
                    path: "f0000000.dat".into(),
                    size: 3,
                    xxh3: 0xabc,
                },
                Entry {
                    path: "d00/f0000001.dat".into(),
                    size: 3,
                    xxh3: u64::MAX,
                },
            ],
        }
    }

    #[test]
    fn a_manifest_reads_back_as_written_and_is_never_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m");
        let m = manifest();
        m.write(&p).unwrap();
        assert_eq!(Manifest::read(&p).unwrap(), m);
        assert!(m.write(&p).is_err());
    }

    #[test]
    fn a_line_that_is_not_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m");
        let spec = serde_json::to_string(&manifest().spec).unwrap();
        std::fs::write(&p, format!("{HEADER}\n{spec}\n3\tzz\tf\n")).unwrap();
        let e = Manifest::read(&p).unwrap_err().to_string();
        assert!(e.contains("line 3: expected SIZE"), "{e}");
        std::fs::write(&p, format!("{HEADER}\n{spec}\n3\t0\t../etc/passwd\n")).unwrap();
        assert!(Manifest::read(&p).is_err());
        std::fs::write(&p, "hello\n").unwrap();
        let e = Manifest::read(&p).unwrap_err().to_string();
        assert!(e.contains("not an iogauge dataset manifest"), "{e}");
    }
}
