//! fio's job-file format, read: jobs made of `key[=value]` options, each option remembering
//! the file and line it came from so that any later error can name them.
//!
//! This is the reading layer of the fio front end (issue 7): the INI structure (`[global]`
//! sections that apply to the jobs below them, `;` and `#` comments, `include`), `${VAR}`
//! from the environment and fio's reserved `$pagesize`, `$mb_memory` and `$ncpus`, and fio's
//! number syntax (0x prefixes, size suffixes with fio's kb_base rules, time suffixes, ranges,
//! arithmetic in parentheses). What the options mean, and the JobSpec they make, is the next
//! layer ([`options`]); nothing here runs anything.

mod args;
mod expr;
mod ini;
mod job;
mod number;
pub mod options;
mod vars;

pub use args::{next_value, read_args, CommandLine};
pub use ini::{read_file, read_str};
pub use job::{FioJob, FioOption, Location, COMMAND_LINE};
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
