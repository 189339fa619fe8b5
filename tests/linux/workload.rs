//! `iogauge workload` end to end: every step on a dataset of a few thousand files on the work
//! disk, tmpfs and an xfs loop image, what copy and extract make checked byte for byte against
//! the manifest (by `dataset verify` and by the test itself), the counts reported against the
//! tree; a script of steps repeated; the system's tools side by side; the source never
//! written; nothing written over; an archive whose names climb out refused; ENOSPC and Ctrl-C
//! ending cleanly with nothing left behind. Tests that need root, mkfs.xfs or a tool say
//! SKIPPED when it is missing.

use crate::common;
use common::mounts::*;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

fn workload(args: &[&str]) -> Output {
    bin()
        .arg("workload")
        .args(args)
        .output()
        .expect("iogauge starts")
}

/// A workload's JSON report; panics with stderr when it fails.
fn wl_json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["--output", "json", "--no-save"]);
    let o = workload(&a);
    assert!(
        o.status.success(),
        "workload {args:?}: {}\n{}",
        o.status,
        stderr(&o)
    );
    serde_json::from_slice(&o.stdout).expect("one JSON report")
}

fn dataset(dir: &Path, files: &str, sizes: &str) -> Value {
    let o = bin()
        .args([
            "dataset",
            "create",
            p(dir),
            "--files",
            files,
            "--size-dist",
            sizes,
        ])
        .args(["--output", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Every file below `dir` with its size, sorted; folders and links apart.
fn tree(dir: &Path) -> (Vec<(String, u64)>, u64, u64) {
    let (mut files, mut dirs, mut links) = (Vec::new(), 0, 0);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                dirs += 1;
                stack.push(e.path());
            } else if t.is_symlink() {
                links += 1;
            } else {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push((rel, e.metadata().unwrap().len()));
            }
        }
    }
    files.sort();
    (files, dirs, links)
}

fn step(r: &Value, i: usize) -> &Value {
    &r["steps"][i]["reps"][0]
}

/// `dataset verify` of a kept tree against the source's manifest: exit 0, every file.
fn verified_by_dataset(made: &Path, ds: &Path) {
    let o = bin()
        .args(["dataset", "verify", p(made), "--manifest"])
        .arg(ds.join(".iogauge-dataset"))
        .args(["--output", "json"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], true, "{v}");
}

