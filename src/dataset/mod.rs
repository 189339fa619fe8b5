//! Datasets: a seeded tree of files of chosen sizes and compressibility, with a manifest of
//! each file's size and checksum, made for the workloads (copy, archive, scan...) to work on
//! and checked afterwards against that manifest.
//!
//! Everything about a file (its folder, name, size and bytes) follows from the seed and its
//! index alone, so the tree can be made by many threads in any order and comes out the same.

pub mod content;
pub mod create;
pub mod manifest;
pub mod verify;

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

pub use crate::spec::dataset::{
    parse_histogram, DatasetSpec, SizeDist, MAX_DEPTH, MAX_DIRS, MAX_FILES, MAX_FILE_SIZE,
};

/// Named datasets that stand for real ones. `zip-seed` is the archive of the seed document
/// (757 files, 13.1 GB, zipped to 2.29 GB: 17 MB a file, 83% compressible).
pub const PRESETS: [(&str, &str); 4] = [
    (
        "zip-seed",
        "757 files of about 17 MiB (log-normal, sigma 0.25), 83% compressible: the seed's zip test",
    ),
    (
        "source-tree",
        "20,000 files of about 4 KiB (log-normal, sigma 1.2) in folders 4 deep, 75% compressible",
    ),
    (
        "photos",
        "2,000 files of about 3 MiB (log-normal, sigma 0.4), 2% compressible (already compressed)",
    ),
    (
        "mail-spool",
        "50,000 messages of about 6 KiB (log-normal, sigma 1.0), 60% compressible",
    ),
];

/// The preset `name`'s dataset.
pub fn preset(name: &str, seed: u64) -> Result<DatasetSpec> {
    let (files, median, sigma, pct, ext, fanout) = match name {
        "zip-seed" => (757, 17 << 20, 0.25, 83, ".bin", 4),
        "source-tree" => (20_000, 4 << 10, 1.2, 75, ".c", 6),
        "photos" => (2_000, 3 << 20, 0.4, 2, ".jpg", 12),
        "mail-spool" => (50_000, 6 << 10, 1.0, 60, ".eml", 16),
        other => {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
            return Err(Error::usage(format!(
                "--preset {other}: no such preset (there are {})",
                names.join(", ")
            )));
        }
    };
    let dirs = default_dirs(files);
    Ok(DatasetSpec {
        files,
        dirs,
        fanout,
        sizes: SizeDist::Lognormal { median, sigma },
        compressible_pct: pct,
        extension: ext.into(),
        seed,
        preset: Some(name.into()),
    })
}

/// About 64 files a folder.
pub fn default_dirs(files: u64) -> u64 {
    files.div_ceil(64).saturating_sub(1)
}

/// The smallest fanout that fits `dirs` folders in `depth` levels (a binary search:
/// [`dirs_for`] grows with the fanout).
pub fn fanout_for(dirs: u64, depth: u32) -> u64 {
    let (mut lo, mut hi) = (1, dirs.max(1));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if dirs_for(mid, depth) >= dirs {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// Folders of a full tree `depth` deep with `fanout` a folder (at most u64::MAX, which
/// validation then refuses).
pub fn dirs_for(fanout: u64, depth: u32) -> u64 {
    (1..=depth).fold(0u64, |n, d| n.saturating_add(fanout.saturating_pow(d)))
}

// Made where the content is: the spec itself lives in spec/dataset.rs.
impl DatasetSpec {
    /// File `i`'s content.
    pub fn content(&self, i: u64) -> content::Content {
        let saving = f64::from(self.compressible_pct) / 100.0;
        content::Content::new(self.seed, &[CONTENT_STREAM, i], saving)
    }
}

const CONTENT_STREAM: u64 = 2;

/// The manifest's name in a dataset's top folder.
pub const MANIFEST: &str = ".iogauge-dataset";

/// `dir`'s manifest path.
pub fn manifest_path(dir: &Path) -> PathBuf {
    dir.join(MANIFEST)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(files: u64, dirs: u64, fanout: u64) -> DatasetSpec {
        DatasetSpec {
            files,
            dirs,
            fanout,
            sizes: SizeDist::Fixed { bytes: 10 },
            compressible_pct: 50,
            extension: ".dat".into(),
            seed: 1,
            preset: None,
        }
    }

    #[test]
    fn folders_fill_breadth_first_and_files_go_round_them() {
        let s = spec(10, 6, 2);
        let dirs: Vec<String> = (0..=6)
            .map(|k| s.dir_path(k).to_string_lossy().replace('\\', "/"))
            .collect();
        assert_eq!(
            dirs,
            ["", "d00", "d01", "d00/d00", "d00/d01", "d01/d00", "d01/d01"]
        );
        assert_eq!(s.file(0).0, Path::new("f0000000.dat"));
        assert_eq!(s.file(8).0, Path::new("d00/f0000008.dat"));
        assert_eq!(s.file(6).0, Path::new("d01/d01/f0000006.dat"));
    }

    #[test]
    fn the_fanout_fits_the_folders_in_the_depth() {
        assert_eq!(fanout_for(6, 2), 2);
        assert_eq!(fanout_for(7, 2), 3);
        assert_eq!(fanout_for(100, 1), 100);
        assert_eq!(dirs_for(3, 3), 39);
    }

    #[test]
    fn sizes_are_drawn_the_same_for_a_seed_and_about_their_median() {
        let mut s = spec(10_001, 0, 1);
        s.sizes = SizeDist::Lognormal {
            median: 4096,
            sigma: 1.0,
        };
        let mut sizes: Vec<u64> = (0..s.files).map(|i| s.file(i).1).collect();
        assert_eq!(sizes, (0..s.files).map(|i| s.file(i).1).collect::<Vec<_>>());
        sizes.sort_unstable();
        let median = sizes[sizes.len() / 2] as f64;
        assert!((median / 4096.0 - 1.0).abs() < 0.1, "median {median}");
    }

    #[test]
    fn size_distributions_parse_or_say_what_is_wrong() {
        assert_eq!(
            SizeDist::parse("fixed:4K").unwrap(),
            SizeDist::Fixed { bytes: 4096 }
        );
        assert_eq!(
            SizeDist::parse("lognormal:1M:0.5").unwrap(),
            SizeDist::Lognormal {
                median: 1 << 20,
                sigma: 0.5
            }
        );
        let e = SizeDist::parse("lognormal:1M").unwrap_err().to_string();
        assert!(e.starts_with("--size-dist lognormal:1M: expected"), "{e}");
        let e = SizeDist::parse("pareto:1").unwrap_err().to_string();
        assert!(e.contains("expected fixed:SIZE"), "{e}");
        assert_eq!(
            parse_histogram("# size weight\n4K 3\n1M 1 # big\n").unwrap(),
            vec![(4096, 3.0), (1 << 20, 1.0)]
        );
        assert!(parse_histogram("4K\n").unwrap_err().starts_with("line 1"));
        assert!(parse_histogram("4K 0\n").is_err());
    }

    #[test]
    fn presets_are_valid_and_unknown_ones_are_named() {
        for (name, _) in PRESETS {
            preset(name, 1).unwrap().validate().unwrap();
        }
        let e = preset("nope", 1).unwrap_err().to_string();
        assert!(e.contains("--preset nope") && e.contains("zip-seed"), "{e}");
    }
}
