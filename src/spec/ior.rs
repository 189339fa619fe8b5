//! IOR command lines (`iogauge ior`) -> one [`JobSpec`] per phase, with IOR's meaning: each
//! rank moves blockSize × segmentCount bytes in transfers of transferSize, to a file of its
//! own (-F, `testFile.00000003`) or to its segments of one shared file (segment i of rank r
//! of n at (i*n + r) × blockSize), a write phase then a read phase, -i times. Messages name
//! IOR's options as IOR's users type them. This file reads and checks; cmd/ior.rs runs the
//! phases through the ranks' runner and report/ior.rs prints IOR's summary.

use super::flag::{Dialect, Flag};
use super::{
    CacheMode, Distribution, EngineSpec, JobSpec, Limits, Pattern, PerIo, RankShift, Ranks, Shape,
    Stonewall, Stop, StridedZones, TargetSpec, Timing,
};
use crate::error::{Error, Result};

/// An IOR command line, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Ior {
    /// -a as typed (POSIX or MPIIO; both run as POSIX I/O).
    pub api: String,
    pub block: u64,
    pub transfer: u64,
    pub segments: u64,
    pub file_per_proc: bool,
    /// -C: read back what the rank `task_offset` further on wrote.
    pub reorder: bool,
    /// -Q.
    pub task_offset: u32,
    /// -e: fsync at the end of the write phase.
    pub fsync: bool,
    pub write: bool,
    pub read: bool,
    /// -W: read back and check what was written, after the write phase.
    pub check_write: bool,
    /// -D, in seconds (0: none).
    pub deadline_s: u64,
    /// -O stoneWallingWearOut=1.
    pub wear_out: bool,
    pub repetitions: u32,
    pub test_file: String,
    pub keep: bool,
    pub random: bool,
    /// -g: barriers between open, I/O and close.
    pub barriers: bool,
    /// -G: the seed of the data and of -z's offsets.
    pub seed: u64,
    /// -O summaryFormat=JSON.
    pub json: bool,
    /// What iogauge does differently from IOR here, said in the report.
    pub notes: Vec<String>,
}

/// A timed phase of one repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Write,
    Read,
}

impl Phase {
    /// IOR's word in its tables.
    pub fn word(self) -> &'static str {
        match self {
            Phase::Write => "write",
            Phase::Read => "read",
        }
    }
}

/// How IOR's users name the settings of a job made from their command line.
pub fn flag_name(flag: Flag) -> Option<&'static str> {
    use Flag::*;
    Some(match flag {
        BlockSize => "-t",
        Total => "-b",
        Stonewall => "-D",
        WearOut => "-O stoneWallingWearOut",
        SharedFile => "-F",
        RankShift => "-C",
        Random => "-z",
        EndFsync => "-e",
        Verify => "-W",
        _ => return None,
    })
}

fn bad(msg: impl Into<String>) -> Error {
    Error::usage(msg.into())
}

impl Default for Ior {
    /// IOR's defaults (ior.c's init_IOR_Param_t).
    fn default() -> Self {
        Ior {
            api: "POSIX".into(),
            block: 1 << 20,
            transfer: 256 << 10,
            segments: 1,
            file_per_proc: false,
            reorder: false,
            task_offset: 1,
            fsync: false,
            write: false,
            read: false,
            check_write: false,
            deadline_s: 0,
            wear_out: false,
            repetitions: 1,
            test_file: "testFile".into(),
            keep: false,
            random: false,
            barriers: false,
            seed: 0,
            json: false,
            notes: Vec::new(),
        }
    }
}

