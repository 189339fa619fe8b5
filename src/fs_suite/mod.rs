//! `iogauge fs`: the file-system suite. The same metadata and page I/O tests run on several
//! file systems, each test `repeat` times, caches dropped before every measurement, and the
//! times compared with a reference file system (WinFsp's method, on Linux).
//!
//! Every measurement runs in its own fresh folder inside `DIR/iogauge-fs-<pid>/`, which the
//! suite creates, and which is removed after each test and at the end, also on error and on
//! Ctrl-C. Nothing outside that folder is ever written. What is timed is only the loop of
//! system calls (see [`ops`]); building the files a test needs is not.
//!
//! Repetitions are interleaved: test by test, repetition by repetition, every file system in
//! turn, so that a slow drift of the machine falls on all of them alike.

pub mod find;
pub mod mdtest;
pub mod ops;
pub mod ranks;

use crate::cluster::{Cluster, Place};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::facts::TargetFacts;
use crate::os::cache::CacheDrop;
use crate::os::threads::Gate;
use crate::os::workspace::Workspace;
use crate::result::Header;
// The result's types live with the other results; re-exported for the command line.
pub use crate::result::fs::{
    Cell, FsResult, FsTarget, Group, Params, Status, Summary, TestResult, SCHEMA_NAME,
    SCHEMA_VERSION,
};
use ops::{MetaOp, Outcome, PageOp, Stop};
use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The tests, in the order they run and are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    FileCreate,
    FileOpen,
    IterFileOpen,
    FileOverwrite,
    FileStat,
    FileList,
    FileListSingle,
    FileRename,
    FileDelete,
    DirCreate,
    DirDelete,
    CcWritePage,
    CcReadPage,
    NcWritePage,
    NcReadPage,
    MmapWrite,
    MmapRead,
    Fsync,
}

impl Test {
    pub const ALL: [Test; 18] = [
        Test::FileCreate,
        Test::FileOpen,
        Test::IterFileOpen,
        Test::FileOverwrite,
        Test::FileStat,
        Test::FileList,
        Test::FileListSingle,
        Test::FileRename,
        Test::FileDelete,
        Test::DirCreate,
        Test::DirDelete,
        Test::CcWritePage,
        Test::CcReadPage,
        Test::NcWritePage,
        Test::NcReadPage,
        Test::MmapWrite,
        Test::MmapRead,
        Test::Fsync,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Test::FileCreate => "file_create",
            Test::FileOpen => "file_open",
            Test::IterFileOpen => "iter.file_open",
            Test::FileOverwrite => "file_overwrite",
            Test::FileStat => "file_stat",
            Test::FileList => "file_list",
            Test::FileListSingle => "file_list_single",
            Test::FileRename => "file_rename",
            Test::FileDelete => "file_delete",
            Test::DirCreate => "dir_create",
            Test::DirDelete => "dir_delete",
            Test::CcWritePage => "rdwr_cc_write_page",
            Test::CcReadPage => "rdwr_cc_read_page",
            Test::NcWritePage => "rdwr_nc_write_page",
            Test::NcReadPage => "rdwr_nc_read_page",
            Test::MmapWrite => "mmap_write",
            Test::MmapRead => "mmap_read",
            Test::Fsync => "fsync",
        }
    }

    /// What one operation is, for --help, the report and the JSON.
    pub fn about(self) -> &'static str {
        let c = &crate::os::meta::CALLS;
        match self {
            Test::FileCreate => c.create,
            Test::FileOpen => c.open,
            Test::IterFileOpen => c.reopen,
            Test::FileOverwrite => c.overwrite,
            Test::FileStat => c.stat,
            Test::FileList => c.list,
            Test::FileListSingle => c.list_single,
            Test::FileRename => c.rename,
            Test::FileDelete => c.delete,
            Test::DirCreate => c.mkdir,
            Test::DirDelete => c.rmdir,
            Test::CcWritePage => c.cc_write,
            Test::CcReadPage => c.cc_read,
            Test::NcWritePage => c.nc_write,
            Test::NcReadPage => c.nc_read,
            Test::MmapWrite => c.mmap_write,
            Test::MmapRead => c.mmap_read,
            Test::Fsync => c.fsync,
        }
    }

    pub fn group(self) -> Group {
        match self {
            Test::CcWritePage
            | Test::CcReadPage
            | Test::NcWritePage
            | Test::NcReadPage
            | Test::MmapWrite
            | Test::MmapRead
            | Test::Fsync => Group::PageIo,
            _ => Group::Metadata,
        }
    }

    fn needs_direct(self) -> bool {
        matches!(self, Test::NcWritePage | Test::NcReadPage)
    }

    pub fn by_name(name: &str) -> Option<Test> {
        Test::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Operations one repetition performs.
    pub fn ops(self, p: &Params) -> u64 {
        let pages = p.file_size / p.page_size;
        match self {
            Test::IterFileOpen | Test::FileList | Test::FileListSingle => p.files * p.iterations,
            Test::CcWritePage
            | Test::CcReadPage
            | Test::NcWritePage
            | Test::NcReadPage
            | Test::MmapWrite
            | Test::MmapRead => pages * p.iterations,
            Test::Fsync => pages,
            _ => p.files,
        }
    }
}

