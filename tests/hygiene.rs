//! The test suite's own manners: a command a test starts ends with the test, its forks
//! included. A fio job forks a process per job; one left running after its test passed (its
//! folder already removed) is what these guard against.
//!
//! Linux only: every item here is; elsewhere the one test, `linux_only`, is ignored with the
//! reason.

#[cfg(target_os = "linux")]
mod common;

#[cfg(target_os = "linux")]
use common::{bounded, work_dir};
#[cfg(target_os = "linux")]
use std::path::Path;
#[cfg(target_os = "linux")]
use std::process::Command;

/// Whether process `pid` still exists (a zombie counts: it was not reaped).
#[cfg(target_os = "linux")]
fn alive(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(target_os = "linux")]
fn forked_pid(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("pid"))
        .expect("the shell wrote its fork's pid")
        .trim()
        .to_string()
}

#[cfg(target_os = "linux")]
#[test]
fn a_fork_left_behind_by_a_finished_command_is_ended() {
    let dir = work_dir();
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "sleep 300 & echo $! > pid; exit 0"]);
    let o = bounded(cmd, dir.path(), "fork", 30).expect("sh ends at once");
    assert!(o.status.success());
    let pid = forked_pid(dir.path());
    assert!(
        !alive(&pid),
        "sleep {pid} outlived the command that forked it"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_hung_command_is_ended_with_its_forks() {
    let dir = work_dir();
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "sleep 300 & echo $! > pid; sleep 300"]);
    let e = bounded(cmd, dir.path(), "hang", 1).expect_err("the command was killed");
    assert!(e.starts_with(common::HUNG), "{e}");
    let pid = forked_pid(dir.path());
    assert!(!alive(&pid), "sleep {pid} outlived the killed command");
}

#[cfg(target_os = "linux")]
#[test]
fn a_fork_that_left_for_its_own_session_is_ended() {
    let dir = work_dir();
    let mut cmd = Command::new("sh");
    // setsid(1) in a process that leads no group calls setsid() in place: the sleep leaves
    // the command's group and session, as fio's job processes do.
    cmd.args(["-c", "setsid sleep 300 & echo $! > pid; exit 0"]);
    let o = bounded(cmd, dir.path(), "setsid", 30).expect("sh ends at once");
    assert!(o.status.success());
    let pid = forked_pid(dir.path());
    assert!(
        !alive(&pid),
        "sleep {pid} outlived the command in a session of its own"
    );
}

#[cfg(not(target_os = "linux"))]
#[test]
#[ignore = "Linux only: the process groups, sessions and /proc that bounded() relies on"]
fn linux_only() {}
