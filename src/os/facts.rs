//! What the system says about itself and about a target's place: the host, the kernel, the
//! CPU model and memory ([`System`], `memory_bytes`), the file system holding a path
//! ([`Mount`], `free_space`), the device under a file ([`Device`]), and whether unbuffered
//! I/O was kept. Read by the port (`linux/facts.rs`: /proc and /sys; `windows/facts.rs`:
//! the Win32 calls); `crate::facts` makes the reports' facts of them.

pub use super::sys::facts::{
    device_of, direct_kept, free_space, fs_type_of, memory_bytes, mount_of, system,
};
#[cfg(target_os = "linux")]
pub use super::sys::facts::{disk_of_dev, disk_of_sysfs};

/// The host.
#[derive(Debug, Clone, Default)]
pub struct System {
    pub hostname: String,
    /// Linux: the kernel's release ("6.18.0"); Windows: "Windows" and its version.
    pub kernel: String,
    pub cpu_model: Option<String>,
}

/// The file system holding a path.
#[derive(Debug, Clone, Default)]
pub struct Mount {
    pub mount_point: String,
    /// As the system names it (ext4, tmpfs, fuse.bindfs; NTFS, ReFS, and for a share the
    /// protocol: SMB).
    pub fs_type: String,
    /// What was mounted (/dev/vda, server:/export; \\server\share).
    pub source: String,
    pub options: String,
}

/// The device under a file, what the system says of it.
#[derive(Debug, Clone, Default)]
pub struct Device {
    pub name: Option<String>,
    pub model: Option<String>,
    pub rotational: Option<bool>,
    pub scheduler: Option<String>,
    pub nr_requests: Option<u64>,
    /// I/Os the device itself can hold in flight.
    pub queue_depth: Option<u64>,
}
