//! Running a sweep: for each file size and record size, the chosen tests in iozone's order on
//! one file per thread; the threads start each test together (a barrier) and the cell's time
//! runs from the first start to the last end.

use super::pass::{self, Finish, Open, Order, Stop, Walk};
use crate::cluster::team::go_on;
use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::facts::TargetFacts;
use crate::os::memory::AlignedBuf;
use crate::os::workspace::Workspace;
use crate::result::sweep::{
    CacheMode, Cell, Params, Status, SweepResult, Test, SCHEMA_NAME, SCHEMA_VERSION,
};
use crate::result::Header;
use crate::units::{format_size, format_size_human};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::Instant;

/// Progress lines for a terminal; called before each file size and record size.
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// One thread's view of one step of a combination: when its timed part ran and the CPU time
/// the thread spent in it, or why it did not run.
type Step = std::result::Result<(Instant, Instant, u64), String>;

/// Run the sweep in `dir`. Errors before the first measurement (a folder that cannot be
/// written, files that cannot fit, O_DIRECT refused) are returned; an I/O error is recorded
/// in its cell, and a full file system ends the sweep with what it has. In a `team` (the
/// ranks of an MPI job), every test of every cell starts together on every rank, and where
/// one rank's sweep ends early every rank's does. `keep`: the last cell's files are left in
/// place at the end, and a note says where (iozone's -w).
pub fn run(
    dir: &Path,
    params: &Params,
    keep: bool,
    command_line: Vec<String>,
    stop: &AtomicBool,
    progress: Progress,
    team: Option<&dyn Cluster>,
) -> Result<SweepResult> {
    let started_unix_ns = crate::dates::now_unix_ns();
    let t0 = Instant::now();
    let mut ws = Workspace::create(dir, "sweep")?;
    let target = probe(&ws.root, params)?;
    let waiting = Instant::now();
    let sharing = super::ranks::sharing(team, dir);
    let mut rank_wait_ns = elapsed_if(team, waiting);
    check_space(dir, &target, params, sharing)?;
    let mut result = SweepResult {
        header: Header::new(SCHEMA_NAME, SCHEMA_VERSION, started_unix_ns, command_line),
        dir: dir.display().to_string(),
        target,
        params: params.clone(),
        memory_cap: None,
        cells: Vec::new(),
        knees: Vec::new(),
        wall_ns: 0,
        io_ns: 0,
        cleanup_ns: 0,
        rank_wait_ns: 0,
        partial: false,
        notes: Vec::new(),
        ranks: None,
    };
    let mut bufs = buffers(params)?;
    let grid = params.grid();
    // Kept files are the last cell's only: each cell's go when the next starts, so no more
    // than one cell's files take space at a time, as without `keep`.
    let mut kept: Option<PathBuf> = None;
    for (i, &(file, record)) in grid.iter().enumerate() {
        if stop.load(Ordering::Relaxed) || result.partial {
            result.partial = true;
            break;
        }

        progress(&format!(
            "[{}/{}] {} file, {} records",
            i + 1,
            grid.len(),
            format_size_human(file),
            format_size_human(record)
        ));
        let folder = ws.root.join(format!("{file}-{record}"));
        let making = Instant::now();
        if let Some(previous) = kept.take() {
            ws.clear(&previous);
        }
        let made = std::fs::create_dir(&folder);
        result.cleanup_ns += making.elapsed().as_nanos() as u64;
        made.map_err(|e| Error::runtime(format!("cannot make '{}': {e}", folder.display())))?;
        let combo = Combo {
            folder: &folder,
            file,
            record,
            params,
            stop,
        };
        let (cells, io_ns, ended, waited) = combo.run(&mut bufs, team);
        rank_wait_ns += waited;
        let removing = Instant::now();
        if keep {
            kept = Some(folder.clone());
        } else {
            ws.clear(&folder);
        }
        result.cleanup_ns += removing.elapsed().as_nanos() as u64;
        result.cells.extend(cells);
        result.io_ns += io_ns;
        if let Some(why) = ended {
            result.notes.push(why);
            result.partial = true;
        }
        // Every rank does the same cells: where one ends here, all do.
        let waiting = Instant::now();
        let going_on = go_on(team, result.partial, stop);
        rank_wait_ns += elapsed_if(team, waiting);
        if !going_on {
            if !result.partial && !stop.load(Ordering::Relaxed) {
                result
                    .notes
                    .push("stopped: another rank's sweep ended".into());
            }
            result.partial = true;
            break;
        }
    }
    match kept {
        Some(folder) => {
            let root = ws.keep();
            result.notes.push(format!(
                "files kept: the last cell's files are in '{}'; remove '{}' when done",
                folder.display(),
                root.display()
            ));
        }
        None => drop(ws),
    }
    result.rank_wait_ns = rank_wait_ns;
    result.wall_ns = t0.elapsed().as_nanos() as u64;
    result.find_knees();
    Ok(result)
}

