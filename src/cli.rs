//! The command-line interface: commands and flags only. Everything here is turned into a
//! validated [`crate::spec::JobSpec`] by [`crate::spec::native`]; nothing else reads flags.
//! `iogauge run`'s numbers, sizes and durations are read into their types by clap, through
//! [`crate::spec::native::read`].

use crate::spec::native::read::{self, Checked};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The exit codes, for every --help that needs them.
macro_rules! exit_codes {
    () => {
        "\n\nExit codes:\n  0    the run completed and its results were printed\n  1    the run failed while running (I/O error, file could not be created); partial results are printed\n  2    bad input: a flag, value or target was rejected before any I/O\n  3    iogauge check: a figure fell short of its baseline by more than --tolerance\n  130  stopped by Ctrl-C or SIGTERM; partial results are printed and marked partial"
    };
}

const MAIN_HELP: &str = concat!(
    "\
Without a command, iogauge runs the quick profile on a temporary 1 GiB file in the current
folder and prints a compact table (the same as `iogauge quick`).

Examples:
  iogauge                                  quick profile here: sequential, random IOPS, QD1 latency
  iogauge quick /mnt/data --size 4G        the same on a 4 GiB file in /mnt/data
  iogauge profiles                         the named profiles and what each runs
  iogauge profile database /mnt/data       8K random 70/30 read/write
  iogauge explain quick                    each pass as iogauge run, fio and DiskSpd command lines
  iogauge run -b 4k -r -o 32 -t 4 -d 30    one workload, DiskSpd-style flags
  iogauge fs /mnt/ext4 /mnt/xfs            file-system suite: create/open/list/delete, page I/O
  iogauge selftest                         how far to trust this instrument on this machine",
    exit_codes!()
);

#[derive(Parser, Debug)]
#[command(name = "iogauge", version, about = "Storage and file-system performance measurement",
          after_help = MAIN_HELP)]
pub struct Cli {
    /// The results database [default: $XDG_DATA_HOME/iogauge/results.db]
    #[arg(long = "db", value_name = "FILE", env = "IOGAUGE_DB", global = true)]
    pub db: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Keep I/Os in flight against files or block devices and report IOPS, throughput and latency.
    #[command(after_help = RUN_HELP)]
    Run(Box<RunArgs>),
    /// Run the quick profile (the default): sequential 1M, random 4K IOPS and QD1 latency, on a
    /// temporary file in DIR.
    #[command(after_help = QUICK_HELP)]
    Quick(ProfileArgs),
    /// Run a named profile on a temporary file in DIR (see `iogauge profiles`).
    #[command(after_help = PROFILE_HELP)]
    Profile(NamedProfileArgs),
    /// Compare file systems at metadata (create, open, list, rename, delete) and page I/O
    /// (cached, O_DIRECT, mapped, fsync): the WinFsp-style suite.
    #[command(after_help = FS_HELP)]
    Fs(FsArgs),
    /// An iozone-style grid: file sizes x record sizes, each test one pass over the file, and
    /// per test and record size the file size where the cache stops helping (the knee).
    #[command(after_help = SWEEP_HELP)]
    Sweep(SweepArgs),
    /// Run an iozone command line (-a, -i N, -s, -r, -I, -e, -c, -t N, -R...) with iozone's
    /// defaults and meaning, as a sweep; -R prints iozone's report layout.
    #[command(after_help = IOZONE_HELP, disable_help_flag = true)]
    Iozone(FioArgs),
    /// Run fio job files or a fio command line (--name=... --rw=... --bs=...) with fio's
    /// meaning, and report as fio would (--output-format=json gives fio-shaped JSON).
    #[command(after_help = FIO_HELP, disable_help_flag = true)]
    Fio(FioArgs),
    /// Run a DiskSpd command line (-b8K -o32 -t4 -r -w30 -Sh -L -c1G file) with DiskSpd's
    /// defaults and meaning; -Rxml writes DiskSpd's XML.
    #[command(after_help = DISKSPD_HELP, disable_help_flag = true)]
    Diskspd(FioArgs),
    /// Run an IOR command line (-a POSIX -b 16m -t 1m -s 4 -F -C -e -w -r -i 3 -o FILE) with
    /// IOR's meaning, alone or as the ranks of an MPI job, and report in IOR's format.
    #[command(after_help = IOR_HELP, disable_help_flag = true)]
    Ior(FioArgs),
    /// Run an mdtest command line (-n 1000 -i 3 -u -d DIR -F -C -T -r ...) with mdtest's
    /// meaning, alone or as the ranks of an MPI job, and print mdtest's rate table.
    #[command(after_help = MDTEST_HELP, disable_help_flag = true)]
    Mdtest(FioArgs),
    /// Run IO500's twelve phases (ior-easy, mdtest-easy, ior-hard, mdtest-hard, find) as one
    /// run on a folder, alone or as the ranks of an MPI job, and print IO500's result lines
    /// and score, labelled NON-COMPLIANT (not the unmodified ior, mdtest and pfind).
    #[command(after_help = IO500_HELP)]
    Io500(Io500Args),
    /// Make a seeded tree of files of chosen sizes and compressibility, with a manifest of
    /// every file's size and checksum (`dataset create`); check a tree against it (`verify`).
    #[command(after_help = DATASET_HELP)]
    Dataset(DatasetArgs),
    /// Check a target written with --verify --keep against its saved state: every unit holds
    /// at least what was flushed at the last checkpoint, none torn, corrupted or foreign (after
    /// a crash, a failover or a power cut). Exit 3 where one does not.
    #[command(after_help = VERIFY_HELP)]
    Verify(VerifyArgs),
    /// Real work on a tree, timed: copy, archive (zip, tar.zst), extract, scan, readall,
    /// delete, or a script of them (mixed); optionally side by side with cp, tar, zip, find, rm.
    #[command(after_help = WORKLOAD_HELP)]
    Workload(WorkloadArgs),
    /// List the named profiles and what each runs.
    #[command(after_help = "Examples:\n  iogauge profiles\n  iogauge explain database")]
    Profiles,
    /// Print a profile, or an `iogauge run` command line, as iogauge run command lines, a fio
    /// job file and DiskSpd command lines.
    #[command(after_help = EXPLAIN_HELP)]
    Explain(ExplainArgs),
    /// Measure the instrument on this machine: iogauge's own cost per I/O, the clock's cost,
    /// and the error of reported latencies against known injected ones.
    #[command(
        after_help = "Examples:\n  iogauge selftest\n  iogauge selftest --seconds 2 --output json"
    )]
    Selftest(SelftestArgs),
    /// List, show, delete, export and import saved results.
    #[command(after_help = RESULTS_HELP)]
    Results(ResultsArgs),
    /// Compare saved runs side by side, with ratios to the first and run-to-run noise.
    #[command(after_help = COMPARE_HELP)]
    Compare(CompareArgs),
    /// Name a saved run as a baseline, to check against later.
    #[command(after_help = BASELINE_HELP)]
    Baseline(BaselineArgs),
    /// Run a baseline's workload again and fail (exit 3) if it got slower than the baseline.
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Write saved runs as a self-contained HTML report with charts, Markdown tables or PNGs.
    #[command(after_help = REPORT_HELP)]
    Report(ReportArgs),
    /// Write man pages for iogauge and each command into DIR.
    #[command(
        after_help = "Examples:\n  iogauge man /usr/local/share/man/man1\n  man -l iogauge-run.1"
    )]
    Man(ManArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  iogauge completions bash > /etc/bash_completion.d/iogauge\n  iogauge completions zsh > ~/.zfunc/_iogauge\n  iogauge completions fish > ~/.config/fish/completions/iogauge.fish"
    )]
    Completions(CompletionsArgs),
}

const RESULTS_HELP: &str = "\
Every run of iogauge run, quick, profile and check is saved (unless --no-save) in the results
database: --db FILE or IOGAUGE_DB, default $XDG_DATA_HOME/iogauge/results.db. Dates are UTC.

Examples:
  iogauge results list                               the 50 newest
  iogauge results list --target /mnt/data --since 7d
  iogauge results list --profile quick --tag prod
  iogauge results show 42
  iogauge results export 42 --output csv > run42.csv
  iogauge results import run-from-server-b.json
  iogauge results delete 41 42";

const COMPARE_HELP: &str = "\
Passes are matched by their label (a profile's passes), or by position when every run has one.
Where a run's workload was saved more than once, the spread of those repeats is the noise:
a difference is called beyond noise when it exceeds twice the combined coefficient of variation.

Examples:
  iogauge compare 41 42
  iogauge compare 12 30 31 --output markdown";

const BASELINE_HELP: &str = "\
Examples:
  iogauge baseline save prod-db 42
  iogauge baseline list
  iogauge baseline delete prod-db";

const CHECK_HELP: &str = concat!(
    "\
Runs the baseline's exact workload again (a run's job, or a profile with its size and
durations), saves the new run, prints each figure against the baseline, and exits 3 when IOPS
or throughput fell, or latency (p99, mean) rose, by more than --tolerance.

Examples:
  iogauge check --baseline prod-db                    on the baseline's own target
  iogauge check --baseline prod-db /mnt/new-volume    the same workload elsewhere
  iogauge check --baseline prod-db --tolerance 5%",
    exit_codes!()
);

const REPORT_HELP: &str = "\
The HTML file needs nothing else: charts are inline SVG, there are no scripts or network
requests. Several runs in one report are overlaid and compared.

Examples:
  iogauge report 42 --html run42.html
  iogauge report 41 42 43 --html compare.html --markdown compare.md
  iogauge report 42 --png charts/";

#[derive(Args, Debug, Clone, Default)]
pub struct SaveOpts {
    /// Tag the saved result (repeatable), for `iogauge results list --tag`
    #[arg(long = "tag", value_name = "TAG", help_heading = "Output")]
    pub tags: Vec<String>,

    /// Do not save the result in the results database
    #[arg(long = "no-save", help_heading = "Output")]
    pub no_save: bool,
}

