//! `iogauge ior`, `iogauge mdtest` and `iogauge io500` end to end, alone and under `mpirun --oversubscribe -np
//! 4` (a build with the `mpi` feature: `cargo test --features mpi --test hpc`), with IOR and
//! mdtest command lines from real sources scaled down to small sizes. Each is checked against IOR's documented semantics:
//! the bytes moved (blockSize × segmentCount × tasks), the files made (testFile.00000003
//! with -F), where each rank wrote (segment i of rank r of n at (i*n + r) × blockSize, read
//! from the kept file's content: each rank writes its own buffer, the same bytes in every
//! transfer), and the summary's figures agreeing (bandwidth = bytes / time); for mdtest, the
//! files and folders each phase leaves (mdtest's names, its tree, its items per folder) and
//! its rate table's rows; for io500, IO500's twelve phases in order, the score as IO500's
//! formula of the printed lines, the files the find saw (what each phase's sizes make) and
//! nothing left behind. Own harness: a missing mpirun or feature is SKIPPED, never passed.

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const MIB: f64 = 1048576.0;

/// `iogauge ior ARGS`, alone or as `np` ranks.
fn ior(np: Option<&str>, dir: &Path, args: &[&str]) -> Output {
    tool("ior", np, dir, args, true)
}

/// `iogauge mdtest ARGS`, alone or as `np` ranks.
fn mdtest(np: Option<&str>, dir: &Path, line: &str) -> Output {
    tool("mdtest", np, dir, &common::argv(line, &[]), false)
}

/// `iogauge TOOL ARGS` (with --quiet where it takes it), alone or as `np` ranks.
fn tool(name: &str, np: Option<&str>, dir: &Path, args: &[&str], quiet: bool) -> Output {
    let mut c = match np {
        None => common::bin(),
        Some(n) => {
            let mut c = Command::new("mpirun");
            c.args(["--oversubscribe", "-np", n])
                .arg(env!("CARGO_BIN_EXE_iogauge"))
                .env("IOGAUGE_DB", common::test_db())
                .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
                .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
            c
        }
    };
    c.arg(name).args(args).current_dir(dir).stdin(Stdio::null());
    if quiet {
        c.arg("--quiet");
    }
    c.output().unwrap()
}

fn with_mpi() -> Result<(), String> {
    match Command::new("mpirun").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => return Err("no mpirun here (bash scripts/install-test-tools.sh installs it)".into()),
    }
    match cfg!(feature = "mpi") {
        true => Ok(()),
        false => Err("built without the mpi feature (cargo test --features mpi --test hpc)".into()),
    }
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}\n{}", o.status, common::stderr(o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// IOR's table rows: (access, bw MiB/s, wr/rd seconds), before its summary of all tests.
fn rows(text: &str) -> Vec<(String, f64, f64)> {
    let table = text.split("Summary of all tests:").next().unwrap();
    table
        .lines()
        .filter(|l| l.starts_with("write ") || l.starts_with("read "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 11, "an IOR row has 11 columns: {l}");
            (f[0].into(), f[1].parse().unwrap(), f[7].parse().unwrap())
        })
        .collect()
}

