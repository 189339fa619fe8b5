//! What limited a run (the result's `limit`), asserted on a matrix of bottlenecks made for
//! real: zram at queue depth 1 and with more threads than CPUs, the null engine, a loop device
//! throttled by a blkio cgroup, cached rereads, a file larger than a memory cgroup, writes
//! past a lowered dirty limit, `--rate-bw`, a slow FUSE daemon, the work disk at QD32 and four
//! threads pinned to one CPU. Each test first checks that its bottleneck really held (the
//! throttle's rate, the daemon's CPU, the dirty pages), so that a wrong verdict is told apart
//! from a failed injection; a wrong verdict fails with the whole `limit` and the run's key
//! figures. They share zram0 and the machine's dirty limits, and so run one at a time, each
//! putting back what it changed. What needs root, zram, a cgroup v1 controller, FUSE or
//! python3's mfusepy says SKIPPED without it. At the end, the matrix: scenario, verdict and
//! the first line of evidence.

use crate::common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

/// Measured and warm-up seconds of every run: long enough for three samples at the default
/// interval, short enough for the whole matrix to take a minute or two.
const TIMING: &str = "-d 3 -W 1";

/// The matrix so far: scenario, verdict, first line of evidence (or what went wrong).
static MATRIX: Mutex<Vec<(String, String, String)>> = Mutex::new(Vec::new());

/// How a run is started: inside a cgroup (a v1 controller's folder) and under a command
/// such as `taskset -c 0`.
#[derive(Default)]
struct Within<'a> {
    cgroup: Option<&'a Path>,
    prefix: &'a [&'a str],
}

/// `iogauge run --no-save --output json LINE TARGET`, started as `within` says, killed if
/// it still runs after a minute; its JSON, checked against the run result's schema.
fn iogauge(dir: &Path, within: Within, line: &str, target: &str) -> Value {
    let bin_path = env!("CARGO_BIN_EXE_iogauge");
    let mut argv: Vec<&str> = within.prefix.to_vec();
    argv.extend([bin_path, "run", "--no-save", "--output", "json"]);
    argv.extend(line.split_whitespace());
    argv.push(target);
    let mut cmd = match within.cgroup {
        // The shell joins the cgroup, then becomes the command: every I/O of the run is in it.
        Some(cg) => {
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg(format!(
                    "echo $$ > '{}' && exec \"$0\" \"$@\"",
                    p(&cg.join("cgroup.procs"))
                ))
                .args(&argv);
            c
        }
        None => {
            let mut c = Command::new(argv[0]);
            c.args(&argv[1..]);
            c
        }
    };
    cmd.env("IOGAUGE_DB", test_db());
    let o = bounded(cmd, dir, "run", 60).unwrap_or_else(|e| panic!("iogauge {line}: {e}"));
    assert!(
        o.status.success(),
        "iogauge run {line} {target} failed: {}\n{}",
        o.status,
        stderr(&o)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            stderr(&o)
        )
    });
    let schema: Value =
        serde_json::from_str(include_str!("../../schema/run-result.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is valid");
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "the report does not match its schema: {errors:?}"
    );
    v
}

/// The run's figures that a verdict is judged by, for messages.
fn figures(v: &Value) -> String {
    let all = &v["total"]["all"];
    let measured = f(&v["measured_ns"]) / 1e9;
    let cpus: Vec<String> = v["cpu"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let busy = f(&c["user_ns"]) + f(&c["kernel_ns"]);
            let all = busy + f(&c["idle_ns"]);
            format!("{:.0}%", 100.0 * busy / all.max(1.0))
        })
        .collect();
    let usage = &v["iogauge_usage"];
    format!(
        "{:.1} MiB/s, {:.0} IOPS over {measured:.1} s; CPUs busy [{}]; iogauge {:.2} s user + \
         {:.2} s system (warm-up included)",
        f(&all["bytes_per_sec"]) / MIB as f64,
        f(&all["iops"]),
        cpus.join(", "),
        f(&usage["user_cpu_ns"]) / 1e9,
        f(&usage["system_cpu_ns"]) / 1e9,
    )
}