/// The report's format, where it goes, and the progress line: the same three flags, with the
/// same defaults, on every command that measures (run, quick, profile, sweep, fs, workload).
/// Each of those says in its own `mut_arg` which formats it writes and what its progress is.
#[derive(Args, Debug, Clone)]
pub struct OutputOpts {
    /// Report format: text, json or csv
    #[arg(
        long = "output",
        value_name = "FORMAT",
        default_value = "text",
        help_heading = "Output"
    )]
    pub output: OutputFormat,

    /// Where to write the report; - is stdout
    #[arg(
        long = "output-file",
        value_name = "FILE",
        default_value = "-",
        help_heading = "Output"
    )]
    pub output_file: String,

    /// No progress line
    #[arg(short = 'q', long = "quiet", help_heading = "Output")]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct ResultsArgs {
    #[command(subcommand)]
    pub command: ResultsCommand,
}

#[derive(Args, Debug)]
pub struct DatasetArgs {
    #[command(subcommand)]
    pub command: DatasetCommand,
}

#[derive(Subcommand, Debug)]
pub enum DatasetCommand {
    /// Make a dataset in DIR (new, or empty unless --force)
    Create(DatasetCreateArgs),
    /// Check the files in DIR against a dataset's manifest (exit 3 if any is missing or differs)
    Verify(DatasetVerifyArgs),
}

#[derive(Args, Debug)]
pub struct DatasetCreateArgs {
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// A named dataset (zip-seed, source-tree, photos, mail-spool); flags given override it
    #[arg(long = "preset", value_name = "NAME")]
    pub preset: Option<String>,
    /// Number of files [default: 1000]
    #[arg(long = "files", value_name = "N")]
    pub files: Option<u64>,
    /// Folders below DIR [default: about one per 64 files]
    #[arg(long = "dirs", value_name = "N", conflicts_with = "fanout")]
    pub dirs: Option<u64>,
    /// Subfolders of each folder: with --depth, a full tree of folders
    #[arg(long = "fanout", value_name = "N")]
    pub fanout: Option<u64>,
    /// Levels of folders below DIR [default: 2]
    #[arg(long = "depth", value_name = "N")]
    pub depth: Option<u32>,
    /// File sizes: fixed:SIZE, lognormal:MEDIAN:SIGMA or histogram:FILE (lines "SIZE WEIGHT")
    /// [default: lognormal:64K:1.0]
    #[arg(long = "size-dist", value_name = "DIST")]
    pub size_dist: Option<String>,
    /// The share deflate and zstd compress away, 0 to 99 percent [default: 50]
    #[arg(long = "compressible", value_name = "PCT")]
    pub compressible: Option<u32>,
    /// Seed of names, sizes and content: the same seed, the same dataset
    #[arg(long = "seed", value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Threads writing files [default: the CPUs, at most 8]
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<u32>,
    /// Make it in a folder that holds other things (none of them is written over)
    #[arg(long = "force")]
    pub force: bool,
    /// Keep what was made if it fails or is interrupted (by default it is removed)
    #[arg(long = "keep")]
    pub keep: bool,
    /// Report format: text or json
    #[arg(long = "output", value_name = "FORMAT", default_value = "text")]
    pub output: OutputFormat,
}

#[derive(Args, Debug)]
pub struct DatasetVerifyArgs {
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The manifest to check against [default: DIR/.iogauge-dataset]
    #[arg(long = "manifest", value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Threads reading files [default: the CPUs, at most 8]
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<u32>,
    /// Report format: text or json
    #[arg(long = "output", value_name = "FORMAT", default_value = "text")]
    pub output: OutputFormat,
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The file or block device written earlier with --verify --keep
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,
    /// Its state [default: TARGET.iogauge-verify, as the run saved it]
    #[arg(long = "state", value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Threads reading it back [default: the CPUs, at most 8]
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<u32>,
    /// Write the found and expected bytes of each mismatch into DIR
    #[arg(long = "dump", value_name = "DIR")]
    pub dump: Option<PathBuf>,
    /// Report format: text or json
    #[arg(long = "output", value_name = "FORMAT", default_value = "text")]
    pub output: OutputFormat,
}

const WORKLOAD_OUTPUT_HELP: &str =
    "Report format: text, json or csv (one row per step and repetition)";

#[derive(Args, Debug)]
#[command(mut_arg("output", |a| a.help(WORKLOAD_OUTPUT_HELP)))]
pub struct WorkloadArgs {
    /// copy, archive, extract, scan, readall, delete, or mixed (with --script or --steps)
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The tree to work on (a dataset, or any folder: it is only read), or for extract an
    /// archive (.zip, .tar.zst)
    #[arg(long = "source", value_name = "DIR|ARCHIVE")]
    pub source: PathBuf,
    /// Where the outputs go: a new folder, or an empty one (--force: one with other things in
    /// it); on the file system to measure
    #[arg(long = "target", value_name = "DIR")]
    pub target: Option<PathBuf>,
    /// Threads per step [default: the CPUs, at most 8]
    #[arg(long = "threads", value_name = "N")]
    pub threads: Option<u32>,
    /// copy: read-write, copy_file_range (as cp; the kernel may share extents) or io_uring on
    /// Linux; CopyFileExW (as Explorer and robocopy), block-clone (ReFS) or read-write on
    /// Windows [default: copy_file_range on Linux, CopyFileExW on Windows]
    #[arg(long = "method", value_name = "METHOD")]
    pub method: Option<String>,
    /// archive (and extract of a tree): zip or tar.zst
    #[arg(long = "format", value_name = "FORMAT", default_value = "zip")]
    pub format: String,
    /// archive: compression level [default: zip 6, zstd 3, as the tools]
    #[arg(long = "level", value_name = "N", allow_negative_numbers = true)]
    pub level: Option<i32>,
    /// mixed: a file of steps, one a line ("archive format=zip threads=4")
    #[arg(long = "script", value_name = "FILE", conflicts_with = "steps")]
    pub script: Option<PathBuf>,
    /// mixed: the steps inline, comma-separated ("archive format=zip, extract")
    #[arg(long = "steps", value_name = "LIST")]
    pub steps: Option<String>,
    /// Repetitions of the whole workload; the report gives the fastest and the median
    #[arg(long = "repeat", value_name = "N", default_value_t = 1)]
    pub repeat: u32,
    /// Run the system's own tool on the same work too (cp -r, zip -r/unzip, tar --zstd, find,
    /// rm -rf), alternating with iogauge, and print the ratio
    #[arg(long = "compare-with-tools")]
    pub compare_with_tools: bool,
    /// Keep caches warm: do not drop them before each step
    #[arg(long = "no-drop-caches")]
    pub no_drop_caches: bool,
    /// Do not check the trees copy and extract make against the source
    #[arg(long = "no-verify")]
    pub no_verify: bool,
    /// Time-series interval in milliseconds (at least 10)
    #[arg(long = "interval", value_name = "MS", default_value_t = 100)]
    pub interval: u64,
    /// Work in a --target that holds other things (never writing over any of them)
    #[arg(long = "force")]
    pub force: bool,
    /// Keep what the last repetition made (by default it is removed)
    #[arg(long = "keep")]
    pub keep: bool,
    #[command(flatten)]
    pub out: OutputOpts,
    #[command(flatten)]
    pub save: SaveOpts,
}

#[derive(Subcommand, Debug)]
pub enum ResultsCommand {
    /// List saved results, newest first
    List(ListArgs),
    /// Print a saved result as its report
    Show(ShowArgs),
    /// Delete saved results
    Delete {
        #[arg(value_name = "ID", required = true)]
        ids: Vec<i64>,
    },
    /// Print a saved result as JSON (the full result) or CSV (the time series)
    Export(ShowArgs),
    /// Save JSON results (iogauge's --output json, also from another machine)
    Import {
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
        /// Tag the imported results (repeatable)
        #[arg(long = "tag", value_name = "TAG", help_heading = "Output")]
        tags: Vec<String>,
    },
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Only results whose target contains this text
    #[arg(long = "target", value_name = "TEXT")]
    pub target: Option<String>,
    /// Only this profile's results (run: single runs)
    #[arg(long = "profile", value_name = "NAME")]
    pub profile: Option<String>,
    /// Only results with this tag
    #[arg(long = "tag", value_name = "TAG", help_heading = "Output")]
    pub tag: Option<String>,
    /// Only results from this date (2026-11-22, UTC) or age (12h, 7d, 2w) on
    #[arg(long = "since", value_name = "WHEN")]
    pub since: Option<String>,
    /// Only results before this date or age
    #[arg(long = "until", value_name = "WHEN")]
    pub until: Option<String>,
    /// How many, newest first
    #[arg(long = "limit", value_name = "N", default_value_t = 50)]
    pub limit: usize,
    /// All that match, however many
    #[arg(long = "all", conflicts_with = "limit")]
    pub all: bool,
    /// text or json
    #[arg(long = "output", value_name = "FORMAT", default_value = "text")]
    pub output: OutputFormat,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    #[arg(value_name = "ID")]
    pub id: i64,
    /// text (the report), json (the full result) or csv (the time series)
    #[arg(long = "output", value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    Text,
    Markdown,
    Json,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Saved runs; the first is the reference (1.00)
    #[arg(value_name = "ID", num_args = 2.., required = true)]
    pub ids: Vec<i64>,
    /// text, markdown or json
    #[arg(long = "output", value_name = "FORMAT", default_value = "text")]
    pub output: TableFormat,
}

#[derive(Args, Debug)]
pub struct BaselineArgs {
    #[command(subcommand)]
    pub command: BaselineCommand,
}

