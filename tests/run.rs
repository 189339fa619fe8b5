//! End-to-end: `iogauge run` on real files, checking that the numbers add up.
//!
//! Linux only: every item here is; elsewhere the one test, `linux_only`, is ignored with the
//! reason.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
use common::*;
#[cfg(target_os = "linux")]
use serde_json::Value;

/// bytes = ios x block size, IOPS x duration = ios, threads sum to targets sum to the total,
/// percentiles ascend, reads + writes = all.
#[cfg(target_os = "linux")]
fn check_consistency(r: &Value, bs: u64) {
    let latency_mode = r["mode"] == "latency";
    let measured = u(&r["measured_ns"]) as f64 / 1e9;
    assert!(measured > 0.0);
    let check_dir = |d: &Value| {
        let ios = u(&d["ios"]);
        assert_eq!(u(&d["bytes"]), ios * bs, "{d}");
        let iops = f(&d["iops"]);
        assert!(
            (iops * measured - ios as f64).abs() <= 1.0 + ios as f64 * 1e-9,
            "{iops} x {measured} vs {ios}"
        );
        if ios > 0 && latency_mode {
            let l = &d["latency"];
            let pcts: Vec<u64> = l["percentiles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| u(&p["ns"]))
                .collect();
            assert!(pcts.windows(2).all(|w| w[0] <= w[1]), "{pcts:?}");
            assert!(u(&l["min_ns"]) <= pcts[0] && pcts[pcts.len() - 1] <= u(&l["max_ns"]));
        } else {
            assert!(d["latency"].is_null());
        }
    };
    let check_pair = |p: &Value| {
        for d in ["read", "write", "all"] {
            check_dir(&p[d]);
        }
        assert_eq!(
            u(&p["read"]["ios"]) + u(&p["write"]["ios"]),
            u(&p["all"]["ios"])
        );
    };
    let mut total_ios = 0;
    for t in r["targets"].as_array().unwrap() {
        check_pair(&t["total"]);
        let threads: u64 = t["threads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|th| {
                check_pair(&th["total"]);
                u(&th["total"]["all"]["ios"])
            })
            .sum();
        assert_eq!(threads, u(&t["total"]["all"]["ios"]));
        total_ios += threads;
    }
    check_pair(&r["total"]);
    assert_eq!(total_ios, u(&r["total"]["all"]["ios"]));
    assert!(total_ios > 0, "no I/O was counted");
    // The time series covers the same I/O as the totals.
    let series: u64 = r["time_series"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| u(&s["read"]["ios"]) + u(&s["write"]["ios"]))
        .sum();
    assert_eq!(series, total_ios);
}