fn mib_per_sec(v: &Value) -> f64 {
    f(&v["total"]["all"]["bytes_per_sec"]) / MIB as f64
}

/// Assert the run's verdict is `want` and that its evidence says one of each group of
/// `mentions`; record the row of the matrix either way. Ok("verdict: first evidence line");
/// Err(why it is a skip): the verdict was another, while other work kept this machine's CPUs
/// busy (measured again here, apart from iogauge's own figures), which changes what limits a
/// run; on a quiet machine a wrong verdict fails.
fn verdict(
    scenario: &str,
    v: &Value,
    want: &str,
    mentions: &[&[String]],
    setup: &str,
) -> Result<String, String> {
    let limit = &v["limit"];
    let code = limit["verdict"].as_str().unwrap_or("(none)").to_string();
    let evidence: Vec<String> = limit["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| e.as_str().unwrap_or_default().to_string())
        .collect();
    let first = evidence.first().cloned().unwrap_or_default();
    let missing: Vec<String> = mentions
        .iter()
        .filter(|any| !any.iter().any(|m| evidence.iter().any(|e| e.contains(m))))
        .map(|any| format!("{any:?}"))
        .collect();
    let right = code == want && missing.is_empty();
    let busy = (!right).then(other_work).flatten();
    let mark = match (right, &busy) {
        (true, _) => String::new(),
        (false, Some(why)) => format!(" (skipped: {why})"),
        (false, None) => " (WRONG)".into(),
    };
    MATRIX
        .lock()
        .unwrap()
        .push((scenario.to_string(), format!("{code}{mark}"), first.clone()));
    if let Some(why) = busy {
        return Err(format!(
            "{why}, so {code} rather than {want} cannot be judged here now"
        ));
    }
    let whole = || {
        format!(
            "{scenario}: want {want}\nlimit: {}\nfigures: {}\nsetup: {setup}\nsignals: {}",
            serde_json::to_string_pretty(limit).unwrap(),
            figures(v),
            v["signals"]
        )
    };
    assert!(!limit.is_null(), "no `limit` in the result; {}", whole());
    assert_eq!(code, want, "the wrong verdict; {}", whole());
    assert!(
        limit["label"].as_str().is_some_and(|l| !l.is_empty()),
        "no label; {}",
        whole()
    );
    assert!(
        missing.is_empty(),
        "the evidence names none of {missing:?}; {}",
        whole()
    );
    Ok(format!("{code}: {first}"))
}

/// Busy and all jiffies of the machine's CPUs so far (/proc/stat's first line; idle and
/// iowait are not busy).
fn cpu_jiffies() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let f: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    let all: u64 = f.iter().sum();
    let idle = f.get(3).unwrap_or(&0) + f.get(4).unwrap_or(&0);
    (all - idle, all)
}

/// Some(what was seen) where other work keeps this machine's CPUs busy (a quarter or more
/// of them over a second, with no test running): a verdict of the machine's CPU is then
/// right, and the scenario cannot be judged here now.
fn other_work() -> Option<String> {
    let (b0, a0) = cpu_jiffies();
    std::thread::sleep(Duration::from_secs(1));
    let (b1, a1) = cpu_jiffies();
    let pct = 100.0 * (b1 - b0) as f64 / (a1 - a0).max(1) as f64;
    (pct >= 25.0).then(|| format!("other work kept the CPUs {pct:.0}% busy"))
}

