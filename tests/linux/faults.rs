//! Faults caused for real, each ending in a clear message, the results kept where there are
//! any, and nothing of the user's touched: a target replaced or lazily unmounted during the
//! run, thread and process limits, long waits interrupted, output paths that cannot be
//! written, corrupt and empty results databases. A test that needs root or a kernel feature
//! missing here says SKIPPED with its reason.

use crate::common;
use common::*;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Err(reason): the test cannot run here.
type Checked = Result<(), String>;
type FaultTest = (&'static str, fn() -> Checked);

/// `iogauge run` in the background, with its output kept.
fn spawn_run(line: &str, paths: &[&str]) -> Child {
    bin()
        .arg("run")
        .args(argv(line, paths))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("iogauge starts")
}

/// Wait until `path` holds `size` bytes (iogauge has created it), for at most 20 s, then
/// half a second more: the run has opened it and is measuring.
fn wait_for_file(path: &Path, size: u64) {
    let t0 = Instant::now();
    while std::fs::metadata(path).map_or(0, |m| m.len()) != size {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
}

/// Put the user's own file at `path`, where iogauge's was.
fn replace_with_users(path: &Path) {
    std::fs::remove_file(path).unwrap();
    std::fs::write(path, b"the user's own file").unwrap();
}

/// The run ended well and the user's file is as they wrote it; `said`: iogauge says it left
/// the file in place (it does where its own file is gone, not where it removed its own from
/// a file system no longer mounted there).
fn assert_users_file_kept(path: &Path, child: Child, said: bool) {
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        std::fs::read(path).expect("the user's file is still there"),
        b"the user's own file",
        "{err}"
    );
    let says = err.contains("in place: it is no longer the file iogauge created");
    assert_eq!(says, said, "{err}");
}

/// The file iogauge created was deleted during the run and the user put their own at its
/// path: clean-up must leave the user's file alone.
fn a_replaced_target_is_never_removed() -> Checked {
    let d = work_dir();
    let f = d.path().join("t.dat");
    let child = spawn_run(
        "-c 4M -d 2 -W 0 --cache buffered --engine sync --no-save",
        &[p(&f)],
    );
    wait_for_file(&f, 4 << 20);
    replace_with_users(&f);
    assert_users_file_kept(&f, child, true);
    Ok(())
}

/// The target's file system is lazily unmounted during the run, and a file of the same name
/// appears under the mount point: that file is the user's, and stays.
fn a_lazily_unmounted_target_leaves_the_mount_point_alone() -> Checked {
    need_root()?;
    let d = work_dir();
    let mnt = d.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    sh(
        "mount",
        &["-t", "tmpfs", "-o", "size=32m", "tmpfs", p(&mnt)],
    )?;
    let f = mnt.join("t.dat");
    let child = spawn_run(
        "-c 4M -d 2 -W 0 --cache buffered --engine sync --no-save",
        &[p(&f)],
    );
    wait_for_file(&f, 4 << 20);
    if let Err(e) = sh("umount", &["-l", p(&mnt)]) {
        let _ = child.wait_with_output();
        return Err(e);
    }
    std::fs::write(&f, b"the user's own file").unwrap();
    assert_users_file_kept(&f, child, false);
    Ok(())
}

/// An output file that cannot be written is refused before anything runs, in the words of
/// the tool typed (fio's --output=, iogauge's and DiskSpd front end's --output-file), and
/// nothing is created; a file that could be written but whose run never reported is removed.
fn an_unwritable_output_path_is_refused_before_any_io() -> Checked {
    let d = work_dir();
    let t = d.path().join("t.dat");
    let nowhere = d.path().join("no/such/folder/r.json");
    let (t, nowhere) = (p(&t), p(&nowhere));
    let words = |line: &str, paths: &[&str]| -> Vec<String> {
        argv(line, paths).into_iter().map(String::from).collect()
    };
    let (file, output) = (format!("--filename={t}"), format!("--output={nowhere}"));
    let to = format!("--output-file={nowhere}");
    let cases = [
        (
            words(
                "run -c 1M -d 0.2 -W 0 --no-save --output-file",
                &[nowhere, t],
            ),
            "--output-file",
        ),
        (
            words(
                "run -c 1M -d 0.2 -W 0 --no-save --output-file",
                &[p(d.path()), t],
            ),
            "--output-file",
        ),
        (
            words(
                "fio --name=j --size=1m --runtime=200ms --no-save",
                &[&file, &output],
            ),
            "--output",
        ),
        (
            words("diskspd -c1M -d1 --no-save", &[&to, t]),
            "--output-file",
        ),
        (
            words(
                "quick --size 1M -d 0.2 --no-save --output-file",
                &[nowhere, p(d.path())],
            ),
            "--output-file",
        ),
    ];
    for (args, flag) in cases {
        let o = bin().args(&args).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("iogauge: error: {flag} ")),
            "{args:?}: {err}"
        );
        let errors = err.lines().filter(|l| l.contains("error")).count();
        assert_eq!(errors, 1, "{args:?}: {err}");
        let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
    Ok(())
}

