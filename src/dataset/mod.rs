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
use crate::rng::Rng;
use crate::units::{format_size, parse_size};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a dataset is made of; saved at the head of its manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetSpec {
    pub files: u64,
    /// Folders below the top one (0: every file in the top folder).
    pub dirs: u64,
    /// Subfolders of each folder, breadth first: folder k's parent is folder (k - 1) / fanout.
    pub fanout: u64,
    pub sizes: SizeDist,
    /// The share of each file that deflate and zstd compress away, in percent.
    pub compressible_pct: u32,
    /// Each file's name ends so (".dat", ".jpg"...).
    pub extension: String,
    pub seed: u64,
    /// The preset this came from, if any.
    pub preset: Option<String>,
}

/// How file sizes are drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SizeDist {
    Fixed {
        bytes: u64,
    },
    /// Log-normal about `median` bytes: most files near it, a long tail of large ones (file
    /// sizes on real systems look like this).
    Lognormal {
        median: u64,
        sigma: f64,
    },
    /// Sizes drawn by weight, from a histogram file's lines "SIZE WEIGHT".
    Histogram {
        bins: Vec<(u64, f64)>,
    },
}

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

/// The most files, folders and levels of folders a dataset has; the largest file.
pub const MAX_FILES: u64 = 100_000_000;
pub const MAX_DIRS: u64 = 10_000_000;
/// Folders deeper than this could not be removed again (os/owned.rs stops at 64 levels).
pub const MAX_DEPTH: u64 = 32;
/// 1 PiB: the most a size typed after --size-dist may be.
pub const MAX_FILE_SIZE: u64 = 1 << 50;

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

impl SizeDist {
    /// `fixed:SIZE`, `lognormal:MEDIAN:SIGMA` or `histogram:FILE`, as typed after
    /// `--size-dist`.
    pub fn parse(text: &str) -> Result<SizeDist> {
        let bad = |why: String| Error::usage(format!("--size-dist {text}: {why}"));
        let size = |s: &str| {
            let v = parse_size(s).map_err(bad)?;
            check_size(v).map_err(bad)
        };
        let mut parts = text.splitn(2, ':');
        let kind = parts.next().unwrap_or("");
        let rest = parts.next().unwrap_or("");
        match kind {
            "fixed" => Ok(SizeDist::Fixed { bytes: size(rest)? }),
            "lognormal" => {
                let (m, s) = rest
                    .split_once(':')
                    .ok_or_else(|| bad("expected lognormal:MEDIAN:SIGMA".into()))?;
                let sigma: f64 = s
                    .parse()
                    .ok()
                    .filter(|v: &f64| (0.0..=4.0).contains(v))
                    .ok_or_else(|| bad(format!("sigma '{s}' is not a number from 0 to 4")))?;
                Ok(SizeDist::Lognormal {
                    median: size(m)?,
                    sigma,
                })
            }
            "histogram" => {
                let text = std::fs::read_to_string(rest)
                    .map_err(|e| bad(format!("cannot read '{rest}': {e}")))?;
                let bins = parse_histogram(&text).map_err(|e| bad(format!("{rest}: {e}")))?;
                for &(v, _) in &bins {
                    check_size(v).map_err(|e| bad(format!("{rest}: {e}")))?;
                }
                Ok(SizeDist::Histogram { bins })
            }
            _ => Err(bad(
                "expected fixed:SIZE, lognormal:MEDIAN:SIGMA or histogram:FILE".into(),
            )),
        }
    }

    /// File `index`'s size.
    pub fn draw(&self, rng: &mut Rng) -> u64 {
        match self {
            SizeDist::Fixed { bytes } => *bytes,
            SizeDist::Lognormal { median, sigma } => {
                // Box-Muller: one standard normal from two uniforms.
                let (u1, u2) = (rng.unit().max(1e-300), rng.unit());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let v = *median as f64 * (sigma * z).exp();
                v.round().min(1e15) as u64
            }
            SizeDist::Histogram { bins } => {
                let total: f64 = bins.iter().map(|b| b.1).sum();
                let mut pick = rng.unit() * total;
                for &(size, w) in bins {
                    if pick < w {
                        return size;
                    }
                    pick -= w;
                }
                bins.last().map_or(0, |b| b.0)
            }
        }
    }

