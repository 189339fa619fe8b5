//! What a copy or an extract made, checked against what it should hold: each file's size and
//! XXH3, and the files that should not be there. Names are compared as bytes, as Linux keeps
//! them: a file named `caf\xe9.txt` (Latin-1) or `bad\xffname` is checked as itself, never
//! as a lossy text that names no file.

use super::tree;
use crate::dataset::manifest::Entry;
use crate::dataset::{verify::hash, MANIFEST};
use crate::error::{Error, Result};
use crate::os::dir::Kind;
use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The paths of each problem a check lists (the counts are whole).
const LISTED: usize = 10;

/// A file a tree should hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Below the top, as bytes.
    pub rel: PathBuf,
    pub size: u64,
    pub xxh3: u64,
}

impl From<&Entry> for Expected {
    fn from(e: &Entry) -> Expected {
        Expected {
            rel: PathBuf::from(&e.path),
            size: e.size,
            xxh3: e.xxh3,
        }
    }
}

/// How many files had one problem, and the first of them (shown as text).
#[derive(Debug, Default)]
pub struct Problems {
    pub count: u64,
    pub paths: Vec<String>,
}

impl Problems {
    fn add(&mut self, rel: &Path) {
        self.count += 1;
        if self.paths.len() < LISTED {
            self.paths.push(rel.to_string_lossy().into_owned());
        }
    }
}

/// What a check found.
#[derive(Debug, Default)]
pub struct Found {
    /// Files checked.
    pub files: u64,
    pub missing: Problems,
    pub wrong_size: Problems,
    pub wrong_content: Problems,
    /// Files there that should not be (listed, not counted against the tree).
    pub extra: Problems,
}

impl Found {
    pub fn ok(&self) -> bool {
        self.missing.count + self.wrong_size.count + self.wrong_content.count == 0
    }
}

/// Check the tree at `top` against `expected`, by `threads` threads.
pub fn check_tree(
    top: &Path,
    expected: &[Expected],
    threads: u32,
    stop: &AtomicBool,
) -> Result<Found> {
    let next = AtomicUsize::new(0);
    let found = Mutex::new(Found::default());
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let lock = |m| -> std::sync::MutexGuard<'_, Found> {
        Mutex::lock(m).unwrap_or_else(|p| p.into_inner())
    };
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut buf = vec![0u8; 1 << 20];
                while let Some(e) = expected.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    match one(top, e, &mut buf) {
                        Ok(None) => {}
                        Ok(Some(pick)) => pick(&mut lock(&found)).add(&e.rel),
                        Err(err) => {
                            let mut f = failed.lock().unwrap_or_else(|p| p.into_inner());
                            f.get_or_insert(err);
                            return;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted("interrupted".into()));
    }
    let mut found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    found.files = expected.len() as u64;
    let named: HashSet<&Path> = expected.iter().map(|e| e.rel.as_path()).collect();
    for item in tree::list(top, stop)? {
        if item.kind != Kind::Dir
            && !named.contains(item.rel.as_path())
            && item.rel != Path::new(MANIFEST)
        {
            found.extra.add(&item.rel);
        }
    }
    Ok(found)
}

type Pick = fn(&mut Found) -> &mut Problems;

/// One file against what it should be: None where it is the same, else the problem's list.
fn one(top: &Path, e: &Expected, buf: &mut [u8]) -> Result<Option<Pick>> {
    let path = top.join(&e.rel);
    let cannot = |err| Error::runtime(format!("cannot read '{}': {err}", path.display()));
    let mut f = match File::open(&path) {
        Ok(f) => f,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Some(|f| &mut f.missing))
        }
        Err(err) => return Err(cannot(err)),
    };
    if f.metadata().map_err(cannot)?.len() != e.size {
        return Ok(Some(|f| &mut f.wrong_size));
    }
    let (n, xxh3) = hash(&mut f, buf).map_err(cannot)?;
    Ok(match n == e.size && xxh3 == e.xxh3 {
        true => None,
        false => Some(|f| &mut f.wrong_content),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn names_that_are_not_text_are_checked_as_themselves() {
        let t = tempfile::tempdir().unwrap();
        let name = OsStr::from_bytes(b"caf\xe9.txt");
        std::fs::write(t.path().join(name), b"coffee").unwrap();
        std::fs::write(t.path().join(OsStr::from_bytes(b"bad\xffname")), b"").unwrap();
        let stop = AtomicBool::new(false);
        let xxh3 = |d: &[u8]| hash(&mut &d[..], &mut [0u8; 64]).unwrap().1;
        let want = vec![
            Expected {
                rel: PathBuf::from(name),
                size: 6,
                xxh3: xxh3(b"coffee"),
            },
            Expected {
                rel: PathBuf::from(OsStr::from_bytes(b"bad\xffname")),
                size: 0,
                xxh3: xxh3(b""),
            },
        ];
        let f = check_tree(t.path(), &want, 2, &stop).unwrap();
        assert!(f.ok(), "{f:?}");
        assert_eq!(f.extra.count, 0);
        std::fs::write(t.path().join(name), b"tea!!!").unwrap();
        let f = check_tree(t.path(), &want, 1, &stop).unwrap();
        assert_eq!(f.wrong_content.count, 1);
    }
}
