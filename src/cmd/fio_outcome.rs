//! What running a fio plan gave back, job by job: filled by cmd/fio.rs (which also reads it),
//! summed across ranks by cmd/fio_team.rs.

use iogauge::error::Error;
use iogauge::os::diskstats::DiskUtil;
use iogauge::os::owned::Cleanup;
use iogauge::result::RunResult;

pub(super) struct PlanOutcome {
    pub(super) results: Vec<Option<RunResult>>,
    /// Kept until the reports are written: dropping them removes the files iogauge created.
    pub(super) cleanups: Vec<Cleanup>,
    /// Per batch: iogauge's user and system CPU time, and the batch's wall time.
    pub(super) batch_cpu: Vec<(u64, u64, u64)>,
    pub(super) error: Option<Error>,
    pub(super) interrupted: bool,
    pub(super) failed: bool,
    /// fio's disk_util: the disks under the jobs' files, over the whole plan.
    pub(super) disk_util: Vec<DiskUtil>,
}