/// Every step on a dataset in `base`, with the target in `base` too.
fn every_step_on(base: &Path) -> Result<String, String> {
    let ds = base.join("ds");
    let made = dataset(&ds, "2500", "lognormal:8K:1.5");
    let (files, dirs, _) = tree(&ds);
    let bytes: u64 = files.iter().map(|f| f.1).sum();
    assert_eq!(files.len(), 2501, "2500 files and the manifest");
    let (n, d) = (files.len() as u64, dirs);
    let out = base.join("out");
    let mut seen = Vec::new();
    for method in ["read-write", "copy_file_range", "io_uring"] {
        let r = wl_json(&[
            "copy",
            "--source",
            p(&ds),
            "--target",
            p(&out),
            "--method",
            method,
        ]);
        let s = step(&r, 0);
        assert_eq!((u(&s["files"]), u(&s["dirs"])), (n, d), "{method}");
        assert_eq!(
            (u(&s["bytes_read"]), u(&s["bytes_written"])),
            (bytes, bytes),
            "{method}"
        );
        assert_eq!(s["verify"]["ok"], true, "{method}: {}", s["verify"]);
        assert_eq!(u(&s["verify"]["files"]), 2500);
        assert_eq!(
            u(&s["copy"]["read_write_files"])
                + u(&s["copy"]["kernel_files"])
                + u(&s["copy"]["io_uring_files"]),
            n
        );
        let intervals: u64 = s["time_series"]["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| u(&x["read"]["bytes"]))
            .sum();
        assert_eq!(intervals, bytes, "the intervals sum to the total");
        assert!(!out.exists(), "the target iogauge made is removed");
        seen.push(format!(
            "copy {method} {:.0} MB/s",
            f(&r["steps"][0]["summary"]["read_bytes_per_s"]) / 1e6
        ));
    }
    for format in ["zip", "tar.zst"] {
        let r = wl_json(&[
            "archive",
            "--source",
            p(&ds),
            "--target",
            p(&out),
            "--format",
            format,
        ]);
        let s = step(&r, 0);
        assert_eq!((u(&s["files"]), u(&s["dirs"])), (n, d));
        assert_eq!(u(&s["bytes_read"]), bytes);
        let z = &s["compression"];
        assert_eq!(u(&z["tree_bytes"]), bytes);
        let saved = 100.0 * (1.0 - f(&z["archive_bytes"]) / bytes as f64);
        assert!(
            (saved - 50.0).abs() < 6.0,
            "{format} saved {saved:.1}% of a 50% dataset"
        );
        // Extract packs the tree first (untimed), then unpacks and checks it.
        let r = wl_json(&[
            "extract",
            "--source",
            p(&ds),
            "--target",
            p(&out),
            "--format",
            format,
        ]);
        let s = step(&r, 0);
        assert_eq!(
            (u(&s["files"]), u(&s["bytes_written"])),
            (n, bytes),
            "{format}"
        );
        assert_eq!(s["verify"]["ok"], true, "{}", s["verify"]);
        seen.push(format!("{format} saved {saved:.0}%"));
    }
    let r = wl_json(&["scan", "--source", p(&ds)]);
    assert_eq!((u(&step(&r, 0)["files"]), u(&step(&r, 0)["dirs"])), (n, d));
    let r = wl_json(&["readall", "--source", p(&ds)]);
    assert_eq!(
        (u(&step(&r, 0)["files"]), u(&step(&r, 0)["bytes_read"])),
        (n, bytes)
    );
    let r = wl_json(&["delete", "--source", p(&ds), "--target", p(&out)]);
    // The copy's files, its folders and its top folder.
    assert_eq!(
        (u(&step(&r, 0)["files"]), u(&step(&r, 0)["dirs"])),
        (n, d + 1)
    );
    // The source is as it was made.
    verified_by_dataset(&ds, &ds);
    assert_eq!(tree(&ds).0, files);
    assert!(!out.exists());
    // Kept: what copy and extract made is the dataset, as dataset verify reads it.
    let r = wl_json(
        &[
            "mixed",
            "--steps",
            "copy, archive, extract",
            "--source",
            p(&ds),
        ]
        .iter()
        .chain(&["--target", p(&out), "--keep"])
        .copied()
        .collect::<Vec<_>>(),
    );
    assert_eq!(r["steps"].as_array().unwrap().len(), 3);
    verified_by_dataset(&out.join("1-copy"), &ds);
    verified_by_dataset(&out.join("3-extract"), &ds);
    assert!(out.join("2-archive.zip").is_file());
    std::fs::remove_dir_all(&out).unwrap();
    let _ = made;
    Ok(seen.join(", "))
}

fn every_step_on_the_work_disk() -> Result<String, String> {
    every_step_on(work_dir().path())
}

fn every_step_on_tmpfs() -> Result<String, String> {
    need_root()?;
    let base = work_dir();
    let (_m, at) = memory_fs(base.path(), "tmpfs", "size=512m")?;
    every_step_on(&at)
}

fn every_step_on_xfs() -> Result<String, String> {
    need_root()?;
    let base = work_dir();
    let (_m, at) = image_fs(base.path(), "xfs", 768)?;
    let seen = every_step_on(&at)?;
    // xfs makes reflinks: copy_file_range shares the extents, and the report says so.
    let ds = at.join("ds");
    let r = wl_json(&["copy", "--source", p(&ds), "--target", p(&at.join("o"))]);
    let shared = &step(&r, 0)["copy"]["shared_extents"];
    Ok(format!(
        "{seen}; xfs copy_file_range shared extents: {shared}"
    ))
}

/// The seed's test: zip with four threads then unzip, from a script, twice.
fn a_script_of_steps_is_repeated() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "400", "lognormal:32K:1.0");
    let script = dir.path().join("seed.steps");
    std::fs::write(
        &script,
        "# zip, then unzip\narchive format=zip threads=4\nextract threads=4\n",
    )
    .unwrap();
    let r = wl_json(&[
        "mixed",
        "--script",
        p(&script),
        "--source",
        p(&ds),
        "--target",
        p(&dir.path().join("out")),
        "--repeat",
        "3",
        "--interval",
        "10",
    ]);
    for s in r["steps"].as_array().unwrap() {
        assert_eq!(s["reps"].as_array().unwrap().len(), 3, "{}", s["label"]);
        assert_eq!(u(&s["step"]["threads"]), 4);
        let sum = &s["summary"];
        assert!(
            u(&sum["min_ns"]) <= u(&sum["median_ns"]) && u(&sum["median_ns"]) <= u(&sum["max_ns"])
        );
        let fastest = s["reps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| u(&x["elapsed_ns"]))
            .min()
            .unwrap();
        assert_eq!(u(&sum["min_ns"]), fastest);
        assert!(
            !s["reps"][0]["phases"].as_array().unwrap().is_empty(),
            "phases are found"
        );
    }
    assert_eq!(r["steps"][0]["step"]["format"], "zip");
    assert_eq!(r["steps"][1]["reps"][0]["verify"]["ok"], true);
    // A bad script names its line, in the script's words.
    std::fs::write(&script, "archive\nunzip\n").unwrap();
    let o = workload(&[
        "mixed",
        "--script",
        p(&script),
        "--source",
        p(&ds),
        "--target",
        p(&dir.path().join("o")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 2: unknown step 'unzip'"),
        "{}",
        stderr(&o)
    );
    Ok(String::new())
}

/// cp, zip, unzip, find and rm on the same work, each with a ratio.
fn the_systems_tools_side_by_side() -> Result<String, String> {
    for t in ["cp", "zip", "unzip", "find", "rm", "cat"] {
        need_tool(t)?;
    }
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "600", "lognormal:16K:1.0");
    let out = dir.path().join("out");
    let r = wl_json(&[
        "mixed",
        "--steps",
        "copy, archive, extract, scan, readall, delete",
        "--source",
        p(&ds),
        "--target",
        p(&out),
        "--compare-with-tools",
        "--repeat",
        "2",
    ]);
    let mut seen = Vec::new();
    for s in r["steps"].as_array().unwrap() {
        let t = &s["tool"];
        assert!(t["not_run"].is_null(), "{}: {}", s["label"], t["not_run"]);
        assert_eq!(
            t["elapsed_ns"].as_array().unwrap().len(),
            2,
            "alternating, as often as iogauge"
        );
        let ratio = f(&t["speed_ratio"]);
        let expect = f(&t["min_ns"]) / f(&s["summary"]["min_ns"]);
        assert!((ratio - expect).abs() < 1e-9 && ratio > 0.0);
        seen.push(format!("{} {:.2}", t["tool"].as_str().unwrap(), ratio));
    }
    assert!(!out.exists(), "the tools' outputs are removed too");
    verified_by_dataset(&ds, &ds);
    Ok(seen.join(", "))
}

/// Refusals before anything runs, in the words of the flags typed.
fn bad_requests_are_refused_by_name() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "20", "fixed:4K");
    let refused = |args: &[&str], says: &str| {
        let o = workload(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "one line: {}", stderr(&o));
    };
    let inside = ds.join("x");
    refused(
        &["copy", "--source", p(&ds), "--target", p(&inside)],
        "is inside --source",
    );
    refused(
        &["copy", "--source", p(&ds)],
        "copy writes: give --target DIR",
    );
    refused(
        &[
            "copy",
            "--source",
            p(&ds),
            "--target",
            p(dir.path()),
            "--method",
            "fast",
        ],
        "invalid value 'fast' for --method",
    );
    refused(&["zip", "--source", p(&ds)], "unknown workload 'zip'");
    refused(
        &["mixed", "--source", p(&ds)],
        "give --script FILE or --steps LIST",
    );
    refused(
        &[
            "mixed",
            "--steps",
            "delete, scan",
            "--source",
            p(&ds),
            "--target",
            p(&dir.path().join("o")),
        ],
        "step 2 (scan) has nothing to work on",
    );
    refused(
        &[
            "archive",
            "--source",
            p(&ds),
            "--target",
            p(&dir.path().join("o")),
            "--format",
            "tar.zst",
            "--level",
            "30",
        ],
        "--level 30: tar.zst takes levels 1 to 19",
    );
    let file = ds.join(".iogauge-dataset");
    refused(
        &["scan", "--source", p(&file)],
        "is neither a folder nor an archive",
    );
    refused(
        &["scan", "--source", p(&dir.path().join("none"))],
        "--source",
    );
    assert!(!inside.exists());
    Ok(String::new())
}

