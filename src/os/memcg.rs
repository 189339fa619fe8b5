//! A memory limit on the page cache (`--memory-limit`): on Linux a memory cgroup this process
//! moves into (the port's `MemoryCgroup`); on Windows a hard maximum on the system's file
//! cache (SetSystemFileCacheSize), whose previous limits are kept in a file
//! ([`SavedLimits`]) while the cap holds, so that a run that dies with the cap set is undone
//! by the next one ([`restore_left_cap`]).

pub use super::sys::memcg::MemoryCgroup;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The smallest limit accepted. iogauge's own memory (threads' stacks, buffers, histograms)
/// is charged to the cgroup too, and an OOM kill would leave the cgroup behind.
pub const MIN_LIMIT: u64 = 16 << 20;

/// Which cgroup interface the memory controller was found on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CgroupVersion {
    V1,
    V2,
}

/// What a cap was made of.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapKind {
    /// A memory cgroup around this process alone (Linux).
    #[default]
    Cgroup,
    /// A hard maximum on the system's file cache, every process's (Windows).
    FileCache,
}

impl CapKind {
    pub fn is_cgroup(&self) -> bool {
        *self == CapKind::Cgroup
    }
}

/// If a run that capped the file cache ended without restoring its limits (killed, crashed,
/// the machine's power), restore them now: the line that says what was found and done, or
/// None where nothing was left (always on Linux: a cgroup dies with its last process).
pub fn restore_left_cap() -> Option<String> {
    super::sys::memcg::restore_left()
}

/// The file cache's limits as they were before iogauge capped them, and the process that
/// capped them (its id and its start, in the system's own units, so that a later process
/// given the same id is not taken for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SavedLimits {
    pub pid: u32,
    pub started: u64,
    pub min: u64,
    pub max: u64,
    pub flags: u32,
}

const FIRST_LINE: &str = "iogauge: the system file cache's limits before a --memory-limit";

impl SavedLimits {
    /// Where they are kept: iogauge's folder of the user's data.
    pub fn path() -> Result<PathBuf, String> {
        let base = super::data_home().map_err(|unset| {
            format!("no folder to keep the file cache's limits in while capped ({unset})")
        })?;
        Ok(base.join("iogauge").join("file-cache-limits.txt"))
    }

    pub fn to_text(&self) -> String {
        format!(
            "{FIRST_LINE}\npid {}\nstarted {}\nmin {}\nmax {}\nflags {}\n",
            self.pid, self.started, self.min, self.max, self.flags
        )
    }

    pub fn from_text(text: &str) -> Result<SavedLimits, String> {
        let mut lines = text.lines();
        if lines.next() != Some(FIRST_LINE) {
            return Err("not iogauge's saved file cache limits".into());
        }
        let mut value = |key: &str| -> Result<u64, String> {
            let line = lines.next().unwrap_or_default();
            line.strip_prefix(key)
                .and_then(|v| v.strip_prefix(' '))
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("'{line}' where '{key} N' was expected"))
        };
        let pid = u32::try_from(value("pid")?).map_err(|e| e.to_string())?;
        let (started, min, max) = (value("started")?, value("min")?, value("max")?);
        let flags = u32::try_from(value("flags")?).map_err(|e| e.to_string())?;
        Ok(SavedLimits {
            pid,
            started,
            min,
            max,
            flags,
        })
    }

    /// Write them to `path`, a new file (its folder made where missing), on stable storage
    /// before the cap is set. Fails where the file exists: another cap holds.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)?;
        }
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        let written = f
            .write_all(self.to_text().as_bytes())
            .and_then(|_| f.sync_all());
        if written.is_err() {
            drop(f);
            let _ = std::fs::remove_file(path);
        }
        written
    }

    /// The limits kept in `path`; None where there is no such file.
    pub fn load(path: &Path) -> io::Result<Option<SavedLimits>> {
        match std::fs::read_to_string(path) {
            Ok(text) => SavedLimits::from_text(&text)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// True where the process that saved them no longer runs: `alive` says whether a
    /// process of that id and start runs now.
    pub fn is_stale(&self, alive: impl Fn(u32, u64) -> bool) -> bool {
        !alive(self.pid, self.started)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> SavedLimits {
        SavedLimits {
            pid: 4242,
            started: 133_000_000_000_000_000,
            min: 1 << 20,
            max: u64::MAX >> 20,
            flags: 0,
        }
    }

    #[test]
    fn saved_limits_are_written_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("iogauge").join("file-cache-limits.txt");
        assert_eq!(SavedLimits::load(&path).unwrap(), None);
        limits().save(&path).unwrap();
        assert_eq!(SavedLimits::load(&path).unwrap(), Some(limits()));
        // A second cap while one holds is refused by the file, not written over.
        let other = SavedLimits { pid: 1, ..limits() };
        let e = other.save(&path).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(SavedLimits::load(&path).unwrap(), Some(limits()));
    }

    #[test]
    fn a_garbled_file_is_said_to_be_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.txt");
        std::fs::write(&path, "something else\n").unwrap();
        let e = SavedLimits::load(&path).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        let cut = limits().to_text().replace("max ", "max x");
        let e = SavedLimits::from_text(&cut).unwrap_err();
        assert!(e.contains("'max x"), "{e}");
    }

    #[test]
    fn the_owner_is_its_id_and_its_start() {
        let s = limits();
        assert!(!s.is_stale(|pid, started| pid == 4242 && started == s.started));
        // Gone, or its id given to a later process: stale.
        assert!(s.is_stale(|_, _| false));
        assert!(s.is_stale(|pid, started| pid == 4242 && started != s.started));
    }

    #[test]
    fn linux_leaves_nothing_to_restore() {
        if cfg!(target_os = "linux") {
            assert_eq!(restore_left_cap(), None);
        }
    }
}
