//! Jobs that change how much space a target takes, on real storage: trims (holes punched in
//! a file, its blocks given back and its size kept; a block device's range discarded, on a
//! loop device whose discards punch its backing file; trims then writes in exact pairs), the
//! falloc engine, and --fill (fio's fill_device) on a small tmpfs; and the refusals.

use crate::common;
use common::*;
use serde_json::Value;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

const MIB: u64 = 1 << 20;

/// Bytes the file system holds for `path`.
fn allocated(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().blocks() * 512
}

/// A file of `mib` MiB laid out by iogauge and kept.
fn laid_out(path: &Path, mib: u64) {
    let o = run_l(
        &format!("-c {mib}M -d 0.1 -W 0 --keep --no-save"),
        &[p(path)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

fn trim_json(line: &str, path: &Path) -> Value {
    json_l(&format!("{line} --allow-overwrite --no-save"), &[p(path)])
}

fn holes_in_a_file() -> Result<String, String> {
    let d = work_dir();
    let mut seen = Vec::new();
    for engine in ["sync", "io_uring"] {
        let t = d.path().join(format!("{engine}.dat"));
        laid_out(&t, 16);
        let before = allocated(&t);
        assert!(before >= 16 * MIB, "laid out: {before}");
        let r = trim_json(
            &format!("--trim only -s -b 64k --total 8M -W 0 -L --engine {engine}"),
            &t,
        );
        let trim = &r["total"]["trim"];
        assert_eq!(
            (u(&trim["ios"]), u(&trim["bytes"])),
            (128, 8 * MIB),
            "{trim}"
        );
        assert_eq!(
            u(&r["total"]["read"]["ios"]) + u(&r["total"]["write"]["ios"]),
            0
        );
        assert_eq!(u(&r["total"]["all"]["bytes"]), 8 * MIB);
        assert!(trim["latency"]["mean_ns"].as_f64().unwrap() > 0.0, "{trim}");
        let after = allocated(&t);
        assert_eq!(std::fs::metadata(&t).unwrap().len(), 16 * MIB, "size kept");
        assert!(
            after <= before - 8 * MIB,
            "{engine}: {before} bytes allocated before, {after} after 8 MiB of holes"
        );
        seen.push(format!("{engine}: {} -> {} MiB", before / MIB, after / MIB));
    }
    Ok(seen.join(", "))
}

fn trims_then_writes_come_in_pairs() -> Result<String, String> {
    let d = work_dir();
    let t = d.path().join("tw.dat");
    laid_out(&t, 8);
    // Random, 16 deep: each write goes to the range its trim punched, once it completed.
    let r = trim_json(
        "--trim then-write -r -b 64k --total 8M -W 0 -o 16 --engine io_uring",
        &t,
    );
    let (tr, w) = (&r["total"]["trim"], &r["total"]["write"]);
    assert_eq!(u(&tr["ios"]), u(&w["ios"]), "pairs: {tr} {w}");
    assert_eq!(u(&tr["bytes"]) + u(&w["bytes"]), 8 * MIB);
    assert_eq!(u(&r["total"]["read"]["ios"]), 0);
    // Sequential: every block trimmed, then written, so the file is whole again.
    let r = trim_json("--trim then-write -s -b 64k --total 16M -W 0 -o 4", &t);
    assert_eq!(u(&r["total"]["trim"]["bytes"]), 8 * MIB);
    assert_eq!(u(&r["total"]["write"]["bytes"]), 8 * MIB);
    assert!(allocated(&t) >= 8 * MIB, "rewritten: {}", allocated(&t));
    Ok(format!(
        "random: {} trims, {} writes",
        u(&tr["ios"]),
        u(&w["ios"])
    ))
}

fn falloc_allocates_and_punches() -> Result<String, String> {
    let d = work_dir();
    let t = d.path().join("fa.dat");
    laid_out(&t, 8);
    let r = trim_json("--engine falloc --trim only -s -b 1M --total 8M -W 0", &t);
    assert_eq!(u(&r["total"]["trim"]["bytes"]), 8 * MIB);
    let holes = allocated(&t);
    assert!(holes < MIB, "punched: {holes}");
    // A write allocates its range again, counting its length as fio does.
    let r = trim_json("--engine falloc -w 100 -s -b 1M --total 8M -W 0", &t);
    assert_eq!(u(&r["total"]["write"]["bytes"]), 8 * MIB);
    assert!(allocated(&t) >= 8 * MIB, "allocated: {}", allocated(&t));
    Ok(format!("{} KiB left after the holes", holes / 1024))
}

fn a_block_device_is_discarded() -> Result<String, String> {
    if !is_root() {
        return Err("needs root for a loop device".into());
    }
    let d = work_dir();
    let back = d.path().join("loop.img");
    laid_out(&back, 16);
    let dev = sh("losetup", &["--find", "--show", p(&back)])
        .map_err(|e| format!("no loop device here: {e}"))?;
    let dev = dev.trim().to_string();
    let before = allocated(&back);
    // Detach the loop device whatever the run did.
    let r = std::panic::catch_unwind(|| {
        trim_json(
            "--trim only -r -b 64k --total 4M -W 0 --engine sync",
            Path::new(&dev),
        )
    });
    let after = allocated(&back);
    let _ = sh("losetup", &["-d", &dev]);
    let r = r.unwrap_or_else(|e| std::panic::resume_unwind(e));
    let trim = &r["total"]["trim"];
    assert_eq!(u(&trim["bytes"]), 4 * MIB, "{trim}");
    assert_eq!(r["targets"][0]["kind"], "block_device");
    // A loop device's discards punch its backing file; random draws may repeat a range.
    assert!(after < before, "{before} -> {after}");
    Ok(format!(
        "{dev}: backing file {} -> {} KiB",
        before / 1024,
        after / 1024
    ))
}

fn fill_ends_when_the_file_system_is_full() -> Result<String, String> {
    if !is_root() {
        return Err("needs root to mount a small tmpfs".into());
    }
    let d = work_dir();
    let fs = d.path().join("small");
    std::fs::create_dir_all(&fs).unwrap();
    sh("mount", &["-t", "tmpfs", "-o", "size=8m", "tmpfs", p(&fs)])
        .map_err(|e| format!("cannot mount a tmpfs: {e}"))?;
    let t = fs.join("fill.dat");
    // More asked than there is room for: the run ends when the writes find no room.
    let o = run_l(
        "-c 64M --fill -w 100 -s -b 64k --total 64M -W 0 --no-save --output json --keep",
        &[p(&t)],
    );
    let len = std::fs::metadata(&t).map(|m| m.len()).unwrap_or(0);
    // A lazy unmount where the plain one finds the file system still busy: nothing is left
    // mounted in the test's folder.
    if sh("umount", &[p(&fs)]).is_err() {
        let _ = sh("umount", &["-l", p(&fs)]);
    }
    assert!(o.status.success(), "{}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let written = u(&r["total"]["write"]["bytes"]);
    assert!(written > 7 * MIB && written <= 8 * MIB, "{written}");
    assert_eq!(r["stop_reason"], "completed");
    assert!(
        r["errors"].as_array().unwrap().is_empty(),
        "{}",
        r["errors"]
    );
    assert!(r["notes"].as_array().unwrap().iter().any(|n| n
        .as_str()
        .unwrap()
        .contains("the file system was full after")));
    assert!(len >= written, "the file holds what was written: {len}");
    Ok(format!(
        "{} KiB written into an 8 MiB tmpfs",
        written / 1024
    ))
}

fn refusals_name_the_flag() -> Result<String, String> {
    let d = work_dir();
    let t = d.path().join("r.dat");
    for (line, want) in [
        (
            "--trim only -w 30",
            "--trim replaces reads and writes: leave --write-pct out",
        ),
        (
            "--trim only --engine mmap --cache buffered",
            "the mmap engine cannot trim (--trim)",
        ),
        (
            "--trim only --verify",
            "--verify with --trim is not supported yet",
        ),
        (
            "--engine ftruncate -w 50",
            "the ftruncate engine only writes",
        ),
        (
            "--ignore-error ENOSPCX",
            "--ignore-error 'ENOSPCX': 'ENOSPCX' is not an errno name",
        ),
        (
            "--fill -w 50",
            "--fill writes until the file system is full: the job must only write (--write-pct 100",
        ),
    ] {
        let o = run_l(&format!("-c 1M -d 0.1 {line} --no-save"), &[p(&t)]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{line}: {e}");
        assert!(e.contains(want), "{line}: {e}");
        assert_eq!(e.trim().lines().count(), 1, "one line: {e}");
    }
    Ok(String::new())
}

pub fn main() {
    harness_skip_or(
        "trim",
        [
            ("holes_in_a_file", holes_in_a_file as SkipOr),
            (
                "trims_then_writes_come_in_pairs",
                trims_then_writes_come_in_pairs,
            ),
            ("falloc_allocates_and_punches", falloc_allocates_and_punches),
            ("a_block_device_is_discarded", a_block_device_is_discarded),
            (
                "fill_ends_when_the_file_system_is_full",
                fill_ends_when_the_file_system_is_full,
            ),
            ("refusals_name_the_flag", refusals_name_the_flag),
        ],
    );
}
