//! The first stage of a run: what will really run. A validated [`JobSpec`] says what the user
//! asked for; the host may not offer it (no io_uring, an inline engine that keeps one I/O in
//! flight, a file service that does not split over the queue). Every such decision is made
//! here, with a note for each change, and nowhere else. Pure: the host is probed before and
//! passed in, so a plan is tested without I/O.

use crate::engine::build::EngineSettings;
use crate::engine::kind::UringOptions;
use crate::engine::kind::{EngineKind, DEFAULT_ENGINE, FALLBACK_ENGINE};
use crate::error::{Error, Result};
use crate::spec::{Affinity, FileService, Flag, JobSpec, Pattern, Stop};

/// What the host offers that a plan depends on.
#[derive(Debug, Clone)]
pub struct Host {
    /// Whether an io_uring can be set up here, and why not.
    pub uring: std::result::Result<(), String>,
    /// The CPUs this process may run on.
    pub cpus: Vec<usize>,
}

impl Host {
    /// What `job` needs to know: io_uring is set up once to see whether it can be, only where
    /// the job names it or names no engine.
    pub fn probe(job: &JobSpec) -> Host {
        let uring = if job.engine.kind.unwrap_or(DEFAULT_ENGINE).caps().ring {
            crate::engine::probe_ring()
        } else {
            Ok(())
        };
        Host {
            uring,
            cpus: crate::os::numa::allowed_cpus(),
        }
    }
}

/// A job as it will run.
#[derive(Debug, Clone)]
pub struct RunPlan {
    pub engine: EngineSettings,
    pub queue_depth: u32,
    pub service: Option<FileService>,
    /// Bytes each thread does before it stops (`--total` split over the threads).
    pub quota_bytes: Option<u64>,
    /// Each thread's share left part of a block unused: a flush due after its last write is
    /// still issued (fio asks for one more I/O while bytes remain, and issues the sync due
    /// before finding that no block fits; where the share is whole blocks it asks no more).
    pub flush_after_last: bool,
    pub threads: u64,
    /// Keep a record of every I/O (an observer wants per-I/O logs, in latency mode).
    pub trace: bool,
    /// What was changed from the job, and why, for the report.
    pub notes: Vec<String>,
    /// The job's NUMA nodes, resolved on this machine.
    pub numa: NumaPlan,
}

/// Where each worker thread may run and allocate: the CPUs of the job's nodes, and its
/// memory policy with the nodes it names.
#[derive(Debug, Clone, Default)]
pub struct NumaPlan {
    pub cpus: Option<Vec<usize>>,
    pub memory: Option<(crate::spec::numa::MemPolicy, Vec<usize>)>,
}

/// Decide what runs: the engine, queue depth and file service the host allows, each thread's
/// share of a byte quota, and whether per-I/O records are kept (`wants_ios`).
pub fn plan(job: &JobSpec, host: &Host, wants_ios: bool) -> Result<RunPlan> {
    let mut notes = Vec::new();
    let (kind, queue_depth) = resolve_engine(job, host, &mut notes)?;
    let service = file_service(job, queue_depth, &mut notes);
    let threads = job.total_threads();
    let quota_bytes = quota(job, threads, &mut notes);
    let flush_after_last = job.per_io.flush.is_some() && part_block_left(job, threads);
    check_affinity(job, host)?;
    let numa = numa_plan(job)?;
    let trace = wants_ios && job.latency;
    if wants_ios && !job.latency {
        notes.push(format!(
            "per-I/O records need latency mode ({}): none were kept",
            job.name(Flag::Latency)
        ));
    }
    let engine = EngineSettings {
        kind,
        uring: UringOptions {
            sqpoll: job.engine.sqpoll,
            hipri: job.engine.hipri,
            register: job.engine.register,
            changing_files: job.open_files().is_some(),
        },
        delay: job.engine.delay.map(|d| (d, job.engine.delay_step)),
        seed: job.seed,
        how: super::target::how(job),
        random: matches!(job.shape.pattern, Pattern::Random { .. }),
    };
    Ok(RunPlan {
        engine,
        queue_depth,
        service,
        quota_bytes,
        flush_after_last,
        threads,
        trace,
        notes,
        numa,
    })
}