/// "Max Write: X MiB/sec (Y MB/sec)" as X.
fn max_line(text: &str, what: &str) -> f64 {
    let l = text
        .lines()
        .find(|l| l.starts_with(what))
        .unwrap_or_else(|| panic!("no '{what}' line:\n{text}"));
    l[what.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Every row's bandwidth is the bytes over its time (the table's rounding allowed), and the
/// Max line is the best row.
fn figures_agree(text: &str, bytes: u64) {
    let rows = rows(text);
    assert!(!rows.is_empty(), "{text}");
    for (access, bw, secs) in &rows {
        let want = bytes as f64 / MIB / secs;
        assert!(
            (bw - want).abs() <= want * 0.02 + 0.02,
            "{access}: {bw} MiB/s vs {want}\n{text}"
        );
    }
    for (access, line) in [("write", "Max Write:"), ("read", "Max Read:")] {
        let best = rows
            .iter()
            .filter(|r| r.0 == access)
            .map(|r| r.1)
            .reduce(f64::max);
        if let Some(best) = best {
            let max = max_line(text, line);
            assert!(
                (max - best).abs() <= best * 0.001 + 0.01,
                "{line} {max} vs {best}"
            );
        }
    }
}

/// The transfers of a kept file, each `xfer` bytes, and the rank that wrote each: every
/// transfer of one rank holds the same bytes (its one buffer), another rank's others.
fn owners_are(file: &Path, xfer: usize, owner: &dyn Fn(usize) -> usize) {
    let data = std::fs::read(file).unwrap();
    let mut seen: Vec<(usize, &[u8])> = Vec::new();
    for (i, chunk) in data.chunks(xfer).enumerate() {
        let rank = owner(i * xfer);
        match seen.iter().find(|(r, _)| *r == rank) {
            Some((_, first)) => assert!(*first == chunk, "transfer {i}: not rank {rank}'s bytes"),
            None => {
                let other = seen.iter().find(|(_, c)| *c == chunk);
                assert!(
                    other.is_none(),
                    "transfer {i}: rank {rank} wrote another rank's bytes"
                );
                seen.push((rank, chunk));
            }
        }
    }
}

/// IO500's ior-hard write, from io500.sh ("ior -w -C -Q 1 -g -G 27 -k -e -t 47008 -b 47008
/// -s 10000000 -o .../ior_hard/IOR_file -O stoneWallingStatusFile=... -O
/// stoneWallingWearOut=1 -D $STONEWALL_TIMER"), -s 40 and without the status file (refused:
/// one iogauge run does write and read). One shared file; each rank's 47008-byte segments
/// interleaved with the others'.
fn ior_hard(np: Option<&str>) -> Result<String, String> {
    let n = np.map_or(1, |n| n.parse::<u64>().unwrap());
    let dir = common::work_dir();
    let line = "-w -C -Q 1 -g -G 27 -k -e -t 47008 -b 47008 -s 40 -o IOR_file \
                -O stoneWallingWearOut=1 -D 300 -O summaryFormat=JSON";
    let out = ok(&ior(np, dir.path(), &common::argv(line, &[])));
    let doc: Value = serde_json::from_str(&out)
        .map_err(|e| format!("{e}: {out}"))
        .unwrap();
    let bytes = 47008 * 40 * n;
    let file = dir.path().join("IOR_file");
    assert_eq!(
        std::fs::metadata(&file).unwrap().len(),
        bytes,
        "-k keeps the whole file"
    );
    owners_are(&file, 47008, &|off| (off / 47008) % n as usize);
    let s = &doc["summary"][0];
    assert_eq!(s["operation"], "write");
    assert_eq!(common::u(&s["numTasks"]), n);
    assert_eq!(common::f(&s["xsizeMiB"]) * MIB, bytes as f64);
    let row = &doc["tests"][0]["Results"][0][0];
    assert_eq!(common::u(&row["bytes"]), bytes);
    let bw = common::f(&row["bwMiB"]) * MIB * common::f(&row["wrRdTime"]);
    assert!(
        (bw - bytes as f64).abs() < 1.0,
        "bw × time = {bw}, bytes {bytes}"
    );
    assert!(
        common::f(&s["StoneWallTime"]) >= 0.0,
        "wear-out reports its stonewall"
    );
    Ok(format!(
        "{bytes} bytes in {n} rank(s)' interleaved segments"
    ))
}

/// IOR's tutorial (doc/sphinx/userDoc/tutorial.rst: "mpirun -n 64 ./ior -t 1m -b 16m -s 16
/// -F -C -e"), -t 64k -b 256k -s 4 and -k: a file per rank, read back by the next rank.
fn tutorial_file_per_process(np: Option<&str>) -> Result<String, String> {
    let n = np.map_or(1, |n| n.parse::<u64>().unwrap());
    let dir = common::work_dir();
    let text = ok(&ior(
        np,
        dir.path(),
        &common::argv("-t 64k -b 256k -s 4 -F -C -e -k", &[]),
    ));
    let per_rank = 256 * 1024 * 4;
    figures_agree(&text, per_rank * n);
    let accesses: Vec<String> = rows(&text).into_iter().map(|r| r.0).collect();
    assert_eq!(accesses, ["write", "read"], "no -w or -r: both");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let want: Vec<String> = (0..n).map(|r| format!("testFile.{r:08}")).collect();
    assert_eq!(names, want, "IOR's names, one file per rank");
    for name in &names {
        let f = dir.path().join(name);
        assert_eq!(std::fs::metadata(&f).unwrap().len(), per_rank);
        owners_are(&f, 64 * 1024, &|_| 0);
    }
    Ok(format!("{n} file(s) of {per_rank} bytes"))
}

/// IOR's tutorial's first line ("mpirun -n 64 ./ior -t 1m -b 16m -s 16"), -t 64k -b 128k
/// -s 4, -i 2 and -k: one shared file, two transfers per block, segments interleaved.
fn tutorial_shared_file(np: Option<&str>) -> Result<String, String> {
    let n = np.map_or(1, |n| n.parse::<usize>().unwrap());
    let dir = common::work_dir();
    let text = ok(&ior(
        np,
        dir.path(),
        &common::argv("-t 64k -b 128k -s 4 -i 2 -k", &[]),
    ));
    let bytes = 128 * 1024 * 4 * n as u64;
    figures_agree(&text, bytes);
    assert_eq!(rows(&text).len(), 4, "write and read, twice");
    assert!(text.contains("aggregate filesize  : "), "{text}");
    let file = dir.path().join("testFile");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), bytes);
    owners_are(&file, 64 * 1024, &|off| (off / (128 * 1024)) % n);
    Ok(format!("{bytes} bytes, blocks dealt to {n} rank(s)"))
}

