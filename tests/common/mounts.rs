//! Real file systems for the end-to-end tests: loop-mounted images (ext4, xfs, btrfs) and
//! memory file systems (tmpfs, ramfs), unmounted when dropped. A missing tool or no root is
//! an Err with the reason, which the tests report as SKIPPED.
#![allow(dead_code)]

use super::{p, sh};
use std::path::{Path, PathBuf};

use super::need_tool;

/// A mounted file system, unmounted when dropped (a loop device made by mount -o loop is
/// released with it).
pub struct Mounted(pub PathBuf);
impl Drop for Mounted {
    fn drop(&mut self) {
        if sh("umount", &[p(&self.0)]).is_err() {
            let _ = sh("umount", &["-l", p(&self.0)]);
        }
    }
}

pub fn mount_point(base: &Path, name: &str) -> PathBuf {
    let m = base.join(name);
    std::fs::create_dir_all(&m).unwrap();
    m
}

/// `kind` (ext4, xfs, btrfs) made in a sparse image file of `mib` MiB and loop-mounted.
pub fn image_fs(base: &Path, kind: &str, mib: u64) -> Result<(Mounted, PathBuf), String> {
    need_tool(&format!("mkfs.{kind}"))?;
    let image = base.join(format!("{kind}.img"));
    std::fs::File::create(&image)
        .and_then(|f| f.set_len(mib << 20))
        .map_err(|e| format!("image: {e}"))?;
    let force = if kind == "ext4" { "-F" } else { "-f" };
    sh(&format!("mkfs.{kind}"), &[force, "-q", p(&image)])?;
    let m = mount_point(base, kind);
    sh("mount", &["-o", "loop", p(&image), p(&m)])
        .map_err(|e| format!("cannot loop-mount {kind} (no loop devices?): {e}"))?;
    Ok((Mounted(m.clone()), m))
}

pub fn memory_fs(base: &Path, kind: &str, opts: &str) -> Result<(Mounted, PathBuf), String> {
    let m = mount_point(base, kind);
    sh("mount", &["-t", kind, "-o", opts, kind, p(&m)])
        .map_err(|e| format!("cannot mount {kind}: {e}"))?;
    Ok((Mounted(m.clone()), m))
}
