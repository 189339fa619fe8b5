//! IO500's phases as one run (`iogauge io500`): the configuration (a data folder, or an IO500
//! .ini file with IO500's sections and keys) and each phase's IOR or mdtest command line as
//! IO500 builds it (its phase_*.c), read by spec/ior.rs and spec/mdtest.rs so that their
//! meaning and checks stay in one place; the find phase's filter (pfind's). cmd/io500.rs runs
//! the phases, result/io500.rs scores them. What runs is not an IO500 result: the IO500 rules
//! require the unmodified ior, mdtest and pfind binaries, and the report says so.

use super::ior::{self, Ior};
use super::mdtest::{self, Mdtest};
use crate::error::{Error, Result};

/// IO500's stonewall-time, which its rules require ([debug] stonewall-time = 300).
pub const IO500_STONEWALL_S: u64 = 300;
/// ior-hard's transfer and block (IO500's -t 47008 -b 47008).
pub const HARD_XFER: u64 = 47008;
/// mdtest-hard's bytes written to and read from each file (IO500's -w 3901 -e 3901).
pub const HARD_FILE: u64 = 3901;

/// The run's configuration. Sizes stay as typed (IOR's syntax, such as `2m`), checked by
/// spec/ior.rs when the phases are made.
#[derive(Debug, Clone, PartialEq)]
pub struct Io500 {
    pub datadir: String,
    pub stonewall_s: u64,
    pub easy_transfer: String,
    pub easy_block: String,
    pub hard_segments: u64,
    pub easy_n: u64,
    pub hard_n: u64,
}

impl Default for Io500 {
    /// Small enough that a local disk runs every phase in seconds (IO500's own defaults,
    /// -b 9920000m and n = 1000000, are sized for a stonewall of 300 s on a cluster).
    fn default() -> Self {
        Io500 {
            datadir: "./datafiles".into(),
            stonewall_s: 30,
            easy_transfer: "2m".into(),
            easy_block: "16m".into(),
            hard_segments: 100,
            easy_n: 1000,
            hard_n: 1000,
        }
    }
}

/// IO500's score groups: a phase counts towards bandwidth (GiB/s) or metadata (kIOPS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Bandwidth,
    Metadata,
}

/// IO500's scored phases of a standard run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    IorEasyWrite,
    MdtestEasyWrite,
    IorHardWrite,
    MdtestHardWrite,
    Find,
    IorEasyRead,
    MdtestEasyStat,
    IorHardRead,
    MdtestHardStat,
    MdtestEasyDelete,
    MdtestHardRead,
    MdtestHardDelete,
}

/// The phases in IO500's order (phase-definitions.h, without its optional and unscored ones).
pub const PHASES: [Phase; 12] = [
    Phase::IorEasyWrite,
    Phase::MdtestEasyWrite,
    Phase::IorHardWrite,
    Phase::MdtestHardWrite,
    Phase::Find,
    Phase::IorEasyRead,
    Phase::MdtestEasyStat,
    Phase::IorHardRead,
    Phase::MdtestHardStat,
    Phase::MdtestEasyDelete,
    Phase::MdtestHardRead,
    Phase::MdtestHardDelete,
];

/// What one phase runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Ior(Ior, ior::Phase),
    /// One mdtest phase (-C, -T, -E or -r): the rate of the one it runs is the score.
    Mdtest(Mdtest),
    Find(Find),
}

/// pfind's `DATADIR -newer TIMESTAMPFILE -size 3901c -name *01*`.
#[derive(Debug, Clone, PartialEq)]
pub struct Find {
    pub root: String,
    pub newer: String,
    pub size: u64,
    /// The text `-name *01*` asks names to contain.
    pub name_part: String,
}

