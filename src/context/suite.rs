//! A measuring suite as the context runs it: a command reads its flags into a suite (its
//! typed parameters), opens the context, and makes one call, [`Context::run_suite`]. The
//! suite runs inside the context (its Ctrl-C flag, its progress line, its memory cgroup, the
//! other ranks of an MPI job); the context makes every rank's result one on rank 0.

use super::ranks::Gathered;
use super::{Context, Outcome};
use crate::cluster::Place;
use crate::error::Result;
use crate::report::Exporter;

/// What a measuring command runs: fs, sweep (and iozone), workload.
pub trait Suite {
    /// What one run of it makes (one rank's, under MPI).
    type Result: Outcome + serde::Serialize + serde::de::DeserializeOwned;

    /// Run it, stopping early on `ctx.interrupted()`; under MPI, meeting the other ranks
    /// (`ctx.team()`) before each measurement. `command_line` is kept with the result.
    fn run(&self, command_line: Vec<String>, ctx: &mut Context) -> Result<Self::Result>;

    /// Every rank's result, in rank order, made one (on rank 0).
    fn combine(parts: Vec<(Place, Self::Result)>) -> Self::Result;
}

impl Context {
    /// Run `suite`: the job's result on rank 0 (or a process alone), to report and save; the
    /// other ranks' exit status.
    pub fn run_suite<S: Suite>(
        &mut self,
        suite: &S,
        command_line: Vec<String>,
    ) -> Result<Gathered<S::Result>> {
        let result = suite.run(command_line, self);
        self.end_progress();
        self.gather_ranks(result, S::combine)
    }

    /// Run `suite`, then report, save and end the command: its exit status.
    pub fn finish_suite<S: Suite>(
        &mut self,
        suite: &S,
        command_line: Vec<String>,
        exporter: &dyn Exporter<S::Result>,
    ) -> Result<u8> {
        match self.run_suite(suite, command_line)? {
            Gathered::Root(result) => self.finish(result, exporter),
            Gathered::Ended(code) => Ok(code),
        }
    }
}