/// Read IOR's options (after `iogauge ior`, iogauge's own `--` options taken out). A value
/// follows its option (`-b 4m`) or is joined to it (`-b4m`), as IOR's parser takes them.
pub fn parse(args: &[String]) -> Result<Ior> {
    let mut ior = Ior::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let Some(letter) = arg.strip_prefix('-').and_then(|r| r.chars().next()) else {
            return Err(bad(format!(
                "Error invalid argument: {arg} (IOR takes options only)"
            )));
        };
        let joined = &arg[1 + letter.len_utf8()..];
        if takes_value(letter) {
            let value = match joined.strip_prefix('=').unwrap_or(joined) {
                "" => it
                    .next()
                    .cloned()
                    .ok_or_else(|| bad(format!("Error, argument missing for option -{letter}")))?,
                v => v.to_string(),
            };
            ior.set(letter, &value)?;
        } else if joined.is_empty() {
            ior.flag(letter)?;
        } else {
            return Err(bad(format!("Error invalid argument: {arg}")));
        }
    }
    ior.check()?;
    Ok(ior)
}

fn takes_value(letter: char) -> bool {
    "abtsQDioOGA".contains(letter)
}

impl Ior {
    fn flag(&mut self, letter: char) -> Result<()> {
        match letter {
            'F' => self.file_per_proc = true,
            'C' => self.reorder = true,
            'e' => self.fsync = true,
            'w' => self.write = true,
            'r' => self.read = true,
            'W' => self.check_write = true,
            'k' => self.keep = true,
            'g' => self.barriers = true,
            // IOR's -z once is shuffled offsets, twice random ones; iogauge draws them
            // independently either way (the note says so).
            'z' => self.random = true,
            // Verbosity: iogauge prints IOR's default level.
            'v' => {}
            'R' => {
                return Err(bad(
                    "-R (checkRead) is not supported by iogauge ior: its read phase does not \
                     check data; -W (checkWrite) reads back and checks what was written",
                ))
            }
            other => return Err(unsupported(other)),
        }
        Ok(())
    }

    fn set(&mut self, letter: char, v: &str) -> Result<()> {
        match letter {
            'a' => self.api = api(v)?,
            'b' => self.block = bytes(v, "-b", "blockSize")?,
            't' => self.transfer = bytes(v, "-t", "transferSize")?,
            's' => self.segments = number(v, "-s", "segmentCount")?,
            'Q' => self.task_offset = number(v, "-Q", "taskPerNodeOffset")? as u32,
            'D' => self.deadline_s = number(v, "-D", "deadlineForStonewalling")?,
            'i' => self.repetitions = number(v, "-i", "repetitions")? as u32,
            'G' => self.seed = v.parse::<i64>().map_err(|_| bad_number(v, "-G"))? as u64,
            // A reference number only labels IOR's summary.
            'A' => drop(number(v, "-A", "refNum")?),
            'o' if v.is_empty() => return Err(bad("-o: testFile needs a name")),
            'o' => self.test_file = v.to_string(),
            'O' => {
                for d in v.split(',').filter(|d| !d.is_empty()) {
                    self.directive(d)?;
                }
            }
            other => return Err(unsupported(other)),
        }
        Ok(())
    }

    /// One `-O key=value` directive.
    fn directive(&mut self, d: &str) -> Result<()> {
        let (key, value) = d
            .split_once('=')
            .ok_or_else(|| bad(format!("-O {d}: a directive is key=value")))?;
        match key.to_ascii_lowercase().as_str() {
            "stonewallingwearout" => self.wear_out = number(value, "-O", key)? != 0,
            "summaryformat" => match value.to_ascii_lowercase().as_str() {
                "json" => self.json = true,
                "default" => self.json = false,
                _ => {
                    return Err(bad(format!(
                        "-O summaryFormat={value}: iogauge ior writes default or JSON"
                    )))
                }
            },
            _ => {
                return Err(bad(format!(
                    "-O {key}: not supported by iogauge ior (it reads stoneWallingWearOut and \
                     summaryFormat)"
                )))
            }
        }
        Ok(())
    }

