//! The newcomer's first run: `iogauge quick`, profiles, `explain`, warnings, system facts,
//! progress output (absent off a terminal, drawn on one under tmux), man pages and
//! completions. Tests that need a tool this machine lacks (fio, tmux) are SKIPPED, never
//! passed. Golden files of `explain` live in tests/golden/; UPDATE_GOLDEN=1 rewrites them.

use crate::common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn iogauge(args: &[&str], cwd: &Path) -> Output {
    bin()
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .expect("iogauge starts")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn ok(o: &Output) -> Result<String, String> {
    if o.status.success() {
        Ok(stdout(o))
    } else {
        Err(format!("exit {:?}: {}", o.status.code(), stderr(o)))
    }
}

fn has_tool(name: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn codes(r: &Value) -> Vec<String> {
    r["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w["code"].as_str().unwrap().to_string())
        .collect()
}

macro_rules! check {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Outcome::Fail(format!($($msg)+));
        }
    };
}

const PROFILES: [&str; 8] = [
    "quick",
    "iops",
    "latency",
    "throughput",
    "database",
    "fileserver",
    "burst",
    "cache",
];

/// The fixed options explain is run with in tests, so that no output depends on the machine.
/// (The cache profile's working set is a quarter of the smaller of memory and the file: with a
/// 4G file, 1G on any machine with at least 4 GiB of memory.)
const EXPLAIN_OPTS: [&str; 2] = ["--size", "4G"];

fn explain(format: &str, what: &[&str]) -> Result<String, String> {
    let mut args = vec!["explain", "--format", format];
    args.extend(what);
    ok(&iogauge(&args, Path::new(".")))
}

fn quick_runs_every_pass_and_cleans_up() -> Outcome {
    let d = work_dir();
    let o = iogauge(
        &["quick", p(d.path()), "--size", "32M", "-d", "0.5"],
        d.path(),
    );
    let text = match ok(&o) {
        Ok(t) => t,
        Err(e) => return Outcome::Fail(e),
    };
    for label in [
        "SEQ1M Q8T1 read",
        "SEQ1M Q8T1 write",
        "RND4K Q32T4 read",
        "RND4K Q32T4 write",
        "RND4K Q1T1 read",
        "RND4K Q1T1 write",
    ] {
        check!(text.contains(label), "no row '{label}' in:\n{text}");
    }
    check!(
        text.contains("MB/s") && text.contains("IOPS"),
        "no figures:\n{text}"
    );
    check!(text.contains("p99.9"), "no latency percentiles:\n{text}");
    check!(
        text.contains("short-run"),
        "0.5 s passes not warned:\n{text}"
    );
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().flatten().collect();
    check!(left.is_empty(), "files left behind: {left:?}");

    // JSON: one full run result per pass, each with system facts.
    let o = iogauge(
        &[
            "quick",
            p(d.path()),
            "--size",
            "32M",
            "-d",
            "0.3",
            "--output",
            "json",
        ],
        d.path(),
    );
    let v: Value = match ok(&o).map(|t| serde_json::from_str(&t)) {
        Ok(Ok(v)) => v,
        other => return Outcome::Fail(format!("no JSON: {other:?}")),
    };
    let passes = v["passes"].as_array().expect("passes");
    check!(passes.len() == 6, "{} passes", passes.len());
    let modes: Vec<&str> = passes
        .iter()
        .map(|x| x["result"]["mode"].as_str().unwrap())
        .collect();
    check!(
        modes == ["iops", "iops", "iops", "iops", "latency", "latency"],
        "IOPS and latency not in separate passes: {modes:?}"
    );
    for x in passes {
        let r = &x["result"];
        check!(
            u(&r["total"]["all"]["ios"]) > 0,
            "a pass did no I/O: {}",
            x["label"]
        );
        let cmd = x["command"].as_str().unwrap();
        check!(cmd.starts_with("iogauge run "), "command {cmd}");
    }
    Outcome::Pass(String::new())
}

fn ctrl_c_during_quick_keeps_finished_passes() -> Outcome {
    let d = work_dir();
    let child = bin()
        .args(["quick", p(d.path()), "--size", "16M", "-d", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("iogauge starts");
    // Two 1 s passes (with their 1 s warm-ups) are done after about 4 s.
    std::thread::sleep(std::time::Duration::from_millis(5000));
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    let text = stdout(&o);
    check!(
        o.status.code() == Some(130),
        "exit {:?}: {}",
        o.status.code(),
        stderr(&o)
    );
    check!(
        text.contains("SEQ1M Q8T1 read"),
        "finished passes lost:\n{text}"
    );
    check!(text.contains("PARTIAL"), "not marked partial:\n{text}");
    check!(
        !text.contains("RND4K Q1T1 write"),
        "passes after Ctrl-C ran:\n{text}"
    );
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().flatten().collect();
    check!(left.is_empty(), "files left behind: {left:?}");
    Outcome::Pass(String::new())
}

fn no_arguments_runs_quick_in_the_current_folder() -> Outcome {
    // `iogauge` alone runs quick with its defaults (1 GiB, 5 s passes): too long for a test.
    // Where its file cannot be created (a 4 MiB tmpfs), the error shows it tried: the file in
    // the current folder, at the 1 GiB default.
    if !is_root() {
        return Outcome::Skip("needs root to mount a small tmpfs".into());
    }
    let d = work_dir();
    let m = d.path().join("m");
    std::fs::create_dir(&m).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs", p(&m)])
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        return Outcome::Skip("cannot mount tmpfs".into());
    }
    let o = iogauge(&[], &m);
    let _ = Command::new("umount").arg(p(&m)).status();
    let err = stderr(&o);
    check!(
        o.status.code() == Some(1),
        "exit {:?}: {err}",
        o.status.code()
    );
    check!(
        err.contains("iogauge-") && err.contains("1GiB"),
        "error: {err}"
    );
    check!(err.lines().count() == 1, "not one line: {err}");
    Outcome::Pass(String::new())
}

fn profiles_lists_every_profile() -> Outcome {
    let t = match ok(&iogauge(&["profiles"], Path::new("."))) {
        Ok(t) => t,
        Err(e) => return Outcome::Fail(e),
    };
    for name in PROFILES {
        check!(t.contains(&format!("  {name} ")), "{name} missing:\n{t}");
    }
    let o = iogauge(&["profile", "nosuch"], Path::new("."));
    check!(o.status.code() == Some(2), "unknown profile accepted");
    check!(
        stderr(&o).contains("nosuch"),
        "error does not name it: {}",
        stderr(&o)
    );
    Outcome::Pass(String::new())
}

fn explain_matches_golden_files() -> Outcome {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for name in PROFILES {
        let mut what = vec![name];
        what.extend(EXPLAIN_OPTS);
        let got = match explain("all", &what) {
            Ok(t) => t,
            Err(e) => return Outcome::Fail(format!("explain {name}: {e}")),
        };
        let path = dir.join(format!("explain-{name}.txt"));
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        check!(
            got == want,
            "explain {name} differs from {} (UPDATE_GOLDEN=1 rewrites it):\n{got}",
            path.display()
        );
    }
    if update {
        // Rewriting is not checking.
        return Outcome::Skip("UPDATE_GOLDEN: golden files rewritten, not compared".into());
    }
    Outcome::Pass("8 profiles".into())
}

/// DiskSpd's line for each pass, read back through iogauge's own DiskSpd-style flags, must
/// describe the same job: the same fio section and the same DiskSpd line come out.
fn explained_diskspd_lines_round_trip() -> Outcome {
    let mut n = 0;
    for name in PROFILES {
        let mut what = vec![name];
        what.extend(EXPLAIN_OPTS);
        let (runs, spds) = match (explain("run", &what), explain("diskspd", &what)) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => return Outcome::Fail(format!("{a:?} {b:?}")),
        };
        let commands = |t: &str, prefix: &str| -> Vec<Vec<String>> {
            t.lines()
                .filter(|l| l.starts_with(prefix))
                .map(|l| {
                    l[prefix.len()..]
                        .split_whitespace()
                        .map(String::from)
                        .collect()
                })
                .collect()
        };
        let runs = commands(&runs, "iogauge run ");
        // A pass whose DiskSpd line carries a note cannot be written exactly in DiskSpd
        // (burst's steady-state stop): it is left out of the round trip, and must have one.
        let noted: Vec<bool> = spds
            .split("\n\n")
            .filter(|b| b.contains("\ndiskspd "))
            .map(|b| b.contains("#   note:"))
            .collect();
        if name == "burst" {
            check!(noted == [true], "burst's DiskSpd line has no note: {spds}");
        }
        let spds = commands(&spds, "diskspd ");
        check!(noted.len() == spds.len(), "{name}: {noted:?}");
        check!(
            runs.len() == spds.len() && !runs.is_empty(),
            "{name}: {runs:?} {spds:?}"
        );
        for ((run, spd), _) in runs.iter().zip(&spds).zip(&noted).filter(|(_, &n)| !n) {
            let again = |args: &[String], format: &str| {
                let mut what: Vec<&str> = vec!["run"];
                what.extend(args.iter().map(String::as_str));
                explain(format, &what)
            };
            let (a, b) = (again(run, "fio"), again(spd, "fio"));
            check!(
                a.is_ok() && a == b,
                "{name}: fio of\n  {run:?}\n  {spd:?}\n{a:?}\n{b:?}"
            );
            let back = again(spd, "diskspd").unwrap_or_default();
            check!(
                back.contains(&format!("diskspd {}", spd.join(" "))),
                "{name}: DiskSpd line changed: {spd:?} -> {back}"
            );
            n += 1;
        }
    }
    Outcome::Pass(format!("{n} passes"))
}

fn explained_fio_files_parse_in_fio() -> Outcome {
    if !has_tool("fio") {
        return Outcome::Skip("fio is not installed (scripts/install-test-tools.sh)".into());
    }
    let d = work_dir();
    for name in PROFILES {
        let mut what = vec![name];
        what.extend(EXPLAIN_OPTS);
        let job = match explain("fio", &what) {
            Ok(t) => t,
            Err(e) => return Outcome::Fail(e),
        };
        let f = d.path().join(format!("{name}.fio"));
        std::fs::write(&f, job).unwrap();
        let o = Command::new("fio")
            .args(["--parse-only", p(&f)])
            .output()
            .unwrap();
        check!(
            o.status.success() && o.stderr.is_empty(),
            "fio rejects {name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    Outcome::Pass("8 job files".into())
}

fn system_facts_are_reported() -> Outcome {
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    let r = json_l("-c 8M -d 0.2 -W 0", &[p(&f)]);
    let s = &r["system"];
    check!(u(&s["cpus"]) >= 1, "cpus");
    check!(
        u(&s["memory_bytes"]) > 1 << 28,
        "memory {}",
        s["memory_bytes"]
    );
    check!(!s["kernel"].as_str().unwrap().is_empty(), "kernel");
    let facts = &r["targets"][0]["facts"];
    check!(facts["fs_type"].is_string(), "fs_type {facts}");
    check!(facts["mount_point"].is_string(), "mount_point {facts}");
    check!(facts["direct_io"] == "honoured", "direct_io {facts}");
    check!(facts["content"] == "created", "content {facts}");
    check!(u(&facts["free_bytes"]) > 0, "free_bytes {facts}");
    // The work disk is a block device here: its queue facts come from /sys.
    if facts["block_device"].is_string() {
        check!(facts["rotational"].is_boolean(), "rotational {facts}");
        check!(facts["scheduler"].is_string(), "scheduler {facts}");
    }
    let o = run_l("-c 8M -d 0.2 -W 0", &[p(&f)]);
    let t = String::from_utf8_lossy(&o.stdout);
    for want in [
        "kernel:",
        "memory:",
        "file system:",
        "O_DIRECT: honoured",
        "free space:",
    ] {
        check!(t.contains(want), "text report lacks '{want}'");
    }
    Outcome::Pass(format!("{} on {}", facts["fs_type"], facts["block_device"]))
}

fn warning_page_cache() -> Outcome {
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    let r = json_l("-c 8M -d 0.2 -W 0 --cache buffered", &[p(&f)]);
    check!(codes(&r).contains(&"page-cache".into()), "{:?}", codes(&r));
    let r = json_l("-c 8M -d 0.2 -W 0", &[p(&f)]);
    check!(
        !codes(&r).contains(&"page-cache".into()),
        "O_DIRECT warned: {:?}",
        codes(&r)
    );
    Outcome::Pass(String::new())
}

fn warning_zero_and_repeating_content() -> Outcome {
    let d = work_dir();
    let zeros = file_in(&d, "zeros.dat");
    std::fs::write(&zeros, vec![0u8; 8 << 20]).unwrap();
    let r = json_l("-d 0.2 -W 0", &[p(&zeros)]);
    check!(
        codes(&r).contains(&"zero-content".into()),
        "{:?}",
        codes(&r)
    );
    let text = file_in(&d, "text.dat");
    let pattern: Vec<u8> = b"iogauge ".iter().cycle().take(8 << 20).copied().collect();
    std::fs::write(&text, pattern).unwrap();
    let r = json_l("-d 0.2 -W 0", &[p(&text)]);
    check!(
        codes(&r).contains(&"repeating-content".into()),
        "{:?}",
        codes(&r)
    );
    // The file iogauge creates is incompressible: no warning.
    let own = file_in(&d, "own.dat");
    let r = json_l("-c 8M -d 0.2 -W 0", &[p(&own)]);
    let c = codes(&r);
    check!(
        !c.contains(&"zero-content".into()) && !c.contains(&"repeating-content".into()),
        "{c:?}"
    );
    Outcome::Pass(String::new())
}

fn warning_short_run() -> Outcome {
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    let short = json_l("-c 1M -d 1 -W 0 --engine null", &[p(&f)]);
    check!(
        codes(&short).contains(&"short-run".into()),
        "{:?}",
        codes(&short)
    );
    let long = json_l(
        "-c 1M -d 5.1 -W 0 --engine delay --delay fixed:1ms -o 1",
        &[p(&f)],
    );
    check!(
        !codes(&long).contains(&"short-run".into()),
        "{:?}",
        codes(&long)
    );
    Outcome::Pass(String::new())
}

fn warning_cpu_saturated() -> Outcome {
    // One null-engine thread per CPU keeps every CPU busy.
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    let t = cpus.to_string();
    let r = json_l(
        "-c 1M -d 1 -W 0.2 --engine null -o 8 --affinity=auto -t",
        &[&t, p(&f)],
    );
    check!(
        codes(&r).contains(&"cpu-saturated".into()),
        "{:?}",
        codes(&r)
    );
    // Sync reads of a small cached file at 100 IOPS leave the CPUs idle.
    let r = json_l(
        "-c 1M -d 1 -W 0 --engine sync --cache buffered --rate-iops 100",
        &[p(&f)],
    );
    check!(
        !codes(&r).contains(&"cpu-saturated".into()),
        "idle run warned: {:?}",
        codes(&r)
    );
    Outcome::Pass(format!("{cpus} CPUs"))
}

fn warning_queue_too_deep() -> Outcome {
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    let probe = json_l("-c 8M -d 0.1 -W 0", &[p(&f)]);
    let facts = &probe["targets"][0]["facts"];
    let limit = match [&facts["device_queue_depth"], &facts["nr_requests"]]
        .iter()
        .filter_map(|v| v.as_u64())
        .min()
    {
        Some(l) => l,
        None => {
            return Outcome::Skip(format!(
                "the work folder has no block device with queue limits ({})",
                facts["fs_type"]
            ))
        }
    };
    let deep = (limit + 1).to_string();
    let r = json_l("-c 8M -d 0.3 -W 0 -o", &[&deep, p(&f)]);
    check!(
        codes(&r).contains(&"queue-too-deep".into()),
        "QD {deep}: {:?}",
        codes(&r)
    );
    let fits = limit.min(32).to_string();
    let r = json_l("-c 8M -d 0.3 -W 0 -o", &[&fits, p(&f)]);
    check!(
        !codes(&r).contains(&"queue-too-deep".into()),
        "QD {fits}: {:?}",
        codes(&r)
    );
    Outcome::Pass(format!("device accepts {limit}"))
}

fn warning_inline_completion() -> Outcome {
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    // The delay engine completes nothing inside a submission: never warned.
    let r = json_l(
        "-c 1M -d 0.5 -W 0 -L --engine delay --delay fixed:200us -o 1",
        &[p(&f)],
    );
    check!(
        !codes(&r).contains(&"inline-completion".into()),
        "{:?}",
        codes(&r)
    );
    // O_DIRECT QD1 writes: on ext4 over virtio most complete inside io_uring_enter. The warning
    // must appear exactly when the figures show it.
    let r = json_l("-c 16M -d 1 -W 0.2 -L -o 1 -w 100", &[p(&f)]);
    let all = &r["total"]["all"];
    if all["latency_submission"].is_null() {
        return Outcome::Skip("io_uring is not available: no submission latency".into());
    }
    let (c, s, t) = (
        percentile(&all["latency"], 50.0),
        percentile(&all["latency_submission"], 50.0),
        percentile(&all["latency_total"], 50.0),
    );
    let inline = s > c && t > 2.0 * c;
    let warned = codes(&r).contains(&"inline-completion".into());
    check!(
        warned == inline,
        "p50 completion {c} submission {s} total {t}: warned {warned}"
    );
    Outcome::Pass(format!(
        "O_DIRECT writes: completion p50 {:.1} us, submission {:.1} us: {}",
        c / 1e3,
        s / 1e3,
        if inline {
            "warned"
        } else {
            "not inline, not warned"
        }
    ))
}

fn warning_throughput_varied() -> Outcome {
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    // A device whose burst ends after 1 s: 100 us per I/O, then 1 ms.
    let r = json_l(
        "-c 1M -d 3 -W 0 --interval 250 --engine delay --delay fixed:100us --delay-step 1s:fixed:1ms -o 1",
        &[p(&f)],
    );
    check!(
        codes(&r).contains(&"throughput-varied".into()),
        "{:?}",
        codes(&r)
    );
    let r = json_l(
        "-c 1M -d 3 -W 0 --engine delay --delay fixed:1ms -o 1",
        &[p(&f)],
    );
    check!(
        !codes(&r).contains(&"throughput-varied".into()),
        "steady run warned: {:?}",
        codes(&r)
    );
    Outcome::Pass(String::new())
}

fn until_steady_stops_after_the_burst() -> Outcome {
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    let r = json_l(
        "-c 1M -d 30 -W 0 --interval 100 --until-steady=0.5 --engine delay --delay fixed:100us --delay-step 1s:fixed:1ms -o 1",
        &[p(&f)],
    );
    let secs = u(&r["measured_ns"]) as f64 / 1e9;
    // Burst to 1 s, then a 0.5 s window of the baseline: about 1.5 s, far below the 30 s cap.
    check!((1.4..6.0).contains(&secs), "stopped after {secs:.2}s");
    let phases: Vec<&str> = r["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    check!(phases == ["burst", "baseline"], "phases {phases:?}");
    let note = r["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().starts_with("stopped after"));
    check!(note, "no note: {}", r["notes"]);
    check!(r["partial"] == false, "a steady stop is not partial");
    Outcome::Pass(format!("stopped after {secs:.2}s of 30s"))
}

/// fio's rule from iogauge's own flags: a flat window ends the run early; a limit that cannot
/// be met runs the full -d and says how flat the last window was.
fn until_flat_stops_on_a_flat_window() -> Outcome {
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    let notes = |r: &Value| -> Vec<String> {
        r["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    // A fixed 100us delay gives the same IOPS every interval: 5 points of 100 ms are flat.
    let r = json_l(
        "-c 1M -d 30 -W 0 --interval 100 --until-flat=iops:50%,0.5 --engine delay --delay fixed:100us -o 1",
        &[p(&f)],
    );
    let secs = u(&r["measured_ns"]) as f64 / 1e9;
    check!((0.45..3.0).contains(&secs), "stopped after {secs:.2}s");
    let n = notes(&r);
    check!(
        n.iter().any(|n| n
            .starts_with("steady state attained (--until-flat=iops:50% over 0.5s): stopped after")),
        "notes {n:?}"
    );
    check!(
        r["partial"] == false && r["stop_reason"] == "completed",
        "{}",
        r["stop_reason"]
    );
    // A slope strictly under 0 per interval is never met.
    let r = json_l(
        "-c 1M -d 1 -W 0 --interval 100 --until-flat=iops_slope:0,0.5 --engine delay --delay fixed:100us -o 1",
        &[p(&f)],
    );
    let full = u(&r["measured_ns"]) as f64 / 1e9;
    check!((0.99..5.0).contains(&full), "ran {full:.2}s of 1s");
    let n = notes(&r);
    check!(
        n.iter()
            .any(|n| n.starts_with("steady state not attained") && n.contains("IOPS")),
        "notes {n:?}"
    );
    Outcome::Pass(format!("stopped after {secs:.2}s of 30s"))
}

fn no_progress_off_a_terminal() -> Outcome {
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    // stderr is a pipe here: no bar, no escape codes, nothing at all on a clean run.
    let o = run_l(
        "-c 8M -d 1.2 -W 0 --engine delay --delay fixed:1ms -o 1",
        &[p(&f)],
    );
    check!(o.status.success(), "{}", stderr(&o));
    // Nothing but the one line that says where the result was saved.
    let err = stderr(&o);
    check!(
        err.lines().count() == 1 && err.starts_with("iogauge: saved as run "),
        "stderr: {err:?}"
    );
    check!(!err.contains('\u{1b}'), "escape codes on stderr");
    check!(!stdout(&o).contains('\u{1b}'), "escape codes in the report");
    let o = iogauge(
        &["quick", p(d.path()), "--size", "8M", "-d", "0.3", "--quiet"],
        d.path(),
    );
    check!(o.status.success(), "{}", stderr(&o));
    check!(o.stderr.is_empty(), "quick stderr: {:?}", stderr(&o));
    Outcome::Pass(String::new())
}

fn progress_renders_under_tmux() -> Outcome {
    if !has_tool("tmux") {
        return Outcome::Skip("tmux is not installed (scripts/install-test-tools.sh)".into());
    }
    let d = work_dir();
    let f = file_in(&d, "f.dat");
    let session = format!("iogauge-test-{}", std::process::id());
    let cmd = format!(
        "IOGAUGE_DB={}/results.db {} run -c 8M -d 4 -W 0 -L --engine delay --delay fixed:1ms -o 1 {} > {}/report.txt",
        p(d.path()),
        env!("CARGO_BIN_EXE_iogauge"),
        p(&f),
        p(d.path())
    );
    let tmux = |args: &[&str]| Command::new("tmux").args(args).output();
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "160",
        "-y",
        "20",
        &cmd,
    ]);
    if !started.as_ref().is_ok_and(|o| o.status.success()) {
        return Outcome::Skip(format!("tmux cannot start a session: {started:?}"));
    }
    let mut screens = Vec::new();
    for _ in 0..10 {
        std::thread::sleep(std::time::Duration::from_millis(300));
        if let Ok(o) = tmux(&["capture-pane", "-p", "-t", &session]) {
            screens.push(String::from_utf8_lossy(&o.stdout).into_owned());
        }
    }
    let _ = tmux(&["kill-session", "-t", &session]);
    let bar = screens
        .iter()
        .find(|s| s.contains("measuring") && s.contains("IOPS"));
    check!(
        bar.is_some(),
        "no progress bar seen in {} captures; last:\n{}",
        screens.len(),
        screens.last().map_or("", |s| s.as_str())
    );
    let bar = bar.unwrap();
    check!(
        bar.contains("s left") && bar.contains("lat "),
        "bar lacks time or latency:\n{bar}"
    );
    // Figures change while it runs: more than one distinct frame.
    let frames: std::collections::BTreeSet<_> = screens
        .iter()
        .filter_map(|s| s.lines().find(|l| l.contains("measuring")))
        .collect();
    check!(frames.len() > 1, "the bar never updated: {frames:?}");
    let line = bar
        .lines()
        .find(|l| l.contains("measuring"))
        .unwrap()
        .trim();
    Outcome::Pass(line.to_string())
}

fn man_pages_and_completions() -> Outcome {
    let d = work_dir();
    let o = iogauge(&["man", p(d.path())], Path::new("."));
    check!(o.status.success(), "{}", stderr(&o));
    for page in [
        "iogauge.1",
        "iogauge-run.1",
        "iogauge-quick.1",
        "iogauge-explain.1",
    ] {
        let t = std::fs::read_to_string(d.path().join(page)).unwrap_or_default();
        check!(t.contains(".TH"), "{page} is not a man page");
    }
    let run = std::fs::read_to_string(d.path().join("iogauge-run.1")).unwrap();
    check!(
        run.contains("block\\-size"),
        "run's flags missing from its page"
    );
    for shell in ["bash", "zsh", "fish"] {
        let o = iogauge(&["completions", shell], Path::new("."));
        let t = stdout(&o);
        check!(
            o.status.success() && t.contains("quick") && t.contains("explain"),
            "{shell}"
        );
    }
    // Every command's --help has examples.
    for cmd in [
        "run",
        "quick",
        "profile",
        "profiles",
        "explain",
        "selftest",
        "man",
        "completions",
    ] {
        let o = iogauge(&[cmd, "--help"], Path::new("."));
        check!(
            stdout(&o).contains("Examples:"),
            "{cmd} --help has no examples"
        );
    }
    Outcome::Pass(String::new())
}

type Test = (&'static str, fn() -> Outcome);

pub fn main() {
    let tests: Vec<Test> = vec![
        (
            "quick_runs_every_pass_and_cleans_up",
            quick_runs_every_pass_and_cleans_up,
        ),
        (
            "ctrl_c_during_quick_keeps_finished_passes",
            ctrl_c_during_quick_keeps_finished_passes,
        ),
        (
            "no_arguments_runs_quick_in_the_current_folder",
            no_arguments_runs_quick_in_the_current_folder,
        ),
        ("profiles_lists_every_profile", profiles_lists_every_profile),
        ("explain_matches_golden_files", explain_matches_golden_files),
        (
            "explained_diskspd_lines_round_trip",
            explained_diskspd_lines_round_trip,
        ),
        (
            "explained_fio_files_parse_in_fio",
            explained_fio_files_parse_in_fio,
        ),
        ("system_facts_are_reported", system_facts_are_reported),
        ("warning_page_cache", warning_page_cache),
        (
            "warning_zero_and_repeating_content",
            warning_zero_and_repeating_content,
        ),
        ("warning_short_run", warning_short_run),
        ("warning_cpu_saturated", warning_cpu_saturated),
        ("warning_queue_too_deep", warning_queue_too_deep),
        ("warning_inline_completion", warning_inline_completion),
        ("warning_throughput_varied", warning_throughput_varied),
        (
            "until_steady_stops_after_the_burst",
            until_steady_stops_after_the_burst,
        ),
        (
            "until_flat_stops_on_a_flat_window",
            until_flat_stops_on_a_flat_window,
        ),
        ("no_progress_off_a_terminal", no_progress_off_a_terminal),
        ("progress_renders_under_tmux", progress_renders_under_tmux),
        ("man_pages_and_completions", man_pages_and_completions),
    ];
    harness(
        "newcomer",
        tests
            .into_iter()
            .map(|(n, f)| (n.to_string(), Box::new(f) as Box<dyn Fn() -> Outcome>))
            .collect(),
    );
}
