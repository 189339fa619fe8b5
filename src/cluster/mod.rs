//! Where this process stands among the processes of one job: alone (the usual case), or one
//! rank of a job that an MPI launcher (`mpirun`, Slurm's `srun`) started on many hosts. The
//! runner's stages are fenced by [`Cluster::barrier`], results travel to rank 0 with
//! [`Cluster::gather`], and a failing rank ends the whole job with [`Cluster::abort`]: the rest
//! of iogauge sees only this trait, so the default build needs no MPI at all.

use crate::error::{Error, Result};
use std::sync::atomic::AtomicBool;

pub mod aggregate;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod spread;
pub mod team;

/// This process's place in the job.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Place {
    pub rank: u32,
    /// Ranks in the job.
    pub size: u32,
    pub host: String,
    /// Rank among the ranks on this host.
    pub local_rank: u32,
}

impl Place {
    /// A process on its own: rank 0 of 1 on this host.
    pub fn solo() -> Place {
        Place {
            rank: 0,
            size: 1,
            host: hostname(),
            local_rank: 0,
        }
    }

    pub fn is_root(&self) -> bool {
        self.rank == 0
    }
}

/// The host's name as the kernel has it (what MPI launchers and hostfiles use).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

/// What the ranks of one job do together.
pub trait Cluster {
    fn place(&self) -> &Place;
    /// Every rank's host, in rank order.
    fn hosts(&self) -> &[String];
    /// Wait until every rank has come here. False when `interrupted` was set while waiting
    /// (Ctrl-C, or the launcher ending the job for a rank that failed): the caller cleans up
    /// and leaves rather than hang on a rank that will never come.
    fn fence(&self, interrupted: &AtomicBool) -> bool;
    /// Every rank's `bytes`, in rank order, on rank 0; `None` elsewhere.
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>>;
    /// Every rank's `bytes`, in rank order, on every rank (a verdict every rank reaches
    /// alike, in the same words).
    fn gather_all(&self, bytes: &[u8]) -> Vec<Vec<u8>>;
    /// The largest of every rank's `v`, on every rank (stonewalling's agreed count).
    fn max_u64(&self, v: u64) -> u64;
    /// End every rank of the job now, with `code`.
    fn abort(&self, code: i32) -> !;
}

/// One process alone: every collective is trivial.
pub struct Solo(Place, [String; 1]);

impl Solo {
    pub fn new() -> Solo {
        let p = Place::solo();
        let host = p.host.clone();
        Solo(p, [host])
    }
}

/// Rank `rank`'s rank among the ranks on its host, from every rank's host in rank order.
pub fn local_rank(hosts: &[String], rank: usize) -> u32 {
    hosts[..rank].iter().filter(|h| **h == hosts[rank]).count() as u32
}

impl Default for Solo {
    fn default() -> Self {
        Solo::new()
    }
}

impl Cluster for Solo {
    fn place(&self) -> &Place {
        &self.0
    }
    fn hosts(&self) -> &[String] {
        &self.1
    }
    fn fence(&self, _interrupted: &AtomicBool) -> bool {
        true
    }
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        Some(vec![bytes.to_vec()])
    }
    fn gather_all(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        vec![bytes.to_vec()]
    }
    fn max_u64(&self, v: u64) -> u64 {
        v
    }
    fn abort(&self, code: i32) -> ! {
        std::process::exit(code)
    }
}

/// The job's cluster: MPI's ranks where a launcher started this process and the `mpi`
/// feature is built in, else this process alone. A build without MPI started as one of
/// several ranks is refused: each would run the whole job alone, on the same files.
pub fn detect() -> Result<Box<dyn Cluster>> {
    #[cfg(feature = "mpi")]
    if let Some(m) = mpi::Mpi::start() {
        return Ok(Box::new(m));
    }
    match launched_ranks() {
        Some((n, var)) if n > 1 && cfg!(windows) => Err(not_yet_on_windows(n, var)),
        Some((n, var)) if n > 1 && !cfg!(feature = "mpi") => Err(Error::usage(format!(
            "started as one of {n} MPI ranks ({var}={n}) but this iogauge was built without \
             MPI: build it with `cargo build --release --features mpi`, or run it without mpirun"
        ))),
        _ => Ok(Box::new(Solo::new())),
    }
}

/// A Windows build started by a launcher (MS-MPI's mpiexec sets PMI_SIZE and PMI_RANK): each
/// rank would run the whole job alone, on the same files. rsmpi builds against MS-MPI, but
/// iogauge's MPI runs are not built nor tested there yet.
pub fn not_yet_on_windows(n: u32, var: &str) -> Error {
    Error::usage(format!(
        "started as one of {n} MPI ranks ({var}={n}), but MPI runs are not yet on Windows: \
         run iogauge without mpiexec"
    ))
}

