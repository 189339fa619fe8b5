//! What a workload made in its target, each thing remembered by identity ([`Owned`]) and
//! removed when asked or when dropped (an error, Ctrl-C), unless kept; never anything else.

use crate::error::{Error, Result};
use crate::os::owned::{Folders, Owned, Removal};
use std::fs::File;
use std::path::Path;

/// Things made in the target, removed (if still iogauge's) when asked or dropped.
pub struct Made {
    folders: Folders,
    items: Vec<Owned>,
    pub keep: bool,
}

impl Default for Made {
    fn default() -> Made {
        Made::new()
    }
}

impl Made {
    pub fn new() -> Made {
        Made {
            folders: Folders::default(),
            items: Vec::new(),
            keep: false,
        }
    }

    /// A new folder at `path`.
    pub fn folder(&mut self, path: &Path) -> Result<()> {
        std::fs::create_dir(path).map_err(|e| made_error(path, e))?;
        self.own(path)
    }

    /// A new folder at `path` for a system tool to fill: everything in it goes with it.
    pub fn folder_whole(&mut self, path: &Path) -> Result<()> {
        self.folder(path)?;
        if let Some(o) = self.items.last_mut() {
            o.only_recorded = false;
        }
        Ok(())
    }

    /// A new file at `path`.
    pub fn file(&mut self, path: &Path) -> Result<File> {
        let f = File::create_new(path).map_err(|e| made_error(path, e))?;
        let o = Owned::file(path, &f, &mut self.folders)
            .map_err(|e| Error::runtime(format!("cannot track '{}': {e}", path.display())))?;
        self.items.push(o);
        Ok(f)
    }

    pub fn own(&mut self, path: &Path) -> Result<()> {
        let mut o = Owned::named(path, &mut self.folders)
            .map_err(|e| Error::runtime(format!("cannot track '{}': {e}", path.display())))?;
        // A user's file put inside during the run stays.
        o.only_recorded = true;
        self.items.push(o);
        Ok(())
    }

    fn find(&self, path: &Path) -> Option<usize> {
        self.items.iter().position(|o| o.path() == path)
    }

    /// Whether `path` is something made here.
    pub fn made(&self, path: &Path) -> bool {
        self.find(path).is_some()
    }

    /// Whether `f`, opened at `path`, is what was made there.
    pub fn is(&self, path: &Path, f: &File) -> bool {
        self.find(path).is_some_and(|k| self.items[k].is(f))
    }

    /// Remove `path`, made here; a warning if it is no longer what was made.
    pub fn remove(&mut self, path: &Path) {
        if let Some(k) = self.find(path) {
            let o = self.items.remove(k);
            report_removal(&o);
        }
    }

    /// Remove `path`, made here, or say why not.
    pub fn remove_checked(&mut self, path: &Path) -> Result<()> {
        let k = self
            .find(path)
            .ok_or_else(|| Error::runtime(format!("'{}' is not iogauge's", path.display())))?;
        let o = self.items.remove(k);
        let mut left = Vec::new();
        match o.remove_leaving(&mut left) {
            Ok(Removal::Removed) if !left.is_empty() => Err(Error::runtime(format!(
                "'{}' holds what iogauge did not make: left in place, with {}",
                path.display(),
                shown(&left)
            ))),
            Ok(Removal::Removed | Removal::Gone) => Ok(()),
            Ok(Removal::Replaced) => Err(Error::runtime(format!(
                "'{}' is no longer what iogauge made: left alone",
                path.display()
            ))),
            Err(e) => Err(Error::runtime(format!(
                "cannot remove '{}': {e}",
                path.display()
            ))),
        }
    }

    pub fn remove_all(&mut self) {
        while let Some(o) = self.items.pop() {
            report_removal(&o);
        }
    }
}

impl Drop for Made {
    fn drop(&mut self) {
        if !self.keep {
            self.remove_all();
        }
    }
}

fn report_removal(o: &Owned) {
    let mut left = Vec::new();
    let r = o.remove_leaving(&mut left);
    for p in &left {
        eprintln!(
            "iogauge: left '{}' in place: not made by iogauge",
            p.display()
        );
    }
    match r {
        Ok(Removal::Removed | Removal::Gone) => {}
        Ok(Removal::Replaced) => eprintln!(
            "iogauge: warning: '{}' is no longer what iogauge made: left alone",
            o.path().display()
        ),
        Err(e) => eprintln!(
            "iogauge: warning: cannot remove '{}': {e}",
            o.path().display()
        ),
    }
}

/// The first few of `paths`, quoted.
fn shown(paths: &[std::path::PathBuf]) -> String {
    let mut s: Vec<String> = paths
        .iter()
        .take(3)
        .map(|p| format!("'{}'", p.display()))
        .collect();
    if paths.len() > 3 {
        s.push(format!("{} more", paths.len() - 3));
    }
    s.join(", ")
}

fn made_error(path: &Path, e: std::io::Error) -> Error {
    let why = match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            "something is already there, and iogauge writes only what it makes".to_string()
        }
        _ => e.to_string(),
    };
    Error::runtime(format!("cannot make '{}': {why}", path.display()))
}
