//! Tools that consume fio's output (or drive fio itself), run on iogauge's as on fio's for
//! the same small job: fio2gnuplot (Debian's fio package) on the bandwidth and IOPS logs,
//! bench-fio (fio-plot's, PyPI) and cdmpy (PyPI) driving `iogauge fio` through a `fio` on
//! PATH that runs it. Each compares what the tool made of fio's output with what it made of
//! iogauge's. Own harness: a tool that is missing, or that does not work even on fio's own
//! output here, makes its test SKIPPED with the reason, never passed. Every subprocess is
//! bounded, and killed with its process group when it overruns.

use crate::common;

use common::{bounded, harness, p, stderr, test_db, work_dir, Outcome};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The first of `tools` that is not on PATH, as a skip.
fn missing(tools: &[&str]) -> Option<Outcome> {
    tools.iter().find(|t| !have(t)).map(|t| {
        Outcome::Skip(format!(
            "{t} is not installed (scripts/install-test-tools.sh installs it)"
        ))
    })
}

fn said(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(o))
}

/// A folder holding an executable `fio` that runs `iogauge fio` with `own` options (saving
/// into the tests' database), as a user would put one first on PATH for a tool that runs
/// `fio`.
fn fio_shim(dir: &Path, own: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let shim = dir.join("shim");
    std::fs::create_dir_all(&shim).unwrap();
    let fio = shim.join("fio");
    std::fs::write(
        &fio,
        format!(
            "#!/bin/sh\nIOGAUGE_DB='{}' exec '{}' fio {own} \"$@\"\n",
            p(&test_db()),
            env!("CARGO_BIN_EXE_iogauge")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fio, std::fs::Permissions::from_mode(0o755)).unwrap();
    shim
}

/// PATH for `tool`'s side: the shim (running iogauge with `own` options) first for iogauge,
/// PATH as it is for fio.
fn path_for(tool: &str, dir: &Path, own: &str) -> String {
    let path = std::env::var("PATH").unwrap_or_default();
    match tool {
        "iogauge" => format!("{}:{path}", p(&fio_shim(dir, own))),
        _ => path,
    }
}

/// The files under `dir`, as paths relative to it, sorted, with their sizes.
fn tree(dir: &Path) -> Vec<(String, u64)> {
    fn walk(root: &Path, dir: &Path, into: &mut Vec<(String, u64)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(root, &path, into);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                into.push((rel, e.metadata().map_or(0, |m| m.len())));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort();
    files
}

fn names(files: &[(String, u64)]) -> Vec<&str> {
    files.iter().map(|(n, _)| n.as_str()).collect()
}

fn is_png(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.len() > 1000 && b.starts_with(b"\x89PNG\r\n\x1a\n"))
}

/// A fio job run by `tool` (the real fio, or iogauge's through the shim) in `dir`.
fn run_job(tool: &str, dir: &Path, job: &str, secs: u64) -> Result<Output, String> {
    std::fs::write(dir.join("job.fio"), job).unwrap();
    let mut cmd = Command::new("fio");
    cmd.env("PATH", path_for(tool, dir.parent().unwrap(), ""))
        .arg("job.fio");
    let o = bounded(cmd, dir, "fio", secs)?;
    std::fs::remove_file(dir.join("job.fio")).unwrap();
    if !o.status.success() {
        return Err(format!("{tool}: {}", said(&o)));
    }
    Ok(o)
}

/// `name=value` lines (fio2gnuplot's .global files).
fn key_values(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter_map(|l| l.split_once('='))
        .filter_map(|(k, v)| Some((k.trim().to_string(), v.trim().parse().ok()?)))
        .collect()
}

/// fio2gnuplot (fio's, in Debian's fio package) on the bandwidth logs and on the IOPS logs of
/// two runs (iodepth 1 and 4) by fio and by iogauge, in one folder each, as it is meant to
/// compare runs: it writes the same files for both (gnuplot scripts, PNGs of each trace and of
/// their comparison, its .global/.average/.min/.max/.stddev figures), every PNG a picture, and
/// the figures it computes are sane: two traces, about as many values for both tools, non-zero
/// averages, bandwidth over IOPS the block size, and iogauge's averages within a factor of
/// fio's. One clone per job: fio writes a clone's averaged bw and iops logs each on its own,
/// iogauge one per job.
fn fio2gnuplot_computes_the_same_for_both() -> Outcome {
    if let Some(skip) = missing(&["fio", "fio2gnuplot", "gnuplot"]) {
        return skip;
    }
    let job = |name: &str, depth: u32| {
        format!(
            "[{name}]\nfilename={name}.dat\nsize=8m\nbs=4k\nrw=randrw\ndirect=1\n\
             ioengine=libaio\niodepth={depth}\nruntime=1\ntime_based\nlog_avg_msec=200\n\
             write_bw_log={name}\nwrite_iops_log={name}\n"
        )
    };
    let dir = work_dir();
    let mut seen = Vec::new();
    let mut figures = Vec::new();
    for tool in ["fio", "iogauge"] {
        let here = dir.path().join(tool);
        std::fs::create_dir_all(&here).unwrap();
        for (name, depth) in [("qd1", 1), ("qd4", 4)] {
            if let Err(e) = run_job(tool, &here, &job(name, depth), 30) {
                return Outcome::Fail(e);
            }
            let _ = std::fs::remove_file(here.join(format!("{name}.dat")));
        }
        let mut globals = BTreeMap::new();
        // -b and -i pick *_bw.log and *_iops.log, falling back to fio's per-job names
        // (qd1_bw.1.log); -k keeps the figures; -g renders with gnuplot.
        for (flag, out) in [("-b", "bw"), ("-i", "iops")] {
            let mut cmd = Command::new("fio2gnuplot");
            cmd.args([flag, "-g", "-k", "-o", out]);
            let o = match bounded(cmd, &here, "fio2gnuplot", 30) {
                Ok(o) => o,
                Err(e) => return Outcome::Fail(e),
            };
            let text = said(&o);
            if !o.status.success() || !text.contains("Rendering traces are available") {
                let msg = format!("fio2gnuplot {flag} on {tool}'s logs: {text}");
                // fio's own logs are the reference: if it fails on those, it cannot be
                // judged here (its python3 may lack six, say).
                return if tool == "fio" {
                    Outcome::Skip(msg)
                } else {
                    Outcome::Fail(msg)
                };
            }
            let global =
                std::fs::read_to_string(here.join(format!("{out}.global"))).unwrap_or_default();
            globals.insert(out, key_values(&global));
        }
        let files = tree(&here);
        for (name, len) in &files {
            if *len == 0 || name.ends_with(".png") && !is_png(&here.join(name)) {
                return Outcome::Fail(format!("{tool}: {name} is empty or not a PNG"));
            }
        }
        // The per-trace averages: "N value" after each "# DiskN was coming from" line.
        let average = std::fs::read_to_string(here.join("bw.average")).unwrap_or_default();
        let traces = average.lines().filter(|l| l.starts_with("# Disk")).count();
        let values: Vec<f64> = average
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_whitespace().nth(1)?.parse().ok())
            .collect();
        if traces != 2 || values.len() != 2 || values.iter().any(|&v| v <= 0.0) {
            return Outcome::Fail(format!("{tool}: bw.average {average:?}"));
        }
        seen.push(files);
        figures.push(globals);
    }
    if names(&seen[0]) != names(&seen[1]) {
        return Outcome::Fail(format!(
            "fio2gnuplot wrote for fio {:?}, for iogauge {:?}",
            names(&seen[0]),
            names(&seen[1])
        ));
    }
    let get = |i: usize, log: &str, key: &str| figures[i][log].get(key).copied().unwrap_or(-1.0);
    let mut report = Vec::new();
    for (i, tool) in ["fio", "iogauge"].into_iter().enumerate() {
        for log in ["bw", "iops"] {
            // Two runs, reads and writes in each trace: about 1 s / 200 ms x 2 values each.
            let (count, disks, avg, min) = (
                get(i, log, "values_count"),
                get(i, log, "disks_count"),
                get(i, log, "avg"),
                get(i, log, "min"),
            );
            if disks != 2.0 || !(12.0..=28.0).contains(&count) || avg <= 0.0 || min < 0.0 {
                return Outcome::Fail(format!("{tool}: {log}.global {:?}", figures[i][log]));
            }
        }
        // Bandwidth (KiB/s) over IOPS: the 4 KiB block.
        let kib = get(i, "bw", "avg") / get(i, "iops", "avg");
        if !(3.6..=4.4).contains(&kib) {
            return Outcome::Fail(format!("{tool}: bw/iops averages {kib:.2} KiB, not 4"));
        }
        report.push(format!(
            "{tool}: bw avg {:.0} KiB/s of {} values, iops avg {:.0}",
            get(i, "bw", "avg"),
            get(i, "bw", "values_count"),
            get(i, "iops", "avg")
        ));
    }
    let (counts, ratio) = (
        (get(0, "bw", "values_count"), get(1, "bw", "values_count")),
        get(1, "iops", "avg") / get(0, "iops", "avg"),
    );
    // fio's last window of a run (its timer ticks a little after each window) is often not
    // written; iogauge's is: up to one value more per trace and direction, and some jitter.
    if (counts.0 - counts.1).abs() > 6.0 || !(0.2..=5.0).contains(&ratio) {
        return Outcome::Fail(format!(
            "values {counts:?}, iogauge's IOPS average {ratio:.2} x fio's: {}",
            report.join("; ")
        ));
    }
    Outcome::Pass(format!(
        "{} files each; {}",
        seen[0].len(),
        report.join("; ")
    ))
}

