//! `iogauge fs` on Windows: the whole suite on two folders with Win32's calls, the JSON read
//! back (every test, its operations and repetitions, the reference's ratios, the calls named),
//! how caches were emptied said, and nothing left in either folder.

use super::{iogauge, json, text, Dir};
use serde_json::Value;

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The operations a test does in one repetition (as tests/linux/fs.rs counts them).
fn expected_ops(test: &str, files: u64, pages: u64, iterations: u64) -> u64 {
    match test {
        "iter.file_open" | "file_list" | "file_list_single" => files * iterations,
        "fsync" => pages,
        t if t.starts_with("rdwr_") || t.starts_with("mmap_") => pages * iterations,
        _ => files,
    }
}

/// Every test on two folders, two repetitions each, one the reference.
pub fn fs_suite_runs_every_test() {
    let dir = Dir::new("fs");
    for d in ["ntfs-a", "ntfs-b"] {
        std::fs::create_dir(dir.0.join(d)).unwrap();
    }
    let (files, iterations, repeat) = (40u64, 2u64, 2usize);
    let o = iogauge(
        &dir,
        &[
            "fs",
            &format!("A={}", dir.path("ntfs-a")),
            &format!("B={}", dir.path("ntfs-b")),
            "--files",
            "40",
            "--file-size",
            "64K",
            "--iterations",
            "2",
            "--repeat",
            "2",
            "--threads",
            "2",
            "--output",
            "json",
        ],
    );
    let r = json(&o, "iogauge fs");
    let pages = 65536 / u(&r["params"]["page_size"]);
    let tests = r["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 18, "every test runs");
    for t in tests {
        let name = t["name"].as_str().unwrap();
        for c in t["cells"].as_array().unwrap() {
            assert_eq!(c["status"], "ok", "{name}: {c}");
            assert_eq!(u(&c["ops"]), expected_ops(name, files, pages, iterations));
            let times = c["elapsed_ns"].as_array().unwrap();
            assert_eq!(times.len(), repeat, "{name}");
            assert!(times.iter().all(|v| u(v) > 0), "{name}: {times:?}");
        }
        let ref_min = u(&t["cells"][0]["summary"]["min_ns"]);
        let b_min = u(&t["cells"][1]["summary"]["min_ns"]);
        let ratio = t["cells"][1]["summary"]["ratio"].as_f64().unwrap();
        assert!(
            (ratio - b_min as f64 / ref_min as f64).abs() < 1e-9,
            "{name}"
        );
    }
    // The report names Win32's calls, not Linux's.
    let about = |n: &str| {
        tests.iter().find(|t| t["name"] == n).unwrap()["about"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(about("file_create").contains("CreateFileW(CREATE_NEW)"));
    assert!(about("file_rename").contains("SetFileInformationByHandle"));
    assert!(about("file_list").contains("FindFirstFileExW"));
    assert!(about("rdwr_nc_read_page").contains("FILE_FLAG_NO_BUFFERING"));
    // How caches were emptied is said, whichever way it was.
    let how = r["cache_drop"].as_str().unwrap();
    let notes: Vec<&str> = r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    let said = match how {
        "drop_caches" => "SetSystemFileCacheSize",
        "fadvise" => "FILE_FLAG_NO_BUFFERING",
        other => panic!("cache_drop {other}"),
    };
    assert!(notes.iter().any(|n| n.contains(said)), "{notes:?}");
    for d in ["ntfs-a", "ntfs-b"] {
        let left: Vec<_> = std::fs::read_dir(dir.0.join(d)).unwrap().collect();
        assert!(left.is_empty(), "{d}: {left:?}");
        std::fs::remove_dir(dir.0.join(d)).unwrap();
    }
    assert_eq!(
        dir.left(&["results.db", "results.db-wal", "results.db-shm"]),
        Vec::<String>::new()
    );
}

/// The text report: one row per test, both folders named, the reference said.
pub fn fs_text_report_and_bad_input() {
    let dir = Dir::new("fs-text");
    let o = iogauge(
        &dir,
        &[
            "fs",
            &dir.path(""),
            "--files",
            "10",
            "--file-size",
            "16K",
            "--iterations",
            "1",
            "--repeat",
            "1",
            "--tests",
            "metadata",
            "--no-drop-caches",
        ],
    );
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for t in [
        "file_create",
        "file_rename",
        "dir_delete",
        "file_list_single",
    ] {
        assert!(out.contains(t), "{t} missing: {out}");
    }
    assert!(!out.contains("rdwr_"), "only metadata tests: {out}");
    let o = iogauge(&dir, &["fs", &dir.path(""), "--tests", "nosuch"]);
    super::refused(&o, "nosuch", "--tests nosuch");
    let o = iogauge(&dir, &["fs", &dir.path("missing")]);
    super::refused(&o, "missing", "a folder that does not exist");
    assert_eq!(
        dir.left(&["results.db", "results.db-wal", "results.db-shm"]),
        Vec::<String>::new()
    );
}
