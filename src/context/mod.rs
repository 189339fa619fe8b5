//! The run context every measuring command runs inside. A command turns its flags into typed
//! parameters (its [`Suite`], where it is one), opens a [`Context`] (the report's file and the
//! results store, before any I/O, and the Ctrl-C flag; under an MPI launcher every rank's
//! flags agreed on first, [`ranks`]), runs its work with the context's flag, progress line
//! and ranks, and hands the result back to [`Context::finish`], which writes the report,
//! saves it and says how the command ends.
//! What each command used to write again (opening the outputs first, the saver, the
//! interrupt flag, the one-line progress, "the results above are partial", the exit status,
//! the ranks' agreement and gathering) is written here once.

mod outcomes;
pub mod ranks;
pub mod save;
pub mod suite;

pub use suite::Suite;

use crate::cluster::{Cluster, Solo};
use crate::error::{exit, Error, Result};
use crate::os::memcg::MemoryCgroup;
use crate::report::sink::Sink;
use crate::report::Exporter;
use crate::store::record::Record;
use save::{Saver, Saving};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where a command's report and result go: `--output-file` (`-` is stdout), `--quiet`, and
/// the store.
pub struct Outputs<'a> {
    pub output_file: &'a str,
    /// How the user named the report's file: in the words of the tool they typed
    /// (`--output-file`, fio's `--output`).
    pub output_flag: &'static str,
    pub quiet: bool,
    pub saving: Saving,
}

impl Outputs<'_> {
    /// The report to stdout and nothing saved: a command whose results are not kept
    /// (dataset, verify, selftest), and with `quiet` an MPI rank other than 0 (which
    /// reports nothing: rank 0 does, for all).
    pub fn unsaved(quiet: bool) -> Outputs<'static> {
        Outputs {
            output_file: "-",
            output_flag: "--output-file",
            quiet,
            saving: Saving {
                no_save: true,
                ..Saving::default()
            },
        }
    }
}

/// One measuring command's surroundings, from before its first I/O to its exit status.
pub struct Context {
    sink: Sink,
    saver: Saver,
    interrupted: Arc<AtomicBool>,
    /// A person at a terminal, not --quiet: progress and the plan line are shown.
    live: bool,
    cgroup: Option<MemoryCgroup>,
    /// The job's ranks: this process alone unless opened with [`Context::open_ranked`].
    cluster: Box<dyn Cluster>,
}

/// How a command's result ends it (after it was reported and saved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// Everything asked for was measured: exit 0.
    Whole,
    /// Ctrl-C or SIGTERM: exit 130. `partial` is false where the signal came after the last
    /// `unit` (a step, a cell) had finished, so the results are whole.
    Interrupted { partial: bool, unit: &'static str },
    /// What failed, said after "iogauge: error: ": exit 1.
    Failed(String),
    /// What was made is not what was asked (a check after the work): exit 3.
    CheckFailed(String),
}

/// A result a command's suite makes, as the context needs to see it.
pub trait Outcome: Sized {
    /// What goes into the store, or `None` where nothing was measured (nothing is saved).
    fn into_record(self) -> Option<Record>;
    /// How it ends the command; `interrupted`: a signal arrived during the run.
    fn ending(&self, interrupted: bool) -> Ending;
    /// The judged warnings, said on stderr where the report does not list them.
    fn warnings(&self) -> &[crate::result::Warning] {
        &[]
    }
}

impl Context {
    /// Open the report's file and the store, and catch Ctrl-C: a bad --output-file or --db
    /// costs nothing, as it is refused before anything is measured.
    pub fn open(o: Outputs) -> Result<Context> {
        Context::open_with(o, interrupt_flag()?)
    }

    /// [`Context::open`] with the Ctrl-C flag caught earlier (an MPI rank's, set before the
    /// ranks agree on their parameters).
    pub fn open_with(o: Outputs, interrupted: Arc<AtomicBool>) -> Result<Context> {
        let sink = Sink::open(o.output_file, o.output_flag)?;
        let saver = Saver::new(&o.saving, o.quiet)?;
        Ok(Context {
            sink,
            saver,
            interrupted,
            live: !o.quiet && std::io::stderr().is_terminal(),
            cgroup: None,
            cluster: Box::new(Solo::new()),
        })
    }

    /// Set on Ctrl-C or SIGTERM: the suite stops, and what it has is reported and saved.
    pub fn interrupted(&self) -> &Arc<AtomicBool> {
        &self.interrupted
    }

    /// Whether progress is shown (a terminal, not --quiet).
    pub fn live(&self) -> bool {
        self.live
    }

    /// A line said before the work starts, to a person at a terminal only ("iogauge: sweep:
    /// 58 cells...").
    pub fn announce(&self, line: &str) {
        if self.live {
            eprintln!("iogauge: {line}");
        }
    }

    /// The one-line progress: each call replaces the line; [`Context::end_progress`] clears it.
    pub fn progress(&self, line: &str) {
        self.line().show(line)
    }

    pub fn end_progress(&self) {
        self.line().clear()
    }

    /// The progress line alone, for a suite whose threads report progress.
    pub fn line(&self) -> Line {
        Line { live: self.live }
    }
    /// Run inside a memory cgroup of `limit` bytes (`--memory-limit`) from now on.
    pub fn limit_memory(&mut self, limit: Option<u64>) -> Result<()> {
        self.cgroup = limit
            .map(MemoryCgroup::enter)
            .transpose()
            .map_err(Error::usage)?;
        Ok(())
    }