impl Phase {
    /// IO500's name of the phase.
    pub fn name(self) -> &'static str {
        use Phase::*;
        match self {
            IorEasyWrite => "ior-easy-write",
            MdtestEasyWrite => "mdtest-easy-write",
            IorHardWrite => "ior-hard-write",
            MdtestHardWrite => "mdtest-hard-write",
            Find => "find",
            IorEasyRead => "ior-easy-read",
            MdtestEasyStat => "mdtest-easy-stat",
            IorHardRead => "ior-hard-read",
            MdtestHardStat => "mdtest-hard-stat",
            MdtestEasyDelete => "mdtest-easy-delete",
            MdtestHardRead => "mdtest-hard-read",
            MdtestHardDelete => "mdtest-hard-delete",
        }
    }

    pub fn group(self) -> Group {
        match self.name().starts_with("ior") {
            true => Group::Bandwidth,
            false => Group::Metadata,
        }
    }
}

/// The folders IO500 makes in its data folder, one per kind of phase, and the find's
/// timestamp file (IO500 keeps it with its results; iogauge in the data folder).
pub const MADE: [&str; 5] = [
    "ior-easy",
    "ior-hard",
    "mdtest-easy",
    "mdtest-hard",
    "timestampfile",
];

impl Io500 {
    /// The phase's IOR or mdtest command line as IO500 builds it, read by iogauge's own.
    pub fn step(&self, phase: Phase) -> Result<Step> {
        use Phase::*;
        let d = &self.datadir;
        match phase {
            IorEasyWrite | IorEasyRead | IorHardWrite | IorHardRead => self.ior(phase),
            MdtestEasyWrite => self.mdtest("mdtest-easy", "-C"),
            MdtestEasyStat => self.mdtest("mdtest-easy", "-T"),
            MdtestEasyDelete => self.mdtest("mdtest-easy", "-r"),
            MdtestHardWrite => self.mdtest("mdtest-hard", "-C"),
            MdtestHardStat => self.mdtest("mdtest-hard", "-T"),
            MdtestHardRead => self.mdtest("mdtest-hard", "-E"),
            MdtestHardDelete => self.mdtest("mdtest-hard", "-r"),
            Find => Ok(Step::Find(self::Find {
                root: d.clone(),
                newer: format!("{d}/timestampfile"),
                size: HARD_FILE,
                name_part: "01".into(),
            })),
        }
    }

    /// IO500's ior-easy (a file per rank, -t and -b from the configuration) and ior-hard
    /// (one shared file of 47008-byte segments). Without -k: iogauge keeps the files from
    /// write to read itself, and removes them at the end.
    fn ior(&self, phase: Phase) -> Result<Step> {
        let easy = matches!(phase, Phase::IorEasyWrite | Phase::IorEasyRead);
        let mut line = match easy {
            true => format!(
                "-g -G 27 -e -o {}/ior-easy/ior_file_easy -C -Q 1 -t {} -b {} -F",
                self.datadir, self.easy_transfer, self.easy_block
            ),
            false => format!(
                "-C -Q 1 -g -G 27 -e -o {}/ior-hard/file -t {HARD_XFER} -b {HARD_XFER} -s {}",
                self.datadir, self.hard_segments
            ),
        };
        let writes = matches!(phase, Phase::IorEasyWrite | Phase::IorHardWrite);
        match (writes, self.stonewall_s) {
            (false, _) => line.push_str(" -r"),
            (true, 0) => line.push_str(" -w"),
            (true, s) => line.push_str(&format!(" -w -D {s} -O stoneWallingWearOut=1")),
        }
        let section = if easy { "ior-easy" } else { "ior-hard" };
        let ior = ior::parse(&words(&line)).map_err(|e| in_section(section, e))?;
        let which = if writes {
            ior::Phase::Write
        } else {
            ior::Phase::Read
        };
        Ok(Step::Ior(ior, which))
    }

    /// IO500's mdtest-easy (a folder per rank, empty files) and mdtest-hard (one folder all
    /// ranks share, 3901-byte files), each phase one of mdtest's -C, -T, -E, -r.
    fn mdtest(&self, section: &str, only: &str) -> Result<Step> {
        let d = &self.datadir;
        let line = match section {
            "mdtest-easy" => format!("-n {} -u -L -F -N 1 -d {d}/mdtest-easy", self.easy_n),
            _ => format!(
                "-n {} -w {HARD_FILE} -e {HARD_FILE} -N 1 -F -d {d}/mdtest-hard",
                self.hard_n
            ),
        };
        let m =
            mdtest::parse(&words(&format!("{line} {only}"))).map_err(|e| in_section(section, e))?;
        Ok(Step::Mdtest(m))
    }

