//! Before anything is timed: what the source is (a tree or an archive) and holds, whether
//! every step has what it works on, the target claimed (never inside the source; new, or empty
//! unless `--force`), and what the trees the steps make will be checked against.

use super::made::Made;
use super::tree::{self, Survey};
use super::{ArchiveFormat, Material, Params, Place, Step, StepKind};
use crate::dataset::manifest::Manifest;
use crate::dataset::verify::Expected;
use crate::dataset::{verify as dverify, MANIFEST};
use crate::error::{Error, Result};
use crate::facts::TargetFacts;
use crate::os::dir::Kind;
use crate::os::resolve;
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
    Manifest(PathBuf, Vec<Expected>),
    /// The source's files, hashed before the first repetition.
    Hashed(Vec<Expected>),
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

/// Each extract's format is that of the archive it gets (from the source or the step that made
/// it); its `--format` only says how to pack a tree it gets.
pub fn settle(steps: &mut [Step], source: &Input) {
    let mut archive = match source {
        Input::Archive(_, f) => Some(*f),
        Input::Tree(_) => None,
    };
    for s in steps {
        match s.kind {
            StepKind::Archive => archive = Some(s.format()),
            StepKind::Extract => {
                if let Some(f) = archive {
                    s.format = Some(f);
                }
                archive = None;
            }
            StepKind::Copy => archive = None,
            _ => {}
        }
    }
}

/// The target may not be the source nor lie inside it: a workload never writes there. The
/// target is resolved as the kernel will once its missing folders are made (a `..` after a
/// missing folder cancels it), and "inside" is judged by the identity of every folder on its
/// way up, so neither `src/../src/out`, `nx/../src/out` nor a bind mount of the source gets
/// past. The source inside the target needs no check: what a step makes there always has a
/// new name (made with O_EXCL), so it can never be a folder that already holds the source.
/// The target as it resolves: what is made, and where.
pub fn check_apart(source: &Path, target: &Path) -> Result<PathBuf> {
    let (s, t) = (source.display(), target.display());
    let resolved = resolve::resolve(target)
        .map_err(|e| Error::usage(format!("cannot resolve --target '{t}': {e}")))?;
    let inside = resolve::is_within(&resolved, source)
        .map_err(|e| Error::usage(format!("cannot resolve --source '{s}': {e}")))?;
    if inside {
        let shown = match resolved.as_path() == target {
            true => String::new(),
            false => format!(" (it leads to '{}')", resolved.display()),
        };
        return Err(Error::usage(format!(
            "--target '{t}' is inside --source '{s}'{shown}: a workload never writes into its \
             source"
        )));
    }
    Ok(resolved)
}

/// Make the target (`t`, resolved by [`check_apart`]), or check the one there: a folder,
/// empty unless `force`. Each missing folder is made here, one by one, and owned.
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
            // The missing folders, highest first: iogauge makes them, and owns each.
            let mut missing = vec![t.to_path_buf()];
            while let Some(p) = missing
                .last()
                .and_then(|p| p.parent())
                .filter(|p| !p.as_os_str().is_empty() && std::fs::symlink_metadata(p).is_err())
            {
                missing.push(p.to_path_buf());
            }
            for p in missing.iter().rev() {
                top.folder(p)
                    .map_err(|e| Error::usage(format!("--target '{shown}': {e}")))?;
            }
            Ok(())
        }
    }
}

fn facts_of(path: &Path) -> TargetFacts {
    File::open(path)
        .map(|f| TargetFacts::collect(path, &f, false, false))
        .unwrap_or_default()
}

/// What the source holds, as [`survey_source`] found it.
pub struct Surveyed {
    /// Its counts and a sample of its files (a tree's).
    pub survey: Option<Survey>,
    pub place: Place,
    /// Its dataset manifest and where it lies, for [`reference_of`].
    pub manifest: Option<(PathBuf, Manifest)>,
}

