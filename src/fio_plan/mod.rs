//! A fio plan run as fio runs it: batch by batch (fio's groups, and stonewalls), each job's
//! threads together, its files laid out first, every log of fio's written from each I/O
//! (logs.rs), fio's exitall/exit_what/wait_for (ends.rs), and under MPI every rank's plan
//! agreed and gathered (team.rs). `iogauge fio` (cmd/fio.rs) reads fio's command line into a
//! plan and hands it here; the library's tests can run one too.

pub mod ends;
pub mod logs;
pub mod outcome;
pub mod team;

use crate::cluster::Cluster;
use crate::context::save::Saver;
use crate::error::{exit, Error};
use crate::os::diskstats;
use crate::os::owned::Cleanup;
use crate::report::fio::{Jobs, Outcome};
use crate::report::FioFormat;
use crate::result::{RunResult, SelfUsage, StopReason};
use crate::runner::together::{Entry, StartLine};
use crate::runner::{self, Hooked, NoObserver, Observer};
use crate::spec::fio::options::{self, FioPlan};
use crate::store::record::Record;
use ends::Ends;
use logs::IoLogs;
pub use outcome::PlanOutcome;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The report of every job, in fio's format `format`.
pub fn report(format: FioFormat, plan: &FioPlan, outcome: &PlanOutcome) -> String {
    let jobs = Jobs {
        outcomes: plan
            .runs
            .iter()
            .zip(&outcome.results)
            .map(|(run, r)| {
                let (usr_cpu, sys_cpu) = outcome.cpu_share(plan, run);
                Outcome {
                    run,
                    result: r.as_ref(),
                    usr_cpu,
                    sys_cpu,
                }
            })
            .collect(),
        global_options: &plan.global_options,
        disk_util: &outcome.disk_util,
    };
    format.exporter().render(&jobs)
}

/// fio's averaged bw and iops logs (log_avg_msec), from each job's time series; the others
/// were written during the run.
pub fn write_logs(plan: &FioPlan, results: &[Option<RunResult>]) -> Result<(), Error> {
    for (run, r) in plan.runs.iter().zip(results) {
        if let Some(r) = r.as_ref().filter(|_| !run.logs.per_io) {
            for (name, text) in crate::report::fio::logs(run, r) {
                std::fs::write(&name, text).map_err(|e| {
                    Error::runtime(format!(
                        "fio job '{}': cannot write the log '{name}': {e}",
                        run.name
                    ))
                })?;
            }
        }
    }
    Ok(())
}

/// Save each job that ran as a run of its own.
pub fn save(
    saver: &mut Saver,
    plan: &FioPlan,
    results: Vec<Option<RunResult>>,
    verbose: bool,
) -> Result<(), Error> {
    for (run, r) in plan.runs.iter().zip(results) {
        let Some(mut r) = r else { continue };
        // Each clone's histograms merge exactly into its target's: not worth keeping.
        for t in &mut r.targets {
            for th in &mut t.threads {
                for d in [&mut th.total.read, &mut th.total.write, &mut th.total.all] {
                    d.latency_histogram = None;
                    d.latency_total_histogram = None;
                }
            }
        }
        match saver.save(&Record::Run(Box::new(r)))? {
            Some(id) if verbose => eprintln!("iogauge: fio job '{}' saved as run {id}", run.name),
            _ => {}
        }
    }
    Ok(())
}

/// The jobs as iogauge will run them: for `--parse-only`, and for tests comparing front ends.
pub fn parse_only(plan: &FioPlan) -> String {
    let jobs: Vec<serde_json::Value> = plan
        .runs
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.name,
                "group": r.group,
                "batch": r.batch,
                "clones": r.clones,
                "group_reporting": r.group_reporting,
                "notes": r.notes,
                "job": r.job,
            })
        })
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({ "jobs": jobs, "warnings": plan.warnings }))
        .expect("serializes")
        + "\n"
}

