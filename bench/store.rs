//! The results store's speed goals, on a seeded database:
//!   - saving a 1-hour run (1 s interval, 16 threads) takes under 200 ms;
//!   - `iogauge results list` over 10,000 runs returns in under 100 ms;
//!   - `iogauge report` of 10 runs renders in under 2 s;
//!   - opening the database and checking it whole (SQLite's quick_check, before the first
//!     write of a process) takes under 2 s.
//!
//! Run: cargo bench --bench store [-- --runs N]   (N seeded runs, default 10000)
//!
//! The results come from real runs of the real binary (null engine, 16 threads, latency mode,
//! so every histogram is filled); the 1-hour run is one of those with its time series
//! stretched to 3,600 one-second intervals. `list` and `report` are timed as the user meets
//! them: the binary started, run and finished, median of several.

use iogauge::store::record::Record;
use iogauge::store::Store;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn iogauge(db: &Path, args: &[&str]) -> std::process::Output {
    let o = Command::new(env!("CARGO_BIN_EXE_iogauge"))
        .env("IOGAUGE_DB", db)
        .args(args)
        .output()
        .expect("iogauge starts");
    assert!(
        o.status.success(),
        "iogauge {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::Builder::new()
        .prefix("iogauge-bench-store-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let db = dir.path().join("results.db");
    let target = dir.path().join("f.dat");
    let t = target.to_str().unwrap();

    // A typical saved run (10 intervals), and the 1-hour one.
    let o = iogauge(
        &db,
        &[
            "run",
            "--engine",
            "null",
            "-t",
            "16",
            "-L",
            "-d",
            "1",
            "--interval",
            "100",
            "-c",
            "16M",
            "--no-save",
            "--output",
            "json",
            t,
        ],
    );
    let small_doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut hour_doc = small_doc.clone();
    let sample = hour_doc["time_series"]["samples"][0].clone();
    hour_doc["time_series"]["interval_ns"] = 1_000_000_000u64.into();
    hour_doc["time_series"]["samples"] = (0..3600u64)
        .map(|i| {
            let mut s = sample.clone();
            s["start_ns"] = (i * 1_000_000_000).into();
            s["duration_ns"] = 1_000_000_000u64.into();
            s
        })
        .collect::<Vec<_>>()
        .into();
    hour_doc["measured_ns"] = 3_600_000_000_000u64.into();
    let small = Record::from_json(&small_doc.to_string(), "small").unwrap();
    let hour = Record::from_json(&hour_doc.to_string(), "hour").unwrap();
    let hour_json = hour.to_json_compact().len();

    let mut store = Store::open(&db).unwrap();
    let seed_start = Instant::now();
    for i in 0..runs {
        let tags = if i % 10 == 0 {
            vec!["nightly".to_string()]
        } else {
            vec![]
        };
        store.save(&small, &tags).unwrap();
    }
    let seed_s = seed_start.elapsed().as_secs_f64();

    // Saving the 1-hour run, ten times (also the runs the report will show).
    let mut save_ms = Vec::new();
    let mut hour_ids = Vec::new();
    for _ in 0..10 {
        let t0 = Instant::now();
        hour_ids.push(store.save(&hour, &[]).unwrap());
        save_ms.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    drop(store);

    let timed = |args: &[&str], n: usize| -> (f64, usize) {
        let mut ms = Vec::new();
        let mut bytes = 0;
        for _ in 0..n {
            let t0 = Instant::now();
            let o = iogauge(&db, args);
            ms.push(t0.elapsed().as_secs_f64() * 1e3);
            bytes = o.stdout.len();
        }
        (median(ms), bytes)
    };
    // What a measuring command pays before its run: open the database and check it whole
    // (SQLite's quick_check), with the file in the page cache as it is after the seeding.
    let check_ms = median(
        (0..3)
            .map(|_| {
                let t0 = Instant::now();
                Store::open(&db).unwrap().verify().unwrap();
                t0.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    );
    let (list_all_ms, list_bytes) = timed(&["results", "list", "--all"], 7);
    let (list_ms, _) = timed(&["results", "list"], 7);
    let (list_tag_ms, _) = timed(&["results", "list", "--all", "--tag", "nightly"], 7);
    let html = dir.path().join("r.html");
    let ids: Vec<String> = hour_ids.iter().map(|i| i.to_string()).collect();
    let mut report_args = vec!["report"];
    report_args.extend(ids.iter().map(String::as_str));
    report_args.extend(["--html", html.to_str().unwrap()]);
    let (report_ms, _) = timed(&report_args, 3);
    let html_bytes = std::fs::metadata(&html).unwrap().len();
    let db_bytes = std::fs::metadata(&db).unwrap().len();

    println!(
        "iogauge store benchmark: {runs} seeded runs ({seed_s:.1} s to seed), database {:.1} MB",
        db_bytes as f64 / 1e6
    );
    println!(
        "1-hour run: 3600 intervals, 16 threads, {:.0} KB of JSON",
        hour_json as f64 / 1e3
    );
    println!();
    println!(
        "{:<44} {:>10} {:>10} {:>7}",
        "what", "median", "goal", "ratio"
    );
    let row = |what: &str, ms: f64, goal: f64| {
        println!(
            "{what:<44} {:>7.1} ms {:>7.0} ms {:>7.2}  {}",
            ms,
            goal,
            ms / goal,
            if ms < goal { "met" } else { "MISSED" }
        );
    };
    row(
        "save a 1-hour run (in-process, of 10)",
        median(save_ms.clone()),
        200.0,
    );
    row(
        &format!("iogauge results list --all ({} KB out)", list_bytes / 1000),
        list_all_ms,
        100.0,
    );
    row("iogauge results list (newest 50)", list_ms, 100.0);
    row(
        "iogauge results list --all --tag nightly",
        list_tag_ms,
        100.0,
    );
    row(
        &format!("iogauge report, 10 1-hour runs ({} KB)", html_bytes / 1000),
        report_ms,
        2000.0,
    );
    row(
        "open and check the database (quick_check)",
        check_ms,
        2000.0,
    );
    let max_save = save_ms.iter().cloned().fold(0.0, f64::max);
    println!("\nslowest of the 10 saves: {max_save:.1} ms");
    if std::env::var_os("IOGAUGE_BENCH_KEEP").is_some() {
        println!("kept: {}", dir.keep().display());
    }
}
