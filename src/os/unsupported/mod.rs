//! The port for a system iogauge has none for yet (FreeBSD, macOS...): the whole interface,
//! so that iogauge builds there and CI can check that nothing above `os/` names a system
//! (`cargo check --target x86_64-unknown-freebsd`). What needs the system's own calls refuses,
//! saying that iogauge has no port for it; the few answers std gives portably (the CPU count,
//! the environment) are std's. A real port replaces this folder's use for its system with a
//! folder of its own, as `linux/` and `windows/` are.

use std::fs::File;
use std::io;
use std::path::PathBuf;

/// A descriptor's number.
pub type RawHandle = i32;

fn no_port() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "iogauge has no port for {} yet (Linux and Windows have one)",
            std::env::consts::OS
        ),
    )
}

fn no_port_text() -> String {
    no_port().to_string()
}

/// No handle can be had without a port.
pub fn raw(_file: &File) -> RawHandle {
    crate::os::NO_HANDLE
}

pub fn page_size() -> u64 {
    4096
}

pub fn data_home() -> Result<PathBuf, &'static str> {
    std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .map(|h| PathBuf::from(h).join(".local/share"))
        .ok_or("HOME is not set")
}

pub mod error {
    use crate::os::error::Class;

    pub const IO: i32 = 5;
    pub const INVALID: i32 = 22;
    pub const UNSUPPORTED: i32 = 45;
    pub const NOT_FOUND: i32 = 2;
    pub const STALE: i32 = 70;

    pub fn class(code: i32) -> Class {
        match code {
            2 => Class::NotFound,
            22 => Class::Invalid,
            45 => Class::Unsupported,
            _ => Class::Other,
        }
    }

    pub const NAMES: &[(i32, &str)] = &[(2, "ENOENT"), (5, "EIO"), (22, "EINVAL")];
}

pub mod file {
    use super::{no_port, RawHandle};
    use crate::os::file::{How, What};
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::path::{Path, PathBuf};

    #[derive(Clone, Debug)]
    pub struct Name {
        _path: PathBuf,
    }

    impl Name {
        pub fn new(path: &Path) -> io::Result<Name> {
            Ok(Name {
                _path: path.to_path_buf(),
            })
        }
    }

    pub fn options(how: How) -> OpenOptions {
        let mut o = OpenOptions::new();
        o.read(true).write(how.write);
        o
    }

    pub fn open_raw(_name: &Name, _how: How) -> Result<RawHandle, i32> {
        Err(super::error::UNSUPPORTED)
    }

    pub fn close_raw(_h: RawHandle) {}

    pub fn what(path: &Path) -> io::Result<What> {
        let m = std::fs::metadata(path)?;
        Ok(match (m.is_dir(), m.is_file()) {
            (true, _) => What::Dir,
            (_, true) => What::File(m.len()),
            _ => What::Other,
        })
    }

    pub fn device_len(_file: &File) -> io::Result<u64> {
        Err(no_port())
    }

    pub fn direct_alignment(_file: &File) -> Option<u64> {
        None
    }

    pub fn allocate(_file: &File, _len: u64) -> io::Result<()> {
        Ok(())
    }

    pub fn datasync(file: &File) -> io::Result<()> {
        file.sync_data()
    }

    pub fn pass_options(write: bool, _direct: bool, _sync: bool) -> OpenOptions {
        let mut o = OpenOptions::new();
        o.read(!write).write(write);
        o
    }

    pub fn close_checked(file: File) -> io::Result<()> {
        drop(file);
        Ok(())
    }

    const REFUSED: i32 = -super::error::UNSUPPORTED;

    pub fn read_at(_h: RawHandle, _buf: *mut u8, _len: u32, _offset: u64) -> i32 {
        REFUSED
    }

    pub fn write_at(_h: RawHandle, _buf: *const u8, _len: u32, _offset: u64) -> i32 {
        REFUSED
    }

    pub fn flush(_h: RawHandle, _data_only: bool) -> i32 {
        REFUSED
    }

