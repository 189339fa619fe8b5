//! The checks of tests/windows.rs, on Windows (or Wine) only. Each runs iogauge.exe in a
//! folder of its own and looks at what it printed, what it saved and what it left.

#[path = "counters.rs"]
mod counters;
#[path = "fs.rs"]
mod fs;
#[path = "sweep.rs"]
mod sweep;
#[path = "workload.rs"]
mod workload;

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_iogauge");
/// The results database each check's runs save to (IOGAUGE_DB), and SQLite's companions.
const DB: [&str; 3] = ["results.db", "results.db-wal", "results.db-shm"];

/// A folder of the check's own, removed at the end; where it is not empty then, the check
/// fails (iogauge left something).
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("iogauge-win-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }

    /// What is left in it, but `keep` (files the check made itself).
    fn left(&self, keep: &[&str]) -> Vec<String> {
        std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !keep.contains(&n.as_str()))
            .collect()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn iogauge(dir: &Dir, args: &[&str]) -> Output {
    Command::new(EXE)
        .args(args)
        .current_dir(&dir.0)
        .env("IOGAUGE_DB", dir.path("results.db"))
        .output()
        .expect("iogauge.exe starts")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Exit 0 and its stdout as JSON.
fn json(o: &Output, what: &str) -> Value {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\n{}",
        o.status.code(),
        text(&o.stderr)
    );
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}", text(&o.stdout)))
}

fn num(v: &Value, path: &[&str]) -> f64 {
    let mut at = v;
    for k in path {
        at = &at[*k];
    }
    at.as_f64()
        .unwrap_or_else(|| panic!("{path:?} is not a number: {at}"))
}