/// Refuse, before anything runs, what a later job would refuse after earlier ones ran: a
/// missing file with no size, a write to a file or device iogauge may not touch. Files that
/// an earlier job of this plan will create are iogauge's own.
pub fn preflight(plan: &FioPlan) -> Result<(), Error> {
    // Sets: a job may name a million files.
    let mut created: HashSet<&Path> = HashSet::new();
    for run in &plan.runs {
        let caps = run.job.engine.kind.map(|e| e.caps());
        let creates = caps.is_some_and(|c| c.creates_files);
        // A delete destroys as a write does.
        let writes = run.job.shape.write_pct > 0 || caps.is_some_and(|c| c.deletes_files);
        for t in &run.job.targets {
            let p = t.path.as_path();
            let shown = p.display();
            let exists = p.exists();
            if creates {
                if exists || created.contains(&p) {
                    return Err(Error::usage(format!(
                        "{}: job '{}' creates '{shown}', which {}: ioengine=filecreate times the creation of new files",
                        run.at,
                        run.name,
                        if exists { "exists" } else { "an earlier job creates" }
                    )));
                }
                created.insert(p);
                continue;
            }
            if !exists && t.create_size.is_none() && !created.contains(&p) {
                return Err(Error::usage(format!(
                    "{}: job '{}': '{shown}' does not exist and may not be created (give size=, or allow_file_create=1)",
                    run.at, run.name
                )));
            }
            if exists && writes && !run.job.allow_overwrite && !created.contains(&p) {
                return Err(Error::usage(format!(
                    "{}: job '{}' writes to '{shown}', which exists and iogauge did not create; pass --allow-overwrite if that is intended",
                    run.at, run.name
                )));
            }
            if !exists {
                created.insert(p);
            }
        }
    }
    check_descriptors(plan)
}

/// A job of more files than the process may hold open, with no openfiles, opens and closes
/// them as its I/O moves between them, as many at once as fit: fio does so when it runs out of
/// descriptors (it lowers openfiles to the files it holds). Each such job says so in a note.
pub fn fit_descriptors(plan: &mut FioPlan) {
    let (soft, _) = crate::os::limits::nofile();
    for run in plan.runs.iter_mut().filter(|r| !r.create_only) {
        let need = runner::descriptors::need(&run.job);
        let threads = run.job.total_threads().max(1);
        let Some(sets) = run.job.file_sets.as_mut() else {
            continue;
        };
        if need.total() <= soft || sets.lazy().is_some() {
            continue;
        }
        let room = soft.saturating_sub(need.other) / threads;
        if room == 0 {
            continue; // Nothing fits: the check that follows refuses it, saying why.
        }
        let open = room.min(u64::from(sets.files)) as u32;
        sets.open_files = Some(open);
        run.notes.push(format!(
            "nrfiles={}: more files than this process may hold open (RLIMIT_NOFILE {soft}); each thread keeps at most {open} open, opening and closing them as its I/O moves (fio lowers openfiles so when opening a file for I/O runs out of descriptors; openfiles= sets it)",
            sets.files
        ));
    }
}

/// Refuse a job, or jobs that run together, that would need more descriptors than iogauge may
/// hold, before any file is laid out. A create_only job holds none of its files open.
fn check_descriptors(plan: &FioPlan) -> Result<(), Error> {
    let running = || plan.runs.iter().filter(|r| !r.create_only);
    for run in running() {
        runner::descriptors::check(&run.job)
            .map_err(|e| Error::usage(format!("{}: job '{}': {e}", run.at, run.name)))?;
    }
    let batches = plan.runs.iter().map(|r| r.batch).max().map_or(0, |b| b + 1);
    for batch in 0..batches {
        let (names, jobs): (Vec<&str>, Vec<_>) = running()
            .filter(|r| r.batch == batch)
            .map(|r| (r.name.as_str(), &r.job))
            .unzip();
        if jobs.len() > 1 {
            runner::descriptors::check_together(&names, &jobs)?;
        }
    }
    Ok(())
}

