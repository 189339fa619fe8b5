//! Where a path the user typed will really lead, decided before anything is made.
//!
//! `a/missing/../b` and a bind mount of a folder are both ways of naming a folder that a
//! plain prefix comparison does not see: the kernel resolves `missing/..` only once
//! `missing` exists (and `create_dir_all` makes it), and a bind mount gives the same folder a
//! second path. So a path is resolved here component by component as the kernel would once
//! the missing folders are made, and "inside" is judged by identity (device and inode) of
//! every folder on the way up, never by comparing strings.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// `path` made absolute and resolved: every part that exists has its links followed, a `..`
/// after a missing folder cancels that folder (as it will once `create_dir_all` has made it),
/// and `.` is dropped. Nothing is created.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    let mut out = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        std::env::current_dir()?
    };
    // Whether `out` exists so far: once a part is missing, everything after it is lexical.
    let mut real = true;
    for c in path.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => out = PathBuf::from("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
                real = real || out.exists();
            }
            Component::Normal(name) => {
                out.push(name);
                if real {
                    match std::fs::canonicalize(&out) {
                        Ok(c) => out = c,
                        Err(e) if e.kind() == io::ErrorKind::NotFound => real = false,
                        Err(e) => return Err(e),
                    }
                }
            }
        }
    }
    Ok(out)
}

/// The nearest folder of `resolved` (a path from [`resolve`]) that exists, itself included.
pub fn nearest_existing(resolved: &Path) -> &Path {
    let mut p = resolved;
    while !p.exists() {
        match p.parent() {
            Some(up) => p = up,
            None => break,
        }
    }
    p
}

/// Device and inode of a path, following links.
fn id(p: &Path) -> io::Result<(u64, u64)> {
    let m = std::fs::metadata(p)?;
    Ok((m.dev(), m.ino()))
}

/// Whether `inner` is `outer` or lies inside it, by identity: any folder on `inner`'s way up
/// (resolved, from its nearest existing folder to the root) that is `outer`'s device and
/// inode. A bind mount of `outer`, or a path through `..`, is caught as the folder itself.
pub fn is_within(inner: &Path, outer: &Path) -> io::Result<bool> {
    let outer_id = id(&resolve(outer)?)?;
    let inner = resolve(inner)?;
    let mut at = Some(nearest_existing(&inner));
    while let Some(p) = at {
        if id(p)? == outer_id {
            return Ok(true);
        }
        at = p.parent();
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotdot_after_a_missing_folder_cancels_it() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        let typed = root.join("nx/../src/out");
        assert_eq!(resolve(&typed).unwrap(), root.join("src/out"));
        assert!(is_within(&typed, &root.join("src")).unwrap());
        assert!(!root.join("nx").exists(), "resolving made nothing");
    }

    #[test]
    fn a_link_to_the_source_is_inside_it() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::os::unix::fs::symlink(root.join("src"), root.join("ln")).unwrap();
        assert!(is_within(&root.join("ln/a/b"), &root.join("src")).unwrap());
        assert!(!is_within(&root.join("other/a"), &root.join("src")).unwrap());
        assert!(!is_within(&root.join("src2"), &root.join("src")).unwrap());
    }

    #[test]
    fn missing_parts_stay_lexical() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let typed = root.join("a/b/../c/./d");
        assert_eq!(resolve(&typed).unwrap(), root.join("a/c/d"));
    }
}
