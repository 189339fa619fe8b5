//! iogauge under a real MPI launcher: `mpirun --oversubscribe -np 4` on this machine.
//! Needs OpenMPI (`bash scripts/install-test-tools.sh` installs it) and a build with the `mpi`
//! feature (`cargo test --features mpi --test mpi`, as .ci/run does); without them the tests
//! that need them say SKIPPED. Own harness: a skip is never counted as a pass.

use crate::common;

use iogauge::stats::LatencyHistogram;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const RANKS: &str = "4";

/// `mpirun` with what running it as root on one small machine needs.
fn mpirun(np: &str, args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--oversubscribe", "-np", np])
        .arg(env!("CARGO_BIN_EXE_iogauge"))
        .args(args)
        .env("IOGAUGE_DB", common::test_db())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdin(Stdio::null());
    c
}

fn have_mpirun() -> Result<(), String> {
    match Command::new("mpirun").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err("no mpirun here (bash scripts/install-test-tools.sh installs OpenMPI)".into()),
    }
}

fn with_mpi() -> Result<(), String> {
    have_mpirun()?;
    if cfg!(feature = "mpi") {
        Ok(())
    } else {
        Err("built without the mpi feature (cargo test --features mpi --test mpi)".into())
    }
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The report of a run under mpirun that must have worked. Its failure is iogauge's (the
/// capabilities were checked before: `with_mpi`), so it fails the test, never skips it.
fn ok_json(o: &Output) -> Value {
    assert!(
        o.status.success(),
        "mpirun failed: {}\n{}",
        o.status,
        common::stderr(o)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON report: {e}\n{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            common::stderr(o)
        )
    })
}

/// `doc` is what `schema` says.
fn follows_schema(schema: &str, doc: &Value) {
    let schema: Value = serde_json::from_str(schema).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "the aggregate breaks its schema: {errors:?}"
    );
}

fn hist_count(d: &Value) -> u64 {
    let text = d["latency_histogram"].as_str().expect("a histogram");
    LatencyHistogram::from_base64(text).unwrap().count()
}

/// Four ranks, one file each: the job's I/Os, bytes and latency histogram are exactly the
/// sum of the ranks'; each rank's file had its rank in its name and none is left.
fn aggregate_is_the_sum_of_the_ranks() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let target = format!("{}/f.{{rank}}-of-{{nranks}}", common::p(dir.path()));
    let o = mpirun(
        RANKS,
        &[
            "run", &target, "-c", "8M", "-d", "1", "-L", "-w", "30", "--output", "json",
        ],
    )
    .output()
    .unwrap();
    let r = ok_json(&o);
    let c = &r["cluster"];
    let rows = c["rank_rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{c}");
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(common::u(&row["rank"]), i as u64);
        let want = format!("{}/f.{i}-of-4", common::p(dir.path()));
        assert_eq!(row["targets"][0].as_str(), Some(want.as_str()), "{row}");
    }
    for d in ["read", "write", "all"] {
        let sum = |k: &str| {
            rows.iter()
                .map(|x| common::u(&x["total"][d][k]))
                .sum::<u64>()
        };
        assert_eq!(common::u(&r["total"][d]["ios"]), sum("ios"), "{d} I/Os");
        assert_eq!(
            common::u(&r["total"][d]["bytes"]),
            sum("bytes"),
            "{d} bytes"
        );
    }
    // Each rank's histogram sits with its target in the report; the job's is their merge.
    let targets = r["targets"].as_array().unwrap();
    let per_rank: u64 = targets.iter().map(|t| hist_count(&t["total"]["all"])).sum();
    let all = &r["total"]["all"];
    assert_eq!(hist_count(all), per_rank);
    assert_eq!(hist_count(all), common::u(&all["ios"]));
    let series: u64 = r["time_series"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| common::u(&s["read"]["ios"]) + common::u(&s["write"]["ios"]))
        .sum();
    assert_eq!(
        series,
        common::u(&all["ios"]),
        "the time series counts every I/O once"
    );
    let left = files_in(dir.path());
    assert!(left.is_empty(), "left behind: {left:?}");
    follows_schema(include_str!("../../schema/run-result.schema.json"), &r);
    Ok(format!(
        "{} I/Os from 4 ranks, starts within {} µs",
        common::u(&all["ios"]),
        common::u(&c["start_skew_ns"]) / 1000
    ))
}

