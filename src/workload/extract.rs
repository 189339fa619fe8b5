//! `extract`: an archive unpacked into a new folder. Every name is checked first: one that is
//! absolute or climbs out with `..` is refused, naming it, before anything lands outside the
//! folder. Links are made last, after every file, so that nothing is ever written through a
//! link the archive made. Files are made new (O_EXCL): an archive that names one file twice
//! is an error, not an overwrite.
//!
//! Threads: a zip's files are compressed apart, so `threads` threads each open the archive and
//! unpack whole files; a tar.zst is one stream that one thread decompresses (as `zstd -d`
//! does), handing each file's bytes in chunks to `threads` threads that write them at their
//! offsets.

use super::archive::CountedRead;
use super::meter::{Counter, Meter};
use super::ArchiveFormat;
use crate::error::{Error, Result};
use crate::os::dir::{self, Dir, Name, MAX_DEPTH};
use crate::os::owned::{self, Identity};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

const CHUNK: usize = 1 << 20;

/// What came out of the archive.
#[derive(Debug, Default, Clone, Copy)]
pub struct Extracted {
    pub files: u64,
    pub dirs: u64,
    pub links: u64,
    /// Entries of other kinds (hard links, devices): left out.
    pub skipped: u64,
    /// The files' bytes.
    pub tree_bytes: u64,
}

impl<R: Seek> Seek for CountedRead<'_, R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// A name from an archive as a path below the top, or None if it is absolute, climbs out
/// with `..`, or names nothing.
pub fn safe_rel(name: &Path) -> Option<PathBuf> {
    let mut rel = PathBuf::new();
    for c in name.components() {
        match c {
            Component::Normal(n) => rel.push(n),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) | Component::ParentDir => return None,
        }
    }
    (!rel.as_os_str().is_empty()).then_some(rel)
}

fn refused(archive: &Path, name: &str) -> Error {
    Error::runtime(format!(
        "'{}' holds the entry '{name}', which would land outside the folder it is unpacked \
         into: refused",
        archive.display()
    ))
}

fn cannot(what: &str, path: &Path, e: impl std::fmt::Display) -> Error {
    Error::runtime(format!("cannot {what} '{}': {e}", path.display()))
}

/// Folders open at once, at most, besides the top: an archive of many folders must not run
/// the process out of descriptors.
const OPEN_MAX: usize = 64;

/// The folders made so far, by identity, each made once and written in only through
/// descriptors: files, folders and links are made by name in their folder's descriptor,
/// reached from the top one name at a time without following a link, and checked to be the
/// folder that was made. A folder renamed away, or a link put in its place, while the
/// extract runs, is never written through.
struct Folders {
    top: PathBuf,
    /// The identity of every folder made, the top's as "".
    made: HashMap<PathBuf, Identity>,
    /// Some of them, open.
    open: HashMap<PathBuf, Arc<Dir>>,
}

fn id_of(d: &Dir) -> io::Result<Identity> {
    Identity::of_file(d.file())
}

fn c_name(name: &std::ffi::OsStr) -> io::Result<Name> {
    dir::name(name)
}

impl Folders {
    fn new(top: &Path) -> Result<Folders> {
        let d = Dir::open(top).map_err(|e| cannot("open", top, e))?;
        let id = id_of(&d).map_err(|e| cannot("open", top, e))?;
        Ok(Folders {
            top: top.to_path_buf(),
            made: HashMap::from([(PathBuf::new(), id)]),
            open: HashMap::from([(PathBuf::new(), Arc::new(d))]),
        })
    }

    /// Make folder `rel` and those above it; how many were new.
    fn make(&mut self, rel: &Path) -> Result<u64> {
        if self.made.contains_key(rel) {
            return Ok(0);
        }
        if rel.components().count() > MAX_DEPTH {
            return Err(cannot(
                "make the folder",
                &self.top.join(rel),
                format!("more than {MAX_DEPTH} folders deep"),
            ));
        }
        let up = rel.parent().unwrap_or(Path::new(""));
        let n = self.make(up)?;
        let parent = self.dir(up)?;
        let path = self.top.join(rel);
        let name = rel.file_name().expect("a folder below the top has a name");
        let made = c_name(name).and_then(|c| {
            let d = parent.mkdir_at(&c, 0o755)?;
            owned::record_file(d.file())?;
            Ok(d)
        });
        let d = made.map_err(|e| cannot("make the folder", &path, e))?;
        let id = id_of(&d).map_err(|e| cannot("make the folder", &path, e))?;
        self.made.insert(rel.to_path_buf(), id);
        self.keep_open(rel, d);
        Ok(n + 1)
    }

