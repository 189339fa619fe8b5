//! `copy`: a tree copied by threads that share the walk ([`super::pool`]): a folder's task
//! makes the folder in the copy and adds a task for each file and subfolder in it, so copying
//! starts at once and every thread has work while any is left. Everything is reached through
//! folders held open ([`crate::os::dir`]), every file and folder of the copy is made new
//! (never over one that exists), and nothing is followed through a link: a link is copied as
//! a link, as `cp -r` does.
//!
//! A file's bytes move by the method asked for: read and write, or the system's own copy
//! ([`crate::os::copy`]: copy_file_range or an io_uring on Linux, CopyFileExW or ReFS block
//! cloning on Windows). A file the system refuses to copy its way is copied by read and write,
//! and the report says why.
//!
//! File modes are kept (less the umask, as `cp -r`); owners and times are not.

use super::meter::{Counter, Meter};
use super::pool;
use super::{CopyMethod, CopyUse};
use crate::error::{Error, Result};
use crate::os::copy::{self as system, Copied as System, Ring};
use crate::os::dir::{self, Dir, Kind, Name, NameRef, MAX_DEPTH};
use crate::os::owned;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Bytes moved per read and write.
const CHUNK: usize = 1 << 20;

/// What a copy did.
pub struct Copied {
    pub files: u64,
    pub dirs: u64,
    pub links: u64,
    pub skipped: u64,
    pub how: CopyUse,
    /// The largest file copied, below the top of the copy: what FIEMAP is asked about.
    pub largest: Option<PathBuf>,
}

enum Task {
    /// What `src` holds, into `dst` (made already).
    Contents { src: Dir, dst: Dir, rel: PathBuf },
    /// Folder `name` of `src`, made anew in `dst`.
    Folder {
        src: Arc<Dir>,
        dst: Arc<Dir>,
        name: Name,
        rel: PathBuf,
    },
    File {
        src: Arc<Dir>,
        dst: Arc<Dir>,
        name: Name,
        rel: PathBuf,
    },
}

/// One thread's means and counts.
struct Worker<'a> {
    counter: &'a Counter,
    method: CopyMethod,
    buf: Vec<u8>,
    ring: Option<Ring>,
    /// The system refused its copy, for this reason: this thread copies by reading and
    /// writing.
    refused: Option<String>,
    files: u64,
    dirs: u64,
    links: u64,
    skipped: u64,
    kernel: u64,
    read_write: u64,
    uring: u64,
    largest: (u64, PathBuf),
}

/// Copy what `src` holds into the folder `dst` (new, made by the caller), with `threads`
/// threads counting on `meter`.
pub fn copy(
    src: &Path,
    dst: &Path,
    method: CopyMethod,
    threads: u32,
    meter: &Meter,
    stop: &AtomicBool,
) -> Result<Copied> {
    let open = |p: &Path| {
        Dir::open(p).map_err(|e| Error::runtime(format!("cannot open '{}': {e}", p.display())))
    };
    let seed = Task::Contents {
        src: open(src)?,
        dst: open(dst)?,
        rel: PathBuf::new(),
    };
    let roots = (src, dst);
    let workers = pool::run(
        threads,
        vec![seed],
        stop,
        |i| Worker {
            counter: meter.slot(i),
            method,
            buf: Vec::new(),
            ring: None,
            refused: None,
            files: 0,
            dirs: 0,
            links: 0,
            skipped: 0,
            kernel: 0,
            read_write: 0,
            uring: 0,
            largest: (0, PathBuf::new()),
        },
        |w, task, more| w.run(task, more, roots, stop),
    )?;
    let sum = |f: fn(&Worker) -> u64| workers.iter().map(f).sum::<u64>();
    let largest = workers
        .iter()
        .map(|w| &w.largest)
        .max_by_key(|l| l.0)
        .filter(|l| l.0 > 0)
        .map(|l| l.1.clone());
    Ok(Copied {
        files: sum(|w| w.files),
        dirs: sum(|w| w.dirs),
        links: sum(|w| w.links),
        skipped: sum(|w| w.skipped),
        largest,
        how: CopyUse {
            method,
            kernel_files: sum(|w| w.kernel),
            read_write_files: sum(|w| w.read_write),
            io_uring_files: sum(|w| w.uring),
            refused: workers.iter().find_map(|w| w.refused.clone()),
            // A block clone is a sharing of clusters by definition; other methods are asked
            // of the file system afterwards (step.rs).
            shared_extents: (method == CopyMethod::BlockClone && sum(|w| w.kernel) > 0)
                .then_some(true),
        },
    })
}