/// What the source holds. A dataset's manifest says it without a walk (a walk of a large tree
/// costs as long as a scan of it, and warms the metadata caches a scan measures); another tree
/// is walked.
pub fn survey_source(source: &Input, stop: &AtomicBool) -> Result<Surveyed> {
    let (p, f) = match source {
        Input::Archive(p, f) => (p, f),
        Input::Tree(p) => {
            let at = p.join(MANIFEST);
            let manifest = match at.is_file() {
                true => Some(Manifest::read(&at)?),
                false => None,
            };
            let (s, counted) = match &manifest {
                Some(m) => (survey_of(m, &at), "manifest"),
                None => (tree::survey(p, stop)?, "walk"),
            };
            let place = Place {
                path: p.display().to_string(),
                what: "tree".into(),
                files: s.files,
                dirs: s.dirs,
                links: s.links,
                bytes: s.bytes,
                manifest: manifest.as_ref().map(|_| at.display().to_string()),
                counted: counted.into(),
                facts: facts_of(p),
            };
            return Ok(Surveyed {
                survey: Some(s),
                place,
                manifest: manifest.map(|m| (at, m)),
            });
        }
    };
    let place = Place {
        path: p.display().to_string(),
        what: format!("{} archive", f.name()),
        files: 0,
        dirs: 0,
        links: 0,
        bytes: std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
        manifest: None,
        counted: "stat".into(),
        facts: facts_of(p),
    };
    Ok(Surveyed {
        survey: None,
        place,
        manifest: None,
    })
}

/// A dataset as its manifest at `at` lists it: its files and the manifest itself, its
/// folders, and a sample spread over the files.
fn survey_of(m: &Manifest, at: &Path) -> Survey {
    let step = m.entries.len().div_ceil(tree::SAMPLE).max(1);
    Survey {
        files: m.entries.len() as u64 + 1,
        dirs: m.spec.dirs,
        links: 0,
        other: 0,
        bytes: m.total_bytes() + std::fs::metadata(at).map_or(0, |x| x.len()),
        sample: m
            .entries
            .iter()
            .step_by(step)
            .map(|e| PathBuf::from(&e.path))
            .collect(),
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
        counted: String::new(),
        facts: facts_of(t),
    }
}

/// What made trees are checked against: the source's manifest, else its files hashed now
/// (untimed, before caches are emptied for the first step; with a note saying so).
pub fn reference_of(
    params: &Params,
    source: &Input,
    manifest: Option<(PathBuf, Manifest)>,
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
    if let Some((at, m)) = manifest {
        let expected = m.entries.iter().map(Expected::from).collect();
        return Ok((Reference::Manifest(at, expected), None));
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
fn hash_tree(root: &Path, threads: u32, stop: &AtomicBool) -> Result<Vec<Expected>> {
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
                            out.lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push(Expected {
                                    rel: item.rel.clone(),
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
    fn an_extract_takes_the_format_of_the_archive_it_gets() {
        use StepKind::*;
        let mut steps: Vec<Step> = [Archive, Extract, Copy, Extract]
            .iter()
            .map(|k| step(*k))
            .collect();
        steps[0].format = Some(ArchiveFormat::TarZst);
        steps[1].format = Some(ArchiveFormat::Zip);
        steps[3].format = Some(ArchiveFormat::Zip);
        settle(&mut steps, &Input::Tree("/s".into()));
        assert_eq!(steps[1].format, Some(ArchiveFormat::TarZst));
        assert_eq!(
            steps[3].format,
            Some(ArchiveFormat::Zip),
            "a tree: its own --format"
        );
        let mut one = vec![step(Extract)];
        settle(
            &mut one,
            &Input::Archive("/a.tar.zst".into(), ArchiveFormat::TarZst),
        );
        assert_eq!(one[0].format, Some(ArchiveFormat::TarZst));
    }

    #[test]
    fn a_target_inside_the_source_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        std::fs::create_dir(&src).unwrap();
        assert!(check_apart(&src, &src.join("new/deeper")).is_err());
        assert!(check_apart(&src, &src).is_err());
        assert!(check_apart(&src, &t.path().join("elsewhere")).is_ok());
        // Through a missing folder and `..`, and through a link to the source.
        let e = check_apart(&src, &t.path().join("nx/../src/out"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("is inside --source") && e.contains("it leads to"),
            "{e}"
        );
        assert!(!t.path().join("nx").exists());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&src, t.path().join("ln")).unwrap();
            assert!(check_apart(&src, &t.path().join("ln/out")).is_err());
            let r = check_apart(&src, &t.path().join("nx/../other")).unwrap();
            assert_eq!(r, std::fs::canonicalize(t.path()).unwrap().join("other"));
        }
    }
}