/// IOR's checkWrite (doc/USER_GUIDE: "-W checkWrite -- check read after write", "read data
/// back and check for errors against known pattern"), on the tutorial's shared file (-t 64k
/// -b 256k -s 2 -w -W): every transfer of every rank read back and found right.
fn check_write(np: Option<&str>) -> Result<String, String> {
    let n = np.map_or(1, |n| n.parse::<u64>().unwrap());
    let dir = common::work_dir();
    let text = ok(&ior(
        np,
        dir.path(),
        &common::argv("-t 64k -b 256k -s 2 -w -W", &[]),
    ));
    let units = 256 * 2 / 64 * n;
    let want = format!("check of write 0: {units} units read back and checked, 0 wrong");
    assert!(text.contains(&want), "{text}");
    assert!(!text.contains("WARNING"), "{text}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no -k: removed"
    );
    Ok(format!("{units} transfers checked"))
}

fn alone(t: fn(Option<&str>) -> Result<String, String>) -> Result<String, String> {
    t(None)
}

fn np4(t: fn(Option<&str>) -> Result<String, String>) -> Result<String, String> {
    with_mpi()?;
    t(Some("4"))
}

/// Lines IOR refuses are refused in one line, in IOR's words, exit 2; nothing is made.
fn bad_lines_are_refused_in_one_line() -> Result<String, String> {
    let dir = common::work_dir();
    for (line, want) in [
        (
            "-b 3k -t 2k",
            "-b: block size must be a multiple of transfer size",
        ),
        ("-a HDF5", "-a HDF5: iogauge ior runs the POSIX API"),
        (
            "-O stoneWallingStatusFile=s",
            "-O stoneWallingStatusFile: not supported",
        ),
        ("-Z", "Error invalid argument: -Z"),
        ("-r -o missing", "-r: cannot open 'missing': no such file"),
        ("--bogus", "--bogus: not an option of iogauge ior"),
    ] {
        let o = ior(None, dir.path(), &common::argv(line, &[]));
        let err = common::stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{line}: {err}");
        assert!(
            err.starts_with(&format!("iogauge: error: {want}")),
            "{line}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{line}: {err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    Ok(String::new())
}

/// `{rank}` run alone is rank 0's; a misspelt placeholder is refused alone too.
fn placeholders_alone_are_rank_0s() -> Result<String, String> {
    let dir = common::work_dir();
    let d = common::p(dir.path());
    let run = |target: &str| {
        common::run(&[
            target,
            "-c",
            "1M",
            "--total",
            "1M",
            "--sequential",
            "-w",
            "100",
            "--keep",
            "--no-save",
            "--quiet",
        ])
    };
    ok(&run(&format!("{d}/f.{{rank}}")));
    assert!(dir.path().join("f.0").exists(), "{{rank}} alone is 0");
    let o = run(&format!("{d}/f.{{rnak}}"));
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("{rnak} is not a placeholder"));
    // The same in a fio line: rank 0's file alone, a typo refused naming the job.
    let fio = |target: &str| {
        common::bin()
            .args([
                "fio",
                "--name=p",
                "--rw=write",
                "--size=1m",
                "--output-format=json",
            ])
            .arg(format!("--filename={target}"))
            .output()
            .unwrap()
    };
    let o = fio(&format!("{d}/g.{{rank}}"));
    ok(&o);
    assert!(!dir.path().join("g.{rank}").exists());
    let o = fio(&format!("{d}/g.{{rnak}}"));
    assert_eq!(o.status.code(), Some(2));
    let err = common::stderr(&o);
    assert!(
        err.contains("job 'p'") && err.contains("{rnak} is not a placeholder"),
        "{err}"
    );
    assert!(
        tree_of(dir.path()).iter().all(|f| !f.starts_with('g')),
        "{:?}",
        tree_of(dir.path())
    );
    Ok(String::new())
}

/// Every file and folder under `dir`, as paths from it, sorted.
fn tree_of(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
        }
    }
    out.sort();
    out
}