#[derive(Subcommand, Debug)]
pub enum BaselineCommand {
    /// Name saved run ID as baseline NAME (replacing an earlier baseline of that name)
    Save {
        #[arg(value_name = "NAME")]
        name: String,
        #[arg(value_name = "ID")]
        id: i64,
    },
    /// List the baselines
    List,
    /// Delete a baseline (the run stays saved)
    Delete {
        #[arg(value_name = "NAME")]
        name: String,
    },
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The baseline to check against (iogauge baseline list)
    #[arg(long = "baseline", value_name = "NAME")]
    pub baseline: String,
    /// Run here instead of the baseline's target: a folder for a profile, files or devices
    /// (as many as the baseline had) for a run
    #[arg(value_name = "TARGET")]
    pub targets: Vec<PathBuf>,
    /// How far a figure may fall (IOPS, MB/s) or rise (latency) before the check fails
    #[arg(long = "tolerance", value_name = "PERCENT", default_value = "10%")]
    pub tolerance: String,
    /// With TARGET: allow writing to an existing file iogauge did not create
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
    #[command(flatten)]
    pub save: SaveOpts,
    /// No progress bar
    #[arg(short = 'q', long = "quiet")]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Saved runs; several are overlaid and compared, the first is the reference
    #[arg(value_name = "ID", required = true)]
    pub ids: Vec<i64>,
    /// Write a self-contained HTML report to FILE
    #[arg(long = "html", value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write the tables as Markdown to FILE (- for stdout)
    #[arg(long = "markdown", value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write each chart as a PNG into DIR
    #[arg(long = "png", value_name = "DIR")]
    pub png: Option<PathBuf>,
}

const QUICK_HELP: &str = concat!(
    "\
Examples:
  iogauge quick                       here, 1 GiB, 5 s per pass
  iogauge quick /mnt/nvme --size 8G   a file larger than the device's cache
  iogauge quick -d 30 --output json   longer passes, results as JSON (one run result per pass)",
    exit_codes!()
);

const SWEEP_HELP: &str = "\
Tests (--tests, in this order; iozone's -i number in brackets):
  write [0]  rewrite [0]  read [1]  reread [1]  random_read [2]  random_write [2]
  backward_read [3]  record_rewrite [4]  stride_read [5]
Sizes: a list (4K,64K,1M) or a doubling range (64K..1G). Record sizes larger than a file are
skipped, and, as iozone -a does, records under 64K for files of 32M and more (--all-records
keeps them).

Examples:
  iogauge sweep /mnt/nas --file-sizes 1M..4G --record-sizes 64K,1M --tests write,read
  iogauge sweep /data --memory-limit 256M --file-sizes 16M..1G --record-sizes 1M
  iogauge sweep /data --cache direct --include-flush --output csv
  iogauge compare 12 13            two saved sweeps, cell by cell
  iogauge report 12 13 --html r.html   throughput by file size, a line per record size";

const IOZONE_HELP: &str = "\
Read: -a -A -z -i N -s SIZE -r SIZE -n SIZE -g SIZE -y SIZE -q SIZE -f FILE -I -e -c -o -R
-b FILE -t N -j N -O -w -+n -+u, and -T -p (accepted, with a note). Sizes are in kB unless
suffixed k, m or g, as in iozone. iozone's table (or -t's lines) is printed always, after
iogauge's own report (--output text|json|csv after the iozone options) and the knees.

Examples:
  iogauge iozone -a -g 2G -f /mnt/nas/iozone.tmp
  iogauge iozone -Ra -n 1m -g 1g -i 0 -i 1 -f /data/iozone.tmp
  iogauge iozone -e -I -a -s 100M -r 4k -r 16384k -i 0 -i 1 -i 2 -f /mnt/sd/test
  iogauge iozone -t 4 -s 1g -r 1m -i 0 -i 1 -F /data/f1 /data/f2 /data/f3 /data/f4";

const DATASET_HELP: &str = "\
Examples:
  iogauge dataset create /mnt/share/ds --files 5000 --size-dist lognormal:64K:1.5 --compressible 60
  iogauge dataset create /mnt/share/zip --preset zip-seed
  iogauge dataset verify /mnt/other/copy-of-ds --manifest /mnt/share/ds/.iogauge-dataset

