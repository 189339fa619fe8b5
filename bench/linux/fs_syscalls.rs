//! `cargo bench --bench fs_syscalls [-- [--files N] [--rounds N] DIR...]`
//!
//! iogauge fs against the physical limit: a bare loop of the same system calls with nothing
//! around it (names made before the clock starts, no checks, no bookkeeping). For each folder
//! (default: /dev/shm and bench/work on the work disk), rounds alternate: the bare loop, then
//! `iogauge fs --tests file_create,file_open,file_stat,file_delete --repeat 1`. Inside a round
//! caches are not dropped on either side (`--no-drop-caches`), so nothing but the calls is
//! timed and iogauge's own cost is as visible as it can be; before each side's round they are
//! (as root), so that neither inherits the other's state. Prints, per test, the best rate of each and
//! their ratio (best against best: each side's least disturbed round), with the median and
//! range of the ratios of the rounds' pairs; the goal is iogauge >= 0.9x the bare loop.

use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const TESTS: [&str; 4] = ["file_create", "file_open", "file_stat", "file_delete"];

/// Write dirty data and drop the caches (as root), so both sides start from the same state.
/// Without this, ext4 makes creates slow after many deletes: for 30-odd seconds after a
/// delete it skips those inodes (`recently_deleted` in ext4's inode allocator, seen with perf),
/// scanning the inode table in memory, and a round's figure depends on the round before.
fn settle() -> bool {
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok()
}

/// The four loops, each as iogauge fs runs it (a fresh folder two levels down, the files it
/// needs made first and not timed), but with nothing around the calls. Nanoseconds per loop.
fn bare(dir: &Path, n: u64) -> [u64; 4] {
    let root = dir.join(format!("bare-{}", std::process::id()));
    std::fs::create_dir(&root).expect("create the bare loop's folder");
    let names: Vec<CString> = (0..n)
        .map(|i| CString::new(format!("f{i}")).unwrap())
        .collect();
    let mut out = [0u64; 4];
    for (t, test) in TESTS.iter().enumerate() {
        let folder = root.join(format!("{test}-1"));
        std::fs::create_dir(&folder).expect("create a test folder");
        let d = std::fs::File::open(&folder).expect("open folder");
        let dfd = d.as_raw_fd();
        let create = |name: &CString| {
            // SAFETY: openat/close on our folder with a NUL-terminated name.
            unsafe {
                let fd = libc::openat(
                    dfd,
                    name.as_ptr(),
                    libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_CLOEXEC,
                    0o644,
                );
                assert!(fd >= 0);
                libc::close(fd);
            }
        };
        if t > 0 {
            names.iter().for_each(create);
        }
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        let clock = Instant::now();
        match t {
            0 => names.iter().for_each(create),
            // SAFETY (below): plain calls on our folder with NUL-terminated names.
            1 => {
                for name in &names {
                    unsafe {
                        let fd = libc::openat(dfd, name.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
                        assert!(fd >= 0);
                        libc::close(fd);
                    }
                }
            }
            2 => {
                for name in &names {
                    unsafe { assert_eq!(libc::fstatat(dfd, name.as_ptr(), st.as_mut_ptr(), 0), 0) };
                }
            }
            _ => {
                for name in &names {
                    unsafe { assert_eq!(libc::unlinkat(dfd, name.as_ptr(), 0), 0) };
                }
            }
        }
        out[t] = clock.elapsed().as_nanos() as u64;
        std::fs::remove_dir_all(&folder).expect("remove a test folder");
    }
    std::fs::remove_dir(&root).expect("remove the bare loop's folder");
    out
}

/// The same four tests by iogauge fs, one repetition each: nanoseconds per test.
fn iogauge(dir: &Path, n: u64) -> [u64; 4] {
    let o = Command::new(env!("CARGO_BIN_EXE_iogauge"))
        .args(["fs", "--tests", &TESTS.join(","), "--files", &n.to_string()])
        .args([
            "--repeat",
            "1",
            "--no-drop-caches",
            "--output",
            "json",
            "--no-save",
            "-q",
        ])
        .arg(dir)
        .output()
        .expect("run iogauge");
    assert!(
        o.status.success(),
        "iogauge fs failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let mut out = [0u64; 4];
    for (i, name) in TESTS.iter().enumerate() {
        let t = v["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == *name)
            .expect("test in the result");
        assert_eq!(t["cells"][0]["ops"].as_u64(), Some(n));
        out[i] = t["cells"][0]["elapsed_ns"][0].as_u64().unwrap();
    }
    out
}

pub fn main() {
    let mut files = 20_000u64;
    let mut rounds = 9usize;
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--files" => files = args.next().and_then(|v| v.parse().ok()).expect("--files N"),
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--rounds N")
            }
            "--bench" => {}
            d => dirs.push(PathBuf::from(d)),
        }
    }
    if dirs.is_empty() {
        let work = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/work");
        std::fs::create_dir_all(&work).expect("bench/work");
        dirs = vec![PathBuf::from("/dev/shm"), work];
    }
    println!(
        "iogauge fs against a bare loop of the same system calls: {files} files, best of \
         {rounds} alternating rounds, one thread, caches not dropped inside a round; {}",
        if settle() {
            "before each side's round: sync, drop_caches"
        } else {
            "not root: caches not dropped between rounds"
        }
    );
    for dir in &dirs {
        let fs = Command::new("stat")
            .args(["-f", "-c", "%T"])
            .arg(dir)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        let mut best_bare = [u64::MAX; 4];
        let mut best_ig = [u64::MAX; 4];
        let mut pairs: Vec<[f64; 4]> = Vec::new();
        // Alternate which side goes first, so neither always follows the other's clean-up.
        for _ in 0..rounds {
            let (b, g) = if pairs.len().is_multiple_of(2) {
                settle();
                let b = bare(dir, files);
                settle();
                (b, iogauge(dir, files))
            } else {
                settle();
                let g = iogauge(dir, files);
                settle();
                (bare(dir, files), g)
            };
            let mut ratio = [0.0; 4];
            for i in 0..4 {
                best_bare[i] = best_bare[i].min(b[i]);
                best_ig[i] = best_ig[i].min(g[i]);
                ratio[i] = b[i] as f64 / g[i] as f64;
            }
            pairs.push(ratio);
        }
        println!("\n{} ({fs})", dir.display());
        println!(
            "{:<12} {:>12} {:>12} {:>7} {:>13} {:>12}",
            "test", "bare /s", "iogauge /s", "ratio", "pair median", "pairs range"
        );
        for i in 0..4 {
            let rate = |ns: u64| files as f64 * 1e9 / ns as f64;
            let (lo, hi) = pairs.iter().fold((f64::MAX, 0.0f64), |(lo, hi), p| {
                (lo.min(p[i]), hi.max(p[i]))
            });
            let ratio = best_bare[i] as f64 / best_ig[i] as f64;
            let mut each: Vec<f64> = pairs.iter().map(|p| p[i]).collect();
            each.sort_by(f64::total_cmp);
            println!(
                "{:<12} {:>12.0} {:>12.0} {:>6.2}x {:>12.2}x {:>7.2}-{:.2}{}",
                TESTS[i],
                rate(best_bare[i]),
                rate(best_ig[i]),
                ratio,
                each[each.len() / 2],
                lo,
                hi,
                if ratio >= 0.9 { "" } else { "  BELOW 0.9" }
            );
        }
    }
}
