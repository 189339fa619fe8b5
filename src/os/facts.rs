//! What the system says about itself and about a target's place: the host, the kernel, the
//! CPU model and memory ([`System`], `memory_bytes`), the file system holding a path
//! ([`Mount`], `free_space`), the device under a file ([`Device`]), and whether unbuffered
//! I/O was kept. Read by the port (`linux/facts.rs`: /proc and /sys; `windows/facts.rs`:
//! the Win32 calls); `crate::facts` makes the reports' facts of them.

#[cfg(windows)]
pub use super::sys::facts::remote_of;
pub use super::sys::facts::{
    device_of, direct_kept, free_space, fs_type_of, memory_bytes, mount_of, system,
};
#[cfg(target_os = "linux")]
pub use super::sys::facts::{disk_of_dev, disk_of_sysfs};

use serde::{Deserialize, Serialize};

/// What the client says of the protocol a remote file is reached by. Elsewhere than on
/// Windows, none yet (Linux's cifs client keeps it in /proc/fs/cifs/DebugData).
#[cfg(not(windows))]
pub fn remote_of(_file: &std::fs::File) -> Option<Remote> {
    None
}

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

/// The protocol a file on a share is reached by, as the client says it (Windows:
/// FILE_REMOTE_PROTOCOL_INFO). What the client does not say is left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Remote {
    /// "SMB", or the network type's number where it is another.
    pub protocol: String,
    /// The dialect: "3.1.1", "3.0.2", "2.1".
    pub version: String,
    /// The share encrypts the data on the wire (SMB 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<bool>,
    /// The server offers several connections per session (SMB 3 multichannel): whether the
    /// client uses several depends on its network interfaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multichannel: Option<bool>,
    /// A continuously available share (a cluster's, kept across a failover).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuously_available: Option<bool>,
    /// The share is on this machine (a loopback connection).
    #[serde(default)]
    pub loopback: bool,
}

impl Remote {
    /// "SMB 3.1.1, encrypted, the server offers multichannel".
    pub fn line(&self) -> String {
        let mut v = vec![format!("{} {}", self.protocol, self.version)];
        let said =
            |b: Option<bool>, yes: &str, no: &str| b.map(|b| if b { yes } else { no }.to_string());
        v.extend(said(self.encrypted, "encrypted", "not encrypted"));
        v.extend(said(
            self.multichannel,
            "the server offers multichannel",
            "the server offers no multichannel",
        ));
        v.extend(said(
            self.continuously_available,
            "continuously available",
            "",
        ));
        if self.loopback {
            v.push("loopback (the share is on this machine)".into());
        }
        v.retain(|s| !s.is_empty());
        v.join(", ")
    }
}

/// WNNC_NET_SMB (WNNC_NET_LANMAN): the protocol number of SMB in FILE_REMOTE_PROTOCOL_INFO.
const WNNC_NET_SMB: u32 = 0x0002_0000;
/// FILE_REMOTE_PROTOCOL_INFO's Flags: REMOTE_PROTOCOL_INFO_FLAG_LOOPBACK.
const FLAG_LOOPBACK: u32 = 0x1;
/// Its Smb2.Server.Capabilities: RPI_SMB2_FLAG_SERVERCAP_MULTICHANNEL.
const SERVERCAP_MULTICHANNEL: u32 = 0x8;
/// Its Smb2.Share.Capabilities: RPI_FLAG_SMB2_SHARECAP_CONTINUOUS_AVAILABILITY.
const SHARECAP_CONTINUOUS_AVAILABILITY: u32 = 0x10;
/// Its Smb2.Share.ShareFlags: RPI_SMB2_SHAREFLAG_ENCRYPT_DATA.
const SHAREFLAG_ENCRYPT_DATA: u32 = 0x1;

