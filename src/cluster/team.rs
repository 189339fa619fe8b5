//! One job run by every rank of an MPI job, through the runner's stages: each rank plans
//! and lays out its own targets (paths from the job's templates), the ranks meet at a fence
//! once every rank is set up, so that the timed phase starts together; each rank removes its
//! own files as soon as its I/O ends; the results travel to rank 0, which alone aggregates,
//! reports and saves. A rank that fails says so with its rank and host and ends the whole
//! job at once (MPI_Abort): no rank waits for one that will never come.

use super::aggregate::aggregate;
use super::{expand, Cluster, Place};
use crate::error::{exit, Error, Result};
use crate::os::owned::Cleanup;
use crate::result::{RunResult, StopReason};
use crate::runner::{self, target, Hooked, Keep, Observer};
use crate::spec::{Flag, JobSpec, RankShift};
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
    let mut cleanup = Cleanup::new(job.keep);
    let ran = run_here(
        cluster,
        job,
        command_line,
        interrupted,
        observer,
        &mut cleanup,
    )?;
    // A shared file goes once every rank's I/O has ended; if one rank was cut short, at once.
    if job.ranks.shared_file {
        cluster.fence(interrupted);
    }
    // The files go first: after Ctrl-C the launcher kills every rank a second later.
    drop(cleanup);
    collect(cluster, job, ran, interrupted)
}

/// [`run`] with the files it makes left in `cleanup`, which the caller drops (after a fence,
/// for a shared file) once a later job has used them: IOR's read phase reads what its write
/// phase wrote.
pub fn run_kept(
    cluster: &dyn Cluster,
    job: &JobSpec,
    command_line: Vec<String>,
    interrupted: &AtomicBool,
    observer: &mut dyn Observer,
    cleanup: &mut Cleanup,
) -> Result<Option<RunResult>> {
    let ran = run_here(cluster, job, command_line, interrupted, observer, cleanup)?;
    collect(cluster, job, ran, interrupted)
}

/// This rank's run and which targets rank 0 laid out for it.
type Ran = (Result<RunResult>, Vec<bool>);

/// This rank's part: its targets localized (a shared file laid out and sliced), the run
/// fenced with the other ranks'.
fn run_here(
    cluster: &dyn Cluster,
    job: &JobSpec,
    command_line: Vec<String>,
    interrupted: &AtomicBool,
    observer: &mut dyn Observer,
    cleanup: &mut Cleanup,
) -> Result<Ran> {
    let place = cluster.place().clone();
    let mut local = localize(job, &place, cluster.hosts())?;
    let mut made = Vec::new();
    if job.ranks.shared_file {
        made = share(cluster, &mut local, cleanup, interrupted)?;
    } else {
        let paths: Vec<&std::path::Path> = local.targets.iter().map(|t| t.path.as_path()).collect();
        refuse_shared_paths(cluster, &paths)?;
    }
    // Every rank's workers are set up and its files laid out before any rank starts its
    // clock.
    let mut ready = || match cluster.fence(interrupted) {
        true => Ok(()),
        false => Err("interrupted while waiting for the other ranks to be ready".into()),
    };
    // Every rank's threads have stopped at the deadline (the fence), and all go on to the
    // most any one thread of any rank had done.
    let mut stonewall = |mine: u64| cluster.fence(interrupted).then(|| cluster.max_u64(mine));
    let mut fenced = Hooked {
        inner: observer,
        ready: &mut ready,
        stonewall: &mut stonewall,
        halted: &|| false,
    };
    let keep = Keep {
        per_thread: false,
        every_histogram: true,
        per_thread_series: false,
    };
    let r = runner::run_full(
        &local,
        command_line,
        interrupted,
        cleanup,
        &mut fenced,
        keep,
    );
    Ok((r, made))
}