    /// IOR's own checks (ior.c's ValidateTests), in its words.
    fn check(&mut self) -> Result<()> {
        if !(self.write || self.read || self.check_write) {
            self.write = true;
            self.read = true;
        }
        if self.check_write && !self.write {
            return Err(bad(
                "-W: iogauge ior checks what its own write phase wrote: add -w",
            ));
        }
        if self.segments == 0 {
            return Err(bad("-s: segment count must be positive value"));
        }
        if self.transfer == 0 {
            return Err(bad("-t: test will not complete with zero transfer size"));
        }
        if self.block < self.transfer {
            return Err(bad("-b: block size must not be smaller than transfer size"));
        }
        if !self.block.is_multiple_of(self.transfer) {
            return Err(bad("-b: block size must be a multiple of transfer size"));
        }
        if self.repetitions == 0 {
            return Err(bad("-i: repetitions must be at least 1"));
        }
        if self.wear_out && self.deadline_s == 0 {
            return Err(bad(
                "-O stoneWallingWearOut: the stoneWallingWearOut is only sensible when setting a \
                 stonewall deadline with -D",
            ));
        }
        if self.random && self.reorder && !self.file_per_proc {
            return Err(bad(
                "-z -C: random offset and constant reorder tasks specified with \
                 single-shared-file. Choose one and resubmit",
            ));
        }
        if self.random && self.block == self.transfer {
            return Err(bad(
                "-z: IOR will randomize access within a block and repeats the same pattern for \
                 all segments, therefore choose blocksize > transferSize",
            ));
        }
        self.say_differences();
        Ok(())
    }

    /// What runs otherwise than IOR would run it, said once in the report.
    fn say_differences(&mut self) {
        if self.api == "MPIIO" {
            self.notes.push(
                "-a MPIIO runs as POSIX I/O (pread and pwrite on each rank): iogauge has no \
                 MPI-IO layer"
                    .into(),
            );
        }
        if self.random {
            self.notes.push(
                "-z: iogauge draws each transfer's offset within its block independently (as \
                 IOR's -z -z), so some transfers may land twice and some not at all"
                    .into(),
            );
        }
        if self.reorder {
            self.notes.push(format!(
                "-C: each rank reads the data of the rank {} further on (-Q), IOR's shift for \
                 tasks placed round robin",
                self.task_offset
            ));
        }
        self.notes.push(
            "open(s) and close(s) are not timed: iogauge creates and opens every rank's file \
             before the ranks' barrier (a new file is laid out first) and times the transfers \
             alone, so bandwidth = bytes / wr/rd(s)"
                .into(),
        );
    }

    /// Bytes one rank moves in one phase: blockSize × segmentCount.
    pub fn rank_bytes(&self) -> u64 {
        self.block.saturating_mul(self.segments)
    }

    /// The path template of the file(s): `testFile`, or `testFile.{rank:08}` with -F (IOR's
    /// names); the user's own braces kept as they are.
    pub fn path_template(&self) -> String {
        let escaped = self.test_file.replace('{', "{{").replace('}', "}}");
        match self.file_per_proc {
            true => format!("{escaped}.{{rank:08}}"),
            false => escaped,
        }
    }

