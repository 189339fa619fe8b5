//! `iogauge workload` and `iogauge dataset` on Windows (or Wine): each copy method, archive and
//! extract in both formats, scan, readall and delete on a small tree; the copies and extracts
//! verified by iogauge and read back here byte for byte; counts in the JSON report; nothing
//! left behind. Wine refuses block cloning (no ReFS): the fallback and its note are checked.

use super::{iogauge, json, text, Dir};
use serde_json::Value;
use std::path::Path;

/// A small tree: folders, an empty file, a 3 MB file and names with a space and an accent.
/// Its files (below the top, '/'-separated, with their bytes) and its folders.
fn tree(at: &Path) -> (Vec<(String, Vec<u8>)>, u64) {
    let files: Vec<(String, Vec<u8>)> = vec![
        (
            "a/b/big".into(),
            (0..3_000_000u32).map(|i| (i * 31 + 7) as u8).collect(),
        ),
        ("a/small file".into(), b"hello".to_vec()),
        ("a/caf\u{e9}.txt".into(), b"coffee".repeat(1000)),
        ("empty".into(), Vec::new()),
        ("c/d/e/deep".into(), vec![9u8; 70_000]),
    ];
    for (rel, data) in &files {
        let p = at.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, data).unwrap();
    }
    // a, a/b, c, c/d, c/d/e
    (files, 5)
}

/// Every file of `files` in `at`, read back, byte for byte; nothing else there.
fn same_tree(at: &Path, files: &[(String, Vec<u8>)], what: &str) {
    for (rel, data) in files {
        let got = std::fs::read(at.join(rel)).unwrap_or_else(|e| panic!("{what}: {rel}: {e}"));
        assert!(got == *data, "{what}: {rel} differs");
    }
    let mut n = 0;
    let mut stack = vec![at.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            match e.file_type().unwrap().is_dir() {
                true => stack.push(e.path()),
                false => n += 1,
            }
        }
    }
    assert_eq!(n, files.len(), "{what}: files there");
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The first repetition of step `i`.
fn rep(r: &Value, i: usize) -> &Value {
    &r["steps"][i]["reps"][0]
}

/// `iogauge workload ARGS --output json --no-save --no-drop-caches`, its JSON.
fn workload(dir: &Dir, args: &[&str]) -> Value {
    let mut a = vec!["workload"];
    a.extend(args);
    a.extend(["--output", "json", "--no-save", "--no-drop-caches"]);
    let o = iogauge(dir, &a);
    json(&o, &a.join(" "))
}

fn notes(r: &Value) -> String {
    r["notes"].to_string()
}

/// Each copy method copies the tree; iogauge verifies it; the copy is removed after.
pub fn copies() {
    let dir = Dir::new("wl-copy");
    let (files, dirs) = tree(&dir.0.join("src"));
    let (n, bytes) = (
        files.len() as u64,
        files.iter().map(|f| f.1.len() as u64).sum::<u64>(),
    );
    for method in ["CopyFileExW", "read-write", "block-clone"] {
        let r = workload(
            &dir,
            &[
                "copy", "--source", "src", "--target", "out", "--method", method,
            ],
        );
        let s = rep(&r, 0);
        assert_eq!((u(&s["files"]), u(&s["dirs"])), (n, dirs), "{method}");
        assert_eq!(
            (u(&s["bytes_read"]), u(&s["bytes_written"])),
            (bytes, bytes),
            "{method}"
        );
        assert_eq!(s["verify"]["ok"], true, "{method}: {}", s["verify"]);
        assert_eq!(u(&s["verify"]["files"]), n, "{method}");
        let c = &s["copy"];
        let (system, plain) = (u(&c["kernel_files"]), u(&c["read_write_files"]));
        assert_eq!(system + plain, n, "{method}: {c}");
        match method {
            "CopyFileExW" => assert_eq!((c["method"].as_str(), system), (Some("copy_file_ex"), n)),
            "read-write" => assert_eq!(plain, n),
            // Wine and NTFS refuse block cloning: copied by read and write, and said so.
            _ if system == 0 => {
                assert!(
                    c["refused"].as_str().unwrap().contains("block cloning"),
                    "{c}"
                );
                assert!(
                    notes(&r).contains("FSCTL_DUPLICATE_EXTENTS_TO_FILE"),
                    "{}",
                    notes(&r)
                );
            }
            _ => assert_eq!(c["shared_extents"], true, "{c}"),
        }
        assert_eq!(
            dir.left(&["results.db", "src"]),
            Vec::<String>::new(),
            "{method}"
        );
    }
    // Kept: the copy and the extracts are the tree, read back here.
    let r = workload(
        &dir,
        &[
            "mixed",
            "--steps",
            "copy, archive, extract",
            "--source",
            "src",
            "--target",
            "out",
            "--keep",
        ],
    );
    assert_eq!(r["steps"].as_array().unwrap().len(), 3);
    same_tree(&dir.0.join("out/1-copy"), &files, "the kept copy");
    same_tree(&dir.0.join("out/3-extract"), &files, "the kept extract");
    std::fs::remove_dir_all(dir.0.join("out")).unwrap();
    // A file iogauge did not make is never written over: --force beside it, then left.
    std::fs::create_dir(dir.0.join("out")).unwrap();
    std::fs::write(dir.0.join("out/mine"), b"the user's").unwrap();
    let r = workload(
        &dir,
        &["copy", "--source", "src", "--target", "out", "--force"],
    );
    assert_eq!(rep(&r, 0)["verify"]["ok"], true);
    assert_eq!(
        std::fs::read(dir.0.join("out/mine")).unwrap(),
        b"the user's"
    );
    let left: Vec<_> = std::fs::read_dir(dir.0.join("out")).unwrap().collect();
    assert_eq!(left.len(), 1, "only the user's file stays");
    std::fs::remove_dir_all(dir.0.join("out")).unwrap();
    std::fs::remove_dir_all(dir.0.join("src")).unwrap();
}