/// IOR's stonewalling with wear-out: every thread of every rank stops at the deadline, they
/// agree on the most bytes one thread had done, and every thread goes on to that: each rank
/// ends with the same bytes, and the report says the deadline was reached and what each rank
/// had done by it.
fn stonewall_with_wear_out_gives_equal_work() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let target = format!("{}/s.{{rank}}", common::p(dir.path()));
    // The null engine on 4 ranks sharing 2 cores: far from done at the deadline, and the
    // ranks' threads get different shares of the CPUs.
    let args = [
        "run",
        &target,
        "-c",
        "1M",
        "--engine",
        "null",
        "-t",
        "2",
        "--total",
        "40T",
        "--stonewall",
        "1",
        "--wear-out",
        "--output",
        "json",
    ];
    let o = mpirun(RANKS, &args).output().unwrap();
    let r = ok_json(&o);
    let w = &r["stonewall"];
    assert_eq!(w["reached"], Value::Bool(true), "{w}");
    let per_thread = common::u(&w["bytes_per_thread"]);
    let rows = r["cluster"]["rank_rows"].as_array().unwrap();
    let mut by_deadline = Vec::new();
    for row in rows {
        let done = common::u(&row["total"]["all"]["bytes"]);
        assert_eq!(done, 2 * per_thread, "every rank did the same work: {row}");
        let at = common::u(&row["stonewall"]["bytes_at_deadline"]);
        assert!(at <= done, "{row}");
        by_deadline.push(at);
    }
    assert_eq!(common::u(&r["total"]["all"]["bytes"]), 8 * per_thread);
    assert_eq!(
        common::u(&w["bytes_at_deadline"]),
        by_deadline.iter().sum::<u64>()
    );
    // Unless every thread had done exactly as much, some went on after the deadline.
    assert!(
        by_deadline.iter().any(|&b| b < 2 * per_thread),
        "no rank had less to do after the deadline: {by_deadline:?}"
    );
    assert!(files_in(dir.path()).is_empty());
    let (min, max) = (by_deadline.iter().min(), by_deadline.iter().max());
    Ok(format!(
        "by the deadline ranks had {:.1}-{:.1} GiB; each then did {:.1} GiB",
        *min.unwrap() as f64 / 1073741824.0,
        *max.unwrap() as f64 / 1073741824.0,
        2.0 * per_thread as f64 / 1073741824.0
    ))
}

/// IOR's single shared file: rank 0 lays it out, each rank works on its own quarter, and
/// the file is removed once every rank is done.
fn a_shared_file_gives_each_rank_its_own_slice() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let target = format!("{}/shared", common::p(dir.path()));
    let args = [
        "run",
        &target,
        "-c",
        "8M",
        "--shared-file",
        "--sequential",
        "-w",
        "100",
        "--total",
        "2M",
        "--output",
        "json",
    ];
    let r = ok_json(&mpirun(RANKS, &args).output().unwrap());
    let targets = r["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 4);
    for (i, t) in targets.iter().enumerate() {
        let quarter = 2u64 << 20;
        assert_eq!(t["path"].as_str(), Some(target.as_str()));
        assert_eq!(
            common::u(&t["working_set_start"]),
            i as u64 * quarter,
            "{t}"
        );
        assert_eq!(
            common::u(&t["working_set_end"]),
            (i as u64 + 1) * quarter,
            "{t}"
        );
        assert_eq!(common::u(&t["total"]["write"]["bytes"]), quarter);
        assert_eq!(t["created"], Value::Bool(i == 0), "rank 0 made it");
    }
    assert!(
        files_in(dir.path()).is_empty(),
        "the shared file is removed"
    );
    Ok(String::new())
}

/// IOR's -C: written with a file per rank and kept, read back with each rank on the next
/// rank's file; one host, so the report says the page cache is still shared.
fn rank_shift_reads_another_ranks_data() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let target = format!("{}/f.{{rank}}", common::p(dir.path()));
    let write = [
        "run",
        &target,
        "-c",
        "2M",
        "--sequential",
        "-w",
        "100",
        "--total",
        "2M",
        "--keep",
        "--no-save",
        "--output",
        "json",
    ];
    ok_json(&mpirun(RANKS, &write).output().unwrap());
    let read = [
        "run",
        &target,
        "--rank-shift=1",
        "--sequential",
        "--total",
        "2M",
        "--no-save",
        "--output",
        "json",
    ];
    let r = ok_json(&mpirun(RANKS, &read).output().unwrap());
    for row in r["cluster"]["rank_rows"].as_array().unwrap() {
        let rank = common::u(&row["rank"]);
        let want = format!("{}/f.{}", common::p(dir.path()), (rank + 1) % 4);
        assert_eq!(row["targets"][0].as_str(), Some(want.as_str()), "{row}");
        assert_eq!(common::u(&row["total"]["read"]["bytes"]), 2 << 20);
    }
    let notes = r["notes"].to_string();
    assert!(notes.contains("--rank-shift: every rank is on"), "{notes}");
    assert_eq!(
        files_in(dir.path()).len(),
        4,
        "files another run made are left alone"
    );
    Ok(String::new())
}

