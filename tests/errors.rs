//! Every bad input gets a one-line error naming the culprit and exit code 2; Ctrl-C and
//! SIGTERM give partial results, exit code 130, and no files left behind.
//!
//! Linux only: every item here is; elsewhere the one test, `linux_only`, is ignored with the
//! reason.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
use common::*;
#[cfg(target_os = "linux")]
use serde_json::Value;
#[cfg(target_os = "linux")]
use std::time::Duration;

/// Run, expect exit 2 and a single-line error containing every `needle`.
#[cfg(target_os = "linux")]
fn rejects(args: &[&str], needles: &[&str]) {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: one line please: {err}"
    );
    for n in needles {
        assert!(err.contains(n), "{args:?}: {err:?} should name {n:?}");
    }
    assert!(o.stdout.is_empty(), "no report for rejected input");
}

#[cfg(target_os = "linux")]
#[test]
fn bad_sizes_and_numbers() {
    rejects(&["-b", "4q", "x"], &["--block-size", "4q"]);
    rejects(&["-t", "many", "x"], &["--threads", "many"]);
    rejects(&["-o", "-3", "x"], &["-3"]);
    rejects(&["-o", "lots", "x"], &["--queue-depth", "lots"]);
    rejects(&["-w", "150", "x"], &["--write-pct", "150"]);
    rejects(&["-d", "soon", "x"], &["--duration", "soon"]);
    rejects(&["--engine", "warp", "x"], &["--engine", "warp"]);
    rejects(&["--output", "xml", "x"], &["--output", "xml"]);
    rejects(&["-Sq", "x"], &["-Sq"]);
}

