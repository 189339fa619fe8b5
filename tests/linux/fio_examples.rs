//! fio's own example job files (Debian's `fio-examples`, fio 3.33) under `iogauge fio`, with
//! the real fio beside it: every portable example is parsed as shipped (a device path, which
//! names hardware this machine lacks, is the one thing changed), and each is run shrunk by
//! this test (sizes, runtimes, delays and rates scaled so that the whole set takes minutes)
//! by both tools on files of their own, and their JSON compared: the same jobs in the same
//! groups, and for jobs bounded by size the same bytes and operation counts.
//!
//! The examples that need hardware or services iogauge is not for (sg, rdma, rbd, gfapi,
//! hdfs, iscsi, pmem, zoned devices through libzbc, mtd, nbd, net, exec, cpuio, e4defrag,
//! io_uring_cmd, ime, cpp_null, the http engines...) are not in the list. iogauge runs all
//! 42 of the others; where it differs from fio on purpose, the list says how.

use crate::common;

use common::{bin, bounded, harness, is_root, p, sh, work_dir, Outcome, HUNG};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const EXAMPLES_DIR: &str = "/usr/share/doc/fio/examples";

/// How an example is expected to compare with fio once shrunk.
#[derive(Clone, Copy)]
enum Expect {
    /// Same jobs, groups, bytes and operation counts.
    Same,
    /// Same jobs and groups, each doing I/O; the amounts depend on time (why).
    Jobs(&'static str),
    /// Same jobs, groups and operation counts; the bytes differ, deliberately (why).
    Ios(&'static str),
    /// Same jobs, groups and bytes; the operation counts differ, deliberately (why).
    Bytes(&'static str),
    /// Same jobs, groups, total bytes and operations; the read/write split is drawn (why).
    Total(&'static str),
    /// Same jobs, groups and writes; fio counts its read-back pass as reads (why).
    Writes(&'static str),
    /// Names NUMA nodes up to this one: where the machine has fewer, fio and iogauge both
    /// refuse it as it runs; else Same.
    Nodes(usize),
    /// fio fails the shrunk job here with this message (why); iogauge runs every job of it.
    FioFails(&'static str, &'static str),
}

use Expect::*;

/// The 42 examples that name no hardware or service iogauge is not for.
const EXAMPLES: &[(&str, Expect)] = &[
    ("1mbs_clients", Same),
    ("aio-read", Same),
    ("backwards-read", Same),
    ("basic-verify", Writes(VERIFY_PASS)),
    ("butterfly", Jobs("time_based")),
    ("cmdprio-bssplit", Jobs(RANDOM_MAP)),
    ("cmdprio-percentage", Same),
    ("cross-stripe-verify", Writes(VERIFY_PASS)),
    ("dedupe-global", Same),
    ("disk-zone-profile", Same),
    (
        "enospc-pressure",
        FioFails(
            "Inappropriate ioctl for device",
            "fio's trims are BLKDISCARD, which a file refuses (except through ioengine=falloc); iogauge punches a hole in a file",
        ),
    ),
    (
        "exitwhat",
        Jobs("exit_what stops jobs when another ends, a matter of time"),
    ),
    ("falloc", Jobs("time_based")),
    ("filecreate-ioengine", Ios(FILE_BYTES)),
    ("filedelete-ioengine", Ios(FILE_BYTES)),
    ("filestat-ioengine", Ios(FILE_BYTES)),
    ("fio-rand-RW", Jobs("time_based")),
    ("fio-rand-read", Jobs("time_based")),
    ("fio-rand-write", Jobs("time_based")),
    ("fio-seq-RW", Jobs("time_based")),
    ("fio-seq-read", Jobs("time_based")),
    ("fio-seq-write", Jobs("time_based")),
    ("fixed-rate-submission", Same),
    ("flow", Jobs("time_based")),
    (
        "fsx",
        Total("rwmixread draws each I/O's direction at random"),
    ),
    (
        "ftruncate",
        Jobs("time_based; fio counts bs bytes per ftruncate, iogauge none: no data moves"),
    ),
    ("iometer-file-access-server", Jobs(RANDOM_MAP)),
    ("jesd219", Jobs("time_based")),
    ("latency-profile", Same),
    ("null", Same),
    ("numa", Nodes(1)),
    ("poisson-rate-submission", Same),
    ("rand-zones", Same),
    (
        "ssd-steadystate",
        Jobs("steady-state detection stops jobs by time"),
    ),
    ("ssd-test", Same),
    ("steadystate", Jobs("time_based")),
    (
        "surface-scan",
        Bytes("fill_device: fio counts the writes the full file system refused or cut short as I/Os, iogauge does not"),
    ),
    ("tiobench-example", Same),
    ("waitfor", Same),
    ("zbd-rand-write", Jobs("time_based")),
    // On emulated zones every zone starts empty: both tools read nothing, as fio's own
    // read_beyond_wp=0 says.
    ("zbd-seq-read", Same),
    ("zipf", Same),
];

const VERIFY_PASS: &str = "both report do_verify's read-back as the job's reads; fio reads back each write it made, iogauge each unit written, checked in chunks (its counts differ: 2593 of 4096 for basic-verify, whose random writes repeat units)";
const RANDOM_MAP: &str = "with mixed block sizes fio's random map cuts an I/O short where it meets blocks already done; iogauge keeps the drawn size";
const FILE_BYTES: &str =
    "fio counts bs bytes per file operation; iogauge counts the bytes moved: none";

/// The size of the file that stands in for a device.
const STAND_IN: u64 = 16 << 20;

fn example(name: &str) -> PathBuf {
    Path::new(EXAMPLES_DIR).join(format!("{name}.fio"))
}

fn have(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn missing_tools() -> Option<String> {
    if !Path::new(EXAMPLES_DIR).is_dir() {
        return Some(format!("{EXAMPLES_DIR} is missing (Debian's fio-examples)"));
    }
    if !have("fio") {
        return Some("fio is not installed".into());
    }
    None
}

/// A job file line split into key, value and what follows the value (an inline comment).
fn split_line(line: &str) -> Option<(&str, &str, &str)> {
    let t = line.trim_start();
    if t.starts_with(['[', ';', '#']) {
        return None;
    }
    let (key, rest) = t.split_once('=')?;
    let end = rest
        .find([';', '#'])
        .filter(|&i| i == 0 || rest[..i].ends_with([' ', '\t']))
        .unwrap_or(rest.len());
    Some((key.trim(), rest[..end].trim(), &rest[end..]))
}

/// fio's sizes (base 1024, as fio's default kb_base), or None for anything else (a
/// percentage, a range).
fn size_of(v: &str) -> Option<u64> {
    let digits = v.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: u64 = digits.parse().ok()?;
    let unit = v[digits.len()..].to_ascii_lowercase();
    let shift = match unit.trim_end_matches(['b', 'i']) {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    n.checked_mul(1 << shift)
}

/// fio's times in seconds (its default unit), or None when unclear.
fn seconds_of(v: &str) -> Option<f64> {
    let digits = v.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: f64 = digits.parse().ok()?;
    let per = match &v[digits.len()..] {
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "ms" => 1e-3,
        "us" => 1e-6,
        _ => return None,
    };
    Some(n * per)
}

/// A device path stands in as a file of the run folder: `/dev/sdb1` → `dev-sdb1`.
fn stand_in(path: &str) -> Option<String> {
    let dev = path.strip_prefix("/dev/")?;
    (!matches!(dev, "null" | "zero")).then(|| format!("dev-{}", dev.replace('/', "-")))
}

/// The value a shrunk job file gives `key` (None: the line stays as shipped).
fn shrunk_value(key: &str, v: &str) -> Option<String> {
    match key {
        "size" | "filesize" | "io_size" | "io_limit" => {
            let cap = 4u64 << 20;
            size_of(v).filter(|&n| n > cap).map(|_| "4m".into())
        }
        "offset" => size_of(v).filter(|&n| n > 1 << 20).map(|_| "0".into()),
        // Zones of 1 MiB, 8 MiB apart: two in a stand-in device.
        "zonesize" | "zonerange" => size_of(v).filter(|&n| n > 1 << 20).map(|_| "1m".into()),
        "zoneskip" => size_of(v).filter(|&n| n > 8 << 20).map(|_| "8m".into()),
        // Clones 32 MiB apart: each one's strided 4 MiB stays clear of the next one's.
        "offset_increment" => size_of(v).filter(|&n| n > 32 << 20).map(|_| "32m".into()),
        "runtime" | "timeout" => seconds_of(v).filter(|&s| s > 1.0).map(|_| "1".into()),
        // fio takes whole seconds here only.
        "ss_dur" => Some("2".into()),
        "ss_ramp" => Some("0".into()),
        "startdelay" => seconds_of(v).map(|s| format!("{}ms", (s * 25.0) as u64)),
        // One loop: fio 3.33 itself fails cross-stripe-verify's second loop here ("bad
        // header numberio 509, wanted 253": a read-back finds the block's next loop).
        "loops" => v.parse::<u64>().ok().filter(|&n| n > 1).map(|_| "1".into()),
        "nrfiles" => v
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 200)
            .map(|_| "200".into()),
        "numjobs" => v.parse::<u64>().ok().filter(|&n| n > 4).map(|_| "4".into()),
        "number_ios" => v
            .parse::<u64>()
            .ok()
            .filter(|&n| n > 64)
            .map(|_| "64".into()),
        "thinktime" => v.parse::<u64>().ok().map(|n| (n / 10).to_string()),
        // Fast enough that a shrunk job ends in about half a second; the minimums scaled
        // less, so that they stay below.
        "rate" => Some(scaled(v, |n| (n * 8).max(8 << 20))),
        "rate_iops" => Some(scaled(v, |n| (n * 8).max(2048))),
        "ratemin" | "rate_min" | "rate_iops_min" => Some(scaled(v, |n| n * 8)),
        "directory" => Some(".".into()),
        "filename" => Some(
            v.split(':')
                .map(|f| stand_in(f).unwrap_or_else(|| file_name_only(f)))
                .collect::<Vec<_>>()
                .join(":"),
        ),
        _ => None,
    }
}

/// Each of a comma-separated value's numbers changed by `f`.
fn scaled(v: &str, f: impl Fn(u64) -> u64) -> String {
    v.split(',')
        .map(|x| match size_of(x) {
            Some(n) => f(n).to_string(),
            None => x.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// A path outside the run folder (`/tmp/testfile`) is kept inside it: `testfile`.
fn file_name_only(f: &str) -> String {
    match f {
        "/dev/null" | "/dev/zero" => f.to_string(),
        _ => f.rsplit('/').next().unwrap_or(f).to_string(),
    }
}

/// Whether the job file gives its files a size: where not, a file it names must exist
/// beforehand, as a device does, and gets a stand-in too.
fn sized(text: &str) -> bool {
    text.lines()
        .any(|l| matches!(split_line(l), Some(("size" | "filesize", _, _))))
}

/// The stand-ins a `filename=` value needs: its devices, and where nothing sizes the files,
/// the files it names outside the run folder.
fn stand_ins(v: &str, sized: bool) -> Vec<String> {
    v.split(':')
        .filter_map(|f| match stand_in(f) {
            Some(s) => Some(s),
            None if !sized && f.starts_with('/') && !f.starts_with("/dev/") => {
                Some(file_name_only(f))
            }
            None => None,
        })
        .collect()
}

/// The job file as this test runs it, and the stand-ins it needs.
fn shrink(text: &str) -> (String, Vec<String>) {
    let sized = sized(text);
    let mut out = String::new();
    let mut devices = Vec::new();
    for line in text.lines() {
        match split_line(line).and_then(|(k, v, tail)| Some((k, v, tail, shrunk_value(k, v)?))) {
            Some((k, v, tail, new)) => {
                if k == "filename" {
                    devices.extend(stand_ins(v, sized));
                }
                out.push_str(&format!(
                    "{k}={new}{}{tail}\n",
                    if tail.is_empty() { "" } else { " " }
                ));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    devices.sort();
    devices.dedup();
    (out, devices)
}

/// The shipped job file with only what names a device (or a file that must exist) changed
/// to stand-in files.
fn devices_only(text: &str) -> (String, Vec<String>) {
    let sized = sized(text);
    let mut out = String::new();
    let mut devices = Vec::new();
    for line in text.lines() {
        match split_line(line) {
            Some(("filename", v, tail)) if !stand_ins(v, sized).is_empty() => {
                devices.extend(stand_ins(v, sized));
                let files: Vec<String> = v
                    .split(':')
                    .map(|f| match stand_ins(f, sized).pop() {
                        Some(s) => s,
                        None => f.into(),
                    })
                    .collect();
                out.push_str(&format!("filename={} {tail}\n", files.join(":")));
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    devices.sort();
    devices.dedup();
    (out, devices)
}

/// A run folder holding the job file and the stand-ins (and `tmp`, which 1mbs_clients names
/// as its directory).
fn prepare(dir: &Path, job: &str, devices: &[String]) -> PathBuf {
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    // Clones set apart by offset_increment need room for each (sparse: nothing written).
    let size = if job.contains("offset_increment") {
        256 << 20
    } else {
        STAND_IN
    };
    for d in devices {
        let f = std::fs::File::create(dir.join(d)).unwrap();
        f.set_len(size).unwrap();
    }
    let file = dir.join("job.fio");
    std::fs::write(&file, job).unwrap();
    file
}

/// The first line a tool said about its failure (fio says some on stdout).
fn first_line(o: &Output) -> String {
    let e = String::from_utf8_lossy(&o.stderr);
    let out = String::from_utf8_lossy(&o.stdout);
    let first = |t: &str| {
        t.lines()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim().to_string())
    };
    first(&e).or_else(|| first(&out)).unwrap_or_default()
}

fn iogauge_fio(dir: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(dir)
        .args(["fio", "--no-save", "--allow-overwrite"])
        .args(args)
        .output()
        .expect("iogauge starts")
}

/// One job of the JSON as compared: name, group, and read and write bytes and operations.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone)]
struct Job {
    name: String,
    group: u64,
    read: (u64, u64),
    write: (u64, u64),
    trim: (u64, u64),
}

impl Job {
    fn ios(&self) -> u64 {
        self.read.1 + self.write.1 + self.trim.1
    }
}

fn jobs_of(json: &Value) -> Result<Vec<Job>, String> {
    let jobs = json["jobs"].as_array().ok_or("no jobs array")?;
    let dir = |j: &Value, d: &str| {
        (
            j[d]["io_bytes"].as_u64().unwrap_or(0),
            j[d]["total_ios"].as_u64().unwrap_or(0),
        )
    };
    let mut out: Vec<Job> = jobs
        .iter()
        .map(|j| Job {
            name: j["jobname"].as_str().unwrap_or("").to_string(),
            group: j["groupid"].as_u64().unwrap_or(0),
            read: dir(j, "read"),
            write: dir(j, "write"),
            trim: dir(j, "trim"),
        })
        .collect();
    out.sort();
    Ok(out)
}

/// fio's JSON may follow lines fio prints before it (its notes); the object starts at `{`.
fn json_in(o: &Output, tool: &str) -> Result<Value, String> {
    let text = String::from_utf8_lossy(&o.stdout);
    let start = text
        .find('{')
        .ok_or_else(|| format!("{tool} wrote no JSON: {}", first_line(o)))?;
    serde_json::from_str(&text[start..]).map_err(|e| format!("{tool}'s JSON: {e}"))
}

/// Both tools on the shrunk example, each in a folder of its own: what each made of it.
/// Examples that fill their file system (fill_device): each tool runs in a tmpfs of its own
/// this large, mounted over its folder, never on the disk the tests run on.
const SMALL_FS: &[&str] = &["surface-scan"];

/// A tmpfs of 16 MiB mounted at a folder while this lives.
struct SmallFs(PathBuf);

impl SmallFs {
    fn mount(at: &Path) -> Result<SmallFs, String> {
        std::fs::create_dir_all(at).unwrap();
        sh("mount", &["-t", "tmpfs", "-o", "size=16m", "tmpfs", p(at)])?;
        Ok(SmallFs(at.to_path_buf()))
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = sh("umount", &[p(&self.0)]);
    }
}

fn run_both(name: &str) -> (Result<Vec<Job>, String>, Result<Vec<Job>, String>) {
    let text = std::fs::read_to_string(example(name)).unwrap();
    let (job, devices) = shrink(&text);
    let root = work_dir();
    let fio_dir = root.path().join("fio");
    let our_dir = root.path().join("iogauge");
    let mut _small = Vec::new();
    if SMALL_FS.contains(&name) {
        for d in [&fio_dir, &our_dir] {
            match SmallFs::mount(d) {
                Ok(m) => _small.push(m),
                Err(e) => return (Err(format!("{SMALL_TMPFS}: {e}")), Err(e)),
            }
        }
    }
    let fio_job = prepare(&fio_dir, &job, &devices);
    let our_job = prepare(&our_dir, &job, &devices);
    let fio = || {
        let mut c = Command::new("fio");
        c.args(["--output-format=json", p(&fio_job)]);
        c
    };
    // A shrunk job ends in seconds; fio's occasional offload hang gets one more try.
    let fio_out = match bounded(fio(), &fio_dir, "fio", 30) {
        Err(e) if e.starts_with(HUNG) => {
            bounded(fio(), &fio_dir, "fio", 30).map_err(|again| format!("{again}, twice"))
        }
        other => other,
    };
    let mut ours = bin();
    ours.args([
        "fio",
        "--no-save",
        "--allow-overwrite",
        "--output-format=json",
        p(&our_job),
    ]);
    let read = |o: Result<Output, String>, tool: &str| {
        let o = o?;
        match o.status.success() {
            true => jobs_of(&json_in(&o, tool)?),
            false => Err(first_line(&o)),
        }
    };
    (
        read(fio_out, "fio"),
        read(bounded(ours, &our_dir, "iogauge", 60), "iogauge"),
    )
}

/// The NUMA nodes online here.
fn online_nodes() -> usize {
    let online = std::fs::read_to_string("/sys/devices/system/node/online").unwrap_or_default();
    let last = online
        .trim()
        .rsplit(['-', ','])
        .next()
        .and_then(|n| n.parse::<usize>().ok());
    last.map_or(1, |n| n + 1)
}

/// What run_both says where it could not mount a small file system.
const SMALL_TMPFS: &str = "cannot mount a 16 MiB tmpfs";

fn compare(name: &str, expect: Expect) -> Outcome {
    if SMALL_FS.contains(&name) && !is_root() {
        return Outcome::Skip(format!(
            "{SMALL_TMPFS} without root: {name} fills its file system"
        ));
    }
    if let Nodes(highest) = expect {
        if online_nodes() <= highest {
            return match run_both(name) {
                (Err(f), Err(e)) if e.contains("is not online here") => Outcome::Pass(format!(
                    "both refuse node {highest} on this {}-node machine: fio \"{f}\", iogauge \"{e}\"",
                    online_nodes()
                )),
                (Err(_), Err(e)) => Outcome::Fail(format!("refused, but not for the node: {e}")),
                (Err(f), Ok(_)) => Outcome::Fail(format!("iogauge ran what fio refused ({f})")),
                (Ok(_), _) => Outcome::Fail("fio ran it on a machine without the node it names".into()),
            };
        }
        return compare(name, Same);
    }
    if let FioFails(message, why) = expect {
        return match run_both(name) {
            (Err(f), Ok(o)) if f.contains(message) && o.iter().all(|j| j.ios() > 0) => {
                Outcome::Pass(format!(
                    "fio fails here (\"{message}\"); iogauge ran its {} jobs, each doing I/O ({why})",
                    o.len()
                ))
            }
            (Err(f), Ok(o)) if f.contains(message) => {
                Outcome::Fail(format!("fio fails as expected, but a job of iogauge's did no I/O: {o:?}"))
            }
            (_, Err(e)) => Outcome::Fail(format!("iogauge failed: {e}")),
            (f, Ok(_)) => Outcome::Fail(format!(
                "fio no longer fails with \"{message}\" ({f:?}): compare the two"
            )),
        };
    }
    let (fio, ours) = match run_both(name) {
        (Ok(f), Ok(o)) => (f, o),
        (Err(e), Ok(o)) if e.starts_with(HUNG) => {
            return Outcome::Skip(format!(
                "fio 3.33 hung here, nothing to compare with ({e}); iogauge ran {} jobs",
                o.len()
            ))
        }
        (Err(e), _) if e.starts_with(SMALL_TMPFS) => return Outcome::Skip(e),
        (Err(e), _) => return Outcome::Fail(format!("fio failed on the shrunk job: {e}")),
        (_, Err(e)) => return Outcome::Fail(format!("iogauge failed: {e}")),
    };
    let shape = |js: &[Job]| -> Vec<(String, u64)> {
        js.iter().map(|j| (j.name.clone(), j.group)).collect()
    };
    if shape(&fio) != shape(&ours) {
        return Outcome::Fail(format!(
            "jobs and groups: fio {:?}, iogauge {:?}",
            shape(&fio),
            shape(&ours)
        ));
    }
    let ios: u64 = ours.iter().map(Job::ios).sum();
    let fio_ios: u64 = fio.iter().map(Job::ios).sum();
    match expect {
        Same if fio != ours => Outcome::Fail(format!(
            "bytes or counts differ: fio {fio:?}, iogauge {ours:?}"
        )),
        Same => Outcome::Pass(format!("{} jobs, {ios} I/Os, as fio", ours.len())),
        Jobs(why) if ours.iter().any(|j| j.ios() == 0) && fio.iter().all(|j| j.ios() > 0) => {
            Outcome::Fail(format!(
                "a job did no I/O where fio's did ({why}): {ours:?}"
            ))
        }
        Jobs(why) => Outcome::Pass(format!(
            "{} jobs as fio; {ios} I/Os, fio {fio_ios} ({why})",
            ours.len()
        )),
        Ios(why) => {
            let counts = |js: &[Job]| {
                js.iter()
                    .map(|j| (j.read.1, j.write.1, j.trim.1))
                    .collect::<Vec<_>>()
            };
            if counts(&fio) != counts(&ours) {
                return Outcome::Fail(format!("counts differ: fio {fio:?}, iogauge {ours:?}"));
            }
            Outcome::Pass(format!(
                "{} jobs, {ios} operations, as fio; bytes differ: {why}",
                ours.len()
            ))
        }
        Bytes(why) => {
            let bytes = |js: &[Job]| {
                js.iter()
                    .map(|j| (j.read.0, j.write.0, j.trim.0))
                    .collect::<Vec<_>>()
            };
            if bytes(&fio) != bytes(&ours) {
                return Outcome::Fail(format!("bytes differ: fio {fio:?}, iogauge {ours:?}"));
            }
            Outcome::Pass(format!(
                "{} jobs, the same bytes as fio; {ios} I/Os, fio {fio_ios}: {why}",
                ours.len()
            ))
        }
        Total(why) => {
            let total = |js: &[Job]| {
                js.iter()
                    .map(|j| (j.read.0 + j.write.0 + j.trim.0, j.ios()))
                    .collect::<Vec<_>>()
            };
            if total(&fio) != total(&ours) {
                return Outcome::Fail(format!("totals differ: fio {fio:?}, iogauge {ours:?}"));
            }
            Outcome::Pass(format!(
                "{} jobs, {ios} I/Os in all, as fio; {why}",
                ours.len()
            ))
        }
        Writes(why) => {
            let writes = |js: &[Job]| js.iter().map(|j| j.write).collect::<Vec<_>>();
            if writes(&fio) != writes(&ours) {
                return Outcome::Fail(format!("writes differ: fio {fio:?}, iogauge {ours:?}"));
            }
            Outcome::Pass(format!(
                "{} jobs, the same writes as fio; {why}",
                ours.len()
            ))
        }
        Nodes(_) | FioFails(..) => unreachable!("not compared here"),
    }
}

/// Parse-only on the example as shipped (device paths aside), by fio and by iogauge.
fn parse(name: &str) -> Outcome {
    let text = std::fs::read_to_string(example(name)).unwrap();
    let root = work_dir();
    let mut cmd = Command::new("fio");
    cmd.args(["--parse-only", p(&example(name))]);
    let fio = match bounded(cmd, root.path(), "fio", 60) {
        Ok(o) => o,
        Err(e) => return Outcome::Skip(format!("fio --parse-only: {e}")),
    };
    if !fio.status.success() {
        return Outcome::Skip(format!("fio itself refuses it here: {}", first_line(&fio)));
    }
    let (job, devices) = devices_only(&text);
    let file = prepare(root.path(), &job, &devices);
    let ours = iogauge_fio(root.path(), &["--parse-only", p(&file)]);
    match ours.status.success() {
        true if devices.is_empty() => Outcome::Pass("accepted as shipped".into()),
        true => Outcome::Pass(format!(
            "accepted, {} standing in for the device",
            devices.join(", ")
        )),
        false => Outcome::Fail(format!("refused: {}", first_line(&ours))),
    }
}

pub fn main() {
    let mut tests: Vec<(String, Box<dyn Fn() -> Outcome>)> = Vec::new();
    for &(name, _) in EXAMPLES {
        tests.push((
            format!("parse_only_{name}"),
            Box::new(move || match missing_tools() {
                Some(why) => Outcome::Skip(why),
                None => parse(name),
            }),
        ));
    }
    for &(name, expect) in EXAMPLES {
        tests.push((
            format!("shrunk_{name}_beside_fio"),
            Box::new(move || match missing_tools() {
                Some(why) => Outcome::Skip(why),
                None => compare(name, expect),
            }),
        ));
    }
    tests.push((
        "shrinking_keeps_the_jobs_and_their_comments".into(),
        Box::new(shrink_test),
    ));
    // FIO_EXAMPLES=falloc,ftruncate runs only the checks whose names contain one of these.
    if let Ok(only) = std::env::var("FIO_EXAMPLES") {
        tests.retain(|(name, _)| only.split(',').any(|o| name.contains(o)));
    }
    harness("fio examples", tests);
}

/// The shrink itself: caps what it must, keeps comments and what it need not touch.
fn shrink_test() -> Outcome {
    let (job, devices) = shrink(
        "[global]\nsize=10G ; ten\nruntime=900\nfilename=/dev/sdb:/tmp/x\nbs=4k\nrate=1250,1m\n[a]\nsize=1m\n",
    );
    let want = "[global]\nsize=4m ; ten\nruntime=1\nfilename=dev-sdb:x\nbs=4k\nrate=8388608,8388608\n[a]\nsize=1m\n";
    if job != want || devices != ["dev-sdb"] {
        return Outcome::Fail(format!("shrunk to {job:?} with {devices:?}"));
    }
    Outcome::Pass(String::new())
}