/// The ways a size may be written in evidence: "64MiB", "64 MiB", "64.0 MiB", 67108864.
fn size_said(bytes: u64, per: &str) -> Vec<String> {
    let mib = bytes / MIB;
    let mut said = vec![format!("{bytes}")];
    for n in [format!("{mib}"), format!("{mib}.0")] {
        said.push(format!("{n}MiB{per}"));
        said.push(format!("{n} MiB{per}"));
    }
    said
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

/// zram0 sized and filled with random data for the test, reset when dropped.
struct Zram(&'static str);

impl Zram {
    fn new() -> Result<Zram, String> {
        need_root()?;
        let sys = Path::new("/sys/block/zram0");
        if !sys.exists() {
            return Err("no /dev/zram0 (the zram module is not loaded)".into());
        }
        let size = std::fs::read_to_string(sys.join("disksize")).unwrap_or_default();
        if size.trim() != "0" {
            return Err(format!(
                "/dev/zram0 is in use (disksize {}): left alone (echo 1 > \
                 /sys/block/zram0/reset frees it)",
                size.trim()
            ));
        }
        std::fs::write(sys.join("disksize"), "256M")
            .map_err(|e| format!("cannot size /dev/zram0: {e}"))?;
        let z = Zram("/dev/zram0");
        // Random data: every read finds a stored page, none the zero-page shortcut.
        sh(
            "dd",
            &[
                "if=/dev/urandom",
                "of=/dev/zram0",
                "bs=1M",
                "count=256",
                "oflag=direct",
                "status=none",
            ],
        )
        .unwrap();
        Ok(z)
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // Busy for a moment after the last close.
        for _ in 0..20 {
            if std::fs::write("/sys/block/zram0/reset", "1").is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("limits: could not reset /dev/zram0");
    }
}

struct Loop(String);
impl Drop for Loop {
    fn drop(&mut self) {
        let _ = sh("losetup", &["-d", &self.0]);
    }
}

/// A cgroup made for the test, removed when dropped (its last task has exited by then; the
/// memory controller may take a moment to let go).
struct Cgroup(PathBuf);
impl Cgroup {
    fn new(parent: &Path) -> Result<Cgroup, String> {
        let dir = parent.join(format!("iogauge-limits-{}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("cannot make a cgroup: {e}"))?;
        Ok(Cgroup(dir))
    }

    fn set(&self, file: &str, value: &str) {
        std::fs::write(self.0.join(file), value)
            .unwrap_or_else(|e| panic!("{file} <- {value}: {e}"));
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.0.join(file)).unwrap_or_default()
    }
}
impl Drop for Cgroup {
    fn drop(&mut self) {
        for _ in 0..50 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("limits: could not remove {}", self.0.display());
    }
}

/// The machine's dirty limits, lowered for a test and put back when dropped. Writing a
/// `_bytes` file zeroes its `_ratio` (and the reverse), so whichever was set is written back.
struct DirtyLimits(Vec<(&'static str, &'static str, String, String)>);
impl DirtyLimits {
    fn lower(bytes: u64, background: u64) -> Result<DirtyLimits, String> {
        need_root()?;
        let vm = |f: &str| std::fs::read_to_string(format!("/proc/sys/vm/{f}"));
        let mut saved = Vec::new();
        for (b, r) in [
            ("dirty_bytes", "dirty_ratio"),
            ("dirty_background_bytes", "dirty_background_ratio"),
        ] {
            let (bv, rv) = (vm(b), vm(r));
            let (Ok(bv), Ok(rv)) = (bv, rv) else {
                return Err(format!("cannot read /proc/sys/vm/{b} and {r}"));
            };
            saved.push((b, r, bv.trim().to_string(), rv.trim().to_string()));
        }
        let d = DirtyLimits(saved);
        // The background limit first: it must stay under the limit at every step.
        std::fs::write(
            "/proc/sys/vm/dirty_background_bytes",
            background.to_string(),
        )
        .map_err(|e| format!("cannot lower the dirty limits: {e}"))?;
        std::fs::write("/proc/sys/vm/dirty_bytes", bytes.to_string())
            .map_err(|e| format!("cannot lower the dirty limits: {e}"))?;
        Ok(d)
    }
}
impl Drop for DirtyLimits {
    fn drop(&mut self) {
        // The limit first, so that the background limit is under it when it goes back.
        for (bytes, ratio, b, r) in &self.0 {
            let (file, value) = if b != "0" { (bytes, b) } else { (ratio, r) };
            if let Err(e) = std::fs::write(format!("/proc/sys/vm/{file}"), value) {
                eprintln!("limits: could not put back vm.{file} = {value}: {e}");
            }
        }
    }
}

/// A file of `bytes` pseudo-random bytes (incompressible), on disk and out of the page cache.
fn data_file(dir: &Path, name: &str, bytes: u64) -> PathBuf {
    use std::io::Write;
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut chunk = vec![0u8; MIB as usize];
    for _ in 0..bytes.div_ceil(MIB) {
        for w in chunk.chunks_exact_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            w.copy_from_slice(&x.to_le_bytes());
        }
        f.write_all(&chunk).unwrap();
    }
    f.sync_all().unwrap();
    drop_cache(&path);
    path
}

fn drop_cache(path: &Path) {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path).unwrap();
    // SAFETY: an advice on a descriptor we hold open; no memory is passed.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// Bytes read so far from the block device holding `path` (its /sys/dev/block stat), if it
/// is on one.
fn device_bytes_read(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(path).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let stat = std::fs::read_to_string(format!("/sys/dev/block/{major}:{minor}/stat")).ok()?;
    let sectors: u64 = stat.split_whitespace().nth(2)?.parse().ok()?;
    Some(sectors * 512)
}

/// CPU seconds used so far by process `pid`, all its threads.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    // After the command: state is field 0, utime 11, stime 12.
    // SAFETY: sysconf has no preconditions.
    let tick = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (f.get(11).unwrap_or(&0) + f.get(12).unwrap_or(&0)) as f64 / tick
}

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Scenario 1: one 4 KiB O_DIRECT read at a time on zram: the device, a memory copy, has room
/// for far more; the depth asked is the limit.
fn qd1_on_zram_is_the_queue_depth() -> Result<String, String> {
    let z = Zram::new()?;
    let d = work_dir();
    let v = iogauge(
        d.path(),
        Within::default(),
        &format!("{TIMING} --engine io_uring --cache direct -r -b 4k -o 1 -t 1"),
        z.0,
    );
    let s = format!("{:.0} IOPS", f(&v["total"]["all"]["iops"]));
    verdict(
        "zram, O_DIRECT 4k random reads, QD1, 1 thread",
        &v,
        "queue_depth",
        &[],
        &s,
    )
}

/// Scenario 2: zram at QD32 with twice as many threads as CPUs: the CPUs do the device's copies
/// and iogauge's work; iogauge's own CPU is the limit.
fn more_threads_than_cpus_on_zram_is_iogauge_cpu() -> Result<String, String> {
    let z = Zram::new()?;
    let d = work_dir();
    let threads = (2 * cpus()).max(4);
    let v = iogauge(
        d.path(),
        Within::default(),
        &format!("{TIMING} --engine io_uring --cache direct -r -b 4k -o 32 -t {threads}"),
        z.0,
    );
    verdict(
        &format!(
            "zram, O_DIRECT 4k random reads, QD32, {threads} threads on {} CPUs",
            cpus()
        ),
        &v,
        "iogauge_cpu",
        &[],
        &format!("{threads} threads"),
    )
}

/// Scenario 3: the null engine touches no storage: only iogauge's CPU can limit it, and the
/// evidence says there was no storage. The text report carries the verdict on its own line.
fn the_null_engine_is_iogauge_cpu() -> Result<String, String> {
    let d = work_dir();
    let target = file_in(&d, "null.dat");
    let v = iogauge(
        d.path(),
        Within::default(),
        &format!("{TIMING} --engine null -c 16M"),
        p(&target),
    );
    let row = verdict(
        "the null engine",
        &v,
        "iogauge_cpu",
        &[&words(&["no storage"])],
        "",
    )?;
    let o = run_l("-d 1 -W 0 --no-save --engine null -c 16M", &[p(&target)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("Limited by: "))
        .unwrap_or_else(|| panic!("no 'Limited by: ' line in the text report:\n{text}"));
    let label = v["limit"]["label"].as_str().unwrap();
    assert!(
        line.contains(label),
        "the text line {line:?} does not carry the label {label:?}"
    );
    Ok(row)
}

/// Scenario 4: sequential 1 MiB O_DIRECT reads of a loop device, from inside a blkio cgroup
/// that throttles reads of it to 20 MiB/s: the cgroup's limit, named with its value.
fn a_blkio_throttled_loop_device_is_the_cgroup_limit() -> Result<String, String> {
    need_root()?;
    let blkio = Path::new("/sys/fs/cgroup/blkio");
    if !blkio.join("blkio.throttle.read_bps_device").exists() {
        return Err("no cgroup v1 blkio controller with throttling here".into());
    }
    let d = work_dir();
    let img = d.path().join("throttled.img");
    std::fs::File::create(&img)
        .and_then(|f| f.set_len(256 * MIB))
        .unwrap();
    let dev =
        sh("losetup", &["-f", "--show", p(&img)]).map_err(|e| format!("no loop device: {e}"))?;
    let _l = Loop(dev.clone());
    let majmin = sh("lsblk", &["-dno", "MAJ:MIN", &dev])?.trim().to_string();
    let cg = Cgroup::new(blkio)?;
    let limit = 20 * MIB;
    cg.set(
        "blkio.throttle.read_bps_device",
        &format!("{majmin} {limit}"),
    );
    let v = iogauge(
        d.path(),
        Within {
            cgroup: Some(&cg.0),
            ..Within::default()
        },
        &format!("{TIMING} --engine sync --cache direct -s -b 1M"),
        &dev,
    );
    let rate = mib_per_sec(&v);
    let setup = format!("{rate:.1} MiB/s under a limit of 20 MiB/s");
    assert!(
        (rate - 20.0).abs() <= 2.0,
        "the throttle did not hold: {setup}; {}",
        figures(&v)
    );
    verdict(
        "loop device, blkio read_bps 20 MiB/s, O_DIRECT 1M sequential",
        &v,
        "cgroup_limit",
        &[&size_said(limit, "/s")],
        &setup,
    )
}

/// Scenario 5: random 4 KiB buffered rereads of a 64 MiB file read once before: every read is
/// answered from memory, the device stays idle.
fn cached_rereads_are_the_page_cache() -> Result<String, String> {
    let d = work_dir();
    let file = data_file(d.path(), "cached.dat", 64 * MIB);
    std::fs::read(&file).unwrap();
    let before = device_bytes_read(&file);
    let v = iogauge(
        d.path(),
        Within::default(),
        &format!("{TIMING} --engine sync --cache buffered -r -b 4k"),
        p(&file),
    );
    let from_device = before
        .zip(device_bytes_read(&file))
        .map(|(a, b)| b.saturating_sub(a));
    let setup = format!("{from_device:?} bytes read from the device during the run");
    if let Some(b) = from_device {
        assert!(b < 16 * MIB, "the file was not cached: {setup}");
    }
    verdict(
        "64 MiB file, cached, buffered 4k random rereads",
        &v,
        "page_cache",
        &[],
        &setup,
    )
}

/// The folder of this process's cgroup in the v1 memory hierarchy, if there is one.
fn memory_cgroup_v1() -> Option<PathBuf> {
    let root = Path::new("/sys/fs/cgroup/memory");
    if !root.join("memory.limit_in_bytes").exists() {
        return None;
    }
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let rel = own.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then(|| path.trim_start_matches('/').to_string())
    })?;
    Some(root.join(rel))
}

/// Scenario 6: sequential 1 MiB buffered reads of a 512 MiB file from inside a 64 MiB memory
/// cgroup: the cache cannot hold it, every read goes to the device, which is the limit; the
/// evidence says the memory limit.
fn a_file_larger_than_the_memory_cgroup_is_the_device() -> Result<String, String> {
    need_root()?;
    let parent = memory_cgroup_v1().ok_or("no cgroup v1 memory controller here")?;
    let d = work_dir();
    let file = data_file(d.path(), "large.dat", 512 * MIB);
    let cg = Cgroup::new(&parent)?;
    let limit = 64 * MIB;
    cg.set("memory.limit_in_bytes", &limit.to_string());
    let before = device_bytes_read(&file);
    let v = iogauge(
        d.path(),
        Within {
            cgroup: Some(&cg.0),
            ..Within::default()
        },
        &format!("{TIMING} --engine sync --cache buffered -s -b 1M"),
        p(&file),
    );
    let from_device = before
        .zip(device_bytes_read(&file))
        .map(|(a, b)| b.saturating_sub(a));
    let read = u(&v["total"]["all"]["bytes"]);
    let peak = cg.read("memory.max_usage_in_bytes");
    let setup = format!(
        "{} MiB read in the window, {:?} MiB from the device in the run, cgroup peak {} bytes",
        read / MIB,
        from_device.map(|b| b / MIB),
        peak.trim()
    );
    if let Some(b) = from_device {
        assert!(b >= read / 2, "the reads did not reach the device: {setup}");
    }
    verdict(
        "512 MiB file, memory cgroup of 64 MiB, buffered 1M sequential",
        &v,
        "device",
        &[&size_said(limit, "")],
        &setup,
    )
}

/// /proc/vmstat's dirty and writeback pages, sampled until stopped: the most seen at once,
/// and the dirty and background thresholds, in pages.
struct DirtySampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<(u64, u64, u64)>,
}
impl DirtySampler {
    fn start() -> DirtySampler {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut most = (0, 0, 0);
            while !s.load(Ordering::Relaxed) {
                let vm = std::fs::read_to_string("/proc/vmstat").unwrap_or_default();
                let get = |k: &str| {
                    vm.lines()
                        .find_map(|l| l.strip_prefix(k)?.strip_prefix(' ')?.parse::<u64>().ok())
                        .unwrap_or(0)
                };
                let now = get("nr_dirty") + get("nr_writeback");
                if now > most.0 {
                    most.0 = now;
                }
                most.1 = get("nr_dirty_threshold");
                most.2 = get("nr_dirty_background_threshold");
                std::thread::sleep(Duration::from_millis(20));
            }
            most
        });
        DirtySampler { stop, thread }
    }

    fn finish(self) -> (u64, u64, u64) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// Scenario 7: sequential 1 MiB buffered writes with the dirty limit lowered to 32 MiB
