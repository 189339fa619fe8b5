//! Before anything is timed: what the source is (a tree or an archive) and holds, whether
//! every step has what it works on, the target claimed (never inside the source; new, or empty
//! unless `--force`), and what the trees the steps make will be checked against.

use super::made::Made;
use super::tree::{self, Survey};
use super::{ArchiveFormat, Material, Params, Place, Step, StepKind};
use crate::dataset::manifest::{Entry, Manifest};
use crate::dataset::{verify as dverify, MANIFEST};
use crate::error::{Error, Result};
use crate::facts::TargetFacts;
use crate::os::dir::Kind;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// What a step works on.
#[derive(Debug, Clone)]
pub enum Input {
    Tree(PathBuf),
    Archive(PathBuf, ArchiveFormat),
}

impl Input {
    pub fn path(&self) -> &Path {
        match self {
            Input::Tree(p) | Input::Archive(p, _) => p,
        }
    }
}

/// What the trees a step makes are checked against.
pub enum Reference {
    /// The source's dataset manifest.
    Manifest(PathBuf, Vec<Entry>),
    /// The source's files, hashed before the first repetition.
    Hashed(Vec<Entry>),
    /// Nothing but what the made tree carries: its own manifest, or the archive's checksums.
    Own,
}

/// The source: a tree, or an archive file named by its extension.
pub fn source_of(path: &Path) -> Result<Input> {
    let shown = path.display();
    let m =
        std::fs::metadata(path).map_err(|e| Error::usage(format!("--source '{shown}': {e}")))?;
    if m.is_dir() {
        return Ok(Input::Tree(path.to_path_buf()));
    }
    match ArchiveFormat::of_path(path) {
        Some(f) if m.is_file() => Ok(Input::Archive(path.to_path_buf(), f)),
        _ => Err(Error::usage(format!(
            "--source '{shown}' is neither a folder nor an archive (.zip, .tar.zst)"
        ))),
    }
}

/// Each step has what it works on: a tree or an archive, made by the source or a step before.
pub fn check_chain(steps: &[Step], source: &Input, path: &Path) -> Result<()> {
    let mut have = match source {
        Input::Tree(_) => Material::Tree,
        Input::Archive(..) => Material::Archive,
    };
    let mut from = format!("the source '{}' is", path.display());
    for (n, s) in steps.iter().enumerate() {
        let at = if steps.len() == 1 {
            s.kind.name().to_string()
        } else {
            format!("step {} ({})", n + 1, s.kind.name())
        };
        match (s.kind.input(), have) {
            (Material::Tree, Material::Archive) => {
                return Err(Error::usage(format!(
                    "{at} works on a tree, and {from} an archive: extract it first"
                )))
            }
            (_, Material::Nothing) => {
                return Err(Error::usage(format!("{at} has nothing to work on: {from}")))
            }
            _ => {}
        }
        match s.kind.output() {
            Material::Nothing if s.kind == StepKind::Delete => {
                have = Material::Nothing;
                from = format!("step {} (delete) removed the tree", n + 1);
            }
            Material::Nothing => {}
            m => {
                have = m;
                from = format!("what step {} ({}) leaves is", n + 1, s.kind.name());
            }
        }
    }
    Ok(())
}

/// The target may not be the source nor lie inside it: a workload never writes there.
pub fn check_apart(source: &Path, target: &Path) -> Result<()> {
    let canon = |p: &Path| -> PathBuf {
        // The nearest folder that exists, resolved, and the rest as given.
        let mut head = p.to_path_buf();
        let mut tail = Vec::new();
        while !head.exists() {
            match (head.file_name().map(|n| n.to_os_string()), head.parent()) {
                (Some(n), Some(parent)) => {
                    tail.push(n);
                    head = parent.to_path_buf();
                }
                _ => break,
            }
        }
        let mut c = std::fs::canonicalize(&head).unwrap_or(head);
        c.extend(tail.iter().rev());
        c
    };
    let (s, t) = (canon(source), canon(target));
    if t.starts_with(&s) {
        return Err(Error::usage(format!(
            "--target '{}' is inside --source '{}': a workload never writes into its source",
            target.display(),
            source.display()
        )));
    }
    Ok(())
}

/// Make the target, or check the one there: a folder, empty unless `force`.
pub fn claim_target(t: &Path, force: bool, top: &mut Made) -> Result<()> {
    let shown = t.display();
    match std::fs::symlink_metadata(t) {
        Ok(m) if !m.is_dir() => Err(Error::usage(format!("--target '{shown}' is not a folder"))),
        Ok(_) => {
            let mut entries = std::fs::read_dir(t)
                .map_err(|e| Error::usage(format!("cannot read --target '{shown}': {e}")))?;
            if entries.next().is_some() && !force {
                return Err(Error::usage(format!(
                    "--target '{shown}' is not empty: a workload writes in a new or empty folder \
                     (--force works beside what is there, never writing over any of it)"
                )));
            }
            Ok(())
        }
        Err(_) => {
            // The highest folder missing: iogauge makes it, and owns everything in it.
            let mut first = t.to_path_buf();
            while let Some(p) = first
                .parent()
                .filter(|p| !p.as_os_str().is_empty() && !p.exists())
            {
                first = p.to_path_buf();
            }
            std::fs::create_dir_all(t)
                .map_err(|e| Error::usage(format!("cannot make --target '{shown}': {e}")))?;
            top.own(&first)
        }
    }
}