/// A rank that cannot lay out its file ends the whole job at once, non-zero, saying which
/// rank on which host; the other ranks' files are gone. `args`: the command line for a
/// target path (with `{rank}`) in a folder rank 1 does not have.
fn a_failing_rank_ends_the_job(args: &dyn Fn(&str) -> Vec<String>) -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    for i in [0, 2, 3] {
        std::fs::create_dir(dir.path().join(format!("d{i}"))).unwrap();
    }
    let target = format!("{}/d{{rank}}/f", common::p(dir.path()));
    let t = Instant::now();
    let o = mpirun(RANKS, &[]).args(args(&target)).output().unwrap();
    let took = t.elapsed();
    let err = common::stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(took < Duration::from_secs(15), "took {took:?}");
    assert!(err.contains("rank 1 of 4 on "), "{err}");
    assert!(err.contains("d1' does not exist"), "{err}");
    for i in [0, 2, 3] {
        let left = files_in(&dir.path().join(format!("d{i}")));
        assert!(left.is_empty(), "rank {i} left {left:?}");
    }
    Ok(format!("ended in {:.1} s", took.as_secs_f64()))
}

fn a_failing_rank_ends_the_job_fast() -> Result<String, String> {
    a_failing_rank_ends_the_job(&|target| {
        ["run", target, "-c", "64M", "-d", "30", "-q"]
            .map(String::from)
            .to_vec()
    })
}

/// A fio job file as four ranks: each group starts together on every rank, each job is
/// reported once as the sum of the ranks' (fio's group_reporting), I/O counts and the
/// latency histogram exactly; every rank's files, named by rank, are gone afterwards.
fn a_fio_job_file_runs_as_ranks_and_reports_the_sum() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let d = common::p(dir.path());
    let job = dir.path().join("two-groups.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nbs=4k\nsize=1M\nioengine=psync\n\n\
             [w]\nrw=write\nnumjobs=2\nfilename={d}/w.{{rank}}\n\n\
             [r]\nstonewall\nrw=read\nfilename={d}/r.{{rank}}\n"
        ),
    )
    .unwrap();
    let o = mpirun(RANKS, &["fio", "--output-format=json"])
        .arg(&job)
        .output()
        .unwrap();
    let r = ok_json(&o);
    let jobs = r["jobs"].as_array().expect("jobs");
    assert_eq!(jobs.len(), 2, "one entry per group: {jobs:?}");
    // Size-bound: 1 MiB of 4 KiB blocks per clone, two clones of w and one of r per rank.
    for (j, name, dir, ios) in [
        (&jobs[0], "w", "write", 4 * 2 * 256),
        (&jobs[1], "r", "read", 4 * 256),
    ] {
        assert_eq!(j["jobname"], name);
        assert_eq!(j[dir]["total_ios"], ios, "{name}");
        assert_eq!(j[dir]["io_bytes"], ios * 4096, "{name}");
        assert_eq!(
            j[dir]["clat_ns"]["N"], ios,
            "{name}: every I/O in the merged histogram"
        );
    }
    assert_eq!(jobs[1]["groupid"], 1);
    let left: Vec<String> = files_in(dir.path())
        .into_iter()
        .filter(|f| f != "two-groups.fio")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    Ok(String::new())
}

fn a_failing_fio_rank_ends_the_job_fast() -> Result<String, String> {
    a_failing_rank_ends_the_job(&|target| {
        let name = format!("--filename={target}");
        [
            "fio",
            "--name=j",
            &name,
            "--size=64M",
            "--runtime=30",
            "--time_based",
        ]
        .map(String::from)
        .to_vec()
    })
}