/// Parse --tests: test names and the group names "metadata" and "page_io", comma-separated.
pub fn select_tests(list: &str) -> Result<Vec<Test>> {
    let mut chosen = Vec::new();
    for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let add: Vec<Test> = match word {
            "all" => Test::ALL.to_vec(),
            "metadata" => Test::ALL
                .into_iter()
                .filter(|t| t.group() == Group::Metadata)
                .collect(),
            "page_io" => Test::ALL
                .into_iter()
                .filter(|t| t.group() == Group::PageIo)
                .collect(),
            w => vec![Test::by_name(w).ok_or_else(|| {
                Error::usage(format!(
                    "unknown test '{w}' in --tests; the tests are {}, and the groups all, \
                     metadata, page_io",
                    Test::ALL.map(Test::name).join(", ")
                ))
            })?],
        };
        chosen.extend(add);
    }
    if chosen.is_empty() {
        return Err(Error::usage("--tests names no test"));
    }
    // Catalogue order, each once.
    Ok(Test::ALL
        .into_iter()
        .filter(|t| chosen.contains(t))
        .collect())
}

/// A file system to test: a folder on it, and the name it has in the report.
#[derive(Debug, Clone)]
pub struct Target {
    pub label: String,
    pub dir: PathBuf,
}

/// Turn DIR arguments (`DIR` or `NAME=DIR`) into targets. Unnamed ones are named by their file
/// system type, with #2, #3... where types repeat.
pub fn targets(args: &[String]) -> Result<Vec<Target>> {
    let mut out: Vec<Target> = Vec::new();
    for a in args {
        let (label, dir) = match a.split_once('=') {
            Some((name, dir))
                if !name.is_empty() && !name.contains('/') && !Path::new(a).exists() =>
            {
                (Some(name.to_string()), dir)
            }
            _ => (None, a.as_str()),
        };
        if dir.is_empty() {
            return Err(Error::usage(format!("'{a}' names no folder")));
        }
        let dir = std::path::absolute(dir)
            .map_err(|e| Error::usage(format!("cannot resolve '{dir}': {e}")))?;
        match std::fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Error::usage(format!(
                    "'{}' is not a folder; iogauge fs takes folders on the file systems to test",
                    dir.display()
                )))
            }
            Err(e) => {
                return Err(Error::usage(format!(
                    "folder '{}' cannot be used: {e}",
                    dir.display()
                )))
            }
        }
        if out.iter().any(|t| t.dir == dir) {
            return Err(Error::usage(format!(
                "folder '{}' is given twice",
                dir.display()
            )));
        }
        let label = label
            .unwrap_or_else(|| crate::facts::fs_type_of(&dir).unwrap_or_else(|| "fs".to_string()));
        out.push(Target { label, dir });
    }
    // Make every label unique, keeping the first as it is.
    for i in 1..out.len() {
        if out[..i].iter().any(|t| t.label == out[i].label) {
            let base = out[i].label.clone();
            let mut n = 2;
            while out.iter().any(|t| t.label == format!("{base}#{n}")) {
                n += 1;
            }
            out[i].label = format!("{base}#{n}");
        }
    }
    Ok(out)
}

