//! A job's files and the region of them it works in: one shared file that `filename` names
//! or a file per clone with fio's generated names, in `directory`; `nrfiles` of them per
//! clone; `size` and `offset` (also in percent), `filesize`, `offset_increment`; how a clone
//! moves between its files (`file_service_type`) and how many it keeps open (`openfiles`).

use super::shape::Shape;
use super::Job;
use crate::error::{Error, Result};
use crate::spec::fio::options::Set;
use crate::spec::fio::{parse_size, parse_size_range};
use crate::spec::{EngineKind, FileService, TargetSpec};
use std::path::{Path, PathBuf};

/// How a job's `numjobs` clones were laid out in its JobSpec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clones {
    /// One shared file (`filename`): clone i is thread i of the one target.
    Threads,
    /// A file per clone (fio's generated names): clone i is target i, one thread each.
    Targets,
}

/// A job's files, and where in them its clones work.
pub(super) struct Files {
    pub(super) targets: Vec<TargetSpec>,
    pub(super) layout: Clones,
    /// fio's numjobs.
    pub(super) clones: u32,
    /// Files per clone.
    pub(super) nfiles: u64,
    /// Each file's size, as filesize= gives it (a range's upper end).
    pub(super) filesize: Option<u64>,
    /// What a clone moves in one pass where filesize= sizes the files (size= then only
    /// bounds it, as fio's io_size would); None where the region of each file says.
    pub(super) volume: Option<u64>,
    pub(super) offset: u64,
    /// Each file's part of size=: its region from `offset`.
    pub(super) size: Option<u64>,
    /// Where the region of each clone ends.
    pub(super) max_offset: Option<u64>,
    /// offset_increment: how far apart the clones' regions are in a shared file.
    pub(super) increment: u64,
}

impl Files {
    pub(super) fn threads_per_target(&self) -> u32 {
        match self.layout {
            Clones::Threads => self.clones,
            Clones::Targets => 1,
        }
    }
}

/// Files: one shared file named by `filename`, or one generated file per clone.
/// fill_device with no size=: the free space of the file system the job's (first) file is in,
/// in whole blocks, as fio sizes such a job when it sets it up.
fn fill_size(j: &Job, dir: Option<&Path>, named: Option<&[String]>, shape: &Shape) -> Result<u64> {
    let first = named.and_then(|n| n.first()).map(|n| in_dir(dir, n));
    let folder = match &first {
        Some(f) => f
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf),
        None => dir.map(Path::to_path_buf),
    }
    .unwrap_or_else(|| PathBuf::from("."));
    let free = (j.o.free_space_of)(&folder).ok_or_else(|| {
        j.set.err(
            "fill_device",
            format!(
                "the free space of '{}' cannot be known here (a file system that reports no capacity): give size=",
                folder.display()
            ),
        )
    })?;
    let blocks = free / shape.block_size;
    if blocks == 0 {
        return Err(j.set.err(
            "fill_device",
            format!("'{}' has no room for one block", folder.display()),
        ));
    }
    Ok(blocks * shape.block_size)
}

pub(super) fn read_files(
    j: &Job,
    shape: &Shape,
    clones: u32,
    notes: &mut Vec<String>,
) -> Result<Files> {
    let mut files = laid_out(j, shape, clones, notes)?;
    one_file_per_name(j, &mut files, notes)?;
    Ok(files)
}

/// fio's filename_format without $filenum names every file of a clone alike, and fio then
/// opens that one file nrfiles times, as nrfiles files, each worked in full (OpenZFS's
/// fill_fs writes 4 x 8 MiB per clone into one 8 MiB file). iogauge opens it once and moves
/// the same bytes over it, in passes; said in a note, as the order of the writes differs.
fn one_file_per_name(j: &Job, files: &mut Files, notes: &mut Vec<String>) -> Result<()> {
    let n = files.nfiles as usize;
    if files.layout != Clones::Targets || n < 2 {
        return Ok(());
    }
    let alike = |c: &[TargetSpec]| c.iter().all(|t| t.path == c[0].path);
    if !files.targets.chunks(n).all(alike) {
        return Ok(());
    }
    let volume = match files.volume {
        Some(v) => v,
        None => clone_region(j, files)?,
    };
    notes.push(format!(
        "job '{}': filename_format '{}' names its {n} files per clone alike ('{}'): fio opens that file {n} times and works each in full; iogauge opens it once and moves the same {volume} bytes per clone over it, in {n} passes",
        j.name,
        j.set.text("filename_format").unwrap_or(""),
        files.targets[0].path.display()
    ));
    files.targets = files.targets.iter().step_by(n).cloned().collect();
    files.volume = Some(volume);
    files.nfiles = 1;
    Ok(())
}