/// A FILE_REMOTE_PROTOCOL_INFO as GetFileInformationByHandleEx fills it, little-endian:
/// StructureVersion and StructureSize (u16 at 0, 2), Protocol (u32 at 4), the major, minor
/// and revision of its version (u16 at 8, 10, 12), Flags (u32 at 16), 96 reserved bytes, then
/// from structure version 2 (Windows 8) on, for SMB, the server's capabilities (u32 at 116),
/// the share's capabilities and flags (at 120, 124). None for no protocol.
pub fn parse_remote_protocol(b: &[u8]) -> Option<Remote> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?));
    let (structure, size) = (u16_at(0)?, usize::from(u16_at(2)?));
    let protocol = u32_at(4).filter(|&p| p != 0)?;
    let (major, minor, revision) = (u16_at(8)?, u16_at(10)?, u16_at(12)?);
    let flags = u32_at(16)?;
    let mut version = format!("{major}.{minor}");
    if revision != 0 {
        version += &format!(".{revision}");
    }
    let smb = protocol == WNNC_NET_SMB;
    // The SMB 2 and 3 fields: only where the structure has them and says it does.
    let smb2 = |at: usize| {
        (smb && major >= 2 && structure >= 2 && size.min(b.len()) >= at + 4)
            .then(|| u32_at(at))
            .flatten()
    };
    let (server, share_caps, share_flags) = (smb2(116), smb2(120), smb2(124));
    Some(Remote {
        protocol: match smb {
            true => "SMB".into(),
            false => format!("network type {protocol:#x}"),
        },
        version,
        encrypted: share_flags.map(|f| f & SHAREFLAG_ENCRYPT_DATA != 0),
        multichannel: server.map(|c| c & SERVERCAP_MULTICHANNEL != 0),
        continuously_available: share_caps.map(|c| c & SHARECAP_CONTINUOUS_AVAILABILITY != 0),
        loopback: flags & FLAG_LOOPBACK != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FILE_REMOTE_PROTOCOL_INFO of 180 bytes with these fields.
    fn info(
        structure: u16,
        protocol: u32,
        version: [u16; 3],
        flags: u32,
        smb2: [u32; 3],
    ) -> Vec<u8> {
        let mut b = vec![0u8; 180];
        b[0..2].copy_from_slice(&structure.to_le_bytes());
        b[2..4].copy_from_slice(&180u16.to_le_bytes());
        b[4..8].copy_from_slice(&protocol.to_le_bytes());
        for (i, v) in version.iter().enumerate() {
            b[8 + 2 * i..10 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
        b[16..20].copy_from_slice(&flags.to_le_bytes());
        for (i, v) in smb2.iter().enumerate() {
            b[116 + 4 * i..120 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    #[test]
    fn smb_dialect_encryption_and_multichannel_are_read() {
        let r = parse_remote_protocol(&info(4, 0x20000, [3, 1, 1], 0, [0x2f, 0x10, 0x1])).unwrap();
        assert_eq!((r.protocol.as_str(), r.version.as_str()), ("SMB", "3.1.1"));
        assert_eq!(r.encrypted, Some(true));
        assert_eq!(r.multichannel, Some(true));
        assert_eq!(r.continuously_available, Some(true));
        assert!(!r.loopback);
        assert_eq!(
            r.line(),
            "SMB 3.1.1, encrypted, the server offers multichannel, continuously available"
        );
        // SMB 2.1 from a server without multichannel, on this machine, not encrypted.
        let r = parse_remote_protocol(&info(2, 0x20000, [2, 1, 0], 1, [0x3, 0, 0])).unwrap();
        assert_eq!(r.version, "2.1");
        assert_eq!((r.encrypted, r.multichannel), (Some(false), Some(false)));
        assert_eq!(
            r.line(),
            "SMB 2.1, not encrypted, the server offers no multichannel, loopback (the share is on this machine)"
        );
    }

    #[test]
    fn what_the_structure_does_not_hold_is_not_said() {
        // Windows 7's structure (version 1) has no SMB 2 fields: nothing said of them.
        let r = parse_remote_protocol(&info(1, 0x20000, [2, 1, 0], 0, [0x8, 0, 1])).unwrap();
        assert_eq!((r.encrypted, r.multichannel), (None, None));
        assert_eq!(r.line(), "SMB 2.1");
        // Another protocol: its number, and no SMB fields.
        let r = parse_remote_protocol(&info(2, 0x70000, [3, 0, 0], 0, [0x8, 0, 1])).unwrap();
        assert_eq!(r.protocol, "network type 0x70000");
        assert_eq!(r.encrypted, None);
        // Cut short, or no protocol at all (a local file): nothing.
        let short = info(4, 0x20000, [3, 0, 2], 0, [0x8, 0, 1]);
        let r = parse_remote_protocol(&short[..64]).unwrap();
        assert_eq!((r.version.as_str(), r.multichannel), ("3.0.2", None));
        assert_eq!(parse_remote_protocol(&short[..10]), None);
        assert_eq!(
            parse_remote_protocol(&info(4, 0, [0, 0, 0], 0, [0; 3])),
            None
        );
    }
}