/// Which folder is the reference: by name, or by path.
pub fn reference_of(targets: &[Target], wanted: Option<&str>) -> Result<usize> {
    let Some(w) = wanted else { return Ok(0) };
    if let Some(i) = targets.iter().position(|t| t.label == w) {
        return Ok(i);
    }
    let abs = std::path::absolute(w).ok();
    targets
        .iter()
        .position(|t| Some(&t.dir) == abs.as_ref())
        .ok_or_else(|| {
            Error::usage(format!(
                "--reference '{w}' is none of the folders tested ({})",
                targets
                    .iter()
                    .map(|t| t.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

/// Whether unbuffered I/O (O_DIRECT, FILE_FLAG_NO_BUFFERING) works in `dir`: a page written
/// and read back through it.
fn probe_direct(dir: &Path, page: u64) -> Result<(File, Option<String>)> {
    let path = dir.join("probe");
    let direct = crate::os::file::options(unbuffered())
        .create_new(true)
        .open(&path);
    let (file, refused) = match direct {
        Ok(f) => {
            let mut buf = ops::incompressible(page as usize, 1).map_err(|e| match e {
                Stop::Failed(m) | Stop::Limit(m) => Error::runtime(m),
                Stop::Interrupted => Error::Interrupted("interrupted".into()),
            })?;
            let b = buf.bytes_mut();
            let (h, len) = (crate::os::raw(&f), b.len() as u32);
            let wrote = crate::os::file::write_at(h, b.as_ptr(), len, 0);
            let read = if wrote == len as i32 {
                crate::os::file::read_at(h, b.as_mut_ptr(), len, 0)
            } else {
                wrote
            };
            let why = (read != len as i32).then(|| {
                let e = match read {
                    n if n < 0 => std::io::Error::from_raw_os_error(-n).to_string(),
                    n => format!("{n} of {len} bytes"),
                };
                format!("{DIRECT} opens but a page of I/O fails: {e}")
            });
            (f, why)
        }
        Err(e) => {
            let why = format!("{DIRECT} refused: {e}");
            let _ = std::fs::remove_file(&path);
            // The facts are read through a plain file, or the folder itself.
            let plain = File::create_new(&path).or_else(|_| crate::os::file::open_folder(dir));
            let f = plain.map_err(|e| {
                Error::runtime(format!("cannot open the folder '{}': {e}", dir.display()))
            })?;
            (f, Some(why))
        }
    };
    let _ = std::fs::remove_file(&path);
    Ok((file, refused))
}

/// Unbuffered I/O as the system names it, for the reports.
const DIRECT: &str = crate::os::meta::CALLS.direct;

/// Read and write, around the cache: the rdwr_nc tests' and the probe's open.
fn unbuffered() -> crate::os::file::How {
    crate::os::file::How {
        write: true,
        direct: true,
        ..Default::default()
    }
}

/// What to run: the tests, with their parameters, on the file systems, one the reference.
pub struct Suite {
    pub targets: Vec<Target>,
    pub reference: usize,
    pub tests: Vec<Test>,
    pub params: Params,
}

/// Progress lines for a terminal; the suite calls it before each measurement.
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// Run the suite. Errors before the first measurement (a folder that cannot be written) are
/// returned; errors of one test on one file system are recorded in its cell and the suite
/// goes on. In a `team` (the ranks of an MPI job, each in a folder of its own), every
/// measurement starts together on every rank and ends when the last rank's has.
pub fn run(
    suite: &Suite,
    command_line: Vec<String>,
    stop: &AtomicBool,
    progress: Progress,
    team: Option<&dyn Cluster>,
) -> Result<FsResult> {
    let (targets, tests, params) = (&suite.targets, &suite.tests, &suite.params);
    let reference = suite.reference;
    params.validate()?;
    let started_unix_ns = crate::dates::now_unix_ns();
    let (mut spaces, filesystems) = claim(targets, params)?;
    let cache_drop = CacheDrop::choose(params.drop_caches);
    let mut result = FsResult {
        header: Header::new(SCHEMA_NAME, SCHEMA_VERSION, started_unix_ns, command_line),
        params: params.clone(),
        cache_drop,
        reference,
        filesystems,
        tests: tests
            .iter()
            .map(|t| not_run(*t, targets.len(), params))
            .collect(),
        partial: false,
        notes: Vec::new(),
        ranks: None,
    };
    run_cells(&mut result, &mut spaces, tests, stop, progress, team)?;
    if result.partial {
        mark_partial(&mut result, params.repeat);
    }
    drop(spaces);
    suite_notes(&mut result, tests);
    result.summarize();
    Ok(result)
}

impl crate::context::Suite for Suite {
    type Result = FsResult;

    fn run(&self, command_line: Vec<String>, ctx: &mut Context) -> Result<FsResult> {
        let ctx = &*ctx;
        let mut progress = |line: &str| ctx.progress(line);
        run(
            self,
            command_line,
            ctx.interrupted(),
            &mut progress,
            ctx.team(),
        )
    }

    fn combine(parts: Vec<(Place, FsResult)>) -> FsResult {
        ranks::combine(parts)
    }
}

/// Every folder checked and claimed before anything is measured, with its file system's facts
/// and whether it takes O_DIRECT.
fn claim(targets: &[Target], params: &Params) -> Result<(Vec<Workspace>, Vec<FsTarget>)> {
    let mut spaces = Vec::new();
    let mut filesystems = Vec::new();
    for t in targets {
        let ws = Workspace::create(&t.dir, "fs")?;
        let (probe, refused) = probe_direct(&ws.root, params.page_size)?;
        let facts = TargetFacts::collect(&ws.root.join("probe"), &probe, false, refused.is_none());
        drop(probe);
        filesystems.push(FsTarget {
            label: t.label.clone(),
            dir: t.dir.display().to_string(),
            facts,
            direct_io_refused: refused,
        });
        spaces.push(ws);
    }
    Ok((spaces, filesystems))
}

/// A test's row before anything ran: a cell per file system.
fn not_run(t: Test, filesystems: usize, params: &Params) -> TestResult {
    TestResult {
        name: t.name().into(),
        group: t.group(),
        about: t.about().into(),
        cells: (0..filesystems)
            .map(|_| Cell {
                status: Status::NotRun,
                reason: None,
                ops: t.ops(params),
                elapsed_ns: Vec::new(),
                summary: None,
            })
            .collect(),
    }
}

/// Each test, each repetition, on each file system in turn; a signal ends the suite with
/// what it has, a thread limit ends it with an error. In a `team`, every rank meets the
/// others before each timed loop and after it, also for a cell it skips or whose setup
/// failed, so that the ranks stay in step.
fn run_cells(
    result: &mut FsResult,
    spaces: &mut [Workspace],
    tests: &[Test],
    stop: &AtomicBool,
    progress: Progress,
    team: Option<&dyn Cluster>,
) -> Result<()> {
    let params = result.params.clone();
    let total = tests.len() * params.repeat as usize * spaces.len();
    let mut step = 0;
    for (ti, &test) in tests.iter().enumerate() {
        for rep in 0..params.repeat {
            for (fi, ws) in spaces.iter_mut().enumerate() {
                step += 1;
                let cell = &mut result.tests[ti].cells[fi];
                let direct_refused = test
                    .needs_direct()
                    .then(|| result.filesystems[fi].direct_io_refused.clone())
                    .flatten();
                if let Some(why) = direct_refused {
                    cell.status = Status::NotSupported;
                    cell.reason = Some(why);
                }
                let met = std::cell::Cell::new(false);
                let mut start = || {
                    met.set(true);
                    team.is_none_or(|c| c.fence(stop))
                };
                if matches!(cell.status, Status::Failed | Status::NotSupported) {
                    // Other ranks may measure it: meet them at its start and at its end.
                    if !(start() && start()) {
                        result.partial = true;
                        return Ok(());
                    }
                    continue;
                }
                progress(&format!(
                    "[{step}/{total}] {} on {} ({} of {})",
                    test.name(),
                    result.filesystems[fi].label,
                    rep + 1,
                    params.repeat
                ));
                let folder = ws.root.join(format!("{}-{}", test.name(), rep + 1));
                let mut outcome =
                    measure(test, &folder, &params, result.cache_drop, stop, &mut start);
                // The ranks meet at the start even where this one's setup failed, and all
                // have ended before any removes its files.
                let in_step = (met.get() || start()) && team.is_none_or(|c| c.fence(stop));
                if !in_step {
                    outcome = Err(Stop::Interrupted);
                }
                // The test's files go at once: the next test starts from a clean folder.
                ws.clear(&folder);
                match outcome {
                    Ok(ns) => {
                        cell.elapsed_ns.push(ns);
                        if cell.elapsed_ns.len() == params.repeat as usize {
                            cell.status = Status::Ok;
                        }
                    }
                    Err(Stop::Failed(why)) => {
                        cell.status = Status::Failed;
                        cell.reason = Some(why);
                    }
                    Err(Stop::Interrupted) => {
                        result.partial = true;
                        return Ok(());
                    }
                    Err(Stop::Limit(why)) => return Err(Error::runtime(why)),
                }
            }
        }
    }
    Ok(())
}

/// Cells with some repetitions keep them; they are marked partial by the flag.
fn mark_partial(result: &mut FsResult, repeat: u32) {
    for t in &mut result.tests {
        for c in &mut t.cells {
            if c.status == Status::NotRun && !c.elapsed_ns.is_empty() {
                c.reason = Some(format!(
                    "interrupted after {} of {} repetitions",
                    c.elapsed_ns.len(),
                    repeat
                ));
            }
        }
    }
}

/// How caches were dropped, how metadata tests are set up, and O_DIRECT that reaches no device.
fn suite_notes(result: &mut FsResult, tests: &[Test]) {
    result.notes.push(result.cache_drop.describe().to_string());
    if tests.iter().any(|t| t.group() == Group::Metadata) {
        result.notes.push(format!(
            "metadata tests work on {} empty files (or folders) in one fresh folder per \
             repetition; setting them up is not timed",
            result.params.files
        ));
    }
    for fs in &result.filesystems {
        if fs.facts.direct_io.starts_with("accepted") && tests.iter().any(|t| t.needs_direct()) {
            result.notes.push(format!(
                "{}: {DIRECT} is accepted, but the file system keeps data in memory, so the \
                 rdwr_nc tests do not reach a device",
                fs.label
            ));
        }
    }
}

/// Set up what `test` needs in a new folder, drop caches, pass the `start` line (false:
/// interrupted), then time the test's loop.
fn measure(
    test: Test,
    folder: &Path,
    p: &Params,
    cache_drop: CacheDrop,
    stop: &AtomicBool,
    start: &mut dyn FnMut() -> bool,
) -> Result<u64, Stop> {
    let fail = |what: &str, e: std::io::Error| Stop::Failed(format!("{what}: {e}"));
    std::fs::create_dir(folder).map_err(|e| fail("cannot create the test folder", e))?;
    let folder_open = ops::Folder::open(folder);
    let dir = &folder_open.map_err(|e| fail("cannot open the test folder", e))?;
    let threads = p.threads as u64;
    let n = p.files;
    // Fixture: what must exist before the timed loop.
    match test {
        Test::FileCreate | Test::DirCreate => {}
        Test::DirDelete => ops::meta_loop(dir, MetaOp::Mkdir, "d", 0..n, stop)?,
        Test::FileListSingle => {
            std::fs::create_dir(folder.join("single"))
                .and_then(|_| File::create_new(folder.join("single/f0")).map(drop))
                .map_err(|e| fail("cannot set up", e))?;
        }
        t if t.group() == Group::Metadata => ops::meta_loop(dir, MetaOp::Create, "f", 0..n, stop)?,
        _ => {}
    }
    let page = p.page_size;
    let pages = p.file_size / page;
    let data = if test.group() == Group::PageIo {
        Some(data_file(folder, p, stop)?)
    } else {
        None
    };
    cache_drop
        .apply(data.as_ref())
        .map_err(|e| fail("cannot drop caches", e))?;
    if !start() || stop.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(Stop::Interrupted);
    }
    match test {
        Test::FileCreate => timed(threads, n, |r| {
            ops::meta_loop(dir, MetaOp::Create, "f", r, stop)
        }),
        Test::FileOpen => timed(threads, n, |r| {
            ops::meta_loop(dir, MetaOp::Open, "f", r, stop)
        }),
        Test::IterFileOpen => timed(threads, n, |r| {
            for _ in 0..p.iterations {
                ops::meta_loop(dir, MetaOp::Open, "f", r.clone(), stop)?;
            }
            Ok(())
        }),
        Test::FileOverwrite => timed(threads, n, |r| {
            ops::meta_loop(dir, MetaOp::Overwrite, "f", r, stop)
        }),
        Test::FileStat => timed(threads, n, |r| {
            ops::meta_loop(dir, MetaOp::Stat, "f", r, stop)
        }),
        Test::FileList => timed_with(threads, p.iterations, list_buf, |buf, r| {
            ops::list_loop(dir, None, buf, r, n, stop)
        }),
        Test::FileListSingle => timed_with(threads, n * p.iterations, list_buf, |buf, r| {
            ops::list_loop(dir, Some("single"), buf, r, 1, stop)
        }),
        Test::FileRename => timed(threads, n, |r| {
            ops::meta_loop(dir, MetaOp::Rename, "f", r, stop)
        }),
        Test::FileDelete => timed(threads, n, |r| {
            ops::meta_loop(dir, MetaOp::Delete, "f", r, stop)
        }),
        Test::DirCreate => timed(threads, n, |r| {
            ops::meta_loop(dir, MetaOp::Mkdir, "d", r, stop)
        }),
        Test::DirDelete => timed(threads, n, |r| {
            ops::meta_loop(dir, MetaOp::Rmdir, "d", r, stop)
        }),
        Test::CcWritePage
        | Test::CcReadPage
        | Test::NcWritePage
        | Test::NcReadPage
        | Test::Fsync => {
            let how = crate::os::file::How {
                direct: test.needs_direct(),
                ..unbuffered()
            };
            let f = crate::os::file::options(how)
                .open(folder.join("data"))
                .map_err(|e| fail("cannot open the data file", e))?;
            let fd = crate::os::raw(&f);
            let (op, passes) = match test {
                Test::CcReadPage | Test::NcReadPage => (PageOp::Read, p.iterations),
                Test::Fsync => (PageOp::WriteFsync, 1),
                _ => (PageOp::Write, p.iterations),
            };
            let new_buf = |r: &Range<u64>| ops::incompressible(page as usize, r.start + 11);
            timed_with(threads, pages, new_buf, |buf, r| {
                let buf = buf.as_mut().map_err(|e| e.clone())?;
                ops::page_loop(fd, op, buf.bytes_mut(), r, passes, stop)
            })
        }
        Test::MmapWrite | Test::MmapRead => {
            let write = test == Test::MmapWrite;
            let f = data.as_ref().expect("page tests have a data file");
            let map = ops::Mapping::new(crate::os::raw(f), p.file_size, write)
                .map_err(|e| fail("cannot map the data file", e))?;
            timed(threads, pages, |r| {
                ops::mmap_loop(&map, write, page as usize, r, p.iterations, stop).map(drop)
            })
        }
    }
}

/// The page I/O tests' file: `file_size` bytes of data that does not compress, on disk.
fn data_file(folder: &Path, p: &Params, stop: &AtomicBool) -> Result<File, Stop> {
    let fail = |e: std::io::Error| Stop::Failed(format!("cannot write the data file: {e}"));
    let path = folder.join("data");
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(fail)?;
    let mut buf = ops::incompressible(1 << 20, 3)?;
    let mut left = p.file_size;
    let mut w = &f;
    while left > 0 {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(Stop::Interrupted);
        }
        let n = left.min(1 << 20) as usize;
        w.write_all(&buf.bytes_mut()[..n]).map_err(fail)?;
        left -= n as u64;
    }
    f.sync_all().map_err(fail)?;
    Ok(f)
}

/// A listing's buffer: glibc's readdir reads 32 KiB at a time too.
fn list_buf(_: &Range<u64>) -> Vec<u8> {
    vec![0u8; 32 * 1024]
}

/// [`timed_with`] for loops that need nothing of their own.
fn timed<F>(threads: u64, n: u64, work: F) -> Result<u64, Stop>
where
    F: Fn(Range<u64>) -> Outcome + Sync,
{
    timed_with(threads, n, |_| (), |_, r| work(r))
}

/// Split `0..n` among `threads` threads and time them: from the first thread's start to the
/// last thread's end. Each thread first makes what its loop needs (`prepare`: a buffer)
/// before the clock starts, so no allocation is timed. One thread runs on the calling
/// thread, nothing spawned.
fn timed_with<S, P, F>(threads: u64, n: u64, prepare: P, work: F) -> Result<u64, Stop>
where
    S: Send,
    P: Fn(&Range<u64>) -> S + Sync,
    F: Fn(&mut S, Range<u64>) -> Outcome + Sync,
{
    let threads = threads.min(n).max(1);
    if threads == 1 {
        let mut own = prepare(&(0..n));
        let t0 = Instant::now();
        work(&mut own, 0..n)?;
        return Ok(t0.elapsed().as_nanos() as u64);
    }
    let gate = Gate::new(threads as usize);
    let spans = std::thread::scope(|s| {
        let mut handles = Vec::new();
        for i in 0..threads {
            let range = (n * i / threads)..(n * (i + 1) / threads);
            let (work, prepare, gate) = (&work, &prepare, &gate);
            let started = std::thread::Builder::new()
                .stack_size(crate::os::threads::STACK_BYTES)
                .spawn_scoped(s, move || {
                    let mut own = prepare(&range);
                    if !gate.wait() {
                        return None;
                    }
                    let t0 = Instant::now();
                    let r = work(&mut own, range);
                    Some((t0, Instant::now(), r))
                });
            match started {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // Those started wait for the others: release them, then say why.
                    gate.abort();
                    let asked = format!("--threads {threads}");
                    let (i, n) = (i as usize, threads as usize);
                    let why = crate::os::threads::start_error(i, n, &asked, &e);
                    return Err(Stop::Limit(why));
                }
            }
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .ok()
                    .flatten()
                    .ok_or_else(|| Stop::Failed("a suite thread panicked".into()))
            })
            .collect::<Result<Vec<_>, Stop>>()
    })?;
    let mut first = spans[0].0;
    let mut last = spans[0].1;
    for (t0, t1, r) in spans {
        r?;
        first = first.min(t0);
        last = last.max(t1);
    }
    Ok((last - first).as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params {
            files: 50,
            file_size: 16 * 4096,
            iterations: 2,
            threads: 1,
            repeat: 2,
            tests: vec![],
            drop_caches: false,
            page_size: 4096,
        }
    }

    #[test]
    fn test_selection_by_name_and_group() {
        assert_eq!(select_tests("all").unwrap().len(), 18);
        assert_eq!(select_tests("metadata").unwrap().len(), 11);
        assert_eq!(
            select_tests("fsync,file_create").unwrap(),
            vec![Test::FileCreate, Test::Fsync]
        );
        let e = select_tests("file_creat").unwrap_err().to_string();
        assert!(e.contains("unknown test 'file_creat'"), "{e}");
    }

    #[test]
    fn every_test_runs_with_threads_and_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let targets = vec![Target {
            label: "here".into(),
            dir: tmp.path().to_path_buf(),
        }];
        for threads in [1, 3] {
            let p = Params {
                threads,
                ..params()
            };
            let suite = Suite {
                targets: targets.clone(),
                reference: 0,
                tests: Test::ALL.to_vec(),
                params: p,
            };
            let r = run(&suite, vec![], &AtomicBool::new(false), &mut |_| {}, None).unwrap();
            for t in &r.tests {
                let c = &t.cells[0];
                // tmpfs (where /tmp is one) may refuse O_DIRECT: then not supported.
                assert!(
                    c.status == Status::Ok
                        || (c.status == Status::NotSupported && t.name.contains("_nc_")),
                    "{}: {:?} {:?}",
                    t.name,
                    c.status,
                    c.reason
                );
                if c.status == Status::Ok {
                    assert_eq!(c.elapsed_ns.len(), 2);
                    assert_eq!(c.summary.as_ref().unwrap().ratio, Some(1.0));
                }
            }
            assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        }
    }
}