/// mdtest's rows: (operation, max rate).
fn md_rows(text: &str) -> Vec<(String, f64)> {
    let at = text.find("SUMMARY rate (in ops/sec)").expect("the summary");
    text[at..]
        .lines()
        .skip(3)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let name = f[..f.len() - 4].join(" ");
            (name, f[f.len() - 4].parse().unwrap())
        })
        .collect()
}

fn rate(rows: &[(String, f64)], op: &str) -> f64 {
    rows.iter()
        .find(|r| r.0 == op)
        .unwrap_or_else(|| panic!("no {op}: {rows:?}"))
        .1
}

/// IO500's mdtest-easy phases, from io500.sh ("mdtest -C -F -d $RESULTS_DIR/mdt_easy -n
/// 25000000 -u -L -x ... -W $STONEWALL_TIMER", then -T for the stat and -r for the delete),
/// -n 50 and without the stonewall (-x, -W: refused): a tree per rank, its files made, then
/// stated, then removed.
fn mdtest_easy(np: Option<&str>) -> Result<String, String> {
    let n = np.map_or(1, |n| n.parse::<usize>().unwrap());
    let dir = common::work_dir();
    let d = dir.path();
    let text = ok(&mdtest(np, d, "-C -F -d mdt_easy -n 50 -u -L"));
    assert!(
        text.contains(&format!("{n} tasks, {} files\n", 50 * n)),
        "{text}"
    );
    let rows = md_rows(&text);
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "File creation",
            "File stat",
            "File read",
            "File removal",
            "Tree creation",
            "Tree removal"
        ],
        "-F: the files' rows and the tree's"
    );
    assert!(rate(&rows, "File creation") > 0.0 && rate(&rows, "File stat") == 0.0);
    let made = tree_of(&d.join("mdt_easy"));
    for r in 0..n {
        let tree = format!("test-dir.0-0/mdtest_tree.{r}.0");
        assert!(made.contains(&tree), "{made:?}");
        for i in [0, 49] {
            assert!(
                made.contains(&format!("{tree}/file.mdtest.{r}.{i}")),
                "{made:?}"
            );
        }
    }
    assert_eq!(
        made.len(),
        1 + n * 51,
        "the iteration's folder, a tree per rank, 50 files each"
    );
    let text = ok(&mdtest(np, d, "-T -F -d mdt_easy -n 50 -u -L"));
    assert!(rate(&md_rows(&text), "File stat") > 0.0, "{text}");
    assert_eq!(
        tree_of(&d.join("mdt_easy")).len(),
        1 + n * 51,
        "stat changes nothing"
    );
    let text = ok(&mdtest(np, d, "-r -F -d mdt_easy -n 50 -u -L"));
    let rows = md_rows(&text);
    assert!(rate(&rows, "File removal") > 0.0 && rate(&rows, "Tree removal") > 0.0);
    assert!(
        tree_of(&d.join("mdt_easy")).is_empty(),
        "-r removes the files and the tree"
    );
    Ok(format!("{} files made, stated, removed", 50 * n))
}