impl PlanOutcome {
    /// The exit status once everything is reported and saved; the files iogauge created go
    /// first.
    pub fn exit_status(self) -> Result<u8, Error> {
        drop(self.cleanups);
        if let Some(e) = self.error {
            if self.interrupted {
                return Ok(crate::context::end(&crate::context::Ending::Interrupted {
                    partial: true,
                    unit: "job",
                }));
            }
            return Err(e);
        }
        Ok(if self.failed { exit::FAILURE } else { exit::OK })
    }

    /// A job's share of its batch's CPU time, in percent of one CPU over its runtime, shared
    /// among the batch's jobs by their threads.
    fn cpu_share(&self, plan: &FioPlan, run: &options::FioRun) -> (f64, f64) {
        let Some(&(usr, sys, wall)) = self.batch_cpu.get(run.batch as usize) else {
            return (0.0, 0.0);
        };
        let threads: u64 = plan
            .runs
            .iter()
            .zip(&self.results)
            .filter(|(p, r)| p.batch == run.batch && r.is_some())
            .map(|(p, _)| p.job.total_threads())
            .sum();
        let share = run.job.total_threads() as f64 / threads.max(1) as f64;
        let pct = |ns: u64| 100.0 * ns as f64 * share / wall.max(1) as f64;
        (pct(usr), pct(sys))
    }
}

/// Run the plan's batches one after the other; `verbose`: say each group and each
/// create_only job's layout on stderr. In a `team` (MPI ranks), each batch starts together
/// on every rank and the next waits until every rank has ended this one.
pub fn run_plan(
    plan: &mut FioPlan,
    command_line: &[String],
    interrupted: &AtomicBool,
    verbose: bool,
    team: Option<&dyn Cluster>,
) -> PlanOutcome {
    let mut out = PlanOutcome {
        results: plan.runs.iter().map(|_| None).collect(),
        cleanups: Vec::new(),
        batch_cpu: Vec::new(),
        error: None,
        interrupted: false,
        failed: false,
        disk_util: Vec::new(),
    };
    // fio lists no disk for a diskless engine's job (ioengine=null): it touches none.
    let disks = diskstats::Watch::start(
        plan.runs
            .iter()
            .filter(|r| !r.job.engine.kind.is_some_and(|k| k.caps().diskless))
            .flat_map(|r| r.job.targets.iter().map(|t| t.path.as_path())),
    );
    let batches = plan.runs.iter().map(|r| r.batch).max().map_or(0, |b| b + 1);
    // The files iogauge created so far: the later jobs may write them.
    let mut created: HashSet<PathBuf> = HashSet::new();
    let ends = Ends::new(&plan.runs);
    for batch in 0..batches {
        if interrupted.load(Ordering::Relaxed) {
            out.interrupted = true;
            out.error = Some(Error::Interrupted("interrupted".into()));
            break;
        }
        let members: Vec<usize> = (0..plan.runs.len())
            .filter(|&i| plan.runs[i].batch == batch)
            .collect();
        let shared = lay_out_shared(plan, &members, interrupted);
        out.cleanups.extend(shared.cleanups);
        created.extend(shared.laid_out);
        if let Some(e) = shared.error {
            out.interrupted = matches!(e, Error::Interrupted(_));
            out.error = Some(e);
            break;
        }
        prepare_batch(plan, &members, &created);
        // What create_only jobs will lay out is iogauge's own for the jobs after them.
        let laid_out: HashSet<PathBuf> = members
            .iter()
            .filter(|&&i| plan.runs[i].create_only)
            .flat_map(|&i| plan.runs[i].job.targets.iter().map(|t| t.path.clone()))
            .filter(|p| !p.exists())
            .collect();
        if verbose {
            let names: Vec<&str> = members
                .iter()
                .map(|&i| plan.runs[i].name.as_str())
                .collect();
            eprintln!(
                "iogauge: fio group {}: {}",
                plan.runs[members[0]].group,
                names.join(", ")
            );
        }
        let before = SelfUsage::now();
        let t0 = std::time::Instant::now();
        let (done, halted) = run_batch(
            &plan.runs,
            &members,
            command_line,
            (interrupted, &ends),
            team,
        );
        let after = SelfUsage::now();
        out.batch_cpu.push((
            after.user_cpu_ns.saturating_sub(before.user_cpu_ns),
            after.system_cpu_ns.saturating_sub(before.system_cpu_ns),
            t0.elapsed().as_nanos() as u64,
        ));
        for (i, r, cleanup) in done {
            out.cleanups.push(cleanup);
            let run = &plan.runs[i];
            out.take(i, run, r, &mut created, &laid_out, verbose);
        }
        if out.stops_after_batch(halted) {
            break;
        }
        if ends.ended_all() {
            if verbose {
                eprintln!("iogauge: a job with exit_what=all ended: no later job starts");
            }
            break;
        }
        if team.is_some_and(|c| !c.fence(interrupted)) {
            out.interrupted = true;
            out.error = Some(Error::Interrupted("interrupted".into()));
            break;
        }
    }
    out.disk_util = disks.finish();
    out
}

