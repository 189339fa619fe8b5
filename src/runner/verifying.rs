//! Verification's part of a run (--verify): the generation maps set up with the targets (all
//! generation 1 where iogauge laid the target out, a saved state's where asked to load one,
//! unknown otherwise), each worker's share of them, checkpoints of a surviving target's state
//! while the run goes, and when it ends the read-back pass and the last state.

use super::plan::RunPlan;
use super::target::OpenTarget;
use crate::error::{Error, Result};
use crate::spec::JobSpec;
use crate::verify::map::{self, GenMap};
use crate::verify::pass::{self, PassOpts, PassTarget};
use crate::verify::{state, worker, Log, VerifyResult, VerifySpec, VerifyTarget};
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A verifying run's maps and what was found.
pub struct Verifying {
    pub spec: VerifySpec,
    pub unit: u64,
    pub targets: Vec<VerifyTarget>,
    /// Each target's seed (the headers'): the run's, or its saved state's.
    pub seeds: Vec<u64>,
    pub states: Vec<PathBuf>,
    /// Whether each target outlives the run (kept, a device, or not iogauge's): only those
    /// have their state saved.
    pub survives: Vec<bool>,
    pub compress_pct: u8,
    pub log: Arc<Log>,
    pub checkpoints: AtomicU64,
    pub notes: Vec<String>,
    /// The engine moves data (not the null or delay engine): writes change the targets, and
    /// reads and the pass check them.
    pub real: bool,
}

/// The maps of a verifying job's targets; None without --verify.
pub fn set_up(job: &JobSpec, plan: &RunPlan, targets: &[OpenTarget]) -> Result<Option<Verifying>> {
    let (Some(spec), Some(unit)) = (&job.verify, job.verify_unit()) else {
        return Ok(None);
    };
    let mut v = Verifying {
        spec: spec.clone(),
        unit,
        targets: Vec::new(),
        seeds: Vec::new(),
        states: Vec::new(),
        survives: Vec::new(),
        compress_pct: job.per_io.buffers.compress_pct,
        log: Arc::new(Log::default()),
        checkpoints: AtomicU64::new(0),
        notes: Vec::new(),
        real: !plan.engine.kind.caps().diskless,
    };
    if !v.real {
        v.notes.push(format!(
            "verify: the {} engine moves no data: writes are stamped and units claimed (the \
             cost of verifying), nothing is checked",
            plan.engine.kind.name()
        ));
    }
    let spread = u64::from(job.threads_per_target.max(1) - 1) * job.shape.thread_offset;
    for (i, t) in targets.iter().enumerate() {
        let units = (t.end + spread).saturating_sub(t.start) / unit;
        let mut gens = GenMap::new(units, unit).map_err(Error::runtime)?;
        if job.threads_per_target == 1 {
            gens = gens.one_thread();
        }
        let path = crate::verify::state_path(spec, &t.path, targets.len(), i);
        let mut seed = spec.header_seed(job.seed);
        if spec.load {
            seed = load_state(&path, &gens, t, unit)?;
        } else if t.created {
            gens.set_all(1);
        } else {
            v.notes.push(format!(
                "verify: '{}' was not laid out by this run and no state was loaded ({}): its \
                 units are checked once this run has written them",
                t.path.display(),
                job.name(crate::spec::Flag::VerifyState)
            ));
        }
        v.targets.push(VerifyTarget {
            path: t.path.display().to_string(),
            map: Arc::new(gens),
            origin: t.start,
            id: i as u32,
        });
        v.seeds.push(seed);
        v.states.push(path);
        v.survives.push(spec.save && (job.keep || !t.created));
    }
    let bytes: u64 = v.targets.iter().map(|t| map::cost(t.map.units())).sum();
    v.notes.push(format!(
        "verify: {} units of {} across the targets; their generations take {} of memory (2 \
         bytes a unit)",
        v.targets.iter().map(|t| t.map.units()).sum::<u64>(),
        crate::units::format_size(unit),
        crate::units::format_size_human(bytes)
    ));
    Ok(Some(v))
}