#[cfg(target_os = "linux")]
#[test]
fn buffered_random_read_adds_up() {
    let d = work_dir();
    let f = file_in(&d, "a.dat");
    let r = json_l(
        "-c 32M -b 4k -d 1 -W 0.2 --cache buffered -t 2 --interval 250",
        &[p(&f)],
    );
    check_consistency(&r, 4096);
    assert_eq!(r["job"]["cache"], "buffered");
    assert_eq!(r["targets"][0]["threads"].as_array().unwrap().len(), 2);
    assert_eq!(u(&r["total"]["write"]["ios"]), 0);
    let n = r["time_series"]["samples"].as_array().unwrap().len();
    assert_eq!(n, 4, "1 s at 250 ms intervals");
    assert!(
        !f.exists(),
        "a file iogauge created is removed without --keep"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn direct_io_on_the_work_disk_adds_up() {
    let d = work_dir();
    let f = file_in(&d, "direct.dat");
    let r = json_l("-c 64M -b 4k -o 16 -d 1 -W 0.2 -Su -L", &[p(&f)]);
    check_consistency(&r, 4096);
    assert_eq!(r["job"]["cache"], "direct");
    assert_eq!(r["engine"], "io_uring");
    assert_eq!(u(&r["queue_depth"]), 16);
}

#[cfg(target_os = "linux")]
#[test]
fn every_engine_runs_and_adds_up() {
    let d = work_dir();
    let f = file_in(&d, "e.dat");
    for (engine, mode) in [
        ("sync", ""),
        ("io_uring", ""),
        ("null", ""),
        ("sync", "-L"),
        ("io_uring", "-L"),
        ("null", "-L"),
    ] {
        let line = format!("-c 16M -b 8k -d 0.5 -W 0 --cache buffered {mode} --engine {engine}");
        let r = json_l(&line, &[p(&f)]);
        check_consistency(&r, 8192);
        assert_eq!(r["engine"], engine);
        assert_eq!(r["mode"], if mode.is_empty() { "iops" } else { "latency" });
        // Only asynchronous engines have a submission latency of their own.
        let sub = &r["total"]["read"]["latency_submission"];
        assert_eq!(
            sub.is_null(),
            mode.is_empty() || engine != "io_uring",
            "{engine} {mode}: {sub}"
        );
        if engine == "sync" {
            assert_eq!(u(&r["queue_depth"]), 1);
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn sync_engine_with_a_queue_depth_says_it_runs_at_one() {
    let d = work_dir();
    let f = file_in(&d, "s.dat");
    let r = json_l(
        "-c 8M -d 0.3 -W 0 --cache buffered --engine sync -o 8",
        &[p(&f)],
    );
    assert_eq!(u(&r["queue_depth"]), 1);
    assert!(
        r["notes"][0]
            .as_str()
            .unwrap()
            .contains("--queue-depth 8 runs as 1"),
        "{}",
        r["notes"]
    );
}

#[cfg(target_os = "linux")]
#[test]
fn write_share_follows_w_and_the_seed_reproduces_it() {
    let d = work_dir();
    let f = file_in(&d, "w.dat");
    let go = |seed: &str| {
        json_l(
            "-c 16M -w 30 --total 40M -W 0 --engine sync --cache buffered --seed",
            &[seed, p(&f)],
        )
    };
    let a = go("7");
    check_consistency(&a, 4096);
    let all = u(&a["total"]["all"]["ios"]);
    assert_eq!(all, 40 * 256, "--total counts exactly");
    let share = u(&a["total"]["write"]["ios"]) as f64 / all as f64;
    assert!((share - 0.30).abs() < 0.02, "write share {share}");
    let b = go("7");
    assert_eq!(
        a["total"]["write"]["ios"], b["total"]["write"]["ios"],
        "same seed, same choices"
    );
    let c = go("8");
    assert_ne!(
        a["total"]["write"]["ios"], c["total"]["write"]["ios"],
        "another seed, other choices"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn created_file_has_the_size_asked_and_incompressible_content() {
    let d = work_dir();
    let f = file_in(&d, "c.dat");
    let r = json_l("-c 8M -d 0.2 -W 0 --keep", &[p(&f)]);
    assert_eq!(r["targets"][0]["created"], true);
    let data = std::fs::read(&f).unwrap();
    assert_eq!(data.len(), 8 << 20);
    // No block of zeros, no block repeated (deduplication would see through either)...
    let mut blocks = std::collections::HashSet::new();
    for b in data.chunks(4096) {
        assert!(b.iter().any(|&x| x != 0));
        assert!(blocks.insert(b), "a 4 KiB block repeats");
    }
    // ...and the bytes are uniformly spread: about 8 bits of entropy per byte, which no
    // compressor can shrink.
    let mut counts = [0u64; 256];
    for &x in &data {
        counts[x as usize] += 1;
    }
    let n = data.len() as f64;
    let entropy: f64 = counts
        .iter()
        .map(|&c| c as f64 / n)
        .filter(|&q| q > 0.0)
        .map(|q| -q * q.log2())
        .sum();
    assert!(entropy > 7.99, "entropy {entropy}");
    // --keep left the file; a second run may read it (no -w, so no overwrite question).
    json_l("-d 0.2 -W 0", &[p(&f)]);
}

#[cfg(target_os = "linux")]
#[test]
fn several_targets_each_with_their_threads() {
    let d = work_dir();
    let (a, b) = (file_in(&d, "t1.dat"), file_in(&d, "t2.dat"));
    let r = json_l(
        "-c 8M -t 2 -o 4 -w 50 -d 0.5 -W 0 --cache buffered -L",
        &[p(&a), p(&b)],
    );
    check_consistency(&r, 4096);
    let targets = r["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 2);
    for t in targets {
        assert_eq!(t["threads"].as_array().unwrap().len(), 2);
        assert!(u(&t["total"]["write"]["ios"]) > 0 && u(&t["total"]["read"]["ios"]) > 0);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn sequential_interlocked_and_working_set_limits() {
    let d = work_dir();
    let f = file_in(&d, "seq.dat");
    let r = json_l("-c 16M -b 64k -si -t 2 -B 1M -f 9M -d 0.5 -W 0", &[p(&f)]);
    check_consistency(&r, 65536);
    assert_eq!(r["job"]["pattern"]["interlocked"], true);
    assert_eq!(u(&r["targets"][0]["working_set_start"]), 1 << 20);
    assert_eq!(u(&r["targets"][0]["working_set_end"]), 9 << 20);
}

#[cfg(target_os = "linux")]
#[test]
fn rate_limit_holds_iops() {
    let d = work_dir();
    let file = file_in(&d, "rate.dat");
    let r = json_l(
        "-c 8M --rate-iops 400 -o 4 -d 2 -W 0.2 --cache buffered",
        &[p(&file)],
    );
    let iops = f(&r["total"]["all"]["iops"]);
    assert!(
        (iops / 400.0 - 1.0).abs() < 0.03,
        "asked 400 IOPS, got {iops}"
    );
}

/// Reads and writes limited apart: each direction holds its own limit; one left free takes
/// what the other leaves (as fio's rate=,W does).
#[cfg(target_os = "linux")]
#[test]
fn rate_limits_for_reads_and_writes_apart() {
    let d = work_dir();
    let file = file_in(&d, "apart.dat");
    let r = json_l(
        "-c 8M --engine null -w 50 -r --rate-iops 400,100 -d 2 -W 0.2",
        &[p(&file)],
    );
    for (dir, want) in [("read", 400.0), ("write", 100.0)] {
        let iops = f(&r["total"][dir]["iops"]);
        assert!(
            (iops / want - 1.0).abs() < 0.03,
            "{dir}: asked {want}, got {iops}"
        );
    }
    let r = json_l(
        "-c 8M --engine null -w 50 -r --rate-bw ,1M -d 2 -W 0.2",
        &[p(&file)],
    );
    let w = f(&r["total"]["write"]["bytes_per_sec"]);
    let rd = f(&r["total"]["read"]["bytes_per_sec"]);
    assert!((w / 1048576.0 - 1.0).abs() < 0.03, "writes at {w} B/s");
    assert!(
        rd > 50.0 * w,
        "reads, not limited, at {rd} B/s against writes at {w}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn json_output_matches_its_schema() {
    let schema: Value =
        serde_json::from_str(include_str!("../schema/run-result.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    let d = work_dir();
    let f = file_in(&d, "j.dat");
    for extra in [
        &["-d", "0.3", "-w", "20", "-r", "--distribution", "zipf:1.1"][..],
        &["-s", "--total", "4M"],
        &["-d", "0.3", "-w", "100", "--distribution", "pareto:0.2"],
        &["-d", "0.3", "-r", "--distribution", "zoned:90/10:10/60"],
        &[
            "-d",
            "0.3",
            "-w",
            "50",
            "--rate-iops",
            "500,",
            "--rate-bw",
            ",1M",
            "--rate-min-iops",
            "1,1",
        ],
        &[
            "-d",
            "0.3",
            "-w",
            "50",
            "--block-sizes",
            "4k/50:16k/50,8k",
            "--random-pct",
            "50",
            "--fsync",
            "4",
            "--end-fsync",
            "--think",
            "100us",
            "--compressible",
            "30",
        ],
        &["-d", "0.3", "--engine", "mmap", "-w", "10"],
        &[
            "-d",
            "0.3",
            "-w",
            "100",
            "--zbd",
            "1M",
            "--max-open-zones",
            "2",
        ],
        &["-d", "0.3", "-s", "--zones", "1M:2M"],
        &[
            "-d",
            "0.3",
            "-s",
            "-t",
            "2",
            "--thread-start",
            "64k",
            "--rate-min-iops",
            "1",
        ],
        &[
            "-d",
            "0.3",
            "-t",
            "2",
            "--thread-offset",
            "2M",
            "--max-offset",
            "4M",
        ],
        &[
            "-d",
            "0.3",
            "-t",
            "2",
            "--file-set",
            "all",
            "--file-service",
            "random:2",
            "-r",
            "-w",
            "30",
        ],
        &["--engine", "filecreate", "-L"],
        &["--engine", "filestat", "-L", "-w", "100"],
        &["--engine", "filedelete", "-L", "--file-set", "all"],
    ] {
        let mut args = vec![
            "-c",
            "8M",
            "-W",
            "0",
            "--cache",
            "buffered",
            "--interval",
            "100",
            p(&f),
        ];
        args.splice(0..0, extra.iter().copied());
        // Sets need a second file.
        let second = file_in(&d, "j2.dat");
        if extra.contains(&"--file-set") {
            args.push(p(&second));
        }
        let r = run_json(&args);
        let errors: Vec<String> = validator
            .iter_errors(&r)
            .map(|e| format!("{e} at {}", e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{extra:?}: {errors:#?}");
    }
    // The schema is strict: an unknown field is caught.
    let mut r = json_l("-c 8M -d 0.2 -W 0", &[p(&f)]);
    r["surprise"] = Value::Bool(true);
    assert!(!validator.is_valid(&r));
}

#[cfg(target_os = "linux")]
#[test]
fn csv_writes_the_time_series_and_output_file_works() {
    let d = work_dir();
    let f = file_in(&d, "csv.dat");
    let out = file_in(&d, "series.csv");
    let o = run_l(
        "-c 8M -d 1 -W 0 --interval 200 --output csv --output-file",
        &[p(&out), p(&f)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "the report went to the file");
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("start_ns,duration_ns,read_ios"));
    assert_eq!(lines.len(), 1 + 5);
    let cols = lines[0].split(',').count();
    for l in &lines[1..] {
        assert_eq!(l.split(',').count(), cols);
        let ios: u64 = l.split(',').nth(2).unwrap().parse().unwrap();
        assert!(ios > 0, "{l}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn text_report_has_the_diskspd_sections() {
    let d = work_dir();
    let f = file_in(&d, "txt.dat");
    let common = [
        "Command Line:",
        "Input parameters:",
        "CPU |",
        "Total IO",
        "Read IO",
        "Write IO",
        "actual test time:",
        "clock:",
        "Completions:",
    ];
    // IOPS mode says latency was not measured and how to measure it.
    let o = run_l("-c 8M -d 0.3 -W 0 -w 10", &[p(&f)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = String::from_utf8(o.stdout).unwrap();
    for s in common.iter().chain(&["mode: IOPS", "run again with -L"]) {
        assert!(t.contains(s), "missing {s:?} in\n{t}");
    }
    assert!(!t.contains("99.9999th"));
    // Latency mode has the percentile table and the latency kinds.
    let o = run_l("-c 8M -d 0.3 -W 0 -w 10 -L", &[p(&f)]);
    let t = String::from_utf8(o.stdout).unwrap();
    for s in common.iter().chain(&[
        "mode: latency",
        "99.9999th",
        "submission |",
        "completion |",
        "io_uring: registered file yes",
    ]) {
        assert!(t.contains(s), "missing {s:?} in\n{t}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn default_run_uses_a_temporary_file_here_and_removes_it() {
    let d = work_dir();
    let o = bin()
        .current_dir(d.path())
        .args([
            "run", "-c", "8M", "-d", "0.3", "-W", "0", "--output", "json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["job"]["targets"][0]["temporary"], true);
    let path = r["targets"][0]["path"].as_str().unwrap();
    assert!(path.starts_with(d.path().to_str().unwrap()), "{path}");
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        0,
        "the temporary file is gone"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn memory_does_not_grow_with_the_run_length() {
    // Twenty times more intervals; the resident size must stay put (each interval adds 48 bytes
    // to the time series, nothing else grows).
    let d = work_dir();
    let f = file_in(&d, "mem.dat");
    let rss = |secs: &str| {
        let r = run_json(&[
            "-c",
            "8M",
            "-t",
            "2",
            "--engine",
            "null",
            "-d",
            secs,
            "-W",
            "0",
            "--interval",
            "10",
            "--keep",
            p(&f),
        ]);
        assert!(
            r["time_series"]["samples"].as_array().unwrap().len() as f64
                >= secs.parse::<f64>().unwrap() * 90.0
        );
        u(&r["iogauge_usage"]["max_rss_bytes"])
    };
    let short = rss("0.2");
    let long = rss("4");
    assert!(
        long < short + (4 << 20),
        "RSS grew from {short} to {long} bytes"
    );
}

/// --rate-min-iops: a thread below the floor over a window ends the run as failed (exit 1),
/// with the partial figures; one above it runs to the end.
#[cfg(target_os = "linux")]
#[test]
fn rate_min_fails_a_slow_run_and_passes_a_fast_one() {
    let d = work_dir();
    let f = file_in(&d, "slow.dat");
    // The delay engine completes each I/O after 10 ms: 100 I/Os per second at QD1.
    let o = run_l(
        "-c 1M -W 0 -d 5 -o 1 --engine delay --delay fixed:10ms --rate-min-iops 500 --rate-min-window 500 --no-save",
        &[p(&f)],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("below --rate-min-iops 500"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("PARTIAL RESULTS"));
    let o = run_l(
        "-c 1M -W 0 -d 1.5 -o 1 --engine delay --delay fixed:10ms --rate-min-iops 50 --no-save",
        &[p(&f)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // Floors apart: 20 ms per I/O at QD1 is 50 I/Os per second, about 25 of each; a floor of
    // 40 writes fails, floors of 10 pass. The passing run is judged over 1 s windows: the mix
    // is drawn, and a half-second window of about 25 I/Os holds 5 or fewer reads often enough
    // (more so on a loaded machine) to fail a floor that a second's 50 I/Os clear by far.
    let o = run_l(
        "-c 1M -W 0 -d 3 -o 1 -r -w 50 --engine delay --delay fixed:20ms --rate-min-iops 10,40 --rate-min-window 500 --no-save",
        &[p(&f)],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("writes per second"), "{}", stderr(&o));
    let o = run_l(
        "-c 1M -W 0 -d 2 -o 1 -r -w 50 --engine delay --delay fixed:20ms --rate-min-iops 10,10 --rate-min-window 1000 --no-save",
        &[p(&f)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // I/Os that stall (3 s each) are judged at the end of a window, not when one comes back:
    // the measured time ends there (the run itself still waits for the I/O in flight).
    let o = run_l(
        "-c 1M -W 0 -d 20 -o 1 --engine delay --delay fixed:3s --rate-min-iops 10 --rate-min-window 500 --no-save --output json",
        &[p(&f)],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("did 0 I/Os per second"),
        "{}",
        stderr(&o)
    );
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let judged = common::f(&r["measured_ns"]) / 1e9;
    assert!(judged < 2.0, "judged after {judged:.1} s");
}

/// The mmap engine's writes land in the file: zeros written sequentially over a file of random
/// data leave it all zeros; its reads count what they moved.
#[cfg(target_os = "linux")]
#[test]
fn mmap_engine_writes_through_the_mapping() {
    let d = work_dir();
    let f = file_in(&d, "mapped.dat");
    let o = run_l(
        "-c 4M -W 0 --engine mmap --cache buffered -s -w 100 --compressible 100 --total 4M --end-fsync --keep --no-save",
        &[p(&f)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&f).unwrap();
    assert_eq!(bytes.len(), 4 << 20);
    assert!(
        bytes.iter().all(|&b| b == 0),
        "every byte written through the mapping"
    );
    let r = json_l(
        "-W 0 --engine mmap --cache buffered -r --total 8M --no-save",
        &[p(&f)],
    );
    assert_eq!(r["engine"], "mmap");
    assert_eq!(u(&r["total"]["read"]["bytes"]), 8 << 20);
    // Direct I/O cannot go through a mapping.
    let o = run_l("--engine mmap --cache direct -d 1", &[p(&f)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(
        "the mmap engine reads and writes through the page cache: --cache direct cannot apply"
    ));
}

/// --rate-bw paces by bytes: with fixed and with mixed block sizes the rate is what was asked.
#[cfg(target_os = "linux")]
#[test]
fn rate_bw_paces_by_bytes_with_fixed_and_mixed_sizes() {
    let d = work_dir();
    let t = file_in(&d, "paced.dat");
    for sizes in ["--block-size 4k", "--block-sizes 4k/50:12k/50"] {
        let r = json_l(
            &format!("-c 1M -W 0 -d 2 -o 4 --engine null {sizes} --rate-bw 8M"),
            &[p(&t)],
        );
        let bps = f(&r["total"]["all"]["bytes_per_sec"]);
        assert!(
            (bps / (8 << 20) as f64 - 1.0).abs() < 0.03,
            "{sizes}: asked 8 MiB/s, got {bps}"
        );
    }
}

/// `iogauge run ARGS FILES` under RLIMIT_NOFILE `soft`:`hard`.
#[cfg(target_os = "linux")]
fn run_limited(
    args: &str,
    files: &[std::path::PathBuf],
    soft: u64,
    hard: u64,
) -> std::process::Output {
    let mut cmd = bin();
    cmd.arg("run").args(args.split_whitespace()).args(files);
    with_nofile(&mut cmd, soft, hard).output().unwrap()
}

/// --open-files: 40 files under 64 descriptors, two io_uring threads at queue depth 8 each
/// keeping 4 open, read 20 times each; without it the run is refused before a file is made.
#[cfg(target_os = "linux")]
#[test]
fn open_files_runs_more_files_than_the_descriptor_limit() {
    let d = work_dir();
    let files: Vec<_> = (0..40).map(|i| d.path().join(format!("f{i}"))).collect();
    let set = "--file-set all -c 64k -b 4k -r -W 0 --total 3200k -t 2 -o 8 --engine io_uring --no-save --output json";
    let o = run_limited(&format!("{set} --open-files 4"), &files, 64, 64);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let reads: Vec<u64> = r["targets"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| u(&f["read"]["ios"]))
        .collect();
    // Each thread counts the first 400 I/Os to complete; at queue depth 8 one issued after
    // the 400th may complete before it, so a file can be one over and another one under.
    assert_eq!(reads.iter().sum::<u64>(), 800, "{reads:?}");
    assert!(reads.iter().all(|&n| (19..=21).contains(&n)), "{reads:?}");
    assert_eq!(r["job"]["file_sets"]["open_files"], 4);
    assert!(files.iter().all(|f| !f.exists()), "the files are removed");

    let started = std::time::Instant::now();
    let o = run_limited(set, &files, 64, 64);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("--file-set 40 without --open-files keeps all 40 files open at once")
            && e.contains("set --open-files 7 or less"),
        "{e}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(files.iter().all(|f| !f.exists()), "nothing was laid out");
}

/// A file that cannot be opened again midway (--open-files) ends the run with an open error
/// naming that file.
#[cfg(target_os = "linux")]
#[test]
fn open_files_names_a_file_that_cannot_be_opened_again() {
    let d = work_dir();
    let files: Vec<_> = (0..4).map(|i| d.path().join(format!("g{i}"))).collect();
    for f in &files {
        std::fs::write(f, vec![7u8; 64 << 10]).unwrap();
    }
    let gone = files[3].clone();
    let remover = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(700));
        std::fs::remove_file(gone).unwrap();
    });
    let o = run_limited(
        "--file-set all --open-files 2 -b 4k -r -W 0 -d 10 --engine sync --no-save",
        &files,
        1024,
        1024,
    );
    remover.join().unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains(&format!("open error on '{}': ENOENT", p(&files[3]))),
        "{e}"
    );
}

/// `--stonewall` alone: a run by bytes that cannot finish is cut at the deadline, and says
/// so; with `--wear-out` every thread ends with as many bytes as the busiest had by then.
/// Refused where it means nothing: a timed run, a deadline after the time limit.
#[cfg(target_os = "linux")]
#[test]
fn stonewall_cuts_a_run_by_bytes_and_wear_out_evens_the_threads() {
    let d = work_dir();
    let f = d.path().join("s");
    let line = "-c 1M --engine null -t 2 --total 40T --stonewall 1 --no-save";
    let r = json_l(line, &[p(&f)]);
    let w = &r["stonewall"];
    assert_eq!(w["reached"], Value::Bool(true), "{w}");
    assert_eq!(u(&w["bytes_at_deadline"]), u(&r["total"]["all"]["bytes"]));
    let secs = u(&r["measured_ns"]) as f64 / 1e9;
    assert!((0.99..1.05).contains(&secs), "cut at the deadline: {secs}s");
    assert_eq!(r["stop_reason"], "completed");

    let r = json_l(&format!("{line} --wear-out"), &[p(&f)]);
    let per = u(&r["stonewall"]["bytes_per_thread"]);
    for t in r["targets"][0]["threads"].as_array().unwrap() {
        assert_eq!(u(&t["total"]["all"]["bytes"]), per, "{t}");
    }
    assert!(u(&r["stonewall"]["bytes_at_deadline"]) <= 2 * per);

    let e = stderr(&run_l("-c 1M -d 2 --stonewall 1", &[p(&f)]));
    assert!(
        e.contains("--stonewall needs a run by bytes (--total)"),
        "{e}"
    );
    let e = stderr(&run_l("-c 1M --total 1G -d 1 --stonewall 2", &[p(&f)]));
    assert!(
        e.contains("--stonewall is not before the end of --duration"),
        "{e}"
    );
    let e = stderr(&run_l("-c 1M --total 1G --wear-out", &[p(&f)]));
    assert!(e.contains("--stonewall"), "{e}");
}

#[cfg(not(target_os = "linux"))]
#[test]
#[ignore = "Linux only: io_uring (the engine it expects by default) and RLIMIT_NOFILE"]
fn linux_only() {}
