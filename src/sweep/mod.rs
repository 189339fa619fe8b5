//! `iogauge sweep`: an iozone-style grid. Every file size x record size, each test one pass
//! over the whole file (iozone's method), throughput = the file's bytes / the pass's time; then
//! per test and record size the file size where the cache stops helping (the knee).
//!
//! What is timed is the loop of read or write calls of one pass, plus the fsync (`-e`,
//! `include_flush`) and the close (`-c`, `include_close`) where asked; opening the file, making
//! the files the read tests need, and removing them are not. The files live in a folder of
//! iogauge's own inside DIR ([`crate::os::workspace`]), removed at the end, on error and on
//! Ctrl-C.

mod pass;
pub mod ranks;
mod run;

use crate::cluster::Place;
use crate::context::{Context, Suite};
use crate::error::{Error, Result};
use std::path::PathBuf;

// The result's types live with the other results; re-exported for the command line.
pub use crate::result::sweep::{
    knee, CacheMode, Cell, Flags, MemoryCap, Params, Status, SweepResult, Test, LARGE_FILE,
    SCHEMA_NAME, SCHEMA_VERSION, SMALL_RECORD,
};
pub use run::run;

/// A sweep as the context runs it: the grid in `dir` (inside a memory cgroup where asked),
/// with what the front end that read it wants said in the notes.
pub struct Sweep {
    pub dir: PathBuf,
    pub params: Params,
    pub notes: Vec<String>,
    /// Leave the last cell's files in place (iozone -w).
    pub keep_files: bool,
}

impl Suite for Sweep {
    type Result = SweepResult;

    fn run(&self, command_line: Vec<String>, ctx: &mut Context) -> Result<SweepResult> {
        ctx.limit_memory(self.params.memory_limit)?;
        let result = {
            let ctx = &*ctx;
            let mut progress = |line: &str| ctx.progress(line);
            let stop = ctx.interrupted();
            run(
                &self.dir,
                &self.params,
                self.keep_files,
                command_line,
                stop,
                &mut progress,
                ctx.team(),
            )
        };
        let cap = ctx.leave_memory();
        result.map(|mut r| {
            r.memory_cap = cap;
            r.notes.splice(0..0, self.notes.iter().cloned());
            r
        })
    }

    fn combine(parts: Vec<(Place, SweepResult)>) -> SweepResult {
        ranks::combine(parts)
    }
}

/// `--tests`: names, comma-separated, or `all`.
pub fn select_tests(list: &str) -> Result<Vec<Test>> {
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim) {
        if name == "all" {
            out.extend(Test::ALL);
            continue;
        }
        match Test::by_name(name) {
            Some(t) => out.push(t),
            None => {
                return Err(Error::usage(format!(
                    "invalid value '{name}' for --tests: the tests are {} (or all)",
                    Test::ALL.map(Test::name).join(", ")
                )))
            }
        }
    }
    // Always in iozone's order, each once: rewrite follows write, reread follows read.
    Ok(Test::ALL.into_iter().filter(|t| out.contains(t)).collect())
}

/// The default grid's file sizes: 64 KiB, doubling, up to twice the machine's memory (the
/// last size where the cache can no longer hold the file whatever else runs).
pub fn default_file_sizes(memory: u64) -> Vec<u64> {
    doubling(64 << 10, memory.saturating_mul(2).max(64 << 10))
}

/// The default record sizes: 4 KiB to 16 MiB, doubling.
pub fn default_record_sizes() -> Vec<u64> {
    doubling(4 << 10, 16 << 20)
}

/// `--file-sizes` and `--record-sizes`: a list (`4K,64K,1M`) or a doubling range (`64K..1G`),
/// ascending and each once whatever the order given.
pub fn parse_sizes(text: &str) -> std::result::Result<Vec<u64>, String> {
    let one = |t: &str| crate::units::parse_size(t);
    let mut out = match text.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (one(a)?, one(b)?);
            if a == 0 || b < a {
                return Err(format!("the range {text} must go up from more than 0"));
            }
            doubling(a, b)
        }
        None => text
            .split(',')
            .map(|t| one(t.trim()))
            .collect::<std::result::Result<Vec<u64>, String>>()?,
    };
    out.sort_unstable();
    out.dedup();
    if out.len() > 64 {
        return Err(format!(
            "{} sizes is more than the 64 a sweep takes",
            out.len()
        ));
    }
    Ok(out)
}

