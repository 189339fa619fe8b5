//! `iogauge fio` end to end: job files of the kinds users write, fio command lines, the
//! fio-shaped JSON read by a standard-library Python consumer (tests/fio/consumer.py), bad
//! input, and IOPS side by side with the real fio on the same file. Own harness: where fio or
//! python3 is missing, the test that needs it is SKIPPED with the reason, never passed.

use crate::common;

use common::{bin, db_cmd, harness, p, sh, stderr, u, with_nofile, work_dir, Outcome};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn fio_cmd(dir: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(dir)
        .arg("fio")
        .args(args)
        .output()
        .expect("iogauge starts")
}

fn consumer(json: &Path) -> Result<String, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fio/consumer.py");
    let o = std::process::Command::new("python3")
        .arg(&script)
        .arg(json)
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

const JOBS: &str = "\
; the kinds of job files users write
[global]
ioengine=libaio
direct=1
bs=4k
size=32m
filename=${DATA}

[prepare]
rw=write
bs=1m
iodepth=4

[randread]
stonewall
rw=randread
iodepth=16
runtime=1500ms
time_based

[mixed]
stonewall
rw=randrw
rwmixread=70
numjobs=2
iodepth=4
runtime=1
time_based
group_reporting

[seqread]
stonewall
rw=read
bs=128k
io_size=16m
loops=2

[two-clones]
stonewall
filename=
rw=randwrite
numjobs=2
size=4m
ioengine=psync
";

fn job_files_run_and_a_python_consumer_reads_the_json() -> Outcome {
    if sh("python3", &["--version"]).is_err() {
        return Outcome::Skip("python3 is not installed".into());
    }
    let dir = work_dir();
    let data = dir.path().join("data.bin");
    std::fs::write(dir.path().join("jobs.fio"), JOBS).unwrap();
    let o = bin()
        .current_dir(dir.path())
        .env("DATA", &data)
        .args(["fio", "jobs.fio", "--output-format=json+", "--no-save"])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "iogauge fio failed: {err}");
    let json_path = dir.path().join("out.json");
    std::fs::write(&json_path, &o.stdout).unwrap();
    let doc: Value = serde_json::from_slice(&o.stdout).expect("stdout is one JSON document");
    let lines = match consumer(&json_path) {
        Ok(l) => l,
        Err(e) => return Outcome::Fail(format!("the consumer refused the JSON: {e}")),
    };
    let rows: Vec<Vec<&str>> = lines.lines().map(|l| l.split(',').collect()).collect();
    let names: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[0], r[1], r[2])).collect();
    assert_eq!(
        names,
        [
            ("prepare", "0", "write"),
            ("randread", "1", "read"),
            // group_reporting: the two clones as one entry, reads and writes.
            ("mixed", "2", "read"),
            ("mixed", "2", "write"),
            ("seqread", "3", "read"),
            // No group_reporting: one entry per clone, each with its own file.
            ("two-clones", "4", "write"),
            ("two-clones", "4", "write"),
        ],
        "{lines}"
    );
    let jobs = doc["jobs"].as_array().unwrap();
    let bytes = |i: usize, d: &str| jobs[i][d]["io_bytes"].as_u64().unwrap();
    // Bytes-bounded jobs moved exactly what fio would: size, io_size x loops, size per clone.
    assert_eq!(bytes(0, "write"), 32 << 20);
    assert_eq!(bytes(3, "read"), 32 << 20);
    assert_eq!(bytes(4, "write"), 4 << 20);
    assert_eq!(bytes(5, "write"), 4 << 20);
    // Time-bounded: the runtime, within the first interval's rounding.
    let rt = jobs[1]["read"]["runtime"].as_u64().unwrap();
    assert!((1400..=1700).contains(&rt), "randread runtime {rt} ms");
    // The mix is about 70/30 by I/Os.
    let (r, w) = (
        jobs[2]["read"]["total_ios"].as_f64().unwrap(),
        jobs[2]["write"]["total_ios"].as_f64().unwrap(),
    );
    let share = r / (r + w);
    assert!((0.65..0.75).contains(&share), "read share {share}");
    // fio's option echo: globals once, each job its own.
    assert_eq!(doc["global options"]["ioengine"], "libaio");
    assert_eq!(jobs[1]["job options"]["rw"], "randread");
    assert!(
        jobs[0]["write"]["clat_ns"]["bins"].is_object(),
        "json+ has bins"
    );
    // A clean run writes nothing on stderr, as fio (bench-fio takes anything there as a
    // failure); the files iogauge created are gone.
    assert!(err.is_empty(), "stderr of a clean run: {err}");
    assert!(!data.exists(), "data file left behind");
    for clone in ["two-clones.0.0", "two-clones.1.0"] {
        assert!(!dir.path().join(clone).exists(), "{clone} left behind");
    }
    Outcome::Pass(format!("{} entries", rows.len()))
}

fn command_lines_and_text_output() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("t.dat");
    let o = fio_cmd(
        dir.path(),
        &[
            "--ioengine=io_uring",
            "--direct=1",
            "--name=w",
            &format!("--filename={}", p(&f)),
            "--size=8m",
            "--rw=randwrite",
            "--bs=8k",
            "--iodepth=8",
            "--number_ios=500",
            "--name=r",
            "--stonewall",
            &format!("--filename={}", p(&f)),
            "--rw=read",
            "--size=8m",
        ],
    );
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", stderr(&o));
    // fio's text layout: a head line per job, IOPS and bandwidth, percentiles, group status.
    assert!(out.contains("w: (groupid=0, jobs=1): err= 0"), "{out}");
    assert!(out.contains("  write: IOPS="), "{out}");
    assert!(out.contains("clat percentiles (usec):"), "{out}");
    assert!(out.contains("r: (groupid=1, jobs=1)"), "{out}");
    assert!(out.contains("Run status group 1 (all jobs):"), "{out}");
    // number_ios=500 of 8k: 4,096,000 bytes written; the read job reads the 8 MiB.
    assert!(
        out.contains("WRITE: bw=") && out.contains("io=3.9MiB"),
        "{out}"
    );
    assert!(
        out.contains("READ: bw=") && out.contains("io=8.0MiB"),
        "{out}"
    );
    // Saved, one run per job, without a word on stderr; --verbose says what ran and where
    // it was saved.
    assert!(o.stderr.is_empty(), "stderr of a clean run: {}", stderr(&o));
    assert!(!f.exists());
    let o = fio_cmd(dir.path(), &["--name=v", "--size=1m", "--verbose"]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(
        e.contains("iogauge: fio group 0: v") && e.contains("fio job 'v' saved as run"),
        "{e}"
    );
    Outcome::Pass(String::new())
}

/// Jobs of one group that name the same file (fio's waitfor and flow examples): iogauge lays
/// it out once before they start, at the largest size any of them gives (fio 3.33 leaves it
/// at that size too), every job uses it, and it is removed afterwards unless --keep.
fn jobs_of_a_group_share_a_file_laid_out_once() -> Outcome {
    let dir = work_dir();
    let d = dir.path();
    let f = d.join("shared.dat");
    std::fs::write(
        d.join("shared.fio"),
        format!(
            "[global]\nfilename={}\nioengine=psync\nruntime=300ms\ntime_based\n\
             [w]\nsize=16m\nrw=randwrite\n[r1]\nsize=16m\nrw=randread\n\
             [r2]\nsize=32m\nrw=randread\nstartdelay=200ms\n",
            p(&f)
        ),
    )
    .unwrap();
    for keep in [false, true] {
        let mut args = vec!["shared.fio", "--output-format=json", "--no-save"];
        if keep {
            args.push("--keep");
        }
        let o = fio_cmd(d, &args);
        assert!(o.status.success(), "keep {keep}: {}", stderr(&o));
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let moved: Vec<(&str, u64)> = doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let b = j["read"]["io_bytes"].as_u64().unwrap()
                    + j["write"]["io_bytes"].as_u64().unwrap();
                (j["jobname"].as_str().unwrap(), b)
            })
            .collect();
        assert_eq!(moved.len(), 3, "{moved:?}");
        assert!(moved.iter().all(|(_, b)| *b > 0), "{moved:?}");
        match keep {
            false => assert!(!f.exists(), "the shared file was left behind"),
            true => assert_eq!(std::fs::metadata(&f).unwrap().len(), 32 << 20),
        }
    }
    Outcome::Pass(String::new())
}