Presets (--preset; any flag given as well overrides the preset's value):
  zip-seed     757 files of about 17 MiB, 83% compressible (the seed's zip and unzip test)
  source-tree  20,000 files of about 4 KiB in folders 4 deep, 75% compressible
  photos       2,000 files of about 3 MiB, 2% compressible (already compressed)
  mail-spool   50,000 messages of about 6 KiB, 60% compressible

The content is random bytes between copies of earlier bytes (LZ back-references within 32 KiB),
in the share that makes deflate and zstd save about --compressible percent: neither zeros nor
a repeated block. The manifest (.iogauge-dataset in the top folder) holds each file's size and
XXH3-64; the same flags and --seed give the same manifest and dataset checksum anywhere.
verify exits 3 when a file of the manifest is missing or of another size or content; files the
manifest does not name are listed, not counted against it.";

const VERIFY_HELP: &str = "\
Examples:
  iogauge run -c 4G -r -w 100 -d 60 --verify --keep /mnt/test/data.bin    (then crash, fail over...)
  iogauge verify /mnt/test/data.bin

A run with --verify --keep saves TARGET.iogauge-verify at each checkpoint (every second, after
flushing every write completed so far) and at its end. verify reads every unit back: one older
than the state is a lost write, one newer was written after the last checkpoint (as may be after
a crash, and fine), one with a bad header or content is torn or corrupted, one with another
target's, offset's or run's header is foreign. The state names its target (device, inode, size)
and its run's seed: a state of another target is refused. A later --verify run on the target
loads it (--verify-load) or starts over (--verify-fresh); without either it is refused.";

const WORKLOAD_HELP: &str = "\
Examples:
  iogauge dataset create /data/ds --preset zip-seed
  iogauge workload copy --source /data/ds --target /mnt/share/copy --threads 4
  iogauge workload archive --source /data/ds --target /mnt/share/out --format tar.zst
  iogauge workload extract --source /mnt/share/ds.zip --target /mnt/share/x
  iogauge workload scan --source /mnt/share/ds --compare-with-tools
  iogauge workload mixed --source /data/ds --target /mnt/share/w --steps 'archive format=zip threads=4, extract'

Steps: copy (a tree, --method), archive (--format zip|tar.zst, --level), extract (an archive;
a tree is archived first, untimed), scan (stat every entry), readall (read every file),
delete (removes a copy of the tree made first, untimed, or the tree a step before made).
The source is only read. Outputs are made new in --target and removed afterwards unless
--keep. Caches are dropped before each step (root; else the files' own pages). The trees
copy and extract make are checked against the source's manifest, or its files.";

const FS_HELP: &str = concat!(
    "\
Tests (--tests takes names, or the groups metadata and page_io):
  file_create         create a new file: open(O_CREAT|O_EXCL) + close           (--files ops)
  file_open           open a different existing file + close                   (--files)
  iter.file_open      open the same files again + close                        (--files x --iterations)
  file_overwrite      open an existing file with O_TRUNC + close               (--files)
  file_stat           stat an existing file                                    (--files)
  file_list           list a folder of --files files (ops: entries)            (--files x --iterations)
  file_list_single    list a folder holding one file: open + getdents + close  (--files x --iterations)
  file_rename         rename a file within its folder                          (--files)
  file_delete         delete a file                                            (--files)
  dir_create          create a folder                                          (--files)
  dir_delete          remove an empty folder                                   (--files)
  rdwr_cc_write_page  buffered pwrite of one page         (pages of --file-size x --iterations)
  rdwr_cc_read_page   buffered pread of one page          (same)
  rdwr_nc_write_page  O_DIRECT pwrite of one page         (same; not supported without O_DIRECT)
  rdwr_nc_read_page   O_DIRECT pread of one page          (same)
  mmap_write          write a whole mapped page           (same)
  mmap_read           read a whole mapped page            (same)
  fsync               pwrite one page, then fsync         (pages of --file-size)

Each test runs --repeat times on every folder, in a fresh subfolder of DIR/iogauge-fs-PID that
is removed afterwards. Only the loop of system calls is timed; setting up its files is not.
Caches are dropped before every measurement (as root: sync; echo 3 > /proc/sys/vm/drop_caches;
otherwise posix_fadvise(DONTNEED) on the data file). The report gives the fastest repetition,
the median and the spread, and ratios to the reference (the first folder by default).

Examples:
  iogauge fs /mnt/ext4 /mnt/xfs /dev/shm             three file systems, ext4 the reference
  iogauge fs ssd=/mnt/a nfs=/mnt/b --reference nfs   name them; ratios to nfs
  iogauge fs /mnt/a --files 100000 --threads 8       more files, eight threads at once
  iogauge fs /mnt/a --tests metadata --output json   the metadata tests, every repetition as JSON",
    exit_codes!()
);

const PROFILE_HELP: &str = concat!(
    "\
Examples:
  iogauge profile iops /mnt/data
  iogauge profile burst /mnt/cloud --size 64G -d 3600     write until the burst ends (at most 1 h)
  iogauge profile cache /mnt/data                          needs 1.25 x memory of free space",
    exit_codes!()
);

const EXPLAIN_HELP: &str = "\
Examples:
  iogauge explain quick
  iogauge explain database --size 8G
  iogauge explain --format fio quick > quick.fio
  iogauge explain run -b 8k -r -w 30 -o 16 -t 4 -d 60 data.bin";

#[derive(Args, Debug, Clone)]
pub struct ProfileArgs {
    /// Folder for the temporary test file (removed afterwards)
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,

    #[command(flatten)]
    pub opts: ProfileOpts,
}

/// `iogauge fio`'s and `iogauge diskspd`'s arguments are the other tool's, read by its front
/// end in `spec`, not by clap: fio writes `--key=value` and may put options after job files;
/// DiskSpd glues values to one-letter flags.
#[derive(Args, Debug, Clone)]
pub struct FioArgs {
    /// The other tool's arguments, as it takes them
    #[arg(value_name = "ARGS", trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<String>,
}

pub const FIO_HELP: &str = "\
Arguments are fio's: job files (INI, with [global], include, ${VAR}) and --key=value options
(or --key value, as fio takes them; bare flags such as --time_based take no value).
Options before the first --name apply to every job (also those of job files); options after a
--name belong to that job. Jobs run as fio runs them: together, a stonewall job waiting for
the ones before it; each job's numjobs clones get their own file unless filename= names one.

Besides the job options, iogauge fio takes:
  --output-format=normal|json|json+  fio's text, or fio-shaped JSON (always valid JSON)
  --output=FILE                      write the report to FILE
  --section=NAME                     run only this job (repeatable)
  --parse-only                       print the jobs as iogauge will run them (JSON); run nothing
  --ignore-unsupported               run without options iogauge does not support (a warning each)
  --allow-overwrite                  write to block devices and files iogauge did not create
  --keep                             keep the files iogauge created (removed by default)
  --tag=TAG, --no-save               as for iogauge run (each job is saved as a run)
  --verbose                          say each group, and each job's saved run ID, on stderr
                                     (a clean run writes nothing there otherwise, as fio)
  --eta=..., --eta-newline=...       accepted and ignored (iogauge shows no ETA line)
  --max-jobs=N                       accepted and ignored, as fio 3.33 does
  --version                          fio's version line, fio-3.33, then iogauge's version

An option iogauge does not support is an error naming it, its file and line, and whether
support is planned. fio's defaults apply: ioengine=psync, iodepth=1, bs=4k, buffered I/O.

Examples:
  iogauge fio jobs.fio
  iogauge fio --name=rand --filename=/data/t --size=1G --rw=randread --bs=4k \\
      --ioengine=libaio --iodepth=32 --direct=1 --runtime=30 --time_based
  iogauge fio jobs.fio --output-format=json > out.json

Exit codes: 0 ok, 1 failure (I/O error), 2 bad input, 130 interrupted.";

pub const IOR_HELP: &str = "\
Arguments are IOR's: -a POSIX|MPIIO (both run as POSIX I/O) -b blockSize -t transferSize
-s segmentCount -F (file per process, testFile.00000003) -C -Q N (read back the data of the
rank N further on) -e (fsync after writing) -w -r (write, read; both when neither is given)
-W (read back and check what was written) -D N (stonewall deadline, seconds) -O
stoneWallingWearOut=1 -i N (repetitions) -o testFile -k (keep the file) -z (random offsets
within each block) -g (barriers) -G N (seed) -A N (reference number) -v; -O summaryFormat=JSON
prints IOR's JSON. Each rank moves blockSize x segmentCount bytes per phase; in one shared
file, segment i of rank r of n lies at (i*n + r) x blockSize. Anything else is refused in one
line. Under mpirun (build with --features mpi) every rank runs its part; rank 0 prints.
Bandwidth is every rank's bytes over the time from the first rank's first transfer to the
last rank's last: open and close are not timed (the report says so).

iogauge's own options: --allow-overwrite (write a testFile iogauge did not create), --quiet.

Examples:
  iogauge ior -a POSIX -b 64m -t 1m -s 4 -F -e -w -r -i 3 -o /mnt/scratch/ior/testFile
  mpirun -np 16 iogauge ior -C -Q 1 -g -e -t 47008 -b 47008 -s 1000 -w -r -o /mnt/ior/file
";

pub const MDTEST_HELP: &str = "\
Arguments are mdtest's: -n items per rank, -I items per directory, -z depth, -b branching
factor, -d dir (default ./out), -u (a tree per rank), -F (files only), -D (directories only),
-C (create only), -T (stat only), -E (read only), -r (remove only), -i iterations, -w bytes
written to each file, -e bytes read from each file, -L (items at the leaves only), -N stride
(stat and read the items of the rank this far on), -t and -v (accepted). Items are spread
over the tree as mdtest spreads them. Anything else is refused in one line. Everything is made
in DIR/test-dir.<iteration>-0, which must be new. Under mpirun (build with --features mpi)
every rank runs its part, the ranks meet before and after each phase, and rank 0 prints
mdtest's rate table: every rank's items over the slowest rank's time.

Examples:
  iogauge mdtest -n 1000 -i 3 -u -d /mnt/scratch/mdtest
  mpirun -np 16 iogauge mdtest -n 1000 -F -w 3901 -e 3901 -d /mnt/md -N 1
";

#[derive(Args, Debug, Clone)]
pub struct Io500Args {
    /// The data folder (made if missing), or an IO500 .ini file (a name ending in .ini)
    #[arg(value_name = "DIR|CONFIG.ini")]
    pub target: String,

    /// Seconds after which the write phases stop (IO500's stonewall-time; its rules: 300)
    #[arg(long = "stonewall", value_name = "S")]
    pub stonewall: Option<u64>,

    /// Print the result as JSON
    #[arg(long)]
    pub json: bool,

    /// No progress line
    #[arg(long)]
    pub quiet: bool,
}

pub const IO500_HELP: &str = "\
IO500's phases in IO500's order: ior-easy-write, mdtest-easy-write, ior-hard-write,
mdtest-hard-write, find, ior-easy-read, mdtest-easy-stat, ior-hard-read, mdtest-hard-stat,
mdtest-easy-delete, mdtest-hard-read, mdtest-hard-delete, each made as IO500 makes its IOR
or mdtest command line and run by `iogauge ior` and `iogauge mdtest`'s own code; find is
iogauge's walk with pfind's filter (-newer -size 3901c -name *01*). Scores as IO500's: the
geometric mean of the ior phases in GiB/s, of the others in kIOPS, TOTAL the square root of
their product. The result is NON-COMPLIANT, and says so: the IO500 rules require the
unmodified ior, mdtest and pfind binaries.

Sizes: iogauge's defaults are small, for seconds on a local disk, and printed: ior-easy
transferSize 2m blockSize 16m (per rank), ior-hard segmentCount 100, mdtest-easy n 1000,
mdtest-hard n 1000, stonewall-time 30 s. An IO500 .ini sets them: [global] datadir, [debug]
stonewall-time, [ior-easy] transferSize blockSize, [ior-hard] segmentCount, [mdtest-easy] n,
[mdtest-hard] n; any other key is refused in one line. Everything is made in new folders in
the data folder (ior-easy, ior-hard, mdtest-easy, mdtest-hard, timestampfile) and removed at
the end, also after Ctrl-C, which prints the phases done. Linux only.

Examples:
  iogauge io500 /mnt/scratch/io500
  mpirun -np 16 iogauge io500 config.ini --stonewall 300
";

pub const DISKSPD_HELP: &str = "\
Arguments are DiskSpd's, values glued to their flag: -b8K -o32 -t4 -r -w30 -Sh -L -c1G, then the
targets (paths; #N: the Nth disk, PhysicalDriveN on Windows, in name order on Linux; C: is
the volume on Windows). DiskSpd's defaults apply: -b64K -o2 -t1
-d10 -W5, sequential, reads only, the OS cache on (buffered), threads spread over the CPUs
(-n: not pinned). Combinations DiskSpd refuses are refused with DiskSpd's reason (-r with -s,
-si with -r, -F with -t, -n with -a...). Options start with - only (a / would be a path).

Run as in DiskSpd: -a -ag -b -B -c -C -d -D -f<size> -F -g -h -i -j -L -n -o -O -r -rd -rs
  -R -Rp -s -si -S -Sb -Sh -Sm -Su -Sw -t -T -w -W -z -Z -Zr
Run differently (the report's notes say how): -Sr (Linux: as -Su, unbuffered; Windows as
  DiskSpd), -x (the default engine:
  completion ports on Windows, io_uring on Linux),
  -Z<size> (random data, a buffer per I/O), -N<v|n|i> (with -Sm: msync after each write)
Accepted, no effect on Linux: -f<rst> (access hints) -I (priority) -l (large pages)
  -P (progress dots) -v -:<flags> (experiment flags)
Refused, saying why: -p and -Z<size>,<file> (planned), -Sm with -Sw/-Sh/-h (planned),
  -X (XML profiles), -e (ETW, Windows only), -y (Windows events), drive letters (C:) on Linux,
  processor groups other than 0 (-ag1,...)

-Rp prints the profile (the command line as DiskSpd understands it; -Rpxml as DiskSpd's
<Profile> XML) and runs nothing. -Rxml writes DiskSpd's XML (Results/System/Profile/TimeSpan
with Thread/Target counts, CpuUtilization, Latency buckets with -L, Iops buckets with -D).
Latency (-L) is DiskSpd's: from issue to completion (iogauge's total latency).

iogauge's own options: --allow-overwrite (write to devices and files iogauge did not create),
--keep, --quiet, --no-save, --tag=TAG, --output-file=FILE.

Examples:
  iogauge diskspd -c1G -b4K -t2 -o32 -r -Sh -L -d30 test.dat
  iogauge diskspd -c8G -b8K -t4 -o8 -r -w30 -Suw -L -D -Rxml test.dat > result.xml
  iogauge diskspd -Rpxml -c8G -b8K -t4 -o8 -r -w30 -Sh test.dat > profile.xml

Exit codes: 0 ok, 1 failure (I/O error), 2 bad input, 130 interrupted.";

const SWEEP_OUTPUT_HELP: &str =
    "Report format: text (a matrix per test), json (every cell), csv (one row per cell)";

#[derive(Args, Debug, Clone)]
#[command(mut_arg("output", |a| a.help(SWEEP_OUTPUT_HELP)))]
pub struct SweepArgs {
    /// Folder to sweep in: iogauge makes its own folder inside and removes it at the end
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// File sizes: a list (64K,1M) or a doubling range (64K..4G) [default: 64K to twice
    /// the memory]
    #[arg(long = "file-sizes", value_name = "SIZES")]
    pub file_sizes: Option<String>,

    /// Record sizes (bytes per read or write call): a list or a doubling range
    #[arg(long = "record-sizes", value_name = "SIZES", default_value = "4K..16M")]
    pub record_sizes: String,

    /// Tests to run, comma-separated, or all
    #[arg(long = "tests", value_name = "LIST", default_value = "all")]
    pub tests: String,

    /// buffered (through the page cache, iozone's default) or direct (O_DIRECT, iozone -I)
    #[arg(long = "cache", value_name = "MODE", default_value = "buffered")]
    pub cache: String,

    /// Time the fsync after each write pass too (iozone -e)
    #[arg(long = "include-flush")]
    pub include_flush: bool,

    /// Time the close of the file too (iozone -c)
    #[arg(long = "include-close")]
    pub include_close: bool,

    /// Open files for writing with O_SYNC (iozone -o)
    #[arg(long = "sync")]
    pub sync: bool,

    /// Keep record sizes under 64K for files of 32M and more (iozone -z)
    #[arg(long = "all-records")]
    pub all_records: bool,

    /// Threads, each with its own file of each size; throughput is their sum (iozone -t)
    #[arg(long = "threads", value_name = "N", default_value_t = 1)]
    pub threads: u32,