/// IO500's mdtest-hard write, from io500.sh ("mdtest -C -t -F -w 3901 -e 3901 -d
/// $RESULTS_DIR/mdt_hard -n 5000000 -x ... -W $STONEWALL_TIMER"), -n 40: one tree all ranks
/// share, files of 3901 bytes; then read back by the next rank (-E -N 1) and removed (-r).
fn mdtest_hard(np: Option<&str>) -> Result<String, String> {
    let n = np.map_or(1, |n| n.parse::<usize>().unwrap());
    let dir = common::work_dir();
    let d = dir.path();
    ok(&mdtest(np, d, "-C -t -F -w 3901 -e 3901 -d mdt_hard -n 40"));
    let shared = d.join("mdt_hard/test-dir.0-0/mdtest_tree.0");
    let files = tree_of(&shared);
    assert_eq!(files.len(), 40 * n, "every rank's files in the one tree");
    for r in 0..n {
        let f = shared.join(format!("file.mdtest.{r}.39"));
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 3901, "-w 3901");
    }
    let text = ok(&mdtest(np, d, "-E -F -e 3901 -d mdt_hard -n 40 -N 1"));
    assert!(rate(&md_rows(&text), "File read") > 0.0, "{text}");
    ok(&mdtest(np, d, "-r -F -d mdt_hard -n 40"));
    assert!(tree_of(&d.join("mdt_hard")).is_empty());
    Ok(format!("{} files of 3901 bytes", 40 * n))
}

/// IOR's testing/basic-tests.sh ("MDTEST 1 -C -T -I 1 -z 1 -b 1 -u", then the -r of its
/// line "-C -T -r -F -I 1 -z 1 -b 1 -L -u"): a tree two deep per rank, one file and one
/// folder in each of its folders, left in place, then removed.
fn mdtest_basic_tree(np: Option<&str>) -> Result<String, String> {
    let n = np.map_or(1, |n| n.parse::<usize>().unwrap());
    let dir = common::work_dir();
    let d = dir.path();
    let text = ok(&mdtest(np, d, "-C -T -I 1 -z 1 -b 1 -u -d out"));
    let rows = md_rows(&text);
    assert_eq!(
        rows.len(),
        10,
        "folders' and files' rows (no Directory read), the tree's"
    );
    for op in [
        "Directory creation",
        "Directory stat",
        "File creation",
        "File stat",
        "Tree creation",
    ] {
        assert!(rate(&rows, op) > 0.0, "{op}: {text}");
    }
    assert_eq!(rate(&rows, "File removal"), 0.0);
    let made = tree_of(&d.join("out/test-dir.0-0"));
    // Per rank: the tree's 2 folders, and in each a file and a folder (items 0 and 1).
    assert_eq!(made.len(), 6 * n, "{made:?}");
    let leaf = "mdtest_tree.0.0/mdtest_tree.0.1";
    assert!(
        made.contains(&format!("{leaf}/file.mdtest.0.1")),
        "{made:?}"
    );
    assert!(made.contains(&format!("{leaf}/dir.mdtest.0.1")), "{made:?}");
    ok(&mdtest(np, d, "-r -I 1 -z 1 -b 1 -u -d out"));
    assert!(tree_of(&d.join("out")).is_empty());
    Ok(format!("{} items", 6 * n))
}

/// mdtest lines iogauge cannot run are refused in one line, exit 2, nothing made.
fn bad_mdtest_lines_are_refused_in_one_line() -> Result<String, String> {
    let dir = common::work_dir();
    for (line, want) in [
        ("-n 10 -I 5", "-n -I: only specify the number of items"),
        ("-n 10 -x stonewall", "Error invalid argument: -x"),
        (
            "-n ten",
            "-n 'ten': the number of items must be a whole number",
        ),
        ("--bogus", "--bogus: not an option of iogauge mdtest"),
    ] {
        let o = mdtest(None, dir.path(), line);
        let err = common::stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{line}: {err}");
        assert!(
            err.starts_with(&format!("iogauge: error: {want}")),
            "{line}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{line}: {err}");
    }
    std::fs::create_dir_all(dir.path().join("out/test-dir.0-0")).unwrap();
    let o = mdtest(None, dir.path(), "-n 1 -d out");
    assert!(common::stderr(&o).contains("exists; iogauge mdtest makes it new"));
    assert_eq!(tree_of(dir.path()), ["out", "out/test-dir.0-0"]);
    Ok(String::new())
}

/// `iogauge io500 ARGS`, alone or as `np` ranks.
fn io500(np: Option<&str>, dir: &Path, args: &[&str]) -> Output {
    tool("io500", np, dir, args, true)
}