/// A target with the user's things in it: refused; with --force the outputs go beside them,
/// and a name already taken ends the workload without touching it.
fn nothing_is_written_over() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "50", "fixed:4K");
    let target = dir.path().join("t");
    std::fs::create_dir_all(target.join("copy")).unwrap();
    std::fs::write(target.join("copy/mine.txt"), "the user's").unwrap();
    let o = workload(&["copy", "--source", p(&ds), "--target", p(&target)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not empty"), "{}", stderr(&o));
    let o = workload(&[
        "copy",
        "--source",
        p(&ds),
        "--target",
        p(&target),
        "--force",
        "--no-save",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("something is already there"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(target.join("copy/mine.txt")).unwrap(),
        "the user's"
    );
    std::fs::rename(target.join("copy"), target.join("mine")).unwrap();
    let r = wl_json(&[
        "archive",
        "--source",
        p(&ds),
        "--target",
        p(&target),
        "--force",
    ]);
    assert_eq!(u(&step(&r, 0)["files"]), 51);
    let left: Vec<String> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["mine"], "only the user's folder is left");
    Ok(String::new())
}

/// An archive from elsewhere whose entry climbs out of the folder: refused by name, nothing
/// written outside.
fn an_archive_that_climbs_out_is_refused() -> Result<String, String> {
    need_tool("python3")?;
    let dir = work_dir();
    let evil = dir.path().join("evil.zip");
    sh("python3", &["-c", "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\nz.writestr('ok.txt', 'fine')\nz.writestr('../outside.txt', 'escaped')\nz.close()", p(&evil)])?;
    let out = dir.path().join("x");
    let o = workload(&[
        "extract",
        "--source",
        p(&evil),
        "--target",
        p(&out),
        "--no-save",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("'../outside.txt', which would land outside"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("outside.txt").exists());
    assert!(!out.exists());
    Ok(String::new())
}

/// A target too small: the copy ends with the errno and the path, the partial repetition is
/// reported cut short, and nothing is left.
fn enospc_ends_cleanly() -> Result<String, String> {
    need_root()?;
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "300", "fixed:64K");
    let (_m, small) = memory_fs(dir.path(), "tmpfs", "size=8m")?;
    let o = workload(&[
        "copy",
        "--source",
        p(&ds),
        "--target",
        p(&small.join("c")),
        "--output",
        "json",
        "--no-save",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["partial"], true);
    assert_eq!(step(&r, 0)["cut_short"], true);
    assert!(u(&step(&r, 0)["bytes_written"]) > 0);
    assert_eq!(
        std::fs::read_dir(&small).unwrap().count(),
        0,
        "nothing left"
    );
    Ok(String::new())
}

/// Ctrl-C mid-copy: exit 130, the report marked partial, nothing of the copy left.
fn ctrl_c_mid_copy_leaves_nothing() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "3000", "fixed:256K");
    let out = dir.path().join("out");
    let child = bin()
        .args([
            "workload",
            "copy",
            "--source",
            p(&ds),
            "--target",
            p(&out),
            "--threads",
            "1",
        ])
        .args(["--method", "read-write", "--no-save", "--no-verify"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let copied = |p: &Path| std::fs::read_dir(p).map(|d| d.count()).unwrap_or(0);
    while copied(&out.join("copy")) < 3 && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Stopped early: interrupted"), "{text}");
    assert!(!out.exists(), "left behind: {:?}", tree(&out).0.len());
    verified_by_dataset(&ds, &ds);
    Ok(String::new())
}

/// Saved, shown again from the store.
fn saved_and_shown() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "100", "fixed:8K");
    let db = dir.path().join("db.sqlite");
    let o = db_cmd(&db, &["workload", "scan", "--source", p(&ds)]);
    let id = saved_id(&o).to_string();
    let shown = db_cmd(&db, &["results", "show", &id]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("iogauge workload scan") && text.contains("entries/s"),
        "{text}"
    );
    let csv = db_cmd(&db, &["results", "show", &id, "--output", "csv"]);
    let csv = String::from_utf8_lossy(&csv.stdout);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(
        lines[1].starts_with("1,scan (") && lines[1].contains(",iogauge,1,"),
        "{csv}"
    );
    let listed = db_cmd(&db, &["results", "list"]);
    assert!(String::from_utf8_lossy(&listed.stdout).contains("workload"));
    Ok(String::new())
}

/// What `schema` (a file of schema/) finds wrong with `doc`; nothing where it matches.
fn schema_errors(schema: &str, doc: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(schema).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    validator.iter_errors(doc).map(|e| e.to_string()).collect()
}

/// A workload's JSON is what schema/workload-result.schema.json says: every step, so that
/// copy's, archive's and the verified trees' parts are all checked, repeated for a summary.
fn json_output_matches_its_schema() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "200", "fixed:8K");
    let doc = wl_json(&[
        "mixed",
        "--steps",
        "copy, archive, extract, scan, readall, delete",
        "--source",
        p(&ds),
        "--target",
        p(&dir.path().join("out")),
        "--repeat",
        "2",
        "--interval",
        "10",
    ]);
    let errors = schema_errors(
        include_str!("../../schema/workload-result.schema.json"),
        &doc,
    );
    assert!(errors.is_empty(), "{errors:#?}");
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 6);
    assert!(
        steps[0]["reps"][0]["copy"].is_object() && steps[1]["reps"][0]["compression"].is_object()
    );
    let mut extra = doc.clone();
    extra["steps"][0]["reps"][0]["unknown"] = Value::Bool(true);
    let errors = schema_errors(
        include_str!("../../schema/workload-result.schema.json"),
        &extra,
    );
    assert!(!errors.is_empty(), "an unknown key passed");
    Ok(String::new())
}

