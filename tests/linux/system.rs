//! System tests on real kernel objects: loop block devices, small tmpfs and ramfs mounts,
//! device-mapper error targets. They need root; without it, or without the kernel feature,
//! each test is reported as SKIPPED with its reason and counted as skipped, never passed.

use crate::common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Err(reason): root or a kernel feature is missing here.
type Checked = Result<(), String>;
type SystemTest = (&'static str, fn() -> Checked);

/// A mount that is undone when dropped.
struct Mount(PathBuf);
impl Mount {
    fn new(fstype: &str, opts: &str, dir: &Path) -> Result<Self, String> {
        sh("mount", &["-t", fstype, "-o", opts, fstype, p(dir)])
            .map_err(|e| format!("cannot mount {fstype}: {e}"))?;
        Ok(Mount(dir.to_path_buf()))
    }
}
impl Drop for Mount {
    fn drop(&mut self) {
        let _ = sh("umount", &[p(&self.0)]);
    }
}

struct Loop(String);
impl Drop for Loop {
    fn drop(&mut self) {
        let _ = sh("losetup", &["-d", &self.0]);
    }
}

struct DmDevice(String);
impl Drop for DmDevice {
    fn drop(&mut self) {
        let _ = sh("dmsetup", &["remove", &self.0]);
    }
}

fn direct_io_refused_names_the_file_system() -> Checked {
    need_root()?;
    let d = work_dir();
    let _m = Mount::new("ramfs", "size=8m", d.path())?;
    let f = d.path().join("r.dat");
    std::fs::write(&f, vec![3u8; 1 << 20]).unwrap();
    let o = run_l("-Su -d 0.2", &[p(&f)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("O_DIRECT is not supported")
            && err.contains("ramfs")
            && err.contains("--cache buffered"),
        "{err}"
    );
    Ok(())
}

fn enospc_while_creating_removes_the_partial_file() -> Checked {
    need_root()?;
    let d = work_dir();
    let _m = Mount::new("tmpfs", "size=4m", d.path())?;
    let f = d.path().join("big.dat");
    let o = run_l("-c 16M --cache buffered -d 0.2", &[p(&f)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("not enough space") && err.contains("16MiB") && err.contains("free"),
        "{err}"
    );
    assert!(!f.exists(), "the partial file was removed");
    Ok(())
}

fn block_devices_are_only_written_with_allow_overwrite() -> Checked {
    need_root()?;
    let d = work_dir();
    let img = d.path().join("disk.img");
    let content: Vec<u8> = (0..(16u32 << 20))
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    std::fs::write(&img, &content).unwrap();
    let dev =
        sh("losetup", &["-f", "--show", p(&img)]).map_err(|e| format!("no loop device: {e}"))?;
    let _l = Loop(dev.clone());
    let o = run_l("-w 30 -d 0.3", &[&dev]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("refusing to write to block device")
            && err.contains(&dev)
            && err.contains("--allow-overwrite"),
        "{err}"
    );
    // Reading is allowed, direct and buffered, and changes nothing.
    for cache in ["direct", "buffered"] {
        let r = json_l("-d 0.3 -W 0 --cache", &[cache, &dev]);
        assert_eq!(r["targets"][0]["kind"], "block_device");
        assert_eq!(r["targets"][0]["size_bytes"].as_u64(), Some(16 << 20));
        assert!(r["total"]["read"]["ios"].as_u64().unwrap() > 0);
    }
    sh("losetup", &["-d", &dev]).ok();
    assert!(
        std::fs::read(&img).unwrap() == content,
        "reads left the device as it was"
    );
    // With the flag, on a device made for the test, writes happen.
    let dev = sh("losetup", &["-f", "--show", p(&img)])?;
    let _l2 = Loop(dev.clone());
    let r = json_l("-w 100 -d 0.3 -W 0 --allow-overwrite", &[&dev]);
    assert!(r["total"]["write"]["ios"].as_u64().unwrap() > 0);
    Ok(())
}

fn dm_error_device(name: &str, table: &str) -> Result<DmDevice, String> {
    if Command::new("dmsetup").arg("--version").output().is_err() {
        return Err("dmsetup is not installed".into());
    }
    sh("dmsetup", &["create", name, "--table", table])
        .map_err(|e| format!("no device-mapper: {e}"))?;
    Ok(DmDevice(name.to_string()))
}

fn io_errors_stop_the_run_with_partial_results() -> Checked {
    need_root()?;
    let name = format!("iogauge-err-{}", std::process::id());
    // 8 MiB that fail every I/O with EIO.
    let _dm = dm_error_device(&name, "0 16384 error")?;
    let dev = format!("/dev/mapper/{name}");
    let o = bin()
        .args(["run", "-d", "5", "-W", "0", "--output", "json", &dev])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("read error")
            && err.contains(&dev)
            && err.contains("EIO")
            && err.contains("partial"),
        "{err}"
    );
    let r: Value = serde_json::from_slice(&o.stdout).expect("partial results as JSON");
    assert_eq!(r["partial"], true);
    assert_eq!(r["stop_reason"], "io_error");
    assert_eq!(r["errors"][0]["name"], "EIO");
    assert!(r["errors"][0]["count"].as_u64().unwrap() >= 1);
    assert!(
        r["measured_ns"].as_u64().unwrap() < 2_000_000_000,
        "stopped at the error, not after 5 s"
    );
    // Counted and carried on with --continue-on-error.
    let r = json_l("-d 0.5 -W 0 -o 4 --continue-on-error", &[&dev]);
    assert_eq!(r["partial"], false);
    assert_eq!(r["errors"][0]["name"], "EIO");
    assert!(r["errors"][0]["count"].as_u64().unwrap() > 10);
    assert_eq!(
        r["total"]["all"]["ios"].as_u64(),
        Some(0),
        "failed I/Os are not counted as done"
    );
    Ok(())
}

/// Free bytes for an unprivileged writer on the file system holding `dir`.
fn free_bytes(dir: &Path) -> u64 {
    let c = std::ffi::CString::new(p(dir)).unwrap();
    // SAFETY: statvfs fills a struct we own from a valid C string.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut s) }, 0);
    s.f_bavail as u64 * s.f_bsize as u64
}

fn disk_full_while_saving_keeps_the_results() -> Checked {
    need_root()?;
    let d = work_dir();
    let m = d.path().join("dbdir");
    std::fs::create_dir(&m).unwrap();
    let _m = Mount::new("tmpfs", "size=4m", &m)?;
    let db = m.join("results.db");
    let target = d.path().join("f.dat");
    // 400 intervals: the database needs the document and a table of the series, so room
    // for the document alone is too little for SQLite but enough for the JSON fallback.
    let args = [
        "run",
        "-c",
        "4M",
        "-d",
        "4",
        "-W",
        "0",
        "--interval",
        "10",
        "--engine",
        "delay",
        "--delay",
        "fixed:1ms",
        "-o",
        "1",
        p(&target),
    ];
    let o = bin()
        .env("IOGAUGE_DB", &db)
        .args(args)
        .args(["--no-save", "--output", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let size = serde_json::to_string(&v).unwrap().len() as u64;
    let made = bin()
        .env("IOGAUGE_DB", &db)
        .args(["results", "list"])
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", stderr(&made));
    // Held open, so SQLite's shared-memory file exists before the space is measured.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.query_row("PRAGMA journal_mode", [], |_| Ok(()))
        .unwrap();
    let leave = (size + 8192).div_ceil(4096) * 4096;
    let fill = free_bytes(&m).saturating_sub(leave);
    std::fs::write(m.join("filler"), vec![1u8; fill as usize]).unwrap();
    let o = bin().env("IOGAUGE_DB", &db).args(args).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("IOPS"),
        "the report was printed"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("disk is full") && err.contains(p(&db)),
        "{err}"
    );
    let fallback = std::fs::read_dir(&m)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|f| {
            f.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("iogauge-unsaved-")
        })
        .expect("the JSON fallback next to the database");
    assert!(err.contains(p(&fallback)), "{err}");
    // Room again: the fallback imports, and the database is intact.
    std::fs::remove_file(m.join("filler")).unwrap();
    drop(conn);
    let o = bin()
        .env("IOGAUGE_DB", &db)
        .args(["results", "import", p(&fallback)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bin()
        .env("IOGAUGE_DB", &db)
        .args(["results", "list", "--output", "json"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    Ok(())
}

/// A blkio cgroup (v1) that is removed when dropped.
struct Cgroup(PathBuf);
impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// fio's cgroup=: the job's threads run in the named blkio cgroup, so a read limit set on a
/// cgroup made beforehand (as an administrator does) holds the job to it; that cgroup is left
/// as it was. A cgroup the run makes is gone at its end, also when the run is refused
/// (cgroup_weight on a kernel whose blkio has no weight).
fn fio_cgroup_runs_the_job_in_the_named_cgroup() -> Checked {
    need_root()?;
    let blkio = Path::new("/sys/fs/cgroup/blkio");
    if !blkio.join("blkio.throttle.read_iops_device").exists() {
        return Err("no cgroup v1 blkio controller with throttling here".into());
    }
    let d = work_dir();
    let img = d.path().join("cg.img");
    std::fs::write(&img, vec![7u8; 32 << 20]).unwrap();
    let dev =
        sh("losetup", &["-f", "--show", p(&img)]).map_err(|e| format!("no loop device: {e}"))?;
    let _l = Loop(dev.clone());
    let majmin = sh("lsblk", &["-dno", "MAJ:MIN", &dev])?.trim().to_string();
    let name = format!("iogauge-test-cg-{}", std::process::id());
    let cg = Cgroup(blkio.join(&name));
    std::fs::create_dir(&cg.0).map_err(|e| format!("cannot make a blkio cgroup: {e}"))?;
    let limit = 200;
    std::fs::write(
        cg.0.join("blkio.throttle.read_iops_device"),
        format!("{majmin} {limit}"),
    )
    .unwrap();
    let run = |cgroup: &str, extra: &[&str]| {
        bin()
            .args(["fio", "--name=cg", "--rw=randread", "--direct=1", "--bs=4k"])
            .args(["--ioengine=psync", "--runtime=2", "--time_based"])
            .arg(format!("--filename={dev}"))
            .arg(format!("--cgroup={cgroup}"))
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&name, &["--output-format=json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let v: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    let iops = f(&v["jobs"][0]["read"]["iops"]);
    assert!(
        iops > limit as f64 * 0.7 && iops < limit as f64 * 1.15,
        "{iops} IOPS in a cgroup limited to {limit}"
    );
    assert!(cg.0.exists(), "a cgroup that was there is left");
    let tasks = std::fs::read_to_string(cg.0.join("tasks")).unwrap();
    assert!(
        tasks.trim().is_empty(),
        "threads left in the cgroup: {tasks}"
    );
    // Made for the run: said, and gone at its end; and faster than the limit outside it.
    let made = format!("{name}-made");
    let o = run(&made, &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        out.contains("made for the run, removed at its end"),
        "{out}"
    );
    assert!(!blkio.join(&made).exists());
    // A weight: set for the run on the cgroup that was there, then put back; refused in one
    // line where this kernel's blkio has none.
    let weight = ["blkio.weight", "blkio.bfq.weight"]
        .iter()
        .map(|w| cg.0.join(w))
        .find(|w| w.exists());
    let before = weight.as_ref().map(|w| std::fs::read_to_string(w).unwrap());
    let o = run(&name, &["--cgroup_weight=300"]);
    match (&weight, &before) {
        (Some(w), Some(b)) => {
            assert!(o.status.success(), "{}", stderr(&o));
            assert_eq!(
                &std::fs::read_to_string(w).unwrap(),
                b,
                "the weight put back"
            );
        }
        _ => {
            assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
            assert!(stderr(&o).contains("has no weight"), "{}", stderr(&o));
        }
    }
    // A cgroup made for a run that fails after making it (its file cannot be opened) is
    // gone too.
    let o = run(&made, &["--filename=/nonexistent-iogauge/x", "--size=1m"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("nonexistent-iogauge"), "{}", stderr(&o));
    assert!(!blkio.join(&made).exists(), "left after a refusal");
    Ok(())
}

/// A device whose burst ends: reads from a loop device limited to 40 MiB/s by the block
/// cgroup, lowered to 10 MiB/s five seconds in. iogauge finds the two phases and their levels
/// within 10%, and `--until-steady` stops once the lower level has held, long before `-d`.
fn a_throttled_device_burst_and_baseline_are_found() -> Checked {
    need_root()?;
    let blkio = Path::new("/sys/fs/cgroup/blkio");
    if !blkio.join("blkio.throttle.read_bps_device").exists() {
        return Err("no cgroup v1 blkio controller with throttling here".into());
    }
    let d = work_dir();
    let img = d.path().join("slow.img");
    std::fs::File::create(&img)
        .and_then(|f| f.set_len(256 << 20))
        .unwrap();
    let dev =
        sh("losetup", &["-f", "--show", p(&img)]).map_err(|e| format!("no loop device: {e}"))?;
    let _l = Loop(dev.clone());
    let majmin = sh("lsblk", &["-dno", "MAJ:MIN", &dev])?.trim().to_string();
    let cg = Cgroup(blkio.join(format!("iogauge-test-{}", std::process::id())));
    std::fs::create_dir(&cg.0).map_err(|e| format!("cannot make a blkio cgroup: {e}"))?;
    let limit = |bps: u64| {
        std::fs::write(
            cg.0.join("blkio.throttle.read_bps_device"),
            format!("{majmin} {bps}"),
        )
        .unwrap()
    };
    let (high, low) = (40u64 << 20, 10u64 << 20);
    limit(high);
    // The shell joins the cgroup, then becomes iogauge: every I/O of the run is limited.
    let procs = cg.0.join("cgroup.procs");
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("echo $$ > {} && exec \"$0\" \"$@\"", p(&procs)))
        .arg(env!("CARGO_BIN_EXE_iogauge"))
        .args(["run", "--no-save", "--output", "json", "--engine", "sync"])
        .args(["--cache", "direct", "-s", "-b", "1M", "-w", "0", "-W", "0"])
        .args(["--interval", "500", "-d", "30", "--until-steady=3", &dev])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(5));
    limit(low);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let phases = r["phases"].as_array().unwrap();
    let labels: Vec<&str> = phases
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    // The throttle lets the first slices through faster than the limit: when that stretch is
    // long enough to be a phase, the detector rightly names it a peak (it was one), and the
    // burst follows it. The peak must then be short and at the start; the levels below are
    // judged on the burst and the baseline alone.
    let first = match labels[..] {
        ["burst", "baseline"] => 0,
        ["peak", "burst", "baseline"] => {
            let peak_s = u(&phases[1]["start_ns"]) as f64 / 1e9;
            assert!(peak_s <= 2.0, "a leading peak of {peak_s}s: {phases:?}");
            1
        }
        _ => panic!("phases {labels:?}: {phases:?}"),
    };
    let within = |v: f64, want: u64| (v / want as f64 - 1.0).abs() <= 0.10;
    let (b, l) = (
        f(&phases[first]["bytes_per_sec_mean"]),
        f(&phases[first + 1]["bytes_per_sec_mean"]),
    );
    assert!(within(b, high), "burst {b} B/s against a limit of {high}");
    assert!(within(l, low), "baseline {l} B/s against a limit of {low}");
    let change = u(&phases[first + 1]["start_ns"]) as f64 / 1e9;
    assert!(
        (4.0..=7.0).contains(&change),
        "the change found at {change}s"
    );
    let measured = u(&r["measured_ns"]) as f64 / 1e9;
    assert!(measured < 15.0, "--until-steady ran {measured}s of 30");
    let notes = r["notes"].to_string();
    assert!(notes.contains("fell to"), "{notes}");
    Ok(())
}

pub fn main() {
    let tests: [SystemTest; 7] = [
        (
            "fio_cgroup_runs_the_job_in_the_named_cgroup",
            fio_cgroup_runs_the_job_in_the_named_cgroup,
        ),
        (
            "a_throttled_device_burst_and_baseline_are_found",
            a_throttled_device_burst_and_baseline_are_found,
        ),
        (
            "disk_full_while_saving_keeps_the_results",
            disk_full_while_saving_keeps_the_results,
        ),
        (
            "direct_io_refused_names_the_file_system",
            direct_io_refused_names_the_file_system,
        ),
        (
            "enospc_while_creating_removes_the_partial_file",
            enospc_while_creating_removes_the_partial_file,
        ),
        (
            "block_devices_are_only_written_with_allow_overwrite",
            block_devices_are_only_written_with_allow_overwrite,
        ),
        (
            "io_errors_stop_the_run_with_partial_results",
            io_errors_stop_the_run_with_partial_results,
        ),
    ];
    // Each test returns Err(reason) when root or a kernel feature is missing: a skip.
    let tests = tests
        .into_iter()
        .map(|(name, t)| {
            let run: Box<dyn Fn() -> Outcome> = Box::new(move || match t() {
                Ok(()) => Outcome::Pass(String::new()),
                Err(why) => Outcome::Skip(why),
            });
            (name.to_string(), run)
        })
        .collect();
    harness("system", tests);
}