/// (background 16 MiB): the writer is held at the dirty limit while writeback drains it.
fn writes_past_the_dirty_limit_are_writeback() -> Result<String, String> {
    need_root()?;
    let d = work_dir();
    let file = d.path().join("written.dat");
    {
        use std::os::fd::AsRawFd;
        let f = std::fs::File::create(&file).unwrap();
        // SAFETY: allocating blocks of a file we hold open; no memory is passed.
        let r = unsafe { libc::fallocate(f.as_raw_fd(), 0, 0, (256 * MIB) as libc::off_t) };
        if r != 0 {
            f.set_len(256 * MIB).unwrap();
        }
    }
    let _limits = DirtyLimits::lower(32 * MIB, 16 * MIB)?;
    let sampler = DirtySampler::start();
    let v = iogauge(
        d.path(),
        Within::default(),
        &format!("{TIMING} --engine sync --cache buffered -s -b 1M -w 100 --allow-overwrite"),
        p(&file),
    );
    let (most, threshold, background) = sampler.finish();
    let page = 4096;
    let setup = format!(
        "at most {} MiB dirty or under writeback, dirty threshold {} MiB, background {} MiB",
        most * page / MIB,
        threshold * page / MIB,
        background * page / MIB
    );
    assert!(
        most >= background,
        "the writes never reached the background limit: {setup}; {}",
        figures(&v)
    );
    verdict(
        "buffered 1M sequential writes, vm.dirty_bytes 32 MiB",
        &v,
        "writeback",
        &[],
        &setup,
    )
}

