//! What `iogauge dataset create` and `iogauge dataset verify` report: what was made and how
//! fast; what was checked and what was found wrong.

use crate::spec::dataset::DatasetSpec;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The most paths of each kind a report lists (the counts are whole).
const LISTED: usize = 100;

/// What was made, and how fast.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CreateReport {
    pub dir: String,
    pub spec: DatasetSpec,
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
    pub threads: u32,
    /// Making the folders and writing the files (what `cp -r` of the tree would do).
    pub elapsed_ns: u64,
    /// Then syncing the file system, apart.
    pub sync_ns: u64,
    pub files_per_s: f64,
    pub mib_per_s: f64,
    pub manifest: String,
    /// The whole dataset's checksum (see [`Manifest::checksum`]).
    pub manifest_xxh3: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct VerifyReport {
    pub dir: String,
    pub manifest: String,
    pub manifest_xxh3: String,
    pub files: u64,
    pub bytes: u64,
    pub threads: u32,
    pub elapsed_ns: u64,
    pub mib_per_s: f64,
    /// Every file of the manifest there, whole and the same (files it does not name are
    /// listed, not counted against it: --force makes a dataset beside other files).
    pub ok: bool,
    pub missing: Problems,
    pub wrong_size: Problems,
    pub wrong_content: Problems,
    /// Files in the tree the manifest does not name.
    pub extra: Problems,
}

/// How many files had one problem, and the first of them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Problems {
    pub count: u64,
    pub paths: Vec<String>,
}

impl Problems {
    pub fn add(&mut self, path: &Path) {
        self.count += 1;
        if self.paths.len() < LISTED {
            self.paths.push(path.to_string_lossy().into_owned());
        }
    }
}