    /// The job of `phase` for a job of `ranks` ranks; `overwrite`: the file is iogauge's own
    /// from an earlier repetition (or the user allowed it).
    pub fn job(&self, phase: Phase, ranks: u32, overwrite: bool) -> Result<JobSpec> {
        let per_rank = self.rank_bytes();
        let ranks = u64::from(ranks.max(1));
        let file_size = match self.file_per_proc {
            true => per_rank,
            false => per_rank
                .checked_mul(ranks)
                .ok_or_else(|| bad("-b × -s × ranks: too large"))?,
        };
        let writes = phase == Phase::Write;
        let job = JobSpec {
            targets: vec![TargetSpec {
                path: self.path_template().into(),
                // A read phase reads what is there (IOR: "Cannot open file" where nothing is).
                create_size: writes.then_some(file_size),
                temporary: false,
            }],
            threads_per_target: 1,
            queue_depth: 1,
            submit_batch: 1,
            complete_batch: 1,
            latency: false,
            affinity: None,
            numa: None,
            shape: self.shape(writes, file_size),
            timing: self.timing(),
            cache: CacheMode::Buffered,
            remote_uncached: false,
            engine: EngineSpec {
                kind: Some(crate::engine::kind::EngineKind::Sync),
                ..EngineSpec::default()
            },
            limits: Limits::default(),
            per_io: PerIo {
                end_fsync: writes && self.fsync,
                ..PerIo::default()
            },
            seed: self.seed,
            allow_overwrite: overwrite,
            keep: self.keep,
            continue_on_error: false,
            ignore_errors: Vec::new(),
            fill: false,
            prio: Default::default(),
            file_sets: None,
            dialect: Dialect::Ior,
            ranks: Ranks {
                shared_file: !self.file_per_proc,
                shift: (self.reorder && !writes).then_some(RankShift::By(self.task_offset)),
                interleave: (!self.file_per_proc).then_some(self.block),
            },
            verify: (writes && self.check_write).then(|| crate::verify::VerifySpec {
                save: false,
                ..Default::default()
            }),
            cgroup: None,
        };
        job.validate()?;
        Ok(job)
    }

    /// Transfers of -t, in order or (-z) at random within each block.
    fn shape(&self, writes: bool, file_size: u64) -> Shape {
        let pattern = match self.random {
            true => Pattern::Random {
                align_bytes: self.transfer,
                distribution: Distribution::Uniform,
            },
            false => Pattern::Sequential {
                stride_bytes: self.transfer,
                interlocked: false,
                backwards: false,
            },
        };
        // A rank's own file: its blocks one after another; -z draws within each block.
        let zones = (self.random && self.file_per_proc).then_some(StridedZones {
            size: self.block,
            range: self.block,
            skip: 0,
        });
        Shape {
            block_size: self.transfer,
            block_mix: None,
            pattern,
            write_pct: if writes { 100 } else { 0 },
            random_pct: None,
            random_every: None,
            base_offset: 0,
            max_offset: Some(file_size),
            thread_offset: 0,
            thread_start: 0,
            zones,
            zbd: None,
            trim: Default::default(),
        }
    }

    fn timing(&self) -> Timing {
        Timing {
            warmup_ns: 0,
            stop: Stop::TotalBytes {
                bytes: self.rank_bytes(),
                max_ns: None,
            },
            until_steady: None,
            until_flat: None,
            stonewall: (self.deadline_s > 0).then_some(Stonewall {
                ns: self.deadline_s.saturating_mul(1_000_000_000),
                wear_out: self.wear_out,
            }),
            cooldown_ns: 0,
            interval_ns: 1_000_000_000,
        }
    }
}

fn unsupported(letter: char) -> Error {
    bad(format!(
        "Error invalid argument: -{letter} (not supported by iogauge ior; it reads -a -b -t -s \
         -F -C -Q -e -w -r -W -D -O -i -o -k -z -g -G -A -v)"
    ))
}

fn api(v: &str) -> Result<String> {
    match v.to_ascii_uppercase().as_str() {
        "POSIX" => Ok("POSIX".into()),
        "MPIIO" => Ok("MPIIO".into()),
        _ => Err(bad(format!(
            "-a {v}: iogauge ior runs the POSIX API (and MPIIO, as POSIX I/O)"
        ))),
    }
}

fn bad_number(v: &str, opt: &str) -> Error {
    bad(format!("{opt} '{v}': not a number"))
}

fn number(v: &str, opt: &str, name: &str) -> Result<u64> {
    v.parse()
        .map_err(|_| bad(format!("{opt} '{v}': {name} must be a whole number")))
}

/// IOR's sizes: a number with an optional k, m, g or t (powers of 1024, either case).
fn bytes(v: &str, opt: &str, name: &str) -> Result<u64> {
    let (digits, shift) = match v.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_lowercase() {
                'k' => 10,
                'm' => 20,
                'g' => 30,
                't' => 40,
                _ => return Err(bad_size(v, opt, name)),
            };
            (&v[..i], shift)
        }
        _ => (v, 0),
    };
    let n: u64 = digits.parse().map_err(|_| bad_size(v, opt, name))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| bad(format!("{opt} '{v}': {name} is too large")))
}