/// A job with no size= reads each rank's own existing file, sized from the file that rank
/// names (`{rank}` filled in): four files of 256, 512, 768 and 1024 KiB read whole.
fn each_rank_sizes_its_own_fio_file() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    for rank in 0..4u64 {
        let f = dir.path().join(format!("f.{rank}"));
        std::fs::write(f, vec![7u8; (256 << 10) * (rank as usize + 1)]).unwrap();
    }
    let name = format!("--filename={}/f.{{rank}}", common::p(dir.path()));
    let args = [
        "fio",
        "--name=r",
        "--rw=read",
        "--bs=4k",
        "--ioengine=psync",
    ];
    let o = mpirun(RANKS, &args)
        .args([&name, "--output-format=json"])
        .output()
        .unwrap();
    let r = ok_json(&o);
    let read = &r["jobs"][0]["read"];
    assert_eq!(read["io_bytes"], (256u64 << 10) * 10, "{read}");
    // The files were there before: iogauge leaves them.
    assert_eq!(files_in(dir.path()), ["f.0", "f.1", "f.2", "f.3"]);
    Ok(String::new())
}

/// Ranks 1 and 3 cannot plan the job (their files are missing and there is no size=), ranks
/// 0 and 2 can: no rank goes on to wait for the others; rank 0 says once which ranks could
/// not and why, and the job ends non-zero at once.
fn a_plan_only_some_ranks_can_make_ends_every_rank() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    for rank in [0, 2] {
        std::fs::write(dir.path().join(format!("f.{rank}")), vec![7u8; 64 << 10]).unwrap();
    }
    let name = format!("--filename={}/f.{{rank}}", common::p(dir.path()));
    let t = Instant::now();
    let o = mpirun(RANKS, &["fio", "--name=r", "--rw=read", &name])
        .output()
        .unwrap();
    let took = t.elapsed();
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let said: Vec<&str> = err.lines().filter(|l| l.starts_with("iogauge:")).collect();
    assert_eq!(said.len(), 1, "one line, from rank 0: {err}");
    assert!(said[0].contains("ranks 1, 3 of 4 on "), "{err}");
    assert!(said[0].contains("no size= was given"), "{err}");
    assert_eq!(files_in(dir.path()), ["f.0", "f.2"]);
    Ok(format!("ended in {:.1} s", took.as_secs_f64()))
}

/// The fs suite as four ranks, each in a folder of its own: every measurement is fenced, a
/// cell counts every rank's operations and the slowest rank's time; nothing is left.
fn the_fs_suite_runs_as_ranks_fenced_test_by_test() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let o = mpirun(
        RANKS,
        &[
            "fs",
            common::p(dir.path()),
            "--tests",
            "file_create,file_stat,rdwr_cc_read_page",
            "--files",
            "200",
            "--file-size",
            "1M",
            "--repeat",
            "2",
            "--output",
            "json",
            "-q",
        ],
    )
    .output()
    .unwrap();
    let r = ok_json(&o);
    assert_eq!(r["ranks"]["ranks"], 4, "{}", r["ranks"]);
    for t in r["tests"].as_array().expect("tests") {
        let c = &t["cells"][0];
        assert_eq!(c["status"], "ok", "{t}");
        assert_eq!(c["elapsed_ns"].as_array().unwrap().len(), 2, "{t}");
    }
    let create = &r["tests"][0]["cells"][0];
    assert_eq!(create["ops"], 4 * 200, "every rank's files: {create}");
    follows_schema(include_str!("../../schema/fs-result.schema.json"), &r);
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
    Ok(format!(
        "slowest rank up to {:.0}% over the fastest",
        r["ranks"]["worst_spread_pct"].as_f64().unwrap_or(0.0)
    ))
}