/// Before any target is opened: a state an earlier run saved is not replaced unasked (it is
/// what finds that run's lost writes), and a --verify-dump folder exists.
pub fn check_before(job: &JobSpec) -> Result<()> {
    let Some(spec) = &job.verify else {
        return Ok(());
    };
    if let Some(dump) = &spec.dump {
        let flag = job.name(crate::spec::Flag::VerifyDump).to_string();
        crate::verify::check_dump(&flag, dump.as_ref())?;
    }
    if spec.load || spec.fresh || !spec.save {
        return Ok(());
    }
    for (i, t) in job.targets.iter().enumerate() {
        let path = crate::verify::state_path(spec, &t.path, job.targets.len(), i);
        // Only a target that outlives the run has its state saved.
        if path.exists() && (job.keep || t.path.exists()) {
            return Err(Error::usage(format!(
                "'{}' holds the verification state an earlier run saved for '{}': {} checks \
                 what that run wrote too, {} starts over and replaces it",
                path.display(),
                t.path.display(),
                job.name(crate::spec::Flag::VerifyLoad),
                job.name(crate::spec::Flag::VerifyFresh)
            )));
        }
    }
    Ok(())
}

/// The generations of target `t` from its saved state at `path`, which must be of the same
/// file and describe the same units; the seed its headers carry.
fn load_state(path: &std::path::Path, gens: &GenMap, t: &OpenTarget, unit: u64) -> Result<u64> {
    let (meta, saved) = state::load(path)?;
    let mut again = None;
    meta.check_target(path, &t.path, opened(t, &mut again, "to check it")?)?;
    if meta.unit != unit || meta.origin != t.start || meta.units != gens.units() {
        return Err(Error::usage(format!(
            "the verification state '{}' is of {} units of {} from offset {}, and this run's \
             target '{}' has {} of {} from {}: run with the same block sizes and offsets",
            path.display(),
            meta.units,
            crate::units::format_size(meta.unit),
            meta.origin,
            t.path.display(),
            gens.units(),
            crate::units::format_size(unit),
            t.start
        )));
    }
    for (u, g) in saved.into_iter().enumerate() {
        gens.set(u as u64, g);
    }
    Ok(meta.seed)
}

/// Thread `thread` (the worker's number) of the set of targets `set` (their indices).
pub fn worker_setup(
    v: &Verifying,
    job: &JobSpec,
    plan: &RunPlan,
    set: &[usize],
    thread: u32,
) -> worker::Setup {
    let files: Vec<worker::File> = set
        .iter()
        .map(|&i| {
            let t = &v.targets[i];
            worker::File {
                map: t.map.clone(),
                origin: t.origin,
                id: t.id,
                path: t.path.clone(),
                seed: v.seeds[i],
            }
        })
        .collect();
    worker::Setup {
        seed: files
            .first()
            .map_or(v.spec.header_seed(job.seed), |f| f.seed),
        files,
        unit: v.unit,
        thread,
        slots: plan.queue_depth as usize,
        compress_pct: job.per_io.buffers.compress_pct,
        refill: job.per_io.buffers.refill,
        check_reads: v.real,
        go_on: v.spec.go_on,
        backlog: v.spec.backlog,
        dump: v.spec.dump.as_ref().map(PathBuf::from),
        log: v.log.clone(),
    }
}

/// A checkpoint of the surviving targets: their generations now, then every write completed
/// so far flushed to the device, then the states saved. After a crash each unit holds at
/// least the generation saved.
pub fn checkpoint(v: &Verifying, targets: &[OpenTarget]) -> Result<()> {
    let snaps: Vec<Option<Vec<u16>>> = v
        .targets
        .iter()
        .zip(&v.survives)
        .map(|(t, &s)| s.then(|| t.map.snapshot()))
        .collect();
    let mut ids = Vec::with_capacity(targets.len());
    for (t, snap) in targets.iter().zip(&snaps) {
        ids.push(match snap {
            Some(_) => Some(flush(t)?),
            None => None,
        });
    }
    for (i, (snap, id)) in snaps.into_iter().zip(ids).enumerate() {
        if let (Some(gens), Some(id)) = (snap, id) {
            state::save(&v.states[i], &meta(v, i, id, gens.len() as u64), &gens)?;
        }
    }
    v.checkpoints.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

fn meta(v: &Verifying, i: usize, identity: state::TargetId, units: u64) -> state::Meta {
    let t = &v.targets[i];
    state::Meta {
        target: t.path.clone(),
        identity,
        origin: t.origin,
        unit: v.unit,
        units,
        seed: v.seeds[i],
        id: t.id,
        compress_pct: v.compress_pct,
        saved_unix_ns: crate::dates::now_unix_ns(),
    }
}

/// `t`'s open file, or (a file-operation engine's target, only a name) the file opened again
/// into `again`; `why` says what for, in an error.
fn opened<'a>(t: &'a OpenTarget, again: &'a mut Option<File>, why: &str) -> Result<&'a File> {
    if let Some(f) = &t.file {
        return Ok(f);
    }
    let f = File::open(&t.path)
        .map_err(|e| Error::runtime(format!("cannot open '{}' {why}: {e}", t.path.display())))?;
    Ok(again.insert(f))
}

/// Every write to `t` completed so far, on the device; what `t` is now, for its state.
fn flush(t: &OpenTarget) -> Result<state::TargetId> {
    let mut again = None;
    let f = opened(t, &mut again, "to flush it")?;
    if let Err(e) = crate::os::file::datasync(f) {
        return Err(Error::runtime(format!(
            "cannot flush '{}': {e}",
            t.path.display()
        )));
    }
    state::TargetId::of(f)
        .map_err(|e| Error::runtime(format!("cannot read what '{}' is: {e}", t.path.display())))
}

/// Checkpoints every `checkpoint_s` seconds until `done`, for surviving targets.
pub fn checkpoints(v: &Verifying, targets: &[OpenTarget], done: &AtomicBool) {
    if v.spec.checkpoint_s == 0 || !v.survives.iter().any(|&s| s) {
        return;
    }
    let every = std::time::Duration::from_secs(v.spec.checkpoint_s);
    let mut next = std::time::Instant::now() + every;
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(20));
        if std::time::Instant::now() < next {
            continue;
        }
        next += every;
        if let Err(e) = checkpoint(v, targets) {
            eprintln!("iogauge: warning: {e}");
        }
    }
}