    fn keep_open(&mut self, rel: &Path, d: Dir) -> Arc<Dir> {
        if self.open.len() > OPEN_MAX {
            let top = self.open.remove(Path::new("")).expect("the top stays open");
            self.open.clear();
            self.open.insert(PathBuf::new(), top);
        }
        let d = Arc::new(d);
        self.open.insert(rel.to_path_buf(), d.clone());
        d
    }

    /// Folder `rel`, made before: open, or opened again from the nearest open folder above it.
    fn dir(&mut self, rel: &Path) -> Result<Arc<Dir>> {
        if let Some(d) = self.open.get(rel) {
            return Ok(d.clone());
        }
        let up = rel.parent().unwrap_or(Path::new(""));
        let parent = self.dir(up)?;
        let path = self.top.join(rel);
        let want = self.made.get(rel).copied();
        let name = rel.file_name().expect("a folder below the top has a name");
        let d = c_name(name)
            .and_then(|c| parent.open_at(&c))
            .map_err(|e| cannot("open", &path, e))?;
        if want.is_none() || id_of(&d).ok() != want {
            return Err(cannot(
                "open",
                &path,
                "it is no longer the folder iogauge made",
            ));
        }
        Ok(self.keep_open(rel, d))
    }

    /// The folder that is to hold `rel` (made, with those above it, if new), and `rel`'s name
    /// in it; how many folders were new.
    fn parent_of(&mut self, rel: &Path) -> Result<(Arc<Dir>, Name, u64)> {
        let up = rel.parent().unwrap_or(Path::new(""));
        let n = self.make(up)?;
        let name = rel.file_name().expect("an entry has a name");
        let c = c_name(name).map_err(|e| cannot("make", &self.top.join(rel), e))?;
        Ok((self.dir(up)?, c, n))
    }
}

/// Unpack `archive` into `dst` (a new folder made by the caller).
pub fn extract(
    archive: &Path,
    format: ArchiveFormat,
    dst: &Path,
    threads: u32,
    meter: &Meter,
    stop: &AtomicBool,
) -> Result<Extracted> {
    let folders = Mutex::new(Folders::new(dst)?);
    let mut links = Vec::new();
    let r = match format {
        ArchiveFormat::Zip => unzip(archive, &folders, threads, meter, stop, &mut links),
        ArchiveFormat::TarZst => untar(archive, &folders, threads, meter, stop, &mut links),
    };
    // A read or write cut short by the stop is the stop.
    let mut x = r.map_err(|e| match stop.load(Ordering::Relaxed) {
        true => Error::Interrupted("interrupted".into()),
        false => e,
    })?;
    links.sort();
    let mut folders = lock(&folders);
    for (rel, target) in links {
        let path = dst.join(&rel);
        let (dir, name, _) = folders.parent_of(&rel)?;
        c_name(target.as_os_str())
            .and_then(|t| dir.symlink_at(&t, &name))
            .and_then(|()| owned::record_at(&dir, &name))
            .map_err(|e| cannot("make the link", &path, e))?;
        x.links += 1;
        meter.slot(threads as usize).wrote_file();
    }
    Ok(x)
}

fn open_counted<'a>(
    archive: &Path,
    c: &'a Counter,
    stop: &'a AtomicBool,
) -> Result<CountedRead<'a, io::BufReader<File>>> {
    let f = File::open(archive).map_err(|e| cannot("open", archive, e))?;
    Ok(CountedRead {
        inner: io::BufReader::with_capacity(CHUNK, f),
        counter: c,
        stop,
    })
}

/// A new file `rel` for writing, made in its folder's descriptor (and that folder first, if
/// new); how many folders were new.
fn create(folders: &Mutex<Folders>, rel: &Path, mode: u32) -> Result<(File, u64)> {
    let (dir, name, n) = lock(folders).parent_of(rel)?;
    let path = lock(folders).top.join(rel);
    let f = dir
        .create_file(&name, mode & 0o777)
        .map_err(|e| cannot("make", &path, e))?;
    owned::record_file(&f).map_err(|e| cannot("make", &path, e))?;
    Ok((f, n))
}