impl Worker<'_> {
    fn run(
        &mut self,
        task: Task,
        more: &mut Vec<Task>,
        (src_root, dst_root): (&Path, &Path),
        stop: &AtomicBool,
    ) -> Result<()> {
        let fail = |what: &str, rel: &Path, e: io::Error| {
            if stop.load(Ordering::Relaxed) {
                return Error::Interrupted("interrupted".into());
            }
            Error::runtime(format!(
                "cannot {what} '{}' to '{}': {e}",
                src_root.join(rel).display(),
                dst_root.join(rel).display()
            ))
        };
        match task {
            Task::Contents { src, dst, rel } => self
                .contents(Arc::new(src), Arc::new(dst), &rel, more)
                .map_err(|e| fail("copy the folder", &rel, e)),
            Task::Folder {
                src,
                dst,
                name,
                rel,
            } => {
                if rel.components().count() > MAX_DEPTH {
                    return Err(Error::runtime(format!(
                        "'{}' is more than {MAX_DEPTH} folders deep",
                        src_root.join(&rel).display()
                    )));
                }
                let made = src.open_at(&name).and_then(|s| {
                    let d = dst.mkdir_at(&name, 0o755)?;
                    owned::record_file(d.file())?;
                    Ok((s, d))
                });
                let (s, d) = made.map_err(|e| fail("copy the folder", &rel, e))?;
                self.dirs += 1;
                self.contents(Arc::new(s), Arc::new(d), &rel, more)
                    .map_err(|e| fail("copy the folder", &rel, e))
            }
            Task::File {
                src,
                dst,
                name,
                rel,
            } => {
                let paths = (src_root.join(&rel), dst_root.join(&rel));
                let size = self
                    .file(&src, &dst, &name, &paths, stop)
                    .map_err(|e| fail("copy", &rel, e))?;
                if size > self.largest.0 {
                    self.largest = (size, rel);
                }
                Ok(())
            }
        }
    }

    /// Add a task for each file and folder in `src`; copy links at once.
    fn contents(
        &mut self,
        src: Arc<Dir>,
        dst: Arc<Dir>,
        rel: &Path,
        more: &mut Vec<Task>,
    ) -> io::Result<()> {
        for e in src.entries()? {
            let sub = rel.join(e.name_os());
            let (s, d) = (src.clone(), dst.clone());
            match e.kind {
                Kind::File => more.push(Task::File {
                    src: s,
                    dst: d,
                    name: e.name,
                    rel: sub,
                }),
                Kind::Dir => more.push(Task::Folder {
                    src: s,
                    dst: d,
                    name: e.name,
                    rel: sub,
                }),
                Kind::Link => {
                    let target = src.read_link(&e.name)?;
                    dst.symlink_at(&target, &e.name)?;
                    owned::record_at(&dst, &e.name)?;
                    self.links += 1;
                }
                Kind::Other => self.skipped += 1,
            }
        }
        Ok(())
    }

    /// Copy file `name` (at `paths`: the source's, the copy's); its size.
    fn file(
        &mut self,
        src: &Dir,
        dst: &Dir,
        name: &NameRef,
        paths: &(PathBuf, PathBuf),
        stop: &AtomicBool,
    ) -> io::Result<u64> {
        let from = src.open_file(name)?;
        let meta = from.metadata()?;
        let size = meta.len();
        if self.method == CopyMethod::CopyFileEx {
            // The system makes the copy (never over one that exists); its identity is
            // recorded once it stands.
            system::copy_file_ex(&paths.0, &paths.1, self.counter, stop)?;
            owned::record_file(&dst.open_file(name)?)?;
            self.kernel += 1;
        } else {
            let to = dst.create_file(name, dir::mode_of(&meta))?;
            owned::record_file(&to)?;
            self.bytes(src, name, &from, (&to, &paths.1), size, stop)?;
        }
        self.files += 1;
        self.counter.read_file();
        self.counter.wrote_file();
        Ok(size)
    }

    /// Move the bytes of `from` into `to` (new, empty) by the method asked for.
    fn bytes(
        &mut self,
        src: &Dir,
        name: &NameRef,
        from: &File,
        (to, to_path): (&File, &Path),
        size: u64,
        stop: &AtomicBool,
    ) -> io::Result<()> {
        let by_system = match self.method {
            CopyMethod::CopyFileRange if self.refused.is_none() => {
                Some(system::kernel_copy(from, to, self.counter, stop)?)
            }
            CopyMethod::BlockClone if self.refused.is_none() => {
                Some(system::clone_blocks(from, to, to_path, self.counter, stop)?)
            }
            CopyMethod::IoUring => {
                if self.ring.is_none() {
                    self.ring = Some(Ring::new()?);
                }
                let ring = self.ring.as_mut().expect("made above");
                if ring.copy(from, to, size, self.counter, stop)? {
                    self.uring += 1;
                    return Ok(());
                }
                // The file changed while it was read: copy it again, the plain way.
                to.set_len(0)?;
                let mut from = src.open_file(name)?;
                let mut to = to;
                std::io::Seek::rewind(&mut to)?;
                std::io::Seek::rewind(&mut from)?;
                return self.read_write(&from, to, stop);
            }
            _ => None,
        };
        match by_system {
            Some(System::Done) => {
                self.kernel += 1;
                Ok(())
            }
            Some(System::Refused(why)) => {
                self.refused = Some(why);
                self.read_write(from, to, stop)
            }
            None => self.read_write(from, to, stop),
        }
    }

    fn read_write(&mut self, mut from: &File, mut to: &File, stop: &AtomicBool) -> io::Result<()> {
        if self.buf.is_empty() {
            self.buf = vec![0u8; CHUNK];
        }
        loop {
            let n = match from.read(&mut self.buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.counter.read(n as u64);
            to.write_all(&self.buf[..n])?;
            self.counter.wrote(n as u64);
            if stop.load(Ordering::Relaxed) {
                return Err(system::stopped());
            }
        }
        self.read_write += 1;
        Ok(())
    }
}

