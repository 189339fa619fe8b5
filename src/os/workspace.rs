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
    /// Left in place at the end ([`Workspace::keep`]).
    kept: bool,
}

impl Workspace {
    /// Make `DIR/iogauge-<what>-<pid>` (or `-1`, `-2`... if taken), marked as this
    /// process's; first remove those an iogauge killed before it could (see [`leftovers`]).
    pub fn create(dir: &Path, what: &str) -> Result<Workspace> {
        leftovers(dir, what);
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
                    // Without its mark a folder left by a kill is never removed: not fatal.
                    if let Some(m) = Mark::of_this_process() {
                        let _ = std::fs::write(root.join(MARK), m.text());
                    }
                    return Ok(Workspace {
                        root,
                        owned,
                        folders,
                        kept: false,
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

impl Workspace {
    /// Leave the folder and what is in it for the user (iozone's -w): unmarked, so that a
    /// later iogauge does not take it for a killed run's leftovers and remove it.
    pub fn keep(mut self) -> PathBuf {
        let _ = std::fs::remove_file(self.root.join(MARK));
        self.kept = true;
        self.root.clone()
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        if let Err(e) = self.owned.remove() {
            eprintln!("iogauge: cannot remove '{}': {e}", self.root.display());
        }
    }
}

/// The file inside a workspace that says which process made it, so that a later run can
/// prove the folder is iogauge's and its maker is gone.
const MARK: &str = ".iogauge-workspace";

/// Who made a workspace: the process (its pid and start time, which a reused pid does not
/// share), on which boot of which host (a folder on a shared file system may be another
/// host's, whose processes cannot be seen from here).
#[derive(Debug, PartialEq, Eq)]
struct Mark {
    pid: u32,
    start: u64,
    boot: String,
    host: String,
}

impl Mark {
    fn of_this_process() -> Option<Mark> {
        let pid = std::process::id();
        Some(Mark {
            pid,
            start: start_ticks(pid)?,
            boot: boot_id()?,
            host: host()?,
        })
    }

    fn text(&self) -> String {
        format!(
            "iogauge workspace 1\npid {}\nstart {}\nboot {}\nhost {}\n",
            self.pid, self.start, self.boot, self.host
        )
    }

    fn parse(text: &str) -> Option<Mark> {
        let mut lines = text.lines();
        if lines.next()? != "iogauge workspace 1" {
            return None;
        }
        let mut field = |key: &str| lines.next()?.strip_prefix(key)?.strip_prefix(' ');
        Some(Mark {
            pid: field("pid")?.parse().ok()?,
            start: field("start")?.parse().ok()?,
            boot: field("boot")?.to_string(),
            host: field("host")?.to_string(),
        })
    }

    /// Made on this host by a process that has ended (this boot's pid gone or reused, or an
    /// earlier boot). Another host's is never judged.
    fn maker_is_gone(&self) -> bool {
        if host().as_deref() != Some(self.host.as_str()) {
            return false;
        }
        boot_id().as_deref() != Some(self.boot.as_str())
            || start_ticks(self.pid) != Some(self.start)
    }
}

/// When process `pid` started, in clock ticks since boot (/proc/PID/stat's 22nd field).
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: count fields after it.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(id.trim().to_string())
}

fn host() -> Option<String> {
    let h = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    Some(h.trim().to_string())
}

/// Remove `DIR/iogauge-<what>-<pid>[-n]` folders an iogauge left when it was killed (SIGKILL,
/// an MPI abort): only those whose mark names the pid of their name, on this host, and whose
/// process is gone. A folder without a mark, another host's, or a live process's stays.
fn leftovers(dir: &Path, what: &str) {
    let prefix = format!("iogauge-{what}-");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(&prefix).and_then(|r| r.split('-').next()) else {
            continue;
        };
        // A folder, not a link to one.
        if !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let path = e.path();
        let Some(mark) = std::fs::read_to_string(path.join(MARK))
            .ok()
            .and_then(|t| Mark::parse(&t))
        else {
            continue;
        };
        if pid != mark.pid.to_string() || !mark.maker_is_gone() {
            continue;
        }
        match std::fs::remove_dir_all(&path) {
            Ok(()) => eprintln!(
                "iogauge: removed '{}', left by iogauge process {} which was killed before it \
                 could",
                path.display(),
                mark.pid
            ),
            Err(e) => eprintln!(
                "iogauge: cannot remove '{}', left by a killed iogauge: {e}",
                path.display()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(not(target_os = "linux"), ignore = "reads /proc (Linux)")]
    fn only_a_marked_folder_of_a_gone_process_is_removed() {
        let d = tempfile::tempdir().unwrap();
        let me = Mark::of_this_process().expect("/proc is readable");
        assert_eq!(Mark::parse(&me.text()).as_ref(), Some(&me));
        let folder = |name: &str, mark: Option<&Mark>| {
            let f = d.path().join(name);
            std::fs::create_dir(&f).unwrap();
            std::fs::write(f.join("data"), "x").unwrap();
            if let Some(m) = mark {
                std::fs::write(f.join(MARK), m.text()).unwrap();
            }
            f
        };
        // A pid that is not running (pid_max is at most 2^22).
        let gone = Mark {
            pid: 4_194_304 + 7,
            ..Mark::of_this_process().unwrap()
        };
        let dead = folder(&format!("iogauge-fs-{}", gone.pid), Some(&gone));
        let dead_n = folder(&format!("iogauge-fs-{}-1", gone.pid), Some(&gone));
        let alive = folder(&format!("iogauge-fs-{}", me.pid), Some(&me));
        let unmarked = folder("iogauge-fs-4194399", None);
        let elsewhere = folder(
            &format!("iogauge-fs-{}-2", gone.pid),
            Some(&Mark {
                host: "another-host".into(),
                ..Mark::parse(&gone.text()).unwrap()
            }),
        );
        let misnamed = folder("iogauge-fs-1", Some(&gone));
        let other = folder(&format!("iogauge-sweep-{}", gone.pid), Some(&gone));
        leftovers(d.path(), "fs");
        assert!(
            !dead.exists() && !dead_n.exists(),
            "the killed run's folders"
        );
        for kept in [alive, unmarked, elsewhere, misnamed, other] {
            assert!(kept.join("data").exists(), "{} stays", kept.display());
        }
    }
}