/// A sweep as four ranks, each in a folder of its own inside the one given: every test of
/// every cell is fenced, a cell's bytes are every rank's and its time the slowest rank's,
/// each rank's own time is kept; nothing is left.
fn a_sweep_runs_as_ranks_fenced_cell_by_cell() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let args = [
        "sweep",
        common::p(dir.path()),
        "--file-sizes",
        "256K,1M",
        "--record-sizes",
        "64K",
        "--tests",
        "write,read",
        "--output",
        "json",
        "-q",
    ];
    let r = ok_json(&mpirun(RANKS, &args).output().unwrap());
    assert_eq!(r["ranks"]["ranks"], 4, "{}", r["ranks"]);
    let cells = r["cells"].as_array().expect("cells");
    assert_eq!(cells.len(), 4, "2 file sizes x 2 tests");
    for c in cells {
        assert_eq!(c["status"], "ok", "{c}");
        let file = common::u(&c["file_size"]);
        assert_eq!(common::u(&c["bytes"]), 4 * file, "every rank's bytes: {c}");
        let own: Vec<u64> = c["thread_ns"]
            .as_array()
            .expect("each rank's time")
            .iter()
            .map(common::u)
            .collect();
        assert_eq!(own.len(), 4, "{c}");
        let slowest = own.iter().copied().max().unwrap();
        assert_eq!(common::u(&c["elapsed_ns"]), slowest, "{c}");
    }
    let notes = r["notes"].to_string();
    assert!(notes.contains("4 ranks on 1 host"), "{notes}");
    follows_schema(include_str!("../../schema/sweep-result.schema.json"), &r);
    // Waiting for the other ranks is told apart from iogauge's own time, within the wall.
    let part = |k: &str| common::u(&r[k]);
    assert!(part("rank_wait_ns") > 0, "{}", r["rank_wait_ns"]);
    assert!(part("io_ns") + part("cleanup_ns") + part("rank_wait_ns") <= part("wall_ns"));
    assert!(
        files_in(dir.path()).is_empty(),
        "{:?}",
        files_in(dir.path())
    );
    Ok(format!(
        "slowest rank up to {:.0}% over the fastest",
        r["ranks"]["worst_spread_pct"].as_f64().unwrap_or(0.0)
    ))
}

/// A tree of `files` files of 16 KiB in `dir`, made by `iogauge dataset create` (alone).
fn small_dataset(dir: &Path, files: &str) {
    let o = Command::new(env!("CARGO_BIN_EXE_iogauge"))
        .args(["dataset", "create", common::p(dir), "--files", files])
        .args(["--size-dist", "fixed:16K"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
}

/// A copy workload as four ranks from one source, each into a target of its own: every
/// step fenced, a repetition's files every rank's, each rank's copy checked; the targets are
/// gone and the source is as it was.
fn a_workload_runs_as_ranks_step_by_step() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let src = dir.path().join("src");
    small_dataset(&src, "50");
    let before = files_in(&src);
    let target = format!("{}/out.{{rank}}", common::p(dir.path()));
    let args = [
        "workload",
        "copy",
        "--source",
        common::p(&src),
        "--target",
        &target,
        "--threads",
        "2",
        "--output",
        "json",
        "-q",
    ];
    // The same workload alone: what one rank moves.
    let alone = Command::new(env!("CARGO_BIN_EXE_iogauge"))
        .args(args)
        .args(["--repeat", "1"])
        .env("IOGAUGE_DB", common::test_db())
        .output()
        .unwrap();
    let one = &ok_json(&alone)["steps"][0]["reps"][0];
    let r = ok_json(
        &mpirun(RANKS, &[&args[..], &["--repeat", "2"]].concat())
            .output()
            .unwrap(),
    );
    assert_eq!(r["ranks"]["ranks"], 4, "{}", r["ranks"]);
    assert_eq!(r["partial"], false, "{}", r["stop_message"]);
    let reps = r["steps"][0]["reps"].as_array().expect("reps");
    assert_eq!(reps.len(), 2);
    let times_4 =
        |rep: &Value, k: &str| assert_eq!(common::u(&rep[k]), 4 * common::u(&one[k]), "{k}: {rep}");
    for rep in reps {
        for k in ["files", "bytes_read", "bytes_written"] {
            times_4(rep, k);
        }
        assert_eq!(rep["verify"]["ok"], true, "{}", rep["verify"]);
        assert_eq!(
            common::u(&rep["verify"]["files"]),
            4 * common::u(&one["verify"]["files"])
        );
        assert_eq!(common::u(&rep["cpu"]["threads"]), 4 * 2);
    }
    follows_schema(include_str!("../../schema/workload-result.schema.json"), &r);
    assert_eq!(files_in(dir.path()), ["src"], "the targets are removed");
    assert_eq!(files_in(&src), before, "the source is untouched");
    Ok(format!(
        "slowest rank up to {:.0}% over the fastest",
        r["ranks"]["worst_spread_pct"].as_f64().unwrap_or(0.0)
    ))
}

/// A workload whose ranks were all given one target is refused before anything is made,
/// in one line from rank 0 that says how to give each its own.
fn a_workload_target_shared_by_ranks_is_refused() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let src = dir.path().join("src");
    small_dataset(&src, "5");
    let target = dir.path().join("out");
    let args = [
        "workload",
        "copy",
        "--source",
        common::p(&src),
        "--target",
        common::p(&target),
    ];
    let o = mpirun("2", &args).output().unwrap();
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let said: Vec<&str> = err.lines().filter(|l| l.starts_with("iogauge:")).collect();
    assert_eq!(said.len(), 1, "one line, from rank 0: {err}");
    assert!(said[0].contains("ranks 0 and 1 were both given"), "{err}");
    assert!(said[0].contains("{rank}"), "{err}");
    assert_eq!(files_in(dir.path()), ["src"], "nothing made");
    Ok(String::new())
}