fn facts_of(path: &Path) -> TargetFacts {
    File::open(path)
        .map(|f| TargetFacts::collect(path, &f, false, false))
        .unwrap_or_default()
}

pub fn survey_source(source: &Input, stop: &AtomicBool) -> Result<(Option<Survey>, Place)> {
    match source {
        Input::Tree(p) => {
            let s = tree::survey(p, stop)?;
            let manifest = p.join(MANIFEST);
            let place = Place {
                path: p.display().to_string(),
                what: "tree".into(),
                files: s.files,
                dirs: s.dirs,
                links: s.links,
                bytes: s.bytes,
                manifest: manifest.is_file().then(|| manifest.display().to_string()),
                facts: facts_of(p),
            };
            Ok((Some(s), place))
        }
        Input::Archive(p, f) => {
            let bytes = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
            let place = Place {
                path: p.display().to_string(),
                what: format!("{} archive", f.name()),
                files: 0,
                dirs: 0,
                links: 0,
                bytes,
                manifest: None,
                facts: facts_of(p),
            };
            Ok((None, place))
        }
    }
}

pub fn place_of_target(t: &Path) -> Place {
    Place {
        path: t.display().to_string(),
        what: "folder".into(),
        files: 0,
        dirs: 0,
        links: 0,
        bytes: 0,
        manifest: None,
        facts: facts_of(t),
    }
}

/// What made trees are checked against: the source's manifest, else its files hashed now
/// (untimed, before caches are emptied for the first step; with a note saying so).
pub fn reference_of(
    params: &Params,
    source: &Input,
    stop: &AtomicBool,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(Reference, Option<String>)> {
    let makes_tree = params
        .steps
        .iter()
        .any(|s| s.kind.output() == Material::Tree);
    let Input::Tree(src) = source else {
        return Ok((Reference::Own, None));
    };
    if !params.verify || !makes_tree {
        return Ok((Reference::Own, None));
    }
    let at = src.join(MANIFEST);
    if at.is_file() {
        let m = Manifest::read(&at)?;
        return Ok((Reference::Manifest(at, m.entries), None));
    }
    let threads = params.steps.iter().map(|s| s.threads).max().unwrap_or(1);
    progress("hashing the source, to check what the steps make against it");
    let entries = hash_tree(src, threads, stop)?;
    let note = format!(
        "the source has no dataset manifest: its {} files were hashed (XXH3) before the first \
         step, untimed, and every tree a step makes is checked against them",
        entries.len()
    );
    Ok((Reference::Hashed(entries), Some(note)))
}

/// Every file below `root`, hashed by `threads` threads.
fn hash_tree(root: &Path, threads: u32, stop: &AtomicBool) -> Result<Vec<Entry>> {
    let files: Vec<_> = tree::list(root, stop)?
        .into_iter()
        .filter(|i| i.kind == Kind::File)
        .collect();
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::with_capacity(files.len()));
    let failed = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut buf = vec![0u8; 1 << 20];
                while let Some(item) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let path = root.join(&item.rel);
                    let r = File::open(&path).and_then(|mut f| dverify::hash(&mut f, &mut buf));
                    match r {
                        Ok((size, xxh3)) => {
                            out.lock().unwrap_or_else(|p| p.into_inner()).push(Entry {
                                path: item.rel.to_string_lossy().into_owned(),
                                size,
                                xxh3,
                            })
                        }
                        Err(e) => {
                            failed
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .get_or_insert(Error::runtime(format!(
                                    "cannot read '{}': {e}",
                                    path.display()
                                )));
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
    Ok(out.into_inner().unwrap_or_else(|p| p.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(kind: StepKind) -> Step {
        Step {
            kind,
            threads: 1,
            method: None,
            format: None,
            level: None,
        }
    }

    #[test]
    fn each_step_must_have_what_it_works_on() {
        let tree = Input::Tree("/s".into());
        let zip = Input::Archive("/s.zip".into(), ArchiveFormat::Zip);
        let p = Path::new("/s");
        let steps = |k: &[StepKind]| k.iter().map(|k| step(*k)).collect::<Vec<_>>();
        use StepKind::*;
        assert!(check_chain(&steps(&[Copy, Archive, Extract, Scan, Delete]), &tree, p).is_ok());
        assert!(check_chain(&steps(&[Extract, Readall]), &zip, p).is_ok());
        let e = check_chain(&steps(&[Copy]), &zip, p)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "copy works on a tree, and the source '/s' is an archive: extract it first"
        );
        let e = check_chain(&steps(&[Archive, Scan]), &tree, p)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "step 2 (scan) works on a tree, and what step 1 (archive) leaves is an archive: \
             extract it first"
        );
        let e = check_chain(&steps(&[Delete, Scan]), &tree, p)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "step 2 (scan) has nothing to work on: step 1 (delete) removed the tree"
        );
    }

    #[test]
    fn a_target_inside_the_source_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        std::fs::create_dir(&src).unwrap();
        assert!(check_apart(&src, &src.join("new/deeper")).is_err());
        assert!(check_apart(&src, &src).is_err());
        assert!(check_apart(&src, &t.path().join("elsewhere")).is_ok());
    }
}
