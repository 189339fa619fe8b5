//! The suite's results of every rank of an MPI job made one, on rank 0, as mdtest counts:
//! each measurement started together on every rank (a fence after its setup and cache
//! drop) and ended once the last rank's had (a fence after), so a repetition's time is the
//! slowest rank's and its operations are every rank's.

use crate::cluster::spread::{self, Worst};
use crate::cluster::Place;
use crate::result::fs::{Cell, FsResult, Status};

/// Every rank's result (rank order, rank 0 first) as one.
pub fn combine(parts: Vec<(Place, FsResult)>) -> FsResult {
    let places: Vec<Place> = parts.iter().map(|(p, _)| p.clone()).collect();
    let results: Vec<FsResult> = parts.into_iter().map(|(_, r)| r).collect();
    let mut out = results[0].clone();
    let mut worst = Worst::default();
    for (ti, test) in out.tests.iter_mut().enumerate() {
        for (fi, cell) in test.cells.iter_mut().enumerate() {
            let cells: Vec<&Cell> = results.iter().map(|r| &r.tests[ti].cells[fi]).collect();
            let pct = merge_cell(cell, &cells, &places);
            worst.see(pct, || {
                format!("{} on {}", test.name, out.filesystems[fi].label)
            });
        }
    }
    out.partial = results.iter().any(|r| r.partial);
    let how = "each measurement started together on every rank, after its setup and cache \
               drop, and a repetition's time is the slowest rank's and its operations all \
               ranks' (mdtest's rate)";
    let (ranks, notes) = spread::summary(&places, worst, how);
    out.notes.extend(notes);
    out.ranks = Some(ranks);
    out.summarize();
    out
}

/// `cell` made from every rank's `cells`: operations summed, each repetition the slowest
/// rank's time (those every rank finished), the worst status with the rank that had it.
/// Returns the largest spread of one repetition, in percent of the fastest rank's time.
fn merge_cell(cell: &mut Cell, cells: &[&Cell], places: &[Place]) -> f64 {
    cell.ops = cells.iter().map(|c| c.ops).sum();
    let reps = cells.iter().map(|c| c.elapsed_ns.len()).min().unwrap_or(0);
    let mut widest = 0.0f64;
    cell.elapsed_ns = (0..reps)
        .map(|k| {
            let (slowest, pct) = spread::slowest(cells.iter().map(|c| c.elapsed_ns[k]));
            widest = widest.max(pct);
            slowest
        })
        .collect();
    // A failure on any rank fails the cell; then a rank that could not do it (one client
    // refused O_DIRECT); then a repetition that some rank did not run. Never a cell said to
    // be whole with fewer repetitions than every rank ran.
    let rank_of = |s: Status| cells.iter().position(|c| c.status == s);
    let named = |r: usize, default: &str| {
        let why = cells[r].reason.as_deref().unwrap_or(default);
        Some(spread::on_rank(&places[r], why))
    };
    let every_rank_alike = cells
        .iter()
        .all(|c| c.status == cells[0].status && c.reason == cells[0].reason);
    if let Some(r) = rank_of(Status::Failed) {
        cell.status = Status::Failed;
        cell.reason = named(r, "failed");
    } else if let Some(r) = rank_of(Status::NotSupported) {
        cell.status = Status::NotSupported;
        cell.reason = match every_rank_alike {
            true => cells[r].reason.clone(),
            false => named(r, "not supported"),
        };
    } else if let Some(r) = rank_of(Status::NotRun) {
        cell.status = Status::NotRun;
        cell.reason = cells[r].reason.clone();
    }
    widest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(status: Status, times: &[u64]) -> Cell {
        Cell {
            status,
            reason: (status == Status::Failed).then(|| "no space".to_string()),
            ops: 100,
            elapsed_ns: times.to_vec(),
            summary: None,
        }
    }

    fn place(rank: u32) -> Place {
        Place {
            rank,
            size: 3,
            host: format!("h{rank}"),
            local_rank: 0,
        }
    }

    #[test]
    fn a_repetition_takes_the_slowest_ranks_time_and_every_ranks_operations() {
        let (a, b, c) = (
            cell(Status::Ok, &[100, 300]),
            cell(Status::Ok, &[150, 200]),
            cell(Status::Ok, &[120, 250]),
        );
        let mut out = a.clone();
        let places = [place(0), place(1), place(2)];
        let spread = merge_cell(&mut out, &[&a, &b, &c], &places);
        assert_eq!(out.ops, 300);
        assert_eq!(out.elapsed_ns, vec![150, 300]);
        assert_eq!(out.status, Status::Ok);
        // Repetition 2: 300 against 200.
        assert!((spread - 50.0).abs() < 1e-9, "{spread}");
    }

    #[test]
    fn a_rank_that_cannot_do_a_test_marks_the_cell_so_naming_it() {
        let mut refused = cell(Status::NotSupported, &[]);
        refused.reason = Some("O_DIRECT refused".into());
        let (a, c) = (cell(Status::Ok, &[100, 120]), cell(Status::Ok, &[90, 110]));
        let mut out = a.clone();
        merge_cell(
            &mut out,
            &[&a, &refused, &c],
            &[place(0), place(1), place(2)],
        );
        assert_eq!(out.status, Status::NotSupported);
        assert_eq!(
            out.reason.as_deref(),
            Some("rank 1 on h1: O_DIRECT refused")
        );
        assert!(out.elapsed_ns.is_empty());
        // Every rank alike: said as one process would say it.
        let mut out = refused.clone();
        merge_cell(&mut out, &[&refused, &refused], &[place(0), place(1)]);
        assert_eq!(out.status, Status::NotSupported);
        assert_eq!(out.reason.as_deref(), Some("O_DIRECT refused"));
    }

    #[test]
    fn a_failure_on_one_rank_fails_the_cell_naming_it() {
        let (a, b) = (cell(Status::Ok, &[100]), cell(Status::Failed, &[]));
        let mut out = a.clone();
        merge_cell(&mut out, &[&a, &b], &[place(0), place(1)]);
        assert_eq!(out.status, Status::Failed);
        assert_eq!(out.reason.as_deref(), Some("rank 1 on h1: no space"));
        // Only repetitions every rank finished count.
        assert!(out.elapsed_ns.is_empty());
    }
}
