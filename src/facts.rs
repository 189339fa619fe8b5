//! System facts: what machine, file system and device a result was measured on. Every report
//! carries them, because a figure without its setting cannot be compared or defended.
//! Everything here is read from /proc and /sys; a fact that cannot be found is left empty
//! rather than guessed.

use serde::{Deserialize, Serialize};
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// What a target is: the kernel path it takes differs (page cache, file system, block layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    File,
    BlockDevice,
    /// /dev/null or /dev/zero: no storage behind it (fio's steady-state example uses both).
    NullDevice,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SystemFacts {
    pub hostname: String,
    pub kernel: String,
    pub cpu_model: Option<String>,
    /// CPUs this process may run on.
    pub cpus: usize,
    pub memory_bytes: Option<u64>,
}

impl SystemFacts {
    pub fn collect() -> Self {
        SystemFacts {
            hostname: read_trim("/proc/sys/kernel/hostname").unwrap_or_default(),
            kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
            cpu_model: std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name") || l.starts_with("Model"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            }),
            cpus: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            memory_bytes: memory_bytes(),
        }
    }

    /// "2 x AMD EPYC 7B13", the same in every report, with the same word for what is unknown.
    pub fn cpu_line(&self) -> String {
        let model = self.cpu_model.as_deref().unwrap_or("unknown CPU model");
        format!("{} x {model}", self.cpus)
    }

    pub fn memory_line(&self) -> String {
        self.memory_bytes
            .map_or("unknown".into(), crate::units::format_size_human)
    }

    /// The machine in one line: "host | Linux 6.18.0 | 2 x model | 24 GiB memory".
    pub fn host_line(&self) -> String {
        format!(
            "{} | Linux {} | {} | {} memory",
            self.hostname,
            self.kernel,
            self.cpu_line(),
            self.memory_line()
        )
    }
}

/// MemTotal from /proc/meminfo.
pub fn memory_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Where a target lives: its file system and the block device under it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TargetFacts {
    /// File system type as the kernel names it (ext4, xfs, tmpfs, fuse.bindfs...); null for a
    /// block device opened directly.
    pub fs_type: Option<String>,
    pub mount_point: Option<String>,
    /// Mount options and the file system's own (super block) options.
    pub mount_options: Option<String>,
    /// What was mounted (/dev/vda, a server:share, tmpfs...).
    pub mount_source: Option<String>,
    /// The whole block device (vda, nvme0n1, loop0), or null when there is none (tmpfs, NFS).
    pub block_device: Option<String>,
    /// The device's model, or its driver where the device has no model (virtio_blk).
    pub device_model: Option<String>,
    pub rotational: Option<bool>,
    /// The active I/O scheduler.
    pub scheduler: Option<String>,
    /// Requests the block layer queues per hardware queue (queue/nr_requests).
    pub nr_requests: Option<u64>,
    /// I/Os the device itself can hold in flight: the tags of all its hardware queues.
    pub device_queue_depth: Option<u64>,
    /// What happened to O_DIRECT: "not requested", "honoured", "accepted, but the file system
    /// keeps data in memory", or "dropped".
    pub direct_io: String,
    /// Free space on the file system, at the start of the run.
    pub free_bytes: Option<u64>,
    /// What the target holds, from blocks sampled before the run.
    pub content: Content,
}

/// What a target holds. Zeros or a repeating pattern flatter storage that compresses or
/// deduplicates, so a user must know.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Content {
    /// iogauge wrote it: incompressible random data.
    Created,
    /// The sampled blocks differ from each other and are not periodic.
    Varied,
    /// Every sampled block is all zeros.
    Zeros,
    /// The sampled blocks are identical, or each repeats a unit of 512 bytes or less.
    Repeating,
    /// Could not be read.
    #[default]
    NotSampled,
}

const SAMPLES: u64 = 16;
const SAMPLE_LEN: usize = 4096;

/// Read 16 blocks of 4 KiB spread evenly over `start..end` of `file` (aligned for O_DIRECT).
pub fn sample_content(file: &File, start: u64, end: u64) -> Content {
    use std::os::unix::fs::FileExt;
    let layout = std::alloc::Layout::from_size_align(SAMPLE_LEN, 4096).expect("layout");
    // SAFETY: non-zero size; freed below with the same layout.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Content::NotSampled;
    }
    // SAFETY: ptr is valid for SAMPLE_LEN bytes until dealloc.
    let buf = unsafe { std::slice::from_raw_parts_mut(ptr, SAMPLE_LEN) };
    let first = start.div_ceil(4096) * 4096;
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    if end >= first + SAMPLE_LEN as u64 {
        let span = (end - first - SAMPLE_LEN as u64) / 4096;
        for i in 0..SAMPLES {
            let off = first + span * i / (SAMPLES - 1).max(1) * 4096;
            match file.read_at(buf, off) {
                Ok(n) if n == SAMPLE_LEN => blocks.push(buf.to_vec()),
                _ => break,
            }
        }
    }
    // SAFETY: allocated above with this layout.
    unsafe { std::alloc::dealloc(ptr, layout) };
    if blocks.len() < SAMPLES as usize {
        return Content::NotSampled;
    }
    classify(&blocks)
}

