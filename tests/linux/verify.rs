//! Data verification end to end, proven with faults made for real: a FUSE file system
//! (tests/faultfs.py, Python's mfusepy) that drops writes while acknowledging them, returns
//! stale data, flips a byte or fails with EIO on chosen offsets. Every injected lost write,
//! stale read and corruption must be found, at its offset, and nothing on a healthy run; an
//! I/O error is named with its offset, or counted with them. A run killed with SIGKILL leaves
//! a state that `iogauge verify` checks the target against, and that notices units put back to
//! an older version. Tests that need root, FUSE or mfusepy say SKIPPED without them.

use crate::common;
use common::need_root;
use common::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const UNIT: u64 = 4096;

/// A fault file system mounted over a folder, unmounted when dropped.
struct FaultFs {
    mount: PathBuf,
    control: PathBuf,
    child: Child,
}

impl FaultFs {
    fn new(base: &Path) -> Result<FaultFs, String> {
        need_root()?;
        if !Path::new("/dev/fuse").exists() {
            return Err("no /dev/fuse".into());
        }
        sh("python3", &["-c", "import mfusepy"]).map_err(|_| {
            "python3's mfusepy is not installed (scripts/install-test-tools.sh installs it)"
                .to_string()
        })?;
        let (back, mount) = (base.join("back"), base.join("mnt"));
        std::fs::create_dir_all(&back).unwrap();
        std::fs::create_dir_all(&mount).unwrap();
        let control = base.join("faults");
        std::fs::write(&control, "").unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/faultfs.py");
        let child = Command::new("python3")
            .arg(&script)
            .args([&back, &mount, &control])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("python3: {e}"))?;
        let fs = FaultFs {
            mount,
            control,
            child,
        };
        let t = Instant::now();
        while !mounted(&fs.mount) {
            if t.elapsed() > Duration::from_secs(10) {
                return Err("the fault file system did not mount within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(fs)
    }

    /// Set the faults (lines of tests/faultfs.py's commands); the mtime must change, so wait
    /// a little first.
    fn faults(&self, lines: &str) {
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&self.control, lines).unwrap();
    }

    fn file(&self, name: &str) -> PathBuf {
        self.mount.join(name)
    }
}

impl Drop for FaultFs {
    fn drop(&mut self) {
        if sh("umount", &[p(&self.mount)]).is_err() {
            let _ = sh("umount", &["-l", p(&self.mount)]);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn mounted(at: &Path) -> bool {
    let m = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    m.lines().any(|l| l.split(' ').nth(1) == Some(p(at)))
}

fn run_out(line: &str, target: &Path) -> Output {
    run(&argv(
        &format!("{line} --no-save --output json"),
        &[p(target)],
    ))
}

/// The run's JSON report, checked against the run result's schema.
fn json_of(o: &Output) -> Value {
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", String::from_utf8_lossy(&o.stdout), stderr(o)));
    let schema: Value =
        serde_json::from_str(include_str!("../../schema/run-result.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is valid");
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "the report does not match its schema: {errors:?}"
    );
    v
}

/// Lay out a 1 MiB target with --verify and keep it with its state (every unit generation 1).
fn laid_out(target: &Path) {
    let o = run_out(
        "-c 1M -b 4k -s -w 0 -d 0.2 -W 0 --cache buffered --verify --keep",
        target,
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Offsets of the mismatches of a result (run or pass).
fn offsets(v: &Value) -> BTreeSet<u64> {
    v["verify"]["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| u(&m["offset"]))
        .collect()
}

/// Write every unit of the kept target once more (sequentially), from its saved state.
const REWRITE: &str = "-c 1M -b 4k -s -w 100 --total 1M -W 0 -o 4 --cache buffered --verify \
                       --verify-load --verify-continue --keep --allow-overwrite";

/// Read every unit once, from the saved state.
const REREAD: &str = "-c 1M -b 4k -s -w 0 --total 1M -W 0 -o 4 --cache buffered --verify \
                      --verify-load --verify-continue --keep";

fn a_healthy_run_finds_nothing() -> Result<String, String> {
    let base = work_dir();
    let fs = FaultFs::new(base.path())?;
    let t = fs.file("t.dat");
    let o = run_out(
        "-c 1M -b 4k -r -w 50 -t 2 -o 8 -d 2 -W 0 --cache buffered --verify",
        &t,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json_of(&o);
    let v = &r["verify"];
    assert_eq!(u(&v["mismatch_count"]), 0, "{v}");
    assert!(u(&v["checked"]) > 100, "reads were checked: {v}");
    assert_eq!(u(&v["pass"]["checked"]), 256, "every unit read back");
    assert_eq!(u(&v["pass"]["mismatches"]), 0);
    Ok(format!("{} units checked as read", u(&v["checked"])))
}

fn every_dropped_write_is_found() -> Result<String, String> {
    let base = work_dir();
    let fs = FaultFs::new(base.path())?;
    let t = fs.file("t.dat");
    laid_out(&t);
    // Writes acknowledged and not stored: one unit, two neighbours, and 100 bytes inside a
    // unit's content (its new header stored, part of its content not: a torn write).
    fs.faults("drop 40960 4096\ndrop 409600 8192\ndrop 819300 100\n");
    let o = run_out(REWRITE, &t);
    assert_eq!(
        o.status.code(),
        Some(1),
        "mismatches fail the run: {}",
        stderr(&o)
    );
    let r = json_of(&o);
    let expected: BTreeSet<u64> = [40960, 409600, 413696, 819200].into();
    assert_eq!(offsets(&r), expected, "the lost writes, and only they");
    for m in r["verify"]["mismatches"].as_array().unwrap() {
        let kind = if u(&m["offset"]) == 819200 {
            "corrupt"
        } else {
            "stale"
        };
        assert_eq!(m["finding"]["kind"], kind, "{m}");
        assert_eq!(m["during"], "pass");
    }
    assert!(
        stderr(&o).contains("verification found 4 mismatches"),
        "{}",
        stderr(&o)
    );
    Ok(String::new())
}

fn a_stale_read_is_found() -> Result<String, String> {
    let base = work_dir();
    let fs = FaultFs::new(base.path())?;
    let t = fs.file("t.dat");
    laid_out(&t);
    // Reads of these two units return what they held now, whatever is written after.
    fs.faults("stale 122880 8192\n");
    let o = run_out(REWRITE, &t);
    let r = json_of(&o);
    let expected: BTreeSet<u64> = [122880, 126976].into();
    assert_eq!(offsets(&r), expected);
    for m in r["verify"]["mismatches"].as_array().unwrap() {
        assert_eq!(m["finding"]["kind"], "stale");
        assert_eq!(
            (u(&m["finding"]["expected"]), u(&m["finding"]["found"])),
            (2, 1)
        );
    }
    Ok(String::new())
}

fn a_flipped_byte_is_found_where_it_is() -> Result<String, String> {
    let base = work_dir();
    let fs = FaultFs::new(base.path())?;
    let t = fs.file("t.dat");
    laid_out(&t);
    let dump = base.path().join("dump");
    std::fs::create_dir(&dump).unwrap();
    let flip = 5 * UNIT + 1234;
    fs.faults(&format!("flip {flip}\n"));
    let o = run_out(&format!("{REREAD} --verify-dump {}", p(&dump)), &t);
    let r = json_of(&o);
    let m = &r["verify"]["mismatches"];
    assert_eq!(m.as_array().unwrap().len(), 1, "{m}");
    assert_eq!(u(&m[0]["offset"]), 5 * UNIT);
    assert_eq!(m[0]["finding"]["kind"], "corrupt");
    assert_eq!(u(&m[0]["first_difference"]), 1234);
    // fio's verify_dump: what was read and what should have been, differing at that byte.
    let got = std::fs::read(dump.join(format!("t.dat.{}.received", 5 * UNIT))).unwrap();
    let want = std::fs::read(dump.join(format!("t.dat.{}.expected", 5 * UNIT))).unwrap();
    let diff: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    assert_eq!(diff, [1234]);
    Ok(String::new())
}

fn an_io_error_is_named_or_counted_with_its_offset() -> Result<String, String> {
    let base = work_dir();
    let fs = FaultFs::new(base.path())?;
    let t = fs.file("t.dat");
    laid_out(&t);
    fs.faults(&format!("eio read {} 10\n", 7 * UNIT + 100));
    let o = run_out(REREAD, &t);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "read error on '{}' at offset {}: EIO",
            p(&t),
            7 * UNIT
        )),
        "{e}"
    );
    // fio's ignore_error: only the errors listed are gone on after.
    let o = run_out(&format!("{REREAD} --ignore-error ENOSPC:ENOTTY"), &t);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let ignored = json_of(&run_out(&format!("{REREAD} --ignore-error 28,EIO"), &t));
    assert_eq!(ignored["stop_reason"], "completed");
    assert_eq!(ignored["errors"][0]["name"], "EIO");
    let o = run_out(&format!("{REREAD} --continue-on-error"), &t);
    let r = json_of(&o);
    let errs = r["errors"].as_array().unwrap();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0]["name"], "EIO");
    assert_eq!(u(&errs[0]["count"]), 1);
    assert_eq!(errs[0]["offsets"], serde_json::json!([7 * UNIT]));
    assert_eq!(
        u(&r["verify"]["mismatch_count"]),
        0,
        "a failed read is not judged"
    );
    Ok(String::new())
}

/// Killed mid-run: the state of the last checkpoint holds, `iogauge verify` passes; units put
/// back to the laid-out version are lost writes it names.
fn a_crash_leaves_a_state_that_verify_checks() -> Result<String, String> {
    let d = work_dir();
    let t = d.path().join("t.dat");
    let o = run_out(
        "-c 8M -b 4k -s -w 0 -d 0.2 -W 0 --cache buffered --verify --keep",
        &t,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let laid = std::fs::read(&t).unwrap();
    let mut child = bin()
        .args(argv(
            "run -c 8M -b 4k -r -w 100 -t 2 -o 8 -d 30 -W 0 --cache buffered --verify \
             --verify-load --keep --allow-overwrite --no-save",
            &[p(&t)],
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(3500));
    child.kill().unwrap();
    child.wait().unwrap();
    let verify = |out: &str| {
        bin()
            .args(["verify", p(&t), "--output", out])
            .output()
            .unwrap()
    };
    let o = verify("json");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(u(&r["pass"]["checked"]), 2048);
    // The state is the run's, not the layout's: writes had been checkpointed.
    let state = std::fs::read(d.path().join("t.dat.iogauge-verify")).unwrap();
    let nl = state
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(1)
        .unwrap()
        .0;
    let gens: Vec<u16> = state[nl + 1..state.len() - 8]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let written = gens.iter().filter(|&&g| g > 1).count();
    assert!(
        written > 100,
        "only {written} units written at the last checkpoint"
    );
    // Put the laid-out version back: every unit the state says was rewritten is a lost write.
    std::fs::write(&t, &laid).unwrap();
    let o = verify("json");
    assert_eq!(o.status.code(), Some(3));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(u(&r["pass"]["mismatches"]), written as u64, "{}", r["pass"]);
    assert_eq!(u(&r["pass"]["by_kind"]["stale"]), written as u64);
    let text = String::from_utf8_lossy(&verify("text").stdout).into_owned();
    assert!(
        text.contains("DIFFERENT") && text.contains("an older version"),
        "{text}"
    );
    Ok(format!("{written} units checkpointed before the kill"))
}

/// Several threads at a deep queue on a small target, writing and reading the same units:
/// claims keep every I/O alone on its units, so nothing is judged wrongly.
fn no_false_mismatch_under_contention() -> Result<String, String> {
    let d = work_dir();
    let t = d.path().join("t.dat");
    for line in [
        "-c 256k -b 4k -r -w 50 -t 4 -o 32 -d 2 -W 0 --verify",
        "-c 256k -b 8k --verify-interval 4k -s -w 70 -t 2 -o 16 -d 2 -W 0 --verify --cache buffered",
        "-c 1M --block-sizes 4k/50:16k/50 -r -w 50 -t 3 -o 16 -d 2 -W 0 --verify --verify-backlog 8",
    ] {
        let o = run_out(line, &t);
        assert!(o.status.success(), "{line}: {}", stderr(&o));
        let r = json_of(&o);
        assert_eq!(u(&r["verify"]["mismatch_count"]), 0, "{line}: {}", r["verify"]);
        assert!(u(&r["verify"]["checked"]) > 1000, "{line}");
    }
    Ok(String::new())
}

/// What --verify cannot do is refused by name.
fn refusals_name_the_setting() -> Result<String, String> {
    let d = work_dir();
    let t = d.path().join("t.dat");
    for (line, says) in [
        (
            "-c 1M -b 4k --verify --verify-interval 100",
            "--verify-interval 100B: each unit holds a 64-byte header",
        ),
        (
            "-c 1M -b 16k --verify --verify-interval 6k",
            "--block-size 16384 is not a multiple of the verification unit 6KiB",
        ),
        ("-c 1M --engine filecreate --verify", "--verify checks data"),
        (
            "-c 1M -b 4k --verify --verify-backlog 0",
            "--verify-backlog 0",
        ),
    ] {
        let o = run_out(line, &t);
        assert_eq!(o.status.code(), Some(2), "{line}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{line}: {}", stderr(&o));
    }
    let o = bin().args(["verify", p(&t)]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a run with --verify --keep saves it"),
        "{}",
        stderr(&o)
    );
    Ok(String::new())
}

/// A kept run's target, written with --verify; `extra` flags added.
fn kept_run(target: &Path, extra: &str) -> Output {
    run_out(
        &format!("-c 8M -b 4k -r -w 100 -d 0.3 -W 0 --cache buffered --verify --keep {extra}"),
        target,
    )
}

fn verify_with(target: &Path, state: &Path) -> Output {
    bin()
        .args(["verify", p(target), "--state", p(state), "--output", "json"])
        .output()
        .unwrap()
}

/// `iogauge verify` of one target against another's state is refused, naming both: without
/// the target's identity in the state, two runs of seed 0 passed ("2048 newer").
fn a_state_of_another_target_is_refused() -> Result<String, String> {
    let d = work_dir();
    let (a, b) = (d.path().join("a.dat"), d.path().join("b.dat"));
    for t in [&a, &b] {
        let o = kept_run(t, "");
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let b_state = d.path().join("b.dat.iogauge-verify");
    let o = verify_with(&a, &b_state);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let e = stderr(&o);
    assert!(
        e.contains(&format!("'{}' is of '{}'", p(&b_state), p(&b)))
            && e.contains(&format!("not of '{}'", p(&a)))
            && e.lines().count() == 1,
        "{e}"
    );
    // A run loading it is refused alike.
    let o = run_out(
        &format!(
            "-c 8M -b 4k -r -w 100 -d 0.3 -W 0 --verify --verify-load --verify-state {} --keep \
             --allow-overwrite",
            p(&b_state)
        ),
        &a,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not of"), "{}", stderr(&o));
    Ok(String::new())
}

/// Two runs on one target carry different seeds in their headers (neither gave --seed): a
/// state of the first run does not pass the second run's units.
fn a_run_is_told_from_another_by_its_seed() -> Result<String, String> {
    let d = work_dir();
    let t = d.path().join("t.dat");
    let o = kept_run(&t, "");
    assert!(o.status.success(), "{}", stderr(&o));
    let first = d.path().join("first.iogauge-verify");
    std::fs::copy(d.path().join("t.dat.iogauge-verify"), &first).unwrap();
    let o = kept_run(&t, "--verify-fresh --allow-overwrite");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = verify_with(&t, &first);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = &r["mismatches"][0];
    assert_eq!(m["finding"]["kind"], "foreign", "{m}");
    assert!(m["finding"]["fields"].to_string().contains("seed"), "{m}");
    // A --seed given is the headers' seed: the same each run.
    let seeds: Vec<Value> = (0..2)
        .map(|_| json_of(&kept_run(&t, "--seed 7 --verify-fresh --allow-overwrite")))
        .map(|r| r["job"]["verify"]["seed"].clone())
        .collect();
    assert_eq!(seeds, [Value::Null, Value::Null], "the job's seed, 7");
    Ok(String::new())
}

/// A second kept run on a target whose state is saved is refused unless it loads the state
/// or starts over by name: replacing it silently lost what finds the first run's lost writes.
fn a_saved_state_is_not_replaced_unasked() -> Result<String, String> {
    let d = work_dir();
    let t = d.path().join("t.dat");
    let o = kept_run(&t, "");
    assert!(o.status.success(), "{}", stderr(&o));
    let state = d.path().join("t.dat.iogauge-verify");
    let saved = std::fs::read(&state).unwrap();
    let o = kept_run(&t, "--allow-overwrite");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(&format!("'{}' holds the verification state", p(&state)))
            && e.contains("--verify-load")
            && e.contains("--verify-fresh"),
        "{e}"
    );
    assert_eq!(
        std::fs::read(&state).unwrap(),
        saved,
        "the state is untouched"
    );
    let o = kept_run(&t, "--verify-load --allow-overwrite");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = kept_run(&t, "--verify-fresh --allow-overwrite");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(std::fs::read(&state).unwrap(), saved, "started over");
    Ok(String::new())
}

/// A --dump or --verify-dump folder that does not exist is refused before any I/O (it dumped
/// nothing and said nothing).
fn a_missing_dump_folder_is_refused_at_once() -> Result<String, String> {
    let d = work_dir();
    let t = d.path().join("t.dat");
    let o = kept_run(&t, "");
    assert!(o.status.success(), "{}", stderr(&o));
    let missing = d.path().join("no-such");
    let o = bin()
        .args(["verify", p(&t), "--dump", p(&missing)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("--dump '{}': no such folder", p(&missing))),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty(), "no pass ran");
    let fresh = d.path().join("new.dat");
    let o = run_out(
        &format!("-c 1M -w 100 -d 0.2 --verify --verify-dump {}", p(&missing)),
        &fresh,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--verify-dump"), "{}", stderr(&o));
    assert!(!fresh.exists(), "refused before the target was made");
    Ok(String::new())
}

/// fio's own example job verifies (shrunk to a file), and a job whose writes are dropped
/// fails in fio's words: fio goes on checking (verify_fatal=0) and fails at the end.
fn fios_verify_options_run() -> Result<String, String> {
    let example = Path::new("/usr/share/doc/fio/examples/basic-verify.fio");
    let text = std::fs::read_to_string(example)
        .map_err(|_| "fio's examples are not installed (fio-examples)".to_string())?;
    let base = work_dir();
    let fs = FaultFs::new(base.path())?;
    let job = base.path().join("basic-verify.fio");
    let target = fs.file("f");
    std::fs::write(
        &job,
        text.replace(
            "filename=/dev/XXX",
            &format!("filename={}\nsize=1m", p(&target)),
        )
        .replace("direct=1", "direct=0"),
    )
    .unwrap();
    let fio = |args: &[&str]| bin().arg("fio").args(args).arg(&job).output().unwrap();
    let o = fio(&["--no-save"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("verify=crc32c: iogauge writes its own header"),
        "{out}"
    );
    fs.faults("drop 8192 4096\n");
    let o = fio(&["--no-save"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("fio job 'write-and-verify': verification found") && e.contains("offset 8192"),
        "{e}"
    );
    Ok(String::new())
}

pub fn main() {
    harness_skip_or(
        "verify",
        [
            (
                "a_healthy_run_finds_nothing",
                a_healthy_run_finds_nothing as SkipOr,
            ),
            ("every_dropped_write_is_found", every_dropped_write_is_found),
            ("a_stale_read_is_found", a_stale_read_is_found),
            (
                "a_flipped_byte_is_found_where_it_is",
                a_flipped_byte_is_found_where_it_is,
            ),
            (
                "an_io_error_is_named_or_counted_with_its_offset",
                an_io_error_is_named_or_counted_with_its_offset,
            ),
            (
                "a_crash_leaves_a_state_that_verify_checks",
                a_crash_leaves_a_state_that_verify_checks,
            ),
            (
                "no_false_mismatch_under_contention",
                no_false_mismatch_under_contention,
            ),
            ("refusals_name_the_setting", refusals_name_the_setting),
            (
                "a_state_of_another_target_is_refused",
                a_state_of_another_target_is_refused,
            ),
            (
                "a_run_is_told_from_another_by_its_seed",
                a_run_is_told_from_another_by_its_seed,
            ),
            (
                "a_saved_state_is_not_replaced_unasked",
                a_saved_state_is_not_replaced_unasked,
            ),
            (
                "a_missing_dump_folder_is_refused_at_once",
                a_missing_dump_folder_is_refused_at_once,
            ),
            ("fios_verify_options_run", fios_verify_options_run),
        ],
    );
}
