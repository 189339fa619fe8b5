//! `archive`: a tree packed into one new file, zip (deflate, from the zip crate) or tar.zst
//! (the tar crate's stream through zstd). The tree is walked first (in name order, so the
//! same tree gives the same archive), inside the timed step as `zip -r` and `tar -c` walk it.
//!
//! Threads: zip compresses each file apart, so `threads` threads each compress whole files
//! ahead of the one thread that writes the archive in order; tar.zst is one stream, so zstd's
//! own workers compress blocks of it (`zstd -T`) while `threads` threads read files ahead of
//! the writer. Either way at most [`AHEAD`] bytes of files are held ahead of the writer, and
//! a file larger than [`BIG`] is streamed by the writer itself rather than held whole.

use super::meter::{Counter, Meter};
use super::tree::{self, Item};
use super::ArchiveFormat;
use crate::error::{Error, Result};
use crate::os::dir::Kind;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

/// Files' bytes read or compressed ahead of the writer, at most (unless one file alone).
const AHEAD: u64 = 256 << 20;
/// Files larger than this are streamed by the writer, not prepared ahead.
pub const BIG: u64 = 64 << 20;
const CHUNK: usize = 1 << 20;

/// What went into the archive.
#[derive(Debug, Default, Clone, Copy)]
pub struct Archived {
    pub files: u64,
    pub dirs: u64,
    pub links: u64,
    /// Devices, FIFOs, sockets: left out, as tar and zip leave them out without options.
    pub skipped: u64,
    pub tree_bytes: u64,
    pub archive_bytes: u64,
}

/// A writer that counts what passes, as bytes written.
pub struct Counted<'a, W> {
    pub inner: W,
    pub counter: &'a Counter,
}

impl<W: Write> Write for Counted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.counter.wrote(n as u64);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Seek> Seek for Counted<'_, W> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// The error a reader or writer gives once the stop flag is set. Not `Interrupted`: `io::copy`,
/// `read_to_end` and the archive crates retry that kind forever, and the stop would never
/// come.
pub fn stopped() -> io::Error {
    io::Error::other("interrupted")
}

/// A reader that counts what passes, as bytes read, and fails with [`stopped`] once the stop
/// flag is set.
pub struct CountedRead<'a, R> {
    pub inner: R,
    pub counter: &'a Counter,
    pub stop: &'a AtomicBool,
}

impl<R: Read> Read for CountedRead<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(stopped());
        }
        let n = self.inner.read(buf)?;
        self.counter.read(n as u64);
        Ok(n)
    }
}

/// How the archive is made.
pub struct Packing {
    pub format: ArchiveFormat,
    pub level: i32,
    pub threads: u32,
}

/// Pack the tree at `src` into `out` (a new, empty file at `out_path`).
pub fn archive(
    src: &Path,
    out: &File,
    out_path: &Path,
    how: &Packing,
    meter: &Meter,
    stop: &AtomicBool,
) -> Result<Archived> {
    let items = tree::list(src, stop)?;
    let mut a = Archived::default();
    for i in &items {
        match i.kind {
            Kind::File => {
                a.files += 1;
                a.tree_bytes += i.size;
            }
            Kind::Dir => a.dirs += 1,
            Kind::Link => a.links += 1,
            Kind::Other => a.skipped += 1,
        }
    }
    let writer = Counted {
        inner: BufWriter::with_capacity(CHUNK, out),
        counter: meter.slot(how.threads as usize),
    };
    let r = match how.format {
        ArchiveFormat::Zip => zip(src, &items, writer, how, meter, stop),
        ArchiveFormat::TarZst => tar_zst(src, &items, writer, how, meter, stop),
    };
    r.map_err(|e| match e {
        _ if stop.load(Ordering::Relaxed) => Error::Interrupted("interrupted".into()),
        Error::Runtime(m) => Error::runtime(format!("cannot write '{}': {m}", out_path.display())),
        e => e,
    })?;
    a.archive_bytes = out
        .metadata()
        .map_err(|e| Error::runtime(format!("cannot stat '{}': {e}", out_path.display())))?
        .len();
    Ok(a)
}