/// Values as the next argument, as fio's getopt_long takes them and as tools that call fio
/// write them (cdmpy: `--output-format json`, `--ioengine posixaio`): for fio's job options
/// and iogauge's own; bare flags (`--time_based`) leave the next argument alone.
fn values_may_follow_as_the_next_argument() -> Outcome {
    let dir = work_dir();
    let d = dir.path();
    let f = d.join("n.dat");
    let out = d.join("out.json");
    let o = fio_cmd(
        d,
        &[
            "--name",
            "seq",
            "--filename",
            p(&f),
            "--size",
            "4m",
            "--bs",
            "1m",
            "--rw",
            "write",
            "--ioengine",
            "posixaio",
            "--iodepth",
            "4",
            "--direct",
            "0",
            "--group_reporting",
            "--output-format",
            "json",
            "--output",
            p(&out),
            "--tag",
            "cdm",
            "--no-save",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "the report went to --output");
    let doc: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let job = &doc["jobs"][0];
    assert_eq!(job["jobname"], "seq");
    assert_eq!(job["write"]["io_bytes"], 4 << 20);
    assert_eq!(job["job options"]["bs"], "1m");
    assert_eq!(job["job options"]["ioengine"], "posixaio");
    // --section NAME picks a job file's job; --time_based takes no value.
    std::fs::write(
        d.join("two.fio"),
        format!(
            "[a]\nfilename={0}\nsize=1m\n[b]\nfilename={0}\nsize=1m\nruntime=300ms\n",
            p(&f)
        ),
    )
    .unwrap();
    let o = fio_cmd(
        d,
        &[
            "--time_based",
            "two.fio",
            "--section",
            "b",
            "--output-format",
            "json",
            "--no-save",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let names: Vec<&str> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["jobname"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["b"]);
    let ms = doc["jobs"][0]["read"]["runtime"].as_u64().unwrap();
    assert!(
        (250..1000).contains(&ms),
        "time_based for 300 ms ran {ms} ms"
    );
    Outcome::Pass(String::new())
}

/// Whether `clat_ns`, then `lat_ns`, carry `percentile` and `bins`.
type Shape = [(bool, bool); 2];

/// The [`Shape`] of a job's read direction.
fn percentile_shape(doc: &Value) -> Shape {
    let read = &doc["jobs"][0]["read"];
    ["clat_ns", "lat_ns"].map(|k| {
        (
            read[k]["percentile"].is_object(),
            read[k]["bins"].is_object(),
        )
    })
}

/// clat_percentiles and lat_percentiles each give their own percentile list (and json+ bins),
/// both where both are on, as fio 3.33 writes them; where fio is installed, its own output
/// for the same job has the same shape.
fn percentiles_and_bins_as_fio_writes_them() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("pc.dat");
    let base = [
        "--name=pc".to_string(),
        format!("--filename={}", p(&f)),
        "--size=256k".into(),
        "--ioengine=psync".into(),
    ];
    // (options, json+, [(clat percentile, clat bins), (lat percentile, lat bins)]), as fio
    // 3.33 wrote them.
    let cases: [(&[&str], bool, Shape); 6] = [
        (&[], false, [(true, false), (false, false)]),
        (&[], true, [(true, true), (false, false)]),
        (
            &["--lat_percentiles=1"],
            false,
            [(true, false), (true, false)],
        ),
        (&["--lat_percentiles=1"], true, [(true, true), (true, true)]),
        (
            &["--lat_percentiles=1", "--clat_percentiles=0"],
            true,
            [(false, false), (true, true)],
        ),
        (
            &["--clat_percentiles=0"],
            true,
            [(false, false), (false, false)],
        ),
    ];
    let fio_here = common::have_fio().is_ok();
    for (extra, plus, want) in cases {
        let format = if plus {
            "--output-format=json+"
        } else {
            "--output-format=json"
        };
        let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
        args.extend(extra);
        args.push(format);
        let mut ours = args.clone();
        ours.push("--no-save");
        let o = fio_cmd(dir.path(), &ours);
        assert!(o.status.success(), "{}", stderr(&o));
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(percentile_shape(&doc), want, "{extra:?} {format}");
        let read = &doc["jobs"][0]["read"];
        if want[1].1 {
            let n: u64 = read["lat_ns"]["bins"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum();
            assert_eq!(
                n,
                read["lat_ns"]["N"].as_u64().unwrap(),
                "lat bins count every I/O"
            );
        }
        if fio_here {
            let out = sh("fio", &args).map_err(|e| format!("fio {args:?}: {e}"));
            let out = match out {
                Ok(o) => o,
                Err(e) => return Outcome::Fail(e),
            };
            let theirs: Value = serde_json::from_str(&out[out.find('{').unwrap_or(0)..]).unwrap();
            assert_eq!(
                percentile_shape(&theirs),
                want,
                "fio 3.33: {extra:?} {format}"
            );
            let _ = std::fs::remove_file(&f);
        }
    }
    Outcome::Pass(
        if fio_here {
            "and fio agrees"
        } else {
            "fio not installed"
        }
        .into(),
    )
}

fn bad_input_gets_one_line_naming_the_culprit() -> Outcome {
    // The help first: fio's and DiskSpd's arguments are not clap's, so it is printed by hand.
    for (args, usage) in [
        (&["fio", "--help"][..], "Usage: iogauge fio"),
        (&["diskspd", "-?"][..], "Usage: iogauge diskspd"),
    ] {
        let o = bin().args(args).output().unwrap();
        let h = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && h.contains(usage) && h.contains("Exit codes:"),
            "{args:?}: {h}"
        );
    }
    let dir = work_dir();
    let d = dir.path();
    let existing = d.join("mine.dat");
    std::fs::write(&existing, vec![7u8; 1 << 20]).unwrap();
    std::fs::write(d.join("typo.fio"), "[a]\nsize=1m\nfilename=x\nrww=read\n").unwrap();
    std::fs::write(
        d.join("planned.fio"),
        "[a]\nsize=1m\nfilename=x\nexec_prerun=ls\n",
    )
    .unwrap();
    std::fs::write(
        d.join("overwrite.fio"),
        format!("[a]\nrw=write\nfilename={}\n", p(&existing)),
    )
    .unwrap();
    let cases: [(&[&str], &str); 8] = [
        (
            &["typo.fio"],
            "typo.fio:4: fio has no option 'rww' (fio: Bad option <rww=read>); did you mean rw?",
        ),
        (
            &["planned.fio"],
            "planned.fio:4: option 'exec_prerun' is fio's, but not supported by iogauge (and not planned)",
        ),
        (&["overwrite.fio"], "overwrite.fio:1: job 'a' writes to"),
        (&["missing.fio"], "cannot read fio job file 'missing.fio'"),
        (&[], "no fio job given"),
        (
            &["--name=a", "--size=1m", "--bs=3x"],
            "command-line argument 3: bs: '3x' has an unknown size suffix",
        ),
        (
            &[
                "--name=a",
                "--size=1m",
                "--ioengine=io_uring",
                "--iodepth=40000",
            ],
            "command-line argument 4: iodepth: '40000' is more than ioengine=io_uring can queue",
        ),
        (
            &["--name=a", "--size=1m", "--output-format=xml"],
            "--output-format=xml: iogauge fio writes normal, json, json+ or terse",
        ),
    ];
    for (args, want) in cases {
        let o = fio_cmd(d, args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{args:?}: more than one line: {e}");
        assert!(e.contains(want), "{args:?}: {e}");
        assert!(o.stdout.is_empty(), "{args:?}: wrote to stdout");
    }
    // The refused write touched nothing.
    assert_eq!(std::fs::read(&existing).unwrap(), vec![7u8; 1 << 20]);
    // --ignore-unsupported: a warning on stderr, valid JSON on stdout.
    let o = fio_cmd(
        d,
        &[
            "planned.fio",
            "--ignore-unsupported",
            "--output-format=json",
            "--no-save",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o)
        .contains("warning: planned.fio:4: option 'exec_prerun' is fio's, but not supported"));
    let doc: Value = serde_json::from_slice(&o.stdout).expect("valid JSON despite warnings");
    assert_eq!(doc["jobs"][0]["read"]["io_bytes"], 1 << 20);
    Outcome::Pass(String::new())
}

/// A job refused at run time (its target cannot be made) after --parse-only accepted it
/// leaves none of its per-I/O logs behind: they are made once the run is set up. A log of
/// that name already there is not iogauge's and stays as it was; where one log cannot be
/// made, those made before it are removed.
fn refused_jobs_leave_no_logs() -> Outcome {
    let dir = work_dir();
    let d = dir.path();
    let logs = [
        "--write_bw_log=l",
        "--write_iops_log=l",
        "--write_lat_log=l",
    ];
    let missing = format!("--filename={}", p(&d.join("no-such-folder/x")));
    let mut args = vec!["--name=a", &missing, "--size=1m", "--no-save"];
    args.extend(logs);
    std::fs::write(d.join("l_bw.1.log"), "mine").unwrap();
    let parsed = fio_cmd(d, &[&args[..], &["--parse-only"]].concat());
    assert!(parsed.status.success(), "{}", stderr(&parsed));
    let o = fio_cmd(d, &args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("no-such-folder") && e.lines().count() == 1,
        "{e}"
    );
    let left = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(left(d), ["l_bw.1.log"], "left behind");
    assert_eq!(
        std::fs::read_to_string(d.join("l_bw.1.log")).unwrap(),
        "mine"
    );
    // Clone 2's lat log cannot be made (a folder has its name): no log is left, nor data.
    std::fs::remove_file(d.join("l_bw.1.log")).unwrap();
    std::fs::create_dir(d.join("l_lat.2.log")).unwrap();
    let mut args = vec!["--name=a", "--size=1m", "--numjobs=2", "--no-save"];
    args.extend(logs);
    let o = fio_cmd(d, &args);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("cannot create the log 'l_lat.2.log'"),
        "{}",
        stderr(&o)
    );
    assert_eq!(left(d), ["l_lat.2.log"], "left behind");
    Outcome::Pass(String::new())
}

/// Best-of-N IOPS of a job run by fio and by iogauge, alternating, on the same file.
/// IOPS of fio and of `iogauge fio` on the same job, `rounds` runs each, alternating: each
/// side's runs, in order.
fn iops_side_by_side(dir: &Path, job: &str, rounds: usize) -> Result<(Vec<f64>, Vec<f64>), String> {
    let file = dir.join("side.fio");
    std::fs::write(&file, job).unwrap();
    let (mut fio_runs, mut ig_runs) = (Vec::new(), Vec::new());
    let iops = |doc: &Value| -> f64 {
        doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["read"]["iops"].as_f64().unwrap() + j["write"]["iops"].as_f64().unwrap())
            .sum()
    };
    for _ in 0..rounds {
        let out = sh("fio", &[p(&file), "--output-format=json"])?;
        let doc: Value = serde_json::from_str(&out[out.find('{').unwrap_or(0)..])
            .map_err(|e| format!("fio's JSON: {e}"))?;
        fio_runs.push(iops(&doc));
        let o = fio_cmd(dir, &[p(&file), "--output-format=json", "--no-save"]);
        if !o.status.success() {
            return Err(format!("iogauge fio: {}", stderr(&o)));
        }
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        ig_runs.push(iops(&doc));
    }
    Ok((fio_runs, ig_runs))
}

fn iops_match_fio_on_the_same_file() -> Outcome {
    if common::have_fio().is_err() {
        return Outcome::Skip(
            "fio is not installed (scripts/install-test-tools.sh installs it)".into(),
        );
    }
    let dir = work_dir();
    let data = dir.path().join("shared.dat");
    // fio lays the file out; both only read it.
    if let Err(e) = sh(
        "fio",
        &[
            "--name=lay",
            &format!("--filename={}", p(&data)),
            "--size=256m",
            "--rw=write",
            "--bs=1m",
            "--output-format=terse",
        ],
    ) {
        return Outcome::Fail(e);
    }
    let jobs = [
        (
            "randread 4k io_uring QD16 direct",
            format!("[r]\nfilename={}\nrw=randread\nbs=4k\nioengine=io_uring\niodepth=16\ndirect=1\nruntime=3\ntime_based\nnorandommap\n", p(&data)),
        ),
        (
            "randread 4k psync QD1 direct",
            format!("[r]\nfilename={}\nrw=randread\nbs=4k\ndirect=1\nruntime=3\ntime_based\nnorandommap\n", p(&data)),
        ),
        (
            "read 128k libaio QD4 direct, 2 jobs",
            format!("[r]\nfilename={}\nrw=read\nbs=128k\nioengine=libaio\niodepth=4\ndirect=1\nnumjobs=2\nruntime=3\ntime_based\n", p(&data)),
        ),
    ];
    let mut report = Vec::new();
    let mut judged = 0;
    for (what, job) in jobs {
        let (fio_runs, ig_runs) = match iops_side_by_side(dir.path(), &job, 3) {
            Ok(x) => x,
            Err(e) => return Outcome::Fail(format!("{what}: {e}")),
        };
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let spread = |v: &[f64]| {
            let (lo, hi) = v
                .iter()
                .fold((f64::MAX, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
            hi / lo.max(1.0)
        };
        let (fio, ig) = (median(&fio_runs), median(&ig_runs));
        let ratio = ig / fio;
        // A device that differs from itself by more than the tolerance, run to run, cannot
        // tell a 30% difference between the tools: that job is reported, not judged.
        let unsteady = spread(&fio_runs).max(spread(&ig_runs));
        if unsteady > 1.3 {
            report.push(format!(
                "{what}: not judged, the disk varied {unsteady:.2}x between runs of one tool (fio {fio_runs:.0?}, iogauge {ig_runs:.0?})"
            ));
            continue;
        }
        judged += 1;
        report.push(format!(
            "{what}: fio {fio:.0}, iogauge {ig:.0} IOPS (medians of 3), {ratio:.2}x"
        ));
        // The same device, the same job: within 30%.
        if !(0.7..=1.43).contains(&ratio) {
            return Outcome::Fail(report.join("; "));
        }
    }
    if judged == 0 {
        return Outcome::Skip(format!(
            "the work disk was too unsteady to compare: {}",
            report.join("; ")
        ));
    }
    Outcome::Pass(report.join("; "))
}

/// `iogauge run --output fio-json` and `results show --output fio-json`: the same document
/// shape for a native run, live and saved, read by the same consumer.
fn native_runs_write_fio_json_too() -> Outcome {
    if sh("python3", &["--version"]).is_err() {
        return Outcome::Skip("python3 is not installed".into());
    }
    let dir = work_dir();
    let f = dir.path().join("n.dat");
    for latency in [true, false] {
        let mut args = vec![
            "run", "-c", "32M", "-d", "1", "-W", "0", "-t", "2", "-o", "4", "-b", "4k", "-r", "-w",
            "25",
        ];
        if latency {
            args.push("-L");
        }
        args.extend(["--output", "fio-json", p(&f)]);
        let o = bin().args(&args).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let out = dir.path().join("run.json");
        std::fs::write(&out, &o.stdout).unwrap();
        let rows = match consumer(&out) {
            Ok(r) => r,
            Err(e) => return Outcome::Fail(format!("consumer (latency {latency}): {e}")),
        };
        // One fio job for the run, reads and writes, with the fio options explain writes.
        assert_eq!(rows.lines().count(), 2, "{rows}");
        assert!(rows.starts_with("iogauge,0,read,randrw,4K,4,2,"), "{rows}");
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let n = doc["jobs"][0]["read"]["clat_ns"]["N"].as_u64().unwrap();
        assert_eq!(n > 0, latency, "clat N {n} with latency {latency}");
        if latency {
            let id = common::saved_id(&o);
            let shown = bin()
                .args(["results", "show", &id.to_string(), "--output", "fio-json"])
                .output()
                .unwrap();
            let again: Value =
                serde_json::from_slice(&shown.stdout).expect("saved run as fio JSON");
            assert_eq!(again["jobs"][0]["read"], doc["jobs"][0]["read"]);
        }
    }
    Outcome::Pass(String::new())
}

/// Ctrl-C during the first of two groups: exit 130, the finished part reported as valid JSON,
/// the later group never started, the files removed.
/// The peak resident memory (KiB) of a child that has exited, from wait4: this child's own,
/// not the largest of every child the test process has waited for.
fn peak_rss_kib(child: std::process::Child) -> Result<(i32, u64), String> {
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our unwaited child; status and usage are valid for writing.
    let got = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    if got != child.id() as i32 {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()));
    }
    Ok((status, usage.ru_maxrss as u64))
}

/// A job file of 1000 null jobs of one 4 KiB read. Each job used to allocate about a dozen HDR
/// histograms of ~250 KB up front (3 MB per job, 3 GB in all); now a histogram takes memory at
/// its first value, and a null job records into three (completion, submission, total: ~0.75
/// MB), plus its share of threads and interval histograms, ~1.4 MB a job measured. The bound,
/// 2 MiB a job and 64 MiB besides, fails the old code by about 1 GB.
fn many_null_jobs_take_little_memory() -> Outcome {
    const JOBS: u64 = 1000;
    let dir = work_dir();
    let mut text = String::from("[global]\nioengine=null\nsize=4k\nbs=4k\nrw=read\n");
    for i in 0..JOBS {
        text.push_str(&format!("[j{i}]\n"));
    }
    let file = dir.path().join("many.fio");
    std::fs::write(&file, text).unwrap();
    let child = bin()
        .current_dir(dir.path())
        .args(["fio", "--no-save", "--output-format=json", p(&file)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("iogauge starts");
    let (status, kib) = match peak_rss_kib(child) {
        Ok(x) => x,
        Err(e) => return Outcome::Fail(e),
    };
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Outcome::Fail(format!("{JOBS} null jobs: wait status {status:#x}"));
    }
    let bound = 64 * 1024 + JOBS * 2 * 1024;
    if kib > bound {
        return Outcome::Fail(format!(
            "{JOBS} null jobs peaked at {kib} KiB, over {bound} KiB ({} KiB a job)",
            kib / JOBS
        ));
    }
    Outcome::Pass(format!("{JOBS} null jobs peaked at {kib} KiB"))
}

fn ctrl_c_reports_what_ran_and_removes_the_files() -> Outcome {
    let dir = work_dir();
    let child = bin()
        .current_dir(dir.path())
        .args([
            "fio",
            "--size=16m",
            "--name=first",
            "--rw=randread",
            "--runtime=20",
            "--time_based",
            "--name=second",
            "--stonewall",
            "--rw=read",
            "--runtime=5",
            "--time_based",
            "--output-format=json",
            "--no-save",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted; the results above are partial"));
    let doc: Value = serde_json::from_slice(&o.stdout).expect("valid JSON after Ctrl-C");
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "only the first group ran");
    let rt = jobs[0]["read"]["runtime"].as_u64().unwrap();
    assert!((500..10_000).contains(&rt), "first job ran {rt} ms of 20 s");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    Outcome::Pass(format!("first job stopped after {rt} ms"))
}

/// write_bw_log, write_iops_log and write_lat_log with log_avg_msec: fio's averaged log
/// lines, one per interval and direction; bw and iops add up to the job's totals, the latency
/// logs are averaged over windows of I/Os as fio's are.
fn logs_in_fio_format() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("l.dat");
    let o = fio_cmd(
        dir.path(),
        &[
            "--name=lg",
            &format!("--filename={}", p(&f)),
            "--size=16m",
            "--rw=randrw",
            "--direct=1",
            "--ioengine=io_uring",
            "--iodepth=4",
            "--runtime=2",
            "--time_based",
            "--write_bw_log=lg",
            "--write_iops_log=lg",
            "--write_lat_log=lg",
            "--log_avg_msec=500",
            "--output-format=json",
            "--no-save",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let read = |name: &str| -> Vec<Vec<u64>> {
        std::fs::read_to_string(dir.path().join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .lines()
            .map(|l| l.split(", ").map(|x| x.parse().unwrap()).collect())
            .collect()
    };
    let iops = read("lg_iops.1.log");
    // 2 s in 500 ms intervals, reads and writes: 8 lines of 5 fields, times 500..2000.
    assert_eq!(iops.len(), 8, "{iops:?}");
    assert!(iops.iter().all(|l| l.len() == 5 && l[3] == 0 && l[4] == 0));
    assert_eq!(iops.iter().map(|l| l[0]).max(), Some(2000));
    for (d, key) in [(0, "read"), (1, "write")] {
        let ios: f64 = iops
            .iter()
            .filter(|l| l[2] == d)
            .map(|l| l[1] as f64 * 0.5)
            .sum();
        let total = doc["jobs"][0][key]["total_ios"].as_f64().unwrap();
        assert!(
            (ios - total).abs() <= 0.01 * total + 8.0,
            "{key}: log {ios} vs {total}"
        );
    }
    let bw = read("lg_bw.1.log");
    let kib: f64 = bw.iter().map(|l| l[1] as f64 * 0.5).sum();
    let total = doc["jobs"][0]["read"]["io_kbytes"].as_f64().unwrap()
        + doc["jobs"][0]["write"]["io_kbytes"].as_f64().unwrap();
    assert!(
        (kib - total).abs() <= 0.01 * total + 16.0,
        "bw log {kib} KiB vs {total}"
    );
    // The latency logs as fio averages them: a line where an I/O closes a 500 ms window (4 a
    // direction), then one for each window left open at the end; lat = slat + clat line by
    // line (each a rounded mean over the same I/Os).
    let (lat, clat, slat) = (
        read("lg_lat.1.log"),
        read("lg_clat.1.log"),
        read("lg_slat.1.log"),
    );
    assert!((8..=10).contains(&clat.len()), "{clat:?}");
    assert!(lat.len() == clat.len() && slat.len() == clat.len());
    for ((l, c), s) in lat.iter().zip(&clat).zip(&slat) {
        assert!(c.len() == 5 && c[1] > 0 && c[3] == 0 && c[4] == 0, "{c:?}");
        assert_eq!((l[0], l[2]), (c[0], c[2]));
        assert!(
            l[1].abs_diff(c[1] + s[1]) <= 1,
            "lat {l:?} clat {c:?} slat {s:?}"
        );
    }
    assert_eq!(clat.iter().filter(|l| l[0] >= 500).count(), clat.len());
    per_io_logs(dir.path())
}

/// Without log_avg_msec: a line per I/O in each clone's own files, as fio writes them. The
/// lines count the I/Os the JSON counts; lat is slat + clat line by line; bw is the bytes over
/// each I/O's clat; where fio is installed it makes the same files with as many lines.
fn per_io_logs(dir: &Path) -> Outcome {
    let job = |engine: &str, data: &Path| -> String {
        format!(
            "[pl]\nfilename={}\nsize=1m\nrw=randrw\nbs=4k\nioengine={engine}\nnumjobs=2\nwrite_bw_log=pl\nwrite_iops_log=pl\nwrite_lat_log=pl\n",
            p(data)
        )
    };
    let read = |dir: &Path, name: &str| -> Vec<Vec<u64>> {
        std::fs::read_to_string(dir.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .lines()
            .map(|l| l.split(", ").map(|x| x.parse().unwrap()).collect())
            .collect()
    };
    let logs = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("pl_") && n.ends_with(".log"))
            .collect();
        v.sort();
        v
    };
    let mut said = Vec::new();
    for engine in ["psync", "io_uring"] {
        let here = dir.join(engine);
        std::fs::create_dir_all(&here).unwrap();
        std::fs::write(here.join("pl.fio"), job(engine, &here.join("pl.dat"))).unwrap();
        let o = fio_cmd(&here, &["--no-save", "--output-format=json", "pl.fio"]);
        if !o.status.success() {
            return Outcome::Fail(stderr(&o));
        }
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let names = logs(&here);
        let expected: Vec<String> = ["bw", "clat", "iops", "lat", "slat"]
            .iter()
            .flat_map(|k| (1..=2).map(move |n| format!("pl_{k}.{n}.log")))
            .collect();
        if names != expected {
            return Outcome::Fail(format!("{engine}: logs {names:?}"));
        }
        for clone in 1..=2 {
            let ios = doc["jobs"][clone - 1]["read"]["total_ios"]
                .as_u64()
                .unwrap()
                + doc["jobs"][clone - 1]["write"]["total_ios"]
                    .as_u64()
                    .unwrap();
            let clat = read(&here, &format!("pl_clat.{clone}.log"));
            let lat = read(&here, &format!("pl_lat.{clone}.log"));
            let slat = read(&here, &format!("pl_slat.{clone}.log"));
            let bw = read(&here, &format!("pl_bw.{clone}.log"));
            let iops = read(&here, &format!("pl_iops.{clone}.log"));
            // 1 MiB of 4 KiB I/Os per clone.
            if clat.len() != 256 || ios != 256 || lat.len() != 256 || iops.len() != 256 {
                return Outcome::Fail(format!(
                    "{engine} clone {clone}: {} clat lines, {} lat, {} iops, JSON {ios} I/Os",
                    clat.len(),
                    lat.len(),
                    iops.len()
                ));
            }
            if !clat
                .iter()
                .all(|l| l.len() == 5 && l[3] == 4096 && l[2] <= 1 && l[4] == 0)
            {
                return Outcome::Fail(format!("{engine}: a clat line is not fio's shape"));
            }
            let want_slat = want_slat_of(engine);
            if slat.len() != want_slat {
                return Outcome::Fail(format!("{engine}: {} slat lines", slat.len()));
            }
            for i in 0..256 {
                let s = slat.get(i).map_or(0, |l| l[1]);
                if lat[i][1] != s + clat[i][1]
                    || bw[i][1] != 4096 * 1_000_000 / clat[i][1].max(1)
                    || iops[i][1] != 1
                {
                    return Outcome::Fail(format!(
                        "{engine} line {i}: lat {:?}, slat {s}, clat {:?}, bw {:?}",
                        lat[i], clat[i], bw[i]
                    ));
                }
            }
        }
        if common::have_fio().is_ok() {
            let theirs = here.join("fio");
            std::fs::create_dir_all(&theirs).unwrap();
            std::fs::write(theirs.join("pl.fio"), job(engine, &theirs.join("pl.dat"))).unwrap();
            let ran = std::process::Command::new("fio")
                .current_dir(&theirs)
                .arg("pl.fio")
                .output()
                .map(|o| o.status.success());
            if !matches!(ran, Ok(true)) {
                return Outcome::Fail(format!("fio {engine}: {ran:?}"));
            }
            let lines = |n: &str| read(&theirs, n).len();
            if logs(&theirs) != expected
                || lines("pl_clat.1.log") != 256
                || lines("pl_slat.2.log") != want_slat_of(engine)
            {
                return Outcome::Fail(format!(
                    "fio {engine}: logs {:?}, {} clat lines, {} slat lines",
                    logs(&theirs),
                    lines("pl_clat.1.log"),
                    lines("pl_slat.2.log")
                ));
            }
            said.push(format!("{engine}: fio writes the same files and lines"));
        }
    }
    Outcome::Pass(said.join("; "))
}

/// fio's own fio_generate_plots (gnuplot) on iogauge's averaged logs and on fio's, from the
/// same job: it draws the same graphs (lat, clat, slat, iops, bw), each with a line, and the
/// latency logs have fio's names, one file per clone.
fn fio_generate_plots_draws_the_same_graphs() -> Outcome {
    for tool in ["fio", "fio_generate_plots", "gnuplot"] {
        if sh("sh", &["-c", &format!("command -v {tool}")]).is_err() {
            return Outcome::Skip(format!(
                "{tool} is not installed (scripts/install-test-tools.sh installs it)"
            ));
        }
    }
    let dir = work_dir();
    let job = |data: &Path| {
        format!(
            "[g]\nfilename={}\nsize=8m\nrw=randrw\ndirect=1\nioengine=io_uring\niodepth=4\nnumjobs=2\nruntime=1\ntime_based\nlog_avg_msec=200\nwrite_bw_log=g\nwrite_iops_log=g\nwrite_lat_log=g\n",
            p(data)
        )
    };
    let mut seen = Vec::new();
    for tool in ["iogauge", "fio"] {
        let here = dir.path().join(tool);
        std::fs::create_dir_all(&here).unwrap();
        std::fs::write(here.join("g.fio"), job(&here.join("g.dat"))).unwrap();
        let ran = match tool {
            "fio" => std::process::Command::new("fio")
                .current_dir(&here)
                .arg("g.fio")
                .output()
                .unwrap(),
            _ => fio_cmd(&here, &["--no-save", "g.fio"]),
        };
        if !ran.status.success() {
            return Outcome::Fail(format!("{tool}: {}", stderr(&ran)));
        }
        // fio keeps the file it laid out; iogauge removes the one it made.
        let _ = std::fs::remove_file(here.join("g.dat"));
        let plots = std::process::Command::new("fio_generate_plots")
            .current_dir(&here)
            .arg("t")
            .output()
            .unwrap();
        if !plots.status.success() {
            return Outcome::Fail(format!(
                "fio_generate_plots on {tool}'s logs: {}",
                String::from_utf8_lossy(&plots.stdout)
            ));
        }
        let mut files: Vec<(String, u64)> = std::fs::read_dir(&here)
            .unwrap()
            .flatten()
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name, e.metadata().unwrap().len())
            })
            .filter(|(n, _)| n.ends_with(".svg") || n.contains("lat."))
            .collect();
        files.sort();
        for (name, len) in &files {
            // gnuplot's SVG holds a group per line plotted, from gnuplot_plot_1.
            let svg = std::fs::read_to_string(here.join(name)).unwrap();
            if *len == 0 || name.ends_with(".svg") && !svg.contains("gnuplot_plot_1") {
                return Outcome::Fail(format!("{tool}: {name} is empty or draws no line"));
            }
        }
        seen.push(files.into_iter().map(|(n, _)| n).collect::<Vec<_>>());
    }
    if seen[0] != seen[1] {
        return Outcome::Fail(format!("iogauge {:?}, fio {:?}", seen[0], seen[1]));
    }
    Outcome::Pass(format!("both: {}", seen[0].join(" ")))
}

/// disk_util: the disks under the job's file, from /sys/block's counters over the run, as fio
/// lists them for the same job: the same names, util a percentage, and the direct I/O the job
/// did counted on its disk. And "job options" as fio shows them for the same job: the same
/// options (those written without a value left out), the same values but the file's folder.
fn disk_util_and_job_options_as_fio_writes_them() -> Outcome {
    if common::have_fio().is_err() {
        return Outcome::Skip(
            "fio is not installed (scripts/install-test-tools.sh installs it)".into(),
        );
    }
    let dir = work_dir();
    let job = |data: &Path| {
        format!(
            "[d]\nfilename={}\nsize=8m\nrw=randrw\ndirect=1\nioengine=io_uring\niodepth=4\nruntime=1\ntime_based\n",
            p(data)
        )
    };
    let (mut lists, mut options) = (Vec::new(), Vec::new());
    for tool in ["iogauge", "fio"] {
        let here = dir.path().join(tool);
        std::fs::create_dir_all(&here).unwrap();
        std::fs::write(here.join("d.fio"), job(&here.join("d.dat"))).unwrap();
        let ran = match tool {
            "fio" => std::process::Command::new("fio")
                .current_dir(&here)
                .args(["--output-format=json", "d.fio"])
                .output()
                .unwrap(),
            _ => fio_cmd(&here, &["--no-save", "--output-format=json", "d.fio"]),
        };
        if !ran.status.success() {
            return Outcome::Fail(format!("{tool}: {}", stderr(&ran)));
        }
        let doc: Value = serde_json::from_slice(&ran.stdout).unwrap();
        lists.push(doc["disk_util"].as_array().cloned().unwrap_or_default());
        let mut opts = doc["jobs"][0]["job options"].clone();
        opts["filename"] = Value::from(
            opts["filename"]
                .as_str()
                .map(|f| f.replace(&format!("/{tool}/"), "/")),
        );
        // In the order written, as fio prints them: the keys as they come in the text.
        let text = String::from_utf8_lossy(&ran.stdout);
        let block = &text[text.find("\"job options\"").unwrap_or(0)..];
        let block = &block[block.find('{').map_or(0, |i| i + 1)..block.find('}').unwrap_or(0)];
        let keys: Vec<&str> = block
            .lines()
            .filter_map(|l| l.trim().strip_prefix('"')?.split_once('"'))
            .map(|(k, _)| k)
            .collect();
        opts["keys in order"] = Value::from(keys);
        options.push(opts);
    }
    if options[0] != options[1] {
        return Outcome::Fail(format!(
            "job options: iogauge {}, fio {}",
            options[0], options[1]
        ));
    }
    let names = |l: &[Value]| -> Vec<String> {
        l.iter()
            .map(|d| d["name"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let (ours, theirs) = (&lists[0], &lists[1]);
    if names(ours) != names(theirs) {
        return Outcome::Fail(format!(
            "iogauge {:?}, fio {:?}",
            names(ours),
            names(theirs)
        ));
    }
    if theirs.is_empty() {
        return Outcome::Skip(
            "no block device under the test folder: fio lists no disk either".into(),
        );
    }
    let keys = |d: &Value| -> Vec<String> { d.as_object().unwrap().keys().cloned().collect() };
    for (o, t) in ours.iter().zip(theirs) {
        let util = o["util"].as_f64().unwrap_or(-1.0);
        if keys(o) != keys(t) || !(0.0..=100.0).contains(&util) {
            return Outcome::Fail(format!("iogauge {o}\nfio {t}"));
        }
    }
    // The job's own disk is the first listed; its direct reads and writes reached it.
    let d = &ours[0];
    if d["read_ios"].as_u64() == Some(0) || d["write_ios"].as_u64() == Some(0) {
        return Outcome::Fail(format!("no I/O counted: {d}"));
    }
    Outcome::Pass(format!("{:?}: iogauge {d}, fio {}", names(ours), theirs[0]))
}

/// fio-plot (PyPI) on iogauge's JSON and logs, laid out as its bench-fio lays out fio's
/// (`4k/randread-4-1.json`, logs named `randread-iodepth-4-numjobs-1_TYPE.1.log`): every kind
/// of graph it draws from fio's output of the same job, it draws from iogauge's.
fn fio_plot_draws_what_it_draws_for_fio() -> Outcome {
    for tool in ["fio", "fio-plot"] {
        if sh("sh", &["-c", &format!("command -v {tool}")]).is_err() {
            return Outcome::Skip(format!(
                "{tool} is not installed (scripts/install-test-tools.sh installs it)"
            ));
        }
    }
    let name = "randread-iodepth-4-numjobs-1";
    let job = |data: &Path| {
        format!(
            "[global]\nioengine=libaio\ndirect=1\nbs=4k\nsize=16m\nruntime=2\ntime_based\nlog_avg_msec=500\n[{name}]\nrw=randread\niodepth=4\nnumjobs=1\nfilename={}\nwrite_bw_log={name}\nwrite_iops_log={name}\nwrite_lat_log={name}\n",
            p(data)
        )
    };
    // fio-plot's -g takes one log type at a time (fio's logs fail the same with several).
    let graphs: [&[&str]; 9] = [
        &["-g", "-t", "bw", "-d", "4", "-n", "1"],
        &["-g", "-t", "iops", "-d", "4", "-n", "1"],
        &["-g", "-t", "lat", "-d", "4", "-n", "1"],
        &["-g", "-t", "clat", "-d", "4", "-n", "1"],
        &["-g", "-t", "slat", "-d", "4", "-n", "1"],
        &["-l", "-n", "1"],
        &["-N", "-d", "4"],
        &["-H", "-d", "4", "-n", "1"],
        &["-L", "-t", "iops"],
    ];
    let dir = work_dir();
    let mut drawn = Vec::new();
    for tool in ["fio", "iogauge"] {
        let here = dir.path().join(tool);
        let results = here.join("4k");
        std::fs::create_dir_all(&results).unwrap();
        std::fs::write(results.join("job.fio"), job(&here.join("data"))).unwrap();
        let ran = match tool {
            "fio" => std::process::Command::new("fio")
                .current_dir(&results)
                .args([
                    "--output-format=json",
                    "--output=randread-4-1.json",
                    "job.fio",
                ])
                .output()
                .unwrap(),
            _ => fio_cmd(&results, &["--no-save", "--output-format=json", "job.fio"]),
        };
        if !ran.status.success() {
            return Outcome::Fail(format!("{tool}: {}", stderr(&ran)));
        }
        if tool == "iogauge" {
            std::fs::write(results.join("randread-4-1.json"), &ran.stdout).unwrap();
        }
        let _ = std::fs::remove_file(here.join("data"));
        let mut mine = Vec::new();
        for (i, g) in graphs.iter().enumerate() {
            let png = format!("g{i}.png");
            let o = std::process::Command::new("fio-plot")
                .current_dir(&here)
                .args(["-i", "4k", "-T", "t", "-r", "randread", "-o", &png])
                .args(*g)
                .output()
                .unwrap();
            let size = std::fs::metadata(here.join(&png)).map_or(0, |m| m.len());
            if o.status.success() && size > 0 {
                mine.push(g.join(" "));
            } else if tool == "iogauge" {
                return Outcome::Fail(format!(
                    "fio-plot {} on iogauge's output: {}{}",
                    g.join(" "),
                    String::from_utf8_lossy(&o.stdout),
                    stderr(&o)
                ));
            }
        }
        drawn.push(mine);
    }
    if drawn[0].is_empty() || drawn[0] != drawn[1] {
        return Outcome::Fail(format!("fio: {:?}; iogauge: {:?}", drawn[0], drawn[1]));
    }
    Outcome::Pass(format!("both drew: {}", drawn[0].join("; ")))
}

/// A python3 that can run fio's hist tools (they need pandas and numpy): the one on PATH,
/// else the system's.
fn python_with_pandas() -> Option<&'static str> {
    ["python3", "/usr/bin/python3"]
        .into_iter()
        .find(|py| sh(py, &["-c", "import pandas, numpy"]).is_ok())
}

/// write_hist_log with log_hist_msec: fio's histogram log, read by fio's own
/// fiologparser_hist.py (shipped gzipped in Debian's fio package) as it reads fio's from the
/// same job: the same columns, a row per second, medians of the same order.
fn fiologparser_hist_reads_the_hist_log() -> Outcome {
    let Some(python) = python_with_pandas() else {
        return Outcome::Skip("no python3 with pandas and numpy, which fiologparser_hist.py needs (scripts/install-test-tools.sh installs python3-pandas)".into());
    };
    let tables = match hist_tool_on_both("fiologparser_hist.py", python, &[]) {
        Ok(t) => t,
        Err(o) => return o,
    };
    // "end-time, samples, min, avg, median, 90%, 95%, 99%, max" (ns).
    let rows = |t: &str| -> Vec<Vec<String>> {
        t.lines()
            .map(|l| l.split(", ").map(str::to_string).collect())
            .collect()
    };
    same_table(&tables, rows(&tables[0]), rows(&tables[1]), 4)
}

/// fio's other reader of histogram logs, fio-histo-log-pctiles.py (standard library only),
/// on iogauge's and fio's hist logs of the same job: the same columns, medians of the same
/// order.
fn fio_histo_log_pctiles_reads_the_hist_log() -> Outcome {
    let tables = match hist_tool_on_both(
        "fio-histo-log-pctiles.py",
        "python3",
        &["--log-hist-msec", "500"],
    ) {
        Ok(t) => t,
        Err(o) => return o,
    };
    // After its preamble: "msec-since-start, samples, min, median, 95.0, 99.0, max," (usec).
    let rows = |t: &str| -> Vec<Vec<String>> {
        t.lines()
            .skip_while(|l| !l.starts_with("msec-since-start"))
            .map(|l| {
                l.split(',')
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty())
                    .collect()
            })
            .collect()
    };
    same_table(&tables, rows(&tables[0]), rows(&tables[1]), 3)
}

/// Run fio's histogram tool `script` (gzipped in Debian's fio package) with `python` on the
/// hist logs iogauge and fio write for the same job: its output for each, iogauge's first.
fn hist_tool_on_both(script: &str, python: &str, args: &[&str]) -> Result<[String; 2], Outcome> {
    let gz = Path::new("/usr/share/doc/fio").join(format!("{script}.gz"));
    if common::have_fio().is_err() || !gz.exists() {
        return Err(Outcome::Skip(format!("fio or its {script} (Debian's fio package) is not installed (scripts/install-test-tools.sh installs it)")));
    }
    let dir = work_dir();
    let tool_path = dir.path().join(script);
    std::fs::write(&tool_path, sh("zcat", &[p(&gz)]).unwrap()).unwrap();
    let job = |data: &Path| {
        format!(
            "[h]\nfilename={}\nsize=16m\nrw=randrw\ndirect=1\nioengine=io_uring\niodepth=4\nruntime=3\ntime_based\nwrite_hist_log=h\nlog_hist_msec=500\n",
            p(data)
        )
    };
    let mut tables = Vec::new();
    for tool in ["iogauge", "fio"] {
        let here = dir.path().join(tool);
        std::fs::create_dir_all(&here).unwrap();
        std::fs::write(here.join("h.fio"), job(&here.join("h.dat"))).unwrap();
        let ran = match tool {
            "fio" => std::process::Command::new("fio")
                .current_dir(&here)
                .arg("h.fio")
                .output()
                .unwrap(),
            _ => fio_cmd(&here, &["--no-save", "h.fio"]),
        };
        if !ran.status.success() {
            return Err(Outcome::Fail(format!("{tool}: {}", stderr(&ran))));
        }
        let log = here.join("h_clat_hist.1.log");
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        // time, direction, block size and fio's 1856 bins.
        if text.lines().count() < 4 || text.lines().any(|l| l.split(", ").count() != 3 + 1856) {
            return Err(Outcome::Fail(format!(
                "{tool}: the hist log is not fio's shape"
            )));
        }
        let mut argv = vec![p(&tool_path)];
        argv.extend_from_slice(args);
        argv.push(p(&log));
        match sh(python, &argv) {
            Ok(t) => tables.push(t),
            Err(e) => return Err(Outcome::Fail(format!("{script} on {tool}'s log: {e}"))),
        }
    }
    Ok([tables.remove(0), tables.remove(0)])
}

/// Two tables a hist tool printed, iogauge's and fio's (header first, samples in column 1):
/// the same header, rows of its width, and the median (column `median`) of the busiest row
/// within a factor of 4 of fio's, for a shared test machine's noise.
fn same_table(
    tables: &[String; 2],
    ours: Vec<Vec<String>>,
    theirs: Vec<Vec<String>>,
    median: usize,
) -> Outcome {
    let unlike = || Outcome::Fail(format!("iogauge:\n{}\nfio:\n{}", tables[0], tables[1]));
    if ours.len() < 3 || theirs.is_empty() || ours[0] != theirs[0] {
        return unlike();
    }
    if ours.iter().any(|r| r.len() != ours[0].len()) {
        return unlike();
    }
    let busiest = |rows: &[Vec<String>]| -> f64 {
        let row = rows[1..]
            .iter()
            .max_by_key(|r| r[1].parse::<u64>().unwrap_or(0))
            .unwrap();
        row[median].parse().unwrap_or(f64::NAN)
    };
    let (m_ours, m_theirs) = (busiest(&ours), busiest(&theirs));
    if !(m_theirs / 4.0..=m_theirs * 4.0).contains(&m_ours) {
        return unlike();
    }
    Outcome::Pass(format!(
        "{}: median {m_ours:.1}, fio {m_theirs:.1}",
        ours[0].join(",")
    ))
}

/// fio logs no submission latency for engines that run I/O inline.
fn want_slat_of(engine: &str) -> usize {
    if engine == "psync" {
        0
    } else {
        256
    }
}

/// create_only lays a file out and keeps it; a later job may write it (iogauge made it); the
/// later job's startdelay holds it back.
fn create_only_and_startdelay() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("laid.dat");
    let fname = format!("--filename={}", p(&f));
    let t0 = std::time::Instant::now();
    let o = fio_cmd(
        dir.path(),
        &[
            "--name=prep",
            &fname,
            "--size=8m",
            "--create_only=1",
            "--name=w",
            "--stonewall",
            "--startdelay=1500ms",
            &fname,
            "--size=8m",
            "--rw=randwrite",
            "--number_ios=100",
            "--output-format=json",
            "--no-save",
        ],
    );
    let took = t0.elapsed().as_secs_f64();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "stderr of a clean run: {}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        doc["jobs"].as_array().unwrap().len(),
        1,
        "create_only measures nothing"
    );
    assert_eq!(doc["jobs"][0]["write"]["total_ios"], 100);
    assert!(took >= 1.5, "the second job started after {took:.2} s");
    assert_eq!(
        std::fs::metadata(&f).map(|m| m.len()).ok(),
        Some(8 << 20),
        "laid out and kept"
    );
    Outcome::Pass(String::new())
}