/// Before a batch starts: each job may write the files iogauge created, and fio's invalidate
/// drops the page cache of its files.
fn prepare_batch(plan: &mut FioPlan, members: &[usize], created: &HashSet<PathBuf>) {
    for &i in members {
        let run = &mut plan.runs[i];
        let ours = run
            .job
            .targets
            .iter()
            .all(|t| !t.path.exists() || created.contains(&t.path));
        if ours {
            run.job.allow_overwrite = true;
        }
        if run.invalidate && !run.job.cache.is_direct() {
            for t in &run.job.targets {
                if drop_file_cache(&t.path) {
                    run.notes.push(format!(
                        "page cache of '{}' dropped before the job (fio's invalidate=1)",
                        t.path.display()
                    ));
                }
            }
        }
    }
}

impl PlanOutcome {
    /// Take what job `i` (`run`) gave back: its result, the files it created (iogauge's own
    /// from then on, for those that `laid_out` names when it only laid out), or its error.
    fn take(
        &mut self,
        i: usize,
        run: &options::FioRun,
        r: Result<Option<RunResult>, Error>,
        created: &mut HashSet<PathBuf>,
        laid_out: &HashSet<PathBuf>,
        verbose: bool,
    ) {
        match r {
            // Ended by another job's end before it started (exitall): nothing to report.
            Ok(None) if !run.create_only => {
                if verbose {
                    eprintln!(
                        "iogauge: fio job '{}' never started: another job's end ended it (exitall)",
                        run.name
                    );
                }
            }
            // create_only: files laid out, nothing measured.
            Ok(None) => {
                if verbose {
                    eprintln!(
                        "iogauge: fio job '{}': files laid out (create_only)",
                        run.name
                    );
                }
                let ours = run.job.targets.iter().map(|t| &t.path);
                created.extend(ours.filter(|p| laid_out.contains(*p)).cloned());
            }
            Ok(Some(mut r)) => {
                r.notes.extend(run.notes.iter().cloned());
                for t in &r.targets {
                    // A set's path joins its files' paths: each file says if it was created.
                    if t.files.is_empty() {
                        if t.created {
                            created.insert(PathBuf::from(&t.path));
                        }
                    } else {
                        let made = t.files.iter().filter(|f| f.created);
                        created.extend(made.map(|f| PathBuf::from(&f.path)));
                    }
                }
                match r.stop_reason {
                    StopReason::Completed => {
                        // verify_fatal=0 (fio's default) goes on past mismatches: and fails.
                        if let Some(v) = r.verify.as_ref().filter(|v| v.mismatch_count > 0) {
                            self.failed = true;
                            eprintln!(
                                "iogauge: error: fio job '{}': verification found {} \
                                 mismatch{}: {}",
                                run.name,
                                v.mismatch_count,
                                if v.mismatch_count == 1 { "" } else { "es" },
                                v.mismatches.first().map(|m| m.line()).unwrap_or_default()
                            );
                        }
                    }
                    StopReason::Interrupted => self.interrupted = true,
                    StopReason::IoError => {
                        self.failed = true;
                        eprintln!(
                            "iogauge: error: fio job '{}': {}",
                            run.name,
                            r.stop_message.as_deref().unwrap_or("I/O error")
                        );
                    }
                }
                self.results[i] = Some(r);
            }
            Err(e) => {
                if matches!(e, Error::Interrupted(_)) {
                    self.interrupted = true;
                }
                self.error.get_or_insert(in_job(&run.name, e));
            }
        }
    }

