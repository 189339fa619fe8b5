//! How each kind of result ends its command: what is saved and the exit status. One place
//! for every kind, so that "partial", "failed" and "interrupted" mean the same everywhere.

use super::{failed, Ending, Outcome};
use crate::result::fs::FsResult;
use crate::result::profile::ProfileResult;
use crate::result::sweep::SweepResult;
use crate::result::workload::WorkloadResult;
use crate::result::{RunResult, StopReason, Warning};
use crate::store::record::Record;

impl Outcome for RunResult {
    fn into_record(self) -> Option<Record> {
        Some(Record::Run(Box::new(self)))
    }

    fn ending(&self, _interrupted: bool) -> Ending {
        match self.stop_reason {
            StopReason::Interrupted => Ending::Interrupted {
                partial: true,
                unit: "job",
            },
            StopReason::IoError => Ending::Failed(format!(
                "{}; the results above are partial",
                self.stop_message.as_deref().unwrap_or("I/O error")
            )),
            // A verifying run that went on past mismatches fails.
            StopReason::Completed => match &self.verify {
                Some(v) if v.mismatch_count > 0 => Ending::Failed(format!(
                    "verification found {} mismatch{}: {}",
                    v.mismatch_count,
                    if v.mismatch_count == 1 { "" } else { "es" },
                    v.mismatches.first().map(|m| m.line()).unwrap_or_default()
                )),
                _ => Ending::Whole,
            },
        }
    }

    fn warnings(&self) -> &[Warning] {
        &self.warnings
    }
}

impl Outcome for SweepResult {
    fn into_record(self) -> Option<Record> {
        (!self.cells.is_empty()).then(|| Record::Sweep(Box::new(self)))
    }

    fn ending(&self, interrupted: bool) -> Ending {
        if self.partial && interrupted {
            return Ending::Interrupted {
                partial: true,
                unit: "cell",
            };
        }
        failed("cell", &self.failures()).unwrap_or(Ending::Whole)
    }
}

impl Outcome for FsResult {
    fn into_record(self) -> Option<Record> {
        let measured = self
            .tests
            .iter()
            .any(|t| t.cells.iter().any(|c| !c.elapsed_ns.is_empty()));
        measured.then(|| Record::Fs(Box::new(self)))
    }

    fn ending(&self, _interrupted: bool) -> Ending {
        if self.partial {
            return Ending::Interrupted {
                partial: true,
                unit: "test",
            };
        }
        failed("test", &self.failures()).unwrap_or(Ending::Whole)
    }
}

impl Outcome for WorkloadResult {
    fn into_record(self) -> Option<Record> {
        let ran = self.steps.iter().any(|s| !s.reps.is_empty());
        ran.then(|| Record::Workload(Box::new(self)))
    }

    fn ending(&self, interrupted: bool) -> Ending {
        // A signal after the last step finished cuts nothing short: the results (and the
        // saved record, partial=false) are whole, and the message says so; the exit status
        // still says that a signal ended the process.
        if interrupted {
            return Ending::Interrupted {
                partial: self.partial,
                unit: "step",
            };
        }
        if let Some(m) = &self.stop_message {
            return Ending::Failed(format!("{m}; the results above are partial"));
        }
        let failures = self.verify_failures();
        if !failures.is_empty() {
            return Ending::CheckFailed(format!(
                "what was made differs from the source: {}",
                failures.join("; ")
            ));
        }
        Ending::Whole
    }
}

impl Outcome for ProfileResult {
    /// A profile stopped before its first pass ends has nothing to save.
    fn into_record(self) -> Option<Record> {
        (!self.passes.is_empty()).then(|| Record::Profile(Box::new(self)))
    }

    /// A profile cut short by a failure ends with that error (the command returns it), not
    /// as interrupted.
    fn ending(&self, interrupted: bool) -> Ending {
        match self.partial && interrupted {
            true => Ending::Interrupted {
                partial: true,
                unit: "pass",
            },
            false => Ending::Whole,
        }
    }
}