/// Scenario 8: `--rate-bw 10M` on a file the work disk serves far faster: the user's own limit.
fn a_rate_below_the_device_is_the_users_limit() -> Result<String, String> {
    let d = work_dir();
    let file = data_file(d.path(), "rated.dat", 64 * MIB);
    let v = iogauge(
        d.path(),
        Within::default(),
        &format!("{TIMING} --engine io_uring --cache direct -r -b 4k --rate-bw 10M"),
        p(&file),
    );
    let rate = mib_per_sec(&v);
    let setup = format!("{rate:.2} MiB/s at --rate-bw 10M");
    assert!((rate - 10.0).abs() <= 0.5, "the rate did not hold: {setup}");
    verdict(
        "work-disk file, O_DIRECT 4k random, --rate-bw 10M",
        &v,
        "rate_limit",
        &[&words(&["--rate-bw"])],
        &setup,
    )
}

/// A read-only passthrough FUSE file system served by one Python thread that spends a fixed
/// amount of CPU on every request: the daemon is the slowest part of any read through it.
/// Mounted with direct_io, so that every read reaches it.
const SLOW_FS: &str = r#"
import errno, os, sys
import mfusepy as fuse

class Slow(fuse.Operations):
    use_ns = True

    def __init__(self, root, burn):
        self.root, self.burn = root, burn

    def _full(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def getattr(self, path, fh=None):
        try:
            st = os.lstat(self._full(path))
        except FileNotFoundError:
            raise fuse.FuseOSError(errno.ENOENT)
        keys = ("st_atime_ns", "st_ctime_ns", "st_gid", "st_mode", "st_mtime_ns", "st_nlink",
                "st_size", "st_uid")
        return {k: getattr(st, k) for k in keys}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._full(path))

    def open(self, path, flags):
        return os.open(self._full(path), os.O_RDONLY)

    def read(self, path, size, offset, fh):
        for _ in range(self.burn):
            pass
        return os.pread(fh, size, offset)

    def release(self, path, fh):
        os.close(fh)
        return 0