/// Nanoseconds since `since` in a team (time waiting for the other ranks); 0 alone.
fn elapsed_if(team: Option<&dyn Cluster>, since: Instant) -> u64 {
    team.map_or(0, |_| since.elapsed().as_nanos() as u64)
}

/// The folder's file system, and whether it takes O_DIRECT where the sweep needs it.
fn probe(root: &Path, params: &Params) -> Result<TargetFacts> {
    let path = root.join("probe");
    let direct = params.cache == CacheMode::Direct;
    let how = Open {
        write: true,
        create: true,
        direct,
        sync: false,
    };
    let file = pass::open(&path, how).map_err(|e| {
        let what = if direct { " with O_DIRECT" } else { "" };
        Error::usage(format!(
            "cannot create a file{what} in '{}': {e}",
            root.parent().unwrap_or(root).display()
        ))
    })?;
    let facts = TargetFacts::collect(&path, &file, false, direct);
    drop(file);
    let _ = std::fs::remove_file(&path);
    Ok(facts)
}

/// The largest file of every thread must fit in the free space: a sweep that fills the disk
/// halfway through measures nothing at the sizes that matter.
/// `ranks`: the ranks of an MPI job on this host given this same folder.
fn check_space(dir: &Path, target: &TargetFacts, params: &Params, ranks: u64) -> Result<()> {
    let largest = params.grid().iter().map(|g| g.0).max().unwrap_or(0);
    let files = params.threads as u64 * ranks;
    let need = largest.saturating_mul(files);
    match target.free_bytes {
        Some(free) if need > free => Err(Error::usage(format!(
            "the largest file size, {}{}, does not fit in the {} free in '{}'",
            format_size(largest),
            match (params.threads, ranks) {
                (1, 1) => String::new(),
                (t, 1) => format!(" x {t} threads"),
                (1, r) => format!(" x {r} ranks"),
                (t, r) => format!(" x {t} threads x {r} ranks"),
            },
            format_size_human(free),
            dir.display()
        ))),
        _ => Ok(()),
    }
}

/// One buffer per thread, as large as the largest record, aligned for O_DIRECT and filled
/// with data no file system can compress away.
fn buffers(params: &Params) -> Result<Vec<AlignedBuf>> {
    let len = *params.record_sizes.iter().max().unwrap_or(&4096) as usize;
    (0..params.threads)
        .map(|t| {
            let mut b = AlignedBuf::new(1, len).map_err(Error::runtime)?;
            crate::rng::Rng::new(0x5eed, &[t as u64]).fill(b.bytes_mut());
            Ok(b)
        })
        .collect()
}

/// One file size and record size: every test, on every thread's file.
struct Combo<'a> {
    folder: &'a Path,
    file: u64,
    record: u64,
    params: &'a Params,
    stop: &'a AtomicBool,
}

