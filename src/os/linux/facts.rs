//! Linux's facts: /proc (host, kernel, CPU model, memory, mounts) and /sys (the block device
//! under a file, its queue and model), statvfs for free space.

use crate::os::facts::{Device, Mount, System};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

pub fn system() -> System {
    System {
        hostname: read_trim("/proc/sys/kernel/hostname").unwrap_or_default(),
        kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
        cpu_model: std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name") || l.starts_with("Model"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        }),
    }
}

/// MemTotal from /proc/meminfo.
pub fn memory_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Whether the descriptor kept O_DIRECT (a file system may drop it silently).
pub fn direct_kept(file: &File) -> bool {
    // SAFETY: F_GETFL on a descriptor we own.
    let fl = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
    fl >= 0 && fl & libc::O_DIRECT != 0
}

/// The block device under `file` (the file itself where `is_block_device`), its queue and its
/// model. btrfs and others report an anonymous device number: the mount source names the
/// real one.
pub fn device_of(file: &File, is_block_device: bool, mount: Option<&Mount>) -> Device {
    let dev = file
        .metadata()
        .ok()
        .map(|m| if is_block_device { m.rdev() } else { m.dev() });
    let name = dev.and_then(disk_of_dev).or_else(|| {
        mount
            .filter(|_| !is_block_device)
            .and_then(|m| m.source.strip_prefix("/dev/").and_then(disk_of_name))
    });
    let Some(disk) = name else {
        return Device::default();
    };
    let q = |name: &str| read_trim(&format!("/sys/block/{disk}/queue/{name}"));
    Device {
        rotational: q("rotational").map(|v| v == "1"),
        scheduler: q("scheduler").map(|s| {
            s.split_whitespace()
                .find(|w| w.starts_with('['))
                .map(|w| w.trim_matches(['[', ']']).to_string())
                .unwrap_or(s)
        }),
        nr_requests: q("nr_requests").and_then(|v| v.parse().ok()),
        queue_depth: device_tags(&disk),
        model: read_trim(&format!("/sys/block/{disk}/device/model"))
            .filter(|m| !m.is_empty())
            .or_else(|| {
                std::fs::read_link(format!("/sys/block/{disk}/device/driver"))
                    .ok()
                    .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            }),
        name: Some(disk),
    }
}

/// The type of the file system holding `path` (ext4, tmpfs, fuse.bindfs...).
pub fn fs_type_of(path: &Path) -> Option<String> {
    let canonical = std::fs::canonicalize(path).ok()?;
    mount_of(&canonical).map(|m| m.fs_type)
}

/// The mount holding `path`: the longest mount point that is a prefix of it (the last such
/// line where mounts are stacked).
pub fn mount_of(path: &Path) -> Option<Mount> {
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut best: Option<Mount> = None;
    for line in info.lines() {
        // id parent major:minor root mount_point options [optional...] - fs_type source super
        let (left, right) = line.split_once(" - ")?;
        let l: Vec<&str> = left.split(' ').collect();
        let r: Vec<&str> = right.split(' ').collect();
        if l.len() < 6 || r.len() < 3 {
            continue;
        }
        let mp = unescape(l[4]);
        if !path.starts_with(&mp) {
            continue;
        }
        if best
            .as_ref()
            .is_some_and(|b| b.mount_point.len() > mp.len())
        {
            continue;
        }
        best = Some(Mount {
            mount_point: mp,
            fs_type: r[0].to_string(),
            source: unescape(r[1]),
            options: format!("{},{}", l[5], r[2]),
        });
    }
    best
}

/// mountinfo escapes space, tab, newline and backslash as octal.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(u8::is_ascii_digit) {
            let v = u8::from_str_radix(&s[i + 1..i + 4], 8).unwrap_or(b'?');
            out.push(v as char);
            i += 4;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// The whole disk behind device number `dev` (a partition's parent), if it is a block device.
pub fn disk_of_dev(dev: u64) -> Option<String> {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let link = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    disk_of_sysfs(&link)
}

/// The whole disk behind /dev/NAME.
pub(crate) fn disk_of_name(name: &str) -> Option<String> {
    let link = std::fs::canonicalize(format!("/sys/class/block/{name}")).ok()?;
    disk_of_sysfs(&link)
}

/// The whole disk of a device's sysfs folder (a partition's parent).
pub fn disk_of_sysfs(link: &Path) -> Option<String> {
    let disk: PathBuf = if link.join("partition").exists() {
        link.parent()?.to_path_buf()
    } else {
        link.to_path_buf()
    };
    disk.join("queue").exists().then_some(())?;
    Some(disk.file_name()?.to_string_lossy().into_owned())
}

/// Tags of all hardware queues: what the device can have in flight.
fn device_tags(disk: &str) -> Option<u64> {
    let mut total = 0;
    for e in std::fs::read_dir(format!("/sys/block/{disk}/mq"))
        .ok()?
        .flatten()
    {
        total += read_trim(&format!("{}/nr_tags", e.path().display()))?
            .parse::<u64>()
            .ok()?;
    }
    // SCSI reports its own limit per device.
    let scsi =
        read_trim(&format!("/sys/block/{disk}/device/queue_depth")).and_then(|v| v.parse().ok());
    match (total, scsi) {
        (0, s) => s,
        (t, Some(s)) => Some(t.min(s)),
        (t, None) => Some(t),
    }
}

/// Bytes free for an unprivileged writer in the file system holding `dir`; `None` where that
/// cannot be known.
pub fn free_space(dir: &Path) -> Option<u64> {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: statvfs writes into a zeroed struct we own; `c` is a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // A file system that reports no size at all (ramfs: it grows into memory) has no
    // capacity to run out of that statvfs could tell: unknown, not full.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 || st.f_blocks == 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_escapes_are_undone() {
        assert_eq!(unescape(r"/mnt/a\040b"), "/mnt/a b");
        assert_eq!(unescape("/plain"), "/plain");
    }

    #[test]
    fn the_root_mount_is_found() {
        let m = mount_of(Path::new("/")).expect("/ is mounted");
        assert_eq!(m.mount_point, "/");
        assert!(!m.fs_type.is_empty());
    }
}