/// The ranks' results made one on rank 0 (`None` on the others); a rank that failed ends
/// the job, naming itself.
fn collect(
    cluster: &dyn Cluster,
    job: &JobSpec,
    (r, made): Ran,
    interrupted: &AtomicBool,
) -> Result<Option<RunResult>> {
    let mut r = match r {
        Ok(r) if r.stop_reason != StopReason::IoError => r,
        Ok(r) => fail(
            cluster,
            r.stop_message.as_deref().unwrap_or("I/O error"),
            exit::FAILURE,
        ),
        Err(e) if interrupted.load(Ordering::Relaxed) => return Err(e),
        Err(e) => fail(cluster, &e.to_string(), e.exit_code()),
    };
    // Rank 0 laid out the shared file before the run, which then found it there.
    for (t, &m) in r.targets.iter_mut().zip(&made) {
        t.created |= m;
    }
    if let Some(n) = shift_note(job, cluster.hosts()) {
        r.notes.push(n);
    }
    let Some(parts) = gather_results(cluster, r) else {
        return Ok(None);
    };
    // Rank 0 alone from here: the others have left.
    let mut total = aggregate(parts).unwrap_or_else(|e| fail(cluster, &e, exit::FAILURE));
    // Saved with the templates, so that `iogauge check` runs the same job again.
    total.job = job.clone();
    Ok(Some(total))
}

/// Every rank's `value` with its place, in rank order, on rank 0; `None` on the others. A
/// result that cannot be sent or read back is one rank's trouble alone: it ends the job
/// (naming the rank) rather than leave the others in the gather.
pub fn gather_results<T>(cluster: &dyn Cluster, value: T) -> Option<Vec<(Place, T)>>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let payload = serde_json::to_vec(&(cluster.place(), value)).unwrap_or_else(|e| {
        fail(
            cluster,
            &format!("cannot send this rank's result: {e}"),
            exit::FAILURE,
        )
    });
    let all = cluster.gather(&payload)?;
    let parts = all
        .iter()
        .map(|b| serde_json::from_slice::<(Place, T)>(b))
        .collect::<std::result::Result<Vec<_>, _>>()
        .unwrap_or_else(|e| {
            let msg = format!("a rank's result did not arrive whole: {e}");
            fail(cluster, &msg, exit::FAILURE)
        });
    Some(parts)
}

/// Go on only together: `Ok` on every rank when `r` is `Ok` on every rank. Otherwise no rank
/// goes on (one that did would wait in a collective the failed ranks never reach): rank 0
/// says each rank's error once (an error every rank met, plainly; others with the ranks and
/// hosts that met them), the others wait until it has, lest the launcher end rank 0 for
/// their exit before it speaks, and every rank gets the exit status (the largest of the
/// ranks'). Not for after Ctrl-C: the ranks may then stand at different collectives.
pub fn agree<T>(cluster: &dyn Cluster, r: Result<T>, interrupted: &AtomicBool) -> Result<T, u8> {
    let code = r
        .as_ref()
        .err()
        .map_or(0, |e| e.exit_code().max(exit::FAILURE));
    let worst = cluster.max_u64(u64::from(code));
    let r = match r {
        Ok(v) if worst == 0 => return Ok(v),
        r => r,
    };
    let mine = r.err().map(|e| e.to_string()).unwrap_or_default();
    if let Some(all) = cluster.gather(mine.as_bytes()) {
        let all: Vec<String> = all
            .iter()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect();
        for line in said(&all, cluster.hosts()) {
            eprintln!("iogauge: error: {line}");
        }
    }
    cluster.fence(interrupted);
    Err(u8::try_from(worst).unwrap_or(exit::FAILURE))
}

/// Each distinct error of `errors` (one per rank, empty where that rank had none) once:
/// alone where every rank met it, else after the ranks (and hosts) that met it.
fn said(errors: &[String], hosts: &[String]) -> Vec<String> {
    let mut distinct: Vec<(&str, Vec<usize>)> = Vec::new();
    for (rank, e) in errors.iter().enumerate().filter(|(_, e)| !e.is_empty()) {
        match distinct.iter_mut().find(|(m, _)| *m == e.as_str()) {
            Some((_, ranks)) => ranks.push(rank),
            None => distinct.push((e, vec![rank])),
        }
    }
    distinct
        .into_iter()
        .map(|(msg, ranks)| match ranks.len() == errors.len() {
            true => msg.to_string(),
            false => format!("{}: {msg}", who(&ranks, hosts)),
        })
        .collect()
}

