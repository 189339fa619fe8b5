//! What a dataset is made of (`iogauge dataset create`'s flags, a preset, or the head of a
//! manifest): the files, folders, sizes, compressibility and seed, checked. Everything about a
//! file follows from the seed and its index alone; making the files is dataset/'s.

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::units::{format_size, parse_size};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

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

/// The most files, folders and levels of folders a dataset has; the largest file.
pub const MAX_FILES: u64 = 100_000_000;
pub const MAX_DIRS: u64 = 10_000_000;
/// Folders deeper than this could not be removed again (os/owned.rs stops at 64 levels).
pub const MAX_DEPTH: u64 = 32;
/// 1 PiB: the most a size typed after --size-dist may be.
pub const MAX_FILE_SIZE: u64 = 1 << 50;

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