    /// Whether the plan stops after this batch: a thread that would not start (`halted`),
    /// Ctrl-C, or an error.
    fn stops_after_batch(&mut self, halted: Option<Error>) -> bool {
        if let Some(e) = halted {
            // The jobs that did start were stopped as by Ctrl-C: the cause is this.
            self.interrupted = false;
            self.error = Some(e);
            return true;
        }
        if self.interrupted {
            self.error
                .get_or_insert(Error::Interrupted("interrupted".into()));
            return true;
        }
        self.error.is_some()
    }
}

/// What [`lay_out_shared`] did: the files it laid out (iogauge's own from then on), the
/// cleanups that remove them, and the error that stopped it, if one did.
struct Shared {
    laid_out: Vec<PathBuf>,
    cleanups: Vec<Cleanup>,
    error: Option<Error>,
}

/// Lay out, once and before any of them starts, each missing file that several jobs of a
/// batch name (as fio lays out every file before its jobs run), at the largest size any of
/// them gives. Each job laying out its own would race the others for the name ("File
/// exists", or a file not yet written). Kept where --keep or a create_only job says so.
/// ioengine=filecreate jobs are left out: they need the name free.
fn lay_out_shared(plan: &FioPlan, members: &[usize], interrupted: &AtomicBool) -> Shared {
    struct Named {
        size: Option<u64>,
        jobs: usize,
        first: usize,
        keep: bool,
    }
    // By path, in the order the jobs name them (a job may name a million files: sets).
    let mut order: Vec<&Path> = Vec::new();
    let mut named: HashMap<&Path, Named> = HashMap::new();
    for &i in members {
        let run = &plan.runs[i];
        if run.job.engine.kind.is_some_and(|e| e.caps().creates_files) {
            continue;
        }
        let mut mine = HashSet::new();
        for t in run.job.targets.iter().filter(|t| mine.insert(&t.path)) {
            let n = named.entry(&t.path).or_insert_with(|| {
                order.push(&t.path);
                Named {
                    size: None,
                    jobs: 0,
                    first: i,
                    keep: false,
                }
            });
            n.size = n.size.max(t.create_size);
            n.jobs += 1;
            n.keep |= run.job.keep || run.create_only;
        }
    }
    let mut done = Shared {
        laid_out: Vec::new(),
        cleanups: Vec::new(),
        error: None,
    };
    for p in order {
        let n = &named[p];
        let Some(size) = n.size.filter(|_| n.jobs > 1 && !p.exists()) else {
            continue;
        };
        let run = &plan.runs[n.first];
        let mut cleanup = Cleanup::new(n.keep);
        let r = runner::target::lay_out(p, size, run.job.seed, None, &mut cleanup, interrupted);
        done.cleanups.push(cleanup);
        if let Err(e) = r {
            done.error = Some(in_job(&run.name, e));
            break;
        }
        done.laid_out.push(p.to_path_buf());
    }
    done
}

/// An error of job `name`, saying so.
fn in_job(name: &str, e: Error) -> Error {
    match e {
        Error::Usage(m) => Error::Usage(format!("fio job '{name}': {m}")),
        Error::Runtime(m) => Error::Runtime(format!("fio job '{name}': {m}")),
        other => other,
    }
}

/// What one job's thread gives back: the job's index, its result (none for create_only), and
/// the files it created.
type JobDone = (usize, Result<Option<RunResult>, Error>, Cleanup);