fn io_err(src: &Path, item: &Item, e: impl std::fmt::Display) -> Error {
    Error::runtime(format!("'{}': {e}", src.join(&item.rel).display()))
}

/// A file of the tree, opened for reading (never through a link).
fn open(src: &Path, item: &Item) -> Result<File> {
    crate::os::dir::open_file_nofollow(&src.join(&item.rel)).map_err(|e| io_err(src, item, e))
}

/// The name an archive stores: the path below the top, '/'-separated, as text.
fn name_of(src: &Path, item: &Item) -> Result<String> {
    let parts: Option<Vec<&str>> = item
        .rel
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    parts
        .map(|p| p.join("/"))
        .ok_or_else(|| io_err(src, item, "its name is not UTF-8, which zip names must be"))
}

fn small_file(i: &Item) -> bool {
    i.kind == Kind::File && i.size <= BIG
}

fn zip(
    src: &Path,
    items: &[Item],
    writer: Counted<BufWriter<&File>>,
    how: &Packing,
    meter: &Meter,
    stop: &AtomicBool,
) -> Result<()> {
    use zip::write::{SimpleFileOptions, ZipFileBuilder};
    use zip::CompressionMethod;
    let method = if how.level == 0 {
        CompressionMethod::Stored
    } else {
        CompressionMethod::Deflated
    };
    let base = SimpleFileOptions::default()
        .compression_method(method)
        .compression_level((how.level > 0).then_some(i64::from(how.level)));
    let zerr = |item: &Item, e: zip::result::ZipError| io_err(src, item, e);
    let mut zw = zip::ZipWriter::new(writer);
    in_order(
        items,
        how.threads,
        stop,
        small_file,
        |t, item| {
            let mut b = ZipFileBuilder::new(name_of(src, item)?, base.unix_permissions(item.mode))
                .map_err(|e| zerr(item, e))?;
            let mut f = CountedRead {
                inner: open(src, item)?,
                counter: meter.slot(t),
                stop,
            };
            io::copy(&mut f, &mut b).map_err(|e| io_err(src, item, e))?;
            meter.slot(t).read_file();
            b.finish().map_err(|e| zerr(item, e))
        },
        |item, prepared| {
            let opts = base.unix_permissions(item.mode);
            match (item.kind, prepared) {
                (_, Some(p)) => zw.add_prepared_file(p).map_err(|e| zerr(item, e)),
                (Kind::Dir, _) => zw
                    .add_directory(name_of(src, item)? + "/", opts)
                    .map_err(|e| zerr(item, e)),
                (Kind::Link, _) => {
                    let target = std::fs::read_link(src.join(&item.rel))
                        .map_err(|e| io_err(src, item, e))?;
                    let target = target
                        .to_str()
                        .ok_or_else(|| io_err(src, item, "its target is not UTF-8"))?;
                    zw.add_symlink(name_of(src, item)?, target, opts)
                        .map_err(|e| zerr(item, e))
                }
                (Kind::File, None) => {
                    let opts = opts.large_file(item.size >= u64::from(u32::MAX));
                    zw.start_file(name_of(src, item)?, opts)
                        .map_err(|e| zerr(item, e))?;
                    let mut f = CountedRead {
                        inner: open(src, item)?,
                        counter: meter.slot(how.threads as usize),
                        stop,
                    };
                    io::copy(&mut f, &mut zw).map_err(|e| io_err(src, item, e))?;
                    meter.slot(how.threads as usize).read_file();
                    Ok(())
                }
                (Kind::Other, None) => Ok(()),
            }
        },
    )?;
    let mut w = zw.finish().map_err(|e| Error::runtime(e.to_string()))?;
    w.flush().map_err(|e| Error::runtime(e.to_string()))
}