back, mnt, burn = sys.argv[1], sys.argv[2], int(sys.argv[3])
fuse.FUSE(Slow(back, burn), mnt, foreground=True, nothreads=True, direct_io=True,
          allow_other=True, ro=True)
"#;

/// The slow file system mounted over a folder; unmounted, its daemon ended, when dropped.
struct SlowFs {
    mount: PathBuf,
    daemon: Child,
}
impl SlowFs {
    fn new(base: &Path) -> Result<SlowFs, String> {
        need_root()?;
        if !Path::new("/dev/fuse").exists() {
            return Err("no /dev/fuse".into());
        }
        sh("python3", &["-c", "import mfusepy"]).map_err(|_| {
            "python3's mfusepy is not installed (scripts/install-test-tools.sh installs it)"
                .to_string()
        })?;
        let (back, mount) = (base.join("back"), base.join("mnt"));
        std::fs::create_dir_all(&mount).unwrap();
        std::fs::create_dir_all(&back).unwrap();
        data_file(&back, "f.dat", 64 * MIB);
        let script = base.join("slowfs.py");
        std::fs::write(&script, SLOW_FS).unwrap();
        let daemon = Command::new("python3")
            .arg(&script)
            .args([p(&back), p(&mount), "5000"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("python3: {e}"))?;
        let fs = SlowFs { mount, daemon };
        let t = Instant::now();
        while !mounted(&fs.mount) {
            if t.elapsed() > Duration::from_secs(10) {
                return Err("the FUSE file system did not mount within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(fs)
    }
}
impl Drop for SlowFs {
    fn drop(&mut self) {
        if sh("umount", &[p(&self.mount)]).is_err() {
            let _ = sh("umount", &["-l", p(&self.mount)]);
        }
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

fn mounted(at: &Path) -> bool {
    let m = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    m.lines().any(|l| l.split(' ').nth(1) == Some(p(at)))
}

/// Scenario 9: random 4 KiB reads by two threads through the slow FUSE file system: its one
/// daemon thread is busy all the time and iogauge's threads wait on it; the server is the
/// limit.
fn a_slow_fuse_daemon_is_the_server() -> Result<String, String> {
    let d = work_dir();
    let fs = SlowFs::new(d.path())?;
    let target = fs.mount.join("f.dat");
    let pid = fs.daemon.id();
    let (cpu0, t0) = (cpu_seconds(pid), Instant::now());
    let v = iogauge(
        d.path(),
        Within::default(),
        &format!("{TIMING} --engine sync --cache buffered -r -b 4k -t 2"),
        p(&target),
    );
    let busy = (cpu_seconds(pid) - cpu0) / t0.elapsed().as_secs_f64();
    let setup = format!("the daemon used {:.0}% of a CPU over the run", 100.0 * busy);
    if busy < 0.6 {
        if let Some(why) = other_work() {
            return Err(format!("{why}: {setup}"));
        }
        panic!(
            "the daemon was not the bottleneck: {setup}; {}",
            figures(&v)
        );
    }
    verdict(
        "FUSE (one Python thread, direct_io), 4k random reads, 2 threads",
        &v,
        "server",
        &[&[format!("pid {pid}")]],
        &setup,
    )
}

/// Scenario 10: the work disk at QD32, O_DIRECT 4 KiB random reads of a file: the device is
/// busy, its queue full and its service time grown; the device is the limit.
fn the_work_disk_at_qd32_is_the_device() -> Result<String, String> {
    let d = work_dir();
    let file = data_file(d.path(), "disk.dat", 256 * MIB);
    let v = iogauge(
        d.path(),
        Within::default(),
        &format!("{TIMING} --engine io_uring --cache direct -r -b 4k -o 32"),
        p(&file),
    );
    let s = format!("{:.0} IOPS", f(&v["total"]["all"]["iops"]));
    verdict(
        "work disk, O_DIRECT 4k random reads, QD32",
        &v,
        "device",
        &[],
        &s,
    )
}

/// Scenario 11: four threads at QD8 on zram, all pinned to CPU 0 by taskset: iogauge's CPU.
fn four_threads_on_one_cpu_are_iogauge_cpu() -> Result<String, String> {
    need_tool("taskset")?;
    let z = Zram::new()?;
    let d = work_dir();
    let v = iogauge(
        d.path(),
        Within {
            prefix: &["taskset", "-c", "0"],
            ..Within::default()
        },
        &format!("{TIMING} --engine io_uring --cache direct -r -b 4k -o 8 -t 4"),
        z.0,
    );
    let s = format!("{:.0} IOPS", f(&v["total"]["all"]["iops"]));
    verdict(
        "zram, O_DIRECT 4k random, QD8, 4 threads on CPU 0 (taskset)",
        &v,
        "iogauge_cpu",
        &[],
        &s,
    )
}

pub fn main() {
    harness_skip_or(
        "limits",
        [
            (
                "qd1_on_zram_is_the_queue_depth",
                qd1_on_zram_is_the_queue_depth as SkipOr,
            ),
            (
                "more_threads_than_cpus_on_zram_is_iogauge_cpu",
                more_threads_than_cpus_on_zram_is_iogauge_cpu,
            ),
            (
                "the_null_engine_is_iogauge_cpu",
                the_null_engine_is_iogauge_cpu,
            ),
            (
                "a_blkio_throttled_loop_device_is_the_cgroup_limit",
                a_blkio_throttled_loop_device_is_the_cgroup_limit,
            ),
            (
                "cached_rereads_are_the_page_cache",
                cached_rereads_are_the_page_cache,
            ),
            (
                "a_file_larger_than_the_memory_cgroup_is_the_device",
                a_file_larger_than_the_memory_cgroup_is_the_device,
            ),
            (
                "writes_past_the_dirty_limit_are_writeback",
                writes_past_the_dirty_limit_are_writeback,
            ),
            (
                "a_rate_below_the_device_is_the_users_limit",
                a_rate_below_the_device_is_the_users_limit,
            ),
            (
                "a_slow_fuse_daemon_is_the_server",
                a_slow_fuse_daemon_is_the_server,
            ),
            (
                "the_work_disk_at_qd32_is_the_device",
                the_work_disk_at_qd32_is_the_device,
            ),
            (
                "four_threads_on_one_cpu_are_iogauge_cpu",
                four_threads_on_one_cpu_are_iogauge_cpu,
            ),
        ],
    );
    let matrix = MATRIX.lock().unwrap();
    if !matrix.is_empty() {
        println!("\nscenario | verdict | evidence (first line)");
        for (scenario, code, first) in matrix.iter() {
            println!("{scenario} | {code} | {first}");
        }
    }
}