/// Run the jobs `members` of one batch together, each on a thread of its own: every job is
/// set up before any starts (fio's way), and in a `team` every rank's jobs start together. A
/// thread the system will not start ends the batch: the jobs already going are stopped as by
/// Ctrl-C, and the second value is the error that names the limit.
fn run_batch(
    runs: &[options::FioRun],
    members: &[usize],
    command_line: &[String],
    (interrupted, ends): (&AtomicBool, &Ends),
    team: Option<&dyn Cluster>,
) -> (Vec<JobDone>, Option<Error>) {
    let start = StartLine::default();
    std::thread::scope(|s| {
        let mut handles = Vec::new();
        let mut refused = None;
        for (k, &i) in members.iter().enumerate() {
            // Ctrl-C while a large group is still being started: start no more of it (each
            // would only set up to be stopped), so that the stop is prompt.
            if interrupted.load(Ordering::Relaxed) {
                break;
            }
            let run = &runs[i];
            let line = command_line.to_vec();
            // Moved into the thread; withdrawn when dropped unused (the thread never ran).
            let entry = waits_at_line(run).then(|| start.enlist());
            let start = &start;
            let started = std::thread::Builder::new()
                .stack_size(crate::os::threads::JOB_STACK_BYTES)
                .spawn_scoped(s, move || {
                    let done = run_job(i, runs, line, (start, entry), (interrupted, ends));
                    let failed = match &done.1 {
                        Ok(r) => r
                            .as_ref()
                            .is_some_and(|r| r.stop_reason == StopReason::IoError),
                        Err(_) => true,
                    };
                    ends.ended(i, failed, runs);
                    done
                });
            match started {
                Ok(h) => handles.push((i, h)),
                Err(e) => {
                    interrupted.store(true, Ordering::Relaxed);
                    let asked = format!("{} jobs", members.len());
                    let why = crate::os::threads::start_error(k, members.len(), &asked, &e);
                    refused = Some(Error::runtime(why));
                    break;
                }
            }
        }
        // Every job set up (or failed): let them go, once the other ranks' are too.
        let go = start.wait_all(interrupted) && team.is_none_or(|c| c.fence(interrupted));
        start.open(go);
        let done = handles
            .into_iter()
            .map(|(i, h)| {
                h.join().unwrap_or_else(|_| {
                    let e = format!("fio job '{}': its thread panicked", runs[i].name);
                    (i, Err(Error::runtime(e)), Cleanup::new(false))
                })
            })
            .collect();
        (done, refused)
    })
}

/// fio reports each clone (numjobs) of a job apart: keep each thread's histograms.
const PER_THREAD: runner::Keep = runner::Keep {
    per_thread: true,
    every_histogram: false,
    per_thread_series: false,
};

/// Whether a job starts at its group's start line: one that only lays out files has nothing
/// to time, one with a start delay starts that long after the line opens, and one that waits
/// for another job (wait_for) starts when that one ends.
fn waits_at_line(run: &options::FioRun) -> bool {
    !run.create_only && run.start_delay_ns == 0 && run.wait_for.is_none()
}

