//! A folder of iogauge's own inside a user's folder, for commands that make many files there
//! (the file-system suite, sweeps).

use crate::error::{Error, Result};
use crate::os::owned::{Folders, Owned};
use std::path::{Path, PathBuf};

/// The folder a command owns inside one DIR (`DIR/iogauge-<what>-<pid>`). Removed with
/// everything in it when dropped, so an error, a panic or Ctrl-C leaves nothing behind; and
/// only while it is still the folder the command created ([`Owned`]), never one a user put at
/// its place.
pub struct Workspace {
    pub root: PathBuf,
    owned: Owned,
    folders: Folders,
}

impl Workspace {
    /// Make `DIR/iogauge-<what>-<pid>` (or `-1`, `-2`... if taken).
    pub fn create(dir: &Path, what: &str) -> Result<Workspace> {
        let pid = std::process::id();
        for n in 0..100 {
            let root = dir.join(if n == 0 {
                format!("iogauge-{what}-{pid}")
            } else {
                format!("iogauge-{what}-{pid}-{n}")
            });
            match std::fs::create_dir(&root) {
                Ok(()) => {
                    let mut folders = Folders::default();
                    let owned = Owned::named(&root, &mut folders).map_err(|e| {
                        Error::runtime(format!("cannot open '{}': {e}", root.display()))
                    })?;
                    return Ok(Workspace {
                        root,
                        owned,
                        folders,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Error::usage(format!(
                        "cannot write in folder '{}': {e}",
                        dir.display()
                    )))
                }
            }
        }
        Err(Error::runtime(format!(
            "cannot find a free name for iogauge's folder in '{}'",
            dir.display()
        )))
    }

    /// Remove one test's folder inside the workspace, if the workspace is still ours.
    pub fn clear(&mut self, folder: &Path) {
        if self.owned.still_ours() {
            if let Ok(o) = Owned::named(folder, &mut self.folders) {
                let _ = o.remove();
            }
        }
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        if let Err(e) = self.owned.remove() {
            eprintln!("iogauge: cannot remove '{}': {e}", self.root.display());
        }
    }
}