/// The engine and queue depth that will really run, with a note for each change.
fn resolve_engine(
    job: &JobSpec,
    host: &Host,
    notes: &mut Vec<String>,
) -> Result<(EngineKind, u32)> {
    let engine = match (job.engine.kind, &host.uring) {
        (Some(k), Err(e)) if k.caps().ring => {
            return Err(Error::usage(format!(
                "{}: io_uring is not available here ({e}); use {}",
                job.dialect.assign(Flag::Engine, "io_uring"),
                job.dialect.assign(Flag::Engine, "sync")
            )))
        }
        (Some(e), _) => e,
        (None, Ok(())) => DEFAULT_ENGINE,
        (None, Err(e)) => {
            notes.push(format!(
                "io_uring is not available here ({e}); using the sync engine"
            ));
            FALLBACK_ENGINE
        }
    };
    let mut qd = job.queue_depth;
    if engine.is_inline() && qd > 1 {
        notes.push(format!(
            "the {} engine keeps one I/O in flight per thread: {} runs as 1; use {} or more {}",
            engine.name(),
            job.dialect.assign(Flag::QueueDepth, &qd.to_string()),
            job.dialect.assign(Flag::Engine, "io_uring"),
            job.name(Flag::Threads)
        ));
        qd = 1;
    }
    Ok((engine, qd))
}

/// Slots need a queue that splits over the files; otherwise each thread goes round robin.
fn file_service(job: &JobSpec, qd: u32, notes: &mut Vec<String>) -> Option<FileService> {
    let f = job.file_sets?;
    if f.service == FileService::Slots && !qd.is_multiple_of(f.files) {
        notes.push(format!(
            "{} slots needs a queue depth that splits over the {} files; at queue depth {qd} each thread goes round robin instead",
            job.name(Flag::FileService),
            f.files
        ));
        return Some(FileService::RoundRobin { every: 1 });
    }
    Some(f.service)
}

/// Each thread's share of `--total`: whole blocks where every I/O is one size; with a mix the
/// last I/O may pass it.
fn quota(job: &JobSpec, threads: u64, notes: &mut Vec<String>) -> Option<u64> {
    let Stop::TotalBytes { bytes, .. } = job.timing.stop else {
        return None;
    };
    let unit = if job.shape.block_mix.is_some() {
        1
    } else {
        job.shape.block_size
    };
    let per = (bytes / threads / unit).max(1) * unit;
    if per * threads != bytes {
        notes.push(format!(
            "{} {bytes} bytes split over {threads} threads as {per} bytes each ({} in all)",
            job.name(Flag::Total),
            per * threads
        ));
    }
    Some(per)
}

/// Whether each thread's share of a byte stop ends in part of a block that no I/O fits.
fn part_block_left(job: &JobSpec, threads: u64) -> bool {
    match job.timing.stop {
        Stop::TotalBytes { bytes, .. } if job.shape.block_mix.is_none() => {
            !(bytes / threads.max(1)).is_multiple_of(job.shape.block_size.max(1))
        }
        _ => false,
    }
}

/// The job's NUMA nodes, each online here (fio refuses a node libnuma does not know).
fn numa_plan(job: &JobSpec) -> Result<NumaPlan> {
    use crate::os::numa;
    let Some(n) = &job.numa else {
        return Ok(NumaPlan::default());
    };
    let bad = |flag: Flag, e: String| Error::usage(format!("{}: {e}", job.name(flag)));
    let cpus = match &n.cpu_nodes {
        Some(nodes) => {
            let nodes = numa::resolve(nodes).map_err(|e| bad(Flag::NumaNodes, e))?;
            Some(numa::node_cpus(&nodes))
        }
        None => None,
    };
    let memory = match &n.memory {
        Some(p) => {
            let nodes = match &p.nodes {
                Some(list) => numa::resolve(list).map_err(|e| bad(Flag::NumaMem, e))?,
                None => Vec::new(),
            };
            Some((p.clone(), nodes))
        }
        None => None,
    };
    Ok(NumaPlan { cpus, memory })
}