/// The variables OpenMPI, MPICH/Hydra and Slurm set in the processes they start, each with
/// the job's number of ranks: how iogauge knows, without a flag, that it is one of them.
pub const LAUNCHER_SIZE_VARS: [&str; 3] =
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"];

/// The number of ranks a launcher says this job has, and the variable that said it.
pub fn launched_ranks() -> Option<(u32, &'static str)> {
    LAUNCHER_SIZE_VARS.iter().find_map(|v| {
        let n = std::env::var(v).ok()?.trim().parse().ok()?;
        Some((n, *v))
    })
}

/// The placeholders a target path may hold, so that each rank gets its own file or folder on
/// a shared file system.
pub const PLACEHOLDERS: [&str; 4] = ["rank", "host", "nranks", "local_rank"];

/// `template` with `{rank}`, `{host}`, `{nranks}` and `{local_rank}` replaced for `place`;
/// `{rank:08}` pads the value with zeros to 8 characters (IOR's file per process names,
/// `testFile.00000003`); `{{` and `}}` are literal braces. A `{word}` that is not a
/// placeholder is refused (a typo would otherwise put every rank on one file); braces around
/// anything else are left alone.
pub fn expand(template: &str, place: &Place) -> Result<String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(t) = tail.strip_prefix("{{").or_else(|| tail.strip_prefix("}}")) {
            out.push_str(&tail[..1]);
            rest = t;
            continue;
        }
        let Some((name, width, len)) = placeholder(tail) else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
            continue;
        };
        let value = match name {
            "rank" => place.rank.to_string(),
            "host" => place.host.clone(),
            "nranks" => place.size.to_string(),
            "local_rank" => place.local_rank.to_string(),
            other => {
                return Err(Error::usage(format!(
                    "'{template}': {{{other}}} is not a placeholder (a path may hold {})",
                    PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
                )))
            }
        };
        out.push_str(&format!("{value:0>width$}"));
        rest = &tail[len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `{word}` or `{word:0N}` at the start of `tail`: the word, the width to pad to (0: none)
/// and the length of the whole; `None` where the braces hold something else.
fn placeholder(tail: &str) -> Option<(&str, usize, usize)> {
    let inner = tail.strip_prefix('{')?;
    let close = inner.find('}')?;
    let (name, pad) = match inner[..close].split_once(':') {
        Some((n, p)) => (n, Some(p)),
        None => (&inner[..close], None),
    };
    let is_word = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let width = match pad {
        None => 0,
        Some(p) => p.strip_prefix('0')?.parse().ok()?,
    };
    is_word.then_some((name, width, close + 2))
}

/// `template` as this process sees it: its rank's place under MPI; alone, rank 0 of 1, so
/// that a path written for mpirun runs alone as its rank 0 would, and a misspelt
/// placeholder is refused whether or not a launcher started the process.
pub fn expand_here(template: &str, place: Option<&Place>) -> Result<String> {
    match place {
        Some(p) => expand(template, p),
        None => expand(template, &Place::solo()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place() -> Place {
        Place {
            rank: 3,
            size: 16,
            host: "node7".into(),
            local_rank: 1,
        }
    }

    #[test]
    fn placeholders_give_each_rank_its_own_path() {
        let p = place();
        assert_eq!(
            expand("/mnt/share/{host}/r{rank}-of-{nranks}.{local_rank}", &p).unwrap(),
            "/mnt/share/node7/r3-of-16.1"
        );
        assert_eq!(expand("/plain/path", &p).unwrap(), "/plain/path");
        assert_eq!(expand("/f.{rank:08}", &p).unwrap(), "/f.00000003");
        assert_eq!(expand("/a/{x:y}", &p).unwrap(), "/a/{x:y}");
        assert_eq!(expand("/a/{{rank}}", &p).unwrap(), "/a/{rank}");
        // Braces that hold no word are the user's own.
        assert_eq!(expand("/a/{1,2}/{}/x}", &p).unwrap(), "/a/{1,2}/{}/x}");
    }

    #[test]
    fn a_misspelt_placeholder_is_refused_by_name() {
        let e = expand("/mnt/{rnak}.dat", &place()).unwrap_err().to_string();
        assert!(
            e.contains("'/mnt/{rnak}.dat': {rnak} is not a placeholder"),
            "{e}"
        );
        assert!(e.contains("{rank}, {host}, {nranks}, {local_rank}"), "{e}");
    }

    #[test]
    fn alone_a_path_is_rank_0s_and_a_typo_is_still_refused() {
        assert_eq!(expand_here("/m/f.{rank}", None).unwrap(), "/m/f.0");
        assert!(expand_here("/m/{rnak}", None).is_err());
    }

    #[test]
    fn solo_collectives_are_the_identity() {
        let s = Solo::new();
        assert!(s.place().is_root() && s.place().size == 1);
        assert!(s.fence(&AtomicBool::new(true)));
        assert_eq!(s.gather(b"x"), Some(vec![b"x".to_vec()]));
        assert_eq!(s.max_u64(7), 7);
    }
}
