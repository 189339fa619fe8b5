//! `iogauge diskspd` end to end: DiskSpd's defaults, its XML read by a standard-library
//! Python consumer (tests/diskspd/consumer.py), by a port of DiskSpd's own
//! Process-DiskSpd.ps1 (tests/diskspd/process_diskspd.py) and by a strict reader of DiskSpd
//! 2.2's shape (tests/diskspd/strict.py), DiskSpd's refusals, and `#N` disk targets.
//! Own harness: a test that needs python3 or root is SKIPPED with its reason where missing.

use crate::common;

use common::{bin, harness, is_root, p, saved_id, sh, stderr, work_dir, Outcome};
use iogauge::stats::LatencyHistogram;
use serde_json::Value;
use std::collections::HashMap;
use std::process::Output;

fn diskspd(args: &[&str]) -> Output {
    bin()
        .arg("diskspd")
        .args(args)
        .output()
        .expect("iogauge starts")
}

/// What tests/diskspd/consumer.py reads from the XML file `xml`, as key=value pairs.
fn consume(xml: &std::path::Path) -> Result<HashMap<String, String>, String> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diskspd/consumer.py");
    let c = std::process::Command::new("python3")
        .arg(script)
        .arg(xml)
        .output()
        .map_err(|e| e.to_string())?;
    if !c.status.success() {
        return Err(String::from_utf8_lossy(&c.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&c.stdout)
        .lines()
        .filter_map(|l| {
            l.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect())
}

fn xml_is_read_by_a_diskspd_consumer() -> Outcome {
    if sh("python3", &["--version"]).is_err() {
        return Outcome::Skip("python3 is not installed".into());
    }
    let dir = work_dir();
    let f = dir.path().join("t.dat");
    let o = diskspd(&[
        "-c32M",
        "-b4K",
        "-t2",
        "-o4",
        "-r",
        "-w25",
        "-Su",
        "-L",
        "-D",
        "-d2",
        "-W0",
        "-Rxml",
        "--no-save",
        p(&f),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let xml = dir.path().join("r.xml");
    std::fs::write(&xml, &o.stdout).unwrap();
    let kv = match consume(&xml) {
        Ok(kv) => kv,
        Err(e) => return Outcome::Fail(format!("the consumer refused the XML: {e}")),
    };
    let n = |k: &str| kv[k].parse::<f64>().unwrap();
    // Every I/O is one 4 KiB block; about a quarter are writes.
    assert_eq!(n("BytesCount"), n("IOCount") * 4096.0);
    let share = n("WriteCount") / n("IOCount");
    assert!((0.2..0.3).contains(&share), "write share {share}");
    // -D: one bucket per full second, together every I/O of the run.
    assert_eq!(n("iops_buckets"), 2.0);
    assert_eq!(n("iops_bucket_total"), n("IOCount"));
    assert!(n("p99_ms") >= n("avg_ms") * 0.5, "{kv:?}");
    assert!(!f.exists(), "the created file was left behind");
    assert_eq!((n("paths"), n("targets_per_thread")), (1.0, 1.0));
    // -F2 over two targets: each thread has a Target per file, -o2 I/Os on each, so the two
    // files get the same share.
    let (a, b) = (dir.path().join("a.dat"), dir.path().join("b.dat"));
    let o = diskspd(&[
        "-c8M",
        "-b4K",
        "-F2",
        "-o2",
        "-r",
        "-Su",
        "-d1",
        "-W0",
        "-Rxml",
        "--no-save",
        p(&a),
        p(&b),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(&xml, &o.stdout).unwrap();
    let kv2 = match consume(&xml) {
        Ok(kv) => kv,
        Err(e) => return Outcome::Fail(format!("the consumer refused the -F XML: {e}")),
    };
    let m = |k: &str| kv2[k].parse::<f64>().unwrap();
    if (m("paths"), m("targets_per_thread")) != (2.0, 2.0)
        || (m("smallest_path_share") - 0.5).abs() > 0.01
    {
        return Outcome::Fail(format!("-F2 over two targets: {kv2:?}"));
    }
    Outcome::Pass(format!(
        "{:.0} IOPS; -F2 over two files: {:.3} of the I/O on the smaller side",
        n("iops"),
        m("smallest_path_share")
    ))
}

fn diskspd_defaults_and_text() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("d.dat");
    let o = diskspd(&["-c16M", "-d1", "-W0", "-n", "--no-save", p(&f)]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", stderr(&o));
    for want in [
        "block size: 64KiB",
        "outstanding I/O per thread: 2",
        "threads: 1",
        "caching: buffered",
        "DiskSpd's default: the OS cache is on",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    let o = diskspd(&["-c16M", "-d1", "-W0", "-t2", "-n", "--no-save", p(&f)]);
    assert!(
        stderr(&o).contains("WARNING: target access pattern will not be sequential, consider -si")
    );
    Outcome::Pass(String::new())
}

fn refusals_name_diskspd_reason() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("never.dat");
    let cases: [(&[&str], &str); 5] = [
        (
            &["-r", "-s", "-c1M"],
            "sequential IO (-s) conflicts with random IO (-r/-rs)",
        ),
        (
            &["-F2", "-t2", "-c1M"],
            "-F and -t parameters cannot be used together",
        ),
        (
            &["-si", "-r", "-c1M"],
            "sequential IO (-s) conflicts with random IO (-r/-rs)",
        ),
        (
            &["-w150", "-c1M"],
            "write ratio passed to -w must be between 0 and 100",
        ),
        (
            &["-c1M", "--bogus"],
            "--bogus: not an option of iogauge diskspd",
        ),
    ];
    for (args, want) in cases {
        let mut a = args.to_vec();
        a.push(p(&f));
        let o = diskspd(&a);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{a:?}: {e}");
        assert!(e.contains(want), "{a:?}: {e}");
    }
    assert!(!f.exists(), "a refused run created its file");
    Outcome::Pass(String::new())
}

fn disk_numbers_read_but_never_write_without_consent() -> Outcome {
    if !is_root() {
        return Outcome::Skip("needs root to read a whole disk".into());
    }
    let o = diskspd(&["-w100", "-d1", "-W0", "--no-save", "#0"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("refusing to write to block device '/dev/"),
        "{e}"
    );
    let o = diskspd(&["-d1", "-W0", "-b4K", "--no-save", "#0"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let e = stderr(&o);
    if e.contains("Operation not permitted") {
        // Some sandboxes refuse to open the disk a mounted root lives on, even to root.
        return Outcome::Skip(format!(
            "writes refused as they should be; reading the disk is not allowed here: {}",
            e.trim()
        ));
    }
    assert!(o.status.success(), "{e}");
    assert!(out.contains("target #0 is /dev/"), "{out}");
    Outcome::Pass(String::new())
}

/// DiskSpd's -Rp prints the profile and runs nothing: no target is opened or created, not
/// even one in a folder that does not exist.
fn profile_only_runs_nothing() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("never.dat");
    let missing = dir.path().join("no-such-folder/never.dat");
    let common = [
        "-c16M", "-b4K", "-t2", "-o8", "-r", "-w100", "-d1", "-W0", "-L", "--keep",
    ];
    for (rp, want) in [
        ("-Rp", "Input parameters:"),
        ("-Rptext", "\t\tperforming write test"),
        ("-Rpxml", "<WriteRatio>100</WriteRatio>"),
    ] {
        let mut a = common.to_vec();
        a.extend([rp, p(&f), p(&missing)]);
        let o = diskspd(&a);
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(o.status.success(), "{rp}: {}", stderr(&o));
        assert!(out.contains(want), "{rp}: no {want:?} in\n{out}");
        for ran in [
            "Results:",
            "<TimeSpan>\n  <TestTimeSeconds>",
            "saved as run",
        ] {
            let both = format!("{out}{}", stderr(&o));
            assert!(
                !both.contains(ran),
                "{rp} ran the workload: {ran:?} in\n{both}"
            );
        }
        assert!(!f.exists(), "{rp} created its target");
    }
    // The XML profile is DiskSpd's <Profile>, element for element where iogauge knows them.
    let g = dir.path().join("never2.dat");
    let o = diskspd(&[
        "-Rpxml",
        "-c16M",
        "-b8K",
        "-F2",
        "-O4",
        "-r",
        "-Sh",
        p(&f),
        p(&g),
    ]);
    let xml = String::from_utf8_lossy(&o.stdout).into_owned();
    for want in [
        "<Profile>",
        "<ThreadCount>2</ThreadCount>",
        "<RequestCount>4</RequestCount>",
        "<DisableOSCache>true</DisableOSCache>",
        "<WriteThrough>true</WriteThrough>",
        "<FileSize>16777216</FileSize>",
        "<Random>8192</Random>",
        "</Profile>",
    ] {
        assert!(xml.contains(want), "no {want} in\n{xml}");
    }
    assert!(xml.starts_with("<Profile>"), "{xml}");
    Outcome::Pass(String::new())
}

/// The saved JSON result of the run whose output is `o`.
fn saved_result(o: &Output) -> Value {
    let id = saved_id(o).to_string();
    let e = bin()
        .args(["results", "export", &id, "--output", "json"])
        .output()
        .expect("iogauge starts");
    assert!(e.status.success(), "{}", stderr(&e));
    serde_json::from_slice(&e.stdout).expect("valid JSON")
}

fn hist(d: &Value) -> Option<LatencyHistogram> {
    d["latency_total_histogram"]
        .as_str()
        .map(|h| LatencyHistogram::from_base64(h).expect("a histogram"))
}

/// The inner text of each `<tag>` in `xml`, in order.
fn elements<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    xml.split(open.as_str())
        .skip(1)
        .filter_map(|rest| rest.split_once(close.as_str()).map(|(v, _)| v))
        .collect()
}

/// A figure printed as 0 is one that DiskSpd's format rounds to 0 (`half` of its last digit).
fn zero_only_if_tiny(printed: &str, ns: f64, half: f64, what: &str) -> Result<(), String> {
    if printed.parse::<f64>() == Ok(0.0) && ns >= half {
        return Err(format!("{what} reads {printed} for {ns} ns"));
    }
    Ok(())
}

/// DiskSpd times an I/O from issue to completion. With its default buffered mode the kernel
/// completes a cached read inside the submission call, so iogauge's completion latency is
/// about 0 and only total latency (queued to completed) is what DiskSpd would show: every
/// latency figure of the XML (averages, deviations, percentile buckets, per thread) is the
/// run's total latency, and none reads 0.000 where the I/O took half a microsecond or more.
fn xml_latency_is_issue_to_completion() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("lat.dat");
    let o = diskspd(&["-L", "-b4k", "-d1", "-W0", "-c16M", "-Rxml", p(&f)]);
    let r = saved_result(&o);
    let xml = String::from_utf8_lossy(&o.stdout).into_owned();
    let ms = |ns: f64| format!("{:.3}", ns / 1e6);
    let all = &r["total"]["all"]["latency_total"];
    let lat = xml.split("<Latency ").nth(1).expect("a <Latency> section");
    let (lat, threads) = lat.split_once("</Latency>").expect("</Latency>");
    let mut checked = 0;
    for (tag, want) in [
        (
            "AverageReadMilliseconds",
            &r["total"]["read"]["latency_total"]["mean_ns"],
        ),
        (
            "ReadLatencyStdev",
            &r["total"]["read"]["latency_total"]["stdev_ns"],
        ),
        ("AverageTotalMilliseconds", &all["mean_ns"]),
        ("LatencyStdev", &all["stdev_ns"]),
    ] {
        let got = elements(lat, tag)[0];
        let want = want.as_f64().unwrap();
        if got != ms(want) {
            return Outcome::Fail(format!("{tag} {got}, total latency {}", ms(want)));
        }
        if let Err(e) = zero_only_if_tiny(got, want, 500.0, tag) {
            return Outcome::Fail(e);
        }
        checked += 1;
    }
    let (read, total) = (
        hist(&r["total"]["read"]).unwrap(),
        hist(&r["total"]["all"]).unwrap(),
    );
    for bucket in lat.split("<Bucket>").skip(1) {
        let pct: f64 = elements(bucket, "Percentile")[0].parse().unwrap();
        for (tag, h) in [("ReadMilliseconds", &read), ("TotalMilliseconds", &total)] {
            let want = h.value_at_percentile(pct) as f64;
            let got = elements(bucket, tag)[0];
            if got != ms(want) {
                return Outcome::Fail(format!("p{pct} {tag} {got}, total latency {}", ms(want)));
            }
            if let Err(e) = zero_only_if_tiny(got, want, 500.0, &format!("p{pct} {tag}")) {
                return Outcome::Fail(e);
            }
            checked += 1;
        }
    }
    let thread = &r["targets"][0]["threads"][0]["total"]["all"]["latency_total"];
    let got = elements(threads, "AverageLatencyMilliseconds")[0];
    if got != ms(thread["mean_ns"].as_f64().unwrap()) {
        return Outcome::Fail(format!(
            "thread 0: AverageLatencyMilliseconds {got}, {thread}"
        ));
    }
    Outcome::Pass(format!(
        "{checked} figures; p50 {} ms, completion latency alone {} ms",
        ms(total.value_at_percentile(50.0) as f64),
        ms(common::percentile(&r["total"]["all"]["latency"], 50.0))
    ))
}

/// The text report of the same kind of run: the latency table (min to max, mean, deviation)
/// and the I/O tables' averages are the run's total latency, in microseconds.
fn text_latency_is_issue_to_completion() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("lat.dat");
    let o = diskspd(&["-L", "-b4k", "-d1", "-W0", "-c16M", p(&f)]);
    let r = saved_result(&o);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let us = |ns: f64| format!("{:.2}", ns / 1000.0);
    let all = &r["total"]["all"]["latency_total"];
    let n = |v: &Value| v.as_f64().unwrap();
    let mut want: Vec<(&str, f64)> = vec![
        ("min", n(&all["min_ns"])),
        ("max", n(&all["max_ns"])),
        ("mean", n(&all["mean_ns"])),
        ("stdev", n(&all["stdev_ns"])),
    ];
    let labels: Vec<String> = iogauge::stats::PERCENTILES
        .iter()
        .map(|p| format!("{p}th"))
        .collect();
    for (label, p) in labels.iter().zip(iogauge::stats::PERCENTILES) {
        want.push((label, common::percentile(all, p)));
    }
    let table = out
        .split("\nLatency (us)\n")
        .nth(1)
        .expect("a latency table");
    for (label, ns) in want {
        let row = table
            .lines()
            .find(|l| l.split('|').next().map(str::trim) == Some(label))
            .unwrap_or_else(|| panic!("no {label} row in\n{table}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // Reads only: the Read and Total columns are the same I/Os.
        for got in [cells[1], cells[3]] {
            if got != us(ns) {
                return Outcome::Fail(format!("{label}: {got} us, total latency {}", us(ns)));
            }
            if let Err(e) = zero_only_if_tiny(got, ns, 5.0, label) {
                return Outcome::Fail(e);
            }
        }
    }
    let total_row = out
        .split("\nTotal IO\n")
        .nth(1)
        .and_then(|t| t.lines().find(|l| l.trim_start().starts_with("total:")))
        .expect("the Total IO table's total row");
    let avg = total_row.split('|').map(str::trim).nth(6).unwrap();
    if avg != us(n(&all["mean_ns"])) {
        return Outcome::Fail(format!(
            "AvgLat {avg} us, total latency {}",
            us(n(&all["mean_ns"]))
        ));
    }
    Outcome::Pass(String::new())
}

/// How a documented DiskSpd command line must end under `iogauge diskspd`.
enum Expect {
    Runs,
    /// Refused in one line that contains this (the option, and why).
    Refused(&'static str),
}

/// Command lines from DiskSpd's documentation (its usage text in CmdLineParser.cpp, the wiki's
/// "Command line and parameters" and "Customizing tests" pages, Microsoft Learn's DiskSpd
/// guides and public runbooks), with sizes and times made small: -c to 16M, -d to 1 and -W to
/// 0 unless the line sets them smaller (a -Wn or -Cn the line sets is kept at 1 at most).
/// Each runs, or is refused in one line that names the option and says why. `T`, `T2`: the
/// test's files.
fn documented_command_lines() -> Outcome {
    use Expect::*;
    // DiskSpd's usage example pins two CPUs; a one-CPU machine has CPU 0 only.
    let cpus = if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        "-a0,1"
    } else {
        "-a0"
    };
    let two_cpus = format!("-c16M -b4K -t2 -d1 -W0 {cpus} T T2");
    let lines: Vec<(&str, Expect)> = vec![
        // DiskSpd's usage text (diskspd -?).
        ("-c16M -d1 -W0 T", Runs),
        ("-b4K -t2 -r -o32 -d1 -W0 -Sh -c16M T", Runs),
        (two_cpus.as_str(), Runs),
        ("-c16M -b4K -ag0,0 -d1 -W0 T", Runs),
        // The wiki and Microsoft Learn.
        ("-c16M -d1 -r -w40 -t8 -o32 -b64K -Sh -L -W0 T", Runs),
        ("-b8K -d1 -o4 -t8 -h -r -w25 -L -Z1G -c16M -W0 T", Runs),
        ("-c16M -b4K -F4 -o32 -W0 -C1 -d1 -Rxml T", Runs),
        ("-t2 -o32 -b4k -r4k -w0 -d1 -W0 -Sh -D -L -c16M T", Runs),
        ("-c16M -w100 -b8K -F4 -r -o128 -W0 -d1 -Sh T", Runs),
        ("-b4k -t1 -o32 -w30 -r -Suw -L -D -d1 -W0 -C1 -c16M T", Runs),
        ("-c16M -b4K -F8 -T1b -s8b -d1 -W0 T", Runs),
        ("-c16M -b4K -t4 -si -d1 -W0 T", Runs),
        ("-c16M -b4K -r -rdpct90/10:0/10:5/20 -d1 -W0 T", Runs),
        ("-c16M -b4K -r -rdabs90/1M:0/1M:5/2M -d1 -W0 T", Runs),
        ("-c16M -b4K -rs30 -r -w30 -d1 -W0 T", Runs),
        ("-c16M -b4K -i8 -j5 -d1 -W0 T", Runs),
        ("-c16M -b4K -g1000i -d1 -W0 T", Runs),
        ("-c16M -b4K -g4096 -d1 -W0 T", Runs),
        ("-c16M -b4K -F2 -O8 -r -d1 -W0 T T2", Runs),
        ("-c16M -b4K -Sm -w50 -d1 -W0 T", Runs),
        ("-c16M -b4K -Sm -Nv -w50 -d1 -W0 T", Runs),
        (
            "-c16M -b4K -B1M:4M -f8M -d1 -W0 T",
            Refused("can only be specified once"),
        ),
        ("-c16M -b4K -B1M -f8M -r -d1 -W0 T", Runs),
        ("-c16M -b4K -Zr -w100 -d1 -W0 T", Runs),
        ("-c16M -b4K -Z -w100 -d1 -W0 T", Runs),
        ("-c16M -W -d1 -fr -I3 -l -v -P1000 -x -z42 T", Runs),
        ("-c16M -d1 -W0 -Rptext T", Runs),
        ("-c16M -d1 -W0 -Rpxml T", Runs),
        // What cannot run here, refused with the option and the reason.
        (
            "-c16M -b4K -Z1M,T2 -w100 -d1 -W0 T",
            Refused("-Z1M,T2: -Z<size>,<file>"),
        ),
        (
            "-c16M -b4K -o4 -p -d1 -W0 T",
            Refused("-p: -p (parallel I/Os"),
        ),
        (
            "-Xprofile.xml T",
            Refused("-Xprofile.xml: XML profiles (-X)"),
        ),
        (
            "-c16M -ePROCESS -d1 -W0 T",
            Refused("-ePROCESS: ETW tracing (-e) exists only on Windows"),
        ),
        (
            "-c16M -ysstart -d1 -W0 T",
            Refused("-ysstart: Windows event synchronization (-y)"),
        ),
        (
            "-c16M -ag1,0 -d1 -W0 T",
            Refused("-ag1,0: processor groups other than 0"),
        ),
        (
            "-c16M -Sm -Sw -w50 -d1 -W0 T",
            Refused("-Sm with writethrough"),
        ),
        (
            "-c16M -F0 -d1 -W0 T",
            Refused("-F0: incorrectly provided option"),
        ),
        (
            "-c16M -d1 -W0 C:",
            Refused("target 'C:': drive letters exist only on Windows"),
        ),
    ];
    let dir = work_dir();
    let (t, t2) = (dir.path().join("t.dat"), dir.path().join("t2.dat"));
    let mut bad = Vec::new();
    for (line, expect) in &lines {
        let args: Vec<&str> = line
            .split_whitespace()
            .map(|w| match w {
                "T" => p(&t),
                "T2" => p(&t2),
                w => w,
            })
            .chain(["--no-save"])
            .collect();
        let o = diskspd(&args);
        let e = stderr(&o);
        let errors: Vec<&str> = e.lines().filter(|l| l.contains("error")).collect();
        let ok = match expect {
            Runs => o.status.success(),
            Refused(want) => {
                o.status.code() == Some(2) && errors.len() == 1 && errors[0].contains(want)
            }
        };
        if !ok {
            bad.push(format!("{line}: exit {:?}: {}", o.status.code(), e.trim()));
        }
    }
    if !bad.is_empty() {
        return Outcome::Fail(bad.join("\n"));
    }
    Outcome::Pass(format!("{} command lines", lines.len()))
}

/// Python 3 on tests/diskspd/`script` with `args`: its stdout, or why it failed.
fn python(script: &str, args: &[&std::path::Path]) -> Result<String, String> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/diskspd")
        .join(script);
    let c = std::process::Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if !c.status.success() {
        return Err(String::from_utf8_lossy(&c.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&c.stdout).into_owned())
}

/// A run with every option the issue names (-L, -D at 500 ms, -rs, mixed reads and writes,
/// two threads), its XML in `dir` under a name Process-DiskSpd.ps1 takes fields from, and
/// iogauge's own saved result of it.
struct Measured {
    dir: tempfile::TempDir,
    xml: std::path::PathBuf,
    target: std::path::PathBuf,
    saved: Value,
}

fn measured_run() -> Measured {
    let dir = work_dir();
    let target = dir.path().join("t.dat");
    let o = diskspd(&[
        "-c32M",
        "-b4K",
        "-t2",
        "-o4",
        "-rs60",
        "-w30",
        "-Su",
        "-L",
        "-D500",
        "-d3",
        "-W0",
        "-Rxml",
        p(&target),
    ]);
    let saved = saved_result(&o);
    let xml = dir.path().join("run-wc4wicpw2vm3.xml");
    std::fs::write(&xml, &o.stdout).unwrap();
    Measured {
        dir,
        xml,
        target,
        saved,
    }
}

/// The rows Process-DiskSpd's port wrote to `tsv`: each field by its header.
fn tsv_rows(tsv: &std::path::Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(tsv).unwrap();
    let unquote = |l: &str| -> Vec<String> {
        l.split('\t')
            .map(|v| v.trim_matches('"').to_string())
            .collect()
    };
    let mut lines = text.lines();
    let head = unquote(lines.next().expect("a header"));
    lines
        .map(|l| head.iter().cloned().zip(unquote(l)).collect())
        .collect()
}

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

/// DiskSpd's Process-DiskSpd.ps1 (ported faithfully) reads iogauge's XML into the figures
/// iogauge measured: IOPS, bandwidth and bytes per direction, the latency averages and
/// percentiles, the IOPS coefficient of variation over -D's buckets, the run's shape
/// (pattern, alignment, threads, queue depth, block, write ratio) and the affinity: on by
/// DiskSpd's default, off with -n.
fn process_diskspd_reads_what_iogauge_measured() -> Outcome {
    if sh("python3", &["--version"]).is_err() {
        return Outcome::Skip("python3 is not installed".into());
    }
    let m = measured_run();
    let r = &m.saved;
    let tsv = m.dir.path().join("result.tsv");
    if let Err(e) = python("process_diskspd.py", &[m.dir.path(), &tsv]) {
        return Outcome::Fail(format!("the Process-DiskSpd port refused the XML: {e}"));
    }
    let rows = tsv_rows(&tsv);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    let f = |k: &str| -> f64 {
        row[k]
            .parse()
            .unwrap_or_else(|_| panic!("{k} = {:?}", row[k]))
    };
    let close = |k: &str, want: f64, rel: f64| {
        let got = f(k);
        assert!(
            (got - want).abs() <= want.abs() * rel + 1e-9,
            "{k}: Process-DiskSpd reads {got}, iogauge measured {want}"
        );
    };
    let t = &r["total"];
    for (d, key) in [("read", "Read"), ("write", "Write")] {
        // Exact: the counts add up; the rates differ only by TestTimeSeconds' two decimals.
        close(&format!("{key}Bytes"), t[d]["bytes"].as_f64().unwrap(), 0.0);
        close(&format!("{key}IOPS"), t[d]["iops"].as_f64().unwrap(), 0.005);
        close(
            &format!("{key}BW"),
            t[d]["bytes_per_sec"].as_f64().unwrap(),
            0.005,
        );
    }
    close("TotIOPS", t["all"]["iops"].as_f64().unwrap(), 0.005);
    // The coefficient of variation over the 500 ms buckets, from iogauge's own series.
    let full: Vec<f64> = r["time_series"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["duration_ns"] == 500_000_000u64)
        .map(|s| s["read"]["ios"].as_f64().unwrap() / 0.5)
        .collect();
    assert_eq!(full.len(), 6, "-d3 at -D500: six buckets");
    let mean = full.iter().sum::<f64>() / full.len() as f64;
    let dev = (full.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / full.len() as f64).sqrt();
    let cov = dev / t["read"]["iops"].as_f64().unwrap();
    assert!(
        (f("ReadIOPSCoV") - cov).abs() <= cov * 0.01 + 1e-6,
        "ReadIOPSCoV {} from the XML, {cov} from iogauge's series",
        row["ReadIOPSCoV"]
    );
    for (key, d) in [("LatReadAV", "read"), ("LatWriteAV", "write")] {
        let want = ms(t[d]["latency_total"]["mean_ns"].as_f64().unwrap());
        assert_eq!(row[key], want, "{key}");
    }
    let (read, write) = (hist(&t["read"]).unwrap(), hist(&t["write"]).unwrap());
    for p in ["25", "50", "90", "99", "99.9", "100"] {
        let v: f64 = p.parse().unwrap();
        for (key, h) in [("LatRead", &read), ("LatWrite", &write)] {
            let want = ms(h.value_at_percentile(v) as f64);
            assert_eq!(row[&format!("{key}{p}")], want, "{key}{p}");
        }
    }
    let shape = [
        ("Affinity", "True"),
        ("Pattern", "Random"),
        ("Align", "4096"),
        ("Threads", "2"),
        ("Outstanding", "4"),
        ("Block", "4096"),
        ("WriteRatio", "30"),
        ("Add1", "4"),
        ("Add2", "2"),
        ("Add3", "3"),
    ];
    for (k, want) in shape {
        assert_eq!(row[k], want, "{k}");
    }
    assert_eq!(row["Path"], p(&m.target));
    assert_eq!(row["System"], r["system"]["hostname"].as_str().unwrap());
    let lat_tsv = std::fs::read_to_string(m.dir.path().join("run-wc4wicpw2vm3.lat.tsv")).unwrap();
    assert_eq!(
        lat_tsv.lines().count(),
        108,
        "get-latency: one line per bucket"
    );
    // -n: DiskSpd's affinity off; no -L, no -D: no latency, no deviation.
    let dir = work_dir();
    let o = diskspd(&[
        "-c8M",
        "-d1",
        "-W0",
        "-n",
        "-Rxml",
        "--no-save",
        p(&dir.path().join("n.dat")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(dir.path().join("n.xml"), &o.stdout).unwrap();
    let tsv = dir.path().join("n.tsv");
    if let Err(e) = python("process_diskspd.py", &[dir.path(), &tsv]) {
        return Outcome::Fail(format!("the Process-DiskSpd port refused the -n XML: {e}"));
    }
    let n = &tsv_rows(&tsv)[0];
    let want = [
        ("Affinity", "False"),
        ("Pattern", "Sequential"),
        ("Align", "65536"),
        ("LatRead99", ""),
        ("ReadIOPSCoV", "0"),
    ];
    for (k, v) in want {
        assert_eq!(n[k], v, "-n run: {k}");
    }
    Outcome::Pass(format!(
        "counts, rates, latencies, shape and affinity agree; read p99 {} ms, ReadIOPSCoV {}",
        row["LatRead99"], row["ReadIOPSCoV"]
    ))
}

/// A strict reader of DiskSpd 2.2's shape takes iogauge's XML: System with PowerScheme and a
/// ProcessorTopology that matches sysfs, every CPU with DiskSpd's ten elements, Latency with
/// its three histogram counts (here checked against iogauge's histograms) and DiskSpd's 108
/// percentiles, the Profile's elements in DiskSpd's order, and every Iops/Bucket, the run's
/// and each target's, with exactly DiskSpd's 12 attributes whose rates are iogauge's
/// intervals and whose latencies add up (targets' extremes are the run's).
fn xml_has_diskspd_shape() -> Outcome {
    if sh("python3", &["--version"]).is_err() {
        return Outcome::Skip("python3 is not installed".into());
    }
    let m = measured_run();
    let json = m.dir.path().join("saved.json");
    std::fs::write(&json, m.saved.to_string()).unwrap();
    let out = match python("strict.py", &[&m.xml, &json]) {
        Ok(o) => o,
        Err(e) => return Outcome::Fail(format!("the strict reader refused the XML: {e}")),
    };
    let kv: HashMap<&str, &str> = out.lines().filter_map(|l| l.split_once('=')).collect();
    assert_eq!(kv.get("strict"), Some(&"ok"), "{out}");
    assert_eq!(kv["iops_buckets"], "6", "{out}");
    assert_eq!(kv["target_iops"], "2", "{out}");
    assert_eq!(kv["disable_affinity"], "false", "{out}");
    let t = &m.saved["total"];
    let held = |d: &str| hist(&t[d]).map_or(0, |h| h.recorded().len()).to_string();
    let want = format!("{},{},{}", held("read"), held("write"), held("all"));
    assert_eq!(kv["histo_buckets"], want, "{out}");
    // The buckets' extremes lie within the run's own (its histogram keeps 3 digits).
    let (lo, hi) = (
        kv["bucket_read_min_ms"].parse::<f64>().unwrap(),
        kv["bucket_read_max_ms"].parse::<f64>().unwrap(),
    );
    let read = hist(&t["read"]).unwrap();
    let (min, max) = (
        read.value_at_percentile(0.0) as f64 / 1e6,
        read.value_at_percentile(100.0) as f64 / 1e6,
    );
    assert!(
        lo >= min * 0.999 - 0.0005 && hi <= max * 1.001 + 0.0005,
        "buckets {lo}..{hi} ms, run {min}..{max} ms"
    );
    Outcome::Pass(format!(
        "histogram buckets {want}; power scheme {}; {} cores",
        kv["power_scheme"], kv["cores"]
    ))
}

/// With -rd, each Thread/Target carries the zones where the run put them, in DiskSpd's
/// effective form: absolute byte ranges from the start of the target, a zone without I/O
/// as a range with IO="0". 16 MiB in 4 KiB slots: 10% is 409 whole slots.
fn xml_distribution_is_the_layout_run() -> Outcome {
    let dir = work_dir();
    let f = dir.path().join("z.dat");
    let o = diskspd(&[
        "-c16M",
        "-b4K",
        "-r",
        "-rdpct50/10:0/10:50/80",
        "-d1",
        "-W0",
        "-Rxml",
        "--no-save",
        p(&f),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let xml = String::from_utf8_lossy(&o.stdout).into_owned();
    let results = xml
        .split("</Profile>")
        .nth(1)
        .expect("results after the profile");
    let target = elements(results, "Target")[0];
    let ranges: Vec<&str> = target
        .split("<Range ")
        .skip(1)
        .map(|r| r.split_once("</Range>").unwrap().0)
        .collect();
    let want = [
        "IO=\"50\">1675264",
        "IO=\"0\">1679360",
        "IO=\"50\">13422592",
    ];
    if ranges != want {
        return Outcome::Fail(format!("ranges {ranges:?}, want {want:?}"));
    }
    if !target.contains("<Distribution>\n") || !target.contains("<Absolute>") {
        return Outcome::Fail(format!("no Distribution/Absolute in {target}"));
    }
    Outcome::Pass(String::new())
}

type Test = (&'static str, fn() -> Outcome);

pub fn main() {
    let tests: Vec<Test> = vec![
        (
            "xml_is_read_by_a_diskspd_consumer",
            xml_is_read_by_a_diskspd_consumer,
        ),
        (
            "process_diskspd_reads_what_iogauge_measured",
            process_diskspd_reads_what_iogauge_measured,
        ),
        ("xml_has_diskspd_shape", xml_has_diskspd_shape),
        (
            "xml_distribution_is_the_layout_run",
            xml_distribution_is_the_layout_run,
        ),
        ("diskspd_defaults_and_text", diskspd_defaults_and_text),
        ("profile_only_runs_nothing", profile_only_runs_nothing),
        (
            "xml_latency_is_issue_to_completion",
            xml_latency_is_issue_to_completion,
        ),
        (
            "text_latency_is_issue_to_completion",
            text_latency_is_issue_to_completion,
        ),
        ("documented_command_lines", documented_command_lines),
        ("refusals_name_diskspd_reason", refusals_name_diskspd_reason),
        (
            "disk_numbers_read_but_never_write_without_consent",
            disk_numbers_read_but_never_write_without_consent,
        ),
    ];
    let tests = tests
        .into_iter()
        .map(|(name, t)| (name.to_string(), Box::new(t) as Box<dyn Fn() -> Outcome>))
        .collect();
    harness("diskspd", tests);
}
