//! `iogauge dataset` end to end: made on the work disk, tmpfs and an xfs loop image, checked
//! against its manifest (and the manifest against the files read here), the same for a seed,
//! compressible as asked by deflate and zstd themselves, never written over anything, and
//! gone after Ctrl-C. Tests that need root or mkfs.xfs say SKIPPED when they are missing.

use crate::common;
use common::mounts::*;
use common::*;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

fn dataset(args: &[&str]) -> Output {
    bin()
        .arg("dataset")
        .args(args)
        .output()
        .expect("iogauge starts")
}

fn json(o: &Output) -> Value {
    assert!(o.status.success(), "{}\n{}", o.status, stderr(o));
    serde_json::from_slice(&o.stdout).expect("one JSON report")
}

fn create(dir: &Path, more: &[&str]) -> Value {
    let mut args = vec!["create", p(dir), "--output", "json"];
    args.extend_from_slice(more);
    json(&dataset(&args))
}

/// Every file below `dir` (not the manifest), as (path, bytes), sorted.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else if e.file_name() != ".iogauge-dataset" {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Made, listed in the manifest as it is on disk, and verified; on any file system.
fn made_and_verified_on(dir: &Path) -> Result<String, String> {
    let ds = dir.join("ds");
    let r = create(&ds, &["--files", "3000", "--size-dist", "lognormal:8K:1.2"]);
    assert_eq!(r["files"], 3000);
    let files = tree(&ds);
    assert_eq!(files.len(), 3000);
    let bytes: u64 = files.iter().map(|f| f.1.len() as u64).sum();
    assert_eq!(r["bytes"], bytes);
    // The manifest says what is there: each file's size and XXH3, checked here.
    let manifest = std::fs::read_to_string(ds.join(".iogauge-dataset")).unwrap();
    let lines: Vec<&str> = manifest.lines().skip(2).collect();
    assert_eq!(lines.len(), 3000);
    for line in lines.iter().step_by(97) {
        let f: Vec<&str> = line.split('\t').collect();
        let data = std::fs::read(ds.join(f[2])).unwrap();
        assert_eq!(f[0], data.len().to_string(), "{line}");
        let h = format!("{:016x}", xxh3(&data));
        assert_eq!(f[1], h, "{line}");
    }
    let v = json(&dataset(&["verify", p(&ds), "--output", "json"]));
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["files"], 3000);
    assert_eq!(v["manifest_xxh3"], r["manifest_xxh3"]);
    Ok(format!(
        "{} files, {:.0} files/s",
        r["files"],
        r["files_per_s"].as_f64().unwrap()
    ))
}

fn xxh3(data: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(data)
}

fn made_and_verified_on_the_work_disk() -> Result<String, String> {
    let dir = work_dir();
    made_and_verified_on(dir.path())
}

fn made_and_verified_on_tmpfs() -> Result<String, String> {
    need_root()?;
    let base = work_dir();
    let (_m, at) = memory_fs(base.path(), "tmpfs", "size=512m")?;
    made_and_verified_on(&at)
}

fn made_and_verified_on_xfs() -> Result<String, String> {
    need_root()?;
    let base = work_dir();
    let (_m, at) = image_fs(base.path(), "xfs", 512)?;
    made_and_verified_on(&at)
}

/// The same flags and seed give the same files, whatever the threads; another seed others.
fn the_same_seed_gives_the_same_dataset() -> Result<String, String> {
    let dir = work_dir();
    let flags = [
        "--files",
        "500",
        "--size-dist",
        "lognormal:4K:1.5",
        "--seed",
        "42",
    ];
    let a = create(
        &dir.path().join("a"),
        &[&flags[..], &["--threads", "1"]].concat(),
    );
    let b = create(
        &dir.path().join("b"),
        &[&flags[..], &["--threads", "4"]].concat(),
    );
    assert_eq!(a["manifest_xxh3"], b["manifest_xxh3"]);
    assert_eq!(tree(&dir.path().join("a")), tree(&dir.path().join("b")));
    let c = create(&dir.path().join("c"), &["--files", "500", "--seed", "43"]);
    assert_ne!(a["manifest_xxh3"], c["manifest_xxh3"]);
    Ok(String::new())
}