    /// Leave the memory cgroup, keeping what it says of itself (`None` without one).
    pub fn leave_memory(&mut self) -> Option<MemoryCap> {
        self.cgroup.take().map(leave_cgroup)
    }

    /// Write the report of `result`, save it, and say how the command ends: the exit status,
    /// with its reason on stderr where it is not 0.
    pub fn finish<R: Outcome>(&mut self, result: R, exporter: &dyn Exporter<R>) -> Result<u8> {
        self.report(&result, exporter)?;
        self.save_and_end(result)
    }

    /// Write the report of `result` (and its warnings, where the report does not list them).
    pub fn report<R: Outcome>(&mut self, result: &R, exporter: &dyn Exporter<R>) -> Result<()> {
        self.report_where(result, exporter, &|_| true)
    }

    /// [`Context::report`], saying only the warnings `said` keeps (DiskSpd's report is of
    /// the whole run, so the per-target warnings are not said).
    pub fn report_where<R: Outcome>(
        &mut self,
        result: &R,
        exporter: &dyn Exporter<R>,
        said: &dyn Fn(&crate::result::Warning) -> bool,
    ) -> Result<()> {
        self.sink.write(&exporter.render(result))?;
        // A person watching the terminal sees the warnings even where the report carries them
        // only as data, or goes to a file.
        if !exporter.lists_warnings() || !self.sink.is_stdout() {
            for w in result.warnings().iter().filter(|w| said(w)) {
                eprintln!("iogauge: warning: {} ({})", w.message, w.fix);
            }
        }
        Ok(())
    }

    /// The store, for a command that saves several results (a fio plan: one per job).
    pub fn saver(&mut self) -> &mut Saver {
        &mut self.saver
    }

    /// More report after the main one (iozone's own, after the sweep's).
    pub fn write(&mut self, text: &str) -> Result<()> {
        self.sink.write(text)
    }

    /// Save `result` (where something was measured) and say how the command ends.
    pub fn save_and_end<R: Outcome>(&mut self, result: R) -> Result<u8> {
        let ending = result.ending(self.interrupted.load(Ordering::Relaxed));
        if let Some(record) = result.into_record() {
            self.saver.save(&record)?;
        }
        Ok(end(&ending))
    }
}

/// The one-line progress on a terminal (`\r`, clear to the end, the line); silent off one.
#[derive(Clone, Copy)]
pub struct Line {
    live: bool,
}

impl Line {
    pub fn show(&self, line: &str) {
        if self.live {
            eprint!("\r\x1b[K{line}");
        }
    }

    pub fn clear(&self) {
        if self.live {
            eprint!("\r\x1b[K");
        }
    }
}

/// The exit status of `ending`, its reason said on stderr.
pub fn end(ending: &Ending) -> u8 {
    match ending {
        Ending::Whole => exit::OK,
        Ending::Interrupted {
            partial: true,
            unit: _,
        } => {
            eprintln!("iogauge: interrupted; the results above are partial");
            exit::INTERRUPTED
        }
        Ending::Interrupted {
            partial: false,
            unit,
        } => {
            eprintln!(
                "iogauge: interrupted after every {unit} had finished; the results above are whole"
            );
            exit::INTERRUPTED
        }
        Ending::Failed(why) => {
            eprintln!("iogauge: error: {why}");
            exit::FAILURE
        }
        Ending::CheckFailed(why) => {
            eprintln!("iogauge: error: {why}");
            exit::CHECK_FAILED
        }
    }
}

/// "3 cells failed: a; b; c", the failures of a grid or a suite, `None` where none did.
pub fn failed(unit: &str, failures: &[String]) -> Option<Ending> {
    (!failures.is_empty()).then(|| {
        Ending::Failed(format!(
            "{} {unit}{} failed: {}",
            failures.len(),
            if failures.len() == 1 { "" } else { "s" },
            failures.join("; ")
        ))
    })
}

/// Set on Ctrl-C or SIGTERM: the measuring commands stop, report what they have and save it.
pub fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let interrupted = Arc::new(AtomicBool::new(false));
    crate::os::signals::on_interrupt(interrupted.clone())
        .map_err(|e| Error::runtime(format!("cannot install the signal handler: {e}")))?;
    Ok(interrupted)
}

pub use crate::result::sweep::MemoryCap;

/// Back out of a memory cgroup (or the file cache's cap), keeping what it says about itself.
pub fn leave_cgroup(c: MemoryCgroup) -> MemoryCap {
    let mut cap = MemoryCap {
        limit_bytes: c.limit(),
        kind: c.kind(),
        cgroup: c.place(),
        peak_bytes: c.peak(),
    };
    // The measurement is done and kept; a cgroup that will not go is said, not fatal.
    if let Err(e) = c.leave() {
        eprintln!("iogauge: warning: {e}");
        cap.cgroup.push_str("; not undone after the run");
    }
    cap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_counted_and_named() {
        assert_eq!(failed("cell", &[]), None);
        assert_eq!(
            failed("cell", &["a".into()]),
            Some(Ending::Failed("1 cell failed: a".into()))
        );
        assert_eq!(
            failed("test", &["a".into(), "b".into()]),
            Some(Ending::Failed("2 tests failed: a; b".into()))
        );
    }

    #[test]
    fn each_ending_has_its_exit_status() {
        assert_eq!(end(&Ending::Whole), exit::OK);
        let cut = Ending::Interrupted {
            partial: true,
            unit: "step",
        };
        assert_eq!(end(&cut), exit::INTERRUPTED);
        assert_eq!(end(&Ending::Failed("x".into())), exit::FAILURE);
    }
}