    pub fn punch_hole(_h: RawHandle, _offset: u64, _len: u32) -> i32 {
        REFUSED
    }

    pub fn discard(_h: RawHandle, _offset: u64, _len: u32) -> i32 {
        REFUSED
    }

    pub struct Handles(Vec<RawHandle>);

    impl Handles {
        pub fn of(hs: &[RawHandle], _how: How) -> io::Result<Handles> {
            Ok(Handles(hs.to_vec()))
        }

        pub fn raw(&self) -> &[RawHandle] {
            &self.0
        }
    }

    pub fn may_write(path: &Path) -> bool {
        std::fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
    }

    pub fn ids(_file: &File) -> io::Result<(u64, u64)> {
        Err(no_port())
    }

    pub fn ids_at(_path: &Path, _follow: bool) -> io::Result<(u64, u64)> {
        Err(no_port())
    }

    pub fn is_device(_path: &Path) -> bool {
        false
    }

    pub fn block_device_number(_file: &File) -> Option<u64> {
        None
    }

    pub fn device_words(dev: u64) -> String {
        dev.to_string()
    }

    pub fn read_exact_at(_file: &File, _buf: &mut [u8], _offset: u64) -> io::Result<()> {
        Err(no_port())
    }

    pub fn zoned(_file: &File) -> Option<String> {
        None
    }

    pub fn whole_disks() -> Vec<PathBuf> {
        Vec::new()
    }

    pub fn volume_of_letter(_letter: &str) -> Option<PathBuf> {
        None
    }

    pub fn open_folder(path: &Path) -> io::Result<File> {
        File::open(path)
    }

    pub fn sync_folder(_path: &Path) -> io::Result<()> {
        Ok(())
    }

    pub fn after_open(_file: &File, _how: How) -> io::Result<()> {
        Ok(())
    }
}

pub mod mapping {
    use super::RawHandle;
    use std::io;

    /// Never made without a port.
    pub struct Mapping {
        never: std::convert::Infallible,
    }

    impl Mapping {
        pub fn new(_h: RawHandle, _len: u64, _writable: bool) -> io::Result<Self> {
            Err(super::no_port())
        }
        pub fn advise(self, _random: bool) -> Self {
            self
        }
        pub fn ptr(&self) -> *mut u8 {
            match self.never {}
        }
        pub fn len(&self) -> usize {
            match self.never {}
        }
        pub fn is_empty(&self) -> bool {
            match self.never {}
        }
        pub fn sync(&self) -> i32 {
            match self.never {}
        }
    }
}

pub mod meta {
    use crate::os::file::Name;
    use crate::os::meta::MetaOp;

    impl MetaOp {
        pub fn on_path(self, _name: &Name) -> bool {
            false
        }
    }

    pub const CALLS: crate::os::meta::Calls = crate::os::meta::Calls {
        create: "create a file",
        open: "open a file",
        reopen: "open the same files again",
        overwrite: "open a file with truncation",
        stat: "stat a file",
        list: "one entry of a listing",
        list_single: "list a folder of one file",
        rename: "rename a file",
        delete: "delete a file",
        mkdir: "create a folder",
        rmdir: "remove a folder",
        cc_write: "buffered write of one page",
        cc_read: "buffered read of one page",
        nc_write: "unbuffered write of one page",
        nc_read: "unbuffered read of one page",
        mmap_write: "write a mapped page",
        mmap_read: "read a mapped page",
        fsync: "write one page, then flush",
        direct: "unbuffered I/O",
    };

    /// No folder can be opened for the fs suite without a port.
    pub struct Folder;
    pub struct Names;
    pub struct Lister<'a>(std::marker::PhantomData<&'a Folder>);

    impl Folder {
        pub fn open(_path: &std::path::Path) -> std::io::Result<Folder> {
            Err(super::no_port())
        }
        pub fn names(&self, _prefix: &str) -> Names {
            Names
        }
        pub fn apply(&self, _op: MetaOp, _name: &Names, _to: Option<&mut Names>) -> bool {
            false
        }
        pub fn lister(&self, _sub: Option<&str>) -> std::io::Result<Lister<'_>> {
            Err(super::no_port())
        }
    }

    impl Names {
        pub fn set(&mut self, _n: u64) {}
        pub fn show(&self) -> String {
            String::new()
        }
    }

    impl Lister<'_> {
        pub fn count(&mut self, _buf: &mut [u8]) -> std::io::Result<u64> {
            Err(super::no_port())
        }
    }
}

