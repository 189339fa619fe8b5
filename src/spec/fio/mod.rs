//! The fio front end: fio's job files and command lines, read and mapped onto JobSpecs.
//!
//! Two layers. Reading (issue 7) turns text into jobs of `key[=value]` options, each
//! remembering the file and line it came from so that any later error can name them: `job`
//! (the jobs as read), `ini` (job files: sections, comments, includes), `args` (command
//! lines), `vars` (`${VAR}`, `$pagesize`...), `number` (fio's sizes and times) and `expr`
//! (arithmetic in parentheses). Meaning turns each job into one validated JobSpec: `options`
//! (the table of options iogauge knows, and their values read in fio's syntax), `map` (a job
//! onto its JobSpec, concept by concept) and `plan` (every job with fio's groups and
//! batches). Nothing here runs anything.

mod args;
mod expr;
mod getopt;
mod ini;
mod job;
mod map;
pub mod names;
mod number;
pub mod options;
mod pattern;
mod plan;
mod planner;
mod vars;

pub use args::{next_value, read_args, CommandLine};
pub use getopt::long_forms;
pub use ini::{read_file, read_str};
pub use job::{FioJob, FioOption, Location, COMMAND_LINE};
pub use map::unloadable_engine;
pub use number::{parse_size, parse_size_range, parse_time_ns};
pub use vars::Vars;

#[cfg(test)]
pub(crate) mod tests {
    use super::Vars;

    /// Fixed values, and one environment variable (SIZE=8g), for the readers' tests.
    pub(crate) fn vars() -> Vars<'static> {
        Vars {
            pagesize: 4096,
            mb_memory: 2048,
            ncpus: 16,
            env: &|k| (k == "SIZE").then(|| "8g".to_string()),
        }
    }
}