/// IO500's twelve phases, in IO500's order.
const IO500_PHASES: [&str; 12] = [
    "ior-easy-write",
    "mdtest-easy-write",
    "ior-hard-write",
    "mdtest-hard-write",
    "find",
    "ior-easy-read",
    "mdtest-easy-stat",
    "ior-hard-read",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
];

/// "[RESULT] NAME SCORE UNIT : time S seconds [NON-COMPLIANT]" as (name, score, unit).
fn io500_rows(text: &str) -> Vec<(String, f64, String)> {
    text.lines()
        .filter(|l| l.starts_with("[RESULT]"))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 9, "{l}");
            assert_eq!(f[8], "[NON-COMPLIANT]", "{l}");
            (f[1].into(), f[2].parse().unwrap(), f[3].into())
        })
        .collect()
}

fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// The phases in order, each scored in IO500's unit, and the score line IO500's formula
/// of them: sqrt(geomean(ior GiB/s) × geomean(mdtest and find kIOPS)).
fn io500_score_agrees(text: &str) {
    let rows = io500_rows(text);
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, IO500_PHASES, "{text}");
    let bw: Vec<f64> = rows
        .iter()
        .filter(|r| r.0.starts_with("ior"))
        .map(|r| r.1)
        .collect();
    let md: Vec<f64> = rows
        .iter()
        .filter(|r| !r.0.starts_with("ior"))
        .map(|r| r.1)
        .collect();
    for r in &rows {
        let unit = if r.0.starts_with("ior") {
            "GiB/s"
        } else {
            "kIOPS"
        };
        assert!(r.1 > 0.0 && r.2 == unit, "{r:?}");
    }
    let line = text.lines().find(|l| l.starts_with("[SCORE ]")).unwrap();
    let f: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(f.last(), Some(&"[NON-COMPLIANT]"), "{line}");
    let (b, m, t) = (
        geomean(&bw),
        geomean(&md),
        (geomean(&bw) * geomean(&md)).sqrt(),
    );
    for (printed, want) in [(f[3], b), (f[7], m), (f[11], t)] {
        let p: f64 = printed.parse().unwrap();
        assert!(
            (p - want).abs() <= want * 2e-5 + 2e-6,
            "{printed} vs {want}: {line}"
        );
    }
}

/// The find's line: the files it matched of those it looked at.
fn io500_found(text: &str) -> (u64, u64) {
    let l = text.lines().find(|l| l.starts_with("[FIND  ]")).unwrap();
    let f: Vec<&str> = l.split_whitespace().collect();
    (f[2].parse().unwrap(), f[4].parse().unwrap())
}

/// An IO500 .ini scaled down (IO500's config-sample-all.ini's keys): the phases in IO500's
/// order, the score IO500's formula of the lines; the find saw every file the writes made
/// (mdtest-easy's n and mdtest-hard's n per rank, a file per rank for ior-easy, ior-hard's one,
/// the timestamp file) and matched mdtest-hard's 3901-byte files with 01 in their names; the
/// new data folder is gone afterwards.
fn io500_from_ini(np: Option<&str>) -> Result<String, String> {
    let n = np.map_or(1, |n| n.parse::<u64>().unwrap());
    let dir = common::work_dir();
    let d = dir.path();
    let ini = "[global]\ndatadir = ./data\n\n[debug]\nstonewall-time = 10\n\n[ior-easy]\n\
               transferSize = 1m\nblockSize = 4m\n\n[ior-hard]\nsegmentCount = 20\n\n\
               [mdtest-easy]\nn = 50\n\n[mdtest-hard]\nn = 120\n\n[find]\n";
    std::fs::write(d.join("io500.ini"), ini).unwrap();
    let text = ok(&io500(np, d, &["io500.ini"]));
    io500_score_agrees(&text);
    assert!(
        text.contains("[CONFIG] stonewall-time: 10 s (IO500's rules: 300 s)"),
        "{text}"
    );
    let (matched, files) = io500_found(&text);
    assert_eq!(files, 50 * n + 120 * n + n + 1 + 1, "{text}");
    let want = (0..n)
        .flat_map(|r| (0..120).map(move |i| format!("file.mdtest.{r}.{i}")))
        .filter(|name| name.contains("01"))
        .count() as u64;
    assert_eq!(matched, want, "{text}");
    assert_eq!(tree_of(d), ["io500.ini"], "everything made is removed");
    Ok(format!("{files} files, {matched} found"))
}