pub mod cache {
    use crate::os::cache::CacheDrop;
    use std::fs::File;
    use std::io;

    impl CacheDrop {
        pub fn describe(self) -> &'static str {
            match self {
                CacheDrop::None => "caches not dropped (--no-drop-caches)",
                _ => "caches not dropped: iogauge has no port for this system",
            }
        }
    }

    pub fn sync_fs(_path: &std::path::Path) -> io::Result<()> {
        Err(super::no_port())
    }
    pub fn drop_file(_f: &File) -> io::Result<()> {
        Err(super::no_port())
    }
    pub fn can_drop_all() -> bool {
        false
    }
    pub fn drop_all() -> io::Result<()> {
        Err(super::no_port())
    }
    pub fn resident(_f: &File) -> io::Result<(u64, u64)> {
        Err(super::no_port())
    }
}

#[path = "copy.rs"]
pub mod copy;

pub mod cpu {
    pub fn times() -> Vec<(u64, u64, u64)> {
        Vec::new()
    }
    pub fn steal_ticks() -> u64 {
        0
    }
    pub fn ticks_per_sec() -> u64 {
        1
    }
}

pub mod diskstats {
    use crate::os::diskstats::DiskUtil;
    use std::path::Path;

    pub struct Watch;

    impl Watch {
        pub fn start<'a>(_paths: impl IntoIterator<Item = &'a Path>) -> Watch {
            Watch
        }
        pub fn finish(self) -> Vec<DiskUtil> {
            Vec::new()
        }
    }
}

pub mod facts {
    use crate::os::facts::{Device, Mount, System};
    use std::fs::File;
    use std::path::Path;

    pub fn system() -> System {
        System {
            hostname: std::env::var("HOSTNAME").unwrap_or_default(),
            kernel: std::env::consts::OS.to_string(),
            cpu_model: None,
        }
    }
    pub fn memory_bytes() -> Option<u64> {
        None
    }
    pub fn direct_kept(_file: &File) -> bool {
        false
    }
    pub fn device_of(_file: &File, _block: bool, _mount: Option<&Mount>) -> Device {
        Device::default()
    }
    pub fn fs_type_of(_path: &Path) -> Option<String> {
        None
    }
    pub fn mount_of(_path: &Path) -> Option<Mount> {
        None
    }
    pub fn free_space(_dir: &Path) -> Option<u64> {
        None
    }
}

pub mod cgroup {
    use crate::os::cgroup::CgroupAsk;

    pub struct Joined;

    impl Joined {
        pub fn prepare(_ask: &CgroupAsk) -> Result<(Joined, String), String> {
            Err(super::no_port_text())
        }
        pub fn enter_thread(&self) -> Result<(), String> {
            Ok(())
        }
    }
}

pub mod ioprio {
    use crate::os::ioprio::IoPrio;

    pub fn set_thread(_p: IoPrio) -> Result<(), String> {
        Err(super::no_port_text())
    }
}

pub mod limits {
    pub fn raise_nofile() {}
    pub fn nofile() -> (u64, u64) {
        (1024, 1024)
    }
}

pub mod memcg {
    use crate::os::memcg::CapKind;

    pub fn restore_left() -> Option<String> {
        None
    }

    /// Never made without a port.
    pub struct MemoryCgroup {
        never: std::convert::Infallible,
    }

    impl MemoryCgroup {
        pub fn enter(_bytes: u64) -> Result<MemoryCgroup, String> {
            Err(super::no_port_text())
        }
        pub fn kind(&self) -> CapKind {
            match self.never {}
        }
        pub fn limit(&self) -> u64 {
            match self.never {}
        }
        pub fn place(&self) -> String {
            match self.never {}
        }
        pub fn peak(&self) -> Option<u64> {
            match self.never {}
        }
        pub fn leave(self) -> Result<(), String> {
            match self.never {}
        }
    }
}