/// Two stand-in hosts on this machine (scripts/mpi-hosts.sh: network namespaces on a bridge,
/// each with a host name of its own, OpenMPI's daemons started there by an rsh agent), removed
/// when dropped.
struct TwoHosts {
    dir: tempfile::TempDir,
}

impl TwoHosts {
    fn up() -> Result<TwoHosts, String> {
        if !common::is_root() {
            return Err("needs root to make network namespaces".into());
        }
        let dir = common::work_dir();
        let o = Command::new("bash")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/mpi-hosts.sh"))
            .arg("up")
            .arg(dir.path())
            .output()
            .map_err(|e| format!("cannot run scripts/mpi-hosts.sh: {e}"))?;
        let hosts = TwoHosts { dir };
        if !o.status.success() {
            return Err(format!(
                "this machine cannot make network namespaces on a bridge: {}",
                common::stderr(&o).trim()
            ));
        }
        Ok(hosts)
    }

    /// mpirun with 4 ranks, two on each stand-in host, over TCP between them.
    fn mpirun(&self, args: &[&str]) -> Command {
        let d = common::p(self.dir.path()).to_string();
        let mut c = Command::new("mpirun");
        c.args(["-np", "4", "--hostfile", &format!("{d}/hostfile")])
            .args(["--mca", "plm_rsh_agent", &format!("{d}/agent.sh")])
            .args(["--mca", "plm_rsh_no_tree_spawn", "1"])
            .args(["--mca", "btl", "tcp,self"])
            .args(["--mca", "btl_tcp_if_include", "10.77.0.0/24"])
            .args(["--mca", "oob_tcp_if_include", "10.77.0.0/24"])
            .arg(env!("CARGO_BIN_EXE_iogauge"))
            .args(args)
            .env("IOGAUGE_DB", common::test_db())
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .stdin(Stdio::null());
        c
    }
}

impl Drop for TwoHosts {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/mpi-hosts.sh"))
            .arg("down")
            .output();
    }
}

/// Across two hosts: `{host}` and `{local_rank}` name each rank's file, the report has a
/// row per host, and the default rank shift reads the other host's files (two on, for two
/// ranks a host placed by slot) with no one-host note.
fn two_hosts_each_read_the_others_files() -> Result<String, String> {
    with_mpi()?;
    let hosts = TwoHosts::up()?;
    let data = common::work_dir();
    for n in [2, 3] {
        std::fs::create_dir(data.path().join(format!("iogauge-node-{n}"))).unwrap();
    }
    let target = format!("{}/{{host}}/f.{{local_rank}}", common::p(data.path()));
    let common_args = ["run", &target, "--total", "8M", "--sequential", "-q"];
    let write = hosts
        .mpirun(&common_args)
        .args(["-c", "8M", "-w", "100", "--keep", "--output", "json"])
        .output()
        .unwrap();
    let w = ok_json(&write);
    assert_eq!(w["cluster"]["hosts"], 2, "{}", w["cluster"]);
    let rows: Vec<String> = w["cluster"]["host_rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["host"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(rows, ["iogauge-node-2", "iogauge-node-3"]);
    for n in [2, 3] {
        let made = files_in(&data.path().join(format!("iogauge-node-{n}")));
        assert_eq!(made, ["f.0", "f.1"], "node {n}");
    }
    let read = hosts
        .mpirun(&common_args)
        .args(["--rank-shift", "--output", "json"])
        .output()
        .unwrap();
    let r = ok_json(&read);
    let read_from: Vec<String> = r["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let p = Path::new(t["path"].as_str().unwrap());
            let host = p.parent().unwrap().file_name().unwrap().to_string_lossy();
            format!("{host}/{}", p.file_name().unwrap().to_string_lossy())
        })
        .collect();
    // Ranks 0 and 1 on node 2 read node 3's files, and the other way round.
    assert_eq!(
        read_from,
        [
            "iogauge-node-3/f.0",
            "iogauge-node-3/f.1",
            "iogauge-node-2/f.0",
            "iogauge-node-2/f.1"
        ]
    );
    let notes = r["notes"].to_string();
    assert!(!notes.contains("every rank is on"), "{notes}");
    Ok(format!(
        "starts within {} µs across the two hosts",
        r["cluster"]["start_skew_ns"].as_u64().unwrap_or(0) / 1000
    ))
}