/// When the run has ended: the read-back (where asked, the run wrote, and no mismatch or
/// Ctrl-C stopped it), then the last state of surviving targets.
pub fn finish(
    v: &Verifying,
    job: &JobSpec,
    targets: &[OpenTarget],
    stopped: bool,
    stop: &AtomicBool,
) -> Result<VerifyResult> {
    let wrote = job.shape.write_pct > 0;
    let pass = if v.spec.pass && v.real && wrote && !stopped && !stop.load(Ordering::Relaxed) {
        Some(read_back(v, job, targets, stop)?)
    } else {
        None
    };
    let mut states = Vec::new();
    if v.survives.iter().any(|&s| s) {
        match checkpoint(v, targets) {
            // A job that wrote nothing changed no unit: a state it cannot save (a file
            // system filled by the job before, fio's surface-scan) loses nothing.
            Err(e) if !wrote => {
                eprintln!("iogauge: warning: {e}");
                return Ok(result(v, Vec::new(), pass));
            }
            r => r?,
        }
        states = v
            .states
            .iter()
            .zip(&v.survives)
            .filter(|(_, &s)| s)
            .map(|(p, _)| p.display().to_string())
            .collect();
    }
    Ok(result(v, states, pass))
}

fn result(v: &Verifying, states: Vec<String>, pass: Option<pass::PassResult>) -> VerifyResult {
    let log = &v.log;
    let mismatches = log
        .mismatches
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone();
    VerifyResult {
        unit: v.unit,
        map_bytes: v.targets.iter().map(|t| map::cost(t.map.units())).sum(),
        checked: log.checked.load(Ordering::Relaxed),
        unjudged: log.unjudged.load(Ordering::Relaxed),
        mismatch_count: log.count.load(Ordering::Relaxed),
        mismatches,
        pass,
        states,
        checkpoints: v.checkpoints.load(Ordering::Relaxed),
    }
}

/// Every unit read back from the device: written back and dropped from the page cache first,
/// so that the pass reads what the device holds.
fn read_back(
    v: &Verifying,
    job: &JobSpec,
    targets: &[OpenTarget],
    stop: &AtomicBool,
) -> Result<pass::PassResult> {
    let mut opened = Vec::new();
    for t in targets {
        let f = match &t.file {
            Some(f) => f.try_clone(),
            None => File::open(&t.path),
        }
        .map_err(|e| {
            Error::runtime(format!(
                "cannot open '{}' to read it back: {e}",
                t.path.display()
            ))
        })?;
        if !job.cache.is_direct() {
            flush(t)?;
            let _ = crate::os::cache::drop_file(&f);
        }
        opened.push(f);
    }
    let pts: Vec<PassTarget> = v
        .targets
        .iter()
        .zip(&opened)
        .zip(&v.seeds)
        .map(|((t, f), &seed)| PassTarget {
            file: f,
            path: t.path.clone(),
            map: &t.map,
            origin: t.origin,
            id: t.id,
            seed,
        })
        .collect();
    let o = PassOpts {
        compress_pct: v.compress_pct,
        // A megabyte a thread: eight read a device back as fast as sixty-four, with less.
        threads: job.threads_per_target.clamp(1, 8),
        at_least: false,
        during: "pass",
        dump: v.spec.dump.as_ref().map(PathBuf::from),
    };
    pass::read_back(&pts, &o, &v.log, stop)
}
