//! `iogauge sweep` and `iogauge iozone` end to end on the work disk: the knee moved by a
//! memory cgroup, iozone's report layouts, refusals in iozone's words, and a sweep saved,
//! shown, compared and charted. A test that needs root or a memory cgroup says SKIPPED with
//! the reason where there is none.

use crate::common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn sweep(args: &[&str]) -> Output {
    bin()
        .arg("sweep")
        .args(args)
        .output()
        .expect("iogauge starts")
}

fn iozone(args: &[&str]) -> Output {
    bin()
        .arg("iozone")
        .args(args)
        .output()
        .expect("iogauge starts")
}

/// iozone run in `dir`, as a script runs it there (no -f: iozone's files go in the current
/// folder).
fn iozone_in(dir: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(dir)
        .arg("iozone")
        .args(args)
        .arg("--no-save")
        .output()
        .expect("iogauge starts")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Nothing of a sweep is left in `dir`: its folder is removed on every path.
fn left_behind(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("iogauge-sweep"))
        .collect()
}

fn knees<'a>(r: &'a Value, test: &str) -> Vec<&'a Value> {
    r["knees"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["test"] == test)
        .collect()
}

/// The seed's experiment without pulling RAM: the same files read through a page cache of
/// 128 MiB. Files up to 64 MiB stay cached; from 128 MiB on every read misses; the knee must
/// be found there, with both levels.
fn a_memory_limit_moves_the_knee_to_the_limit() -> Outcome {
    if !is_root() {
        return Outcome::Skip("needs root (a memory cgroup)".into());
    }
    let dir = work_dir();
    let o = sweep(&[
        p(dir.path()),
        "--file-sizes",
        "16M..512M",
        "--record-sizes",
        "1M",
        "--tests",
        "write,read",
        "--memory-limit",
        "128M",
        "--output",
        "json",
        "--no-save",
    ]);
    let err = stderr(&o);
    if err.contains("needs a memory cgroup") {
        return Outcome::Skip(format!("no memory cgroup here: {}", err.trim()));
    }
    assert!(o.status.success(), "{err}");
    assert!(left_behind(dir.path()).is_empty());
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let limit = 128u64 << 20;
    assert_eq!(u(&r["memory_cap"]["limit_bytes"]), limit);
    if let Some(peak) = r["memory_cap"]["peak_bytes"].as_u64() {
        assert!(peak <= limit, "peak {peak} over the limit");
    }
    let read = knees(&r, "read");
    let Some(k) = read
        .iter()
        .max_by(|a, b| f(&a["ratio"]).total_cmp(&f(&b["ratio"])))
    else {
        return Outcome::Fail(format!("no read knee: {}", r["cells"]));
    };
    let (last, first) = (u(&k["last_cached_size"]), u(&k["first_uncached_size"]));
    assert!(
        last >= limit / 4 && first <= limit * 2,
        "the knee ({last}..{first}) is not near the limit {limit}: {k}"
    );
    assert!(f(&k["ratio"]) >= 1.0 / 0.7, "{k}");
    Outcome::Pass(format!(
        "read: cache ends between {} and {} MiB, {:.0} vs {:.0} MB/s",
        last >> 20,
        first >> 20,
        f(&k["cached_bytes_per_sec"]) / 1e6,
        f(&k["uncached_bytes_per_sec"]) / 1e6
    ))
}