fn laid_out(j: &Job, shape: &Shape, clones: u32, notes: &mut Vec<String>) -> Result<Files> {
    let set = &j.set;
    // `a:b:c`: generated files go to the directories in turn, clone by clone; a named file
    // goes to the first (as fio 3.33 does).
    let dirs: Vec<PathBuf> = set
        .text("directory")
        .map(|d| split_files(d).into_iter().map(PathBuf::from).collect())
        .unwrap_or_default();
    let dir = dirs.first().map(PathBuf::as_path);
    // A job's files: those `filename` lists (nrfiles then does not count, as in fio), or
    // nrfiles generated per clone. size= is shared among them; filesize= is each one's.
    let named = set
        .text("filename")
        .filter(|f| !f.is_empty())
        .map(split_files);
    let nfiles = match &named {
        Some(names) => names.len() as u64,
        None => set.int("nrfiles")?.unwrap_or(1),
    };
    if nfiles == 0 || nfiles > 65536 {
        return Err(set.err("nrfiles", format!("{nfiles} is not between 1 and 65536")));
    }
    let filesize = read_filesize(set)?;
    let fixed = filesize.filter(|(lo, hi)| lo == hi).map(|(lo, _)| lo);
    // fio's generated files that exist already size a job that gives no size (OpenZFS's perf
    // suite lays them out, then reads them with size=100% or none).
    let sized = set.text("size").is_some_and(|v| !v.trim().ends_with('%'));
    let existing = match (&named, filesize) {
        (None, None) if !sized => existing_size(j, &dirs, clones, nfiles as u32, notes),
        _ => None,
    };
    let (offset, size) = read_region(j, dir, fixed.or(existing), nfiles, shape)?;
    let size = match size {
        None if filesize.is_none() && set.flag("fill_device")?.unwrap_or(false) => {
            Some(fill_size(j, dir, named.as_deref(), shape)?)
        }
        s => s,
    };
    let may_create = set.flag("allow_file_create")?.unwrap_or(true);
    let increment = set.size("offset_increment")?.unwrap_or(0);
    if increment > 0 && named.is_none() {
        return Err(set.err(
            "offset_increment",
            "with a file per clone (no filename=) is not supported yet (planned); name one file for the clones to share",
        ));
    }
    let mut files = Files {
        targets: Vec::new(),
        layout: Clones::Threads,
        clones,
        nfiles,
        filesize: filesize.map(|(_, hi)| hi),
        volume: None,
        offset,
        size,
        max_offset: None,
        increment,
    };
    // With size= as well, one filesize: size= is the region (as `explain` writes a region
    // smaller than its file); fio's region would be the whole filesize, with size= the bytes.
    if let Some(range) = filesize.filter(|&(lo, hi)| size.is_none() || lo != hi) {
        sized_by_filesize(j, &dirs, named.as_deref(), range, shape, &mut files, notes)?;
        return Ok(files);
    }
    // An empty filename (a job undoing its [global]'s) means fio's generated names.
    match &named {
        Some(names) => {
            let create = shared_file_size(set, &files)?.filter(|_| may_create);
            files.targets = names
                .iter()
                .map(|n| TargetSpec {
                    path: in_dir(dir, n),
                    create_size: create,
                    temporary: false,
                })
                .collect();
            // The region each clone works in: `size` from `offset`, else the whole file.
            files.max_offset = size
                .map(|s| set.fits("size", offset.checked_add(s)))
                .transpose()?;
        }
        None => {
            let Some(file_size) = fixed.or(size).or(existing) else {
                return Err(Error::usage(format!(
                    "{}: job '{}' names no file and no size: give filename= or size= (fio fails it as it starts: \"you need to specify size=\")",
                    j.fj.at, j.name
                )));
            };
            // Files that exist are worked over as they are, never laid out again.
            let create = (may_create && existing.is_none()).then_some(file_size);
            files.targets = generated_targets(j, &dirs, &files, create);
            files.layout = Clones::Targets;
            files.max_offset = match (size, fixed.or(existing)) {
                (Some(s), Some(f)) => offset.checked_add(s).filter(|&end| end < f),
                _ => None,
            };
        }
    }
    Ok(files)
}

