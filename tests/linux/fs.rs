//! `iogauge fs` end to end, on real file systems: ext4, xfs and btrfs in loop-mounted image
//! files, tmpfs, ramfs (no O_DIRECT) and a FUSE passthrough (bindfs) over ext4. Tests that
//! need root, loop devices or a tool (mkfs.xfs, mkfs.btrfs, bindfs: scripts/install-test-tools.sh
//! installs them) say SKIPPED with the reason when one is missing; they never pass without
//! having run.

use crate::common;
use common::mounts::*;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// Err(reason): root, a tool or a kernel feature is missing here.
type Checked = Result<String, String>;
type FsTest = (&'static str, fn() -> Checked);

fn fs_cmd(args: &[&str]) -> Output {
    bin().arg("fs").args(args).output().expect("iogauge starts")
}

fn test_of<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no test {name}"))
}

fn fs_index(r: &Value, label: &str) -> usize {
    r["filesystems"]
        .as_array()
        .unwrap()
        .iter()
        .position(|f| f["label"] == label)
        .unwrap_or_else(|| panic!("no file system {label}"))
}

fn min_ns(r: &Value, test: &str, label: &str) -> u64 {
    u(&test_of(r, test)["cells"][fs_index(r, label)]["summary"]["min_ns"])
}

/// Nothing of the suite's is left in `dir`.
fn assert_clean(dir: &Path) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "lost+found")
        .collect();
    assert!(left.is_empty(), "left in {}: {left:?}", dir.display());
}

/// The operations a test does in one repetition, from the parameters.
fn expected_ops(test: &str, files: u64, pages: u64, iterations: u64) -> u64 {
    match test {
        "iter.file_open" | "file_list" | "file_list_single" => files * iterations,
        "fsync" => pages,
        t if t.starts_with("rdwr_") || t.starts_with("mmap_") => pages * iterations,
        _ => files,
    }
}

