//! The second stage of a run: everything before the first I/O. Targets opened or created
//! (and recorded for clean-up), io_uring options tried on them, the clock calibrated, and each
//! worker's plan made: offsets, sizes, pacing and files. Nothing here is timed; a distributed
//! run waits at a barrier after this stage, so that every rank's files exist before any starts.

use super::flow::FlowGate;
use super::offsets::{self, OffsetGen};
use super::plan::RunPlan;
use super::target::{self, OpenTarget};
use super::worker::{Content, ErrorPlan, Features, FlushPlan, Pacer, SizePick, WorkerPlan};
use super::zbd::{ZbdFile, ZbdThread, ZoneTable};
use crate::clock::{Clock, ClockInfo};
use crate::engine::lazy::Files;
use crate::engine::Op;
use crate::error::{Error, Result};
use crate::os::file::Name;
use crate::os::owned::Cleanup;
use crate::os::{RawHandle, NO_HANDLE};
use crate::spec::{Flag, JobSpec};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A run ready to start.
pub struct Prepared {
    pub targets: Vec<OpenTarget>,
    pub clock: Clock,
    pub clock_info: ClockInfo,
    /// Which files a file-operation engine's I/O succeeded on: a create that did not happen
    /// leaves the name to whoever holds it. Empty for other engines.
    pub done: Vec<AtomicBool>,
    /// --verify: the targets' generations and what was found.
    pub verify: Option<super::verifying::Verifying>,
    /// The cgroup the workers run in (fio's cgroup=); gone (if made here) when this drops,
    /// after the workers have ended.
    pub cgroup: Option<crate::os::cgroup::Joined>,
    /// What preparing did that the report says.
    pub notes: Vec<String>,
}

/// What one worker thread is given: its plan, and what its engine works on.
pub struct WorkerSetup<'a> {
    pub plan: WorkerPlan,
    /// (descriptor, size) of each file; -1 where the thread opens its files itself.
    pub files: Vec<(RawHandle, u64)>,
    pub lazy: Option<(Arc<Files>, u32)>,
    /// A file-operation engine's names, and its share of [`Prepared::done`].
    pub names: Vec<Name>,
    pub done: &'a [AtomicBool],
    /// The cgroup the thread moves itself into before its engine is set up.
    pub cgroup: Option<&'a crate::os::cgroup::Joined>,
}

/// Open (or create) the targets and try the io_uring options on them.
pub fn prepare(
    job: &JobSpec,
    plan: &RunPlan,
    cleanup: &mut Cleanup,
    interrupted: &AtomicBool,
) -> Result<Prepared> {
    super::verifying::check_before(job)?;
    let mut notes = Vec::new();
    // Before any file is laid out: a cgroup that cannot be joined ends the run first.
    let cgroup = match &job.cgroup {
        Some(ask) => {
            let (joined, note) = crate::os::cgroup::Joined::prepare(ask).map_err(Error::runtime)?;
            notes.push(note);
            Some(joined)
        }
        None => None,
    };
    let targets = target::open_targets(job, cleanup, interrupted)?;
    if interrupted.load(Ordering::Relaxed) {
        return Err(Error::Interrupted(
            "interrupted before the run started".into(),
        ));
    }
    if job.shape.zbd.is_some() {
        for t in &targets {
            super::zbd::refuse_zoned_device(t, job.name(Flag::Zbd))?;
        }
    }
    let (clock, clock_info) = Clock::calibrated();
    #[cfg(target_os = "linux")]
    {
        let caps = plan.engine.kind.caps();
        if (caps.sqpoll && job.engine.sqpoll) || (caps.hipri && job.engine.hipri) {
            for t in &targets {
                super::uring_probe::probe_uring_options(t, job, plan.engine.uring)?;
            }
        }
    }
    let done = match plan.engine.kind.file_op() {
        Some(_) => targets.iter().map(|_| AtomicBool::new(false)).collect(),
        None => Vec::new(),
    };
    let verify = super::verifying::set_up(job, plan, &targets)?;
    Ok(Prepared {
        targets,
        clock,
        clock_info,
        done,
        verify,
        cgroup,
        notes,
    })
}