/// `offset` and each file's part of `size`. size=N% and offset=N% are shares of the file:
/// filesize, or the size of the named file as it is now.
fn read_region(
    j: &Job,
    dir: Option<&Path>,
    filesize: Option<u64>,
    nfiles: u64,
    shape: &Shape,
) -> Result<(u64, Option<u64>)> {
    let set = &j.set;
    let pct = |key: &str, least: u64| -> Result<Option<u64>> {
        // fio takes any number of '%' (fio-plot's precondition job writes size=100%%).
        let Some(v) = set
            .text(key)
            .map(str::trim)
            .filter(|v| v.ends_with('%'))
            .map(|v| v.trim_end_matches('%'))
        else {
            return Ok(None);
        };
        match v.trim().parse::<u64>() {
            Ok(p) if (least..=100).contains(&p) => Ok(Some(p)),
            _ => Err(set.err(key, format!("'{v}%' is not a percentage {least}..100"))),
        }
    };
    let (size_pct, offset_pct) = (pct("size", 1)?, pct("offset", 0)?);
    let whole = if size_pct.is_some() || offset_pct.is_some() {
        let key = if size_pct.is_some() { "size" } else { "offset" };
        Some(whole_file(j, dir, filesize, key)?)
    } else {
        None
    };
    let offset = match (offset_pct, whole) {
        // As fio: aligned up to offset_align where it is set, else down to the smallest block
        // size (or blockalign).
        (Some(p), Some(w)) => {
            let at = set.fits("offset", w.checked_mul(p))? / 100;
            match set.size("offset_align")?.filter(|&a| a > 0) {
                Some(a) => set.fits("offset_align", at.div_ceil(a).checked_mul(a))?,
                None => at / shape.align * shape.align,
            }
        }
        _ => set.size("offset")?.unwrap_or(0),
    };
    let size = match (size_pct, whole) {
        (Some(p), Some(w)) => {
            Some((set.fits("size", w.checked_mul(p))? / 100).min(w.saturating_sub(offset)))
        }
        // Each file's part of size=, whole blocks (fio divides size= among the files).
        _ => set.size("size")?.map(|s| {
            if nfiles > 1 {
                s / nfiles / shape.smallest * shape.smallest
            } else {
                s
            }
        }),
    };
    if size == Some(0) {
        return Err(set.err(
            "size",
            if nfiles > 1 {
                "leaves less than a block for each file"
            } else {
                "leaves nothing past the offset"
            },
        ));
    }
    Ok((offset, size))
}

/// The size a percentage of `key` is of: filesize, else the size of the first file named.
fn whole_file(j: &Job, dir: Option<&Path>, filesize: Option<u64>, key: &str) -> Result<u64> {
    let named = j
        .set
        .text("filename")
        .filter(|f| !f.is_empty())
        .and_then(|f| split_files(f).into_iter().next())
        .map(|f| in_dir(dir, &f));
    filesize
        .or_else(|| named.as_deref().and_then(|p| (j.o.size_of)(p)))
        .ok_or_else(|| {
            j.set.err(
                key,
                "a percentage needs the file's size: give filesize=, or name a file that exists",
            )
        })
}

/// A named file's path: relative ones are in `dir`, where one is given.
fn in_dir(dir: Option<&Path>, name: &str) -> PathBuf {
    match dir {
        Some(d) if Path::new(name).is_relative() => d.join(name),
        _ => PathBuf::from(name),
    }
}

/// The size to lay out a shared file at: filesize, else far enough for the last clone's
/// region (offset_increment apart).
fn shared_file_size(set: &Set, files: &Files) -> Result<Option<u64>> {
    let reach = files.increment.checked_mul(files.clones as u64 - 1);
    let end = |s: u64| reach.and_then(|r| files.offset.checked_add(r)?.checked_add(s));
    let culprit = if files.increment > 0 {
        "offset_increment"
    } else {
        "size"
    };
    Ok(match files.size {
        Some(s) if files.filesize.is_none() => Some(set.fits(culprit, end(s))?),
        _ => files.filesize,
    })
}

/// fio's filesize: one size (`64m`), or a range (`1m-4m`, `1m:4m`) each file draws its size
/// in. As (low, high).
fn read_filesize(set: &Set) -> Result<Option<(u64, u64)>> {
    let Some(v) = set.text("filesize") else {
        return Ok(None);
    };
    let range = if v.contains('-') || v.contains(':') {
        parse_size_range(v, set.kb_base)
    } else {
        parse_size(v, set.kb_base).map(|s| (s, s))
    };
    match range.map_err(|e| set.err("filesize", e))? {
        (0, _) => Err(set.err("filesize", format!("'{v}' leaves a file of no bytes"))),
        r => Ok(Some(r)),
    }
}