/// The first `<TAG>N</TAG>` of DiskSpd's XML (the first thread's first target), 0 if none.
fn count(xml: &str, tag: &str) -> u64 {
    xml.split(&format!("<{tag}>"))
        .nth(1)
        .and_then(|r| r.split('<').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Exit 2 (a usage error) with one line on stderr that contains `want`.
fn refused(o: &Output, want: &str, what: &str) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
    assert!(err.contains(want), "{what}: {err:?} lacks {want:?}");
}

/// Every data engine reads and writes a file iogauge creates, and removes it.
fn each_engine_runs_and_cleans_up() {
    let dir = Dir::new("engines");
    let cases: &[(&str, &[&str])] = &[
        ("iocp", &["-o", "8", "-w", "30"]),
        ("sync", &["-w", "30"]),
        ("null", &[]),
        ("delay", &["--delay", "fixed:20us", "-o", "4"]),
        ("mmap", &["--cache", "buffered", "-w", "30"]),
    ];
    for (engine, extra) in cases {
        let mut args = vec!["run", "t.dat", "-c", "8M", "-d", "1", "--no-save"];
        args.extend(["--engine", engine, "--output", "json"]);
        args.extend_from_slice(extra);
        let v = json(&iogauge(&dir, &args), engine);
        assert_eq!(v["engine"], *engine);
        let ios = num(&v, &["total", "all", "ios"]);
        assert!(ios > 0.0, "{engine}: no I/O counted");
        if extra.contains(&"30") {
            assert!(
                num(&v, &["total", "write", "ios"]) > 0.0,
                "{engine}: no writes"
            );
        }
        assert!(
            dir.left(&[]).is_empty(),
            "{engine} left {:?}",
            dir.left(&[])
        );
    }
}

/// The default engine on Windows is the completion port engine; latency mode times each I/O.
fn default_engine_is_iocp_and_times_latency() {
    let dir = Dir::new("default");
    let o = iogauge(
        &dir,
        &[
            "run",
            "t.dat",
            "-c",
            "8M",
            "-d",
            "1",
            "-o",
            "4",
            "-L",
            "--no-save",
            "--output",
            "json",
        ],
    );
    let v = json(&o, "default engine");
    assert_eq!(v["engine"], "iocp");
    let mean = num(&v, &["total", "read", "latency", "mean_ns"]);
    assert!(mean > 0.0, "a latency of 0 is a bug, not a result");
    assert!(v["system"]["kernel"]
        .as_str()
        .unwrap()
        .starts_with("Windows"));
}

/// The file-operation engines (CreateFileW, GetFileInformationByHandleEx, DeleteFileW) as
/// fio's example jobs run them: create, stat and delete 20 files.
fn file_operations() {
    let dir = Dir::new("fileops");
    let job = "[global]\nnrfiles=20\nfilesize=4k\ndirectory=.\n\
               [create]\nioengine=filecreate\ncreate_on_open=1\nopenfiles=1\n\
               [stat]\nstonewall\nioengine=filestat\n\
               [delete]\nstonewall\nioengine=filedelete\n";
    std::fs::write(dir.path("ops.fio"), job).unwrap();
    let v = json(
        &iogauge(&dir, &["fio", "ops.fio", "--output-format=json"]),
        "file ops",
    );
    let jobs = v["jobs"].as_array().expect("jobs");
    assert_eq!(jobs.len(), 3);
    for j in jobs {
        assert_eq!(
            j["read"]["total_ios"].as_u64(),
            Some(20),
            "{}",
            j["jobname"]
        );
    }
    let left = dir.left(&DB);
    assert_eq!(left, vec!["ops.fio".to_string()]);
}

/// io_uring is Linux's: refused by name, in one line.
fn linux_only_things_are_refused() {
    let dir = Dir::new("refused");
    let o = iogauge(
        &dir,
        &[
            "run",
            "t.dat",
            "-c",
            "8M",
            "--engine",
            "io_uring",
            "--no-save",
        ],
    );
    refused(&o, "Linux", "--engine io_uring");
    // A Linux job file (fio's examples use libaio): refused in the words it was written in.
    std::fs::write(
        dir.path("l.fio"),
        "[j]\nioengine=libaio\nsize=1m\nfilename=f\n",
    )
    .unwrap();
    let o = iogauge(&dir, &["fio", "l.fio"]);
    refused(&o, "'libaio' is not loadable here", "ioengine=libaio");
    std::fs::remove_file(dir.path("l.fio")).unwrap();
    let o = iogauge(&dir, &["mdtest", "-n", "10"]);
    refused(&o, "not yet on windows", "iogauge mdtest");
    let o = iogauge(&dir, &["run", "t.dat", "-c", "8M", "--sqpoll", "--no-save"]);
    assert_eq!(o.status.code(), Some(2), "--sqpoll: {}", text(&o.stderr));
    assert!(dir.left(&[]).is_empty());
}

/// Bad input: one line naming what was typed, exit 2.
fn bad_input() {
    let dir = Dir::new("bad");
    let o = iogauge(&dir, &["run", "t.dat", "-c", "8M", "-b", "3x"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("3x"));
    let o = iogauge(&dir, &["run", "missing.dat"]);
    refused(&o, "missing.dat", "a target that does not exist");
    let o = iogauge(&dir, &["diskspd", "-b4K", "-r", "-s", "t.dat"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
}

/// A file iogauge did not create is read, never written, unless --allow-overwrite.
fn others_files_are_not_written() {
    let dir = Dir::new("others");
    std::fs::write(dir.path("mine.dat"), vec![7u8; 1 << 20]).unwrap();
    let o = iogauge(
        &dir,
        &["run", "mine.dat", "-w", "50", "-d", "1", "--no-save"],
    );
    refused(&o, "allow-overwrite", "writing a user's file");
    let o = iogauge(&dir, &["run", "mine.dat", "-d", "1", "--no-save"]);
    assert!(o.status.success(), "reading it: {}", text(&o.stderr));
    assert_eq!(
        std::fs::read(dir.path("mine.dat")).unwrap(),
        vec![7u8; 1 << 20]
    );
    assert_eq!(dir.left(&["mine.dat"]), Vec::<String>::new());
}

/// The quick profile, shrunk: its passes run and are saved.
fn quick_profile() {
    let dir = Dir::new("quick");
    let o = iogauge(
        &dir,
        &["quick", ".", "--size", "16M", "-d", "1", "--output", "json"],
    );
    let v = json(&o, "quick");
    let passes = v["passes"].as_array().expect("passes");
    assert!(passes.len() >= 3, "{} passes", passes.len());
    let o = iogauge(&dir, &["results", "list"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("quick"), "{}", text(&o.stdout));
    let left = dir.left(&DB);
    assert_eq!(left, Vec::<String>::new());
}

/// Seed 001's DiskSpd lines (Windows Server 2025), shrunk: 8 threads at QD8 and QD1 latency.
fn seed_001_diskspd() {
    let dir = Dir::new("seed001");
    for line in [
        "-t8 -o8 -b4k -r -w0 -Suw -d1 -W0 -c16M t.dat",
        "-t1 -o1 -b4k -r -w0 -Suw -L -d1 -W0 -c16M t.dat",
    ] {
        let mut args = vec!["diskspd", "-Rxml"];
        args.extend(line.split(' '));
        let o = iogauge(&dir, &args);
        assert!(o.status.success(), "{line}: {}", text(&o.stderr));
        let xml = text(&o.stdout);
        for tag in [
            "<Results>",
            "<System>",
            "<ProcessorTopology",
            "<Profile>",
            "<TimeSpan>",
        ] {
            assert!(xml.contains(tag), "{line}: no {tag}");
        }
        assert!(count(&xml, "ReadCount") > 0, "{line}: no reads counted");
        if line.contains("-L") {
            assert!(
                xml.contains("<Latency ") && xml.contains("<AverageReadLatencyMilliseconds>"),
                "{line}: -L gives latency buckets"
            );
        }
        let left = dir.left(&DB);
        assert!(left.is_empty(), "{line} left {left:?}");
    }
}

/// Seed 000's lines (FSx over SMB), shrunk. On a local file -Sr (the SMB client's local
/// cache off) is refused as DiskSpd refuses it, with the reason; the same line with -Su runs.
/// The seed's read line has -s1M with -r100, which DiskSpd refuses: so does iogauge.
fn seed_000_diskspd() {
    let dir = Dir::new("seed000");
    let run = |cache: &str| {
        let line = format!("-d1 -s1M -w100 -t1 -o32 -b1M {cache} -L -c64M t.dat");
        let mut args = vec!["diskspd".to_string(), "-Rxml".to_string()];
        args.extend(line.split(' ').map(String::from));
        (
            line,
            iogauge(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>()),
        )
    };
    let (line, o) = run("-Sr");
    refused(&o, "only a remote file", &line);
    let (line, o) = run("-Su");
    assert!(o.status.success(), "{line}: {}", text(&o.stderr));
    let xml = text(&o.stdout);
    assert!(count(&xml, "WriteCount") > 0, "{line}: no writes counted");
    let left = dir.left(&DB);
    assert!(left.is_empty(), "{line} left {left:?}");
    let read = [
        "diskspd", "-d1", "-s1M", "-r100", "-t1", "-o32", "-b1M", "-Sr", "-L", "t.dat",
    ];
    refused(
        &iogauge(&dir, &read),
        "conflicts with random IO",
        "seed 000's read line",
    );
}

/// `iogauge fio` with fio's Windows engine (windowsaio) runs on completion ports; its JSON is
/// fio's.
fn fio_windowsaio() {
    let dir = Dir::new("fio");
    let o = iogauge(
        &dir,
        &[
            "fio",
            "--name=w",
            "--filename=f.dat",
            "--size=8M",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=windowsaio",
            "--iodepth=8",
            "--runtime=1",
            "--time_based",
            "--output-format=json",
        ],
    );
    let v = json(&o, "fio windowsaio");
    let bytes = v["jobs"][0]["read"]["io_bytes"].as_u64().unwrap_or(0);
    assert!(bytes > 0, "no bytes read: {}", v["jobs"][0]["read"]);
    assert!(dir.left(&DB).is_empty(), "{:?}", dir.left(&DB));
}

/// A folder deeper than MAX_PATH (260 characters): created, measured, removed.
fn long_paths() {
    let dir = Dir::new("long");
    let mut deep = dir.0.clone();
    for i in 0..12 {
        deep.push(format!("a-folder-with-a-long-name-{i:02}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    let file = deep.join("t.dat");
    assert!(file.to_string_lossy().len() > 300);
    let f = file.to_string_lossy().into_owned();
    let o = iogauge(
        &dir,
        &["run", &f, "-c", "8M", "-d", "1", "--no-save", "-w", "20"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!file.exists(), "the long-named file was not removed");
}

/// Results saved in the store read back as JSON, the same run.
fn the_store_reads_back() {
    let dir = Dir::new("store");
    let o = iogauge(
        &dir,
        &["run", "t.dat", "-c", "8M", "-d", "1", "--tag", "wine"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = iogauge(&dir, &["results", "export", "1"]);
    let v = json(&o, "export");
    assert_eq!(v["engine"], "iocp");
    assert!(num(&v, &["total", "all", "ios"]) > 0.0);
}

pub fn main() {
    let checks: &[(&str, fn())] = &[
        (
            "each_engine_runs_and_cleans_up",
            each_engine_runs_and_cleans_up,
        ),
        (
            "default_engine_is_iocp_and_times_latency",
            default_engine_is_iocp_and_times_latency,
        ),
        ("file_operations", file_operations),
        (
            "linux_only_things_are_refused",
            linux_only_things_are_refused,
        ),
        ("bad_input", bad_input),
        ("others_files_are_not_written", others_files_are_not_written),
        ("quick_profile", quick_profile),
        ("seed_001_diskspd", seed_001_diskspd),
        ("seed_000_diskspd", seed_000_diskspd),
        ("fio_windowsaio", fio_windowsaio),
        ("long_paths", long_paths),
        ("the_store_reads_back", the_store_reads_back),
        ("fs_suite_runs_every_test", fs::fs_suite_runs_every_test),
        (
            "fs_text_report_and_bad_input",
            fs::fs_text_report_and_bad_input,
        ),
        (
            "counters_run_is_sampled_and_judged",
            counters::run_is_sampled_and_judged,
        ),
        (
            "counters_text_report_says_the_limit",
            counters::text_report_says_the_limit,
        ),
        ("counters_mpi_is_refused", counters::mpi_is_refused),
        ("workload_copies", workload::copies),
        ("workload_archives_and_walks", workload::archives_and_walks),
        (
            "workload_linux_methods_are_refused",
            workload::linux_methods_are_refused,
        ),
        (
            "dataset_create_and_verify",
            workload::dataset_create_and_verify,
        ),
        ("sweep_small_files", sweep::a_small_sweep_reads_back),
        ("sweep_iozone_line", sweep::an_iozone_line_runs),
        (
            "sweep_memory_limit_refused",
            sweep::a_memory_limit_without_the_means_is_refused,
        ),
        (
            "sweep_left_limits_restored",
            sweep::limits_a_dead_run_left_are_restored,
        ),
    ];
    let filter = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let mut failed = Vec::new();
    for (name, check) in checks {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        match std::panic::catch_unwind(check) {
            Ok(()) => println!("ok {name}"),
            Err(_) => {
                println!("FAILED {name}");
                failed.push(*name);
            }
        }
    }
    if !failed.is_empty() {
        eprintln!(
            "tests/windows.rs: {} failed: {}",
            failed.len(),
            failed.join(", ")
        );
        std::process::exit(1);
    }
}
