//! fio's cgroup: the job's worker threads in `<blkio mount>/<name>`, on cgroup v1's blkio
//! hierarchy as fio 3.33's cgroup.c places them (each thread's id written to `tasks`), the
//! cgroup made where it is missing and removed at the end only if made here (and not kept).
//!
//! cgroup v2 is refused: there a thread cannot join a cgroup of its own outside a threaded
//! subtree, and iogauge's workers are threads of one process (fio's jobs are processes).

use std::io;
use std::path::{Path, PathBuf};

use super::memcg::{fail, remove_cgroup, write_text};
use crate::os::cgroup::CgroupAsk;

/// The cgroup a job's threads are moved into; removed on drop if it was made here.
pub struct Joined {
    dir: PathBuf,
    /// Made for this run, and not to be kept: removed on drop.
    remove: bool,
    /// The weight the cgroup had before, where the run changed it: put back on drop.
    old_weight: Option<(PathBuf, String)>,
}

impl Joined {
    /// Find blkio's hierarchy, make the cgroup if it is missing and set its weight. With a
    /// note for the report saying where the threads run.
    pub fn prepare(ask: &CgroupAsk) -> Result<(Joined, String), String> {
        let ctx = format!("cgroup={}", ask.name);
        ask.check().map_err(|e| format!("{ctx}: {e}"))?;
        let mount = blkio_mount(&ctx)?;
        let dir = mount.join(&ask.name);
        let made = match std::fs::create_dir(&dir) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
            Err(e) => return Err(fail(&ctx, "cannot create the cgroup", &dir, &e)),
        };
        let mut joined = Joined {
            dir,
            remove: made && !ask.keep,
            old_weight: None,
        };
        if let Some(w) = ask.weight {
            joined.set_weight(&ctx, w, made)?;
        }
        let note = format!(
            "the job's threads ran in the blkio cgroup '{}' ({})",
            joined.dir.display(),
            match (made, ask.keep) {
                (true, false) => "made for the run, removed at its end",
                (true, true) => "made for the run and kept (cgroup_nodelete)",
                _ => "there before the run, left as it was",
            }
        );
        Ok((joined, note))
    }

    /// Move the calling thread into the cgroup (v1 takes a thread's id in `tasks`).
    pub fn enter_thread(&self) -> Result<(), String> {
        let tasks = self.dir.join("tasks");
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        write_text(&tasks, &tid.to_string())
            .map_err(|e| fail("cgroup", "cannot move a worker thread into", &tasks, &e))
    }

    /// blkio.weight (CFQ's) or blkio.bfq.weight (BFQ's): the one this kernel has. A cgroup
    /// that was there keeps its weight after the run.
    fn set_weight(&mut self, ctx: &str, weight: u32, made: bool) -> Result<(), String> {
        let file = ["blkio.weight", "blkio.bfq.weight"]
            .iter()
            .map(|f| self.dir.join(f))
            .find(|f| f.exists())
            .ok_or_else(|| {
                format!(
                    "{ctx}: cgroup_weight={weight}: this kernel's blkio controller has no weight \
                     (no blkio.weight or blkio.bfq.weight in '{}': the bfq I/O scheduler gives one)",
                    self.dir.display()
                )
            })?;
        if !made {
            let old =
                std::fs::read_to_string(&file).map_err(|e| fail(ctx, "cannot read", &file, &e))?;
            self.old_weight = Some((file.clone(), old.trim().to_string()));
        }
        write_text(&file, &weight.to_string()).map_err(|e| fail(ctx, "cannot write", &file, &e))
    }
}

impl Drop for Joined {
    fn drop(&mut self) {
        if let Some((file, old)) = &self.old_weight {
            if let Err(e) = write_text(file, old) {
                eprintln!("iogauge: {}", fail("cgroup", "cannot put back", file, &e));
            }
        }
        // The workers have ended, so the cgroup holds none of iogauge's threads; one that
        // holds other tasks is busy, and stays.
        if self.remove {
            if let Err(e) = remove_cgroup(&self.dir) {
                eprintln!(
                    "iogauge: {}",
                    fail("cgroup", "cannot remove", &self.dir, &e)
                );
            }
        }
    }
}

/// cgroup v1's blkio hierarchy, from /proc/self/mounts.
fn blkio_mount(ctx: &str) -> Result<PathBuf, String> {
    let mounts = std::fs::read_to_string("/proc/self/mounts")
        .map_err(|e| fail(ctx, "cannot read", Path::new("/proc/self/mounts"), &e))?;
    find_blkio(&mounts).map_err(|e| format!("{ctx}: {e}"))
}

/// The mount point of the v1 hierarchy with blkio; v2 alone is refused (see the module).
fn find_blkio(mounts: &str) -> Result<PathBuf, String> {
    let mut v2 = false;
    for line in mounts.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 4 {
            continue;
        }
        if f[2] == "cgroup" && f[3].split(',').any(|o| o == "blkio") {
            return Ok(PathBuf::from(f[1]));
        }
        v2 |= f[2] == "cgroup2";
    }
    Err(match v2 {
        true => "only cgroup v2 is mounted here, where iogauge's worker threads cannot join a \
                 cgroup of their own (fio's jobs are processes); not supported yet"
            .into(),
        false => "cgroup blkio does not appear to be mounted (fio's words)".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blkio_hierarchy_is_found_and_v2_alone_refused() {
        let v1 = "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n\
                  cgroup /sys/fs/cgroup/blkio cgroup rw,relatime,blkio 0 0\n";
        assert_eq!(
            find_blkio(v1).unwrap(),
            PathBuf::from("/sys/fs/cgroup/blkio")
        );
        let v2 = "cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n";
        assert!(find_blkio(v2).unwrap_err().contains("only cgroup v2"));
        assert!(find_blkio("")
            .unwrap_err()
            .contains("not appear to be mounted"));
    }
}