/// iozone -R's report as iozone 3.508 lays it out: titles in quotes, a header of record sizes
/// in kB, a row per file size, whole kB/s; and the file -f names is never made.
fn iozone_excel_report_has_iozones_layout() -> Outcome {
    let dir = work_dir();
    let named = dir.path().join("iozone.tmp");
    let o = iozone(&[
        "-Ra",
        "-n",
        "64k",
        "-g",
        "256k",
        "-q",
        "64k",
        "-i",
        "0",
        "-i",
        "1",
        "-f",
        p(&named),
        "--no-save",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = out(&o);
    let excel = text
        .split("Excel output is below:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no -R report: {text}"));
    let lines: Vec<&str> = excel.lines().collect();
    assert_eq!(lines[0], "");
    assert_eq!(lines[1], "\"Writer report\"");
    assert_eq!(lines[2], "        \"4\"  \"8\"  \"16\"  \"32\"  \"64\"");
    for (row, kb, cells) in [(3, 64, 5), (4, 128, 5), (5, 256, 5)] {
        let prefix = format!("\"{kb}\"  ");
        assert!(lines[row].starts_with(&prefix), "{}", lines[row]);
        let values: Vec<u64> = lines[row][prefix.len()..]
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(values.len(), cells, "{}", lines[row]);
        assert!(values.iter().all(|&v| v > 0), "{}", lines[row]);
    }
    for title in [
        "\"Re-writer report\"",
        "\"Reader report\"",
        "\"Re-Reader report\"",
    ] {
        assert!(lines.contains(&title), "{title} missing");
    }
    assert!(!named.exists(), "iogauge made the file -f names");
    assert!(left_behind(dir.path()).is_empty());
    Outcome::Pass(String::new())
}

/// iozone -t: threads each on a file, and iozone's throughput lines.
fn iozone_throughput_mode_prints_children_and_parent() -> Outcome {
    let dir = work_dir();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let o = iozone(&[
        "-t",
        "2",
        "-s",
        "4m",
        "-r",
        "1m",
        "-i",
        "0",
        "-i",
        "1",
        "-F",
        p(&a),
        p(&b),
        "--no-save",
        "--output=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = out(&o);
    for line in [
        "\tChildren see throughput for  2 initial writers \t= ",
        "\tParent sees throughput for  2 readers \t\t= ",
        "\tMin throughput per process \t\t\t= ",
        "\tMin xfer \t\t\t\t\t=    4096.00 kB",
    ] {
        assert!(text.contains(line), "{line:?} missing from\n{text}");
    }
    let json = text.split("\tThroughput test").next().unwrap();
    let r: Value = serde_json::from_str(json).unwrap();
    let cell = &r["cells"][0];
    assert_eq!(u(&cell["bytes"]), 2 * (4 << 20));
    assert_eq!(cell["thread_ns"].as_array().unwrap().len(), 2);
    Outcome::Pass(String::new())
}

/// What iogauge cannot do is refused in iozone's terms, before anything is written; an
/// existing -b file is never overwritten.
fn iozone_refusals_name_the_option() -> Outcome {
    let dir = work_dir();
    let existing = dir.path().join("out.xls");
    std::fs::write(&existing, "keep me").unwrap();
    let ex = p(&existing);
    for (args, needle) in [
        (vec!["-a", "-i", "8"], "iozone -i 8 (random mix)"),
        (vec!["-t", "2", "-a"], "can not mix throughput mode"),
        (vec!["-a", "-+m", "clients"], "iozone -+m is not"),
        // agrandol/StorageTest, containers/simple-iozone/run-iozone.sh: both named at once.
        (
            vec!["-o", "-O", "-r4k", "-S4", "-s10m", "-l1"],
            "iozone -S, -l: not options iogauge reads",
        ),
        (vec!["-s", "10q"], "iozone -s 10q"),
        (vec!["-a", "-b", ex], "the file exists"),
        (
            vec!["-a", "--bogus"],
            "--bogus: not an option of iogauge iozone",
        ),
    ] {
        let o = iozone(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(needle), "{args:?}: {e}");
        assert_eq!(e.trim().lines().count(), 1, "{args:?}: not one line: {e}");
    }
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
    Outcome::Pass(String::new())
}

/// iozone's table's rows: the lines after its header, up to the blank line before "iozone
/// test complete.", each split into its numbers.
fn table_rows(text: &str) -> Vec<Vec<f64>> {
    let after = text
        .split("kB  reclen    write  rewrite    read    reread")
        .nth(1)
        .unwrap_or_else(|| panic!("no iozone table in\n{text}"));
    after
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect()
}

/// iozone lines as scripts and articles run them (tests/iozone/README.md says where each is
/// from), the sizes made small: iozone's table is printed whatever the options, in ops/s with
/// -O, without the retests' figures under -+n, and the files stay with -w.
fn iozone_lines_as_scripts_use_them() -> Outcome {
    let dir = work_dir();
    let d = dir.path();
    // serverfault.com/questions/234957: -O, five record sizes, all tests, -b.
    let xls = d.join("results.xls");
    let o = iozone_in(
        d,
        &[
            "-s",
            "4m",
            "-r",
            "2k",
            "-r",
            "4k",
            "-r",
            "8k",
            "-r",
            "16k",
            "-r",
            "32k",
            "-O",
            "-b",
            p(&xls),
            "--output=json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = out(&o);
    assert!(text.contains("\tOPS Mode. Output is in operations per second.\n"));
    assert!(text.ends_with("\niozone test complete.\n"), "{text}");
    let rows = table_rows(&text);
    assert_eq!(rows.len(), 5, "a row per record size");
    assert!(rows.iter().all(|r| r.len() == 2 + 9 && r[0] == 4096.0));
    assert_eq!(
        rows.iter().map(|r| r[1]).collect::<Vec<_>>(),
        [2.0, 4.0, 8.0, 16.0, 32.0]
    );
    // The table's write figure is the JSON cell's records per second.
    let json: Value = serde_json::from_str(text.split("\tOPS Mode").next().unwrap()).unwrap();
    let cell = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["test"] == "write" && u(&c["record_size"]) == 2048);
    let cell = cell.expect("the 2 kB write cell");
    let ops = u(&cell["bytes"]) as f64 / 2048.0 * 1e9 / u(&cell["elapsed_ns"]) as f64;
    assert!((rows[0][2] - ops).abs() <= 1.0, "{} vs {ops}", rows[0][2]);
    assert!(xls.exists(), "-b's file");

    // geerlingguy/raspberry-pi-dramble's microSD line, without -I and at 4 MiB: the rows
    // line up under iozone's header, tests 3 to 5 blank.
    let o = iozone_in(
        d,
        &[
            "-e", "-a", "-s", "4m", "-r", "4k", "-i", "0", "-i", "1", "-i", "2",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = out(&o);
    let rows = table_rows(&text);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].len(), 2 + 6);
    assert!(rows[0][2..].iter().all(|&v| v > 0.0), "{:?}", rows[0]);
    let row = text
        .lines()
        .find(|l| l.starts_with("            4096       4"))
        .unwrap();
    let header = text
        .lines()
        .find(|l| l.ends_with("fread  freread"))
        .unwrap();
    let end = header.find("     write     read").unwrap() + "     write".len();
    assert_eq!(
        row.len(),
        end,
        "the row ends under random write:\n{header}\n{row}"
    );

    // -+n: write and read run; rewrite and reread are 0, as iozone prints them.
    let o = iozone_in(
        d,
        &["-a", "-s", "4m", "-r", "4k", "-i", "0", "-i", "1", "-+n"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = table_rows(&out(&o));
    assert!(rows[0][2] > 0.0 && rows[0][3] == 0.0 && rows[0][4] > 0.0 && rows[0][5] == 0.0);

    // yunfeiguan/VsspDemo, shell/performance/iozone/iozone_multi_multi.sh: -w -Rb -t 3 -F
    // -O -i0 -i2 -+n.
    let wks = d.join("out.wks");
    let (a, b, c) = (d.join("a"), d.join("b"), d.join("c"));
    let o = iozone_in(
        d,
        &[
            "-w",
            "-Rb",
            p(&wks),
            "-t",
            "3",
            "-F",
            p(&a),
            p(&b),
            p(&c),
            "-O",
            "-i0",
            "-i2",
            "-+n",
            "-r",
            "4K",
            "-s",
            "4m",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = out(&o);
    assert!(text.contains("\tChildren see throughput for  3 initial writers \t= "));
    assert!(
        text.contains(" ops/sec\n") && !text.contains("kB/sec"),
        "{text}"
    );
    assert!(!text.contains("rewriters"), "-+n: no rewrite\n{text}");
    assert!(text.contains("3 random readers"), "{text}");
    let kept = left_behind(d);
    assert_eq!(kept.len(), 1, "-w keeps one folder: {kept:?}");
    assert!(text.contains(&kept[0]), "the note says where\n{text}");
    let cell = std::fs::read_dir(d.join(&kept[0]))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for f in ["f0", "f1", "f2"] {
        let len = std::fs::metadata(cell.join(f)).map(|m| m.len());
        assert_eq!(len.ok(), Some(4 << 20), "{f} kept in {}", cell.display());
    }
    std::fs::remove_dir_all(d.join(&kept[0])).unwrap();

    // pastebin.com/yW0YrQu0, -g 1G made 256k: -+u's CPU sections in the -R report.
    let o = iozone_in(
        d,
        &[
            "-Rab",
            "1gigtest.xls",
            "-i",
            "0",
            "-i",
            "1",
            "-+u",
            "-y",
            "64k",
            "-q",
            "64k",
            "-n",
            "64k",
            "-g",
            "256k",
            "-z",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = out(&o);
    let cpu = "\"Writer CPU utilization report (Zero values should be ignored)\"\n";
    let section = text.split(cpu).nth(1).unwrap_or_else(|| panic!("{text}"));
    let lines: Vec<&str> = section.lines().take(4).collect();
    assert_eq!(lines[0], "        \"64\"");
    for l in &lines[1..] {
        let pct: f64 = l.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!((0.0..=100.0 * 64.0).contains(&pct), "{l}");
    }
    assert!(left_behind(d).is_empty());
    Outcome::Pass(String::new())
}

/// A bad sweep flag names the flag; sizes that cannot fit are refused before any I/O.
fn sweep_refusals_name_the_flag() -> Outcome {
    let dir = work_dir();
    for (args, needle) in [
        (vec!["--file-sizes", "1M..4K"], "--file-sizes"),
        (
            vec![
                "--record-sizes",
                "3K",
                "--cache",
                "direct",
                "--file-sizes",
                "1M",
            ],
            "--record-sizes 3KiB",
        ),
        (vec!["--tests", "write,reed"], "'reed' for --tests"),
        (vec!["--file-sizes", "64T"], "does not fit"),
        (vec!["--memory-limit", "1M", "--file-sizes", "1M"], "16MiB"),
    ] {
        let mut all = vec![p(dir.path())];
        all.extend(args.iter().copied());
        all.push("--no-save");
        let o = sweep(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
    assert!(left_behind(dir.path()).is_empty());
    Outcome::Pass(String::new())
}

/// Two sweeps saved, then read back by every command that reads saved results.
fn saved_sweeps_are_shown_compared_and_charted() -> Outcome {
    let dir = work_dir();
    let args = [
        p(dir.path()),
        "--file-sizes",
        "256K..2M",
        "--record-sizes",
        "64K,256K",
        "--tests",
        "write,read,random_read",
    ];
    let a = saved_id(&sweep(&args));
    let b = saved_id(&sweep(&args));
    let show = bin()
        .args(["results", "show", &a.to_string()])
        .output()
        .unwrap();
    assert!(show.status.success(), "{}", stderr(&show));
    let text = out(&show);
    assert!(
        text.contains("random_read (MB/s)") && text.contains("file \\ record"),
        "{text}"
    );
    let csv = bin()
        .args(["results", "show", &a.to_string(), "--output", "csv"])
        .output()
        .unwrap();
    let csv = out(&csv);
    assert!(
        csv.starts_with("test,file_size_bytes,record_size_bytes,status,"),
        "{csv}"
    );
    // 4 file sizes x 2 record sizes x 3 tests.
    assert_eq!(csv.lines().count(), 1 + 3 * 4 * 2);
    let cmp = bin()
        .args(["compare", &a.to_string(), &b.to_string()])
        .output()
        .unwrap();
    assert!(cmp.status.success(), "{}", stderr(&cmp));
    let cmp = out(&cmp);
    assert!(cmp.contains(&format!("#{b}/#{a}")), "{cmp}");
    assert_eq!(
        cmp.lines().filter(|l| l.starts_with("random_read")).count(),
        8,
        "{cmp}"
    );
    let html = dir.path().join("r.html");
    let rep = bin()
        .args(["report", &a.to_string(), &b.to_string(), "--html", p(&html)])
        .output()
        .unwrap();
    assert!(rep.status.success(), "{}", stderr(&rep));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<h2>Sweeps</h2>") && page.matches("<svg").count() >= 3);
    let json = bin()
        .args(["results", "show", &a.to_string(), "--output", "json"])
        .output()
        .unwrap();
    let file = dir.path().join("sweep.json");
    std::fs::write(&file, &json.stdout).unwrap();
    let imp = bin()
        .args(["results", "import", p(&file)])
        .output()
        .unwrap();
    assert!(imp.status.success(), "{}", stderr(&imp));
    Outcome::Pass(format!("#{a} and #{b}"))
}

/// What `schema` (a file of schema/) finds wrong with `doc`; nothing where it matches.
fn schema_errors(schema: &str, doc: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(schema).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    validator.iter_errors(doc).map(|e| e.to_string()).collect()
}

/// A sweep's JSON is what schema/sweep-result.schema.json says, with several threads (each
/// thread's time) and knees found; a schema that did not hold every key would refuse it.
fn json_output_matches_its_schema() -> Outcome {
    let dir = work_dir();
    let o = sweep(&[
        p(dir.path()),
        "--file-sizes",
        "64K..256K",
        "--record-sizes",
        "16K,64K",
        "--tests",
        "write,read",
        "--threads",
        "2",
        "--output",
        "json",
        "--no-save",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let errors = schema_errors(include_str!("../../schema/sweep-result.schema.json"), &doc);
    assert!(errors.is_empty(), "{errors:#?}");
    let cells = doc["cells"].as_array().unwrap();
    assert_eq!(
        cells.len(),
        3 * 2 * 2,
        "3 file sizes x 2 record sizes x 2 tests"
    );
    assert!(cells
        .iter()
        .all(|c| c["thread_ns"].as_array().unwrap().len() == 2));
    // The schema is strict: a key it does not name is refused.
    let mut extra = doc.clone();
    extra["unknown"] = Value::Bool(true);
    let errors = schema_errors(
        include_str!("../../schema/sweep-result.schema.json"),
        &extra,
    );
    assert!(!errors.is_empty(), "an unknown key passed");
    Outcome::Pass(String::new())
}

type Case = (&'static str, fn() -> Outcome);

pub fn main() {
    let tests: Vec<Case> = vec![
        (
            "a_memory_limit_moves_the_knee_to_the_limit",
            a_memory_limit_moves_the_knee_to_the_limit,
        ),
        (
            "iozone_excel_report_has_iozones_layout",
            iozone_excel_report_has_iozones_layout,
        ),
        (
            "iozone_throughput_mode_prints_children_and_parent",
            iozone_throughput_mode_prints_children_and_parent,
        ),
        (
            "iozone_lines_as_scripts_use_them",
            iozone_lines_as_scripts_use_them,
        ),
        (
            "iozone_refusals_name_the_option",
            iozone_refusals_name_the_option,
        ),
        ("sweep_refusals_name_the_flag", sweep_refusals_name_the_flag),
        (
            "saved_sweeps_are_shown_compared_and_charted",
            saved_sweeps_are_shown_compared_and_charted,
        ),
        (
            "json_output_matches_its_schema",
            json_output_matches_its_schema,
        ),
    ];
    harness(
        "sweep",
        tests
            .into_iter()
            .map(|(n, t)| (n.to_string(), Box::new(t) as Box<dyn Fn() -> Outcome>))
            .collect(),
    );
}
