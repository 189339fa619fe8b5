//! Helpers shared by the end-to-end tests: run the real binary on real files.
//! The helpers for root, resource limits, process groups and mounts are Unix's or Linux's:
//! only the Linux-only tests use them.
#![allow(dead_code)]

#[cfg(target_os = "linux")]
pub mod mounts;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, saving into one results database shared by all tests (never the user's own):
/// many test processes saving at once is itself a test of the store's locking.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_iogauge"));
    c.env("IOGAUGE_DB", test_db());
    c
}

pub fn test_db() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("test-results.db")
}

/// A temporary folder on the work disk (the target folder), where O_DIRECT works;
/// /tmp may be tmpfs on some machines.
pub fn work_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("iogauge-test-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

pub fn run(args: &[&str]) -> Output {
    bin()
        .arg("run")
        .args(args)
        .output()
        .expect("iogauge starts")
}

/// Run and parse the JSON report; panics with stderr when the run fails.
pub fn run_json(args: &[&str]) -> Value {
    let out = bin()
        .arg("run")
        .args(args)
        .args(["--output", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "iogauge run {args:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

pub fn file_in(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[cfg(unix)]
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Err(the reason a test is skipped) where not root: mounts, devices, cgroups.
#[cfg(unix)]
pub fn need_root() -> Result<(), String> {
    if is_root() {
        Ok(())
    } else {
        Err("needs root".into())
    }
}

/// Err(the reason) where `tool` is not on PATH.
pub fn need_tool(tool: &str) -> Result<(), String> {
    sh("sh", &["-c", &format!("command -v {tool}")])
        .map(drop)
        .map_err(|_| format!("{tool} is not installed (scripts/install-test-tools.sh installs it)"))
}

/// Err(the reason) where fio does not run here: the tests comparing with fio are skipped.
pub fn have_fio() -> Result<(), String> {
    sh("fio", &["--version"])
        .map(drop)
        .map_err(|_| "fio is not installed (scripts/install-test-tools.sh installs it)".into())
}

pub fn u(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not an unsigned integer: {v}"))
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A command line written as one string, then the paths (which may hold spaces).
pub fn argv<'a>(line: &'a str, paths: &[&'a str]) -> Vec<&'a str> {
    line.split_whitespace()
        .chain(paths.iter().copied())
        .collect()
}

/// `run` with the flags as one string.
pub fn run_l(line: &str, paths: &[&str]) -> Output {
    run(&argv(line, paths))
}

/// `run_json` with the flags as one string.
pub fn json_l(line: &str, paths: &[&str]) -> Value {
    run_json(&argv(line, paths))
}

/// The value (ns) at percentile `p` of a latency summary in the JSON result.
pub fn percentile(l: &Value, p: f64) -> f64 {
    let found = l["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| f(&x["percentile"]) == p);
    f(&found.unwrap_or_else(|| panic!("no p{p} in {l}"))["ns"])
}

/// How one test of a custom-harness binary (`harness = false`) ended. A test that cannot run
/// here, or whose result cannot be judged here, is a skip, never a pass.
pub enum Outcome {
    Pass(String),
    Fail(String),
    Skip(String),
}

/// Run the named tests (filtered by the command line's words), print one line each and the
/// closing `TITLE: N passed, N failed, N skipped`, and exit 101 if any failed. A panic fails.
pub fn harness(title: &str, tests: Vec<(String, Box<dyn Fn() -> Outcome>)>) {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for (name, test) in &tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(test)) {
            Ok(Outcome::Pass(what)) => {
                let what = if what.is_empty() {
                    String::new()
                } else {
                    format!(" ({what})")
                };
                println!("test {name} ... ok{what}");
                passed += 1;
            }
            Ok(Outcome::Skip(why)) => {
                println!("test {name} ... SKIPPED: {why}");
                skipped += 1;
            }
            Ok(Outcome::Fail(why)) => {
                println!("test {name} ... FAILED: {why}");
                failed += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED (panicked)");
                failed += 1;
            }
        }
    }
    println!("\n{title}: {passed} passed, {failed} failed, {skipped} skipped");
    if failed > 0 {
        std::process::exit(101);
    }
}

/// A test that says what it saw (`Ok`) or why it could not run here (`Err`, a skip); a
/// wrong result panics (a failure).
pub type SkipOr = fn() -> Result<String, String>;

/// [`harness`] over tests of that shape.
pub fn harness_skip_or<'a>(title: &str, tests: impl IntoIterator<Item = (&'a str, SkipOr)>) {
    let tests = tests
        .into_iter()
        .map(|(name, t)| {
            let run: Box<dyn Fn() -> Outcome> = Box::new(move || match t() {
                Ok(what) => Outcome::Pass(what),
                Err(why) => Outcome::Skip(why),
            });
            (name.to_string(), run)
        })
        .collect();
    harness(title, tests);
}

/// The ID in "iogauge: saved as run N ..." on stderr.
pub fn saved_id(o: &Output) -> i64 {
    assert!(o.status.success(), "{}", stderr(o));
    saved_id_of(o)
}

/// The same, whatever the exit code (a failed check is saved too).
pub fn saved_id_of(o: &Output) -> i64 {
    let e = stderr(o);
    let line = e
        .lines()
        .find(|l| l.starts_with("iogauge: saved as run "))
        .unwrap_or_else(|| panic!("no saved line in {e:?}"));
    line["iogauge: saved as run ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// The binary with its own results database, for tests that count what was saved.
pub fn db_cmd(db: &Path, args: &[&str]) -> Output {
    bin()
        .env("IOGAUGE_DB", db)
        .args(args)
        .output()
        .expect("iogauge starts")
}

/// Run a system command; its output, or the first line of its complaint.
pub fn sh(cmd: &str, args: &[&str]) -> Result<String, String> {
    let o = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| format!("{cmd}: {e}"))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let first = err.lines().next().unwrap_or("failed").trim().to_string();
        return Err(format!("{cmd} {args:?}: {first}"));
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// `cmd` started with RLIMIT_NOFILE set to `soft`:`hard`, as `prlimit --nofile` would.
#[cfg(unix)]
pub fn with_nofile(cmd: &mut Command, soft: u64, hard: u64) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe and touches nothing of the parent.
    unsafe {
        cmd.pre_exec(move || {
            let l = libc::rlimit {
                rlim_cur: soft,
                rlim_max: hard,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &l) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// The start of [`bounded`]'s error for a command it had to kill.
#[cfg(target_os = "linux")]
pub const HUNG: &str = "hung:";

/// `cmd` run in `dir`, its output to files beside `dir` (a process it forks and leaves
/// behind cannot hold a pipe open; a job may fill `dir`'s file system), killed with every
/// process of its group after `secs`. Whether it ends or is killed, no process of its group
/// outlives the call: fio forks a process per job, and one that outlives its parent would
/// run on, orphaned, after the test has passed and its folder is gone.
#[allow(dead_code)]
#[cfg(target_os = "linux")]
pub fn bounded(mut cmd: Command, dir: &Path, tag: &str, secs: u64) -> Result<Output, String> {
    use std::os::unix::process::CommandExt;
    let name = dir.file_name().unwrap().to_string_lossy();
    let beside = dir.parent().unwrap();
    let (out, err) = (
        beside.join(format!("{name}.{tag}.out")),
        beside.join(format!("{name}.{tag}.err")),
    );
    become_subreaper();
    let mut child = cmd
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("{tag}: {e}"))?;
    let group = child.id() as i32;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            end_group(group, tag)?;
            let _ = child.wait();
            return Err(format!(
                "{HUNG} {tag} still ran after {secs} s and was killed"
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    end_group(group, tag)?;
    let output = Output {
        status,
        stdout: std::fs::read(&out).unwrap_or_default(),
        stderr: std::fs::read(&err).unwrap_or_default(),
    };
    let _ = std::fs::remove_file(out);
    let _ = std::fs::remove_file(err);
    Ok(output)
}

/// Make this test process the reaper of its descendants' orphans (prctl
/// PR_SET_CHILD_SUBREAPER), so that [`end_group`] can wait for them too.
#[cfg(target_os = "linux")]
pub fn become_subreaper() {
    // SAFETY: prctl with integer arguments only changes this process's own attribute.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
}

/// Kill every process left in process group `group`, and every orphan that left it for a
/// session of its own (fio's job processes do: a hung fio's jobs, their parent killed, were
/// left running for good), and wait until none is left (10 s at most): a test that started
/// them leaves nothing running. An error names what would not end.
#[cfg(target_os = "linux")]
pub fn end_group(group: i32, tag: &str) -> Result<(), String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let strays = session_leaving_children();
        // SAFETY: kill(2) and waitpid(2) on the group this test made for its child and on this
        // process's own children; orphans of that group are this process's children
        // (become_subreaper), so they are reaped here.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
            for &pid in &strays {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
            }
            while libc::waitpid(-group, std::ptr::null_mut(), libc::WNOHANG) > 0 {}
            if libc::kill(-group, 0) != 0 && strays.is_empty() {
                return Ok(());
            }
        }
        if std::time::Instant::now() > deadline {
            return Err(format!(
                "{tag}: a process of its group still runs 10 s after SIGKILL (group {group}, others {strays:?})"
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// This process's children that are in another session than it: orphans handed to it as
/// subreaper after they called setsid (a test's own commands stay in its session).
#[cfg(target_os = "linux")]
fn session_leaving_children() -> Vec<i32> {
    let me = std::process::id() as i32;
    // SAFETY: getsid(0) asks for this process's own session.
    let my_sid = unsafe { libc::getsid(0) };
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // Fields after the command's closing parenthesis: state, ppid, pgrp, session.
            let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
            let f: Vec<&str> = rest.split_whitespace().collect();
            let num = |i: usize| f.get(i).and_then(|v| v.parse::<i32>().ok());
            num(1) == Some(me) && num(3).is_some_and(|sid| sid != my_sid)
        })
        .collect()
}