/// Runs `bench-fio` in `dir` with `fio` on PATH being `tool`'s, on a file target named
/// `target` in `dir`: randread and randrw (75% reads) at iodepth 1 and 4, one job each (fio
/// writes a clone's averaged bw and iops logs each on its own, iogauge one per job), a second
/// each (time_based: every log has lines). Its output tree under `dir/out`.
fn bench_fio(tool: &str, dir: &Path, target: &str) -> Result<Vec<(String, u64)>, String> {
    std::fs::create_dir_all(dir).unwrap();
    let data = dir.join(target);
    std::fs::write(&data, vec![0u8; 8 << 20]).unwrap();
    // The target is a file bench-fio's user made, which randrw writes (bench-fio's
    // --destructive): iogauge writes files it did not create only with --allow-overwrite.
    let mut cmd = Command::new("bench-fio");
    cmd.env(
        "PATH",
        path_for(tool, dir.parent().unwrap(), "--allow-overwrite"),
    )
    .args(["--target", p(&data)])
    .args(
        "--type file --size 8M --output out --mode randread randrw --rwmixread 75 \
         --destructive --iodepth 1 4 --numjobs 1 --runtime 1 --time-based --loginterval 250 \
         --quiet"
            .split_whitespace(),
    );
    let o = bounded(cmd, dir, "bench-fio", 60);
    // bench-fio writes its job file as /tmp/TARGET-tmpjobfile.fio and leaves it there.
    let _ = std::fs::remove_file(format!("/tmp/{target}-tmpjobfile.fio"));
    let o = o?;
    let text = said(&o);
    // bench-fio exits 0 when fio's stderr alone had something: its message says it.
    if !o.status.success() || text.contains("An error occurred") {
        return Err(format!("bench-fio with {tool}: {text}"));
    }
    Ok(tree(&dir.join("out")))
}

