//! The Windows port's counters end to end: what the sampler read over a run (the disks'
//! IOCTL_DISK_PERFORMANCE, the machine's, the process's and the workers' CPU), the verdict on
//! what limited the run, the target's facts (no SMB facts for a local file), and MPI refused.
//!
//! Under Wine the disks' counters are whatever Wine answers: either counted disks or a line
//! saying why none could be read; never a disk of zeros, never "not yet on this system".

use super::{iogauge, json, num, refused, text, Dir, EXE};
use serde_json::Value;
use std::process::Command;

/// `iogauge run` sampled the system: its signals, its verdict, and its target's facts.
pub fn run_is_sampled_and_judged() {
    let dir = Dir::new("counters");
    let args = [
        "run",
        "t.dat",
        "-c",
        "8M",
        "-d",
        "1",
        "-o",
        "4",
        "--no-save",
        "--output",
        "json",
    ];
    let v = json(&iogauge(&dir, &args), "run");
    let s = &v["signals"];
    assert!(num(s, &["samples"]) >= 2.0, "signals: {s}");
    assert!(num(s, &["window_ns"]) > 5e8, "signals: {s}");
    let busy = num(s, &["machine", "busy_pct"]);
    assert!((0.0..=100.0).contains(&busy), "machine: {}", s["machine"]);
    assert!(num(s, &["machine", "cpus"]) >= 1.0);
    assert!(num(s, &["machine", "process_cpus"]) >= 0.0);
    workers_are_counted(s);
    disks_are_counted_or_said(s);
    let l = &v["limit"];
    let evidence: Vec<&str> = l["evidence"]
        .as_array()
        .map(|e| e.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    assert!(
        l["verdict"].is_string() && !evidence.is_empty(),
        "limit: {l}"
    );
    assert!(
        !evidence
            .iter()
            .any(|e| e.contains("not yet on this system")),
        "limit: {l}"
    );
    // A local file: no protocol of a share, nothing made up.
    let facts = &v["targets"][0]["facts"];
    assert!(facts.get("remote").is_none(), "facts: {facts}");
    assert!(dir.left(&[]).is_empty(), "left {:?}", dir.left(&[]));
}

/// The runner's worker (one thread) found by its name, its CPU time read; Windows counts no
/// wait for a CPU, so none is reported.
fn workers_are_counted(s: &Value) {
    let w = &s["workers"];
    assert_eq!(w["threads"], 1, "workers: {w}");
    let run = num(w, &["busiest_run_pct"]);
    assert!((0.0..=110.0).contains(&run), "workers: {w}");
    assert!(w.get("mean_wait_pct").is_none(), "workers: {w}");
}

/// Each disk counted has figures in range; where none was, a line says why.
fn disks_are_counted_or_said(s: &Value) {
    let disks = s["disks"].as_array().cloned().unwrap_or_default();
    let not_read = s["not_read"].as_array().cloned().unwrap_or_default();
    assert!(
        !disks.is_empty() || !not_read.is_empty(),
        "neither disks nor a reason: {s}"
    );
    for d in &disks {
        let busy = num(d, &["busy_pct"]);
        assert!((0.0..=100.0).contains(&busy), "disk: {d}");
        assert!(num(d, &["in_flight"]) >= 0.0, "disk: {d}");
        assert!(
            d["dev"].as_str().is_some_and(|p| p.starts_with(r"\\")),
            "disk: {d}"
        );
    }
    for line in &not_read {
        let line = line.as_str().unwrap_or_default();
        assert!(
            line.contains("cannot be read") || line.contains("share"),
            "{line}"
        );
        assert_eq!(line.lines().count(), 1, "{line}");
    }
}

/// The text report says what limited the run, in one line, and no protocol for a local file.
pub fn text_report_says_the_limit() {
    let dir = Dir::new("counters-text");
    let args = ["run", "t.dat", "-c", "8M", "-d", "1", "--no-save"];
    let o = iogauge(&dir, &args);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let limited: Vec<&str> = out.lines().filter(|l| l.contains("Limited by:")).collect();
    assert_eq!(limited.len(), 1, "{out}");
    assert!(!limited[0].contains("not yet on this system"), "{out}");
    assert!(!out.contains("\tprotocol:"), "{out}");
}

/// Started by MS-MPI's mpiexec (PMI_SIZE, PMI_RANK), iogauge refuses in one line, before it
/// makes any file.
pub fn mpi_is_refused() {
    let dir = Dir::new("counters-mpi");
    for args in [
        &["run", "t.dat", "-c", "8M", "-d", "1", "--no-save"][..],
        &["results", "list"][..],
    ] {
        let o = Command::new(EXE)
            .args(args)
            .current_dir(&dir.0)
            .env("IOGAUGE_DB", dir.path("results.db"))
            .env("PMI_SIZE", "4")
            .env("PMI_RANK", "0")
            .output()
            .expect("iogauge.exe starts");
        refused(&o, "MPI runs are not yet on Windows", args[0]);
        assert!(dir.left(&[]).is_empty(), "left {:?}", dir.left(&[]));
    }
}