pub mod numa {
    use crate::os::numa::MemPolicy;

    pub fn allowed_cpus() -> Vec<usize> {
        (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect()
    }
    pub fn online_nodes() -> Vec<usize> {
        vec![0]
    }
    pub fn node_cpus(_nodes: &[usize]) -> Vec<usize> {
        allowed_cpus()
    }
    pub fn set_cpus(_cpus: &[usize]) -> Result<(), String> {
        Err(super::no_port_text())
    }
    pub fn pin_to_cpu(_cpu: usize) -> Result<(), String> {
        Err(super::no_port_text())
    }
    pub fn set_mem_policy(_policy: &MemPolicy, _nodes: &[usize]) -> Result<(), String> {
        Err(super::no_port_text())
    }
}

pub mod owned {
    use super::{no_port, RawHandle};
    use crate::os::owned::Removal;
    use std::fs::File;
    use std::io;
    use std::path::{Path, PathBuf};

    /// Never had without a port.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Identity {
        never: NoIdentity,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    enum NoIdentity {}

    impl Identity {
        pub fn of_file(_file: &File) -> io::Result<Identity> {
            Err(no_port())
        }
        pub fn of_raw(_h: RawHandle) -> io::Result<Identity> {
            Err(no_port())
        }
        pub(crate) fn bytes(&self) -> [u8; 32] {
            match self.never {}
        }
    }

    #[derive(Default)]
    pub struct Folders {
        _none: (),
    }

    /// Never made without a port: what iogauge creates cannot be told from what it did not.
    pub struct Owned {
        never: NoIdentity,
        pub only_recorded: bool,
    }

    impl Owned {
        pub fn file(_path: &Path, _file: &File, _folders: &mut Folders) -> io::Result<Owned> {
            Err(no_port())
        }
        pub fn named(_path: &Path, _folders: &mut Folders) -> io::Result<Owned> {
            Err(no_port())
        }
        pub fn path(&self) -> &Path {
            match self.never {}
        }
        pub fn is(&self, _file: &File) -> bool {
            match self.never {}
        }
        pub fn still_ours(&self) -> bool {
            match self.never {}
        }
        pub fn remove(&self) -> io::Result<Removal> {
            match self.never {}
        }
        pub fn remove_leaving(&self, _left: &mut Vec<PathBuf>) -> io::Result<Removal> {
            match self.never {}
        }
    }
}

pub mod process {
    pub fn alive(_pid: u32) -> bool {
        // Unknown: taken as alive, so that nothing of another process is removed.
        true
    }
    pub fn is_mine(_m: &std::fs::Metadata) -> bool {
        false
    }
    pub fn usage() -> crate::os::process::Usage {
        crate::os::process::Usage::default()
    }
    /// Unknown without a port: 0, which the reports show as no CPU time measured.
    pub fn thread_cpu_ns() -> u64 {
        0
    }
}

pub mod signals {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    /// Without a port, Ctrl-C ends the process as the system ends it.
    pub fn on_interrupt(_flag: Arc<AtomicBool>) -> std::io::Result<()> {
        Ok(())
    }
}

pub mod topology {
    use crate::os::topology::Topology;

    /// The count std gives; how the CPUs are packaged is not guessed.
    impl Topology {
        pub fn read() -> Topology {
            Topology {
                possible: super::numa::allowed_cpus().len(),
                cpus: Vec::new(),
                governors: Vec::new(),
            }
        }
    }
}

pub mod vitals {
    use crate::os::vitals::Signals;
    use std::path::Path;

    pub struct Sampler;

    impl Sampler {
        pub fn new(_paths: &[&Path]) -> Sampler {
            Sampler
        }
        pub fn sample(&mut self) {}
        pub fn finish(self) -> Option<Signals> {
            None
        }
    }
}