/// What differs is named: a file changed in place (same size), one gone, one added.
fn verify_names_what_differs() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    create(&ds, &["--files", "300", "--size-dist", "fixed:8K"]);
    let files = tree(&ds);
    let (changed, gone) = (&files[10].0, &files[20].0);
    let mut data = files[10].1.clone();
    data[100] ^= 1;
    std::fs::write(ds.join(changed), data).unwrap();
    std::fs::remove_file(ds.join(gone)).unwrap();
    std::fs::write(ds.join("stray.txt"), "x").unwrap();
    let o = dataset(&["verify", p(&ds), "--output", "json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["wrong_content"]["paths"], serde_json::json!([changed]));
    assert_eq!(v["missing"]["paths"], serde_json::json!([gone]));
    assert_eq!(v["extra"]["paths"], serde_json::json!(["stray.txt"]));
    assert_eq!(v["wrong_size"]["count"], 0);
    // A copy is checked against the original's manifest.
    let text = dataset(&["verify", p(&ds)]);
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(out.contains("1 file with other content: "), "{out}");
    Ok(String::new())
}

/// deflate and zstd themselves save about the asked share of the files.
fn real_compressors_see_the_asked_compressibility() -> Result<String, String> {
    let dir = work_dir();
    let mut seen = Vec::new();
    for pct in [20u32, 60, 83] {
        let ds = dir.path().join(format!("c{pct}"));
        let pct_s = pct.to_string();
        create(
            &ds,
            &[
                "--files",
                "8",
                "--size-dist",
                "fixed:1M",
                "--compressible",
                &pct_s,
            ],
        );
        let all: Vec<u8> = tree(&ds).into_iter().flat_map(|f| f.1).collect();
        let zstd = zstd::bulk::compress(&all, 3).unwrap().len();
        let mut deflate = Vec::new();
        flate2::read::DeflateEncoder::new(&all[..], flate2::Compression::default())
            .read_to_end(&mut deflate)
            .unwrap();
        for (name, n) in [("zstd", zstd), ("deflate", deflate.len())] {
            let saved = 100.0 * (1.0 - n as f64 / all.len() as f64);
            assert!(
                (saved - f64::from(pct)).abs() < 4.0,
                "asked {pct}%, {name} saved {saved:.1}%"
            );
            seen.push(format!("{name} {saved:.0}% of {pct}%"));
        }
    }
    Ok(seen.join(", "))
}

/// A folder with things in it is refused; with --force the dataset goes beside them, and a
/// name already taken ends it without touching that file, removing what was made.
fn nothing_is_written_over() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    std::fs::create_dir(&ds).unwrap();
    std::fs::write(ds.join("mine.txt"), "keep").unwrap();
    let o = dataset(&["create", p(&ds), "--files", "50"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("is not empty") && err.contains(p(&ds)),
        "{err}"
    );
    // A file of the user's where the dataset's first file would go.
    std::fs::write(ds.join("f0000000.dat"), "the user's").unwrap();
    let o = dataset(&["create", p(&ds), "--files", "50", "--depth", "0", "--force"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("something is already there"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(ds.join("f0000000.dat")).unwrap(),
        "the user's"
    );
    let mut left: Vec<String> = tree(&ds).into_iter().map(|f| f.0).collect();
    left.sort();
    assert_eq!(left, ["f0000000.dat", "mine.txt"]);
    assert!(!ds.join(".iogauge-dataset").exists());
    Ok(String::new())
}

/// Ctrl-C while the files are written: exit 130, and nothing of the dataset is left.
fn ctrl_c_mid_create_leaves_nothing() -> Result<String, String> {
    let dir = work_dir();
    let ds = dir.path().join("ds");
    let child = bin()
        .args([
            "dataset",
            "create",
            p(&ds),
            "--files",
            "400000",
            "--depth",
            "0",
        ])
        .args(["--size-dist", "fixed:4K"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while tree_len(&ds) < 1000 && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(!ds.exists(), "left: {} files", tree_len(&ds));
    Ok(String::new())
}

/// A path through a missing folder (`nx/..`) is judged where it leads: a folder of the
/// user's with things in it is refused and left as it was, an empty one gets the dataset,
/// and the missing folder is never made.
fn a_path_through_a_missing_folder_is_judged_where_it_leads() -> Result<String, String> {
    let dir = work_dir();
    let users = dir.path().join("u");
    std::fs::create_dir(&users).unwrap();
    std::fs::write(users.join("mine.txt"), "keep").unwrap();
    let typed = dir.path().join("nx/../u");
    let o = dataset(&["create", p(&typed), "--files", "20"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(p(&typed)) && err.contains(p(&users)) && err.contains("is not empty"),
        "{err}"
    );
    assert_eq!(tree_len(&users), 1, "the user's folder is as it was");
    assert!(!dir.path().join("nx").exists(), "no stray folder");
    for (name, existing) in [("empty", true), ("new", false)] {
        let at = dir.path().join(name);
        if existing {
            std::fs::create_dir(&at).unwrap();
        }
        let typed = dir.path().join(format!("nx/../{name}"));
        let v = create(&typed, &["--files", "20"]);
        assert_eq!(v["dir"], p(&at));
        assert_eq!(tree(&at).len(), 20);
        assert!(!dir.path().join("nx").exists(), "no stray folder");
    }
    Ok(String::new())
}

/// Ctrl-C (a real SIGINT) while files are written in a folder reached through `nx/..`: what
/// was made is really removed, as the message says; with --keep it is kept, and the message
/// says that instead.
fn ctrl_c_removes_what_was_made_and_says_what_became_of_it() -> Result<String, String> {
    let dir = work_dir();
    let at = dir.path().join("e");
    let mut seen = Vec::new();
    for keep in [false, true] {
        std::fs::create_dir_all(&at).unwrap();
        let typed = dir.path().join("nx/../e");
        let mut cmd = bin();
        cmd.args(["dataset", "create", p(&typed), "--files", "20000"])
            .args(["--size-dist", "fixed:16K"]);
        if keep {
            cmd.arg("--keep");
        }
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while tree_len(&at) < 10 && t.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(5));
        }
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        if o.status.success() {
            return Err(format!("the dataset was finished before Ctrl-C: {err}"));
        }
        assert_eq!(o.status.code(), Some(130), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!dir.path().join("nx").exists(), "no stray folder");
        let left = tree_len(&at);
        if keep {
            assert!(err.contains("kept") && err.contains(p(&at)), "{err}");
            assert!(left > 0, "--keep kept nothing");
            std::fs::remove_dir_all(&at).unwrap();
        } else {
            assert!(err.contains("what was made is removed"), "{err}");
            assert_eq!(left, 0, "the folder is empty again: {err}");
        }
        seen.push(left);
    }
    Ok(format!("left {seen:?}"))
}

/// Counts no dataset could have are refused at once (before any arithmetic on them), in one
/// line naming the flag and the value typed.
fn absurd_counts_are_refused_at_once() -> Result<String, String> {
    let dir = work_dir();
    let at = dir.path().join("ds");
    let max64 = u64::MAX.to_string();
    let max32 = u32::MAX.to_string();
    let fixed = format!("fixed:{max64}");
    let lognormal = format!("lognormal:{max64}:1");
    let mut slowest = Duration::ZERO;
    for (flag, value) in [
        ("--files", max64.as_str()),
        ("--dirs", &max64),
        ("--fanout", &max64),
        ("--depth", &max32),
        ("--threads", &max32),
        ("--compressible", &max32),
        ("--size-dist", &fixed),
        ("--size-dist", &lognormal),
    ] {
        let t = Instant::now();
        let o = dataset(&["create", p(&at), flag, value]);
        let took = t.elapsed();
        slowest = slowest.max(took);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("{flag} {value}")), "{err}");
        assert!(
            took < Duration::from_millis(500),
            "{flag} {value} took {took:?}"
        );
        assert!(!at.exists(), "{flag} {value}: nothing is made");
    }
    Ok(format!("slowest {slowest:?}"))
}

fn tree_len(dir: &Path) -> usize {
    if !dir.exists() {
        return 0;
    }
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

pub fn main() {
    harness_skip_or(
        "dataset",
        [
            (
                "made_and_verified_on_the_work_disk",
                made_and_verified_on_the_work_disk as SkipOr,
            ),
            ("made_and_verified_on_tmpfs", made_and_verified_on_tmpfs),
            ("made_and_verified_on_xfs", made_and_verified_on_xfs),
            (
                "the_same_seed_gives_the_same_dataset",
                the_same_seed_gives_the_same_dataset,
            ),
            ("verify_names_what_differs", verify_names_what_differs),
            (
                "real_compressors_see_the_asked_compressibility",
                real_compressors_see_the_asked_compressibility,
            ),
            ("nothing_is_written_over", nothing_is_written_over),
            (
                "ctrl_c_mid_create_leaves_nothing",
                ctrl_c_mid_create_leaves_nothing,
            ),
            (
                "a_path_through_a_missing_folder_is_judged_where_it_leads",
                a_path_through_a_missing_folder_is_judged_where_it_leads,
            ),
            (
                "ctrl_c_removes_what_was_made_and_says_what_became_of_it",
                ctrl_c_removes_what_was_made_and_says_what_became_of_it,
            ),
            (
                "absurd_counts_are_refused_at_once",
                absurd_counts_are_refused_at_once,
            ),
        ],
    );
}