/// A workload started in the background, its output in files beside `dir` (a JSON report
/// can outgrow a pipe that nobody reads until the end).
struct Bg {
    child: std::process::Child,
    out: std::path::PathBuf,
    err: std::path::PathBuf,
}

fn start(dir: &Path, tag: &str, args: &[&str]) -> Bg {
    let (out, err) = (
        dir.join(format!("{tag}.out")),
        dir.join(format!("{tag}.err")),
    );
    let child = bin()
        .arg("workload")
        .args(args)
        .args(["--no-save", "--output", "json"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    Bg { child, out, err }
}

/// How a background workload ended: exit code, how long after `since`, stdout, stderr.
type Ended = (Option<i32>, Duration, String, String);

impl Bg {
    fn signal(&self, sig: i32) {
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(self.child.id() as i32, sig) };
    }

    /// Its end, if it comes within `limit` of `since`; killed (and an Err) if not.
    fn ended_within(mut self, since: Instant, limit: Duration) -> Result<Ended, String> {
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into();
                return Ok((st.code(), since.elapsed(), read(&self.out), read(&self.err)));
            }
            if since.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return Err(format!("still running {limit:?} after the signal: killed"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Wait (up to 60 s) until `cond` holds; whether it did.
fn wait_for(cond: impl Fn() -> bool) -> bool {
    let t = Instant::now();
    while !cond() {
        if t.elapsed() > Duration::from_secs(60) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    true
}

fn entries(p: &Path) -> usize {
    std::fs::read_dir(p).map(|d| d.count()).unwrap_or(0)
}

/// A target inside the source, spelled through a missing folder and `..`, or reached
/// through a bind mount of the source (root), is refused before anything is made; a target
/// spelled through a missing folder and `..` elsewhere leaves no empty folder behind.
fn a_target_inside_the_source_by_any_path_is_refused() -> Result<String, String> {
    let dir = work_dir();
    let root = dir.path();
    let src = root.join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(src.join("f"), "x").unwrap();
    let refused = |target: &Path| {
        for w in ["copy", "archive", "extract"] {
            let o = workload(&[w, "--source", p(&src), "--target", p(target), "--no-save"]);
            assert_eq!(o.status.code(), Some(2), "{w} {target:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("is inside --source"),
                "{w}: {}",
                stderr(&o)
            );
            let held: Vec<_> = std::fs::read_dir(&src).unwrap().collect();
            assert_eq!(held.len(), 1, "{w} {target:?}: the source is untouched");
        }
    };
    refused(&root.join("nx/../src/out"));
    assert!(!root.join("nx").exists(), "nothing made on the way");
    let o = workload(&[
        "copy",
        "--source",
        p(&src),
        "--target",
        p(&root.join("nx/../elsewhere")),
        "--no-save",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!root.join("nx").exists() && !root.join("elsewhere").exists());
    if !is_root() {
        return Err("the '..' paths passed; the bind mount needs root".into());
    }
    let bind = root.join("bind");
    std::fs::create_dir(&bind).unwrap();
    sh("mount", &["--bind", p(&src), p(&bind)])?;
    let _m = Mounted(bind.clone());
    refused(&bind.join("out"));
    Ok(String::new())
}

/// SIGINT and SIGTERM during archive and extract, zip and tar.zst: the process ends within
/// 2 s with exit 130, the report (where one came) marked partial, nothing left in the target.
fn a_signal_ends_archive_and_extract() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "2000", "fixed:32K");
    let mut seen = Vec::new();
    for (w, format) in [
        ("extract", "zip"),
        ("extract", "tar.zst"),
        ("archive", "zip"),
        ("archive", "tar.zst"),
    ] {
        for (sig, name) in [(libc::SIGINT, "INT"), (libc::SIGTERM, "TERM")] {
            let target = dir.path().join(format!("t-{w}-{format}-{name}"));
            let args = [w, "--source", p(&ds), "--target", p(&target)];
            let bg = start(
                dir.path(),
                "sig",
                &[&args[..], &["--format", format]].concat(),
            );
            assert!(wait_for(|| entries(&target) > 0), "{w} started");
            // Soon after the first output: a warm tar.zst archive of these 64 MiB can end
            // within 200 ms, and a signal after the last step is a whole run, not a partial one.
            std::thread::sleep(Duration::from_millis(20));
            bg.signal(sig);
            let t = Instant::now();
            let (code, took, out, err) = bg
                .ended_within(t, Duration::from_secs(2))
                .map_err(|e| format!("{w} {format} SIG{name}: {e}"))
                .unwrap();
            assert_eq!(code, Some(130), "{w} {format} SIG{name}: {err}");
            if !out.is_empty() {
                let r: Value = serde_json::from_str(&out).unwrap();
                assert_eq!(r["partial"], true, "{w} {format} SIG{name}");
            }
            assert!(!target.exists(), "{w} {format} SIG{name}: left {target:?}");
            seen.push(took.as_millis());
        }
    }
    Ok(format!("ended after {seen:?} ms"))
}

/// The folder an extract writes in, renamed away mid-run and a link to another folder put
/// in its place: nothing lands in the other folder.
fn extract_never_writes_through_a_swapped_folder() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "2000", "fixed:32K");
    for format in ["zip", "tar.zst"] {
        let target = dir.path().join(format!("t-{format}"));
        let other = dir.path().join(format!("other-{format}"));
        std::fs::create_dir(&other).unwrap();
        let args = ["extract", "--source", p(&ds), "--target", p(&target)];
        let bg = start(
            dir.path(),
            "swap",
            &[&args[..], &["--format", format, "--threads", "1"]].concat(),
        );
        let out = target.join("extract");
        assert!(wait_for(|| entries(&out) > 0), "extract started");
        let moved = dir.path().join(format!("moved-{format}"));
        if std::fs::rename(&out, &moved).is_err() {
            return Err(format!("{format}: the extract ended before the swap"));
        }
        std::os::unix::fs::symlink(&other, &out).unwrap();
        let (code, _, _, err) = bg
            .ended_within(Instant::now(), Duration::from_secs(120))
            .unwrap();
        assert_eq!(
            entries(&other),
            0,
            "{format}: written through the link ({code:?}: {err})"
        );
        std::fs::remove_file(&out).unwrap();
    }
    Ok(String::new())
}

/// A user's file and folder put inside copy's and extract's output during the run stay, and
/// are named; what iogauge made around them goes.
fn a_users_file_in_the_output_stays() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "2000", "fixed:32K");
    for (w, more) in [
        ("copy", ["--method", "read-write"]),
        ("extract", ["--format", "zip"]),
    ] {
        let target = dir.path().join(format!("t-{w}"));
        let args = [
            w,
            "--source",
            p(&ds),
            "--target",
            p(&target),
            "--threads",
            "1",
        ];
        let bg = start(dir.path(), "user", &[&args[..], &more[..]].concat());
        let out = target.join(w);
        assert!(wait_for(|| entries(&out) > 2), "{w} started");
        if std::fs::write(out.join("mine.txt"), "the user's").is_err()
            || std::fs::create_dir(out.join("mine")).is_err()
        {
            return Err(format!("{w} ended before the user's file was put in"));
        }
        std::fs::write(out.join("mine/x"), "the user's too").unwrap();
        let (code, _, _, err) = bg
            .ended_within(Instant::now(), Duration::from_secs(120))
            .unwrap();
        assert_eq!(code, Some(0), "{w}: {err}");
        assert_eq!(
            std::fs::read_to_string(out.join("mine.txt")).unwrap(),
            "the user's",
            "{w}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("mine/x")).unwrap(),
            "the user's too"
        );
        let named = format!(
            "left '{}' in place: not made by iogauge",
            out.join("mine.txt").display()
        );
        assert!(err.contains(&named), "{w}: {err}");
        assert_eq!(entries(&out), 2, "{w}: only the user's things stay");
        assert_eq!(entries(&target), 1, "{w}");
    }
    Ok(String::new())
}