/// Files that filesize= sizes, as fio sizes them: each file's region is its filesize (from
/// the offset), a size drawn in the range where one is given (in whole smallest blocks), or
/// the file as it is where its size already lies in the range; a device or file smaller than
/// that is worked to its end. size= is then only what a clone moves at most (fio's HOWTO:
/// "size becomes merely the default for io_size").
fn sized_by_filesize(
    j: &Job,
    dirs: &[PathBuf],
    named: Option<&[String]>,
    (lo, hi): (u64, u64),
    shape: &Shape,
    files: &mut Files,
    notes: &mut Vec<String>,
) -> Result<()> {
    let set = &j.set;
    let dir = dirs.first().map(PathBuf::as_path);
    let mut targets = match named {
        Some(names) => names
            .iter()
            .map(|n| TargetSpec {
                path: in_dir(dir, n),
                create_size: None,
                temporary: false,
            })
            .collect(),
        None => {
            files.layout = Clones::Targets;
            generated_targets(j, dirs, files, None)
        }
    };
    // One draw per file of a clone; the clones' files share them, so that every clone moves
    // the same bytes (fio draws for each clone's files anew).
    let seed = super::threads::read_seed(set)?;
    let mut rng = crate::rng::Rng::new(seed, &[0xF11E_5123]);
    let drawn: Vec<u64> = (0..files.nfiles)
        .map(|_| match lo == hi {
            true => lo,
            false => {
                let s = lo + rng.below(hi - lo + 1);
                (s / shape.smallest * shape.smallest).max(shape.smallest)
            }
        })
        .collect();
    if lo != hi && files.clones > 1 && named.is_none() {
        notes.push(format!("filesize={lo}-{hi}: the sizes drawn for a clone's files are the same for every clone (fio draws each clone's anew)"));
    }
    let may_create = set.flag("allow_file_create")?.unwrap_or(true);
    let mut ends = Vec::with_capacity(targets.len());
    // A file larger than its region needs the region's end said; a file made at its size
    // (or smaller, worked whole) does not.
    let mut cut = false;
    for (i, t) in targets.iter_mut().enumerate() {
        let now = (j.o.exists)(&t.path)
            .then(|| (j.o.size_of)(&t.path))
            .flatten();
        let want = match now {
            Some(s) if (lo..=hi).contains(&s) => s,
            _ => drawn[i % drawn.len()],
        };
        let end = match now {
            Some(s) if s < want => {
                notes.push(format!(
                    "filesize: '{}' holds {s} bytes, less than the {want} asked; iogauge works to its end (fio extends a file, and works to a device's end)",
                    t.path.display()
                ));
                s
            }
            _ => want,
        };
        t.create_size = may_create.then_some(want);
        cut |= now.is_some_and(|s| s > end);
        ends.push(end);
    }
    // One end for every file (a job's region is one): the nearest, said where it may differ.
    let nearest = ends.iter().copied().min().unwrap_or(0);
    if cut {
        if ends.iter().any(|&e| e != nearest) {
            notes.push(format!("filesize: the files' regions differ; iogauge works in the first {nearest} bytes of each"));
        }
        files.max_offset = Some(nearest);
    }
    let per_clone = ends
        .iter()
        .take(files.nfiles as usize)
        .fold(0u64, |sum, e| {
            sum.saturating_add(e.saturating_sub(files.offset))
        });
    let asked = match set.text("size") {
        Some(v) if !v.trim().ends_with('%') => set.size("size")?,
        _ => files.size.map(|s| s.saturating_mul(files.nfiles)),
    };
    files.volume = Some(asked.map_or(per_clone, |a| a.min(per_clone)));
    files.targets = targets;
    Ok(())
}

/// The bytes of a clone's region of every file: from the offset to the end of the region,
/// else of the file as it will be (or is, where it exists).
pub(super) fn clone_region(j: &Job, files: &Files) -> Result<u64> {
    let t = &files.targets[0];
    let end = match files.max_offset {
        Some(end) => end,
        None => t
            .create_size
            .filter(|_| !(j.o.exists)(&t.path))
            .or_else(|| (j.o.size_of)(&t.path))
            .ok_or_else(|| {
                Error::usage(format!(
                    "{}: job '{}': '{}' does not exist and no size= was given",
                    j.fj.at,
                    j.name,
                    t.path.display()
                ))
            })?,
    };
    Ok(end
        .saturating_sub(files.offset)
        .saturating_mul(files.nfiles))
}

