//! Faults caused for real, each ending in a clear message, the results kept where there are
//! any, and nothing of the user's touched: a target replaced or lazily unmounted during the
//! run, thread and process limits, long waits interrupted, output paths that cannot be
//! written, corrupt and empty results databases. A test that needs root or a kernel feature
//! missing here says SKIPPED with its reason.

mod common;
use common::*;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Err(reason): the test cannot run here.
type Checked = Result<(), String>;
type FaultTest = (&'static str, fn() -> Checked);

fn need_root() -> Checked {
    if is_root() {
        Ok(())
    } else {
        Err("needs root".into())
    }
}

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
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
    Ok(())
}

fn main() {
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