fn suite_on_real_file_systems() -> Checked {
    need_root()?;
    need_tool("bindfs")?;
    let base = work_dir();
    let b = base.path();
    let (_ext4, ext4) = image_fs(b, "ext4", 256)?;
    let (_xfs, xfs) = image_fs(b, "xfs", 320)?;
    let (_btrfs, btrfs) = image_fs(b, "btrfs", 256)?;
    let (_tmpfs, tmpfs) = memory_fs(b, "tmpfs", "size=256m")?;
    // FUSE: bindfs passing every call through to a folder on the ext4 image.
    let lower = ext4.join("lower");
    std::fs::create_dir(&lower).unwrap();
    let fuse = mount_point(b, "fuse");
    sh("bindfs", &[p(&lower), p(&fuse)]).map_err(|e| format!("cannot mount bindfs: {e}"))?;
    let _fuse = Mounted(fuse.clone());
    let ext4_dir = ext4.join("upper");
    std::fs::create_dir(&ext4_dir).unwrap();

    let (files, iterations, repeat) = (2000u64, 3u64, 3usize);
    let named = |n: &str, d: &Path| format!("{n}={}", d.display());
    let dirs = [
        named("ext4", &ext4_dir),
        named("xfs", &xfs),
        named("btrfs", &btrfs),
        named("tmpfs", &tmpfs),
        named("fuse", &fuse),
    ];
    let mut args: Vec<&str> = dirs.iter().map(String::as_str).collect();
    args.extend(["--files", "2000", "--file-size", "1M", "--iterations", "3"]);
    let o = fs_cmd(&[args.as_slice(), &["--output", "json"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let id = saved_id(&o);
    assert_eq!(r["cache_drop"], "drop_caches", "root drops every cache");
    let types: Vec<&str> = r["filesystems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["facts"]["fs_type"].as_str().unwrap())
        .collect();
    assert_eq!(&types[..4], ["ext4", "xfs", "btrfs", "tmpfs"]);
    assert!(types[4].starts_with("fuse"), "{types:?}");
    let pages = (1 << 20) / u(&r["params"]["page_size"]);
    assert_eq!(r["tests"].as_array().unwrap().len(), 18);
    let mut supported = 0;
    for t in r["tests"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        for (i, c) in t["cells"].as_array().unwrap().iter().enumerate() {
            let fs = &r["filesystems"][i]["label"];
            if c["status"] == "not_supported" {
                // Only O_DIRECT can be missing, and only where the probe said so.
                assert!(name.starts_with("rdwr_nc_"), "{name} on {fs}: {c}");
                assert!(!r["filesystems"][i]["direct_io_refused"].is_null());
                continue;
            }
            supported += 1;
            assert_eq!(c["status"], "ok", "{name} on {fs}: {c}");
            assert_eq!(
                u(&c["ops"]),
                expected_ops(name, files, pages, iterations),
                "{name}"
            );
            let times = c["elapsed_ns"].as_array().unwrap();
            assert_eq!(times.len(), repeat, "{name} on {fs}");
            assert!(times.iter().all(|v| u(v) > 0));
            let s = &c["summary"];
            let min = times.iter().map(u).min().unwrap();
            assert_eq!(
                u(&s["min_ns"]),
                min,
                "the headline is the fastest repetition"
            );
            let ref_min = u(&t["cells"][0]["summary"]["min_ns"]);
            assert!((f(&s["ratio"]) - min as f64 / ref_min as f64).abs() < 1e-9);
        }
    }
    // ext4, xfs and btrfs on a loop device over the work disk all do O_DIRECT.
    for fs in ["ext4", "xfs", "btrfs"] {
        let i = fs_index(&r, fs);
        assert!(r["filesystems"][i]["direct_io_refused"].is_null(), "{fs}");
    }
    // Sanity of what was measured: memory beats a journal at creating files, and a round
    // trip to a user-space daemon costs more than ext4's own cached open.
    let (tc, ec) = (
        min_ns(&r, "file_create", "tmpfs"),
        min_ns(&r, "file_create", "ext4"),
    );
    assert!(tc < ec, "file_create: tmpfs {tc} ns, ext4 {ec} ns");
    let (fo, eo) = (
        min_ns(&r, "iter.file_open", "fuse"),
        min_ns(&r, "iter.file_open", "ext4"),
    );
    assert!(fo > eo, "iter.file_open: fuse {fo} ns, ext4 {eo} ns");
    for d in [&ext4_dir, &xfs, &btrfs, &tmpfs, &fuse] {
        assert_clean(d);
    }
    // Saved: every repetition is in the store, and the CSV export has each one.
    let csv = bin()
        .args(["results", "show", &id.to_string(), "--output", "csv"])
        .output()
        .unwrap();
    assert!(csv.status.success(), "{}", stderr(&csv));
    let rows = String::from_utf8_lossy(&csv.stdout).lines().count() - 1;
    assert_eq!(rows, supported * repeat);
    Ok(format!(
        "file_create tmpfs/ext4 {:.2}, iter.file_open fuse/ext4 {:.2}",
        tc as f64 / ec as f64,
        fo as f64 / eo as f64
    ))
}

fn ramfs_without_o_direct_reports_nc_tests_not_supported() -> Checked {
    need_root()?;
    let base = work_dir();
    let (_m, ramfs) = memory_fs(base.path(), "ramfs", "size=64m")?;
    let o = fs_cmd(&[
        p(&ramfs),
        "--tests",
        "page_io",
        "--file-size",
        "64K",
        "--repeat",
        "1",
        "--no-save",
    ]);
    assert!(
        o.status.success(),
        "not supported is no failure: {}",
        stderr(&o)
    );
    let text = String::from_utf8_lossy(&o.stdout);
    for test in ["rdwr_nc_read_page", "rdwr_nc_write_page"] {
        let line = text.lines().find(|l| l.starts_with(test)).unwrap();
        assert!(line.contains("not supported"), "{line}");
    }
    assert!(
        text.contains("O_DIRECT refused: Invalid argument"),
        "{text}"
    );
    let cc = text
        .lines()
        .find(|l| l.starts_with("rdwr_cc_read_page"))
        .unwrap();
    assert!(cc.contains(" ms") || cc.contains(" us"), "{cc}");
    assert_clean(&ramfs);
    Ok(String::new())
}

fn bad_folders_and_flags_get_one_line_each() -> Checked {
    let d = work_dir();
    let good = p(d.path()).to_string();
    let file = d.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let missing = format!("{good}/no-such-folder");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![missing.clone()], "no-such-folder"),
        (vec![p(&file).to_string()], "is not a folder"),
        (vec![good.clone(), good.clone()], "is given twice"),
        (
            vec![good.clone(), "--reference".into(), "nfs".into()],
            "--reference 'nfs' is none of the folders",
        ),
        (
            vec![good.clone(), "--tests".into(), "file_creat".into()],
            "unknown test 'file_creat'",
        ),
        (vec![good.clone(), "--files".into(), "0".into()], "--files"),
        (
            vec![good.clone(), "--file-size".into(), "1000".into()],
            "whole number of pages",
        ),
        (
            vec![good.clone(), "--repeat".into(), "0".into()],
            "--repeat",
        ),
        (
            vec![good.clone(), "--threads".into(), "0".into()],
            "--threads",
        ),
        (vec![], "[NAME=]DIR"),
    ];
    for (args, culprit) in &cases {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = fs_cmd(&a);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{a:?}: {e}");
        assert!(e.contains(culprit), "{a:?}: {e}");
    }
    std::fs::remove_file(&file).unwrap();
    assert_clean(d.path());
    // A read-only file system: root is not stopped by permissions, so mount one.
    if !is_root() {
        return Err("the read-only case needs root to mount".into());
    }
    let base = work_dir();
    let (_m, ro) = memory_fs(base.path(), "tmpfs", "size=1m,ro")?;
    let o = fs_cmd(&[p(&ro), "--no-save"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("cannot write in folder") && e.contains(p(&ro)) && e.contains("Read-only"),
        "{e}"
    );
    // Every folder is claimed before anything runs: the good one is left as it was.
    let o = fs_cmd(&[&good, p(&ro), "--no-save"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_clean(d.path());
    Ok(format!("{} bad inputs and a read-only mount", cases.len()))
}

fn small_suite_reports_saves_and_cleans_up() -> Checked {
    let d = work_dir();
    let o = fs_cmd(&[
        &format!("disk={}", p(d.path())),
        "--files",
        "300",
        "--file-size",
        "256K",
        "--iterations",
        "2",
        "--repeat",
        "2",
        "--threads",
        "2",
        "--tag",
        "fs-small",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let id = saved_id(&o);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.starts_with("iogauge fs: 1 file system, 300 files, 256KiB data file, 2 iterations, 2 threads, 2 repetitions"), "{text}");
    for t in [
        "file_create",
        "iter.file_open",
        "file_list_single",
        "dir_delete",
        "rdwr_nc_write_page",
        "mmap_read",
        "fsync",
    ] {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("{t} ")))
            .unwrap_or_else(|| panic!("no row {t} in {text}"));
        assert!(row.contains("1.00"), "{row}");
    }
    assert!(text.contains("Median of 2") && text.contains("Operations per second"));
    assert_clean(d.path());
    // The saved result reads back as the same report, lists as kind fs, and is refused by
    // compare and check with a pointer to what does take it.
    let show = bin()
        .args(["results", "show", &id.to_string()])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(
        shown.contains(&text[..text.find("Notes:").unwrap()]),
        "{shown}"
    );
    let list = bin()
        .args(["results", "list", "--tag", "fs-small", "--output", "json"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(rows[0]["id"].as_i64(), Some(id));
    assert_eq!(rows[0]["kind"], "fs");
    // Exported JSON imports back as the same result (here or on another machine).
    let json = d.path().join("fs.json");
    let json_saved = d.path().join("kept.json");
    let o = bin()
        .args(["results", "export", &id.to_string()])
        .output()
        .unwrap();
    std::fs::write(&json, &o.stdout).unwrap();
    let o = bin()
        .args(["results", "import", p(&json)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let again = out.trim().rsplit(' ').next().unwrap().to_string();
    let o = bin().args(["results", "export", &again]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        std::fs::read_to_string(&json).unwrap(),
        "{out}"
    );
    std::fs::rename(&json, &json_saved).unwrap();
    // compare: the same result against its imported copy is 1.00 everywhere, within noise.
    let o = bin()
        .args(["compare", &id.to_string(), &again, "--output", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(c["columns"][1], format!("#{again} disk"));
    assert_eq!(c["rows"].as_array().unwrap().len(), 18);
    for row in c["rows"].as_array().unwrap() {
        for cell in row["cells"].as_array().unwrap() {
            assert_eq!(f(&cell["ratio"]), 1.0, "{row}");
            assert_eq!(cell["beyond_noise"], false, "{row}");
        }
    }
    let o = bin()
        .args(["compare", &id.to_string(), &again])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("file_create") && text.contains("beyond noise"),
        "{text}"
    );
    // A suite result is not compared with a run, nor checked as a baseline.
    let d2 = work_dir();
    let o = bin()
        .args([
            "run", "-c", "1M", "-d", "0.2", "-W", "0", "--engine", "delay",
        ])
        .args(["--delay", "fixed:10us", p(&d2.path().join("r.dat"))])
        .output()
        .unwrap();
    let run_id = saved_id(&o).to_string();
    let o = bin()
        .args(["compare", &id.to_string(), &run_id])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("run {run_id} is not a file-system suite result")));
    let name = format!("fs-small-{id}");
    let o = bin()
        .args(["baseline", "save", &name, &id.to_string()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bin().args(["check", "--baseline", &name]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("file-system suite result"),
        "{}",
        stderr(&o)
    );
    let o = bin().args(["baseline", "delete", &name]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // The CSV output has one row per repetition, the JSON every repetition's time.
    let o = fs_cmd(&[
        p(d.path()),
        "--tests",
        "file_stat,fsync",
        "--files",
        "100",
        "--file-size",
        "64K",
        "--output",
        "csv",
        "--no-save",
    ]);
    let csv = String::from_utf8_lossy(&o.stdout);
    assert_eq!(csv.lines().count(), 1 + 2 * 3, "{csv}");
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("file_stat,metadata,"),
        "{csv}"
    );
    // The JSON is what schema/fs-result.schema.json says, and its figures follow from the
    // repetitions it lists.
    let json = std::fs::read_to_string(&json_saved).unwrap();
    let doc: Value = serde_json::from_str(&json).unwrap();
    let schema: Value =
        serde_json::from_str(include_str!("../../schema/fs-result.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    for t in doc["tests"].as_array().unwrap() {
        let c = &t["cells"][0];
        let times: Vec<u64> = c["elapsed_ns"].as_array().unwrap().iter().map(u).collect();
        let (lo, hi) = (*times.iter().min().unwrap(), *times.iter().max().unwrap());
        assert_eq!(u(&c["summary"]["min_ns"]), lo);
        assert_eq!(u(&c["summary"]["max_ns"]), hi);
        let rate = u(&c["ops"]) as f64 * 1e9 / lo as f64;
        assert!((f(&c["summary"]["ops_per_s"]) - rate).abs() < 1e-6 * rate);
    }
    Ok(String::new())
}

fn ctrl_c_keeps_partial_results_and_removes_the_files() -> Checked {
    let d = work_dir();
    let child = bin()
        .args([
            "fs",
            p(d.path()),
            "--tests",
            "file_stat,file_delete",
            "--files",
            "100000",
        ])
        .args(["--repeat", "50", "--no-drop-caches"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the suite is at work (its folder exists), then a little more.
    let start = std::time::Instant::now();
    while std::fs::read_dir(d.path()).unwrap().count() == 0 {
        assert!(start.elapsed().as_secs() < 30, "the suite never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(text.contains("[PARTIAL: interrupted]"), "{text}");
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
    assert_clean(d.path());
    Ok(String::new())
}

fn without_root_caches_are_dropped_with_fadvise() -> Checked {
    need_root()?;
    need_tool("setpriv")?;
    let d = work_dir();
    // nobody must reach the folder and the binary.
    sh("chmod", &["777", p(d.path())])?;
    let o = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_iogauge"))
        .args([
            "fs",
            p(d.path()),
            "--tests",
            "file_create,rdwr_cc_read_page",
        ])
        .args(["--files", "100", "--file-size", "64K", "--repeat", "1"])
        .args(["--output", "json", "--no-save"])
        .output()
        .unwrap();
    if !o.status.success() && stderr(&o).contains("Permission denied") {
        return Err(format!("nobody cannot run the binary here: {}", stderr(&o)));
    }
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["cache_drop"], "fadvise");
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("posix_fadvise(DONTNEED)") && notes.contains("not root"),
        "{notes}"
    );
    assert_eq!(test_of(&r, "rdwr_cc_read_page")["cells"][0]["status"], "ok");
    assert_clean(d.path());
    Ok(String::new())
}

/// VmHWM of a live process, in kB: the peak resident memory of its own address space (unlike
/// wait4's ru_maxrss, which also carries the forking parent's peak across exec).
fn vm_hwm_kb(pid: i32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The whole suite over a million files; its peak memory is read from the kernel while it runs.
fn a_million_files_in_under_200_mb() -> Checked {
    need_root()?;
    let base = work_dir();
    let (_m, tmpfs) = memory_fs(base.path(), "tmpfs", "size=2g,nr_inodes=3000000")?;
    let started = std::time::Instant::now();
    let mut child = bin()
        .args([
            "fs",
            p(&tmpfs),
            "--files",
            "1000000",
            "--iterations",
            "1",
            "--repeat",
            "1",
        ])
        .args(["--file-size", "4M", "--output", "json", "--no-save", "-q"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        use std::io::Read;
        let mut stdout = stdout;
        stdout.read_to_string(&mut out).unwrap();
        out
    });
    // The high-water mark only rises: the last reading before the process ends is its peak
    // (short of the last 50 ms, which are its exit).
    let mut peak_kb = 0;
    while let Ok(None) = child.try_wait() {
        if let Some(kb) = vm_hwm_kb(pid) {
            peak_kb = peak_kb.max(kb);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    let out = reader.join().unwrap();
    assert!(status.success(), "{status}");
    let r: Value = serde_json::from_str(&out).unwrap();
    for t in r["tests"].as_array().unwrap() {
        assert_eq!(t["cells"][0]["status"], "ok", "{}", t["name"]);
    }
    assert_eq!(u(&test_of(&r, "file_create")["cells"][0]["ops"]), 1_000_000);
    let peak_mb = peak_kb as f64 / 1024.0;
    assert!(peak_kb > 0, "VmHWM never read");
    assert!(peak_mb < 200.0, "peak RSS {peak_mb:.1} MB");
    assert_clean(&tmpfs);
    Ok(format!(
        "peak RSS {peak_mb:.1} MB, {:.0} s",
        started.elapsed().as_secs_f64()
    ))
}

pub fn main() {
    let tests: [FsTest; 7] = [
        (
            "bad_folders_and_flags_get_one_line_each",
            bad_folders_and_flags_get_one_line_each,
        ),
        (
            "small_suite_reports_saves_and_cleans_up",
            small_suite_reports_saves_and_cleans_up,
        ),
        (
            "ctrl_c_keeps_partial_results_and_removes_the_files",
            ctrl_c_keeps_partial_results_and_removes_the_files,
        ),
        (
            "ramfs_without_o_direct_reports_nc_tests_not_supported",
            ramfs_without_o_direct_reports_nc_tests_not_supported,
        ),
        (
            "without_root_caches_are_dropped_with_fadvise",
            without_root_caches_are_dropped_with_fadvise,
        ),
        ("suite_on_real_file_systems", suite_on_real_file_systems),
        (
            "a_million_files_in_under_200_mb",
            a_million_files_in_under_200_mb,
        ),
    ];
    common::harness_skip_or("fs", tests);
}