    /// Records between two reads of stride_read (iozone -j)
    #[arg(long = "stride", value_name = "N", default_value_t = 17)]
    pub stride: u64,

    /// How far below its cached plateau throughput must fall to call it a knee, percent
    #[arg(long = "knee-drop", value_name = "PCT", default_value_t = 30.0)]
    pub knee_drop: f64,

    /// Run inside a memory cgroup of this size, so the page cache is small (cgroup v2 or
    /// v1's memory controller; root). On Windows: a hard cap on the system file cache for the
    /// run (administrator)
    #[arg(long = "memory-limit", value_name = "SIZE")]
    pub memory_limit: Option<String>,

    #[command(flatten)]
    pub out: OutputOpts,

    #[command(flatten)]
    pub save: SaveOpts,
}

const FS_OUTPUT_HELP: &str = "Report format: text (tables), json (every repetition, recomputable), csv (one row per repetition)";

#[derive(Args, Debug, Clone)]
#[command(mut_arg("output", |a| a.help(FS_OUTPUT_HELP)))]
pub struct FsArgs {
    /// Folders on the file systems to compare, as DIR or NAME=DIR (the name labels the
    /// report; by default the file system type)
    #[arg(value_name = "[NAME=]DIR", required = true)]
    pub dirs: Vec<String>,

    /// Files (and folders) each metadata test works on
    #[arg(long = "files", value_name = "N", default_value_t = 1000)]
    pub files: u64,

    /// Size of the page I/O tests' file
    #[arg(long = "file-size", value_name = "SIZE", default_value = "4M")]
    pub file_size: String,

    /// Passes of iter.file_open, file_list, file_list_single and the page I/O tests
    #[arg(long = "iterations", value_name = "N", default_value_t = 10)]
    pub iterations: u64,

    /// Threads sharing each test's work (its files or pages split among them)
    #[arg(long = "threads", value_name = "N", default_value_t = 1)]
    pub threads: u32,

    /// Repetitions of each test on each file system
    #[arg(long = "repeat", value_name = "N", default_value_t = 3)]
    pub repeat: u32,

    /// The file system the others are compared with, by NAME or DIR [default: the first]
    #[arg(long = "reference", value_name = "NAME|DIR")]
    pub reference: Option<String>,

    /// Tests to run, comma-separated: names, or the groups metadata and page_io
    #[arg(long = "tests", value_name = "LIST", default_value = "all")]
    pub tests: String,

    /// Keep caches warm: do not drop them before each measurement
    #[arg(long = "no-drop-caches")]
    pub no_drop_caches: bool,

    #[command(flatten)]
    pub out: OutputOpts,

    #[command(flatten)]
    pub save: SaveOpts,
}

#[derive(Args, Debug, Clone)]
pub struct NamedProfileArgs {
    /// quick, iops, latency, throughput, database, fileserver, burst or cache
    #[arg(value_name = "PROFILE")]
    pub name: String,

    /// Folder for the temporary test file (removed afterwards)
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,

    #[command(flatten)]
    pub opts: ProfileOpts,
}

const PROFILE_OUTPUT_HELP: &str =
    "Report format: text (a compact table) or json (every pass's full result)";
const PROFILE_QUIET_HELP: &str = "No progress bar";

#[derive(Args, Debug, Clone)]
#[command(mut_arg("output", |a| a.help(PROFILE_OUTPUT_HELP)))]
#[command(mut_arg("quiet", |a| a.help(PROFILE_QUIET_HELP)))]
pub struct ProfileOpts {
    /// Size of the test file [default: 1G; cache: 1.25 x memory]
    #[arg(long = "size", value_name = "SIZE")]
    pub size: Option<String>,

    /// Seconds per pass [default: 5 for quick, 10 for others; burst: the maximum, 1800]
    #[arg(short = 'd', long = "duration", value_name = "SECONDS")]
    pub duration: Option<String>,

    /// Caching mode for every pass instead of direct (O_DIRECT): buffered, writethrough...
    #[arg(long = "cache", value_name = "MODE")]
    pub cache: Option<String>,

    /// burst: seconds over which throughput must hold within 10%
    #[arg(long = "steady-window", value_name = "SECONDS", default_value = "60")]
    pub steady_window: String,

    #[command(flatten)]
    pub out: OutputOpts,

    #[command(flatten)]
    pub save: SaveOpts,
}

#[derive(Args, Debug, Clone)]
pub struct ExplainArgs {
    /// Print only one form: run (iogauge run lines), fio (a job file), diskspd; default: all
    #[arg(long = "format", value_name = "FORM", default_value = "all")]
    pub format: ExplainFormat,

    /// A profile name and its options (--size, -d, --cache, --steady-window, as for
    /// `iogauge profile`), or `run` followed by iogauge run flags
    #[arg(value_name = "PROFILE | run ARGS", required = true, num_args = 1.., allow_hyphen_values = true, trailing_var_arg = true)]
    pub what: Vec<String>,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExplainFormat {
    All,
    Run,
    Fio,
    Diskspd,
}

#[derive(Args, Debug, Clone)]
pub struct ManArgs {
    /// Folder to write iogauge.1 and iogauge-COMMAND.1 into
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug, Clone)]
pub struct SelftestArgs {
    /// Folder for a 1 MiB scratch file (removed afterwards)
    #[arg(long = "dir", value_name = "DIR", default_value = ".")]
    pub dir: std::path::PathBuf,

    /// Seconds per measurement (10 measurements)
    #[arg(long = "seconds", value_name = "S", default_value = "1")]
    pub seconds: f64,

    /// Report format: text or json
    #[arg(long = "output", value_name = "FORMAT", default_value = "text")]
    pub output: OutputFormat,
}

const RUN_HELP: &str = concat!(
    "\
Examples:
  iogauge run                                   4K random reads, QD32, O_DIRECT, on a temporary 1GiB file here
  iogauge run -c 4G -b 8k -t 4 -o 16 -r -w 30 -d 60 data.bin
  iogauge run -b 1M -s -o 8 --cache buffered -d 30 /mnt/share/big.dat
  iogauge run -Sh -b4k -r -w100 -c1G --output json --output-file r.json t1.dat t2.dat

DiskSpd spellings are accepted: -r4k, -s8k, -si, -S, -Su, -Sw, -Sh, -Suw, -Sr, -Sb.",
    exit_codes!()
);

const RUN_OUTPUT_HELP: &str =
    "Report format: text, json (the documented schema), csv (the time series)";
const RUN_QUIET_HELP: &str = "No progress bar (there is none either when stderr is not a terminal)";

#[derive(Args, Debug, Clone)]
#[command(mut_arg("output", |a| a.help(RUN_OUTPUT_HELP)))]
#[command(mut_arg("quiet", |a| a.help(RUN_QUIET_HELP)))]
pub struct RunArgs {
    /// Files or block devices. Without one, a temporary file is created in the current folder
    /// (size from -c, default 1GiB) and removed afterwards.
    #[arg(value_name = "TARGET")]
    pub targets: Vec<PathBuf>,