/// One job, on its own thread: wait for its start delay, then lay out (create_only) or run.
/// `start`: its group's start line, and its entry there where it waits at the line.
fn run_job(
    i: usize,
    runs: &[options::FioRun],
    line: Vec<String>,
    (start, entry): (&StartLine, Option<Entry>),
    (interrupted, ends): (&AtomicBool, &Ends),
) -> JobDone {
    let run = &runs[i];
    // create_only keeps what it lays out: that is what the job is for.
    let mut cleanup = Cleanup::new(run.job.keep || run.create_only);
    let later = entry.is_none() && !run.create_only;
    let halted = || ends.halted(i);
    if (later && !start.wait_open()) || !wait(run.start_delay_ns, interrupted, &halted) {
        return (i, Err(Error::Interrupted("interrupted".into())), cleanup);
    }
    let waited = run
        .wait_for
        .is_none_or(|w| ends.wait_for(i, w, interrupted));
    if interrupted.load(Ordering::Relaxed) {
        return (i, Err(Error::Interrupted("interrupted".into())), cleanup);
    }
    if !waited || halted() {
        return (i, Ok(None), cleanup);
    }
    if run.create_only {
        let r = runner::target::check_targets(&run.job, &mut cleanup, interrupted).map(|_| None);
        return (i, r, cleanup);
    }
    ends.started(i);
    // Logs made from each I/O, written as the records come, to files made once the run is
    // set up.
    let mut logs = run.logs.from_ios().then(|| IoLogs::new(run));
    let mut none = NoObserver;
    let inner: &mut dyn Observer = match &mut logs {
        Some(l) => l,
        None => &mut none,
    };
    let job = &run.job;
    // The observer's own setup (fio's log files) may fail: then the job never comes.
    let mut entry = entry;
    let mut ready = || match entry.as_mut().is_none_or(|e| e.arrive()) {
        true => Ok(()),
        false => Err("interrupted while the other jobs of the group were set up".into()),
    };
    let mut at = Hooked {
        inner,
        ready: &mut ready,
        stonewall: &mut Some,
        halted: &halted,
    };
    // fio's averaged bw and iops logs are per clone: keep each thread's time series for them.
    let per_clone_logs = run.clones > 1 && (run.logs.bw.is_some() || run.logs.iops.is_some());
    let keep = runner::Keep {
        per_thread_series: per_clone_logs && !run.logs.per_io,
        ..PER_THREAD
    };
    let r = runner::run_full(job, line, interrupted, &mut cleanup, &mut at, keep);
    // The line stays shut only after Ctrl-C (or a thread refused, said as such): an
    // interruption, not a failure, so the files go and no rank is blamed.
    let r = r.map_err(|e| match interrupted.load(Ordering::Relaxed) {
        true => Error::Interrupted(e.to_string()),
        false => e,
    });
    let r = match (r, logs.map(IoLogs::finish)) {
        (Ok(mut r), None | Some(Ok(()))) => {
            if halted() {
                r.notes
                    .push("stopped when another job ended (fio's exitall)".into());
            }
            Ok(Some(r))
        }
        (Err(e), _) => Err(e),
        (Ok(_), Some(Err(e))) => Err(Error::runtime(format!("fio job '{}': {e}", run.name))),
    };
    (i, r, cleanup)
}

/// Sleep `ns` (fio's startdelay), waking for Ctrl-C; false if interrupted. A job that
/// another's end has ended (`halted`) stops waiting: it will not start.
fn wait(ns: u64, interrupted: &AtomicBool, halted: &dyn Fn() -> bool) -> bool {
    let until = std::time::Instant::now() + std::time::Duration::from_nanos(ns);
    while std::time::Instant::now() < until {
        if interrupted.load(Ordering::Relaxed) {
            return false;
        }
        if halted() {
            return true;
        }
        std::thread::sleep(
            std::time::Duration::from_millis(20)
                .min(until.saturating_duration_since(std::time::Instant::now())),
        );
    }
    !interrupted.load(Ordering::Relaxed)
}

/// fio's invalidate: drop a file's pages from the page cache (posix_fadvise DONTNEED), so a
/// buffered job starts cold. True if there was a regular file to drop.
fn drop_file_cache(path: &Path) -> bool {
    let Ok(m) = std::fs::metadata(path) else {
        return false;
    };
    if !m.is_file() {
        return false;
    }
    std::fs::File::open(path).is_ok_and(|f| crate::os::cache::drop_file(&f).is_ok())
}

/// fio's command-line job options (`--name=x --ioengine=null ...`) run as `iogauge fio` runs
/// them, in the current directory, and reported in `format`: for the library's tests of the
/// reports against fio's own.
#[cfg(test)]
pub(crate) fn run_args_for_test(args: &[&str], format: FioFormat) -> Result<String, Error> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let cl = crate::spec::fio::read_args(&args, &crate::spec::fio::Vars::here())?;
    let mut plan = options::plan(
        &cl.jobs,
        &options::MapOptions {
            ignore_unsupported: false,
            allow_overwrite: false,
            keep: false,
            size_of: &|p| std::fs::metadata(p).ok().map(|m| m.len()),
            exists: &|p| p.exists(),
            free_space_of: &crate::facts::free_space,
        },
    )?;
    let mut outcome = run_plan(&mut plan, &args, &AtomicBool::new(false), false, None);
    if let Some(e) = outcome.error.take() {
        return Err(e);
    }
    Ok(report(format, &plan, &outcome))
}
