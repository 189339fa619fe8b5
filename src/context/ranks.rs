//! The ranks of an MPI job, as a command runs among them: every rank checks its flags and
//! the ranks go on only together ([`Context::open_ranked`]); the suite meets the other ranks
//! at its fences ([`Context::team`], [`crate::cluster::team::go_on`]); at the end every
//! rank's result travels to rank 0, which alone makes them one, reports and saves
//! ([`Context::gather_ranks`]). Alone (no launcher), all of it is the plain context.

use super::{Context, Outputs};
use crate::cluster::{self, team, Cluster, Place};
use crate::error::{exit, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A ranked context opened, or the exit status every rank leaves with (the ranks did not
/// agree to go on: rank 0 has said why).
// Made once per command and taken apart at once: its size costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Opened<T> {
    Ready(Context, T),
    Ended(u8),
}

/// The ranks of the job joined (or this process alone), before the context is opened: what
/// every rank checks is agreed on here, and then rank 0 alone opens the outputs.
pub struct Ranks {
    cluster: Box<dyn Cluster>,
    interrupted: Arc<AtomicBool>,
}

impl Ranks {
    /// Find the job's ranks (an MPI launcher's, else this process alone) and catch Ctrl-C.
    pub fn join() -> Result<Ranks> {
        Ok(Ranks {
            cluster: cluster::detect()?,
            interrupted: super::interrupt_flag()?,
        })
    }

    /// The job's other ranks, where there are any.
    pub fn team(&self) -> Option<&dyn Cluster> {
        (self.cluster.place().size > 1).then_some(self.cluster.as_ref())
    }

    /// This rank's place, where it is one of several.
    pub fn place(&self) -> Option<&Place> {
        self.team().map(|c| c.place())
    }

    pub fn is_root(&self) -> bool {
        self.cluster.place().is_root()
    }

    /// Go on only together: every rank's `r` is `Ok`, or every rank gets the exit status
    /// (rank 0 having said each rank's error once). Alone, an error is returned.
    pub fn agree<T>(&self, r: Result<T>) -> Result<std::result::Result<T, u8>> {
        match self.team() {
            Some(c) => Ok(team::agree(c, r, &self.interrupted)),
            None => r.map(Ok),
        }
    }

    /// `r`, where an error met by this rank alone ends every rank at once, naming it.
    pub fn alone_or_abort<T>(&self, r: Result<T>) -> Result<T> {
        match (r, self.team()) {
            (Err(e), Some(c)) => team::fail(c, &e.to_string(), e.exit_code()),
            (r, _) => r,
        }
    }

    /// The context: rank 0 opens the report's file and the store (a failure there ends
    /// every rank); the other ranks report nothing and save nothing.
    pub fn open(self, o: Outputs) -> Result<Context> {
        let opened = match self.is_root() {
            true => Context::open_with(o, self.interrupted.clone()),
            false => Context::open_with(Outputs::unsaved(true), self.interrupted.clone()),
        };
        let mut ctx = self.alone_or_abort(opened)?;
        ctx.cluster = self.cluster;
        Ok(ctx)
    }
}

impl Context {
    /// Open the context of one rank of the job (or of a process alone). `check` reads this
    /// rank's flags into its parameters (given this rank's place among several); no rank
    /// goes on unless every rank's check passed. Rank 0 alone opens the report's file and
    /// the store, before anything is measured; a failure there ends every rank.
    pub fn open_ranked<T>(
        o: Outputs,
        check: impl FnOnce(Option<&Place>) -> Result<T>,
    ) -> Result<Opened<T>> {
        let ranks = Ranks::join()?;
        match ranks.agree(check(ranks.place()))? {
            Ok(value) => Ok(Opened::Ready(ranks.open(o)?, value)),
            Err(code) => Ok(Opened::Ended(code)),
        }
    }

    /// The job's other ranks, where there are any: a suite fences its measurements with them.
    pub fn team(&self) -> Option<&dyn Cluster> {
        (self.cluster.place().size > 1).then_some(self.cluster.as_ref())
    }

    /// Refuse, on every rank alike, a path two ranks were both given where each must have
    /// its own (a folder it writes in): the exit status where refused, rank 0 having said
    /// why. Alone: `None`.
    pub fn own_paths(&self, paths: &[&std::path::Path]) -> Option<u8> {
        let c = self.team()?;
        let e = team::refuse_shared_paths(c, paths).err()?;
        if c.place().is_root() {
            eprintln!("iogauge: error: {e}");
        }
        Some(e.exit_code())
    }

    /// Every rank's `result` made one on rank 0 by `combine` (alone: the result itself); the
    /// other ranks get the status they end with. An error of one rank ends every rank at
    /// once, naming it. A run cut short by Ctrl-C is not gathered (a rank may have left a
    /// fence the others never reached): rank 0 says so, and each rank's own files are
    /// already gone.
    pub fn gather_ranks<R>(
        &self,
        result: Result<R>,
        combine: fn(Vec<(Place, R)>) -> R,
    ) -> Result<Gathered<R>>
    where
        R: serde::Serialize + serde::de::DeserializeOwned,
    {
        let Some(c) = self.team() else {
            return result.map(Gathered::Root);
        };
        let r = result.unwrap_or_else(|e| team::fail(c, &e.to_string(), e.exit_code()));
        if self.interrupted.load(Ordering::Relaxed) {
            if c.place().is_root() {
                eprintln!(
                    "iogauge: interrupted; an MPI run cut short is not gathered (each rank's \
                     files are removed)"
                );
            }
            return Ok(Gathered::Ended(exit::INTERRUPTED));
        }
        Ok(match team::gather_results(c, r) {
            Some(parts) => Gathered::Root(combine(parts)),
            None => Gathered::Ended(exit::OK),
        })
    }
}

/// What [`Context::gather_ranks`] leaves a rank with.
pub enum Gathered<R> {
    /// Rank 0 (or a process alone): the job's result, to report and save.
    Root(R),
    /// Any other rank, or after Ctrl-C: the exit status.
    Ended(u8),
}