    /// Every phase made once, so that a bad size is refused before anything runs.
    pub fn check(&self) -> Result<()> {
        if self.datadir.chars().any(char::is_whitespace) {
            return Err(Error::usage(format!(
                "datadir '{}': iogauge io500 takes a folder without spaces (IO500 passes it to \
                 ior and mdtest as one word)",
                self.datadir
            )));
        }
        for p in PHASES {
            self.step(p)?;
        }
        Ok(())
    }

    /// What the report says of the configuration, as (key, value) in IO500's words.
    pub fn described(&self) -> Vec<(String, String)> {
        let stonewall = match self.stonewall_s {
            IO500_STONEWALL_S => format!("{IO500_STONEWALL_S} s"),
            s => format!("{s} s (IO500's rules: {IO500_STONEWALL_S} s)"),
        };
        [
            ("datadir", self.datadir.clone()),
            ("stonewall-time", stonewall),
            (
                "ior-easy",
                format!(
                    "transferSize = {}, blockSize = {} (a file per rank)",
                    self.easy_transfer, self.easy_block
                ),
            ),
            (
                "ior-hard",
                format!(
                    "segmentCount = {} ({HARD_XFER} bytes each, one shared file)",
                    self.hard_segments
                ),
            ),
            (
                "mdtest-easy",
                format!("n = {} (empty files per rank)", self.easy_n),
            ),
            (
                "mdtest-hard",
                format!(
                    "n = {} ({HARD_FILE}-byte files per rank, one folder)",
                    self.hard_n
                ),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

/// An IOR or mdtest refusal of a size from the configuration, with the section it came from.
fn in_section(section: &str, e: Error) -> Error {
    Error::usage(format!("[{section}]: {e}"))
}

/// `iogauge io500 TARGET`: an IO500 .ini file (a name ending in .ini), else the data folder.
pub fn load(target: &str) -> Result<Io500> {
    if !target.ends_with(".ini") {
        return Ok(Io500 {
            datadir: target.to_string(),
            ..Io500::default()
        });
    }
    let text = std::fs::read_to_string(target)
        .map_err(|e| Error::usage(format!("Cannot open config file {target}: {e}")))?;
    from_ini(&text)
}

/// The sections IO500 knows (its phases' names), so that one iogauge reads nothing from may
/// still stand, empty, in a file made for IO500.
const SECTIONS: [&str; 22] = [
    "global",
    "debug",
    "ior-easy",
    "ior-easy-write",
    "ior-easy-read",
    "ior-hard",
    "ior-hard-write",
    "ior-hard-read",
    "ior-rnd4K-easy-read",
    "mdtest-easy",
    "mdtest-easy-write",
    "mdtest-easy-stat",
    "mdtest-easy-delete",
    "mdtest-hard",
    "mdtest-hard-write",
    "mdtest-hard-stat",
    "mdtest-hard-read",
    "mdtest-hard-delete",
    "find",
    "find-easy",
    "find-hard",
    "timestamp",
];

/// An IO500 .ini: `[section]` lines and `key = value` lines, `#` and `;` comments. Keys are
/// refused in one line in IO500's words unless iogauge reads them.
pub fn from_ini(text: &str) -> Result<Io500> {
    let mut cfg = Io500::default();
    let mut section: Option<String> = None;
    let mut datadir = false;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.split(['#', ';']).next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if !SECTIONS.contains(&name) {
                return Err(Error::usage(format!(
                    "Parsing error in line {n}, unknown section {name}"
                )));
            }
            section = Some(name.to_string());
            continue;
        }
        let Some(s) = &section else {
            return Err(Error::usage(format!(
                "Parsing error in line {n}, variable assigned outside section"
            )));
        };
        let (key, value) = line.split_once('=').ok_or_else(|| {
            Error::usage(format!(
                "Parsing error in section {s} line {n}, unexpected content: \"{line}\""
            ))
        })?;
        let (key, value) = (key.trim(), value.trim());
        datadir |= s == "global" && key == "datadir";
        cfg.set(s, key, value, n)?;
    }
    if !datadir {
        return Err(Error::usage(
            "[global]: The mandatory option \"datadir\" is not set",
        ));
    }
    Ok(cfg)
}

impl Io500 {
    fn set(&mut self, section: &str, key: &str, v: &str, n: usize) -> Result<()> {
        let int = |v: &str| -> Result<u64> {
            v.parse().map_err(|_| {
                Error::usage(format!(
                    "Parsing error in section {section} line {n}, option {key} expects integer \
                     >= 0, received \"{v}\""
                ))
            })
        };
        match (section, key) {
            ("global", "datadir") if !v.is_empty() => self.datadir = v.to_string(),
            ("debug", "stonewall-time") => self.stonewall_s = int(v)?,
            ("ior-easy", "transferSize") => self.easy_transfer = v.to_string(),
            ("ior-easy", "blockSize") => self.easy_block = v.to_string(),
            ("ior-hard", "segmentCount") => self.hard_segments = int(v)?,
            ("mdtest-easy", "n") => self.easy_n = int(v)?,
            ("mdtest-hard", "n") => self.hard_n = int(v)?,
            _ => {
                return Err(Error::usage(format!(
                    "Parsing error in section {section} line {n}, unknown option \"{key}\" with \
                     value \"{v}\" (iogauge io500 reads [global] datadir, [debug] \
                     stonewall-time, [ior-easy] transferSize and blockSize, [ior-hard] \
                     segmentCount, [mdtest-easy] n, [mdtest-hard] n)"
                )))
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io500_ini_sets_the_sizes_and_phases_follow_io500s_lines() {
        let cfg = from_ini(
            "[global]\ndatadir = /mnt/x # here\n[debug]\nstonewall-time = 5\n[ior-easy]\n\
             transferSize = 1m\nblockSize = 4m\n[ior-hard]\nsegmentCount = 7\n\
             [mdtest-easy]\nn = 10\n[mdtest-hard]\nn = 20\n[find]\n",
        )
        .unwrap();
        assert_eq!((cfg.stonewall_s, cfg.hard_segments), (5, 7));
        cfg.check().unwrap();
        let Step::Ior(i, ior::Phase::Write) = cfg.step(Phase::IorHardWrite).unwrap() else {
            panic!()
        };
        assert_eq!((i.transfer, i.block, i.segments), (47008, 47008, 7));
        assert!(!i.file_per_proc && i.wear_out && i.deadline_s == 5 && !i.keep);
        let Step::Ior(i, ior::Phase::Read) = cfg.step(Phase::IorEasyRead).unwrap() else {
            panic!()
        };
        assert!(i.file_per_proc && i.reorder && i.block == 4 << 20);
        let Step::Mdtest(m) = cfg.step(Phase::MdtestHardRead).unwrap() else {
            panic!()
        };
        assert!(m.read && !m.create && !m.unique && m.read_bytes == 3901 && m.items == 20);
        assert_eq!(m.dir, "/mnt/x/mdtest-hard");
        let names: Vec<&str> = PHASES.iter().map(|p| p.name()).collect();
        assert_eq!(names[4], "find");
        assert_eq!(Phase::IorHardRead.group(), Group::Bandwidth);
    }

    #[test]
    fn bad_files_are_refused_in_one_line_in_io500s_words() {
        for (text, want) in [
            (
                "[global]\ndatadir = x\nfoo = 1\n",
                "Parsing error in section global line 3, unknown option \"foo\" with value \"1\"",
            ),
            ("[nope]\n", "Parsing error in line 1, unknown section nope"),
            (
                "datadir = x\n",
                "Parsing error in line 1, variable assigned",
            ),
            (
                "[global]\ndatadir = x\n[mdtest-easy]\nn = many\n",
                "Parsing error in section mdtest-easy line 4, option n expects integer",
            ),
            ("[debug]\n", "[global]: The mandatory option \"datadir\""),
        ] {
            let e = from_ini(text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
        let bad = Io500 {
            easy_block: "3m".into(),
            ..Io500::default()
        };
        let e = bad.check().unwrap_err().to_string();
        assert!(
            e.starts_with("[ior-easy]: -b: block size must be a multiple"),
            "{e}"
        );
    }
}