    /// As typed, for reports.
    pub fn describe(&self) -> String {
        match self {
            SizeDist::Fixed { bytes } => format!("fixed {}", format_size(*bytes)),
            SizeDist::Lognormal { median, sigma } => {
                format!("log-normal about {} (sigma {sigma})", format_size(*median))
            }
            SizeDist::Histogram { bins } => format!("a histogram of {} sizes", bins.len()),
        }
    }
}

/// A size no larger than [`MAX_FILE_SIZE`], or why not.
fn check_size(v: u64) -> std::result::Result<u64, String> {
    if v > MAX_FILE_SIZE {
        return Err(format!(
            "a file of {} is more than iogauge makes (at most {})",
            format_size(v),
            format_size(MAX_FILE_SIZE)
        ));
    }
    Ok(v)
}

/// A histogram file: a line "SIZE WEIGHT" per bin; `#` starts a comment.
pub fn parse_histogram(text: &str) -> std::result::Result<Vec<(u64, f64)>, String> {
    let mut bins = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut f = line.split_whitespace();
        let (Some(size), Some(weight), None) = (f.next(), f.next(), f.next()) else {
            return Err(format!("line {}: expected SIZE WEIGHT", n + 1));
        };
        let size = parse_size(size).map_err(|e| format!("line {}: {e}", n + 1))?;
        let weight: f64 = weight
            .parse()
            .ok()
            .filter(|w: &f64| w.is_finite() && *w >= 0.0)
            .ok_or_else(|| format!("line {}: weight '{weight}' is not a number >= 0", n + 1))?;
        bins.push((size, weight));
    }
    if bins.iter().map(|b| b.1).sum::<f64>() <= 0.0 {
        return Err("no bin with a weight above 0".into());
    }
    Ok(bins)
}

impl DatasetSpec {
    /// Refuse what cannot be made, naming the flag.
    pub fn validate(&self) -> Result<()> {
        if self.files == 0 {
            return Err(Error::usage("--files 0: a dataset needs at least one file"));
        }
        if self.compressible_pct > 99 {
            return Err(Error::usage(format!(
                "--compressible {}: a share from 0 to 99 percent",
                self.compressible_pct
            )));
        }
        if self.dirs > 0 && self.fanout == 0 {
            return Err(Error::usage(
                "--fanout 0: folders need a fanout of 1 or more",
            ));
        }
        if self.dirs > MAX_DIRS || self.files > MAX_FILES {
            return Err(Error::usage(format!(
                "{} files in {} folders: more than iogauge makes (100 million files, 10 \
                 million folders)",
                self.files, self.dirs
            )));
        }
        Ok(())
    }

    /// Folder `k`'s path below the top (0: the top itself, ""): breadth first, so folders
    /// fill one level before the next.
    pub fn dir_path(&self, k: u64) -> PathBuf {
        let mut names = Vec::new();
        let mut k = k;
        while k > 0 {
            names.push(format!("d{:02}", (k - 1) % self.fanout));
            k = (k - 1) / self.fanout;
        }
        names.iter().rev().collect()
    }

    /// File `i`: its path below the top and its size. Files go round the folders in turn.
    pub fn file(&self, i: u64) -> (PathBuf, u64) {
        let dir = self.dir_path(i % (self.dirs + 1));
        let mut rng = Rng::new(self.seed, &[SIZE_STREAM, i]);
        let name = format!("f{i:07}{}", self.extension);
        (dir.join(name), self.sizes.draw(&mut rng))
    }

    /// File `i`'s content.
    pub fn content(&self, i: u64) -> content::Content {
        let saving = f64::from(self.compressible_pct) / 100.0;
        content::Content::new(self.seed, &[CONTENT_STREAM, i], saving)
    }

    /// What it is, in a line.
    pub fn describe(&self) -> String {
        let from = self
            .preset
            .as_deref()
            .map_or(String::new(), |p| format!(" (preset {p})"));
        format!(
            "{} files in {} folders, sizes {}, {}% compressible, seed {}{from}",
            self.files,
            self.dirs,
            self.sizes.describe(),
            self.compressible_pct,
            self.seed
        )
    }
}

const SIZE_STREAM: u64 = 1;
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
            .map(|k| s.dir_path(k).to_string_lossy().into_owned())
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