/// Trees deeper than 64 folders (70 for copy, 120 in an archive) are made and removed.
fn deep_trees_are_removed() -> Result<String, String> {
    let dir = work_dir();
    for (w, format, depth) in [
        ("copy", "zip", 70),
        ("extract", "zip", 120),
        ("extract", "tar.zst", 120),
    ] {
        let src = dir.path().join(format!("src-{depth}"));
        let deep = src.join("d/".repeat(depth));
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("f"), "deep").unwrap();
        let target = dir.path().join(format!("t-{w}-{format}"));
        let r = wl_json(&[
            w,
            "--source",
            p(&src),
            "--target",
            p(&target),
            "--format",
            format,
        ]);
        assert_eq!(step(&r, 0)["verify"]["ok"], true, "{w} {format}");
        assert!(!target.exists(), "{w} {format} {depth} deep: left behind");
    }
    Ok(String::new())
}

/// A tree holding names that are not UTF-8 (a 0xff byte, Latin-1 `caf\xe9.txt`) is copied
/// and extracted (tar.zst) and checked the same.
fn names_that_are_not_utf8_are_checked_as_themselves() -> Result<String, String> {
    use std::os::unix::ffi::OsStrExt;
    let dir = work_dir();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    for (name, data) in [(&b"bad\xffname"[..], ""), (b"caf\xe9.txt", "coffee")] {
        std::fs::write(src.join(std::ffi::OsStr::from_bytes(name)), data).unwrap();
    }
    for (w, format) in [("copy", "zip"), ("extract", "tar.zst")] {
        let target = dir.path().join(format!("t-{w}"));
        let r = wl_json(&[
            w,
            "--source",
            p(&src),
            "--target",
            p(&target),
            "--format",
            format,
        ]);
        let v = &step(&r, 0)["verify"];
        assert_eq!(v["ok"], true, "{w}: {v}");
        assert_eq!(u(&v["files"]), 2, "{w}: {v}");
    }
    Ok(String::new())
}