/// One setup per worker: threads by target (or set of files), as the result numbers them.
pub fn workers<'a>(job: &JobSpec, plan: &RunPlan, p: &'a Prepared) -> Result<Vec<WorkerSetup<'a>>> {
    let mut setups = Vec::new();
    let per_set = job.files_per_set();
    let file_op = plan.engine.kind.is_file_op();
    for (si, set) in p.targets.chunks(per_set).enumerate() {
        // Interlocked I/O: the threads of a file share its counter.
        let shared: Vec<Arc<AtomicU64>> = set.iter().map(|_| Arc::new(AtomicU64::new(0))).collect();
        // With --open-files, each thread opens the set's files itself, into `open` places.
        let lazy = match job.open_files() {
            Some(open) => Some((Arc::new(lazy_files(job, plan, set)?), open)),
            None => None,
        };
        let names = if file_op { c_names(set)? } else { Vec::new() };
        let done = if file_op {
            &p.done[si * per_set..(si + 1) * per_set]
        } else {
            &[][..]
        };
        for th in 0..job.threads_per_target {
            let files = match &lazy {
                Some((_, open)) => vec![(-1, 0); *open as usize],
                None => set
                    .iter()
                    .map(|t| (t.file.as_ref().map_or(NO_HANDLE, crate::os::raw), t.size))
                    .collect(),
            };
            let mut wp = worker_plan(job, plan, set, &shared, setups.len(), si, th)?;
            wp.features.verify = p.verify.as_ref().map(|v| {
                let files: Vec<usize> = (si * per_set..(si + 1) * per_set).collect();
                super::verifying::worker_setup(v, job, plan, &files, wp.id as u32)
            });
            let plan = wp;
            setups.push(WorkerSetup {
                plan,
                files,
                lazy: lazy.clone(),
                names: names.clone(),
                done,
                cgroup: p.cgroup.as_ref(),
            });
        }
    }
    Ok(setups)
}

/// Thread `th` of set `si`: where its I/Os go, how long they are, when they may start.
fn worker_plan(
    job: &JobSpec,
    plan: &RunPlan,
    set: &[OpenTarget],
    shared: &[Arc<AtomicU64>],
    id: usize,
    si: usize,
    th: u32,
) -> Result<WorkerPlan> {
    // A file operation is one "block" per file: its offset means nothing, and each file gets
    // one before the next (validation allows round robin or sequential only).
    let file_op = plan.engine.kind.is_file_op();
    let region = |t: &OpenTarget| match file_op {
        true => (0, job.shape.block_size),
        false => (t.start, t.end),
    };
    let step = th as u64 * job.shape.thread_offset;
    let zbd = zbd_files(job, set, step)?;
    let offsets = set
        .iter()
        .zip(shared)
        .enumerate()
        .map(|(i, (t, shared))| {
            // In zones, a job that writes works in whole zones.
            let (start, end) = match &zbd {
                Some(z) => z[i].range(),
                None => (region(t).0 + step, region(t).1 + step),
            };
            OffsetGen::new(
                &job.shape.pattern,
                start,
                end,
                job.shape.block_size,
                shared,
                offsets::Walk {
                    random_pct: job.shape.random_pct,
                    random_every: job.shape.random_every,
                    mixed: job.shape.block_mix.is_some(),
                    start: th as u64 * job.shape.thread_start,
                    zones: job.shape.zones,
                },
            )
        })
        .collect();
    let pick = plan.service.map(|f| {
        let sizes = set.iter().map(region).map(|(s, e)| e - s).collect();
        offsets::FilePick::new(f, sizes)
    });
    let (read_sizes, write_sizes) = job.shape.sizes();
    let qd = plan.queue_depth;
    Ok(WorkerPlan {
        id,
        target: si,
        thread: th,
        queue_depth: qd,
        submit_batch: job.submit_batch.min(qd),
        complete_batch: job.complete_batch.min(qd),
        latency: job.latency,
        block_size: job.shape.block_size as u32,
        sizes: [SizePick::new(&read_sizes), SizePick::new(&write_sizes)],
        write_pct: job.shape.write_pct as u64,
        trim: job.shape.trim,
        // A set of files is of files; a block device is trimmed by discarding its range.
        trim_op: match set.first().map(|t| t.kind) {
            Some(crate::facts::TargetKind::BlockDevice) => Op::Discard,
            _ => Op::PunchHole,
        },
        seed: job.seed,
        offsets,
        pick,
        // A rate in I/Os is a fixed gap between starts; a rate in bytes, a gap that follows
        // each I/O's length (validation allows one of the two).
        pacer: Pacer::new(&job.limits, job.shape.write_pct),
        flush: FlushPlan {
            every: job.per_io.flush,
            end_fsync: job.per_io.end_fsync,
            after_last: plan.flush_after_last,
        },
        think: job.per_io.think,
        content: Content {
            refill: job.per_io.buffers.refill,
            compress_pct: job.per_io.buffers.compress_pct,
            pattern: job.per_io.buffers.pattern,
            dedupe: super::dedupe::DedupeFill::new(
                job,
                super::dedupe::Place {
                    id: id as u64,
                    set: si as u64,
                    thread: th as u64,
                },
                set.iter().map(region).map(|(s, e)| e - s).sum(),
            ),
        },
        quota_bytes: plan.quota_bytes,
        on_error: ErrorPlan {
            continue_on_error: job.continue_on_error,
            ignore_errors: job.ignore_errors.clone(),
            fill: job.fill,
        },
        path: set_name(set),
        paths: set.iter().map(|t| t.path.display().to_string()).collect(),
        prio: job.prio.clone(),
        features: Features {
            verify: None,
            latency_target: job.limits.latency_target,
            min_rate: job.limits.min_rate,
            trace: plan.trace,
            flow: job
                .limits
                .flow
                .map(|f| FlowGate::join(f.id, f.weight as u64, f.sleep_ns)),
            zbd: zbd.map(|files| {
                let (reads, writes) = job.shape.sizes();
                ZbdThread::new(
                    job.shape.zbd.expect("zones"),
                    files,
                    matches!(job.shape.pattern, crate::spec::Pattern::Random { .. }),
                    job.shape.write_pct > 0 && job.shape.write_pct < 100,
                    [reads.smallest(), writes.smallest()],
                )
            }),
        },
    })
}