/// `iogauge io500 DIR` with iogauge's defaults, printed; in a folder that holds a user's
/// file, which stays, as the folder does.
fn io500_defaults(np: Option<&str>) -> Result<String, String> {
    let n = np.map_or(1, |n| n.parse::<u64>().unwrap());
    let dir = common::work_dir();
    let d = dir.path();
    std::fs::create_dir(d.join("data")).unwrap();
    std::fs::write(d.join("data/mine"), "a user's file").unwrap();
    let text = ok(&io500(np, d, &["data", "--stonewall", "20"]));
    io500_score_agrees(&text);
    for line in [
        "[CONFIG] ior-easy: transferSize = 2m, blockSize = 16m",
        "[CONFIG] mdtest-easy: n = 1000",
        "[CONFIG] mdtest-hard: n = 1000",
        "[CONFIG] ior-hard: segmentCount = 100",
        "[CONFIG] stonewall-time: 20 s",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    assert_eq!(
        io500_found(&text).1,
        2000 * n + n + 1 + 1 + 1,
        "the user's file too"
    );
    assert!(text.starts_with("IO500 phases run by iogauge"), "{text}");
    assert!(text.contains("[NON-COMPLIANT]: iogauge's own IOR, mdtest and find"));
    assert_eq!(tree_of(d), ["data", "data/mine"], "the user's things stay");
    Ok(String::new())
}

/// An .ini key iogauge does not read is refused in one line naming it, in IO500's words,
/// before anything is made; so is a folder of IO500's that is there already.
fn io500_refusals() -> Result<String, String> {
    let dir = common::work_dir();
    let d = dir.path();
    std::fs::write(
        d.join("x.ini"),
        "[global]\ndatadir = ./data\nresultdir = ./r\n",
    )
    .unwrap();
    let o = io500(None, d, &["x.ini"]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with(
            "iogauge: error: Parsing error in section global line 3, unknown option \
             \"resultdir\" with value \"./r\""
        ),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    std::fs::create_dir_all(d.join("data/mdtest-easy")).unwrap();
    let o = io500(None, d, &["data"]);
    let err = common::stderr(&o);
    assert!(
        err.contains("mdtest-easy' exists; iogauge io500 makes it new"),
        "{err}"
    );
    assert_eq!(tree_of(d), ["data", "data/mdtest-easy", "x.ini"]);
    Ok(String::new())
}

pub fn main() {
    let tests: Vec<(&str, common::SkipOr)> = vec![
        ("ior_hard_alone", || alone(ior_hard)),
        ("ior_hard_np4", || np4(ior_hard)),
        ("tutorial_file_per_process_alone", || {
            alone(tutorial_file_per_process)
        }),
        ("tutorial_file_per_process_np4", || {
            np4(tutorial_file_per_process)
        }),
        ("tutorial_shared_file_alone", || alone(tutorial_shared_file)),
        ("tutorial_shared_file_np4", || np4(tutorial_shared_file)),
        ("check_write_alone", || alone(check_write)),
        ("check_write_np4", || np4(check_write)),
        (
            "bad_lines_are_refused_in_one_line",
            bad_lines_are_refused_in_one_line,
        ),
        (
            "placeholders_alone_are_rank_0s",
            placeholders_alone_are_rank_0s,
        ),
        ("mdtest_easy_alone", || alone(mdtest_easy)),
        ("mdtest_easy_np4", || np4(mdtest_easy)),
        ("mdtest_hard_alone", || alone(mdtest_hard)),
        ("mdtest_hard_np4", || np4(mdtest_hard)),
        ("mdtest_basic_tree_alone", || alone(mdtest_basic_tree)),
        ("mdtest_basic_tree_np4", || np4(mdtest_basic_tree)),
        (
            "bad_mdtest_lines_are_refused_in_one_line",
            bad_mdtest_lines_are_refused_in_one_line,
        ),
        ("io500_from_ini_alone", || alone(io500_from_ini)),
        ("io500_from_ini_np4", || np4(io500_from_ini)),
        ("io500_defaults_alone", || alone(io500_defaults)),
        ("io500_defaults_np4", || np4(io500_defaults)),
        ("io500_refusals", io500_refusals),
    ];
    common::harness_skip_or("hpc", tests);
}