/// Ctrl-C on mpirun: every rank stops and removes its file; rank 0 reports what was done.
fn sigint_to_mpirun_cleans_every_rank() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let target = format!("{}/g.{{rank}}", common::p(dir.path()));
    let report = dir.path().join("report.json");
    let mut child = mpirun(
        RANKS,
        &[
            "run", &target, "-c", "32M", "-d", "60", "-q", "--output", "json",
        ],
    )
    .arg("--output-file")
    .arg(&report)
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let t = Instant::now();
    while files_in(dir.path())
        .iter()
        .filter(|f| f.starts_with("g."))
        .count()
        < 4
    {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the ranks never made their files"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(2));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let stopped = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(20),
            "mpirun did not end"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!status.success());
    let left: Vec<String> = files_in(dir.path())
        .into_iter()
        .filter(|f| f.starts_with("g."))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    let r: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["stop_reason"], "interrupted", "{}", r["stop_reason"]);
    assert_eq!(r["cluster"]["ranks"], 4);
    Ok(format!(
        "ended {:.1} s after SIGINT",
        stopped.elapsed().as_secs_f64()
    ))
}

/// Ctrl-C to mpirun in the middle of a sweep whose ranks run two threads each (the threads
/// wait at their barrier while the main thread meets the other ranks): every rank stops
/// soon, says so, and leaves no folder behind.
fn sigint_mid_sweep_cleans_every_rank() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let args = [
        "sweep",
        common::p(dir.path()),
        "--file-sizes",
        "8M,16M,32M",
        "--record-sizes",
        "4K",
        "--cache",
        "direct",
        // O_SYNC writes of 4 KiB: slow enough on any disk to be cut short.
        "--sync",
        "--threads",
        "2",
        "--tests",
        "write,rewrite,read,random_write",
        "-q",
    ];
    let mut child = mpirun(RANKS, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while files_in(dir.path()).len() < 4 {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the ranks never made their folders"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1000));
    let running = child.try_wait().unwrap().is_none();
    assert!(running, "the sweep ended before it could be interrupted");
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let stopped = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(20),
            "mpirun did not end"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = stopped.elapsed();
    assert!(!status.success());
    let left = files_in(dir.path());
    assert!(left.is_empty(), "left behind: {left:?}");
    Ok(format!("ended {:.1} s after SIGINT", took.as_secs_f64()))
}

/// The same file for every rank would have them overwrite and remove each other's: refused
/// before any is made, by rank 0 alone, naming the path.
fn one_file_for_every_rank_is_refused() -> Result<String, String> {
    with_mpi()?;
    let dir = common::work_dir();
    let target = format!("{}/same", common::p(dir.path()));
    let o = mpirun("2", &["run", &target, "-c", "8M", "-d", "1"])
        .output()
        .unwrap();
    let err = common::stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("ranks 0 and 1 were both given"), "{err}");
    let lines = err.lines().filter(|l| l.starts_with("iogauge:")).count();
    assert_eq!(lines, 1, "one line from rank 0 only: {err}");
    assert!(files_in(dir.path()).is_empty());
    Ok(String::new())
}

/// A build without MPI started as several ranks would run the job once per rank on the
/// same files: refused with how to build it.
fn without_the_feature_several_ranks_are_refused() -> Result<String, String> {
    have_mpirun()?;
    if cfg!(feature = "mpi") {
        return Err("built with the mpi feature: this test is for the default build".into());
    }
    let dir = common::work_dir();
    let target = format!("{}/f.{{rank}}", common::p(dir.path()));
    let o = mpirun("2", &["run", &target, "-c", "8M", "-d", "1"])
        .output()
        .unwrap();
    let err = common::stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("built without MPI"), "{err}");
    assert!(err.contains("--features mpi"), "{err}");
    Ok(String::new())
}

/// Only run, fio, fs, sweep, iozone and workload run as ranks: another command started as
/// several is refused by name, before it touches a file, in either build.
fn other_commands_are_refused_as_ranks() -> Result<String, String> {
    have_mpirun()?;
    let dir = common::work_dir();
    let o = mpirun("2", &["quick", common::p(dir.path())])
        .output()
        .unwrap();
    let err = common::stderr(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("iogauge quick runs alone, not as one of 2 MPI ranks"),
        "{err}"
    );
    assert!(files_in(dir.path()).is_empty());
    Ok(String::new())
}

