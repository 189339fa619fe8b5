//! `scan` (every entry stat'ed, as `find -printf '%s'` or a backup scanner does) and `readall`
//! (every file read once, as an antivirus or an indexer does), by threads sharing the walk.
//! Both only read.

use super::meter::{Counter, Meter};
use super::pool;
use crate::error::{Error, Result};
use crate::os::dir::{self, Dir, Kind, Name, NameRef};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const CHUNK: usize = 1 << 20;

/// What a walk found (and, for readall, read).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub files: u64,
    pub dirs: u64,
    pub links: u64,
    pub other: u64,
    /// scan: the files' sizes; readall: the bytes read.
    pub bytes: u64,
}

impl Found {
    fn add(&mut self, o: &Found) {
        self.files += o.files;
        self.dirs += o.dirs;
        self.links += o.links;
        self.other += o.other;
        self.bytes += o.bytes;
    }
}

enum Task {
    Top(Dir),
    Folder {
        parent: Arc<Dir>,
        name: Name,
        rel: PathBuf,
    },
    File {
        parent: Arc<Dir>,
        name: Name,
        rel: PathBuf,
    },
}

struct Worker<'a> {
    counter: &'a Counter,
    found: Found,
    buf: Vec<u8>,
}

/// Stat every entry below `root`.
pub fn scan(root: &Path, threads: u32, meter: &Meter, stop: &AtomicBool) -> Result<Found> {
    walk(root, threads, meter, stop, false)
}

/// Read every file below `root` once, to its end.
pub fn readall(root: &Path, threads: u32, meter: &Meter, stop: &AtomicBool) -> Result<Found> {
    walk(root, threads, meter, stop, true)
}

fn walk(root: &Path, threads: u32, meter: &Meter, stop: &AtomicBool, read: bool) -> Result<Found> {
    let top = Dir::open(root)
        .map_err(|e| Error::runtime(format!("cannot open '{}': {e}", root.display())))?;
    let workers = pool::run(
        threads,
        vec![Task::Top(top)],
        stop,
        |i| Worker {
            counter: meter.slot(i),
            found: Found::default(),
            buf: Vec::new(),
        },
        |w, task, more| {
            let (rel, r) = match task {
                Task::Top(d) => (
                    PathBuf::new(),
                    w.folder(Arc::new(d), Path::new(""), read, more),
                ),
                Task::Folder { parent, name, rel } => {
                    let r = parent
                        .open_at(&name)
                        .and_then(|d| w.folder(Arc::new(d), &rel, read, more));
                    (rel, r)
                }
                Task::File { parent, name, rel } => {
                    let r = w.read_file(&parent, &name, stop);
                    (rel, r)
                }
            };
            r.map_err(|e| {
                if stop.load(Ordering::Relaxed) {
                    Error::Interrupted("interrupted".into())
                } else {
                    Error::runtime(format!("cannot read '{}': {e}", root.join(rel).display()))
                }
            })
        },
    )?;
    let mut all = Found::default();
    workers.iter().for_each(|w| all.add(&w.found));
    Ok(all)
}

impl Worker<'_> {
    /// List a folder: stat each entry (scan), or add a task per file (readall); add a task
    /// per subfolder either way.
    fn folder(
        &mut self,
        dir: Arc<Dir>,
        rel: &Path,
        read: bool,
        more: &mut Vec<Task>,
    ) -> io::Result<()> {
        for e in dir.entries()? {
            let sub = rel.join(e.name_os());
            let kind = if read {
                e.kind
            } else {
                let st = dir.info_at(&e.name)?;
                if st.kind == Kind::File {
                    self.found.bytes += st.size;
                }
                self.counter.read_file();
                st.kind
            };
            match kind {
                Kind::Dir => {
                    self.found.dirs += 1;
                    more.push(Task::Folder {
                        parent: dir.clone(),
                        name: e.name,
                        rel: sub,
                    });
                }
                Kind::File if read => more.push(Task::File {
                    parent: dir.clone(),
                    name: e.name,
                    rel: sub,
                }),
                Kind::File => self.found.files += 1,
                Kind::Link => self.found.links += 1,
                Kind::Other => self.found.other += 1,
            }
        }
        Ok(())
    }

    fn read_file(&mut self, dir: &Dir, name: &NameRef, stop: &AtomicBool) -> io::Result<()> {
        let mut f = dir.open_file(name)?;
        // As cat does: a larger read-ahead for a file read start to end.
        dir::advise_sequential(&f);
        if self.buf.is_empty() {
            self.buf = vec![0u8; CHUNK];
        }
        loop {
            match f.read(&mut self.buf) {
                Ok(0) => break,
                Ok(n) => {
                    self.found.bytes += n as u64;
                    self.counter.read(n as u64);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            if stop.load(Ordering::Relaxed) {
                return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
            }
        }
        self.found.files += 1;
        self.counter.read_file();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_counts_every_entry_and_readall_reads_every_byte() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        for d in 0..5 {
            std::fs::create_dir_all(r.join(format!("d{d}/e"))).unwrap();
            for f in 0..20 {
                std::fs::write(r.join(format!("d{d}/e/f{f}")), vec![1u8; 100 + f]).unwrap();
            }
        }
        let links = crate::workload::test_link("d0", &r.join("ln"));
        let stop = AtomicBool::new(false);
        let bytes: u64 = 5 * (0..20u64).map(|f| 100 + f).sum::<u64>();
        let m = Meter::new(3, 1_000_000_000);
        let s = scan(r, 3, &m, &stop).unwrap();
        assert_eq!(
            s,
            Found {
                files: 100,
                dirs: 10,
                links,
                other: 0,
                bytes
            }
        );
        assert_eq!(m.totals().read_files, 110 + links);
        let m = Meter::new(2, 1_000_000_000);
        let a = readall(r, 2, &m, &stop).unwrap();
        assert_eq!((a.files, a.bytes), (100, bytes));
        assert_eq!(m.totals().read_bytes, bytes);
    }
}
