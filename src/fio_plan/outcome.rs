//! What running a fio plan gave back, job by job: filled by the plan's run (mod.rs), summed
//! across ranks by team.rs, reported and saved by `iogauge fio` (cmd/fio.rs).

use crate::error::Error;
use crate::os::diskstats::DiskUtil;
use crate::os::owned::Cleanup;
use crate::result::RunResult;

pub struct PlanOutcome {
    pub results: Vec<Option<RunResult>>,
    /// Kept until the reports are written: dropping them removes the files iogauge created.
    pub cleanups: Vec<Cleanup>,
    /// Per batch: iogauge's user and system CPU time, and the batch's wall time.
    pub batch_cpu: Vec<(u64, u64, u64)>,
    pub error: Option<Error>,
    pub interrupted: bool,
    pub failed: bool,
    /// fio's disk_util: the disks under the jobs' files, over the whole plan.
    pub disk_util: Vec<DiskUtil>,
}