fn unzip(
    archive: &Path,
    folders: &Mutex<Folders>,
    threads: u32,
    meter: &Meter,
    stop: &AtomicBool,
    links: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<Extracted> {
    let zerr = |e: zip::result::ZipError| cannot("read", archive, e);
    let main = meter.slot(threads as usize);
    let z = zip::ZipArchive::new(open_counted(archive, main, stop)?).map_err(zerr)?;
    // Every name checked, and every folder made, before a file is written.
    let mut x = Extracted::default();
    let mut names = Vec::with_capacity(z.len());
    for i in 0..z.len() {
        let name = z.name_for_index(i).expect("in range").map_err(zerr)?;
        let rel = safe_rel(Path::new(name.as_ref())).ok_or_else(|| refused(archive, &name))?;
        if name.ends_with('/') {
            x.dirs += lock(folders).make(&rel)?;
            names.push(None);
        } else {
            x.dirs += lock(folders).make(rel.parent().unwrap_or(Path::new("")))?;
            names.push(Some(rel));
        }
    }
    drop(z);
    let next = AtomicUsize::new(0);
    let found = Mutex::new((x, Vec::new()));
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for t in 0..threads.max(1) as usize {
            let (next, found, failed, names) = (&next, &found, &failed, &names);
            s.spawn(move || {
                let c = meter.slot(t);
                let run = || -> Result<()> {
                    let mut z =
                        zip::ZipArchive::new(open_counted(archive, c, stop)?).map_err(zerr)?;
                    let mut buf = vec![0u8; CHUNK];
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(entry) = names.get(i) else {
                            return Ok(());
                        };
                        let Some(rel) = entry else { continue };
                        if stop.load(Ordering::Relaxed) || lock(failed).is_some() {
                            return Ok(());
                        }
                        let mut e = z.by_index(i).map_err(zerr)?;
                        if e.is_symlink() {
                            let mut target = String::new();
                            e.read_to_string(&mut target)
                                .map_err(|er| cannot("read", archive, er))?;
                            lock(found).1.push((rel.clone(), PathBuf::from(target)));
                            continue;
                        }
                        let (mut out, _) = create(folders, rel, e.unix_mode().unwrap_or(0o644))?;
                        let n = copy_counted(&mut e, &mut out, &mut buf, c, stop)
                            .map_err(|er| cannot("unpack", &lock(folders).top.join(rel), er))?;
                        c.wrote_file();
                        let mut g = lock(found);
                        g.0.files += 1;
                        g.0.tree_bytes += n;
                    }
                };
                if let Err(e) = run() {
                    lock(failed).get_or_insert(e);
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    interrupted(stop)?;
    let (x, mut l) = found.into_inner().unwrap_or_else(|p| p.into_inner());
    links.append(&mut l);
    Ok(x)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn interrupted(stop: &AtomicBool) -> Result<()> {
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted("interrupted".into()));
    }
    Ok(())
}

/// Copy `from` to its end into `to`, counting the bytes written.
fn copy_counted(
    from: &mut impl Read,
    to: &mut File,
    buf: &mut [u8],
    c: &Counter,
    stop: &AtomicBool,
) -> io::Result<u64> {
    let mut n = 0u64;
    loop {
        let k = match from.read(buf) {
            Ok(0) => return Ok(n),
            Ok(k) => k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted && !stop.load(Ordering::Relaxed) => {
                continue
            }
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..k])?;
        c.wrote(k as u64);
        n += k as u64;
    }
}

/// A piece of a file for a writing thread: `data` at `offset`.
struct Piece {
    file: Arc<File>,
    path: Arc<PathBuf>,
    offset: u64,
    data: Vec<u8>,
}

fn untar(
    archive: &Path,
    folders: &Mutex<Folders>,
    threads: u32,
    meter: &Meter,
    stop: &AtomicBool,
    links: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<Extracted> {
    let main = meter.slot(threads as usize);
    let dec = zstd::stream::read::Decoder::new(open_counted(archive, main, stop)?)
        .map_err(|e| cannot("read", archive, e))?;
    let mut tar = tar::Archive::new(dec);
    let (tx, rx) = mpsc::sync_channel::<Piece>(2 * threads.max(1) as usize);
    let rx = Mutex::new(rx);
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let x = std::thread::scope(|s| {
        for t in 0..threads.max(1) as usize {
            let (rx, failed) = (&rx, &failed);
            s.spawn(move || {
                let c = meter.slot(t);
                loop {
                    let piece = lock(rx).recv();
                    let Ok(p) = piece else { return };
                    if lock(failed).is_some() {
                        continue;
                    }
                    match dir::write_all_at(&p.file, &p.data, p.offset) {
                        Ok(()) => c.wrote(p.data.len() as u64),
                        Err(e) => {
                            lock(failed).get_or_insert(cannot("write", &p.path, e));
                        }
                    }
                }
            });
        }
        let r = read_tar(archive, folders, &mut tar, &tx, main, stop, &failed, links);
        drop(tx);
        r
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    x
}

/// The decompressing thread: folders made here, files made here and their bytes handed out.
#[allow(clippy::too_many_arguments)]
fn read_tar<R: Read>(
    archive: &Path,
    folders: &Mutex<Folders>,
    tar: &mut tar::Archive<R>,
    tx: &mpsc::SyncSender<Piece>,
    c: &Counter,
    stop: &AtomicBool,
    failed: &Mutex<Option<Error>>,
    links: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<Extracted> {
    let rerr = |e: io::Error| {
        if stop.load(Ordering::Relaxed) {
            Error::Interrupted("interrupted".into())
        } else {
            cannot("read", archive, e)
        }
    };
    let mut x = Extracted::default();
    for entry in tar.entries().map_err(rerr)? {
        interrupted(stop)?;
        if lock(failed).is_some() {
            return Ok(x);
        }
        let mut e = entry.map_err(rerr)?;
        let name = e.path().map_err(rerr)?.into_owned();
        let Some(rel) = safe_rel(&name) else {
            // The archive's top folder itself ("./") is no entry to make.
            if name.components().all(|c| c == Component::CurDir) {
                continue;
            }
            return Err(refused(archive, &name.to_string_lossy()));
        };
        let kind = e.header().entry_type();
        let mode = e.header().mode().unwrap_or(0o644);
        match kind {
            tar::EntryType::Directory => x.dirs += lock(folders).make(&rel)?,
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                let (file, n) = create(folders, &rel, mode)?;
                x.dirs += n;
                let path = Arc::new(lock(folders).top.join(&rel));
                let file = Arc::new(file);
                let mut offset = 0u64;
                loop {
                    let mut data = Vec::with_capacity(CHUNK);
                    let n = (&mut e)
                        .take(CHUNK as u64)
                        .read_to_end(&mut data)
                        .map_err(rerr)?;
                    if n == 0 {
                        break;
                    }
                    let piece = Piece {
                        file: file.clone(),
                        path: path.clone(),
                        offset,
                        data,
                    };
                    offset += n as u64;
                    if tx.send(piece).is_err() {
                        break;
                    }
                }
                x.files += 1;
                x.tree_bytes += offset;
                c.wrote_file();
            }
            tar::EntryType::Symlink => {
                let target = e
                    .link_name()
                    .map_err(rerr)?
                    .ok_or_else(|| cannot("read", archive, "a link without a target"))?;
                x.dirs += lock(folders).make(rel.parent().unwrap_or(Path::new("")))?;
                links.push((rel, target.into_owned()));
            }
            _ => x.skipped += 1,
        }
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::super::archive::{archive, Packing};
    use super::*;

    #[test]
    fn names_that_climb_out_are_refused() {
        assert_eq!(safe_rel(Path::new("a/./b")), Some(PathBuf::from("a/b")));
        assert_eq!(safe_rel(Path::new("../x")), None);
        assert_eq!(safe_rel(Path::new("a/../../x")), None);
        assert_eq!(safe_rel(Path::new("/etc/passwd")), None);
        assert_eq!(safe_rel(Path::new("./")), None);
    }

    #[test]
    fn what_archive_packs_extract_unpacks_the_same() {
        for format in [ArchiveFormat::Zip, ArchiveFormat::TarZst] {
            let t = tempfile::tempdir().unwrap();
            let src = t.path().join("src");
            std::fs::create_dir_all(src.join("d/e")).unwrap();
            std::fs::create_dir_all(src.join("empty")).unwrap();
            for i in 0..30 {
                let data: Vec<u8> = (0..i * 997).map(|k| (k * 7 + i) as u8).collect();
                std::fs::write(src.join(format!("d/e/f{i}")), data).unwrap();
            }
            std::fs::write(src.join("big"), vec![3u8; 3 * CHUNK + 5]).unwrap();
            let links = crate::workload::test_link("big", &src.join("ln"));
            let apath = t.path().join(format!("a.{}", format.name()));
            let out = File::create_new(&apath).unwrap();
            let how = Packing {
                format,
                level: format.default_level(),
                threads: 2,
            };
            let stop = AtomicBool::new(false);
            let m = Meter::new(2, 1_000_000_000);
            archive(&src, &out, &apath, &how, &m, &stop).unwrap();
            let dst = t.path().join("dst");
            std::fs::create_dir(&dst).unwrap();
            let m = Meter::new(3, 1_000_000_000);
            let x = extract(&apath, format, &dst, 3, &m, &stop).unwrap();
            assert_eq!((x.files, x.dirs, x.links), (31, 3, links), "{format:?}");
            for i in [0, 7, 29] {
                let p = format!("d/e/f{i}");
                assert_eq!(
                    std::fs::read(dst.join(&p)).unwrap(),
                    std::fs::read(src.join(&p)).unwrap()
                );
            }
            assert_eq!(std::fs::read(dst.join("big")).unwrap().len(), 3 * CHUNK + 5);
            if links == 1 {
                assert_eq!(
                    std::fs::read_link(dst.join("ln")).unwrap(),
                    Path::new("big")
                );
            }
            assert!(dst.join("empty").is_dir());
            assert_eq!(m.totals().write_bytes, x.tree_bytes);
            // A zip is opened by each thread (its directory read by each): at least once whole.
            let size = std::fs::metadata(&apath).unwrap().len();
            match format {
                ArchiveFormat::Zip => assert!(m.totals().read_bytes >= size),
                ArchiveFormat::TarZst => assert_eq!(m.totals().read_bytes, size),
            }
        }
    }
}