/// What one of bench-fio's JSON files holds: jobs, and whether each read (and wrote).
fn bench_json(path: &Path) -> Result<(usize, bool, bool), String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", p(path)))?;
    let doc: Value = serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", p(path)))?;
    let jobs = doc["jobs"].as_array().cloned().unwrap_or_default();
    let moved = |d: &str| {
        !jobs.is_empty()
            && jobs.iter().all(|j| {
                j[d]["io_bytes"].as_u64().unwrap_or(0) > 0
                    && j[d]["iops"].as_f64().unwrap_or(0.0) > 0.0
            })
    };
    Ok((jobs.len(), moved("read"), moved("write")))
}

/// bench-fio (fio-plot's, PyPI), which runs `fio` from PATH with a job file it writes and
/// `--output-format=json --output=FILE`, driving iogauge through a `fio` on PATH that runs
/// `iogauge fio`, and driving fio: the same output tree (bench-fio's folders, one JSON per
/// benchmark, fio's log names), each JSON with its jobs and their I/O, every log written; and
/// fio-plot draws from iogauge's tree every graph it draws from fio's.
fn bench_fio_drives_iogauge_as_it_drives_fio() -> Outcome {
    if let Some(skip) = missing(&["fio", "bench-fio", "fio-plot"]) {
        return skip;
    }
    let dir = work_dir();
    // The same target name for both, so that the trees compare; unique to this process, as
    // bench-fio's job file in /tmp is named after it.
    let target = format!("bench-{}.dat", std::process::id());
    let mut trees = Vec::new();
    for tool in ["fio", "iogauge"] {
        match bench_fio(tool, &dir.path().join(tool), &target) {
            Ok(t) => trees.push(t),
            Err(e) if tool == "fio" => {
                return Outcome::Skip(format!("bench-fio does not run fio here: {e}"))
            }
            Err(e) => return Outcome::Fail(e),
        }
    }
    if names(&trees[0]) != names(&trees[1]) {
        return Outcome::Fail(format!(
            "bench-fio's tree with fio {:?}, with iogauge {:?}",
            names(&trees[0]),
            names(&trees[1])
        ));
    }
    let mut jsons = 0;
    for (i, tool) in ["fio", "iogauge"].into_iter().enumerate() {
        let out = dir.path().join(tool).join("out");
        for (name, len) in &trees[i] {
            if *len == 0 {
                return Outcome::Fail(format!("{tool}: {name} is empty"));
            }
            if name.ends_with(".log") {
                // A line per 250 ms window and direction: about as many as fio's.
                let lines = |t: usize| {
                    let path = dir
                        .path()
                        .join(["fio", "iogauge"][t])
                        .join("out")
                        .join(name);
                    std::fs::read_to_string(path).map_or(0, |s| s.lines().count())
                };
                let (theirs, ours) = (lines(0), lines(1));
                if ours == 0 || ours * 2 + 2 < theirs || ours > theirs * 2 + 2 {
                    return Outcome::Fail(format!("{name}: fio {theirs} lines, iogauge {ours}"));
                }
                continue;
            }
            if !name.ends_with(".json") {
                continue;
            }
            jsons += 1;
            let (jobs, read, write) = match bench_json(&out.join(name)) {
                Ok(j) => j,
                Err(e) => return Outcome::Fail(format!("{tool}: {e}")),
            };
            // One job each; randrw reads and writes.
            let mixed = name.contains("randrw");
            if jobs != 1 || !read || write != mixed {
                return Outcome::Fail(format!(
                    "{tool}: {name}: {jobs} jobs, read {read}, write {write}"
                ));
            }
        }
    }
    // 2 modes x 2 iodepths, for each tool.
    if jsons != 8 {
        return Outcome::Fail(format!("{jsons} JSON files in {:?}", names(&trees[0])));
    }
    // fio-plot on each tree: graphs of the randread folder (bw and latency logs, IOPS and
    // latency over iodepth and over numjobs, the latency histogram) and of the randrw one.
    let folder = format!("out/{target}");
    let graphs = [
        ("4k", "-r randread -g -t bw -d 1 4 -n 1"),
        ("4k", "-r randread -g -t lat -d 4 -n 1"),
        ("4k", "-r randread -l -n 1"),
        ("4k", "-r randread -N -d 4"),
        ("4k", "-r randread -H -d 4 -n 1"),
        ("randrw75/4k", "-r randrw -g -t iops -d 1 4 -n 1"),
    ];
    let mut drawn = Vec::new();
    for tool in ["fio", "iogauge"] {
        let here = dir.path().join(tool);
        let mut mine = Vec::new();
        for (i, (sub, g)) in graphs.iter().enumerate() {
            let png = format!("g{i}.png");
            let mut cmd = Command::new("fio-plot");
            cmd.args(["-i", &format!("{folder}/{sub}"), "-T", "t", "-o", &png])
                .args(g.split_whitespace());
            let o = match bounded(cmd, &here, "fio-plot", 30) {
                Ok(o) => o,
                Err(e) => return Outcome::Fail(e),
            };
            if o.status.success() && is_png(&here.join(&png)) {
                mine.push(g.to_string());
            } else if tool == "iogauge" {
                return Outcome::Fail(format!("fio-plot {} on iogauge's tree: {}", g, said(&o)));
            }
        }
        drawn.push(mine);
    }
    if drawn[0].is_empty() || drawn[0] != drawn[1] {
        return Outcome::Fail(format!(
            "fio-plot drew for fio {:?}; for iogauge {:?}",
            drawn[0], drawn[1]
        ));
    }
    Outcome::Pass(format!(
        "both trees: {} files, {} JSON; fio-plot drew {} graphs of each",
        trees[0].len(),
        jsons / 2,
        drawn[0].len()
    ))
}