/// fio's steadystate= stops a job as fio stops it: after ss_ramp and one full ss_dur window
/// that meets the criterion, with fio's `steadystate` object in the JSON and its line in the
/// text; a criterion never met runs the full runtime. Where fio is installed, it runs the same
/// job and its object has the same keys.
fn steadystate_stops_as_fio_does() -> Outcome {
    let dir = work_dir();
    // Deviation from the mean of two points is at most the mean: iops:101% is met by the
    // first full window of any job that does I/O, so the stop time is fio's rule alone.
    let job = "[global]\nfilename=ss.dat\nsize=8m\nrw=read\ntime_based\n\
               [flat]\nruntime=30\nss=iops:101%\nss_dur=2\nss_ramp=1\n\
               [never]\nstonewall\nruntime=3\nss=iops_slope:0%\nss_dur=2\n";
    std::fs::write(dir.path().join("ss.fio"), job).unwrap();
    let o = fio_cmd(dir.path(), &["ss.fio", "--output-format=json", "--no-save"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let (flat, never) = (&doc["jobs"][0], &doc["jobs"][1]);
    let ms = u(&flat["job_runtime"]);
    assert!(
        (3000..6000).contains(&ms),
        "stopped after {ms} ms (ramp 1 s + window 2 s)"
    );
    let ss = &flat["steadystate"];
    assert_eq!(ss["ss"], "iops:101.000000%");
    assert_eq!(
        (ss["duration"].clone(), ss["attained"].clone()),
        (2.into(), 1.into())
    );
    assert_eq!(ss["data"]["iops"].as_array().map(Vec::len), Some(2), "{ss}");
    assert!(
        u(&ss["data"]["iops_mean"]) > 0 && u(&ss["data"]["bw_mean"]) > 0,
        "{ss}"
    );
    assert!(ss["criterion"].as_str().unwrap().ends_with('%'));
    let ms = u(&never["job_runtime"]);
    assert!(ms >= 2900, "a criterion never met ran {ms} ms of 3000");
    assert_eq!(never["steadystate"]["attained"], 0);
    let text = fio_cmd(dir.path(), &["ss.fio", "--no-save"]);
    let text = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(text.contains("steadystate  : attained=yes"), "{text}");
    assert!(text.contains("steadystate  : attained=no"), "{text}");
    let Ok(fio) = std::process::Command::new("fio")
        .current_dir(dir.path())
        .args(["--output-format=json", "ss.fio"])
        .output()
    else {
        return Outcome::Skip("fio is not installed (scripts/install-test-tools.sh installs it): iogauge's side checked, fio's not run".into());
    };
    assert!(fio.status.success(), "fio: {}", stderr(&fio));
    let theirs: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let ss_fio = &theirs["jobs"][0]["steadystate"];
    assert_eq!(keys(ss), keys(ss_fio), "fio's steadystate keys");
    assert_eq!(keys(&ss["data"]), keys(&ss_fio["data"]));
    assert_eq!(ss_fio["attained"], 1, "fio met iops:101% too: {ss_fio}");
    Outcome::Pass(format!(
        "stopped after {} ms; fio after {} ms",
        u(&flat["job_runtime"]),
        u(&theirs["jobs"][0]["job_runtime"])
    ))
}

/// Run `cmd` in `dir` under strace with `filter` (strace's own options, before `-o`): the
/// command's output and strace's log.
fn under_strace(
    dir: &Path,
    filter: &[&str],
    cmd: &std::process::Command,
) -> Result<(Output, String), String> {
    let trace = dir.join("strace.txt");
    let o = std::process::Command::new("strace")
        .current_dir(dir)
        .args(filter)
        .arg("-o")
        .arg(&trace)
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env("IOGAUGE_DB", common::test_db())
        .output()
        .map_err(|e| format!("strace: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "{} under strace: {}",
            cmd.get_program().to_string_lossy(),
            stderr(&o)
        ));
    }
    let text = std::fs::read_to_string(&trace).map_err(|e| e.to_string())?;
    Ok((o, text))
}

/// Count the flush system calls of `iogauge fio JOBFILE` with strace: (fsync, fdatasync), and
/// the fio-shaped JSON.
fn traced_flushes(dir: &Path, job: &Path) -> Result<(u64, u64, Value), String> {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_iogauge"));
    cmd.args(["fio", "--no-save", "--output-format=json"])
        .arg(job);
    let (o, text) = under_strace(
        dir,
        &["-f", "-qq", "-c", "-e", "trace=fsync,fdatasync"],
        &cmd,
    )?;
    let calls = |name: &str| -> u64 {
        text.lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .and_then(|l| l.split_whitespace().nth(3))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let doc: Value = serde_json::from_slice(&o.stdout).map_err(|e| e.to_string())?;
    Ok((calls("fsync"), calls("fdatasync"), doc))
}

/// fsync, fdatasync and end_fsync issue exactly the flushes they say (counted by strace), and
/// the JSON counts them as fio does; where fio is installed, it counts the same on the same job.
fn flushes_are_the_system_calls_strace_counts() -> Outcome {
    if sh("strace", &["-V"]).is_err() {
        return Outcome::Skip("strace is not installed (scripts/install-test-tools.sh)".into());
    }
    let dir = work_dir();
    let mut said = Vec::new();
    // 256 writes of 4k: a flush after every 4th, but none after the last (the job is over),
    // as fio does; end_fsync adds one, outside fio's count. iogauge syncs the file it lays
    // out once more. etcd's recipe (bs=2300, fdatasync=1) leaves part of a block of 1m
    // unused: fio asks for one more I/O, issues the flush due, then finds no block fits, so
    // its 455 writes make 455 flushes.
    for (bs, opts, fsyncs, fdatasyncs, counted) in [
        ("4k", "fsync=4\nend_fsync=1", 65, 0, 63),
        ("4k", "fdatasync=8", 1, 31, 31),
        ("2300", "fdatasync=1", 1, 455, 455),
    ] {
        let job = dir.path().join("flush.fio");
        let text = format!(
            "[w]\nfilename={}\nrw=write\nbs={bs}\nsize=1m\nioengine=psync\n{opts}\n",
            p(&dir.path().join("flush.dat"))
        );
        std::fs::write(&job, &text).unwrap();
        let (fs, fds, doc) = match traced_flushes(dir.path(), &job) {
            Ok(x) => x,
            Err(e) => return Outcome::Fail(e),
        };
        let sync = &doc["jobs"][0]["sync"];
        if (fs, fds, sync["total_ios"].as_u64()) != (fsyncs, fdatasyncs, Some(counted)) {
            return Outcome::Fail(format!(
                "{opts}: strace counted {fs} fsync and {fds} fdatasync, the JSON {}; expected {fsyncs}, {fdatasyncs} and {counted}",
                sync["total_ios"]
            ));
        }
        if sync["lat_ns"]["N"].as_u64() != Some(counted)
            || sync["lat_ns"]["min"].as_u64() == Some(0)
        {
            return Outcome::Fail(format!("{opts}: sync latency not filled: {sync}"));
        }
        if common::have_fio().is_ok() {
            let fio_job = dir.path().join("flush-fio.fio");
            std::fs::write(&fio_job, text.replace("flush.dat", "flush-fio.dat")).unwrap();
            let out = sh("fio", &["--output-format=json", p(&fio_job)]);
            let _ = std::fs::remove_file(dir.path().join("flush-fio.dat"));
            let fio_doc: Value = match out.map(|o| serde_json::from_str(&o)) {
                Ok(Ok(d)) => d,
                other => return Outcome::Fail(format!("fio: {other:?}")),
            };
            // fio 3.33 leaves sync.total_ios at 0 for fdatasync (it counts only fsync there);
            // its latency count covers both.
            let theirs = &fio_doc["jobs"][0]["sync"]["lat_ns"]["N"];
            if theirs.as_u64() != Some(counted) {
                return Outcome::Fail(format!(
                    "{opts}: fio timed {theirs} syncs, iogauge {counted}"
                ));
            }
            said.push(format!("{}: fio {theirs} too", opts.replace('\n', " ")));
        }
    }
    Outcome::Pass(said.join("; "))
}

/// The bytes a fio command line moves, written or read, as its JSON says; run in `dir` by
/// `tool` ("iogauge" or "fio").
fn moved(tool: &str, dir: &Path, args: &[&str]) -> Result<(u64, u64), String> {
    let out = match tool {
        "fio" => std::process::Command::new("fio")
            .current_dir(dir)
            .args(args)
            .arg("--output-format=json")
            .output()
            .map_err(|e| format!("fio: {e}"))?,
        _ => {
            let mut all = args.to_vec();
            all.extend(["--output-format=json", "--allow-overwrite", "--no-save"]);
            fio_cmd(dir, &all)
        }
    };
    if !out.status.success() {
        return Err(format!("{tool} {args:?}: {}", stderr(&out)));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let doc: Value = serde_json::from_str(&text[text.find('{').unwrap_or(0)..])
        .map_err(|e| format!("{tool} {args:?}: {e}"))?;
    let job = &doc["jobs"][0];
    Ok((u(&job["read"]["io_bytes"]), u(&job["write"]["io_bytes"])))
}

/// filesize= bounds what a job moves as fio sizes it (Google Cloud's raw-disk recipes give
/// filesize= alone): on a file larger than it, from an offset, with size=, with nrfiles, as a
/// range, and on a loop device (made where this runs as root); beside fio where installed.
fn filesize_bounds_the_bytes_as_fio() -> Outcome {
    let dir = work_dir();
    let d = dir.path();
    std::fs::File::create(d.join("big.dat"))
        .and_then(|f| f.set_len(128 << 20))
        .unwrap();
    let with_fio = common::have_fio().is_ok();
    let mut said = Vec::new();
    let check = |target: &str, args: &[&str], want: u64| -> Result<(), String> {
        let mut all = vec!["--name=fs", target, "--bs=1m"];
        all.extend(args);
        let (_, ours) = moved("iogauge", d, &all)?;
        if ours != want {
            return Err(format!(
                "{all:?}: iogauge wrote {ours} bytes, expected {want}"
            ));
        }
        if with_fio {
            let (_, theirs) = moved("fio", d, &all)?;
            for f in 0..3 {
                let _ = std::fs::remove_file(d.join(format!("fs.0.{f}")));
            }
            if theirs != ours {
                return Err(format!("{all:?}: fio wrote {theirs} bytes, iogauge {ours}"));
            }
        }
        Ok(())
    };
    let file = "--filename=big.dat";
    let cases: [(&str, &[&str], u64); 5] = [
        (file, &["--filesize=64m", "--rw=write"], 64 << 20),
        (
            file,
            &["--filesize=64m", "--offset=16m", "--rw=write"],
            48 << 20,
        ),
        (
            file,
            &["--filesize=64m", "--size=16m", "--rw=randwrite"],
            16 << 20,
        ),
        ("--nrfiles=3", &["--filesize=8m", "--rw=write"], 24 << 20),
        (
            "--nrfiles=3",
            &["--filesize=8m", "--size=12m", "--rw=randwrite"],
            12 << 20,
        ),
    ];
    for (target, args, want) in cases {
        if let Err(e) = check(target, args, want) {
            return Outcome::Fail(e);
        }
    }
    said.push(format!(
        "5 file cases{}",
        if with_fio { ", as fio" } else { "" }
    ));
    // A range: each file a size drawn in it, in whole blocks; the bytes are their sum.
    let args = [
        "--name=fs",
        "--nrfiles=3",
        "--filesize=1m-4m",
        "--bs=4k",
        "--rw=write",
        "--keep",
    ];
    let (_, wrote) = match moved("iogauge", d, &args) {
        Ok(m) => m,
        Err(e) => return Outcome::Fail(e),
    };
    let sizes: Vec<u64> = (0..3)
        .map(|f| std::fs::metadata(d.join(format!("fs.0.{f}"))).map_or(0, |m| m.len()))
        .collect();
    if !sizes
        .iter()
        .all(|&s| (1 << 20..=4 << 20).contains(&s) && s % 4096 == 0)
        || wrote != sizes.iter().sum::<u64>()
    {
        return Outcome::Fail(format!(
            "filesize=1m-4m: files of {sizes:?}, {wrote} bytes written"
        ));
    }
    if !common::is_root() {
        said.push("SKIPPED the loop device: not root".into());
        return Outcome::Pass(said.join("; "));
    }
    let Ok(dev) = sh("losetup", &["-f", "--show", p(&d.join("big.dat"))]) else {
        said.push("SKIPPED the loop device: losetup could not make one".into());
        return Outcome::Pass(said.join("; "));
    };
    let target = format!("--filename={dev}");
    // On a device larger than filesize= its first filesize bytes; on a smaller one, to its end.
    let r = check(&target, &["--filesize=64m", "--rw=write"], 64 << 20)
        .and_then(|()| check(&target, &["--filesize=256m", "--rw=write"], 128 << 20));
    let _ = sh("losetup", &["-d", &dev]);
    match r {
        Ok(()) => {
            said.push("a loop device of 128 MiB: 64 MiB and 128 MiB".into());
            Outcome::Pass(said.join("; "))
        }
        Err(e) => Outcome::Fail(e),
    }
}

/// verify=md5: fio reads back what the job wrote and reports those reads as the job's reads
/// (read io_bytes, io_kbytes, total_ios), in its JSON and its text; iogauge the same, with
/// a line saying what was checked. Beside fio where it is installed.
fn verification_reads_as_fio_reports_them() -> Outcome {
    let dir = work_dir();
    let args = [
        "--name=v",
        "--filename=v.dat",
        "--size=16m",
        "--rw=write",
        "--bs=4k",
        "--verify=md5",
    ];
    let mut all = args.to_vec();
    all.extend(["--output-format=json", "--no-save"]);
    let o = fio_cmd(dir.path(), &all);
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let doc: Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let read = &doc["jobs"][0]["read"];
    let seen = (
        u(&read["io_bytes"]),
        u(&read["io_kbytes"]),
        u(&read["total_ios"]),
    );
    if seen != (16 << 20, 16 << 10, 4096) || u(&read["runtime"]) == 0 || read["bw"] == 0 {
        return Outcome::Fail(format!("the read-back as reads: {read}"));
    }
    let mut all = args.to_vec();
    all.push("--no-save");
    let text = String::from_utf8_lossy(&fio_cmd(dir.path(), &all).stdout).into_owned();
    if !text.contains("  read: IOPS=") || !text.contains("READ: bw=") {
        return Outcome::Fail(format!("no read line in the text:\n{text}"));
    }
    if !text.contains(
        "verify       : 4096 blocks of 4.0KiB checked (0 as read, 4096 read back), 0 mismatches",
    ) {
        return Outcome::Fail(format!("no verification line in the text:\n{text}"));
    }
    if common::have_fio().is_err() {
        return Outcome::Pass("SKIPPED the comparison: fio is not installed".into());
    }
    match moved("fio", dir.path(), &args) {
        Ok((r, w)) if (r, w) == (16 << 20, 16 << 20) => {
            Outcome::Pass("fio reads 16 MiB back too".into())
        }
        Ok(m) => Outcome::Fail(format!("fio read and wrote {m:?}")),
        Err(e) => Outcome::Fail(e),
    }
}

/// A job of less than a millisecond ran 1 ms in fio's text (its runtime is rounded up from
/// microseconds), never "run=0-0msec".
fn sub_millisecond_jobs_ran_a_millisecond() -> Outcome {
    let dir = work_dir();
    let o = fio_cmd(
        dir.path(),
        &["--name=t", "--ioengine=null", "--size=4k", "--no-save"],
    );
    let text = String::from_utf8_lossy(&o.stdout);
    if !o.status.success() || !text.contains("run=1-1msec") || !text.contains("/1msec)") {
        return Outcome::Fail(format!("{}\n{text}", stderr(&o)));
    }
    Outcome::Pass(String::new())
}

/// numjobs=2 with averaged bw and iops logs: fio writes one log per clone (NAME_bw.1.log and
/// NAME_bw.2.log), each with its own clone's rate.
fn averaged_logs_per_clone() -> Outcome {
    let dir = work_dir();
    let o = fio_cmd(
        dir.path(),
        &[
            "--name=lg",
            "--ioengine=null",
            "--size=1g",
            "--numjobs=2",
            "--rate=10m",
            "--runtime=2",
            "--time_based",
            "--write_bw_log=foo",
            "--write_iops_log=foo",
            "--log_avg_msec=500",
            "--no-save",
        ],
    );
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let want = [
        "foo_bw.1.log",
        "foo_bw.2.log",
        "foo_iops.1.log",
        "foo_iops.2.log",
    ];
    if names != want {
        return Outcome::Fail(format!("logs {names:?}, expected {want:?}"));
    }
    for clone in ["foo_bw.1.log", "foo_bw.2.log"] {
        let text = std::fs::read_to_string(dir.path().join(clone)).unwrap();
        let rates: Vec<u64> = text
            .lines()
            .filter_map(|l| l.split(", ").nth(1)?.parse().ok())
            .collect();
        // Each clone's own 10 MiB/s (10240 KiB/s), not the two together.
        if rates.len() < 2 || rates.iter().any(|&r| !(5_000..15_000).contains(&r)) {
            return Outcome::Fail(format!("{clone}: {text}"));
        }
    }
    Outcome::Pass(String::new())
}

/// A job file of many small jobs: Ctrl-C while they start ends the run promptly, and the
/// JSON asked for is still written (no job done: a document with no jobs, as fio). Before,
/// every job of the group was still started (about 6 s here) and stdout stayed empty. The
/// jobs already setting up finish their set-up first: 1.4 to 3.7 s on 2 loaded cores, so the
/// bound is 4 s.
fn ctrl_c_during_many_jobs_stops_promptly_with_json() -> Outcome {
    let dir = work_dir();
    let mut text = String::from("[global]\nioengine=null\nsize=4k\n");
    for i in 0..2000 {
        text.push_str(&format!("[j{i}]\n"));
    }
    std::fs::write(dir.path().join("many.fio"), text).unwrap();
    let mut child = bin()
        .current_dir(dir.path())
        .args(["fio", "many.fio", "--output-format=json", "--no-save"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(1));
    let t0 = std::time::Instant::now();
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let mut took = None;
    while t0.elapsed() < std::time::Duration::from_secs(30) {
        if child.try_wait().unwrap().is_some() {
            took = Some(t0.elapsed());
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    let Some(took) = took else {
        return Outcome::Fail("still running 30 s after SIGINT".into());
    };
    let doc: Result<Value, _> = serde_json::from_slice(&o.stdout);
    if took > std::time::Duration::from_secs(4) || o.status.code() != Some(130) {
        return Outcome::Fail(format!("exit {:?} after {took:?}", o.status.code()));
    }
    match doc {
        Ok(d) if d["jobs"].is_array() => Outcome::Pass(format!("exited {took:?} after SIGINT")),
        other => Outcome::Fail(format!("no JSON document on stdout: {other:?}")),
    }
}

/// Read IOPS of one second of `thinktime=2ms` on the null engine.
fn think_iops(dir: &std::path::Path) -> Result<f64, String> {
    let o = fio_cmd(
        dir,
        &[
            "--name=think",
            "--ioengine=null",
            "--size=1m",
            "--thinktime=2ms",
            "--runtime=1",
            "--time_based",
            "--output-format=json",
            "--no-save",
        ],
    );
    if !o.status.success() {
        return Err(stderr(&o));
    }
    let doc: Value = serde_json::from_slice(&o.stdout).map_err(|e| e.to_string())?;
    Ok(doc["jobs"][0]["read"]["iops"].as_f64().unwrap_or(0.0))
}

/// bssplit, thinktime and buffer_compress_percentage do what they say, end to end.
fn block_mixes_think_time_and_compressible_data() -> Outcome {
    let dir = work_dir();
    let data = dir.path().join("mix.dat");
    let o = fio_cmd(
        dir.path(),
        &[
            "--name=mix",
            &format!("--filename={}", p(&data)),
            "--size=32m",
            "--rw=randread",
            "--bssplit=4k/50:64k/50",
            "--io_size=64m",
            "--output-format=json",
            "--no-save",
        ],
    );
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let read = &doc["jobs"][0]["read"];
    let mean = read["io_bytes"].as_f64().unwrap() / read["total_ios"].as_f64().unwrap();
    // (4096 + 65536) / 2 = 34816 bytes per I/O on average.
    if (mean / 34816.0 - 1.0).abs() > 0.03 {
        return Outcome::Fail(format!("bssplit 4k/50:64k/50: {mean:.0} bytes per I/O"));
    }
    // thinktime=2ms after every I/O on the null engine: just under 500 I/Os a second. A busy
    // machine wakes a sleeper late, so a run out of range is tried again (3 runs at most): a
    // think time that is wrong is wrong every time.
    let in_range = |iops: f64| (300.0..=500.5).contains(&iops);
    let mut iops = 0.0;
    for _ in 0..3 {
        iops = match think_iops(dir.path()) {
            Ok(v) => v,
            Err(e) => return Outcome::Fail(e),
        };
        if in_range(iops) {
            break;
        }
    }
    if !in_range(iops) {
        return Outcome::Fail(format!(
            "thinktime=2ms gave {iops:.0} IOPS in 3 runs, expected just under 500"
        ));
    }
    // buffer_compress_percentage=50: the second half of every 512 bytes is zeros.
    let comp = dir.path().join("comp.dat");
    let o = fio_cmd(
        dir.path(),
        &[
            "--name=comp",
            &format!("--filename={}", p(&comp)),
            "--size=4m",
            "--rw=write",
            "--buffer_compress_percentage=50",
            "--keep",
            "--no-save",
        ],
    );
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let bytes = std::fs::read(&comp).unwrap();
    let zero_tails = bytes.chunks(512).all(|c| c[256..].iter().all(|&b| b == 0));
    let random_heads = bytes
        .chunks(512)
        .filter(|c| c[..256].iter().all(|&b| b == 0))
        .count();
    if bytes.len() != 4 << 20 || !zero_tails || random_heads > 0 {
        return Outcome::Fail(format!(
            "compressible data: {} bytes, zero tails {zero_tails}, {random_heads} all-zero heads",
            bytes.len()
        ));
    }
    let mut said = format!("{mean:.0} bytes per I/O, {iops:.0} IOPS with thinktime");
    // What users care about: how well the data compresses.
    match sh(
        "python3",
        &[
            "-c",
            "import sys,zlib; d=open(sys.argv[1],'rb').read(); print(len(zlib.compress(d,6))/len(d))",
            p(&comp),
        ],
    ) {
        Ok(r) => {
            let ratio: f64 = r.parse().unwrap_or(0.0);
            if !(0.45..=0.6).contains(&ratio) {
                return Outcome::Fail(format!("buffer_compress_percentage=50 compressed to {ratio:.3}"));
            }
            said.push_str(&format!(", zlib ratio {ratio:.3}"));
        }
        Err(e) => said.push_str(&format!(", zlib ratio not checked ({e})")),
    }
    Outcome::Pass(said)
}

/// The file sizes and names under `dir`, sorted, without the job file.
fn laid_out(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().map_or(0, |m| m.len()),
            )
        })
        .filter(|(n, _)| !n.ends_with(".fio") && !n.ends_with(".txt"))
        .collect();
    v.sort();
    v
}

/// nrfiles and `a:b` file lists: the files fio would lay out, each clone moving size= over
/// all of them, every file getting its turn, and end_fsync flushing each file written (strace
/// counts the calls; fio, where installed, lays out and counts the same).
fn several_files_per_job() -> Outcome {
    let dir = work_dir();
    let mut said = Vec::new();
    // nrfiles=3, two clones: x.0.0 .. x.1.2, 1 MiB each; each clone writes 3 MiB.
    let job = "[x]\nnrfiles=3\nsize=3m\nrw=write\nbs=4k\nnumjobs=2\nioengine=psync\n";
    let ours = dir.path().join("ours");
    std::fs::create_dir(&ours).unwrap();
    std::fs::write(ours.join("n.fio"), job).unwrap();
    let o = fio_cmd(
        &ours,
        &["--keep", "--no-save", "--output-format=json", "n.fio"],
    );
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let bytes: Vec<u64> = doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["write"]["io_bytes"].as_u64().unwrap_or(0))
        .collect();
    let files = laid_out(&ours);
    let expected: Vec<(String, u64)> = (0..2)
        .flat_map(|j| (0..3).map(move |f| (format!("x.{j}.{f}"), 1u64 << 20)))
        .collect();
    if bytes != [3 << 20, 3 << 20] || files != expected {
        return Outcome::Fail(format!(
            "nrfiles=3 numjobs=2: wrote {bytes:?}, laid out {files:?}"
        ));
    }
    if common::have_fio().is_ok() {
        let theirs = dir.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::write(theirs.join("n.fio"), job).unwrap();
        let out = std::process::Command::new("fio")
            .current_dir(&theirs)
            .args(["--output-format=json", "n.fio"])
            .output()
            .map_err(|e| e.to_string());
        let fio_doc: Value = match out.map(|o| serde_json::from_slice(&o.stdout)) {
            Ok(Ok(d)) => d,
            other => return Outcome::Fail(format!("fio: {other:?}")),
        };
        let fio_bytes: Vec<u64> = fio_doc["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["write"]["io_bytes"].as_u64().unwrap_or(0))
            .collect();
        if fio_bytes != bytes || laid_out(&theirs) != files {
            return Outcome::Fail(format!(
                "fio wrote {fio_bytes:?} and laid out {:?}; iogauge {bytes:?} and {files:?}",
                laid_out(&theirs)
            ));
        }
        said.push("fio lays out and writes the same".to_string());
    }
    // filename=a:b: size= shared (512 KiB each); turns by roundrobin:2; end_fsync syncs both.
    if sh("strace", &["-V"]).is_err() {
        return Outcome::Skip("strace is not installed (scripts/install-test-tools.sh)".into());
    }
    let (a, b) = (dir.path().join("a.dat"), dir.path().join("b.dat"));
    let job = dir.path().join("ab.fio");
    std::fs::write(
        &job,
        format!(
            "[ab]\nfilename={}:{}\nrw=write\nbs=4k\nsize=1m\nioengine=psync\nfile_service_type=roundrobin:2\nfsync=16\nend_fsync=1\n",
            p(&a),
            p(&b)
        ),
    )
    .unwrap();
    let (fsyncs, _, doc) = match traced_flushes(dir.path(), &job) {
        Ok(x) => x,
        Err(e) => return Outcome::Fail(e),
    };
    // 256 writes: 15 periodic flushes (none after the last write), one end flush per file,
    // and one per file iogauge lays out.
    let counted = doc["jobs"][0]["sync"]["total_ios"].as_u64();
    if (fsyncs, counted) != (15 + 2 + 2, Some(15)) {
        return Outcome::Fail(format!(
            "a:b with fsync=16 and end_fsync: strace counted {fsyncs} fsyncs, the JSON {counted:?}; expected 19 and 15"
        ));
    }
    // Per file, from the native JSON of the same workload.
    let o = bin()
        .args([
            "run",
            "--no-save",
            "--output",
            "json",
            "-c",
            "512k",
            "-w",
            "100",
            "-b",
            "4k",
        ])
        .args([
            "-s", "--total", "1m", "-W", "0", "--cache", "buffered", "--engine", "sync",
        ])
        .args([
            "--file-set",
            "all",
            "--file-service",
            "roundrobin:2",
            "--allow-overwrite",
        ])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let shares: Vec<u64> = doc["targets"][0]["files"]
        .as_array()
        .map(|fs| {
            fs.iter()
                .map(|f| f["write"]["ios"].as_u64().unwrap_or(0))
                .collect()
        })
        .unwrap_or_default();
    if shares != [128, 128] {
        return Outcome::Fail(format!(
            "roundrobin:2 over two files wrote {shares:?} I/Os each"
        ));
    }
    said.push(format!("{fsyncs} fsyncs for a:b, 128 writes each"));
    Outcome::Pass(said.join("; "))
}

const FILE_OPS: &str = "\
; create, stat and delete 200 files each, as fio's example jobs for these engines do
[global]
nrfiles=200
filesize=4k

[create]
ioengine=filecreate
create_on_open=1
openfiles=1

[stat]
stonewall
ioengine=filestat

[delete]
stonewall
ioengine=filedelete
";

/// Per job of a fio JSON document: name, read total_ios, clat samples, io_bytes, and the
/// median completion latency in ns.
fn operations(doc: &Value) -> Vec<(String, u64, u64, u64, f64)> {
    doc["jobs"]
        .as_array()
        .map(|jobs| {
            jobs.iter()
                .map(|j| {
                    let r = &j["read"];
                    (
                        j["jobname"].as_str().unwrap_or("").to_string(),
                        r["total_ios"].as_u64().unwrap_or(0)
                            + j["write"]["total_ios"].as_u64().unwrap_or(0),
                        r["clat_ns"]["N"].as_u64().unwrap_or(0),
                        r["io_bytes"].as_u64().unwrap_or(u64::MAX),
                        r["clat_ns"]["percentile"]["50.000000"]
                            .as_f64()
                            .unwrap_or(0.0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// fio's filecreate, filestat and filedelete run as the fs suite's operations, one per file,
/// each timed: fio's counts, the files each job leaves, refusals that keep a user's files
/// safe, and, where fio is installed, the same counts on the same job file, run right after
/// iogauge's. Of the latencies only stat's is judged (within 4x of fio's median): a stat of a
/// cached name costs each tool its own overhead and little else, while this VM's creates and
/// deletes wait on the ext4 journal and the disk (seen from 0.27x to 0.90x of fio's for
/// creates, one run each); those two are reported.
fn file_operation_engines() -> Outcome {
    let dir = work_dir();
    let ours = dir.path().join("ours");
    std::fs::create_dir(&ours).unwrap();
    std::fs::write(ours.join("ops.fio"), FILE_OPS).unwrap();
    let o = fio_cmd(
        &ours,
        &["--keep", "--no-save", "--output-format=json", "ops.fio"],
    );
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let doc: Value = match serde_json::from_slice(&o.stdout) {
        Ok(d) => d,
        Err(e) => return Outcome::Fail(format!("not JSON: {e}")),
    };
    let got = operations(&doc);
    let names: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
    if names != ["create", "stat", "delete"]
        || got
            .iter()
            .any(|g| (g.1, g.2, g.3) != (200, 200, 0) || g.4 <= 0.0)
    {
        return Outcome::Fail(format!(
            "expected 200 operations, 200 latencies, no bytes and a median per job: {got:?}"
        ));
    }
    // create leaves 200 empty files; stat's were laid out at filesize; delete's are gone.
    let files = laid_out(&ours);
    let count = |prefix: &str, size: u64| {
        files
            .iter()
            .filter(|(n, s)| n.starts_with(prefix) && *s == size)
            .count()
    };
    if (count("create.0.", 0), count("stat.0.", 4096), files.len()) != (200, 200, 400) {
        return Outcome::Fail(format!(
            "after the jobs: {} empty create files, {} stat files of 4 KiB, {} files in all",
            count("create.0.", 0),
            count("stat.0.", 4096),
            files.len()
        ));
    }
    let compared = if common::have_fio().is_ok() {
        let theirs = dir.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::write(theirs.join("ops.fio"), FILE_OPS).unwrap();
        let out = std::process::Command::new("fio")
            .current_dir(&theirs)
            .args(["--output-format=json", "ops.fio"])
            .output()
            .map_err(|e| e.to_string());
        let fio_doc: Value = match out.map(|o| serde_json::from_slice(&o.stdout)) {
            Ok(Ok(d)) => d,
            other => return Outcome::Fail(format!("fio: {other:?}")),
        };
        let fio = operations(&fio_doc);
        if fio.len() != 3 || fio.iter().any(|f| (f.1, f.2) != (200, 200)) {
            return Outcome::Fail(format!("fio counted {fio:?}"));
        }
        let mut ratios = Vec::new();
        for (g, f) in got.iter().zip(&fio) {
            let ratio = g.4 / f.4.max(1.0);
            ratios.push(format!("{} {:.0}/{:.0} ns = {ratio:.2}x", g.0, g.4, f.4));
            if g.0 == "stat" && !(0.25..=4.0).contains(&ratio) {
                return Outcome::Fail(format!(
                    "median stat latency against fio's: {}",
                    ratios.join(", ")
                ));
            }
        }
        format!(
            "fio counts the same; medians iogauge/fio: {}",
            ratios.join(", ")
        )
    } else {
        "fio not installed, no comparison".to_string()
    };
    // Again on the kept files: a create that finds its file is refused before anything runs.
    let o = fio_cmd(&ours, &["--no-save", "ops.fio"]);
    let e = stderr(&o);
    if o.status.code() != Some(2)
        || !e.contains("job 'create' creates")
        || !e.contains("which exists")
    {
        return Outcome::Fail(format!(
            "filecreate over existing files: {:?} {e}",
            o.status.code()
        ));
    }
    // A user's file is deleted only with --allow-overwrite.
    let mine = dir.path().join("mine.txt");
    std::fs::write(&mine, "keep me").unwrap();
    let o = fio_cmd(
        dir.path(),
        &[
            "--no-save",
            "--name=d",
            "--ioengine=filedelete",
            &format!("--filename={}", p(&mine)),
        ],
    );
    let e = stderr(&o);
    if o.status.code() != Some(2) || !e.contains("--allow-overwrite") || !mine.exists() {
        return Outcome::Fail(format!(
            "filedelete of a user's file: {:?} {e}",
            o.status.code()
        ));
    }
    // Without --keep, every file the jobs made is removed.
    let clean = dir.path().join("clean");
    std::fs::create_dir(&clean).unwrap();
    std::fs::write(clean.join("ops.fio"), FILE_OPS).unwrap();
    let o = fio_cmd(&clean, &["--no-save", "ops.fio"]);
    if !o.status.success() || !laid_out(&clean).is_empty() {
        return Outcome::Fail(format!(
            "without --keep: {} files left; {}",
            laid_out(&clean).len(),
            stderr(&o)
        ));
    }
    Outcome::Pass(format!(
        "200 creates, stats and deletes, each timed; a user's file kept; {compared}"
    ))
}

/// Share of the 4 KiB preads of `cmd` (run under strace in `dir`) that land below `below`.
fn pread_share(
    dir: &Path,
    cmd: &mut std::process::Command,
    below: u64,
) -> Result<(usize, f64), String> {
    let filter = ["-f", "-qq", "-e", "trace=pread64", "-e", "raw=pread64"];
    let (_, text) = under_strace(dir, &filter, cmd)?;
    // Raw arguments: fd, buffer, length, offset, in hex.
    let offsets: Vec<u64> = text
        .lines()
        .filter_map(|l| l.split("pread64(").nth(1))
        .filter_map(|args| {
            let parts: Vec<&str> = args.split(')').next()?.split(", ").collect();
            (parts.len() == 4 && parts[2] == "0x1000")
                .then(|| u64::from_str_radix(parts[3].trim_start_matches("0x"), 16).ok())
                .flatten()
        })
        .collect();
    if offsets.is_empty() {
        return Err("strace saw no 4 KiB preads".into());
    }
    let low = offsets.iter().filter(|&&o| o < below).count();
    Ok((offsets.len(), low as f64 / offsets.len() as f64))
}

/// random_distribution=zoned sends each zone its share: 90% of 16,384 preads (strace reads
/// their offsets) land in the first 10% of the file, for iogauge and, where installed, fio.
fn zoned_distribution_seen_by_strace() -> Outcome {
    if sh("strace", &["-V"]).is_err() {
        return Outcome::Skip("strace is not installed (scripts/install-test-tools.sh)".into());
    }
    let dir = work_dir();
    let data = dir.path().join("z.dat");
    let job = dir.path().join("z.fio");
    std::fs::write(
        &job,
        format!(
            "[z]\nfilename={}\nsize=4m\nio_size=64m\nrw=randread\nbs=4k\nioengine=psync\nnorandommap\nrandom_distribution=zoned:90/10:10/90\n",
            p(&data)
        ),
    )
    .unwrap();
    let tenth = (4 << 20) / 10;
    let mut ours = bin();
    ours.args(["fio", "--no-save", "--keep"]).arg(&job);
    let (n, share) = match pread_share(dir.path(), &mut ours, tenth) {
        Ok(x) => x,
        Err(e) => return Outcome::Fail(e),
    };
    // 16,384 reads of the job, and the few iogauge makes to describe the file.
    if n < 16_384 || (share - 0.90).abs() > 0.015 {
        return Outcome::Fail(format!(
            "zoned:90/10:10/90: {share:.3} of {n} preads in the first 10%"
        ));
    }
    let mut said = format!("iogauge {share:.3} of {n} preads in the first 10%");
    if common::have_fio().is_ok() {
        let mut fio = std::process::Command::new("fio");
        fio.arg(&job);
        match pread_share(dir.path(), &mut fio, tenth) {
            Ok((n, theirs)) if (theirs - 0.90).abs() <= 0.015 => {
                said.push_str(&format!(", fio {theirs:.3} of {n}"))
            }
            Ok((n, theirs)) => {
                return Outcome::Fail(format!(
                    "fio itself put {theirs:.3} of {n} preads in the first 10%"
                ))
            }
            Err(e) => return Outcome::Fail(format!("fio: {e}")),
        }
    }
    Outcome::Pass(said)
}

/// rate=R,W and fio's one value on a mixed job limit each direction on its own; a direction
/// left free takes what the other leaves. Where fio is installed, it moves the same.
fn rates_for_reads_and_writes_apart() -> Outcome {
    let dir = work_dir();
    let mut said = Vec::new();
    for rate in ["--rate=2m,1m", "--rate=512k", "--rate_iops=,100"] {
        let args = [
            "--name=r",
            "--ioengine=null",
            "--size=64m",
            "--rw=randrw",
            "--bs=4k",
            rate,
            "--runtime=2",
            "--time_based",
            "--output-format=json",
        ];
        let o = fio_cmd(dir.path(), &[&args[..], &["--no-save"]].concat());
        if !o.status.success() {
            return Outcome::Fail(stderr(&o));
        }
        let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
        let bw = |d: &Value, k: &str| d["jobs"][0][k]["bw_bytes"].as_f64().unwrap_or(0.0);
        let (r, w) = (bw(&doc, "read"), bw(&doc, "write"));
        let (want_r, want_w) = match rate {
            "--rate=2m,1m" => (Some(2.0 * 1048576.0), Some(1048576.0)),
            "--rate=512k" => (Some(524288.0), Some(524288.0)),
            _ => (None, Some(409600.0)),
        };
        let near = |got: f64, want: f64| (got / want - 1.0).abs() < 0.03;
        let ok = want_r.is_none_or(|x| near(r, x))
            && want_w.is_none_or(|x| near(w, x))
            && (want_r.is_some() || r > 20.0 * w);
        if !ok {
            return Outcome::Fail(format!("{rate}: reads {r:.0} B/s, writes {w:.0} B/s"));
        }
        if common::have_fio().is_ok() {
            let theirs = std::process::Command::new("fio")
                .current_dir(dir.path())
                .args(args)
                .output()
                .map_err(|e| e.to_string())
                .and_then(|o| {
                    serde_json::from_slice::<Value>(&o.stdout).map_err(|e| e.to_string())
                });
            let fio_doc = match theirs {
                Ok(d) => d,
                Err(e) => return Outcome::Fail(format!("fio {rate}: {e}")),
            };
            let (fr, fw) = (bw(&fio_doc, "read"), bw(&fio_doc, "write"));
            let same = |a: f64, b: f64| (a / b - 1.0).abs() < 0.05;
            if !same(w, fw) || (want_r.is_some() && !same(r, fr)) {
                return Outcome::Fail(format!(
                    "{rate}: iogauge reads {r:.0} writes {w:.0} B/s; fio {fr:.0} and {fw:.0}"
                ));
            }
            said.push(format!("{rate}: writes {w:.0} B/s, fio {fw:.0}"));
        }
    }
    Outcome::Pass(said.join("; "))
}

/// A job of `files` files of 64 KiB, 4k random reads in turn (roundrobin), `ios` in all.
fn many_files(dir: &Path, files: u32, open: Option<u32>, ios: u32) -> String {
    let open = open.map_or(String::new(), |n| format!("openfiles={n}\n"));
    format!(
        "[m]\ndirectory={}\nnrfiles={files}\n{open}filesize=64k\nbs=4k\nrw=randread\nfile_service_type=roundrobin\nnumber_ios={ios}\nioengine=psync\n",
        p(dir)
    )
}

/// `iogauge fio` on `job` under RLIMIT_NOFILE `soft`:`hard`, saved to `db`.
fn fio_limited(dir: &Path, job: &str, soft: u64, hard: u64, db: &Path) -> Output {
    std::fs::write(dir.join("m.fio"), job).unwrap();
    let mut cmd = bin();
    cmd.current_dir(dir).env("IOGAUGE_DB", db).args([
        "fio",
        "--verbose",
        "--output-format=json",
        "m.fio",
    ]);
    with_nofile(&mut cmd, soft, hard).output().unwrap()
}

/// The native result of the run `o` saved.
fn saved_result(o: &Output, db: &Path) -> Result<Value, String> {
    if !o.status.success() {
        return Err(stderr(o));
    }
    let e = stderr(o);
    let id = e
        .lines()
        .find_map(|l| l.split(" saved as run ").nth(1))
        .ok_or_else(|| format!("no saved run in {e:?}"))?;
    let shown = db_cmd(db, &["results", "show", id.trim(), "--output", "json"]);
    serde_json::from_slice(&shown.stdout).map_err(|e| e.to_string())
}

/// Reads per file of the run `o` saved, from its native result.
fn reads_per_file(o: &Output, db: &Path) -> Result<Vec<u64>, String> {
    let doc = saved_result(o, db)?;
    Ok(doc["targets"][0]["files"]
        .as_array()
        .map(|fs| fs.iter().map(|f| u(&f["read"]["ios"])).collect())
        .unwrap_or_default())
}

/// More files than the descriptor limit allows at once: openfiles runs them (every file
/// read), without it as many are kept open as fit, with a note, and a low soft limit under a
/// high hard one is raised.
fn openfiles_under_a_descriptor_limit() -> Outcome {
    let dir = work_dir();
    let db = dir.path().join("r.db");
    let files = dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    let o = fio_limited(
        dir.path(),
        &many_files(&files, 300, Some(16), 600),
        256,
        256,
        &db,
    );
    match reads_per_file(&o, &db) {
        Ok(r) if r.len() == 300 && r.iter().all(|&n| n == 2) => {}
        other => {
            return Outcome::Fail(format!(
                "nrfiles=300 openfiles=16 under 256 descriptors: {other:?}"
            ))
        }
    }
    // Without openfiles: as many open at once as fit, said in a note (fio lowers openfiles
    // when it runs out of descriptors).
    let o = fio_limited(
        dir.path(),
        &many_files(&files, 300, None, 600),
        256,
        256,
        &db,
    );
    let noted = saved_result(&o, &db).is_ok_and(|d| {
        d.to_string()
            .contains("nrfiles=300: more files than this process may hold open (RLIMIT_NOFILE 256)")
    });
    match reads_per_file(&o, &db) {
        Ok(r) if r.len() == 300 && r.iter().all(|&n| n == 2) && noted => {}
        other => {
            return Outcome::Fail(format!(
                "nrfiles=300 without openfiles under 256 descriptors: noted {noted}, {other:?}"
            ))
        }
    }
    let o = fio_limited(
        dir.path(),
        &many_files(&files, 300, None, 600),
        256,
        4096,
        &db,
    );
    match reads_per_file(&o, &db) {
        Ok(r) if r.len() == 300 && r.iter().all(|&n| n == 2) => {}
        other => return Outcome::Fail(format!("soft 256, hard 4096, no openfiles: {other:?}")),
    }
    Outcome::Pass(
        "300 files read twice each under 256 descriptors, with openfiles=16 and without".into(),
    )
}

/// Reads per file in fio's iolog (write_iolog): `FILE read OFFSET LEN` lines, by file name.
fn fio_reads_per_file(log: &Path, files: u32) -> Vec<u64> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut n = vec![0u64; files as usize];
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.len() == 5 && w[2] == "read" {
            let i = w[1]
                .rsplit('.')
                .next()
                .and_then(|i| i.parse::<usize>().ok());
            if let Some(c) = i.and_then(|i| n.get_mut(i)) {
                *c += 1;
            }
        }
    }
    n
}

/// nrfiles=64, openfiles=8, roundrobin, number_ios fixed: I/Os per file beside fio's. Where
/// the I/Os cover every file's 16 blocks once, both read each file 16 times; with fewer, fio
/// finishes 8 files at a time (it closes a file when it is done) where iogauge keeps turning
/// over all 64, opening and closing as it goes.
fn openfiles_counts_beside_fio() -> Outcome {
    if common::have_fio().is_err() {
        return Outcome::Skip("fio is not installed".into());
    }
    let dir = work_dir();
    let db = dir.path().join("r.db");
    let mut said = Vec::new();
    for ios in [1024, 256] {
        let (ours, theirs) = (
            dir.path().join(format!("o{ios}")),
            dir.path().join(format!("t{ios}")),
        );
        std::fs::create_dir(&ours).unwrap();
        std::fs::create_dir(&theirs).unwrap();
        let o = fio_limited(
            dir.path(),
            &many_files(&ours, 64, Some(8), ios),
            1024,
            1024,
            &db,
        );
        let mine = match reads_per_file(&o, &db) {
            Ok(r) => r,
            Err(e) => return Outcome::Fail(e),
        };
        let log = dir.path().join(format!("fio{ios}.log"));
        let job = format!(
            "{}write_iolog={}\n",
            many_files(&theirs, 64, Some(8), ios),
            p(&log)
        );
        std::fs::write(dir.path().join("f.fio"), job).unwrap();
        if let Err(e) = sh("fio", &["--output=/dev/null", p(&dir.path().join("f.fio"))]) {
            return Outcome::Skip(format!("fio did not run the job: {e}"));
        }
        let fio = fio_reads_per_file(&log, 64);
        let brief = |v: &[u64]| {
            let touched = v.iter().filter(|&&n| n > 0).count();
            format!(
                "{touched} files, {}..{} each",
                v.iter().filter(|&&n| n > 0).min().unwrap_or(&0),
                v.iter().max().unwrap_or(&0)
            )
        };
        let even = ios / 64;
        if mine != vec![even as u64; 64] {
            return Outcome::Fail(format!("number_ios={ios}: iogauge read {mine:?}"));
        }
        if ios == 1024 && fio != mine {
            return Outcome::Fail(format!(
                "number_ios=1024: fio read {fio:?}, iogauge {mine:?}"
            ));
        }
        said.push(format!(
            "number_ios={ios}: fio {}, iogauge {}",
            brief(&fio),
            brief(&mine)
        ));
    }
    Outcome::Pass(said.join("; "))
}

/// `--minimal` (terse v3) and `--terse-version=4`, single-dash as Alibaba Cloud writes them,
/// line for line and field for field as fio 3.33 writes them (blktests and OpenZFS's tests
/// split these lines at ';').
fn terse_lines_as_fio_writes_them() -> Outcome {
    let dir = work_dir();
    let job = [
        "--name=t",
        "--ioengine=null",
        "--size=16m",
        "--bs=4k",
        "--rw=randrw",
    ];
    let fields = |o: &Output| -> Vec<(usize, String)> {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(';').collect();
                (
                    f.len(),
                    format!(
                        "{};{};{}",
                        f[0],
                        f.get(2).unwrap_or(&""),
                        f.get(5).unwrap_or(&"")
                    ),
                )
            })
            .collect()
    };
    let mut said = Vec::new();
    for flags in [&["-minimal"][..], &["--minimal", "--terse-version=4"]] {
        let args: Vec<&str> = flags.iter().chain(job.iter()).copied().collect();
        let ours = fio_cmd(dir.path(), &args);
        let got = fields(&ours);
        // Version, job name and the KiB read; iogauge's second field names itself.
        let want_v = if flags.len() == 1 { "3" } else { "4" };
        if !ours.status.success()
            || got.len() != 1
            || !got[0].1.starts_with(&format!("{want_v};t;"))
        {
            return Outcome::Fail(format!("{flags:?}: {got:?} {}", stderr(&ours)));
        }
        if common::have_fio().is_ok() {
            let theirs = std::process::Command::new("fio")
                .current_dir(dir.path())
                .args(["--minimal"])
                .args(&flags[1..])
                .args(job)
                .output()
                .unwrap();
            let want = fields(&theirs);
            if want.len() != 1 || want[0].0 != got[0].0 {
                return Outcome::Fail(format!("{flags:?}: fio {want:?}, iogauge {got:?}"));
            }
        }
        said.push(format!("v{want_v} {} fields", got[0].0));
    }
    Outcome::Pass(said.join(", "))
}

/// buffer_pattern as OpenZFS's mkfiles.fio and kbench write it: the file iogauge writes is
/// the file fio writes, byte for byte (a sequential write of whole patterns).
fn buffer_pattern_writes_what_fio_writes() -> Outcome {
    let dir = work_dir();
    let job = |path: &Path| {
        format!(
            "[p]\nfilename={}\nrw=write\nbs=64k\nsize=1m\nbuffer_pattern=0xdeadbeef\"iog\"\n",
            path.display()
        )
    };
    let ours = dir.path().join("ours.dat");
    std::fs::write(dir.path().join("p.fio"), job(&ours)).unwrap();
    let o = fio_cmd(dir.path(), &["--keep", "p.fio"]);
    let written = std::fs::read(&ours).unwrap_or_default();
    let want: Vec<u8> = [0xde, 0xad, 0xbe, 0xef, b'i', b'o', b'g']
        .iter()
        .copied()
        .cycle()
        .take(64 << 10)
        .collect::<Vec<u8>>()
        .repeat(16);
    if !o.status.success() || written != want {
        return Outcome::Fail(format!(
            "iogauge wrote {} bytes, pattern {}: {}",
            written.len(),
            written == want,
            stderr(&o)
        ));
    }
    if common::have_fio().is_err() {
        return Outcome::Pass("the pattern, block by block (no fio here to compare)".into());
    }
    let theirs = dir.path().join("theirs.dat");
    std::fs::write(dir.path().join("f.fio"), job(&theirs)).unwrap();
    let ran = std::process::Command::new("fio")
        .current_dir(dir.path())
        .arg("f.fio")
        .output()
        .unwrap();
    match std::fs::read(&theirs) {
        Ok(t) if ran.status.success() && t == written => {
            Outcome::Pass("1 MiB of 0xdeadbeef\"iog\", byte for byte as fio writes it".into())
        }
        other => Outcome::Fail(format!(
            "fio wrote something else: {:?}",
            other.map(|t| t.len())
        )),
    }
}

type Test = (&'static str, fn() -> Outcome);

pub fn main() {
    let tests: Vec<Test> = vec![
        (
            "buffer_pattern_writes_what_fio_writes",
            buffer_pattern_writes_what_fio_writes,
        ),
        (
            "terse_lines_as_fio_writes_them",
            terse_lines_as_fio_writes_them,
        ),
        (
            "job_files_run_and_a_python_consumer_reads_the_json",
            job_files_run_and_a_python_consumer_reads_the_json,
        ),
        (
            "command_lines_and_text_output",
            command_lines_and_text_output,
        ),
        (
            "jobs_of_a_group_share_a_file_laid_out_once",
            jobs_of_a_group_share_a_file_laid_out_once,
        ),
        (
            "values_may_follow_as_the_next_argument",
            values_may_follow_as_the_next_argument,
        ),
        (
            "percentiles_and_bins_as_fio_writes_them",
            percentiles_and_bins_as_fio_writes_them,
        ),
        (
            "bad_input_gets_one_line_naming_the_culprit",
            bad_input_gets_one_line_naming_the_culprit,
        ),
        (
            "ctrl_c_reports_what_ran_and_removes_the_files",
            ctrl_c_reports_what_ran_and_removes_the_files,
        ),
        (
            "many_null_jobs_take_little_memory",
            many_null_jobs_take_little_memory,
        ),
        ("logs_in_fio_format", logs_in_fio_format),
        (
            "fio_generate_plots_draws_the_same_graphs",
            fio_generate_plots_draws_the_same_graphs,
        ),
        (
            "fiologparser_hist_reads_the_hist_log",
            fiologparser_hist_reads_the_hist_log,
        ),
        (
            "fio_histo_log_pctiles_reads_the_hist_log",
            fio_histo_log_pctiles_reads_the_hist_log,
        ),
        (
            "disk_util_and_job_options_as_fio_writes_them",
            disk_util_and_job_options_as_fio_writes_them,
        ),
        (
            "fio_plot_draws_what_it_draws_for_fio",
            fio_plot_draws_what_it_draws_for_fio,
        ),
        ("refused_jobs_leave_no_logs", refused_jobs_leave_no_logs),
        ("create_only_and_startdelay", create_only_and_startdelay),
        (
            "steadystate_stops_as_fio_does",
            steadystate_stops_as_fio_does,
        ),
        (
            "flushes_are_the_system_calls_strace_counts",
            flushes_are_the_system_calls_strace_counts,
        ),
        (
            "block_mixes_think_time_and_compressible_data",
            block_mixes_think_time_and_compressible_data,
        ),
        ("several_files_per_job", several_files_per_job),
        (
            "filesize_bounds_the_bytes_as_fio",
            filesize_bounds_the_bytes_as_fio,
        ),
        (
            "verification_reads_as_fio_reports_them",
            verification_reads_as_fio_reports_them,
        ),
        (
            "sub_millisecond_jobs_ran_a_millisecond",
            sub_millisecond_jobs_ran_a_millisecond,
        ),
        ("averaged_logs_per_clone", averaged_logs_per_clone),
        (
            "ctrl_c_during_many_jobs_stops_promptly_with_json",
            ctrl_c_during_many_jobs_stops_promptly_with_json,
        ),
        (
            "openfiles_under_a_descriptor_limit",
            openfiles_under_a_descriptor_limit,
        ),
        ("openfiles_counts_beside_fio", openfiles_counts_beside_fio),
        ("file_operation_engines", file_operation_engines),
        (
            "rates_for_reads_and_writes_apart",
            rates_for_reads_and_writes_apart,
        ),
        (
            "zoned_distribution_seen_by_strace",
            zoned_distribution_seen_by_strace,
        ),
        (
            "native_runs_write_fio_json_too",
            native_runs_write_fio_json_too,
        ),
        (
            "iops_match_fio_on_the_same_file",
            iops_match_fio_on_the_same_file,
        ),
    ];
    let tests = tests
        .into_iter()
        .map(|(name, t)| (name.to_string(), Box::new(t) as Box<dyn Fn() -> Outcome>))
        .collect();
    harness("fio", tests);
}
