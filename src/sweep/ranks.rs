//! A sweep run by every rank of an MPI job (iozone's cluster mode, `-+m`), made one on rank 0:
//! each test of each cell started together on every rank (a fence), so a cell's time is the
//! slowest rank's and its bytes every rank's, as IOR counts a job's bandwidth.

use crate::cluster::spread::{self, Worst};
use crate::cluster::{Cluster, Place};
use crate::result::sweep::{Cell, Status, SweepResult};
use crate::units::format_size_human;
use std::path::Path;

/// The ranks on this host given the same folder as this one (1 alone): their files share
/// its free space.
pub fn sharing(team: Option<&dyn Cluster>, dir: &Path) -> u64 {
    let Some(c) = team else { return 1 };
    let mine = format!("{}\n{}", c.place().host, dir.display());
    let all = c.gather_all(mine.as_bytes());
    all.iter()
        .filter(|b| b.as_slice() == mine.as_bytes())
        .count() as u64
}

/// Every rank's result (rank order, rank 0 first) as one.
pub fn combine(parts: Vec<(Place, SweepResult)>) -> SweepResult {
    let places: Vec<Place> = parts.iter().map(|(p, _)| p.clone()).collect();
    let results: Vec<SweepResult> = parts.into_iter().map(|(_, r)| r).collect();
    let mut out = results[0].clone();
    // The ranks stop after the same cell; a rank's shorter list is one cut off by Ctrl-C.
    let cells = results.iter().map(|r| r.cells.len()).min().unwrap_or(0);
    out.cells.truncate(cells);
    let mut worst = Worst::default();
    for (i, cell) in out.cells.iter_mut().enumerate() {
        let all: Vec<&Cell> = results.iter().map(|r| &r.cells[i]).collect();
        let pct = merge_cell(cell, &all, &places);
        worst.see(pct, || {
            format!(
                "{} of a {} file in {} records",
                cell.test.name(),
                format_size_human(cell.file_size),
                format_size_human(cell.record_size)
            )
        });
    }
    // The times of the rank that took longest, each part of its own whole.
    if let Some(slowest) = results.iter().max_by_key(|r| r.wall_ns) {
        out.wall_ns = slowest.wall_ns;
        out.io_ns = slowest.io_ns;
        out.cleanup_ns = slowest.cleanup_ns;
        out.rank_wait_ns = slowest.rank_wait_ns;
    }
    out.partial = results.iter().any(|r| r.partial);
    for (p, r) in places.iter().zip(&results).skip(1) {
        for n in r.notes.iter().filter(|n| !results[0].notes.contains(n)) {
            out.notes.push(spread::on_rank(p, n));
        }
    }
    let how = "each test of each cell started together on every rank; a cell's time is the \
               slowest rank's and its bytes all ranks' (IOR's aggregate bandwidth)";
    let (ranks, notes) = spread::summary(&places, worst, how);
    out.notes.extend(notes);
    out.ranks = Some(ranks);
    out.knees.clear();
    out.find_knees();
    out
}

/// `cell` made from every rank's `cells`: bytes summed, the slowest rank's time, each
/// rank's threads' own times (a rank of one thread: its cell's time), the first failure
/// with the rank that met it. Returns the spread of the ranks' times, in percent.
fn merge_cell(cell: &mut Cell, cells: &[&Cell], places: &[Place]) -> f64 {
    if let Some(r) = cells.iter().position(|c| c.status != Status::Ok) {
        cell.status = cells[r].status;
        cell.reason = cells[r]
            .reason
            .as_deref()
            .map(|why| spread::on_rank(&places[r], why));
        cell.bytes = 0;
        cell.elapsed_ns = 0;
        cell.thread_ns.clear();
        cell.cpu_ns = 0;
        return 0.0;
    }
    cell.bytes = cells.iter().map(|c| c.bytes).sum();
    cell.cpu_ns = cells.iter().map(|c| c.cpu_ns).sum();
    let (slowest, pct) = spread::slowest(cells.iter().map(|c| c.elapsed_ns));
    cell.elapsed_ns = slowest;
    cell.thread_ns = cells
        .iter()
        .flat_map(|c| match c.thread_ns.is_empty() {
            true => vec![c.elapsed_ns],
            false => c.thread_ns.clone(),
        })
        .collect();
    pct
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::sweep::Test;

    fn cell(status: Status, bytes: u64, ns: u64, threads: &[u64]) -> Cell {
        Cell {
            test: Test::Read,
            file_size: 1 << 20,
            record_size: 4096,
            status,
            reason: (status != Status::Ok).then(|| "no space".to_string()),
            bytes,
            elapsed_ns: ns,
            thread_ns: threads.to_vec(),
            cpu_ns: 0,
        }
    }

    fn place(rank: u32) -> Place {
        Place {
            rank,
            size: 2,
            host: format!("h{rank}"),
            local_rank: 0,
        }
    }

    #[test]
    fn a_cell_is_every_ranks_bytes_over_the_slowest_ranks_time() {
        let (a, b) = (
            cell(Status::Ok, 100, 200, &[]),
            cell(Status::Ok, 100, 300, &[]),
        );
        let mut out = a.clone();
        let pct = merge_cell(&mut out, &[&a, &b], &[place(0), place(1)]);
        assert_eq!((out.bytes, out.elapsed_ns), (200, 300));
        assert_eq!(out.thread_ns, vec![200, 300]);
        assert!((pct - 50.0).abs() < 1e-9, "{pct}");
        // Ranks of several threads keep every thread's own time.
        let (a, b) = (
            cell(Status::Ok, 2, 9, &[8, 9]),
            cell(Status::Ok, 2, 7, &[7, 6]),
        );
        let mut out = a.clone();
        merge_cell(&mut out, &[&a, &b], &[place(0), place(1)]);
        assert_eq!(out.thread_ns, vec![8, 9, 7, 6]);
    }

    #[test]
    fn a_failure_on_one_rank_fails_the_cell_naming_it() {
        let (a, b) = (
            cell(Status::Ok, 100, 200, &[]),
            cell(Status::Failed, 0, 0, &[]),
        );
        let mut out = a.clone();
        merge_cell(&mut out, &[&a, &b], &[place(0), place(1)]);
        assert_eq!(out.status, Status::Failed);
        assert_eq!(out.reason.as_deref(), Some("rank 1 on h1: no space"));
        assert_eq!(out.bytes_per_sec(), None);
    }
}
