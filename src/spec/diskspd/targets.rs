//! What the I/O goes to: the targets (paths, or `#N` for the Nth disk; a drive letter is the
//! volume on Windows, refused elsewhere), the size they are created at (-c) and the offsets used on each (-B base and
//! length, -f maximum).

use super::values::{bad, size};
use crate::error::Result;
use crate::spec::TargetSpec;
use std::cell::OnceCell;
use std::path::PathBuf;

/// `#N` targets: the Nth disk. `disks` lists the disks in the order DiskSpd's numbers mean
/// here (Linux: whole disks by name; Windows: PhysicalDrive0, 1...).
pub struct Targets<'a> {
    pub disks: &'a dyn Fn() -> Vec<PathBuf>,
}

/// Whole disks: what `#0`, `#1`... mean here (Linux: by name; Windows: PhysicalDriveN).
pub fn disks_here() -> Vec<PathBuf> {
    crate::os::file::whole_disks()
}

/// The size switches of the targets, as given.
#[derive(Default)]
pub(super) struct Extent {
    /// -c.
    pub create: Option<u64>,
    /// -B.
    pub base: u64,
    /// -B<base>:<length> or -f.
    pub max: Option<u64>,
}

impl Extent {
    /// `-B<base>[:<length>]`.
    pub fn base(&mut self, a: &str, v: &str, block: u64) -> Result<()> {
        let (b, len) = match v.split_once(':') {
            Some((b, l)) => (b, Some(l)),
            None => (v, None),
        };
        self.base = size(b, block, a)?;
        if let Some(l) = len {
            self.no_max_yet(a)?;
            let max = self
                .base
                .checked_add(size(l, block, a)?)
                .ok_or_else(|| bad(format!("{a}: invalid target length passed to -B")))?;
            self.max = Some(max);
        }
        Ok(())
    }

    /// `-f<size>`.
    pub fn max(&mut self, a: &str, v: &str, block: u64) -> Result<()> {
        self.no_max_yet(a)?;
        self.max = Some(size(v, block, a)?);
        Ok(())
    }

    fn no_max_yet(&self, a: &str) -> Result<()> {
        if self.max.is_some() {
            return Err(bad(format!(
                "{a}: maximum target offset (-Bbase:length or -fsize) can only be specified once"
            )));
        }
        Ok(())
    }

    /// DiskSpd's validator on the offsets.
    pub fn check(&self) -> Result<()> {
        match self.max {
            Some(m) if m <= self.base => Err(bad(
                "maximum (-f) target offset must be greater than base (-B)",
            )),
            _ => Ok(()),
        }
    }

    /// The targets named by `paths`, each created at -c's size where it must be.
    pub fn targets(
        &self,
        paths: &[String],
        targets_of: &Targets,
        notes: &mut Vec<String>,
    ) -> Result<Vec<TargetSpec>> {
        let disks = OnceCell::new();
        paths
            .iter()
            .map(|p| -> Result<TargetSpec> {
                Ok(TargetSpec {
                    path: path(p, &disks, targets_of, notes)?,
                    create_size: self.create,
                    temporary: false,
                })
            })
            .collect()
    }
}

/// The path target `p` names: itself, or for `#N` the Nth of the disks listed once
/// (`disks`), with a note saying which.
fn path(
    p: &str,
    disks: &OnceCell<Vec<PathBuf>>,
    targets_of: &Targets,
    notes: &mut Vec<String>,
) -> Result<PathBuf> {
    if let Some(n) = p.strip_prefix('#') {
        let n: usize = n
            .parse()
            .map_err(|_| bad(format!("target '{p}': #N needs a disk number")))?;
        let list = disks.get_or_init(|| (targets_of.disks)());
        let dev = list.get(n).cloned().ok_or_else(|| {
            bad(format!(
                "target '{p}': there is no disk {n} (this machine has {})",
                list.len()
            ))
        })?;
        notes.push(format!(
            "target {p} is {} ({})",
            dev.display(),
            if cfg!(windows) {
                "the physical drive of that number"
            } else {
                "disks numbered by name"
            }
        ));
        return Ok(dev);
    }
    if p.len() == 2 && p.ends_with(':') {
        return crate::os::file::volume_of_letter(p).ok_or_else(|| {
            bad(format!(
                "target '{p}': drive letters exist only on Windows; give a path"
            ))
        });
    }
    Ok(PathBuf::from(p))
}