fn bad_size(v: &str, opt: &str, name: &str) -> Error {
    bad(format!(
        "{opt} '{v}': {name} must be a number with an optional k, m, g or t (e.g.: 8, 4k, 2m, 1g)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn err(line: &str) -> String {
        parse(&args(line)).unwrap_err().to_string()
    }

    #[test]
    fn ior_defaults_and_sizes_as_ior_reads_them() {
        let i = parse(&[]).unwrap();
        assert_eq!((i.block, i.transfer, i.segments), (1 << 20, 256 << 10, 1));
        assert!(i.write && i.read && i.test_file == "testFile");
        let i = parse(&args("-a MPIIO -b 4m -t1m -s 3 -F -w -o /mnt/f -k -i 2")).unwrap();
        assert_eq!((i.block, i.transfer, i.segments), (4 << 20, 1 << 20, 3));
        assert!(i.write && !i.read && i.keep && i.file_per_proc);
        assert_eq!(i.path_template(), "/mnt/f.{rank:08}");
        assert!(i.notes[0].starts_with("-a MPIIO runs as POSIX"));
    }

    #[test]
    fn the_strided_shared_file_is_dealt_in_blocks() {
        let i = parse(&args("-b 64k -t 16k -s 4")).unwrap();
        let j = i.job(Phase::Write, 4, false).unwrap();
        assert_eq!(j.targets[0].create_size, Some((4 * 4 * 64) << 10));
        assert_eq!(j.ranks.interleave, Some(64 << 10));
        assert!(j.ranks.shared_file && j.ranks.shift.is_none());
        assert_eq!(
            j.timing.stop,
            Stop::TotalBytes {
                bytes: (4 * 64) << 10,
                max_ns: None
            }
        );
        let r = parse(&args("-b 64k -t 16k -C -Q 2 -r")).unwrap();
        let j = r.job(Phase::Read, 4, false).unwrap();
        assert_eq!(j.ranks.shift, Some(RankShift::By(2)));
    }

    #[test]
    fn bad_lines_are_refused_in_one_line_in_iors_words() {
        for (line, want) in [
            (
                "-b 3k -t 2k",
                "-b: block size must be a multiple of transfer size",
            ),
            (
                "-b 1k -t 2k",
                "-b: block size must not be smaller than transfer size",
            ),
            ("-t 0", "-t: test will not complete with zero transfer size"),
            ("-s 0", "-s: segment count must be positive value"),
            ("-b 4q", "-b '4q': blockSize must be a number"),
            ("-b", "Error, argument missing for option -b"),
            ("-a HDF5", "-a HDF5: iogauge ior runs the POSIX API"),
            ("-Y", "Error invalid argument: -Y (not supported"),
            ("-wr", "Error invalid argument: -wr"),
            ("file", "Error invalid argument: file"),
            ("-R", "-R (checkRead) is not supported"),
            (
                "-O stoneWallingWearOut=1",
                "-O stoneWallingWearOut: the stoneWallingWearOut",
            ),
            (
                "-O stoneWallingStatusFile=x",
                "-O stoneWallingStatusFile: not supported",
            ),
            ("-O nokey", "-O nokey: a directive is key=value"),
            ("-z -C -t 1k", "-z -C: random offset and constant reorder"),
            (
                "-z -b 1m -t 1m",
                "-z: IOR will randomize access within a block",
            ),
            (
                "-b 99999999999t",
                "-b '99999999999t': blockSize is too large",
            ),
            ("-", "Error invalid argument: -"),
        ] {
            let e = err(line);
            assert!(e.starts_with(want), "{line}: {e}");
            assert!(!e.contains('\n'), "{line}: {e}");
        }
    }
}
