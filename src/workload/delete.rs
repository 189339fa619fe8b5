//! `delete`: a tree iogauge made removed by threads sharing the walk. A folder's task removes
//! the files and links in it and adds a task per subfolder; the last task to finish inside a
//! folder removes that folder, then its parent's if it was the last there, and so on up, so
//! folders go as soon as they are empty and no second pass is needed. Everything is removed
//! by name through the folder's descriptor (never through a link), starting from a top folder
//! the caller has checked is the one iogauge made.

use super::meter::{Counter, Meter};
use super::pool;
use crate::error::{Error, Result};
use crate::os::dir::{Dir, Kind, Name};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// A folder being emptied.
struct Node {
    dir: Dir,
    /// Its parent and its name there; none for the top, which the caller removes.
    parent: Option<(Arc<Node>, Name)>,
    /// Subfolders not yet removed, plus one until its own listing is done.
    pending: AtomicUsize,
}

enum Task {
    Top(Dir),
    Folder {
        parent: Arc<Node>,
        name: Name,
        rel: PathBuf,
    },
}

struct Worker<'a> {
    counter: &'a Counter,
    files: u64,
    dirs: u64,
    links: u64,
}

/// What was removed (the top folder not counted).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Removed {
    pub files: u64,
    pub dirs: u64,
    pub links: u64,
}

/// Remove everything inside `top` (open already, checked by the caller to be iogauge's).
pub fn empty(
    top: Dir,
    root: &Path,
    threads: u32,
    meter: &Meter,
    stop: &AtomicBool,
) -> Result<Removed> {
    let workers = pool::run(
        threads,
        vec![Task::Top(top)],
        stop,
        |i| Worker {
            counter: meter.slot(i),
            files: 0,
            dirs: 0,
            links: 0,
        },
        |w, task, more| {
            let (node, rel) = match task {
                Task::Top(dir) => (
                    Node {
                        dir,
                        parent: None,
                        pending: AtomicUsize::new(1),
                    },
                    PathBuf::new(),
                ),
                Task::Folder { parent, name, rel } => {
                    let dir = parent.dir.open_at(&name).map_err(|e| fail(root, &rel, e))?;
                    let node = Node {
                        dir,
                        parent: Some((parent, name)),
                        pending: AtomicUsize::new(1),
                    };
                    (node, rel)
                }
            };
            let node = Arc::new(node);
            w.folder(&node, &rel, more)
                .map_err(|e| fail(root, &rel, e))?;
            w.done(node).map_err(|e| fail(root, &rel, e))
        },
    )?;
    let mut r = Removed::default();
    for w in &workers {
        r.files += w.files;
        r.dirs += w.dirs;
        r.links += w.links;
    }
    Ok(r)
}

fn fail(root: &Path, rel: &Path, e: io::Error) -> Error {
    Error::runtime(format!("cannot remove '{}': {e}", root.join(rel).display()))
}

impl Worker<'_> {
    /// Remove the files and links in `node`; a task for each subfolder.
    fn folder(&mut self, node: &Arc<Node>, rel: &Path, more: &mut Vec<Task>) -> io::Result<()> {
        for e in node.dir.entries()? {
            if e.kind == Kind::Dir {
                node.pending.fetch_add(1, Ordering::AcqRel);
                more.push(Task::Folder {
                    parent: node.clone(),
                    rel: rel.join(e.name_os()),
                    name: e.name,
                });
                continue;
            }
            node.dir.unlink_at(&e.name)?;
            match e.kind {
                Kind::Link => self.links += 1,
                _ => self.files += 1,
            }
            self.counter.wrote_file();
        }
        Ok(())
    }

    /// `node`'s listing is done: remove it if nothing is pending in it, then its parent if
    /// that was the last thing pending there, and so on up.
    fn done(&mut self, node: Arc<Node>) -> io::Result<()> {
        let mut node = node;
        while node.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            let Some((parent, name)) = &node.parent else {
                return Ok(());
            };
            parent.dir.rmdir_at(name)?;
            self.dirs += 1;
            self.counter.wrote_file();
            let parent = parent.clone();
            node = parent;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_emptied_but_nothing_behind_a_link() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("keep"), b"x").unwrap();
        let top = t.path().join("tree");
        for d in 0..6 {
            let p = top.join(format!("a{d}/b/c"));
            std::fs::create_dir_all(&p).unwrap();
            for f in 0..30 {
                std::fs::write(p.join(format!("f{f}")), b"x").unwrap();
            }
        }
        let links = crate::workload::test_link(&outside, &top.join("a0/ln"));
        let m = Meter::new(3, 1_000_000_000);
        let stop = AtomicBool::new(false);
        let r = empty(Dir::open(&top).unwrap(), &top, 3, &m, &stop).unwrap();
        assert_eq!(
            r,
            Removed {
                files: 180,
                dirs: 18,
                links
            }
        );
        assert_eq!(m.totals().write_files, 198 + links);
        assert_eq!(std::fs::read_dir(&top).unwrap().count(), 0);
        assert!(outside.join("keep").exists());
    }
}
