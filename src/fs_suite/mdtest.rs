//! mdtest's phases (`iogauge mdtest`, read by spec/mdtest.rs) on this rank, fenced with the
//! other ranks as mdtest fences them: every rank meets the others before a phase and after
//! it, and a phase's time is the slowest rank's, so its rate is every rank's items over the
//! time until the last rank was done (mdtest's rate after its barrier). The operations are
//! the suite's own (`MetaOp`, one system call each on a name made before the clock starts).
//! Everything is made inside `DIR/test-dir.<iteration>-0`, which must be new.

use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::os::file::Name;
use crate::os::meta::MetaOp;
pub use crate::result::mdtest::{MdtestResult, Op};
use crate::spec::mdtest::Mdtest;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Where this rank stands: its rank, the ranks, and the others to meet (none alone).
pub struct Ranked<'a> {
    pub rank: u32,
    pub size: u32,
    pub team: Option<&'a dyn Cluster>,
    pub stop: &'a AtomicBool,
}

/// Every iteration on this rank; the rates (every rank's) on every rank.
pub fn run(m: &Mdtest, r: &Ranked) -> Result<MdtestResult> {
    let mut rates = Vec::new();
    for j in 0..m.iterations {
        rates.push(iteration(m, r, j)?);
    }
    Ok(MdtestResult {
        ranks: r.size,
        items_per_rank: m.items,
        tree_dirs: m.tree("t").len() as u64,
        rates,
    })
}

/// One iteration: the tree, the folders' phases, the files' phases, the tree's removal.
fn iteration(m: &Mdtest, r: &Ranked, j: u32) -> Result<[f64; Op::COUNT]> {
    let root = Path::new(&m.dir).join(format!("test-dir.{j}-0"));
    let mut rates = [0.0; Op::COUNT];
    if m.create {
        if r.rank == 0 {
            make_root(&root)?;
        }
        together(r, Ok(()))?;
    }
    let mine = Tree::of(m, &root, r.rank);
    let theirs = Tree::of(m, &root, (r.rank + m.stride) % r.size.max(1));
    let builds_tree = m.unique || r.rank == 0;
    let tree_ops = mine.dirs.len() as f64;
    let items = m.items as f64 * f64::from(r.size);
    if m.create {
        let dirs = if builds_tree { &mine.dirs[..] } else { &[] };
        let s = timed(r, || each(dirs, r.stop, |p| meta(MetaOp::Mkdir, p)))?;
        rates[Op::TreeCreate as usize] = tree_ops / s;
    }
    let mut phase = |op: Op, on: &[PathBuf], f: &dyn Fn(&Path) -> Result<()>| -> Result<()> {
        let s = timed(r, || each(on, r.stop, f))?;
        rates[op as usize] = items / s;
        Ok(())
    };
    if m.dirs {
        if m.create {
            phase(Op::DirCreate, &mine.items("dir"), &|p| {
                meta(MetaOp::Mkdir, p)
            })?;
        }
        if m.stat {
            phase(Op::DirStat, &theirs.items("dir"), &|p| {
                meta(MetaOp::Stat, p)
            })?;
        }
        if m.remove {
            phase(Op::DirRemove, &mine.items("dir"), &|p| {
                meta(MetaOp::Rmdir, p)
            })?;
        }
    }
    if m.files {
        if m.create {
            phase(Op::FileCreate, &mine.items("file"), &|p| {
                create(p, m.write_bytes)
            })?;
        }
        if m.stat {
            phase(Op::FileStat, &theirs.items("file"), &|p| {
                meta(MetaOp::Stat, p)
            })?;
        }
        if m.read {
            phase(Op::FileRead, &theirs.items("file"), &|p| {
                read(p, m.read_bytes)
            })?;
        }
        if m.remove {
            phase(Op::FileRemove, &mine.items("file"), &|p| {
                meta(MetaOp::Delete, p)
            })?;
        }
    }
    if m.remove {
        let dirs: Vec<PathBuf> = match builds_tree {
            true => mine.dirs.iter().rev().cloned().collect(),
            false => Vec::new(),
        };
        let s = timed(r, || each(&dirs, r.stop, |p| meta(MetaOp::Rmdir, p)))?;
        rates[Op::TreeRemove as usize] = tree_ops / s;
        if r.rank == 0 {
            std::fs::remove_dir(&root)
                .map_err(|e| Error::runtime(format!("cannot remove '{}': {e}", root.display())))?;
        }
    }
    Ok(rates)
}

