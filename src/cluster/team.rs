//! One job run by every rank of an MPI job, through the runner's stages: each rank plans
//! and lays out its own targets (paths from the job's templates), the ranks meet at a fence
//! once every rank is set up, so that the timed phase starts together; each rank removes its
//! own files as soon as its I/O ends; the results travel to rank 0, which alone aggregates,
//! reports and saves. A rank that fails says so with its rank and host and ends the whole
//! job at once (MPI_Abort): no rank waits for one that will never come.

use super::aggregate::aggregate;
use super::{expand, Cluster, Place};
use crate::error::{exit, Error, Result};
use crate::result::{RunResult, StopReason};
use crate::runner::{self, target::Cleanup, Keep, Live, Observer};
use crate::spec::JobSpec;
use std::sync::atomic::{AtomicBool, Ordering};

/// Run `job` on every rank of `cluster`: the aggregate on rank 0, `None` on the others.
/// An error returned here is the same on every rank (a template that does not expand, two
/// ranks on one file) or an interruption, so rank 0 alone need say it; an error of one rank
/// alone never returns.
pub fn run(
    cluster: &dyn Cluster,
    job: &JobSpec,
    command_line: Vec<String>,
    interrupted: &AtomicBool,
    observer: &mut dyn Observer,
) -> Result<Option<RunResult>> {
    let place = cluster.place().clone();
    let local = localize(job, &place)?;
    refuse_shared_paths(cluster, &local)?;
    let mut cleanup = Cleanup::new(local.keep);
    let mut fenced = Fenced {
        inner: observer,
        cluster,
        interrupted,
    };
    let keep = Keep {
        per_thread: false,
        every_histogram: true,
    };
    let r = runner::run_full(
        &local,
        command_line,
        interrupted,
        &mut cleanup,
        &mut fenced,
        keep,
    );
    // The files go first: after Ctrl-C the launcher kills every rank a second later.
    drop(cleanup);
    let r = match r {
        Ok(r) if r.stop_reason != StopReason::IoError => r,
        Ok(r) => fail(
            cluster,
            r.stop_message.as_deref().unwrap_or("I/O error"),
            exit::FAILURE,
        ),
        Err(e) if interrupted.load(Ordering::Relaxed) => return Err(e),
        Err(e) => fail(cluster, &e.to_string(), e.exit_code()),
    };
    let payload = serde_json::to_vec(&(place, r))
        .map_err(|e| Error::runtime(format!("cannot send this rank's result: {e}")))?;
    let Some(all) = cluster.gather(&payload) else {
        return Ok(None);
    };
    let parts = all
        .iter()
        .map(|b| serde_json::from_slice::<(Place, RunResult)>(b))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| Error::runtime(format!("a rank's result did not arrive whole: {e}")))?;
    let mut total = aggregate(parts).map_err(Error::runtime)?;
    // Saved with the templates, so that `iogauge check` runs the same job again.
    total.job = job.clone();
    Ok(Some(total))
}

/// Say what failed where, and end every rank of the job with `code`.
pub fn fail(cluster: &dyn Cluster, msg: &str, code: u8) -> ! {
    let p = cluster.place();
    eprintln!(
        "iogauge: error: rank {} of {} on {}: {msg}",
        p.rank, p.size, p.host
    );
    cluster.abort(i32::from(code))
}

/// The job as this rank runs it: target paths with `{rank}`, `{host}`, `{nranks}` and
/// `{local_rank}` filled in, and a seed of its own so that ranks sharing a device do not
/// walk the same random offsets.
pub fn localize(job: &JobSpec, place: &Place) -> Result<JobSpec> {
    let mut local = job.clone();
    for t in &mut local.targets {
        let text = t.path.to_string_lossy().into_owned();
        t.path = expand(&text, place)?.into();
    }
    local.seed = job
        .seed
        .wrapping_add(u64::from(place.rank).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    Ok(local)
}

/// Two ranks on one file or folder would each lay it out, overwrite the other's data and
/// remove it under the other: refused before anything is made, naming the path and ranks.
/// A device is shared on purpose (every client on one LUN) and allowed.
fn refuse_shared_paths(cluster: &dyn Cluster, job: &JobSpec) -> Result<()> {
    let mine: Vec<String> = job
        .targets
        .iter()
        .filter(|t| !is_device(&t.path))
        .map(|t| t.path.to_string_lossy().into_owned())
        .collect();
    let found = cluster
        .gather(mine.join("\n").as_bytes())
        .and_then(|all| first_shared(&all));
    if cluster.max_u64(u64::from(found.is_some())) > 0 {
        let said = "two ranks were given the same target (rank 0 says which)";
        return Err(Error::usage(found.unwrap_or_else(|| said.into())));
    }
    Ok(())
}

fn is_device(path: &std::path::Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path)
        .is_ok_and(|m| m.file_type().is_block_device() || m.file_type().is_char_device())
}

/// The first path two ranks share, said as an error; `lists` holds each rank's paths, one a
/// line, in rank order.
fn first_shared(lists: &[Vec<u8>]) -> Option<String> {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (rank, list) in lists.iter().enumerate() {
        let text = std::str::from_utf8(list).unwrap_or("");
        for path in text.lines().filter(|l| !l.is_empty()) {
            if let Some((_, other)) = seen.iter().find(|(p, _)| *p == path) {
                return Some(format!(
                    "ranks {other} and {rank} were both given '{path}': put {{rank}} in the \
                     path so that each rank has its own (as in /mnt/share/file.{{rank}})"
                ));
            }
            seen.push((path, rank));
        }
    }
    None
}

/// The runner's observer, with the start fence in its `ready` step: every rank's workers
/// are set up and its files laid out before any rank starts its clock.
struct Fenced<'a> {
    inner: &'a mut dyn Observer,
    cluster: &'a dyn Cluster,
    interrupted: &'a AtomicBool,
}

impl Observer for Fenced<'_> {
    fn begin(&mut self, label: &str, index: usize, count: usize) {
        self.inner.begin(label, index, count)
    }
    fn update(&mut self, live: &Live) {
        self.inner.update(live)
    }
    fn ready(&mut self) -> std::result::Result<(), String> {
        self.inner.ready()?;
        if self.cluster.fence(self.interrupted) {
            Ok(())
        } else {
            Err("interrupted while waiting for the other ranks to be ready".into())
        }
    }
    fn end(&mut self) {
        self.inner.end()
    }
    fn wants_ios(&self) -> bool {
        self.inner.wants_ios()
    }
    fn ios(&mut self, worker: usize, records: &[runner::worker::IoRecord]) {
        self.inner.ios(worker, records)
    }
    /// Every rank's threads have stopped at the deadline (the fence), and all go on to the
    /// most any one thread of any rank had done.
    fn stonewall(&mut self, most: u64) -> Option<u64> {
        let mine = self.inner.stonewall(most)?;
        self.cluster
            .fence(self.interrupted)
            .then(|| self.cluster.max_u64(mine))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_two_ranks_share_is_named_with_both_ranks() {
        let lists = vec![
            b"/mnt/a.0\n/mnt/common".to_vec(),
            b"/mnt/a.1".to_vec(),
            b"/mnt/common".to_vec(),
        ];
        let e = first_shared(&lists).unwrap();
        assert!(
            e.starts_with("ranks 0 and 2 were both given '/mnt/common'"),
            "{e}"
        );
        assert_eq!(first_shared(&lists[..2]), None);
    }
}