/// `from`, doubling, while no more than `to`.
pub fn doubling(from: u64, to: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut s = from.max(1);
    while s <= to {
        out.push(s);
        match s.checked_mul(2) {
            Some(n) => s = n,
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params {
            file_sizes: doubling(64 << 10, 64 << 20),
            record_sizes: doubling(4 << 10, 16 << 20),
            tests: Test::ALL.to_vec(),
            cache: CacheMode::Buffered,
            include_flush: false,
            include_close: false,
            sync_writes: false,
            skip_small_records: true,
            threads: 1,
            stride: 17,
            knee_drop_pct: 30.0,
            memory_limit: None,
        }
    }

    #[test]
    fn the_grid_skips_records_larger_than_the_file_and_small_records_on_large_files() {
        let p = params();
        let g = p.grid();
        assert!(g.iter().all(|&(f, r)| r <= f));
        assert!(g.contains(&(16 << 20, 4 << 10)));
        assert!(!g.contains(&(32 << 20, 32 << 10)));
        assert!(g.contains(&(32 << 20, 64 << 10)));
        assert_eq!(g.first(), Some(&(64 << 10, 4 << 10)));
        let all = Params {
            skip_small_records: false,
            ..p
        };
        assert!(all.grid().contains(&(64 << 20, 4 << 10)));
    }

    #[test]
    fn only_small_records_on_large_files_names_the_flag_that_measures_them() {
        let p = Params {
            file_sizes: vec![64 << 20],
            record_sizes: vec![4 << 10],
            ..params()
        };
        let e = p.validate(&Flags::NATIVE).unwrap_err().to_string();
        assert!(e.contains("give --all-records to measure them"), "{e}");
        assert!(e.contains("records under 64KiB (4KiB) are skipped"), "{e}");
        let e = p.validate(&Flags::IOZONE).unwrap_err().to_string();
        assert!(e.ends_with("give -z to measure them"), "{e}");
        let all = Params {
            skip_small_records: false,
            ..p
        };
        assert!(all.validate(&Flags::NATIVE).is_ok());
        // A record larger than every file is another mistake, said as such.
        let big = Params {
            file_sizes: vec![4 << 10],
            record_sizes: vec![64 << 10],
            ..params()
        };
        let e = big.validate(&Flags::NATIVE).unwrap_err().to_string();
        assert!(
            e.contains("each record must be no larger than its file"),
            "{e}"
        );
    }

    #[test]
    fn default_sizes_double_up_to_twice_memory() {
        let f = default_file_sizes(1 << 30);
        assert_eq!(f.first(), Some(&(64 << 10)));
        assert_eq!(f.last(), Some(&(2 << 30)));
        assert_eq!(f.len(), 16);
        let r = default_record_sizes();
        assert_eq!((r[0], *r.last().unwrap(), r.len()), (4096, 16 << 20, 13));
    }

    #[test]
    fn tests_are_chosen_by_name_and_kept_in_iozone_order() {
        let t = select_tests("read,write").unwrap();
        assert_eq!(t, vec![Test::Write, Test::Read]);
        let e = select_tests("write,reed").unwrap_err().to_string();
        assert!(e.contains("'reed'") && e.contains("--tests"), "{e}");
    }

    #[test]
    fn direct_needs_whole_blocks_and_names_the_flag() {
        let mut p = params();
        p.cache = CacheMode::Direct;
        p.record_sizes = vec![1000];
        let e = p.validate(&Flags::IOZONE).unwrap_err().to_string();
        assert!(e.starts_with("-r 1000") && e.contains("-I"), "{e}");
        p.record_sizes = vec![4096];
        p.validate(&Flags::NATIVE).unwrap();
    }

    #[test]
    fn a_grid_with_no_cell_is_refused() {
        let mut p = params();
        p.file_sizes = vec![4096];
        p.record_sizes = vec![8192];
        let e = p.validate(&Flags::NATIVE).unwrap_err().to_string();
        assert!(e.contains("no record size"), "{e}");
    }

    #[test]
    fn sizes_are_lists_or_doubling_ranges() {
        assert_eq!(
            parse_sizes("64K..1M").unwrap(),
            vec![64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20]
        );
        assert_eq!(parse_sizes("1M,4K,1M").unwrap(), vec![4096, 1 << 20]);
        assert!(parse_sizes("1M..4K").is_err());
        assert!(parse_sizes("4Q").is_err());
        let many: Vec<String> = (1..=65).map(|i| (i * 4096).to_string()).collect();
        assert!(parse_sizes(&many.join(",")).unwrap_err().contains("64"));
    }

    #[test]
    fn a_zero_length_pass_has_no_rate() {
        let c = Cell {
            test: Test::Read,
            file_size: 4096,
            record_size: 4096,
            status: Status::Ok,
            reason: None,
            bytes: 4096,
            elapsed_ns: 0,
            thread_ns: vec![],
            cpu_ns: 0,
        };
        assert_eq!(c.bytes_per_sec(), None);
    }
}