/// `DIR` (made where missing, as mdtest makes it) and the iteration's folder in it, which
/// must be new: nothing there is iogauge's to add to or remove.
fn make_root(root: &Path) -> Result<()> {
    let shown = root.display();
    if let Some(parent) = root.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::usage(format!("-d: cannot make '{}': {e}", parent.display())))?;
    }
    std::fs::create_dir(root).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => Error::usage(format!(
            "-d: '{shown}' exists; iogauge mdtest makes it new (remove it, or give another -d)"
        )),
        _ => Error::usage(format!("-d: cannot make '{shown}': {e}")),
    })
}

/// A rank's tree: its folders (parents first) and, for each that holds items, the range of
/// its items' numbers.
struct Tree {
    rank: u32,
    dirs: Vec<PathBuf>,
    holders: Vec<(PathBuf, std::ops::Range<u64>)>,
}

impl Tree {
    fn of(m: &Mdtest, root: &Path, rank: u32) -> Tree {
        let base = match m.unique {
            true => format!("mdtest_tree.{rank}"),
            false => "mdtest_tree".to_string(),
        };
        let mut dirs = Vec::new();
        let mut holders = Vec::new();
        for (k, path, holds) in m.tree(&base) {
            let p = root.join(path);
            if holds {
                holders.push((p.clone(), k * m.per_dir..(k + 1) * m.per_dir));
            }
            dirs.push(p);
        }
        Tree {
            rank,
            dirs,
            holders,
        }
    }

    /// mdtest's names of this rank's items: `file.mdtest.<rank>.<n>`, `dir.mdtest.<rank>.<n>`.
    fn items(&self, kind: &str) -> Vec<PathBuf> {
        let mut v = Vec::new();
        for (dir, range) in &self.holders {
            for i in range.clone() {
                v.push(dir.join(format!("{kind}.mdtest.{}.{i}", self.rank)));
            }
        }
        v
    }
}

/// Go on only together: an error of any rank ends every rank's run (each says its own; the
/// others say that another rank failed).
fn together(r: &Ranked, local: Result<()>) -> Result<()> {
    let Some(c) = r.team else {
        return local;
    };
    let any = c.max_u64(u64::from(local.is_err()));
    match (local, any) {
        (Err(e), _) => Err(e),
        (Ok(()), 0) => Ok(()),
        (Ok(()), _) => Err(Error::runtime("another rank's phase failed")),
    }
}

/// One phase timed as mdtest times it: the ranks meet, each does its part, and the time is
/// the slowest rank's (seconds, never 0).
fn timed(r: &Ranked, work: impl FnOnce() -> Result<()>) -> Result<f64> {
    if let Some(c) = r.team {
        if !c.fence(r.stop) {
            return Err(Error::Interrupted("interrupted between phases".into()));
        }
    }
    let t0 = Instant::now();
    let outcome = work();
    let mine = t0.elapsed().as_nanos() as u64;
    together(r, outcome)?;
    let slowest = r.team.map_or(mine, |c| c.max_u64(mine));
    Ok(slowest.max(1) as f64 / 1e9)
}

/// `op` on every path (the paths made before the clock starts).
fn each(paths: &[PathBuf], stop: &AtomicBool, op: impl Fn(&Path) -> Result<()>) -> Result<()> {
    for (i, p) in paths.iter().enumerate() {
        if i % 1024 == 1023 && stop.load(Ordering::Relaxed) {
            return Err(Error::Interrupted("interrupted".into()));
        }
        op(p)?;
    }
    Ok(())
}

fn meta(op: MetaOp, path: &Path) -> Result<()> {
    let name = Name::new(path).map_err(|e| Error::usage(format!("{}: {e}", path.display())))?;
    match op.on_path(&name) {
        true => Ok(()),
        false => Err(failed(op.verb(), path, std::io::Error::last_os_error())),
    }
}

fn failed(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::runtime(format!("cannot {what} '{}': {e}", path.display()))
}

/// mdtest's file creation: create (never over an existing file), write -w bytes, close.
fn create(path: &Path, bytes: u64) -> Result<()> {
    if bytes == 0 {
        return meta(MetaOp::Create, path);
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| failed("create", path, e))?;
    let chunk = [0xa5u8; 4096];
    let mut left = bytes;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        f.write_all(&chunk[..n])
            .map_err(|e| failed("write", path, e))?;
        left -= n as u64;
    }
    Ok(())
}

/// mdtest's file read: open, read -e bytes, close.
fn read(path: &Path, bytes: u64) -> Result<()> {
    if bytes == 0 {
        return meta(MetaOp::Open, path);
    }
    let mut f = std::fs::File::open(path).map_err(|e| failed("open", path, e))?;
    let mut buf = [0u8; 4096];
    let mut left = bytes;
    while left > 0 {
        let n = left.min(buf.len() as u64) as usize;
        f.read_exact(&mut buf[..n])
            .map_err(|e| failed("read", path, e))?;
        left -= n as u64;
    }
    Ok(())
}