/// A rank killed outright (SIGKILL, or the abort that follows it) cannot remove its
/// `iogauge-fs-PID` folder: the next `iogauge fs` in that folder removes it, proving it is
/// iogauge's and its process gone by the mark inside. Shown with a solo run killed alike;
/// a folder of the same name without the mark stays.
fn a_killed_fs_runs_folder_is_removed_by_the_next() -> Result<String, String> {
    let dir = common::work_dir();
    let fs = |extra: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_iogauge"));
        c.args(["fs", common::p(dir.path()), "--tests", "file_stat"])
            .args(["--no-drop-caches", "--no-save"])
            .args(extra)
            .env("IOGAUGE_DB", common::test_db());
        c
    };
    let mut child = fs(&["--files", "100000", "--repeat", "50"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let folder = dir.path().join(format!("iogauge-fs-{}", child.id()));
    let t = Instant::now();
    while !folder.join(".iogauge-workspace").exists() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the suite never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(folder.exists(), "a SIGKILL leaves the folder");
    let stranger = dir.path().join("iogauge-fs-1");
    std::fs::create_dir(&stranger).unwrap();
    let o = fs(&["--files", "10", "--repeat", "1"]).output().unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(!folder.exists(), "the killed run's folder is removed");
    assert!(
        common::stderr(&o).contains(&format!("removed '{}'", folder.display())),
        "{}",
        common::stderr(&o)
    );
    assert_eq!(
        files_in(dir.path()),
        ["iogauge-fs-1"],
        "an unmarked folder stays"
    );
    Ok(String::new())
}

pub fn main() {
    let tests: Vec<(&str, common::SkipOr)> = vec![
        (
            "aggregate_is_the_sum_of_the_ranks",
            aggregate_is_the_sum_of_the_ranks,
        ),
        (
            "stonewall_with_wear_out_gives_equal_work",
            stonewall_with_wear_out_gives_equal_work,
        ),
        (
            "a_shared_file_gives_each_rank_its_own_slice",
            a_shared_file_gives_each_rank_its_own_slice,
        ),
        (
            "rank_shift_reads_another_ranks_data",
            rank_shift_reads_another_ranks_data,
        ),
        (
            "a_failing_rank_ends_the_job_fast",
            a_failing_rank_ends_the_job_fast,
        ),
        (
            "a_fio_job_file_runs_as_ranks_and_reports_the_sum",
            a_fio_job_file_runs_as_ranks_and_reports_the_sum,
        ),
        (
            "a_failing_fio_rank_ends_the_job_fast",
            a_failing_fio_rank_ends_the_job_fast,
        ),
        (
            "each_rank_sizes_its_own_fio_file",
            each_rank_sizes_its_own_fio_file,
        ),
        (
            "a_plan_only_some_ranks_can_make_ends_every_rank",
            a_plan_only_some_ranks_can_make_ends_every_rank,
        ),
        (
            "the_fs_suite_runs_as_ranks_fenced_test_by_test",
            the_fs_suite_runs_as_ranks_fenced_test_by_test,
        ),
        (
            "a_sweep_runs_as_ranks_fenced_cell_by_cell",
            a_sweep_runs_as_ranks_fenced_cell_by_cell,
        ),
        (
            "a_workload_runs_as_ranks_step_by_step",
            a_workload_runs_as_ranks_step_by_step,
        ),
        (
            "a_workload_target_shared_by_ranks_is_refused",
            a_workload_target_shared_by_ranks_is_refused,
        ),
        (
            "two_hosts_each_read_the_others_files",
            two_hosts_each_read_the_others_files,
        ),
        (
            "sigint_to_mpirun_cleans_every_rank",
            sigint_to_mpirun_cleans_every_rank,
        ),
        (
            "sigint_mid_sweep_cleans_every_rank",
            sigint_mid_sweep_cleans_every_rank,
        ),
        (
            "one_file_for_every_rank_is_refused",
            one_file_for_every_rank_is_refused,
        ),
        (
            "without_the_feature_several_ranks_are_refused",
            without_the_feature_several_ranks_are_refused,
        ),
        (
            "other_commands_are_refused_as_ranks",
            other_commands_are_refused_as_ranks,
        ),
        (
            "a_killed_fs_runs_folder_is_removed_by_the_next",
            a_killed_fs_runs_folder_is_removed_by_the_next,
        ),
    ];
    common::harness_skip_or("mpi", tests);
}