/// A path that is not UTF-8 was a panic (exit 101) before it was refused.
#[cfg(target_os = "linux")]
#[test]
fn an_argument_that_is_not_utf8_is_refused_by_name() {
    use std::os::unix::ffi::OsStrExt;
    let o = bin()
        .args(["run", "-c", "1M"])
        .arg(std::ffi::OsStr::from_bytes(b"t\xff.dat"))
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("'t\u{FFFD}.dat' is not valid UTF-8"), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn missing_target_without_create() {
    let d = work_dir();
    let f = file_in(&d, "nope.dat");
    rejects(&[p(&f)], &["nope.dat", "does not exist", "-c"]);
    let deep = d.path().join("no/such/folder/f.dat");
    rejects(&["-c", "1M", p(&deep)], &["folder", "does not exist"]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_directory_is_not_a_target() {
    let d = work_dir();
    rejects(&[p(d.path())], &["is a directory"]);
}

#[cfg(target_os = "linux")]
#[test]
fn block_size_larger_than_the_working_set() {
    let d = work_dir();
    let f = file_in(&d, "small.dat");
    std::fs::write(&f, vec![7u8; 8192]).unwrap();
    rejects(
        &["-b", "64k", p(&f)],
        &["--block-size", "64KiB", "working set", "small.dat"],
    );
    rejects(
        &["-b", "4k", "-B", "8k", p(&f)],
        &["--block-size", "working set"],
    );
    rejects(
        &["-b", "4k", "-f", "1M", p(&f)],
        &["--max-offset", "past the end"],
    );
}

#[cfg(target_os = "linux")]
#[test]
fn unaligned_direct_io_is_refused() {
    let d = work_dir();
    let f = file_in(&d, "u.dat");
    rejects(
        &["-b", "1000", "-c", "1M", p(&f)],
        &["--block-size", "1000", "512", "--cache buffered"],
    );
    rejects(&["-r=100", "-c", "1M", p(&f)], &["--random", "100"]);
    rejects(&["-B", "100", "-c", "1M", p(&f)], &["--base-offset"]);
    assert!(!f.exists(), "nothing created for rejected input");
    // Buffered I/O has no such rule.
    let r = json_l("-b 1000 -c 1M -d 0.2 -W 0 --cache buffered", &[p(&f)]);
    assert!(r["total"]["all"]["ios"].as_u64().unwrap() > 0);
}

#[cfg(target_os = "linux")]
#[test]
fn existing_files_are_never_written_without_allow_overwrite() {
    let d = work_dir();
    let f = file_in(&d, "precious.dat");
    let original: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&f, &original).unwrap();
    rejects(
        &["-w", "50", "-d", "0.2", p(&f)],
        &["refusing to write", "precious.dat", "--allow-overwrite"],
    );
    rejects(
        &["-w", "100", "-c", "1M", "-d", "0.2", p(&f)],
        &["refusing to write"],
    );
    // Reading is always allowed, and leaves the file alone.
    json_l("-d 0.2 -W 0", &[p(&f)]);
    assert_eq!(std::fs::read(&f).unwrap(), original);
    // With the flag, writes happen, and the file is kept: iogauge did not create it.
    json_l("-w 100 -d 0.2 -W 0 --allow-overwrite", &[p(&f)]);
    let after = std::fs::read(&f).unwrap();
    assert_eq!(after.len(), original.len());
    assert_ne!(after, original);
}

#[cfg(target_os = "linux")]
fn interrupt_with(signal: i32) {
    let d = work_dir();
    let f = file_in(&d, "sig.dat");
    let child = bin()
        .args([
            "run",
            "-c",
            "16M",
            "-d",
            "30",
            "-W",
            "0",
            "--interval",
            "100",
            "--cache",
            "buffered",
            "--output",
            "json",
            p(&f),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the run is under way (the file exists and some intervals have passed).
    let t0 = std::time::Instant::now();
    while !f.exists() && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1200));
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    let o = child.wait_with_output().unwrap();
    let started = t0.elapsed();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(
        started < Duration::from_secs(15),
        "stopped promptly, not after the 30 s"
    );
    assert!(stderr(&o).contains("partial"));
    let r: Value = serde_json::from_slice(&o.stdout).expect("partial results are still valid JSON");
    assert_eq!(r["partial"], true);
    assert_eq!(r["stop_reason"], "interrupted");
    let measured = r["measured_ns"].as_u64().unwrap();
    assert!(
        measured > 500_000_000 && measured < 14_000_000_000,
        "{measured}"
    );
    assert!(r["total"]["all"]["ios"].as_u64().unwrap() > 0);
    assert!(!f.exists(), "the created file was removed");
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_keeps_partial_results_and_removes_files() {
    interrupt_with(libc::SIGINT);
}

#[cfg(target_os = "linux")]
#[test]
fn sigterm_keeps_partial_results_and_removes_files() {
    interrupt_with(libc::SIGTERM);
}

#[cfg(target_os = "linux")]
#[test]
fn help_documents_exit_codes() {
    let o = bin().args(["run", "--help"]).output().unwrap();
    let h = String::from_utf8(o.stdout).unwrap();
    for s in [
        "Exit codes:",
        "130",
        "--block-size",
        "--queue-depth",
        "-r, --random",
        "--allow-overwrite",
    ] {
        assert!(h.contains(s), "{s} missing from help");
    }
}

/// Truncating the target under a running job makes reads come back short: a real failed I/O
/// on any machine, without device-mapper.
#[cfg(target_os = "linux")]
fn run_and_truncate(extra: &[&str]) -> (std::process::Output, Value) {
    let d = work_dir();
    let f = file_in(&d, "shrinking.dat");
    std::fs::write(&f, vec![9u8; 16 << 20]).unwrap();
    let child = bin()
        .args([
            "run",
            "-W",
            "0",
            "--cache",
            "buffered",
            "--output",
            "json",
            "--interval",
            "100",
        ])
        .args(extra)
        .arg(p(&f))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&f)
        .unwrap()
        .set_len(0)
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let r: Value =
        serde_json::from_slice(&o.stdout).expect("results as JSON even after an I/O error");
    assert!(f.exists(), "a file iogauge did not create is never removed");
    (o, r)
}

#[cfg(target_os = "linux")]
#[test]
fn an_io_error_stops_the_run_and_keeps_partial_results() {
    let (o, r) = run_and_truncate(&["-d", "5"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("short read") && err.contains("shrinking.dat") && err.contains("partial"),
        "{err}"
    );
    assert_eq!(r["partial"], true);
    assert_eq!(r["stop_reason"], "io_error");
    assert_eq!(r["errors"][0]["name"], "short");
    let measured = r["measured_ns"].as_u64().unwrap();
    assert!(
        measured > 300_000_000 && measured < 3_000_000_000,
        "stopped at the error: {measured}"
    );
    assert!(
        r["total"]["read"]["ios"].as_u64().unwrap() > 0,
        "the I/O before the error counts"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn continue_on_error_counts_errors_by_kind_and_goes_on() {
    let (o, r) = run_and_truncate(&["--continue-on-error", "-d", "1.5"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(r["partial"], false);
    assert_eq!(r["errors"][0]["name"], "short");
    assert!(r["errors"][0]["count"].as_u64().unwrap() > 100);
    assert_eq!(r["targets"][0]["threads"][0]["errors"], r["errors"]);
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_while_creating_the_file_removes_it() {
    let d = work_dir();
    let f = file_in(&d, "creating.dat");
    // Large enough that creation takes a while; the signal lands during it.
    let child = bin()
        .args(["run", "-c", "8G", "-d", "1", p(&f)])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !f.exists() && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(200));
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    if err.contains("not enough space") {
        // A disk with less than 8 GiB free: then the ENOSPC path must hold instead.
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(!f.exists(), "no partial file");
        return;
    }
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted while creating"), "{err}");
    assert!(!f.exists(), "the partial file was removed");
}

/// Refusals found while opening targets name what the user typed, in the words of the tool
/// they typed it for: fio's options for `iogauge fio`, DiskSpd's switches for `iogauge diskspd`.
#[cfg(target_os = "linux")]
#[test]
fn target_refusals_use_the_words_of_the_tool_typed() {
    let d = work_dir();
    let f = file_in(&d, "small.dat");
    std::fs::write(&f, vec![7u8; 8192]).unwrap();
    let refused = |tool: &str, args: &[&str], want: &str| {
        let o = bin()
            .arg(tool)
            .args(args)
            .arg("--no-save")
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        let native = [
            "--block-size",
            "--base-offset",
            "--max-offset",
            "-c SIZE",
            "--total",
        ];
        assert!(!native.iter().any(|n| err.contains(n)), "{args:?}: {err}");
    };
    let file = format!("--filename={}", p(&f));
    refused(
        "fio",
        &["--name=j", &file, "--size=1m", "--rw=read"],
        "smaller than size=1MiB; remove it or give a smaller size",
    );
    refused(
        "diskspd",
        &["-b64K", p(&f)],
        "-b 64KiB is larger than the working set",
    );
    refused(
        "diskspd",
        &["-b4K", "-f1M", "-d1", p(&f)],
        "-f 1MiB is past the end of",
    );
    refused("diskspd", &["-c1M", "-d1", p(&f)], "smaller than -c1MiB");
}

#[cfg(not(target_os = "linux"))]
#[test]
#[ignore = "Linux only: SIGINT and SIGTERM sent to a run, arguments that are not UTF-8"]
fn linux_only() {}
