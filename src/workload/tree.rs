//! Walking a tree in one fixed order (depth first, names sorted, a folder before what it
//! holds), through folder descriptors: what an archive lists, and what a workload learns of
//! its source before it starts (how many files, how many bytes, a sample to ask the page
//! cache about).

use crate::error::{Error, Result};
use crate::os::dir::{Dir, Kind, MAX_DEPTH};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// One entry below the top.
#[derive(Debug, Clone)]
pub struct Item {
    /// Below the top folder.
    pub rel: PathBuf,
    pub kind: Kind,
    /// Files: bytes; links: the target's length.
    pub size: u64,
    /// Permission bits.
    pub mode: u32,
    pub mtime: i64,
}

/// Walk the tree at `root`, giving `visit` every entry below it.
pub fn walk(
    root: &Path,
    stop: &AtomicBool,
    visit: &mut dyn FnMut(&Item) -> Result<()>,
) -> Result<()> {
    let top = Dir::open(root).map_err(|e| cannot("open", root, e))?;
    walk_in(&top, root, Path::new(""), 0, stop, visit)
}

fn cannot(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::runtime(format!("cannot {what} '{}': {e}", path.display()))
}

fn walk_in(
    dir: &Dir,
    root: &Path,
    rel: &Path,
    depth: usize,
    stop: &AtomicBool,
    visit: &mut dyn FnMut(&Item) -> Result<()>,
) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(Error::runtime(format!(
            "'{}' is more than {MAX_DEPTH} folders deep",
            root.join(rel).display()
        )));
    }
    let mut entries = dir
        .entries()
        .map_err(|e| cannot("list", &root.join(rel), e))?;
    entries.sort_unstable_by(|a, b| {
        let (a, b) = (
            a.name_os().as_encoded_bytes(),
            b.name_os().as_encoded_bytes(),
        );
        a.cmp(b)
    });
    for e in entries {
        if stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted("interrupted".into()));
        }
        let path = rel.join(e.name_os());
        let st = dir
            .info_at(&e.name)
            .map_err(|err| cannot("stat", &root.join(&path), err))?;
        let item = Item {
            kind: st.kind,
            size: st.size,
            mode: st.mode,
            mtime: st.mtime,
            rel: path,
        };
        visit(&item)?;
        if item.kind == Kind::Dir {
            let sub = dir
                .open_at(&e.name)
                .map_err(|err| cannot("open", &root.join(&item.rel), err))?;
            walk_in(&sub, root, &item.rel, depth + 1, stop, visit)?;
        }
    }
    Ok(())
}

/// Every entry below `root`, in walk order.
pub fn list(root: &Path, stop: &AtomicBool) -> Result<Vec<Item>> {
    let mut items = Vec::new();
    walk(root, stop, &mut |i| {
        items.push(i.clone());
        Ok(())
    })?;
    Ok(items)
}

/// What a tree holds, in counts.
#[derive(Debug, Clone, Default)]
pub struct Survey {
    pub files: u64,
    pub dirs: u64,
    pub links: u64,
    /// Devices, FIFOs, sockets.
    pub other: u64,
    /// The files' bytes.
    pub bytes: u64,
    /// Up to [`SAMPLE`] files spread evenly over the walk, below the top.
    pub sample: Vec<PathBuf>,
}

/// Files whose page-cache state stands for the tree's.
pub const SAMPLE: usize = 32;

/// Count what `root` holds, keeping a sample of its files.
pub fn survey(root: &Path, stop: &AtomicBool) -> Result<Survey> {
    let mut s = Survey::default();
    // Every `stride`-th file is kept; when twice the sample is kept, every other one goes.
    let mut stride = 1u64;
    walk(root, stop, &mut |i| {
        match i.kind {
            Kind::File => {
                if s.files % stride == 0 {
                    s.sample.push(i.rel.clone());
                    if s.sample.len() >= 2 * SAMPLE {
                        s.sample = s.sample.iter().step_by(2).cloned().collect();
                        stride *= 2;
                    }
                }
                s.files += 1;
                s.bytes += i.size;
            }
            Kind::Dir => s.dirs += 1,
            Kind::Link => s.links += 1,
            Kind::Other => s.other += 1,
        }
        Ok(())
    })?;
    if s.sample.len() > SAMPLE {
        let step = s.sample.len().div_ceil(SAMPLE);
        s.sample = s.sample.iter().step_by(step).cloned().collect();
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_walked_in_name_order_and_counted() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        std::fs::create_dir_all(r.join("b/c")).unwrap();
        std::fs::write(r.join("b/c/z"), b"12345").unwrap();
        std::fs::write(r.join("b/a"), b"1").unwrap();
        std::fs::write(r.join("a"), b"12").unwrap();
        let links = crate::workload::test_link("a", &r.join("l"));
        for i in 0..200 {
            std::fs::write(r.join(format!("b/c/f{i:03}")), b"").unwrap();
        }
        let stop = AtomicBool::new(false);
        let items = list(r, &stop).unwrap();
        let names: Vec<String> = items
            .iter()
            .take(5)
            .map(|i| i.rel.to_string_lossy().replace('\\', "/"))
            .collect();
        assert_eq!(names, ["a", "b", "b/a", "b/c", "b/c/f000"]);
        let s = survey(r, &stop).unwrap();
        assert_eq!((s.files, s.dirs, s.links, s.bytes), (203, 2, links, 8));
        assert!(s.sample.len() <= SAMPLE && s.sample.len() >= SAMPLE / 2);
        assert_eq!(s.sample[0], Path::new("a"));
    }
}
