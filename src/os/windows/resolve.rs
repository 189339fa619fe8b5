//! Where a path the user typed will really lead, decided before anything is made (see
//! `os/linux/resolve.rs`): the part that exists resolved by the system (links, junctions,
//! `..`), the rest lexically, and "inside" judged by identity (volume serial number and file
//! index) of every folder on the way up, never by comparing strings (a drive letter and a
//! mounted folder can name one folder twice).

use std::io;
use std::path::{Component, Path, PathBuf};

/// `path` made absolute and resolved: its longest part that exists canonicalized (links
/// followed), `..` and `.` after it taken lexically, as they will once the missing folders are
/// made. Nothing is created.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    // GetFullPathNameW: absolute, `.` and `..` taken lexically.
    let full = std::path::absolute(path)?;
    let base = nearest_existing(&full);
    let rest = full
        .strip_prefix(base)
        .unwrap_or(Path::new(""))
        .to_path_buf();
    let mut out = plain(std::fs::canonicalize(base)?);
    for c in rest.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    Ok(out)
}

/// `\\?\C:\x` as `C:\x` where the plain form means the same (short, a drive letter): what
/// the user sees and types. std takes either.
fn plain(p: PathBuf) -> PathBuf {
    let text = p.to_string_lossy();
    match text.strip_prefix(r"\\?\") {
        Some(rest) if rest.len() < 248 && rest.as_bytes().get(1) == Some(&b':') => {
            PathBuf::from(rest)
        }
        _ => p,
    }
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

/// Volume serial number and file index of a path, following links.
fn id(p: &Path) -> io::Result<crate::os::owned::Identity> {
    crate::os::owned::Identity::of_file(&super::file::open_folder(p)?)
}

/// Whether `inner` is `outer` or lies inside it, by identity: any folder on `inner`'s way up
/// (resolved, from its nearest existing folder to the root) that is `outer`.
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
    fn a_path_through_a_missing_folder_and_back_is_inside() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        std::fs::create_dir(&src).unwrap();
        let r = resolve(&src.join(r"nx\..\out")).unwrap();
        assert!(r.ends_with(r"src\out"), "{}", r.display());
        assert!(is_within(&src.join(r"nx\..\out"), &src).unwrap());
        assert!(!is_within(&t.path().join("other"), &src).unwrap());
    }
}
