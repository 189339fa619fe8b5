//! A fio job as read, before any of its options means anything: its options in order, each
//! with the file and line (or command-line argument) it came from, so that any later error can
//! name them. Both readers, job files ([`super::ini`]) and command lines ([`super::args`]),
//! build jobs the same way here.

/// Where an option or a section was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: usize,
}

/// The `file` of options given on the command line; their `line` is the argument's position.
pub const COMMAND_LINE: &str = "<command line>";

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.file == COMMAND_LINE {
            write!(f, "command-line argument {}", self.line)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioOption {
    pub key: String,
    /// None for a bare flag (`time_based`).
    pub value: Option<String>,
    pub at: Location,
}

/// One job: the options of the `[global]` sections above it, then its own, in order (a later
/// option overrides an earlier one of the same key, as in fio).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioJob {
    pub name: String,
    pub options: Vec<FioOption>,
    /// How many of `options`, from the front, came from global options (fio's JSON lists only
    /// the rest under "job options").
    pub inherited: usize,
    pub at: Location,
}

impl FioJob {
    /// Put `globals` before this job's options, as inherited ones.
    pub fn inherit(&mut self, globals: &[FioOption]) {
        let mut options = globals.to_vec();
        options.append(&mut self.options);
        self.options = options;
        self.inherited += globals.len();
    }
}

/// What a reader has built so far.
#[derive(Default)]
pub(super) struct State {
    pub(super) globals: Vec<FioOption>,
    /// The section being read: a job (index into jobs) or a global section.
    pub(super) current: Option<Current>,
    pub(super) jobs: Vec<FioJob>,
}

#[derive(Clone, Copy)]
pub(super) enum Current {
    Global,
    Job(usize),
}

impl State {
    /// Start job `name`, written at `at`: it inherits the global options read so far, and the
    /// options that follow are its own.
    pub(super) fn start_job(&mut self, name: String, at: Location) {
        self.jobs.push(FioJob {
            name,
            options: self.globals.clone(),
            inherited: self.globals.len(),
            at,
        });
        self.current = Some(Current::Job(self.jobs.len() - 1));
    }
}