/// "rank 2 of 4 on node-b", "ranks 1, 3 of 4 on node-a", "ranks 1 (node-a), 5 (node-b) of 8".
fn who(ranks: &[usize], hosts: &[String]) -> String {
    let host = |r: usize| hosts.get(r).map_or("?", String::as_str);
    let one_host = ranks.iter().all(|&r| host(r) == host(ranks[0]));
    let list: Vec<String> = ranks
        .iter()
        .map(|&r| match one_host {
            true => r.to_string(),
            false => format!("{r} ({})", host(r)),
        })
        .collect();
    let noun = if ranks.len() == 1 { "rank" } else { "ranks" };
    let on = if one_host {
        format!(" on {}", host(ranks[0]))
    } else {
        String::new()
    };
    format!("{noun} {} of {}{on}", list.join(", "), hosts.len())
}

/// Whether every rank goes on after a unit of work (a cell, a step) that this rank `failed`
/// or not: false on every rank where any failed, or after Ctrl-C. Alone (no `team`): true
/// unless it failed.
pub fn go_on(team: Option<&dyn Cluster>, failed: bool, interrupted: &AtomicBool) -> bool {
    match team {
        None => !failed,
        Some(c) => c.fence(interrupted) && c.max_u64(u64::from(failed)) == 0,
    }
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
/// `{local_rank}` filled in (those of the rank whose data it works on, with a rank shift),
/// and a seed of its own so that ranks sharing a device do not walk the same random offsets.
/// `hosts`: every rank's host, in rank order.
pub fn localize(job: &JobSpec, place: &Place, hosts: &[String]) -> Result<JobSpec> {
    let mut local = job.clone();
    let data = data_place(job, place, hosts);
    for t in &mut local.targets {
        let text = t.path.to_string_lossy().into_owned();
        t.path = expand(&text, &data)?.into();
    }
    local.seed = job
        .seed
        .wrapping_add(u64::from(place.rank).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    Ok(local)
}

/// The rank whose files (or slice of a shared file) this rank works on: itself, or with a
/// rank shift (IOR's -C) the one `shift` further on, so that it reads what another client
/// wrote and its own page cache cannot serve it.
fn data_place(job: &JobSpec, place: &Place, hosts: &[String]) -> Place {
    let n = place.size.max(1);
    let shift = match job.ranks.shift {
        None => 0,
        Some(RankShift::By(k)) => k % n,
        Some(RankShift::OtherHost) => other_host_shift(hosts),
    };
    if shift == 0 {
        return place.clone();
    }
    // A cluster names a host for each of its `size` ranks.
    let rank = ((place.rank + shift) % n) as usize;
    Place {
        rank: rank as u32,
        size: place.size,
        host: hosts[rank].clone(),
        local_rank: super::local_rank(hosts, rank),
    }
}

/// The least shift that moves every rank onto a rank of another host; 1 where there is none
/// (every rank on one host: its page cache is shared anyway, which the report's note says).
pub fn other_host_shift(hosts: &[String]) -> u32 {
    let n = hosts.len();
    (1..n)
        .find(|&s| (0..n).all(|r| hosts[(r + s) % n] != hosts[r]))
        .unwrap_or(1) as u32
}

/// Said where a rank shift cannot keep a client's page cache out of the reads.
fn shift_note(job: &JobSpec, hosts: &[String]) -> Option<String> {
    job.ranks.shift?;
    let one_host = hosts.iter().all(|h| *h == hosts[0]);
    one_host.then(|| {
        format!(
            "{}: every rank is on {}, so each reads another rank's data through the same page \
             cache; only ranks on other hosts keep the cache out",
            Flag::RankShift.native(),
            hosts[0]
        )
    })
}

/// IOR's single shared file: rank 0 lays out the targets that are missing; every rank then
/// works on its own slice of the working set (the slice of the rank whose data it works
/// on). Rank 0 alone removes what it made, after every rank's I/O (see [`run`]); the others
/// may write to it only because it is the very file rank 0 made a moment ago (same inode).
fn share(
    cluster: &dyn Cluster,
    local: &mut JobSpec,
    cleanup: &mut Cleanup,
    interrupted: &AtomicBool,
) -> Result<Vec<bool>> {
    let place = cluster.place().clone();
    let mut made = vec![0u64; local.targets.len()];
    if place.is_root() {
        for (t, ino) in local.targets.iter().zip(&mut made) {
            let (Some(size), false) = (t.create_size, t.path.exists()) else {
                continue;
            };
            if let Err(e) = target::lay_out(&t.path, size, local.seed, None, cleanup, interrupted) {
                fail(cluster, &e.to_string(), e.exit_code());
            }
            *ino = inode(&t.path);
        }
    }
    if !cluster.fence(interrupted) {
        return Err(Error::runtime(
            "interrupted while rank 0 laid out the shared file",
        ));
    }
    let mut all_made = !made.is_empty();
    for (t, mine) in local.targets.iter().zip(&made) {
        let theirs = cluster.max_u64(*mine);
        all_made &= theirs != 0 && inode(&t.path) == theirs;
    }
    // Made by this job for this job: ranks other than 0 did not make it, but it is theirs.
    if all_made {
        local.allow_overwrite = true;
    }
    let data = data_place(local, &place, cluster.hosts());
    slice(local, data.rank, place.size)?;
    Ok(made.iter().map(|&i| i != 0).collect())
}

fn inode(path: &std::path::Path) -> u64 {
    crate::os::file::ids_at(path, true).map_or(0, |(_, ino)| ino)
}

/// Rank `rank` of `n`'s slice of the working set: the `rank`-th of `n` equal parts, whole
/// blocks each, between the base offset and the end (the maximum offset, else the smallest
/// target).
fn slice(job: &mut JobSpec, rank: u32, n: u32) -> Result<()> {
    let end = match job.shape.max_offset {
        Some(m) => m,
        None => job
            .targets
            .iter()
            .map(|t| std::fs::metadata(&t.path).map_or(0, |m| m.len()))
            .min()
            .unwrap_or(0),
    };
    let base = job.shape.base_offset;
    if let Some(piece) = job.ranks.interleave {
        return deal(job, rank, n, end, piece);
    }
    let block = job.shape.block_size.max(1);
    let span = end.saturating_sub(base) / u64::from(n) / block * block;
    if span == 0 {
        return Err(Error::usage(format!(
            "{}: {} ranks cannot each have a whole block of {} from a working set of {} bytes \
             (a block device needs {})",
            Flag::SharedFile.native(),
            n,
            block,
            end.saturating_sub(base),
            job.name(Flag::MaxOffset)
        )));
    }
    job.shape.base_offset = base + u64::from(rank) * span;
    job.shape.max_offset = Some(job.shape.base_offset + span);
    Ok(())
}

/// Rank `rank` of `n`'s pieces of an interleaved shared file (IOR's segments): the pieces
/// `rank`, `rank + n`, ... of `piece` bytes each from the base offset, walked as strided zones
/// (one piece done, the next `(n - 1)` pieces skipped).
fn deal(job: &mut JobSpec, rank: u32, n: u32, end: u64, piece: u64) -> Result<()> {
    let base = job.shape.base_offset;
    let n = u64::from(n);
    if piece == 0 || end.saturating_sub(base) < piece * n {
        return Err(Error::usage(format!(
            "{}: {} ranks cannot each have a piece of {} from a working set of {} bytes",
            Flag::SharedFile.native(),
            n,
            piece,
            end.saturating_sub(base)
        )));
    }
    job.shape.base_offset = base + u64::from(rank) * piece;
    job.shape.zones = Some(crate::spec::StridedZones {
        size: piece,
        range: piece,
        skip: (n - 1) * piece,
    });
    Ok(())
}

/// Two ranks on one file or folder would each lay it out, overwrite the other's data and
/// remove it under the other: refused before anything is made, naming the path and ranks.
/// A device is shared on purpose (every client on one LUN) and allowed.
/// `paths`: this rank's, each once.
pub fn refuse_shared_paths(cluster: &dyn Cluster, paths: &[&std::path::Path]) -> Result<()> {
    let mine: Vec<String> = paths
        .iter()
        .filter(|p| !is_device(p))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    // Every rank finds the same pair, so that the error is said once, in the same words.
    match first_shared(&cluster.gather_all(mine.join("\n").as_bytes())) {
        Some(found) => Err(Error::usage(found)),
        None => Ok(()),
    }
}

fn is_device(path: &std::path::Path) -> bool {
    crate::os::file::is_device(path)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_every_rank_met_is_said_once_and_others_with_their_ranks() {
        let h = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let hosts = h(&["a", "a", "b", "b"]);
        assert_eq!(said(&h(&["x", "x", "x", "x"]), &hosts), ["x"]);
        assert_eq!(
            said(&h(&["", "no file", "", "no file"]), &hosts),
            ["ranks 1 (a), 3 (b) of 4: no file"]
        );
        assert_eq!(
            said(&h(&["e1", "e1", "e2", ""]), &hosts),
            ["ranks 0, 1 of 4 on a: e1", "rank 2 of 4 on b: e2"]
        );
        assert!(said(&h(&["", "", "", ""]), &hosts).is_empty());
    }

    #[test]
    fn the_default_rank_shift_lands_every_rank_on_another_host() {
        let h = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // By slot (node a: 0-3, node b: 4-7): four on.
        assert_eq!(
            other_host_shift(&h(&["a", "a", "a", "a", "b", "b", "b", "b"])),
            4
        );
        // Round robin (a, b, a, b): one on, not the ranks per host.
        assert_eq!(other_host_shift(&h(&["a", "b", "a", "b"])), 1);
        assert_eq!(other_host_shift(&h(&["a", "a", "b"])), 1);
        // One host: no shift helps; the next rank, and the report says so.
        assert_eq!(other_host_shift(&h(&["a", "a", "a"])), 1);
    }

    #[test]
    fn a_shared_working_set_splits_into_whole_blocks_per_rank() {
        let argv: Vec<String> = "iogauge run -b 4k -B 4k --max-offset 1M f"
            .split(' ')
            .map(String::from)
            .collect();
        let mut job = crate::spec::native::job_from_argv(&argv).expect("a job");
        slice(&mut job, 2, 3).unwrap();
        // (1 MiB - 4 KiB) / 3 = 340 KiB: 85 whole blocks of 4 KiB each.
        assert_eq!(job.shape.base_offset, 4096 + 2 * 85 * 4096);
        assert_eq!(job.shape.max_offset, Some(4096 + 3 * 85 * 4096));
        let e = slice(&mut job, 0, 1000).unwrap_err().to_string();
        assert!(
            e.starts_with("--shared-file: 1000 ranks cannot each have a whole block"),
            "{e}"
        );
    }

    /// IOR's N-1 strided layout: segment i of rank r of 4 at (i*4 + r) × blockSize, each
    /// block in transfers of -t, and nothing else.
    #[test]
    fn iors_segments_are_dealt_to_the_ranks_in_turn() {
        use crate::runner::offsets::{OffsetGen, Walk};
        use crate::spec::ior::{parse, Phase};
        let (b, t, s, n) = (64 << 10, 16 << 10, 3u64, 4u32);
        let line = ["-b", "64k", "-t", "16k", "-s", "3"].map(String::from);
        let ior = parse(&line).unwrap();
        for r in 0..n {
            let mut job = ior.job(Phase::Write, n, false).unwrap();
            slice(&mut job, r, n).unwrap();
            let walk = Walk {
                zones: job.shape.zones,
                ..Walk::default()
            };
            let end = job.shape.max_offset.unwrap();
            let shared = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
            let base = job.shape.base_offset;
            let mut g = OffsetGen::new(&job.shape.pattern, base, end, t, &shared, walk);
            let mut rng = crate::rng::Rng::new(0, &[]);
            let got: Vec<u64> = (0..s * b / t).map(|_| g.next(&mut rng, t)).collect();
            let want: Vec<u64> = (0..s)
                .flat_map(|i| {
                    (0..b / t).map(move |k| (i * u64::from(n) + u64::from(r)) * b + k * t)
                })
                .collect();
            assert_eq!(got, want, "rank {r}");
        }
    }

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