fn tar_zst(
    src: &Path,
    items: &[Item],
    writer: Counted<BufWriter<&File>>,
    how: &Packing,
    meter: &Meter,
    stop: &AtomicBool,
) -> Result<()> {
    let zerr = |e: io::Error| Error::runtime(format!("zstd: {e}"));
    let mut enc = zstd::stream::write::Encoder::new(writer, how.level).map_err(zerr)?;
    // As the zstd program does: a checksum of the content at the end of the frame.
    enc.include_checksum(true).map_err(zerr)?;
    if how.threads > 1 {
        enc.multithread(how.threads).map_err(zerr)?;
    }
    let mut tar = tar::Builder::new(enc);
    tar.follow_symlinks(false);
    in_order(
        items,
        how.threads,
        stop,
        small_file,
        |t, item| {
            let mut data = Vec::with_capacity(item.size as usize);
            CountedRead {
                inner: open(src, item)?,
                counter: meter.slot(t),
                stop,
            }
            .read_to_end(&mut data)
            .map_err(|e| io_err(src, item, e))?;
            meter.slot(t).read_file();
            Ok(data)
        },
        |item, data| {
            let mut h = tar::Header::new_gnu();
            h.set_mode(item.mode);
            h.set_mtime(item.mtime.max(0) as u64);
            let r = match (item.kind, data) {
                (_, Some(d)) => {
                    h.set_entry_type(tar::EntryType::Regular);
                    h.set_size(d.len() as u64);
                    tar.append_data(&mut h, &item.rel, &d[..])
                }
                (Kind::Dir, _) => {
                    h.set_entry_type(tar::EntryType::Directory);
                    h.set_size(0);
                    tar.append_data(&mut h, &item.rel, io::empty())
                }
                (Kind::Link, _) => {
                    let target = std::fs::read_link(src.join(&item.rel))
                        .map_err(|e| io_err(src, item, e))?;
                    h.set_entry_type(tar::EntryType::Symlink);
                    h.set_size(0);
                    tar.append_link(&mut h, &item.rel, target)
                }
                (Kind::File, None) => {
                    let f = open(src, item)?;
                    let size = f.metadata().map_err(|e| io_err(src, item, e))?.len();
                    h.set_entry_type(tar::EntryType::Regular);
                    h.set_size(size);
                    let f = CountedRead {
                        inner: f.take(size),
                        counter: meter.slot(how.threads as usize),
                        stop,
                    };
                    let r = tar.append_data(&mut h, &item.rel, f);
                    meter.slot(how.threads as usize).read_file();
                    r
                }
                (Kind::Other, None) => Ok(()),
            };
            r.map_err(|e| io_err(src, item, e))
        },
    )?;
    let enc = tar.into_inner().map_err(zerr)?;
    let mut w = enc.finish().map_err(zerr)?;
    w.flush().map_err(zerr)
}

/// Where the preparing threads and the writer stand.
struct Order<T> {
    /// The next item a preparing thread may take.
    next: usize,
    /// Items the writer has consumed.
    written: usize,
    /// Bytes taken by preparing threads and not yet consumed.
    ahead: u64,
    ready: BTreeMap<usize, Result<T>>,
    abort: bool,
}

/// `prepare` the items `wanted` (by `threads` threads, at most [`AHEAD`] bytes ahead), and
/// hand every item to `consume` in order, with what was prepared for it.
fn in_order<T, W, P, C>(
    items: &[Item],
    threads: u32,
    stop: &AtomicBool,
    wanted: W,
    prepare: P,
    mut consume: C,
) -> Result<()>
where
    T: Send,
    W: Fn(&Item) -> bool + Sync,
    P: Fn(usize, &Item) -> Result<T> + Sync,
    C: FnMut(&Item, Option<T>) -> Result<()>,
{
    let order = Mutex::new(Order {
        next: 0,
        written: 0,
        ahead: 0,
        ready: BTreeMap::new(),
        abort: false,
    });
    let moved = Condvar::new();
    let lock = || order.lock().unwrap_or_else(|p| p.into_inner());
    std::thread::scope(|s| {
        for t in 0..threads.max(1) as usize {
            let (lock, moved, wanted, prepare) = (&lock, &moved, &wanted, &prepare);
            s.spawn(move || loop {
                let i = {
                    let mut g = lock();
                    loop {
                        while g.next < items.len() && !wanted(&items[g.next]) {
                            g.next += 1;
                        }
                        if g.abort || g.next >= items.len() || stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let size = items[g.next].size;
                        if g.ahead == 0 || g.ahead + size <= AHEAD {
                            g.ahead += size;
                            g.next += 1;
                            break g.next - 1;
                        }
                        g = moved.wait(g).unwrap_or_else(|p| p.into_inner());
                    }
                };
                let r = prepare(t, &items[i]);
                lock().ready.insert(i, r);
                moved.notify_all();
            });
        }
        let r = consume_all(items, stop, &wanted, &mut consume, &lock, &moved);
        lock().abort = true;
        moved.notify_all();
        r
    })
}