/// Ctrl-C at moments spread over a run, the last step's end included: the message says
/// "partial" exactly when the report does.
fn an_interrupted_run_says_partial_as_its_report_does() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    dataset(&ds, "300", "fixed:4K");
    let target = dir.path().join("t");
    let args = ["copy", "--source", p(&ds), "--target", p(&target)];
    let t = Instant::now();
    let (code, ..) = start(dir.path(), "whole", &args)
        .ended_within(t, Duration::from_secs(60))
        .unwrap();
    assert_eq!(code, Some(0));
    let full = t.elapsed();
    let (mut whole, mut partial) = (0, 0);
    for k in 0..30u32 {
        let bg = start(dir.path(), "part", &args);
        std::thread::sleep(full * (40 + 2 * k) / 100);
        bg.signal(libc::SIGINT);
        let (code, _, out, err) = bg
            .ended_within(Instant::now(), Duration::from_secs(10))
            .unwrap();
        if code == Some(0) || out.is_empty() {
            continue;
        }
        assert_eq!(code, Some(130), "{err}");
        let r: Value = serde_json::from_str(&out).unwrap();
        let says_partial = err.contains("the results above are partial");
        assert_eq!(r["partial"].as_bool(), Some(says_partial), "{err}");
        match says_partial {
            true => partial += 1,
            false => whole += 1,
        }
    }
    Ok(format!("{partial} partial, {whole} after the last step"))
}