impl Combo<'_> {
    /// The cells, the time spent in I/O (timed and untimed passes) and, where the sweep must
    /// end here, why. In a `team`, this thread meets the other ranks before each step,
    /// while the workers wait at their barrier.
    fn run(
        &self,
        bufs: &mut [AlignedBuf],
        team: Option<&dyn Cluster>,
    ) -> (Vec<Cell>, u64, Option<String>, u64) {
        if let ([buf], None) = (&mut *bufs, team) {
            let (cells, io_ns, ended) = self.cells(&[self.thread(0, buf, Gate::Alone)]);
            return (cells, io_ns, ended, 0);
        }
        let barrier = Barrier::new(bufs.len() + usize::from(team.is_some()));
        let gate = match team {
            Some(_) => Gate::Fenced(&barrier),
            None => Gate::Threads(&barrier),
        };
        let mut waited = 0;
        let per_thread: Vec<Vec<Step>> = std::thread::scope(|s| {
            let handles: Vec<_> = bufs
                .iter_mut()
                .enumerate()
                .map(|(t, b)| s.spawn(move || self.thread(t, b, gate)))
                .collect();
            if let Some(c) = team {
                let mut met = true;
                for _ in self.steps() {
                    barrier.wait();
                    let waiting = Instant::now();
                    met = met && c.fence(self.stop);
                    waited += waiting.elapsed().as_nanos() as u64;
                    barrier.wait();
                }
            }
            handles
                .into_iter()
                .map(|h| h.join().expect("sweep threads do not panic"))
                .collect()
        });
        let (cells, io_ns, ended) = self.cells(&per_thread);
        (cells, io_ns, ended, waited)
    }

    /// The steps of one thread: the untimed pass that makes the file (where the first test is
    /// not `write`), then each test. After a failure or Ctrl-C the thread keeps meeting the
    /// others at the barrier, doing nothing (its later steps are SKIPPED, or interrupted), so
    /// no thread waits forever.
    fn thread(&self, t: usize, buf: &mut AlignedBuf, gate: Gate) -> Vec<Step> {
        let path = self.folder.join(format!("f{t}"));
        let mut steps: Vec<Step> = Vec::new();
        let mut failed: Option<String> = None;
        for test in self.steps() {
            gate.pass();
            let step = match &failed {
                Some(why) if why == INTERRUPTED => Err(INTERRUPTED.to_string()),
                Some(_) => Err(SKIPPED.to_string()),
                None => self.one(&path, test, t, buf.bytes_mut()),
            };
            if let Err(why) = &step {
                failed.get_or_insert_with(|| why.clone());
            }
            steps.push(step);
        }
        steps
    }

    /// The tests to run, with None first for the untimed pass that makes the file.
    fn steps(&self) -> Vec<Option<Test>> {
        let tests = &self.params.tests;
        let make = tests.first() != Some(&Test::Write);
        make.then_some(None)
            .into_iter()
            .chain(tests.iter().map(|&t| Some(t)))
            .collect()
    }

    /// One pass: `None` makes the file untimed; interruption is reported as "interrupted".
    fn one(&self, path: &Path, test: Option<Test>, t: usize, buf: &mut [u8]) -> Step {
        let p = self.params;
        let write = test.is_none_or(Test::writes);
        let how = Open {
            write,
            create: matches!(test, None | Some(Test::Write)),
            direct: p.cache == CacheMode::Direct,
            sync: p.sync_writes,
        };
        let order = match test {
            None => Order::Forward,
            Some(x) => x.order(0x51ee_d000 + t as u64, p.stride),
        };
        let finish = Finish {
            flush: p.include_flush && test.is_some(),
            close: p.include_close && test.is_some(),
        };
        let walk = Walk {
            size: self.file,
            record: self.record,
            order,
            write,
        };
        let name = test.map_or("making the file", Test::name);
        let file = pass::open(path, how).map_err(|e| format!("{name}: cannot open: {e}"))?;
        let cpu = crate::os::process::thread_cpu_ns();
        let (start, end) = pass::pass(file, walk, finish, buf, self.stop).map_err(|e| match e {
            Stop::Interrupted => INTERRUPTED.to_string(),
            Stop::Failed(e) if e.raw_os_error().is_some_and(crate::os::error::is_full) => {
                format!("{NO_SPACE}: {e}")
            }
            Stop::Failed(e) => e.to_string(),
        })?;
        let cpu = crate::os::process::thread_cpu_ns().saturating_sub(cpu);
        Ok((start, end, cpu))
    }

    /// The threads' steps as cells (the untimed step only counted as I/O time), and why the
    /// sweep ends here, if it does.
    fn cells(&self, per_thread: &[Vec<Step>]) -> (Vec<Cell>, u64, Option<String>) {
        let mut cells = Vec::new();
        let mut io_ns = 0;
        let mut ended = None;
        // The untimed pass's failure is the first test's: it is why that test has no figure.
        let mut making_failed: Option<String> = None;
        for (i, test) in self.steps().into_iter().enumerate() {
            let steps: Vec<&Step> = per_thread.iter().map(|s| &s[i]).collect();
            let mut cell = self.cell(test.unwrap_or(Test::Write), &steps);
            if test.is_none() && cell.status == Status::Failed {
                making_failed = cell.reason.take().map(|r| format!("making the file: {r}"));
            } else if let Some(why) = making_failed.take() {
                cell.status = Status::Failed;
                cell.reason = Some(why);
            }
            io_ns += cell.elapsed_ns;
            if let Some(why) = &cell.reason {
                if why == INTERRUPTED {
                    ended.get_or_insert_with(|| "interrupted".to_string());
                } else if why.starts_with(NO_SPACE) {
                    ended.get_or_insert_with(|| format!("stopped: {why}"));
                }
            }
            if test.is_some() {
                cells.push(cell);
            }
        }
        (cells, io_ns, ended)
    }

    fn cell(&self, test: Test, steps: &[&Step]) -> Cell {
        let mut cell = Cell {
            test,
            file_size: self.file,
            record_size: self.record,
            status: Status::Ok,
            reason: None,
            bytes: 0,
            elapsed_ns: 0,
            thread_ns: Vec::new(),
            cpu_ns: 0,
        };
        let error = |s: &&&Step| matches!(s, Err(why) if why != SKIPPED);
        if let Some(Err(why)) = steps.iter().find(error) {
            cell.status = if why == INTERRUPTED {
                Status::NotRun
            } else {
                Status::Failed
            };
            cell.reason = Some(why.clone());
            return cell;
        }
        if steps.iter().any(|s| s.is_err()) {
            cell.status = Status::NotRun;
            cell.reason = Some("not run: an earlier test on this file failed".into());
            return cell;
        }
        let spans: Vec<(Instant, Instant, u64)> = steps
            .iter()
            .filter_map(|s| s.as_ref().ok().copied())
            .collect();
        let first = spans.iter().map(|s| s.0).min().expect("a step per thread");
        let last = spans.iter().map(|s| s.1).max().expect("a step per thread");
        cell.elapsed_ns = last.duration_since(first).as_nanos() as u64;
        cell.bytes = self.file * spans.len() as u64;
        cell.cpu_ns = spans.iter().map(|s| s.2).sum();
        if spans.len() > 1 {
            cell.thread_ns = spans
                .iter()
                .map(|s| s.1.duration_since(s.0).as_nanos() as u64)
                .collect();
        }
        cell
    }
}

/// Where a thread waits before each step.
#[derive(Clone, Copy)]
enum Gate<'a> {
    /// One thread alone.
    Alone,
    /// For the other threads of this process.
    Threads(&'a Barrier),
    /// For the other threads, then (twice through the barrier) for the thread that meets
    /// the other ranks in between.
    Fenced(&'a Barrier),
}

impl Gate<'_> {
    fn pass(self) {
        match self {
            Gate::Alone => {}
            Gate::Threads(b) => {
                b.wait();
            }
            Gate::Fenced(b) => {
                b.wait();
                b.wait();
            }
        }
    }
}

const INTERRUPTED: &str = "interrupted";
/// A step a thread did not take because an earlier one of its own failed.
const SKIPPED: &str = "skipped";
const NO_SPACE: &str = "the file system is full";
