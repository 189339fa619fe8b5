//! `iogauge sweep` and `iogauge iozone` on Windows: a small sweep (JSON read back: every
//! cell, the knees' list; the text report's columns), an iozone line as the Linux tests run
//! it, shrunk, and `--memory-limit` where the process cannot cap the file cache. Each leaves
//! nothing behind. Under Wine these check the Win32 calls and the results, not the cache's
//! behaviour: Wine ignores FILE_FLAG_NO_BUFFERING and has no system file cache to cap.

use super::{iogauge, json, text, Dir, DB};
use std::process::{Command, Output};

/// iogauge with its data folder (LOCALAPPDATA: where a file cache's limits are kept while
/// capped) inside the check's own folder, so no check reads or leaves one elsewhere.
fn iogauge_data(dir: &Dir, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iogauge"))
        .args(args)
        .current_dir(&dir.0)
        .env("IOGAUGE_DB", dir.path("results.db"))
        .env("LOCALAPPDATA", dir.path("data"))
        .output()
        .expect("iogauge.exe starts")
}

/// Four file sizes by two record sizes, write and read, two threads: every cell measured,
/// the knees listed, and the report's columns.
pub fn a_small_sweep_reads_back() {
    let dir = Dir::new("sweep");
    let args = [
        "sweep",
        ".",
        "--file-sizes",
        "64K..512K",
        "--record-sizes",
        "4K,64K",
        "--tests",
        "write,rewrite,read,random_read",
        "--threads",
        "2",
    ];
    let mut json_args = args.to_vec();
    json_args.extend(["--output", "json"]);
    let v = json(&iogauge(&dir, &json_args), "sweep");
    let cells = v["cells"].as_array().expect("cells");
    assert_eq!(cells.len(), 4 * 2 * 4, "4 file sizes x 2 records x 4 tests");
    for c in cells {
        assert_eq!(c["status"], "ok", "{c}");
        assert!(c["elapsed_ns"].as_u64().unwrap() > 0, "{c}");
        assert_eq!(c["thread_ns"].as_array().unwrap().len(), 2, "{c}");
    }
    assert!(v["knees"].is_array(), "the knees' list: {}", v["knees"]);
    assert_eq!(v["partial"], false);
    assert!(v["memory_cap"].is_null());
    assert_eq!(dir.left(&DB), Vec::<String>::new(), "the sweep's files");
    // The text report: a row per file size, a column per record size, and the knees.
    let o = iogauge(&dir, &args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    for word in ["random_read", "512", "knee"] {
        assert!(report.contains(word), "{word} missing:\n{report}");
    }
    assert_eq!(dir.left(&DB), Vec::<String>::new());
}

/// An iozone line as tests/linux/sweep.rs runs it, shrunk: -f names the file's folder,
/// iozone's table follows iogauge's report, and no file stays.
pub fn an_iozone_line_runs() {
    let dir = Dir::new("iozone");
    let f = dir.path("iozone.tmp");
    let o = iogauge(
        &dir,
        &[
            "iozone",
            "-a",
            "-s",
            "1m",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "1",
            "-f",
            &f,
            "--no-save",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.ends_with("\niozone test complete.\n"), "{out}");
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("1024       4"))
        .unwrap_or_else(|| panic!("no row for 1024 kB, 4 kB records:\n{out}"));
    let figures: Vec<f64> = row.split_whitespace().map(|x| x.parse().unwrap()).collect();
    assert_eq!(figures.len(), 2 + 4, "write, rewrite, read, reread: {row}");
    assert!(figures[2..].iter().all(|&x| x > 0.0), "{row}");
    assert_eq!(dir.left(&[]), Vec::<String>::new());
}

/// `--memory-limit` caps the system file cache; where that cannot be done (no
/// SeIncreaseQuotaPrivilege; under Wine, no file cache to cap) it is refused in one line
/// naming the flag, before any I/O, and no saved limits are left behind.
pub fn a_memory_limit_without_the_means_is_refused() {
    let dir = Dir::new("memlimit");
    let o = iogauge_data(
        &dir,
        &[
            "sweep",
            ".",
            "--file-sizes",
            "64K",
            "--record-sizes",
            "4K",
            "--memory-limit",
            "64M",
            "--no-save",
        ],
    );
    let err = text(&o.stderr);
    if o.status.success() {
        // An administrator on Windows itself: capped, said in the report, and undone.
        assert!(
            text(&o.stdout).contains("system file cache capped"),
            "{err}"
        );
    } else {
        super::refused(
            &o,
            "--memory-limit 64MiB",
            "--memory-limit without the means",
        );
        eprintln!("(--memory-limit here: {})", err.trim_end());
    }
    let saved = dir
        .0
        .join("data")
        .join("iogauge")
        .join("file-cache-limits.txt");
    assert!(!saved.exists(), "the saved limits stayed");
}

/// Limits a run left when it died (its process gone) are restored by the next iogauge, which
/// says so in one line; where the restore fails (no privilege; Wine) the line says that and
/// the file stays for a later run.
pub fn limits_a_dead_run_left_are_restored() {
    let dir = Dir::new("leftcap");
    let folder = dir.0.join("data").join("iogauge");
    std::fs::create_dir_all(&folder).unwrap();
    let saved = folder.join("file-cache-limits.txt");
    // A pid no process has (Windows' are multiples of 4).
    let text_of = "iogauge: the system file cache's limits before a --memory-limit\n\
                   pid 4294967291\nstarted 1\nmin 1048576\nmax 1073741824\nflags 0\n";
    std::fs::write(&saved, text_of).unwrap();
    let o = iogauge_data(&dir, &["results", "list"]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("pid 4294967291"))
        .unwrap_or_else(|| panic!("nothing said of the left limits: {err}"));
    assert!(line.contains("--memory-limit"), "{line}");
    if line.contains("restored the system file cache's limits") {
        assert!(!saved.exists(), "restored, yet the file stayed");
    } else {
        assert!(line.contains("cannot restore"), "{line}");
        assert!(saved.exists(), "not restored, yet the file went");
        eprintln!("(left limits here: {line})");
    }
    // The file cache's limits saved by a running process are not its to restore.
    let mine = text_of.replace("pid 4294967291", &format!("pid {}", std::process::id()));
    let mine = mine.replace("started 1", "started 0");
    std::fs::write(&saved, mine).unwrap();
    let o = iogauge_data(&dir, &["results", "list"]);
    assert!(!text(&o.stderr).contains("pid"), "{}", text(&o.stderr));
    assert!(saved.exists());
}