/// A quick run on the null engine saving into `db`.
fn save_run(db: &Path, target: &Path) -> std::process::Output {
    db_cmd(
        db,
        &[
            "run",
            "-c",
            "1M",
            "-d",
            "0.1",
            "-W",
            "0",
            "--engine",
            "null",
            "-q",
            p(target),
        ],
    )
}

/// A database whose pages fail SQLite's integrity check, though its header and the table
/// `results list` reads are intact, and an empty file, are refused before any I/O, exit 2,
/// and left byte for byte as they were.
fn corrupt_and_empty_databases_are_refused_untouched() -> Checked {
    let d = work_dir();
    let target = d.path().join("t.dat");
    let bad = d.path().join("bad.db");
    for _ in 0..3 {
        let o = save_run(&bad, &target);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    // Fold the WAL into the file, then break its last page only.
    let o = db_cmd(&bad, &["results", "list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut bytes = std::fs::read(&bad).unwrap();
    let len = bytes.len();
    for (i, b) in bytes[len - 4096..].iter_mut().enumerate() {
        *b = (i * 13 % 251) as u8;
    }
    std::fs::write(&bad, &bytes).unwrap();
    let empty = d.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    for (db, says) in [(&bad, "is corrupt"), (&empty, "is an empty file")] {
        let before = std::fs::read(db).unwrap();
        let never = d.path().join("never.dat");
        let o = save_run(db, &never);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(says) && err.contains(p(db)), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!never.exists(), "no I/O before the database is known good");
        assert_eq!(
            std::fs::read(db).unwrap(),
            before,
            "{} changed",
            db.display()
        );
    }
    Ok(())
}

/// Processes that create the same new database at once all save: none sees a half-made file.
fn a_new_database_made_by_several_processes_at_once() -> Checked {
    let d = work_dir();
    let db = d.path().join("new.db");
    let children: Vec<_> = (0..4)
        .map(|i| {
            let t = d.path().join(format!("t{i}.dat"));
            bin()
                .env("IOGAUGE_DB", &db)
                .args([
                    "run", "-c", "1M", "-d", "0.1", "-W", "0", "--engine", "null", "-q",
                ])
                .arg(&t)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = db_cmd(&db, &["results", "list", "--output", "json", "--all"]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows.as_array().map(Vec::len), Some(4), "{rows}");
    let stray: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    Ok(())
}

/// Wait for `child` at most `secs`; a child still running then is killed and reported.
fn wait_within(mut child: Child, secs: u64) -> Result<std::process::Output, String> {
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            return Err(format!("still running after {secs} s: {}", stderr(&o)));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(child.wait_with_output().unwrap())
}

/// A pids cgroup allowing `tasks` tasks (threads count), removed when dropped.
struct PidsLimit(std::path::PathBuf);
impl PidsLimit {
    fn new(tasks: u32) -> Result<PidsLimit, String> {
        need_root()?;
        let root = Path::new("/sys/fs/cgroup/pids");
        if !root.join("cgroup.procs").exists() {
            return Err("no pids cgroup controller mounted (cgroup v1) here".into());
        }
        let dir = root.join(format!("iogauge-test-{}-{tasks}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("cannot make a pids cgroup: {e}"))?;
        std::fs::write(dir.join("pids.max"), tasks.to_string())
            .map_err(|e| format!("cannot set pids.max: {e}"))?;
        Ok(PidsLimit(dir))
    }

    /// iogauge with `args`, started inside the cgroup.
    fn spawn(&self, args: &[&str], dir: &Path) -> Child {
        let procs = self.0.join("cgroup.procs");
        Command::new("sh")
            .arg("-c")
            .arg(format!("echo $$ > {} && exec \"$@\"", procs.display()))
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_iogauge"))
            .args(args)
            .current_dir(dir)
            .env("IOGAUGE_DB", test_db())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }
}
impl Drop for PidsLimit {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// A thread the system will not start ends the run within seconds, with one line naming the
/// limit, and removes what was created: for runs, profiles, DiskSpd lines, fio jobs and the
/// fs suite alike.
fn a_thread_that_cannot_start_ends_the_run_cleanly() -> Checked {
    // Sixteen jobs of one group: a thread each, before any worker.
    let jobs = work_dir();
    let job_file = jobs.path().join("many.fio");
    let mut text = String::from("[global]\nfilename=t.dat\nsize=1m\nruntime=1s\ntime_based\n");
    for j in 0..16 {
        text.push_str(&format!("[j{j}]\n"));
    }
    std::fs::write(&job_file, text).unwrap();
    let cases: [(&[&str], u32); 6] = [
        (&["fio", p(&job_file)], 8),
        (
            &[
                "run", "--engine", "null", "-t", "64", "-d", "0.5", "-c", "1M", "t.dat",
            ],
            20,
        ),
        (&["quick", ".", "--size", "1M", "-d", "0.3", "-q"], 3),
        (&["diskspd", "-t16", "-d1", "-c1M", "t.dat"], 8),
        (
            &[
                "fio",
                "--name=j",
                "--filename=t.dat",
                "--size=1m",
                "--numjobs=16",
                "--runtime=1s",
            ],
            8,
        ),
        (
            &[
                "fs",
                ".",
                "--threads",
                "16",
                "--files",
                "64",
                "--tests",
                "file_create",
                "-q",
            ],
            8,
        ),
    ];
    for (args, tasks) in cases {
        let d = work_dir();
        let limit = PidsLimit::new(tasks)?;
        let o = wait_within(limit.spawn(args, d.path()), 30)
            .unwrap_or_else(|e| panic!("{args:?} under pids.max {tasks}: {e}"));
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?}: {err}");
        assert!(
            err.contains("cannot start thread") && err.contains("limit"),
            "{args:?}: {err}"
        );
        let errors = err.lines().filter(|l| l.contains("error")).count();
        assert_eq!(errors, 1, "{args:?}: {err}");
        let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
    Ok(())
}

/// Ctrl-C during a long wait (a 30 s injected delay, a 20 s think time all spun) ends the run
/// within a second or two: exit 130, partial results, the file removed.
fn long_waits_give_way_to_ctrl_c() -> Checked {
    let lines = [
        "-c 1M -d 60 -W 0 --cache buffered --engine delay --delay fixed:30s -o 4 --no-save",
        "-c 1M -d 60 -W 0 --cache buffered --engine sync --think 20s --think-spin 20s --no-save",
        "-c 1M -d 60 -W 30 --cache buffered --engine delay --delay fixed:30s --no-save",
    ];
    for line in lines {
        let d = work_dir();
        let f = d.path().join("t.dat");
        let child = spawn_run(line, &[p(&f)]);
        wait_for_file(&f, 1 << 20);
        let t0 = Instant::now();
        // SAFETY: kill with a valid pid and signal number.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let o = wait_within(child, 10).unwrap_or_else(|e| panic!("{line}: {e}"));
        let took = t0.elapsed();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(130), "{line}: {err}");
        assert!(
            took < Duration::from_secs(3),
            "{line}: took {took:?} to stop"
        );
        assert!(!f.exists(), "{line}: the file is left");
    }
    Ok(())
}

/// ramfs reports no capacity at all: a file made there is not refused as if the file system
/// were full.
fn ramfs_is_not_full() -> Checked {
    need_root()?;
    let d = work_dir();
    sh("mount", &["-t", "ramfs", "ramfs", p(d.path())])?;
    let f = d.path().join("t.dat");
    let o = run_l(
        "-c 16M -d 0.2 -W 0 --cache buffered --engine sync --no-save",
        &[p(&f)],
    );
    let _ = sh("umount", &[p(d.path())]);
    assert!(o.status.success(), "{}", stderr(&o));
    Ok(())
}

pub fn main() {
    let tests: Vec<FaultTest> = vec![
        (
            "a_replaced_target_is_never_removed",
            a_replaced_target_is_never_removed,
        ),
        (
            "a_lazily_unmounted_target_leaves_the_mount_point_alone",
            a_lazily_unmounted_target_leaves_the_mount_point_alone,
        ),
        (
            "an_unwritable_output_path_is_refused_before_any_io",
            an_unwritable_output_path_is_refused_before_any_io,
        ),
        (
            "corrupt_and_empty_databases_are_refused_untouched",
            corrupt_and_empty_databases_are_refused_untouched,
        ),
        (
            "a_new_database_made_by_several_processes_at_once",
            a_new_database_made_by_several_processes_at_once,
        ),
        (
            "a_thread_that_cannot_start_ends_the_run_cleanly",
            a_thread_that_cannot_start_ends_the_run_cleanly,
        ),
        (
            "long_waits_give_way_to_ctrl_c",
            long_waits_give_way_to_ctrl_c,
        ),
        ("ramfs_is_not_full", ramfs_is_not_full),
    ];
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
    harness("faults", tests);
}
