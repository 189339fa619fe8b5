//! System facts: what machine, file system and device a result was measured on. Every report
//! carries them, because a figure without its setting cannot be compared or defended.
//! The system tells them through its port (`os::facts`: /proc and /sys on Linux, the Win32
//! calls on Windows); a fact that cannot be found is left empty rather than guessed.

use crate::os::facts as os;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::path::Path;

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
        let s = os::system();
        SystemFacts {
            hostname: s.hostname,
            kernel: s.kernel,
            cpu_model: s.cpu_model,
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

    /// The machine in one line: "host | Linux 6.18.0 | 2 x model | 24 GiB memory". Linux's
    /// kernel is its release alone ("6.18.0"); Windows' says its name ("Windows 10.0.26100").
    pub fn host_line(&self) -> String {
        let kernel = match self.kernel.starts_with(|c: char| c.is_ascii_digit()) {
            true => format!("Linux {}", self.kernel),
            false => self.kernel.clone(),
        };
        format!(
            "{} | {kernel} | {} | {} memory",
            self.hostname,
            self.cpu_line(),
            self.memory_line()
        )
    }
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
    /// For a file on a share, the protocol the client reaches it by (Windows: SMB's dialect,
    /// encryption, multichannel); absent for a local file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<os::Remote>,
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
            let h = crate::os::raw(file);
            match crate::os::file::read_at(h, buf.as_mut_ptr(), SAMPLE_LEN as u32, off) {
                n if n == SAMPLE_LEN as i32 => blocks.push(buf.to_vec()),
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
    /// Facts about `path`, opened as `file`; `direct` when unbuffered I/O was asked for.
    pub fn collect(path: &Path, file: &File, is_block_device: bool, direct: bool) -> Self {
        let mut f = TargetFacts::default();
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let mount = (!is_block_device)
            .then(|| os::mount_of(&canonical))
            .flatten();
        let dev = os::device_of(file, is_block_device, mount.as_ref());
        if let Some(m) = mount {
            f.fs_type = Some(m.fs_type);
            f.mount_point = Some(m.mount_point);
            f.mount_options = Some(m.options);
            f.mount_source = Some(m.source);
        }
        if !is_block_device {
            f.free_bytes = os::free_space(parent_dir(&canonical));
            f.remote = os::remote_of(file);
        }
        f.block_device = dev.name;
        f.rotational = dev.rotational;
        f.scheduler = dev.scheduler;
        f.nr_requests = dev.nr_requests;
        f.device_queue_depth = dev.queue_depth;
        f.device_model = dev.model;
        f.direct_io = if !direct {
            "not requested".into()
        } else if !os::direct_kept(file) {
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
    os::mount_of(&canonical)
        .map(|m| m.fs_type)
        .unwrap_or_else(|| "unknown".into())
}

pub use os::{free_space, fs_type_of, memory_bytes};

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
}