fn classify(blocks: &[Vec<u8>]) -> Content {
    if blocks.iter().all(|b| b.iter().all(|&x| x == 0)) {
        return Content::Zeros;
    }
    let identical = blocks.windows(2).all(|w| w[0] == w[1]);
    let periodic =
        |b: &Vec<u8>| (1..=512).any(|p| b.iter().skip(p).zip(b.iter()).all(|(x, y)| x == y));
    if identical || blocks.iter().all(periodic) {
        Content::Repeating
    } else {
        Content::Varied
    }
}

impl TargetFacts {
    /// Facts about `path`, opened as `file`; `direct` when O_DIRECT was asked for.
    pub fn collect(path: &Path, file: &File, is_block_device: bool, direct: bool) -> Self {
        let mut f = TargetFacts::default();
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let meta = file.metadata().ok();
        let dev = meta
            .as_ref()
            .map(|m| if is_block_device { m.rdev() } else { m.dev() });
        if !is_block_device {
            if let Some(m) = mount_of(&canonical) {
                f.fs_type = Some(m.fs_type);
                f.mount_point = Some(m.mount_point);
                f.mount_options = Some(m.options);
                f.mount_source = Some(m.source.clone());
                // btrfs and others report an anonymous device number: the mount source names
                // the real one.
                f.block_device = dev
                    .and_then(disk_of_dev)
                    .or_else(|| m.source.strip_prefix("/dev/").and_then(disk_of_name));
            }
            f.free_bytes = free_space(parent_dir(&canonical));
        } else {
            f.block_device = dev.and_then(disk_of_dev);
        }
        if let Some(disk) = &f.block_device {
            let q = |name: &str| read_trim(&format!("/sys/block/{disk}/queue/{name}"));
            f.rotational = q("rotational").map(|v| v == "1");
            f.scheduler = q("scheduler").map(|s| {
                s.split_whitespace()
                    .find(|w| w.starts_with('['))
                    .map(|w| w.trim_matches(['[', ']']).to_string())
                    .unwrap_or(s)
            });
            f.nr_requests = q("nr_requests").and_then(|v| v.parse().ok());
            f.device_queue_depth = device_tags(disk);
            f.device_model = read_trim(&format!("/sys/block/{disk}/device/model"))
                .filter(|m| !m.is_empty())
                .or_else(|| {
                    std::fs::read_link(format!("/sys/block/{disk}/device/driver"))
                        .ok()
                        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                });
        }
        f.direct_io = if !direct {
            "not requested".into()
        } else if !flag_kept(file, libc::O_DIRECT) {
            "dropped".into()
        } else if matches!(f.fs_type.as_deref(), Some("tmpfs" | "ramfs")) {
            "accepted, but the file system keeps data in memory".into()
        } else {
            "honoured".into()
        };
        f
    }

    /// The most I/Os the device accepts in flight at once, where known.
    pub fn queue_limit(&self) -> Option<u64> {
        match (self.device_queue_depth, self.nr_requests) {
            (Some(t), Some(n)) => Some(t.min(n)),
            (t, n) => t.or(n),
        }
    }
}

fn read_trim(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

fn flag_kept(file: &File, flag: i32) -> bool {
    // SAFETY: F_GETFL on a descriptor we own.
    let fl = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
    fl >= 0 && fl & flag != 0
}

struct Mount {
    mount_point: String,
    fs_type: String,
    source: String,
    options: String,
}

/// The mount holding `path`: the longest mount point that is a prefix of it (the last such
/// line where mounts are stacked).
/// The type of the file system holding `path` (ext4, tmpfs, fuse.bindfs...).
pub fn fs_type_of(path: &Path) -> Option<String> {
    let canonical = std::fs::canonicalize(path).ok()?;
    mount_of(&canonical).map(|m| m.fs_type)
}

fn mount_of(path: &Path) -> Option<Mount> {
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
pub(crate) fn disk_of_dev(dev: u64) -> Option<String> {
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let link = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    disk_of_sysfs(&link)
}

/// The whole disk behind /dev/NAME.
fn disk_of_name(name: &str) -> Option<String> {
    let link = std::fs::canonicalize(format!("/sys/class/block/{name}")).ok()?;
    disk_of_sysfs(&link)
}

/// The whole disk of a device's sysfs folder (a partition's parent).
pub(crate) fn disk_of_sysfs(link: &Path) -> Option<String> {
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

pub(crate) fn parent_dir(path: &Path) -> &Path {
    if path.is_dir() {
        return path;
    }
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The file system type of the folder holding `path`, for error messages.
pub(crate) fn fs_name(path: &Path) -> String {
    let canonical = std::fs::canonicalize(parent_dir(path)).unwrap_or_else(|_| path.to_path_buf());
    mount_of(&canonical)
        .map(|m| m.fs_type)
        .unwrap_or_else(|| "unknown".into())
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
    fn content_is_classified() {
        let zeros = vec![vec![0u8; 4096]; 4];
        assert_eq!(classify(&zeros), Content::Zeros);
        let text: Vec<u8> = b"hello world ".iter().cycle().take(4096).copied().collect();
        assert_eq!(classify(&[text.clone(), text.clone()]), Content::Repeating);
        let mut rng = crate::rng::Rng::new(1, &[]);
        let mut a = vec![0u8; 4096];
        rng.fill(&mut a);
        let mut b = vec![0u8; 4096];
        rng.fill(&mut b);
        assert_eq!(classify(&[a.clone(), a.clone()]), Content::Repeating);
        assert_eq!(classify(&[a, b]), Content::Varied);
    }

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