    /// Block size of each I/O (512, 4k, 64K, 1M, 1MiB...)
    #[arg(
        help_heading = "What to do",
        short = 'b',
        long = "block-size",
        value_name = "SIZE",
        default_value = "4k",
        value_parser = read::size()
    )]
    pub block_size: Checked<u64>,

    /// Block sizes drawn per I/O: 4k-64k (multiples of the smaller, equally likely) or
    /// 4k/10:64k/90 (shares in percent); READ,WRITE gives writes their own (fio's bsrange,
    /// bssplit and bs=R,W)
    #[arg(
        help_heading = "What to do",
        long = "block-sizes",
        value_name = "SIZES",
        conflicts_with = "block_size"
    )]
    pub block_sizes: Option<String>,

    /// Random offsets, aligned to ALIGN (default: the block size). The default pattern.
    #[arg(help_heading = "What to do",
          short = 'r', long = "random", value_name = "ALIGN", num_args = 0..=1,
          require_equals = true, default_missing_value = "", conflicts_with = "sequential")]
    pub random: Option<String>,

    /// Sequential offsets, advancing by STRIDE (default: the block size)
    #[arg(help_heading = "What to do",
          short = 's', long = "sequential", value_name = "STRIDE", num_args = 0..=1,
          require_equals = true, default_missing_value = "")]
    pub sequential: Option<String>,

    /// Sequential I/O walks backwards: each I/O STRIDE before the one before, from the start
    /// of the working set down and on from its end (fio's rw=read:-N, N the stride plus the
    /// block size)
    #[arg(help_heading = "What to do",
          long = "backwards", conflicts_with_all = ["random", "interlocked"])]
    pub backwards: bool,

    /// I/O in zones: SIZE bytes in a zone, then the next zone SKIP past its end; RANGE
    /// (default SIZE) is a zone's length, gone round again where SIZE is larger, and where
    /// random I/O draws its offsets (fio's zonemode=strided with zonesize, zoneskip,
    /// zonerange): 256M:2G profiles a disk by zone
    #[arg(
        help_heading = "What to do",
        long = "zones",
        value_name = "SIZE[:SKIP[:RANGE]]"
    )]
    pub zones: Option<String>,

    /// Zones with write pointers, as fio's zonemode=zbd emulates them on a file or a block
    /// device the kernel does not show as zoned: each write goes to the write pointer of its
    /// zone, a full zone is reset before it is written again, and reads see only what was
    /// written (CAPACITY: the writable part of a zone, default SIZE)
    #[arg(
        help_heading = "Where",
        long = "zbd",
        value_name = "SIZE[:CAPACITY]",
        conflicts_with = "zones"
    )]
    pub zbd: Option<String>,

    /// With --zbd: at most N zones open for writing at once over all threads, and at most
    /// PER_THREAD of them held by one thread (fio's max_open_zones, job_max_open_zones)
    #[arg(
        help_heading = "Where",
        long = "max-open-zones",
        value_name = "N[:PER_THREAD]"
    )]
    pub max_open_zones: Option<String>,

    /// With --zbd: reads go where they were drawn, written or not (fio's read_beyond_wp)
    #[arg(help_heading = "Where", long = "read-beyond-wp")]
    pub read_beyond_wp: bool,

    /// With --zbd: once the zones hold THRESHOLD (0..1) of the working set, one write in
    /// 1/FREQUENCY resets its zone first (fio's zone_reset_threshold, zone_reset_frequency)
    #[arg(
        help_heading = "Where",
        long = "zone-reset",
        value_name = "THRESHOLD:FREQUENCY"
    )]
    pub zone_reset: Option<String>,

    /// With --random: only PCT% of I/Os go to random offsets; the others follow the I/O before
    /// (fio's percentage_random, DiskSpd's -rs)
    #[arg(help_heading = "What to do", long = "random-pct", value_name = "PCT",
          value_parser = read::whole::<u8>("a percentage 1..99"))]
    pub random_pct: Option<Checked<u8>>,

    /// With --random: a new random offset every N I/Os; the others of each run follow the I/O
    /// before (fio's rw=randread:N)
    #[arg(help_heading = "What to do", long = "random-every", value_name = "N",
          value_parser = read::whole::<u32>("a whole number of I/Os"))]
    pub random_every: Option<Checked<u32>>,

    /// Sequential I/O whose threads share one offset per target (DiskSpd's -si)
    #[arg(help_heading = "What to do", long = "interlocked")]
    pub interlocked: bool,

    /// Percentage of I/Os that are writes, 0..100; each I/O chooses, reproducibly with --seed
    #[arg(
        help_heading = "What to do",
        short = 'w',
        long = "write-pct",
        value_name = "PCT",
        default_value = "0",
        value_parser = read::whole::<u8>("a percentage 0..100")
    )]
    pub write_pct: Checked<u8>,

    /// Trims instead of reads and writes: `only`, every I/O trims its range (fio's trim,
    /// randtrim); `then-write`, each block is trimmed, then written once the trim completed
    /// (fio's trimwrite, randtrimwrite). A trim discards the range of a block device
    /// (BLKDISCARD) or punches a hole in a file; sized as writes are
    #[arg(help_heading = "What to do", long = "trim", value_name = "MODE")]
    pub trim: Option<TrimArg>,

    /// Measured duration in seconds [default: 10]
    #[arg(help_heading = "How long",
          short = 'd', long = "duration", value_name = "SECONDS", value_parser = read::seconds())]
    pub duration: Option<Checked<u64>>,

    /// Warm-up seconds before measuring (I/O done but not counted) [default: 1; 0 for the
    /// file-operation engines, which do one operation per file]
    #[arg(help_heading = "How long",
          short = 'W', long = "warmup", value_name = "SECONDS", value_parser = read::seconds())]
    pub warmup: Option<Checked<u64>>,

    /// Cool-down seconds after measuring (I/O done but not counted)
    #[arg(
        help_heading = "How long",
        short = 'C',
        long = "cooldown",
        value_name = "SECONDS",
        default_value = "0",
        value_parser = read::seconds()
    )]
    pub cooldown: Checked<u64>,

    /// Stop once throughput has fallen at least 30% below its peak and the last WINDOW seconds
    /// are within 10% of the WINDOW before (a burst that has ended); -d is then the maximum
    #[arg(help_heading = "How long",
          long = "until-steady", value_name = "WINDOW", num_args = 0..=1, require_equals = true,
          default_missing_value = "60", value_parser = read::seconds())]
    pub until_steady: Option<Checked<u64>>,

    /// Stop once the last WINDOW seconds (default 60) are flat, as fio's steadystate=:
    /// iops, bw or lat (each point within LIMIT of the window's mean) or iops_slope, bw_slope,
    /// lat_slope (least-squares slope under LIMIT per interval); LIMIT absolute or in % of the
    /// mean, e.g. iops:5% or bw_slope:0.5%,30. One point per --interval; -d is the maximum
    #[arg(help_heading = "How long",
          long = "until-flat", value_name = "CRITERION:LIMIT[,WINDOW]",
          value_parser = read::until_flat())]
    pub until_flat: Option<Checked<crate::spec::flat::FlatRule>>,

    /// Stop after this many bytes in all (split evenly across threads) instead of a duration;
    /// with -d as well, after whichever comes first
    #[arg(help_heading = "How long",
          long = "total", value_name = "SIZE", value_parser = read::size())]
    pub total: Option<Checked<u64>>,

    /// With --total: every thread stops issuing SECONDS into the measured window, on every
    /// MPI rank at once (IOR's stonewalling, -D); the report says whether the deadline came
    /// before the bytes were done and what each rank had done by then
    #[arg(help_heading = "How long",
          long = "stonewall", value_name = "SECONDS", value_parser = read::seconds())]
    pub stonewall: Option<Checked<u64>>,

    /// With --stonewall: after the deadline, every thread goes on until it has done as many
    /// bytes as the busiest thread of any rank had (IOR's stoneWallingWearOut), so the work is
    /// equal and the rate is the slowest client's
    #[arg(help_heading = "How long", long = "wear-out", requires = "stonewall")]
    pub wear_out: bool,

    /// Under MPI: every rank on the same target(s), each on its own slice of the working set
    /// (rank r of n on the r-th n-th, as IOR's single shared file); the path needs no {rank}
    #[arg(help_heading = "Where", long = "shared-file")]
    pub shared_file: bool,

    /// Under MPI: each rank works on the target (or slice) of the rank N further on, so data
    /// one client wrote is read by another and its page cache cannot serve it (IOR's -C);
    /// without N, the least shift that puts every rank on another host's data
    #[arg(help_heading = "Where",
          long = "rank-shift", value_name = "N", num_args = 0..=1, require_equals = true,
          default_missing_value = "host")]
    pub rank_shift: Option<String>,

    /// Create the target with this size if it is missing, filled with incompressible data
    #[arg(help_heading = "Where",
          short = 'c', long = "create", value_name = "SIZE", value_parser = read::size())]
    pub create: Option<Checked<u64>>,

    /// First byte of the working set
    #[arg(
        help_heading = "Where",
        short = 'B',
        long = "base-offset",
        value_name = "SIZE",
        default_value = "0",
        value_parser = read::size()
    )]
    pub base_offset: Checked<u64>,

    /// End of the working set (exclusive); default: the end of the target
    #[arg(help_heading = "Where",
          short = 'f', long = "max-offset", value_name = "SIZE", value_parser = read::size())]
    pub max_offset: Option<Checked<u64>>,

    /// Threads per target
    #[arg(help_heading = "Engine",
          short = 't', long = "threads", value_name = "N", default_value = "1",
          value_parser = read::whole::<u32>("a whole number of threads"))]
    pub threads: Checked<u32>,

    /// Outstanding I/Os per thread [default: 32; 1 with --engine sync]
    #[arg(help_heading = "Engine", short = 'o', long = "queue-depth", value_name = "N",
          value_parser = read::whole::<u32>("a whole number of I/Os"))]
    pub queue_depth: Option<Checked<u32>>,

    /// Hand I/Os to the kernel once N are ready; 1 sends each as soon as its slot frees
    /// (fio's iodepth_batch_submit) [default: 1; the queue depth with --complete-batch N>1]
    #[arg(help_heading = "Engine", long = "submit-batch", value_name = "N",
          value_parser = read::whole::<u32>("a whole number of I/Os"))]
    pub submit_batch: Option<Checked<u32>>,

    /// With the queue full, wait for N completions before refilling it: one system call and
    /// one wake-up per N I/Os, not per I/O; 1 refills as each completes (fio's
    /// iodepth_batch_complete_min). auto: the warm-up tries 1, half and all the queue, and the
    /// fastest is kept (batches only by a clear margin) [default: auto; 1 with -L]
    #[arg(help_heading = "Engine", long = "complete-batch", value_name = "N|auto",
          value_parser = read::count_or_auto("a whole number of I/Os from 1, or auto"))]
    pub complete_batch: Option<Checked<u32>>,

    /// Caching: buffered, direct (O_DIRECT), writethrough (O_DSYNC), direct-writethrough.
    /// DiskSpd's -S/-Su (direct), -Sw, -Sh/-Suw, -Sr, -Sb are accepted too.
    /// Default: direct.
    #[arg(help_heading = "Engine", long = "cache", value_name = "MODE")]
    pub cache: Option<String>,

    /// DiskSpd's caching switch: -S, -Su, -Sw, -Sh, -Suw, -Sr, -Sb
    #[arg(help_heading = "Engine",
          short = 'S', value_name = "FLAGS", num_args = 0..=1, require_equals = true,
          default_missing_value = "", hide = true)]
    pub diskspd_cache: Option<String>,

    /// I/O engine: io_uring (default where the kernel allows it), sync (pread/pwrite), null
    /// (completes at once without touching storage: measures iogauge itself), or delay
    /// (completes after --delay: checks the measurement), or mmap (the target mapped, each I/O a
    /// copy; needs --cache buffered). filecreate, filestat and filedelete: each I/O creates,
    /// stats or deletes one target, once per target (fio's engines of those names; one op per
    /// file, timed; no data moves; group the files per thread with --file-set). falloc: each
    /// I/O is a fallocate of its range (a read keeps the size, a write grows the file, a trim
    /// punches a hole); ftruncate: each write sets the file's length to its offset
    #[arg(help_heading = "Engine", long = "engine", value_name = "ENGINE")]
    pub engine: Option<EngineArg>,

    /// Latency mode: time every I/O (submission, completion, total). Without it, IOPS mode
    /// counts I/Os only, for the highest IOPS; measure the two in separate runs.
    #[arg(help_heading = "Latency", short = 'L', long = "latency")]
    pub latency: bool,

    /// Latency the delay engine injects: fixed:T, uniform:MIN:MAX, lognormal:MEDIAN:SIGMA
    /// (T, MIN, MAX, MEDIAN with a unit: 500us, 1ms)
    #[arg(help_heading = "Latency", long = "delay", value_name = "DIST")]
    pub delay: Option<String>,

    /// Delay engine: from T after the start (warm-up included) inject DIST instead, as a
    /// device whose burst ends: 2s:fixed:1ms
    #[arg(help_heading = "Latency", long = "delay-step", value_name = "T:DIST")]
    pub delay_step: Option<String>,

    /// Pin worker threads to CPUs: auto (spread over all) or a list such as 0,2,4 (DiskSpd's -a)
    #[arg(help_heading = "Engine",
          short = 'a', long = "affinity", value_name = "CPUS", num_args = 0..=1,
          require_equals = true, default_missing_value = "auto")]
    pub affinity: Option<String>,

    /// Let worker threads run on the CPUs of these NUMA nodes: 0, 0-1, all (fio's numa_cpu_nodes)
    #[arg(help_heading = "Engine", long = "numa-nodes", value_name = "NODES")]
    pub numa_nodes: Option<String>,

    /// Worker threads' memory policy: default, local, prefer:N, bind:NODES, interleave:NODES
    /// (fio's numa_mem_policy)
    #[arg(help_heading = "Engine", long = "numa-mem", value_name = "POLICY")]
    pub numa_mem: Option<String>,

    /// io_uring: a kernel thread polls the submission queue (no system call per submission)
    #[arg(help_heading = "Engine", long = "sqpoll")]
    pub sqpoll: bool,

    /// io_uring: polled completions (needs O_DIRECT and a device with poll queues)
    #[arg(help_heading = "Engine", long = "hipri")]
    pub hipri: bool,

    /// I/O priority of all the job's I/O, CLASS:LEVEL (class 1 real time, 2 best effort, 3
    /// idle, 0 none as best effort; level 0 highest to 7), set on each worker thread with
    /// ioprio_set (fio's prioclass and prio)
    #[arg(help_heading = "Engine", long = "ioprio", value_name = "CLASS:LEVEL")]
    pub ioprio: Option<String>,

    /// io_uring: a per-I/O priority for a share of the I/Os, in each SQE (fio's
    /// cmdprio_percentage, cmdprio_class, cmdprio and cmdprio_bssplit): [BS/]PCT/CLASS/LEVEL
    /// entries joined by ':', for reads and writes or READS,WRITES; with BS only I/Os of that
    /// size. E.g. 20/1/0 (20 % real time, level 0) or 64k/25/1/1:64k/75/3/2,1m/10/1/0
    #[arg(help_heading = "Engine", long = "cmdprio", value_name = "SHARES")]
    pub cmdprio: Option<String>,

    /// io_uring: do not register the target files and buffers with the ring
    #[arg(help_heading = "Engine", long = "no-register")]
    pub no_register: bool,

    /// Sequential I/O: thread k begins k x SIZE into the working set and wraps to that offset
    /// modulo the stride, so that threads interleave (DiskSpd's -T)
    #[arg(help_heading = "Where",
          long = "thread-start", value_name = "SIZE", value_parser = read::size())]
    pub thread_start: Option<Checked<u64>>,

    /// Take the targets N at a time (or all): each of a set's threads (-t) works over all of its
    /// files, switching as --file-service says (fio's nrfiles, DiskSpd's -F over several targets)
    #[arg(help_heading = "Where", long = "file-set", value_name = "N|all")]
    pub file_set: Option<String>,

    /// With --file-set, which file each I/O goes to: roundrobin[:N] (the default: the next file
    /// after every N I/Os), random[:N], sequential (a file's working set, then the next) or
    /// slots (each queue slot keeps one file)
    #[arg(
        help_heading = "Where",
        long = "file-service",
        value_name = "KIND",
        requires = "file_set"
    )]
    pub file_service: Option<String>,

    /// With --file-set, each thread keeps at most N of its set's files open: a file is opened
    /// when an I/O goes to it, closing the least recently used one with no I/O in flight
    /// (fio's openfiles). Without it, every file stays open for the whole run
    #[arg(help_heading = "Where", long = "open-files", value_name = "N", requires = "file_set",
          value_parser = read::whole::<u32>("a number of files"))]
    pub open_files: Option<Checked<u32>>,

    /// Thread k of each target works in the working set moved k x SIZE further into the
    /// target (fio's offset_increment)
    #[arg(help_heading = "Where",
          long = "thread-offset", value_name = "SIZE", value_parser = read::size())]
    pub thread_offset: Option<Checked<u64>>,

    /// After every N writes of a thread, wait for its I/Os in flight and fsync the target
    #[arg(help_heading = "What to do",
          long = "fsync", value_name = "N", conflicts_with = "fdatasync",
          value_parser = read::whole::<u32>("a whole number of writes"))]
    pub fsync: Option<Checked<u32>>,

    /// As --fsync, with fdatasync
    #[arg(help_heading = "What to do", long = "fdatasync", value_name = "N",
          value_parser = read::whole::<u32>("a whole number of writes"))]
    pub fdatasync: Option<Checked<u32>>,

    /// Each thread fsyncs the target once it has finished writing; with --total the flush
    /// counts in the run's time
    #[arg(help_heading = "What to do", long = "end-fsync")]
    pub end_fsync: bool,

    /// Pause each thread for T (500us, 2ms) after every --think-every I/Os, once its I/Os in
    /// flight have completed (fio's thinktime)
    #[arg(help_heading = "What to do",
          long = "think", value_name = "T", value_parser = read::duration())]
    pub think: Option<Checked<u64>>,

    /// I/Os between two pauses of --think [default: 1]
    #[arg(help_heading = "What to do", long = "think-every", value_name = "N", requires = "think",
          value_parser = read::whole::<u32>("a whole number of I/Os"))]
    pub think_every: Option<Checked<u32>>,

    /// Spend the first T of each --think pause spinning on the CPU instead of sleeping
    #[arg(help_heading = "What to do",
          long = "think-spin", value_name = "T", requires = "think", value_parser = read::duration())]
    pub think_spin: Option<Checked<u64>>,

    /// Search the queue depth, from 1 up to --queue-depth, at which each thread's I/Os complete
    /// within T (500us, 2ms; queued to completed) over every --latency-window; the run ends
    /// one window after the depth settles and reports it (fio's latency_target). Implies -L
    #[arg(help_heading = "Latency",
          long = "latency-target", value_name = "T", value_parser = read::duration())]
    pub latency_target: Option<Checked<u64>>,

    /// The time each depth is judged over for --latency-target [default: 0, after every batch
    /// of completions] (fio's latency_window)
    #[arg(help_heading = "Latency",
          long = "latency-window", value_name = "T", requires = "latency_target",
          value_parser = read::duration())]
    pub latency_window: Option<Checked<u64>>,

    /// The share of a window's I/Os that must be within --latency-target, a percentage
    /// [default: 100: one I/O over the target fails the depth] (fio's latency_percentile)
    #[arg(help_heading = "Latency",
          long = "latency-pct", value_name = "PCT", requires = "latency_target",
          value_parser = read::whole::<f64>("a percentage"))]
    pub latency_pct: Option<Checked<f64>>,

    /// Keep adjusting the depth for the whole run rather than end once it settles (fio's
    /// latency_run)
    #[arg(
        help_heading = "Latency",
        long = "latency-keep-adjusting",
        requires = "latency_target"
    )]
    pub latency_keep_adjusting: bool,

    /// Make written data compress by about PCT%: the last PCT% of every 512 bytes are zeros
    /// (100: all zeros). Implies --refill-buffers unless PCT is 0 or 100, as fio does.
    #[arg(help_heading = "What to do", long = "compressible", value_name = "PCT",
          value_parser = read::whole::<u8>("a percentage 0..100"))]
    pub compressible: Option<Checked<u8>>,

    /// New random data in the buffer before every write (fio's refill_buffers)
    #[arg(help_heading = "What to do", long = "refill-buffers")]
    pub refill_buffers: bool,

    /// Make PCT% of writes deduplicable: each carries the content of an earlier write (of its
    /// thread, or with --dedupe-global of any), the others new content (fio's
    /// dedupe_percentage). Implies --refill-buffers;
    /// combines with --compressible (a repeated write is as compressible as the original).
    #[arg(help_heading = "What to do", long = "dedupe", value_name = "PCT",
          value_parser = read::whole::<u8>("a percentage 0..100"))]
    pub dedupe: Option<Checked<u8>>,

    /// Which earlier write a --dedupe write repeats: `repeat`, the latest write with new
    /// content (fio's default), or `working-set`, one drawn at random from the thread's first
    /// new-content writes, as many as --dedupe-working-set says [default: repeat]
    #[arg(
        help_heading = "What to do",
        long = "dedupe-mode",
        value_name = "MODE",
        requires = "dedupe"
    )]
    pub dedupe_mode: Option<DedupeModeArg>,

    /// The working set of --dedupe-mode working-set, in percent of each thread's region:
    /// its first writes with new content, one per block of the smallest write size. PCT plus
    /// --dedupe must not pass 100 (fio's dedupe_working_set_percentage) [default: 5]
    #[arg(help_heading = "What to do",
          long = "dedupe-working-set", value_name = "PCT", requires = "dedupe",
          value_parser = read::whole::<u8>("a percentage 0..100"))]
    pub dedupe_working_set: Option<Checked<u8>>,

    /// With --dedupe-mode working-set, one working set shared by all threads, spread evenly
    /// between them, instead of one per thread: a thread repeats others' writes too
    /// (fio's dedupe_global)
    #[arg(
        help_heading = "What to do",
        long = "dedupe-global",
        requires = "dedupe"
    )]
    pub dedupe_global: bool,

    /// Verify data: every written unit carries a header (target, offset, generation, write
    /// sequence, run seed) and checksums; every read is checked, lost and stale writes too,
    /// and a run that wrote ends by reading everything back
    #[arg(help_heading = "Verification", long = "verify")]
    pub verify: bool,

    /// Bytes each header covers [default: the smallest I/O] (fio's verify_interval)
    #[arg(
        help_heading = "Verification",
        long = "verify-interval",
        value_name = "SIZE",
        requires = "verify"
    )]
    pub verify_interval: Option<String>,

    /// Count mismatches and go on, instead of stopping at the first
    #[arg(
        help_heading = "Verification",
        long = "verify-continue",
        requires = "verify"
    )]
    pub verify_continue: bool,

    /// No read-back pass when the run ends (fio's do_verify=0)
    #[arg(
        help_heading = "Verification",
        long = "no-verify-pass",
        requires = "verify"
    )]
    pub no_verify_pass: bool,

    /// Each thread reads back its last N writes after every N, during the run (fio's
    /// verify_backlog)
    #[arg(help_heading = "Verification",
          long = "verify-backlog", value_name = "N", requires = "verify",
          value_parser = read::whole::<u32>("a number of writes"))]
    pub verify_backlog: Option<Checked<u32>>,

    /// Write the found and expected bytes of each mismatch into DIR (fio's verify_dump)
    #[arg(
        help_heading = "Verification",
        long = "verify-dump",
        value_name = "DIR",
        requires = "verify"
    )]
    pub verify_dump: Option<String>,

    /// The verification state of a kept target [default: TARGET.iogauge-verify], saved at each
    /// checkpoint and at the end; `iogauge verify` reads it
    #[arg(
        help_heading = "Verification",
        long = "verify-state",
        value_name = "FILE",
        requires = "verify"
    )]
    pub verify_state: Option<String>,

    /// Start from the saved state, so that what an earlier run wrote is checked too (fio's
    /// verify_state_load)
    #[arg(
        help_heading = "Verification",
        long = "verify-load",
        requires = "verify"
    )]
    pub verify_load: bool,

    /// Start over on a target whose state an earlier run saved, replacing that state (without
    /// it or --verify-load, such a run is refused)
    #[arg(
        help_heading = "Verification",
        long = "verify-fresh",
        requires = "verify",
        conflicts_with = "verify_load"
    )]
    pub verify_fresh: bool,

    /// Seconds between checkpoints of a kept target's state (0: only at the end) [default: 1]
    #[arg(help_heading = "Verification",
          long = "verify-checkpoint", value_name = "S", requires = "verify",
          value_parser = read::whole::<u64>("seconds"))]
    pub verify_checkpoint: Option<Checked<u64>>,

    /// Fail the run when a thread moves less than SIZE bytes per second over a window of the
    /// measured time (fio's rate_min); the figures so far are kept
    #[arg(help_heading = "How long", long = "rate-min", value_name = "SIZE")]
    pub rate_min: Option<String>,

    /// As --rate-min, in I/Os per second (fio's rate_iops_min)
    #[arg(help_heading = "How long", long = "rate-min-iops", value_name = "N")]
    pub rate_min_iops: Option<String>,

    /// The window --rate-min and --rate-min-iops are judged over, in milliseconds [default:
    /// 1000, fio's ratecycle]
    #[arg(help_heading = "How long", long = "rate-min-window", value_name = "MS",
          value_parser = read::whole::<u64>("milliseconds"))]
    pub rate_min_window: Option<Checked<u64>>,

    /// Limit each thread to N I/Os per second, reads and writes together; R,W limits reads and
    /// writes apart (either may be left empty), and a direction ahead of its limit gives way to
    /// the other (fio's rate_iops=R,W)
    #[arg(help_heading = "What to do", long = "rate-iops", value_name = "N|R,W")]
    pub rate_iops: Option<String>,

    /// Limit each thread to SIZE bytes per second, reads and writes together; R,W apart, as
    /// --rate-iops (fio's rate=R,W)
    #[arg(help_heading = "What to do", long = "rate-bw", value_name = "SIZE|R,W")]
    pub rate_bw: Option<String>,

    /// Start the I/Os that --rate-iops or --rate-bw limit at random, as a Poisson process of
    /// the same mean rate, instead of evenly spaced (fio's rate_process=poisson)
    #[arg(help_heading = "What to do", long = "rate-poisson")]
    pub rate_poisson: bool,

    /// Random offset distribution: uniform, zipf:THETA, pareto:H, zoned:IO%/SPAN%:...,
    /// zoned_abs:IO%/SIZE:...
    #[arg(
        help_heading = "What to do",
        long = "distribution",
        value_name = "DIST",
        default_value = "uniform"
    )]
    pub distribution: String,

    /// Seed for offsets and the read/write choice; the same seed gives the same sequence
    /// [default: 0; with --verify, the headers' seed is a fresh one unless this is given]
    #[arg(help_heading = "What to do", long = "seed", value_name = "N",
          value_parser = read::whole::<u64>("a whole number"))]
    pub seed: Option<Checked<u64>>,

    /// DiskSpd's seed: -z<N>, or -z alone for a seed from the clock
    #[arg(help_heading = "What to do",
          short = 'z', value_name = "N", num_args = 0..=1, require_equals = true,
          default_missing_value = "clock", hide = true, conflicts_with = "seed")]
    pub diskspd_seed: Option<String>,

    /// DiskSpd's write buffers: -Z zeros (--compressible 100), -Zr new random data per write
    /// (--refill-buffers), -Z<size> accepted: iogauge's buffers are random already.
    #[arg(help_heading = "What to do",
          short = 'Z', value_name = "SIZE", num_args = 0..=1, require_equals = true,
          default_missing_value = "", hide = true)]
    pub diskspd_write_buffers: Option<String>,

    /// Time-series interval in milliseconds (at least 10)
    #[arg(help_heading = "How long", long = "interval", value_name = "MS", default_value = "1000",
          value_parser = read::whole::<u64>("milliseconds"))]
    pub interval: Checked<u64>,

    /// Allow writes to block devices and to existing files iogauge did not create
    #[arg(help_heading = "Safety", long = "allow-overwrite")]
    pub allow_overwrite: bool,

    /// Run inside a memory cgroup of this size, so the page cache is small (cgroup v2 or
    /// v1's memory controller; root). On Windows: a hard cap on the system file cache for the
    /// run (administrator)
    #[arg(help_heading = "Safety", long = "memory-limit", value_name = "SIZE")]
    pub memory_limit: Option<String>,

    /// After the run, check what limited it: short passes with the queue depth doubled, the
    /// threads doubled and the page cache used or bypassed, each against a pass as run; their
    /// figures and what they say of the verdict go under it (outside the measured window)
    #[arg(help_heading = "Output", long = "why")]
    pub why: bool,

    /// Keep files iogauge created instead of removing them at the end
    #[arg(help_heading = "Safety", long = "keep")]
    pub keep: bool,

    /// Count I/O errors by errno and go on, instead of stopping at the first one
    #[arg(help_heading = "Safety", long = "continue-on-error")]
    pub continue_on_error: bool,

    /// Go on after these I/O errors only, counting each (fio's ignore_error): errno names or
    /// numbers, such as ENOSPC,EIO or 28
    #[arg(help_heading = "Safety", long = "ignore-error", value_name = "ERRNOS")]
    pub ignore_error: Option<String>,

    /// Write until the file system is full (fio's fill_device): a new target starts empty and
    /// grows with the writes (give --create with the free space, or less); running out of
    /// space (ENOSPC, EDQUOT) ends each thread as planned. Writes only (-w 100)
    #[arg(help_heading = "Where", long = "fill")]
    pub fill: bool,

    #[command(flatten)]
    pub out: OutputOpts,

    #[command(flatten)]
    pub save: SaveOpts,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrimArg {
    Only,
    ThenWrite,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DedupeModeArg {
    Repeat,
    #[value(name = "working-set", alias = "working_set")]
    WorkingSet,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineArg {
    Sync,
    #[value(name = "io_uring", alias = "io-uring", alias = "uring")]
    IoUring,
    /// Windows' I/O completion ports (the default on Windows).
    #[value(alias = "windowsaio")]
    Iocp,
    Null,
    Delay,
    Mmap,
    Filecreate,
    Filestat,
    Filedelete,
    Falloc,
    Ftruncate,
}

/// The formats are the reports' to say; the flags only name them.
pub use crate::report::OutputFormat;

/// Rewrite DiskSpd's glued optional values, which clap cannot parse, into forms it can:
/// `-r4k` -> `-r=4k`, `-s8k` -> `-s=8k`, `-si` -> `--interlocked`, `-Su` -> `-S=u`,
/// `-a0,2` -> `-a=0,2`, `-z5` -> `-z=5`, `-Z1M` -> `-Z=1M`.
/// Plain `-r`, `-s` and `-S` are left alone. Nothing after `--` is touched.
pub fn normalize_diskspd_args<I: IntoIterator<Item = String>>(args: I) -> Vec<String> {
    let mut out = Vec::new();
    let mut passthrough = false;
    for arg in args {
        if passthrough || arg == "--" {
            passthrough = true;
            out.push(arg);
            continue;
        }
        let glued = |flag: &str| -> Option<String> {
            arg.strip_prefix(flag)
                .filter(|rest| !rest.is_empty() && !rest.starts_with('='))
                .map(str::to_string)
        };
        if arg == "-si" {
            out.push("--interlocked".into());
        } else if let Some(rest) = glued("-r") {
            out.push(format!("-r={rest}"));
        } else if let Some(rest) = glued("-s") {
            out.push(format!("-s={rest}"));
        } else if let Some(rest) = glued("-a") {
            out.push(format!("-a={rest}"));
        } else if let Some(rest) = glued("-z") {
            out.push(format!("-z={rest}"));
        } else if let Some(rest) = glued("-Z") {
            out.push(format!("-Z={rest}"));
        } else if let Some(rest) = glued("-S") {
            out.push(format!("-S={rest}"));
        } else {
            out.push(arg);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> Vec<String> {
        normalize_diskspd_args(s.split_whitespace().map(String::from))
    }

    #[test]
    fn glued_diskspd_values_are_rewritten() {
        assert_eq!(norm("-r4k -s8k -Su f"), ["-r=4k", "-s=8k", "-S=u", "f"]);
        assert_eq!(norm("-si f"), ["--interlocked", "f"]);
        assert_eq!(norm("-r -s -S -r=4k"), ["-r", "-s", "-S", "-r=4k"]);
        assert_eq!(norm("-b4k -- -r4k"), ["-b4k", "--", "-r4k"]);
    }

    #[test]
    fn the_cli_parses_diskspd_forms() {
        let args = norm("iogauge run -b4k -r4k -Suw -o8 -t2 -w30 f1 f2");
        let cli = Cli::try_parse_from(args).unwrap();
        let Some(Command::Run(run)) = cli.command else {
            panic!("run")
        };
        assert_eq!(run.random.as_deref(), Some("4k"));
        assert_eq!(run.diskspd_cache.as_deref(), Some("uw"));
        assert_eq!(run.queue_depth.map(|q| q.get().unwrap()), Some(8));
        assert_eq!(run.targets.len(), 2);
    }
}