/// Archive and extract, zip and tar.zst; scan, readall and delete: counts and names.
pub fn archives_and_walks() {
    let dir = Dir::new("wl-walks");
    let (files, dirs) = tree(&dir.0.join("src"));
    let (n, bytes) = (
        files.len() as u64,
        files.iter().map(|f| f.1.len() as u64).sum::<u64>(),
    );
    for format in ["zip", "tar.zst"] {
        let r = workload(
            &dir,
            &[
                "archive", "--source", "src", "--target", "out", "--format", format,
            ],
        );
        let s = rep(&r, 0);
        assert_eq!((u(&s["files"]), u(&s["dirs"])), (n, dirs), "{format}");
        assert_eq!(u(&s["bytes_read"]), bytes, "{format}");
        assert_eq!(u(&s["compression"]["tree_bytes"]), bytes, "{format}");
        let r = workload(
            &dir,
            &[
                "extract", "--source", "src", "--target", "out", "--format", format,
            ],
        );
        let s = rep(&r, 0);
        assert_eq!(
            (u(&s["files"]), u(&s["bytes_written"])),
            (n, bytes),
            "{format}"
        );
        assert_eq!(s["verify"]["ok"], true, "{format}: {}", s["verify"]);
        assert_eq!(
            dir.left(&["results.db", "src"]),
            Vec::<String>::new(),
            "{format}"
        );
    }
    let r = workload(&dir, &["scan", "--source", "src"]);
    assert_eq!((u(&rep(&r, 0)["files"]), u(&rep(&r, 0)["dirs"])), (n, dirs));
    let r = workload(&dir, &["readall", "--source", "src"]);
    assert_eq!(
        (u(&rep(&r, 0)["files"]), u(&rep(&r, 0)["bytes_read"])),
        (n, bytes)
    );
    let r = workload(&dir, &["delete", "--source", "src", "--target", "out"]);
    // The copy's files, its folders and its top folder.
    assert_eq!(
        (u(&rep(&r, 0)["files"]), u(&rep(&r, 0)["dirs"])),
        (n, dirs + 1)
    );
    assert_eq!(
        r["steps"][0]["label"]
            .as_str()
            .map(|l| l.starts_with("delete")),
        Some(true)
    );
    // The source is as it was.
    same_tree(&dir.0.join("src"), &files, "the source");
    std::fs::remove_dir_all(dir.0.join("src")).unwrap();
    assert_eq!(dir.left(&["results.db"]), Vec::<String>::new());
}

/// A Linux method is refused by name, in one line.
pub fn linux_methods_are_refused() {
    let dir = Dir::new("wl-refused");
    tree(&dir.0.join("src"));
    let o = iogauge(
        &dir,
        &[
            "workload", "copy", "--source", "src", "--method", "io_uring",
        ],
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("io_uring is not on windows") && err.contains("CopyFileExW"),
        "{err}"
    );
    std::fs::remove_dir_all(dir.0.join("src")).unwrap();
}

/// `iogauge dataset create` then `verify`: every file checked, and a changed one found.
pub fn dataset_create_and_verify() {
    let dir = Dir::new("dataset");
    let ds = dir.path("ds");
    let o = iogauge(
        &dir,
        &[
            "dataset",
            "create",
            &ds,
            "--files",
            "60",
            "--size-dist",
            "fixed:4K",
            "--output",
            "json",
        ],
    );
    let v = json(&o, "dataset create");
    assert_eq!(u(&v["files"]), 60, "{v}");
    let o = iogauge(&dir, &["dataset", "verify", &ds, "--output", "json"]);
    let v = json(&o, "dataset verify");
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(u(&v["files"]), 60, "{v}");
    // One file changed: found, by name.
    let manifest = std::fs::read_to_string(dir.0.join("ds/.iogauge-dataset")).unwrap_or_default();
    let first = manifest
        .lines()
        .find_map(|l| l.split('\t').nth(2))
        .map(str::to_string);
    if let Some(rel) = first {
        std::fs::write(dir.0.join("ds").join(&rel), b"changed").unwrap();
        let o = iogauge(&dir, &["dataset", "verify", &ds, "--output", "json"]);
        let out = text(&o.stdout);
        assert!(!o.status.success() && out.contains(&rel), "{out}");
    }
    std::fs::remove_dir_all(dir.0.join("ds")).unwrap();
}