fn check_affinity(job: &JobSpec, host: &Host) -> Result<()> {
    let Some(Affinity::Cpus { cpus }) = &job.affinity else {
        return Ok(());
    };
    match cpus.iter().find(|c| !host.cpus.contains(c)) {
        None => Ok(()),
        Some(bad) => Err(Error::usage(format!(
            "{}: CPU {bad} is not available to this process (it may use {})",
            job.name(Flag::Affinity),
            host.cpus
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(line: &str) -> JobSpec {
        let mut argv: Vec<String> = vec!["iogauge".into(), "run".into()];
        argv.extend(line.split_whitespace().map(String::from));
        argv.push("t.dat".into());
        crate::spec::native::job_from_argv(&argv).unwrap()
    }

    fn host(uring: bool) -> Host {
        Host {
            uring: if uring {
                Ok(())
            } else {
                Err("Operation not permitted".into())
            },
            cpus: vec![0, 1],
        }
    }

    #[test]
    #[cfg_attr(
        not(target_os = "linux"),
        ignore = "io_uring (Linux's) is the default engine there"
    )]
    fn without_io_uring_the_default_engine_is_sync_with_a_note() {
        let p = plan(&job("-c 1M -o 8"), &host(false), false).unwrap();
        assert_eq!(p.engine.kind.name(), "sync");
        assert_eq!(p.queue_depth, 1, "sync keeps one I/O in flight");
        assert!(
            p.notes[0].contains("io_uring is not available here"),
            "{:?}",
            p.notes
        );
        assert_eq!(p.notes.len(), 2, "{:?}", p.notes);
        let p = plan(&job("-c 1M -o 8"), &host(true), false).unwrap();
        assert_eq!((p.engine.kind.name(), p.queue_depth), ("io_uring", 8));
        assert!(p.notes.is_empty());
    }

    #[test]
    #[cfg_attr(not(target_os = "linux"), ignore = "the job names io_uring, Linux's")]
    fn io_uring_asked_for_and_missing_is_refused_in_the_job_s_words() {
        let e = plan(&job("-c 1M --engine io_uring"), &host(false), false).unwrap_err();
        assert!(
            e.to_string()
                .contains("--engine io_uring: io_uring is not available"),
            "{e}"
        );
    }

    #[test]
    fn a_byte_quota_is_split_in_whole_blocks() {
        let p = plan(&job("-c 1M -t 3 -b 4k --total 100k"), &host(true), false).unwrap();
        assert_eq!(p.quota_bytes, Some(32 << 10));
        assert!(
            p.notes[0].contains("as 32768 bytes each (98304 in all)"),
            "{:?}",
            p.notes
        );
    }

    #[test]
    fn a_cpu_not_offered_is_refused() {
        let e = plan(&job("-c 1M --affinity=5"), &host(true), false).unwrap_err();
        assert!(e.to_string().contains("CPU 5 is not available"), "{e}");
    }

    #[test]
    fn numa_nodes_resolve_on_this_machine() {
        let p = plan(
            &job("-c 1M --numa-nodes 0 --numa-mem bind:0"),
            &host(true),
            false,
        )
        .unwrap();
        assert!(!p.numa.cpus.unwrap().is_empty());
        assert_eq!(p.numa.memory.unwrap().1, vec![0]);
        let e = plan(&job("-c 1M --numa-nodes 0-999"), &host(true), false).unwrap_err();
        assert!(e.to_string().starts_with("--numa-nodes: node "), "{e}");
        let e = plan(&job("-c 1M --numa-mem interleave:998"), &host(true), false).unwrap_err();
        assert!(
            e.to_string().contains("--numa-mem: node 998 is not online"),
            "{e}"
        );
    }

    #[test]
    fn per_io_records_need_latency_mode() {
        let p = plan(&job("-c 1M"), &host(true), true).unwrap();
        assert!(!p.trace && p.notes[0].starts_with("per-I/O records need"));
        assert!(plan(&job("-c 1M -L"), &host(true), true).unwrap().trace);
    }
}