/// fio's generated files, `nfiles` per clone, dealt to the directories in turn.
fn generated_targets(
    j: &Job,
    dirs: &[PathBuf],
    files: &Files,
    create_size: Option<u64>,
) -> Vec<TargetSpec> {
    generated_paths(j, dirs, files.clones, files.nfiles as u32)
        .into_iter()
        .map(|path| TargetSpec {
            path,
            create_size,
            temporary: false,
        })
        .collect()
}

fn generated_paths(j: &Job, dirs: &[PathBuf], clones: u32, nfiles: u32) -> Vec<PathBuf> {
    let format = j
        .set
        .text("filename_format")
        .unwrap_or("$jobname.$jobnum.$filenum");
    let here = [PathBuf::from(".")];
    let dirs = if dirs.is_empty() { &here[..] } else { dirs };
    (0..clones)
        .flat_map(|c| (0..nfiles).map(move |f| (c, f)))
        .enumerate()
        .map(|(i, (c, f))| dirs[i % dirs.len()].join(format_name(format, &j.fj.name, c, f)))
        .collect()
}

/// The size of the job's generated files where every one exists already, as fio sizes a job
/// with no size= or filesize= (the smallest, where they differ: each clone works within it).
fn existing_size(
    j: &Job,
    dirs: &[PathBuf],
    clones: u32,
    nfiles: u32,
    notes: &mut Vec<String>,
) -> Option<u64> {
    let paths = generated_paths(j, dirs, clones, nfiles);
    let sizes: Vec<u64> = paths
        .iter()
        .map(|p| (j.o.size_of)(p).filter(|&s| s > 0))
        .collect::<Option<_>>()?;
    let (least, most) = (*sizes.iter().min()?, *sizes.iter().max()?);
    notes.push(format!(
        "job '{}' gives no size: its {} files exist, and it works over them as they are{}",
        j.name,
        paths.len(),
        if least == most {
            String::new()
        } else {
            format!(" (sizes differ: size=N% is a share of the smallest, {least} bytes)")
        }
    ));
    Some(least)
}

/// fio's `:` separated file list, where `\:` is a colon inside a name.
fn split_files(list: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = list.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                out.last_mut().expect("never empty").push(':');
                chars.next();
            }
            ':' => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// fio's `filename_format` for file `filenum` of clone `jobnum`: $jobname, $jobnum, $filenum,
/// $clientuid.
fn format_name(format: &str, job: &str, jobnum: u32, filenum: u32) -> String {
    format
        .replace("$jobname", job)
        .replace("$jobnum", &jobnum.to_string())
        .replace("$filenum", &filenum.to_string())
        .replace("$clientuid", "0")
}

/// fio's file_service_type: roundrobin (its default), random or sequential, with `:N` I/Os
/// per file for the first two.
pub(super) fn read_file_service(set: &Set) -> Result<FileService> {
    let Some(v) = set.text("file_service_type") else {
        return Ok(FileService::RoundRobin { every: 1 });
    };
    let kind = v.split(':').next().unwrap_or("").trim();
    if matches!(kind, "zipf" | "pareto" | "normal" | "gauss") {
        return Err(set.err(
            "file_service_type",
            format!("'{v}': files drawn with a skew are not supported yet (planned); use random, roundrobin or sequential"),
        ));
    }
    FileService::parse(v)
        .ok()
        .filter(|s| *s != FileService::Slots)
        .ok_or_else(|| {
            set.err(
                "file_service_type",
                format!("'{v}' is not roundrobin[:N], random[:N] or sequential"),
            )
        })
}

/// openfiles: 0, or a count above nrfiles, is nrfiles (as fio takes them). The file-operation
/// engines hold no file open, whatever it says: fio's own filecreate example sets it.
pub(super) fn read_open_files(
    set: &Set,
    engine: EngineKind,
    notes: &mut Vec<String>,
) -> Result<Option<u32>> {
    let Some(n) = set.int("openfiles")? else {
        return Ok(None);
    };
    if engine.is_file_op() {
        notes.push(format!(
            "openfiles: ioengine={} holds no file open; it has no effect",
            engine.name()
        ));
        return Ok(None);
    }
    Ok((n > 0).then(|| u32::try_from(n).unwrap_or(u32::MAX)))
}