fn consume_all<'a, T, C>(
    items: &[Item],
    stop: &AtomicBool,
    wanted: &dyn Fn(&Item) -> bool,
    consume: &mut C,
    lock: &dyn Fn() -> std::sync::MutexGuard<'a, Order<T>>,
    moved: &Condvar,
) -> Result<()>
where
    C: FnMut(&Item, Option<T>) -> Result<()>,
{
    for (i, item) in items.iter().enumerate() {
        let prepared = if wanted(item) {
            let mut g = lock();
            let r = loop {
                if let Some(r) = g.ready.remove(&i) {
                    break r;
                }
                if stop.load(Ordering::Relaxed) {
                    return Err(Error::Interrupted("interrupted".into()));
                }
                g = moved
                    .wait_timeout(g, std::time::Duration::from_millis(100))
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            };
            g.ahead -= item.size;
            Some(r?)
        } else {
            None
        };
        consume(item, prepared)?;
        lock().written = i + 1;
        moved.notify_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(root: &Path) -> u64 {
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("empty")).unwrap();
        for i in 0..40 {
            std::fs::write(root.join(format!("a/b/f{i}")), vec![i as u8; 1000 * i]).unwrap();
        }
        std::fs::write(root.join("a/t.txt"), "hello ".repeat(10_000)).unwrap();
        crate::workload::test_link("a/t.txt", &root.join("ln"))
    }

    fn pack(
        format: ArchiveFormat,
        threads: u32,
    ) -> (tempfile::TempDir, std::path::PathBuf, Archived, u64) {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        let links = tree(&src);
        let out_path = t.path().join(format!("out.{}", format.name()));
        let out = File::create_new(&out_path).unwrap();
        let meter = Meter::new(threads, 1_000_000_000);
        let how = Packing {
            format,
            level: format.default_level(),
            threads,
        };
        let a = archive(&src, &out, &out_path, &how, &meter, &AtomicBool::new(false)).unwrap();
        assert_eq!(meter.totals().read_bytes, a.tree_bytes);
        // zip writes some headers twice (after the sizes are known): counted as written.
        let written = meter.totals().write_bytes;
        assert!(written >= a.archive_bytes && written < a.archive_bytes + 1024);
        (t, out_path, a, links)
    }

    #[test]
    fn a_zip_holds_every_file_folder_and_link() {
        let (_t, path, a, links) = pack(ArchiveFormat::Zip, 3);
        assert_eq!((a.files, a.dirs, a.links), (41, 3, links));
        assert!(a.archive_bytes < a.tree_bytes / 10, "{a:?}");
        let mut z = zip::ZipArchive::new(File::open(&path).unwrap()).unwrap();
        assert_eq!(z.len() as u64, 44 + links);
        let mut s = String::new();
        z.by_name("a/t.txt")
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        assert_eq!(s, "hello ".repeat(10_000));
        assert!(z.by_name("empty/").unwrap().is_dir());
        if links == 1 {
            assert!(z.by_name("ln").unwrap().is_symlink());
        }
    }

    #[test]
    fn a_tar_zst_holds_every_file_folder_and_link() {
        let (_t, path, a, _) = pack(ArchiveFormat::TarZst, 2);
        let dec = zstd::stream::read::Decoder::new(File::open(&path).unwrap()).unwrap();
        let mut ar = tar::Archive::new(dec);
        let mut names = Vec::new();
        for e in ar.entries().unwrap() {
            let mut e = e.unwrap();
            let name = e.path().unwrap().to_string_lossy().replace('\\', "/");
            if name == "a/b/f7" {
                let mut d = Vec::new();
                e.read_to_end(&mut d).unwrap();
                assert_eq!(d, vec![7u8; 7000]);
            }
            names.push(name);
        }
        assert_eq!(names.len() as u64, a.files + a.dirs + a.links);
        assert_eq!(&names[..3], ["a", "a/b", "a/b/f0"]);
    }
}