/// `--method io_uring` on a full file system: the OS error (ENOSPC) with the file's name, not
/// "short write"; nothing left.
fn io_uring_on_a_full_fs_says_enospc() -> Result<String, String> {
    need_root()?;
    let dir = work_dir();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    let data: Vec<u8> = (0..5_000_000u32).map(|i| (i * 7 + i / 3) as u8).collect();
    std::fs::write(src.join("f.bin"), data).unwrap();
    let (_m, small) = memory_fs(dir.path(), "tmpfs", "size=2m")?;
    let o = workload(&[
        "copy",
        "--method",
        "io_uring",
        "--source",
        p(&src),
        "--target",
        p(&small.join("c")),
        "--no-save",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("No space left on device") && e.contains("f.bin") && !e.contains("short"),
        "{e}"
    );
    assert_eq!(entries(&small), 0, "nothing left");
    Ok(String::new())
}

pub fn main() {
    harness_skip_or(
        "workload",
        [
            (
                "every_step_on_the_work_disk",
                every_step_on_the_work_disk as SkipOr,
            ),
            ("every_step_on_tmpfs", every_step_on_tmpfs),
            ("every_step_on_xfs", every_step_on_xfs),
            (
                "a_script_of_steps_is_repeated",
                a_script_of_steps_is_repeated,
            ),
            (
                "the_systems_tools_side_by_side",
                the_systems_tools_side_by_side,
            ),
            (
                "bad_requests_are_refused_by_name",
                bad_requests_are_refused_by_name,
            ),
            ("nothing_is_written_over", nothing_is_written_over),
            (
                "an_archive_that_climbs_out_is_refused",
                an_archive_that_climbs_out_is_refused,
            ),
            ("enospc_ends_cleanly", enospc_ends_cleanly),
            (
                "ctrl_c_mid_copy_leaves_nothing",
                ctrl_c_mid_copy_leaves_nothing,
            ),
            ("saved_and_shown", saved_and_shown),
            (
                "json_output_matches_its_schema",
                json_output_matches_its_schema,
            ),
            (
                "a_target_inside_the_source_by_any_path_is_refused",
                a_target_inside_the_source_by_any_path_is_refused,
            ),
            (
                "a_signal_ends_archive_and_extract",
                a_signal_ends_archive_and_extract,
            ),
            (
                "extract_never_writes_through_a_swapped_folder",
                extract_never_writes_through_a_swapped_folder,
            ),
            (
                "a_users_file_in_the_output_stays",
                a_users_file_in_the_output_stays,
            ),
            ("deep_trees_are_removed", deep_trees_are_removed),
            (
                "names_that_are_not_utf8_are_checked_as_themselves",
                names_that_are_not_utf8_are_checked_as_themselves,
            ),
            (
                "an_interrupted_run_says_partial_as_its_report_does",
                an_interrupted_run_says_partial_as_its_report_does,
            ),
            (
                "io_uring_on_a_full_fs_says_enospc",
                io_uring_on_a_full_fs_says_enospc,
            ),
        ],
    );
}