/// Whether the copy of the largest file shares extents with its source (a reflink).
pub fn shares_extents(dst_root: &Path, largest: &Path) -> Option<bool> {
    let f = File::open(dst_root.join(largest)).ok()?;
    crate::os::extents::shared(&f).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(root: &Path) -> u64 {
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/big"), vec![5u8; 3 * CHUNK + 17]).unwrap();
        std::fs::write(root.join("a/small"), b"hello").unwrap();
        std::fs::write(root.join("empty"), b"").unwrap();
        crate::workload::test_link("a/small", &root.join("ln"))
    }

    #[test]
    fn every_method_copies_the_tree_byte_for_byte() {
        for method in crate::os::copy::METHODS
            .iter()
            .map(|m| CopyMethod::here(m).unwrap())
        {
            let t = tempfile::tempdir().unwrap();
            let (src, dst) = (t.path().join("src"), t.path().join("dst"));
            let links = tree(&src);
            std::fs::create_dir(&dst).unwrap();
            let meter = Meter::new(2, 1_000_000_000);
            let stop = AtomicBool::new(false);
            let c = copy(&src, &dst, method, 2, &meter, &stop).unwrap();
            assert_eq!((c.files, c.dirs, c.links), (3, 2, links), "{method:?}");
            assert_eq!(
                std::fs::read(dst.join("a/b/big")).unwrap(),
                std::fs::read(src.join("a/b/big")).unwrap()
            );
            assert_eq!(std::fs::read(dst.join("a/small")).unwrap(), b"hello");
            if links == 1 {
                assert_eq!(
                    std::fs::read_link(dst.join("ln")).unwrap(),
                    Path::new("a/small")
                );
            }
            assert_eq!(c.largest.as_deref(), Some(Path::new("a/b/big")));
            let t = meter.totals();
            assert_eq!((t.read_files, t.write_files), (3, 3));
            assert_eq!(t.write_bytes, 3 * CHUNK as u64 + 22);
            let counted = c.how.kernel_files + c.how.read_write_files + c.how.io_uring_files;
            assert_eq!(counted, 3);
        }
    }

    #[test]
    fn nothing_is_written_over() {
        let t = tempfile::tempdir().unwrap();
        let (src, dst) = (t.path().join("src"), t.path().join("dst"));
        tree(&src);
        std::fs::create_dir(&dst).unwrap();
        std::fs::write(dst.join("empty"), b"the user's").unwrap();
        let meter = Meter::new(1, 1_000_000_000);
        let e = copy(
            &src,
            &dst,
            CopyMethod::ReadWrite,
            1,
            &meter,
            &AtomicBool::new(false),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("exists"), "{e}");
        assert_eq!(std::fs::read(dst.join("empty")).unwrap(), b"the user's");
    }
}