/// --zbd: each file's zones as this thread works in them (its working set `step` on).
fn zbd_files(job: &JobSpec, set: &[OpenTarget], step: u64) -> Result<Option<Vec<ZbdFile>>> {
    let Some(geo) = job.shape.zbd else {
        return Ok(None);
    };
    let files = set.iter().map(|t| {
        let table = ZoneTable::of(t.id, t.size, geo);
        if let Err(was) = table.max_open(geo.max_open) {
            return Err(Error::usage(format!(
                "{}: {} zones open at most on '{}', where an earlier job said {was} (fio: Different 'max_open_zones' values)",
                job.name(Flag::MaxOpenZones),
                geo.max_open,
                t.path.display()
            )));
        }
        ZbdFile::new(table, t.start + step, t.end + step, job.shape.modifies()).ok_or_else(|| {
            Error::usage(format!(
                "{}: the working set of '{}' holds not one whole zone of {} (a job that writes works in whole zones)",
                job.name(Flag::Zbd),
                t.path.display(),
                crate::units::format_size(geo.size)
            ))
        })
    });
    Ok(Some(files.collect::<Result<Vec<_>>>()?))
}

/// The names of a set's files as the system calls take them.
fn c_names(set: &[OpenTarget]) -> Result<Vec<Name>> {
    set.iter()
        .map(|t| {
            Name::new(&t.path).map_err(|_| {
                Error::usage(format!(
                    "target '{}' has a NUL byte in its name",
                    t.path.display()
                ))
            })
        })
        .collect()
}

/// The files of `set` as each of its threads opens them (`--open-files`).
fn lazy_files(job: &JobSpec, plan: &RunPlan, set: &[OpenTarget]) -> Result<Files> {
    Ok(Files {
        names: c_names(set)?,
        ids: set.iter().map(|t| t.id).collect(),
        how: crate::os::file::How {
            overlapped: plan.engine.kind.caps().overlapped,
            ..target::how(job)
        },
    })
}

/// A set of files as one target's name: their paths joined with ':', as fio lists them.
pub fn set_name(set: &[OpenTarget]) -> String {
    set.iter()
        .map(|t| t.path.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}