/// cdmpy's table: each row's name and numbers.
fn cdm_table(text: &str) -> Vec<(String, Vec<f64>)> {
    text.lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|Name") && !l.starts_with("|--"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            let numbers = cells[1..]
                .iter()
                .filter_map(|c| c.trim().parse().ok())
                .collect();
            (cells[0].trim().to_string(), numbers)
        })
        .collect()
}

/// cdmpy (PyPI's CrystalDiskMark-like `cdm`), which writes a job file and runs `fio
/// --ioengine posixaio --max-jobs=1 --output-format json JOBFILE` from PATH, once per preset
/// (sequential 1m at QD8 and QD1, random 4k at QD32 with 8 threads and QD1), then prints
/// bw_bytes, iops and lat_ns's mean from fio's JSON: with iogauge behind `fio` it prints the
/// same table (rows, columns, the mixed column of -x), every figure positive, and each random
/// row's MB/s the IOPS times 4 KiB.
fn cdmpy_prints_the_same_table() -> Outcome {
    if let Some(skip) = missing(&["fio", "cdm"]) {
        return skip;
    }
    let dir = work_dir();
    let mut tables = Vec::new();
    for tool in ["fio", "iogauge"] {
        let here = dir.path().join(tool);
        std::fs::create_dir_all(&here).unwrap();
        // The smallest run it takes: 1 MiB, one pass (-n 1), with the mixed test (-x 70).
        let mut cmd = Command::new("cdm");
        cmd.env("PATH", path_for(tool, dir.path(), ""))
            .env("TMPDIR", &here)
            .args([p(&here), "-s", "1m", "-n", "1", "-x", "70"]);
        let o = match bounded(cmd, dir.path(), "cdm", 60) {
            Ok(o) => o,
            Err(e) => return Outcome::Fail(e),
        };
        let text = said(&o);
        let table = cdm_table(&String::from_utf8_lossy(&o.stdout));
        let runs = text
            .matches("$ fio --ioengine posixaio --max-jobs=1 --output-format json")
            .count();
        // cdm exits 0 when fio failed, printing no table.
        if !o.status.success() || runs != 4 || table.len() != 8 {
            let msg = format!("cdm with {tool}: {text}");
            return if tool == "fio" {
                Outcome::Skip(msg)
            } else {
                Outcome::Fail(msg)
            };
        }
        for (name, numbers) in &table {
            // Read, write and mixed columns, each a positive figure.
            if numbers.len() != 3 || numbers.iter().any(|&n| n <= 0.0 || !n.is_finite()) {
                return Outcome::Fail(format!("cdm with {tool}: row {name}: {numbers:?}\n{text}"));
            }
        }
        // A random test's row, then its IOPS: MB/s (10^6 bytes) = IOPS x 4096 / 10^6.
        for pair in table.windows(2) {
            let ((name, mbs), (next, iops)) = (&pair[0], &pair[1]);
            if name.starts_with("RND4K") && next.starts_with(". IOPS") {
                for (m, i) in mbs.iter().zip(iops) {
                    let ratio = m / (i * 4096.0 / 1e6);
                    if !(0.98..=1.02).contains(&ratio) {
                        return Outcome::Fail(format!(
                            "cdm with {tool}: {name}: {m} MB/s at {i} IOPS\n{text}"
                        ));
                    }
                }
            }
        }
        tables.push(table);
    }
    let rows = |t: &[(String, Vec<f64>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if rows(&tables[0]) != rows(&tables[1]) {
        return Outcome::Fail(format!(
            "cdm's rows with fio {:?}, with iogauge {:?}",
            rows(&tables[0]),
            rows(&tables[1])
        ));
    }
    let show = |t: &[(String, Vec<f64>)]| {
        t.iter()
            .map(|(n, v)| format!("{n} {v:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Outcome::Pass(format!(
        "fio: {}; iogauge: {}",
        show(&tables[0]),
        show(&tables[1])
    ))
}

type Test = (&'static str, fn() -> Outcome);

pub fn main() {
    let tests: Vec<Test> = vec![
        (
            "fio2gnuplot_computes_the_same_for_both",
            fio2gnuplot_computes_the_same_for_both,
        ),
        (
            "bench_fio_drives_iogauge_as_it_drives_fio",
            bench_fio_drives_iogauge_as_it_drives_fio,
        ),
        ("cdmpy_prints_the_same_table", cdmpy_prints_the_same_table),
    ];
    let tests = tests
        .into_iter()
        .map(|(name, t)| (name.to_string(), Box::new(t) as Box<dyn Fn() -> Outcome>))
        .collect();
    harness("fio_consumers", tests);
}
