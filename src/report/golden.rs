//! Golden files: every report of one fixed result, compared byte for byte with the reviewed
//! copy in tests/golden/report/. The result (run.json) is a delay-engine run saved once
//! (`iogauge run gtarget --engine delay --delay uniform:100us:300us -L -d 2 -W 0 -c 1M -b 4K
//! -w 30 -r -t 2 -o 4 --interval 500 --seed 7 --output json`); the DiskSpd reports pair it with
//! a DiskSpd line of the same shape and a fixed two-core machine. A change to any report fails
//! here until it is reviewed: `IOGAUGE_GOLDEN=update cargo test --lib report::golden` writes the
//! files anew, and `git diff tests/golden` is the review.

use super::diskspd_system::Machine;
use super::{csv, diskspd_xml, fio, json, text, Exporter};
use crate::os::topology::{Cpu, Topology};
use crate::result::RunResult;
use crate::spec::diskspd::{parse, Targets};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/report")
}

fn fixed_result() -> RunResult {
    let text = std::fs::read_to_string(dir().join("run.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Two CPUs, each its own core, one package and node: what the XML's `<System>` describes.
fn fixed_machine() -> Machine {
    let cpu = |id: usize| Cpu {
        id,
        package: 0,
        node: 0,
        core: vec![id],
        capacity: None,
    };
    Machine::of(Topology {
        possible: 2,
        cpus: vec![cpu(0), cpu(1)],
        governors: vec![],
    })
}

/// The DiskSpd line whose shape the fixed run has (4 KiB random, 30% writes, 2 threads,
/// 4 in flight, latency and per-interval IOPS on).
fn fixed_diskspd() -> crate::spec::diskspd::Diskspd {
    let line = "-b4K -r -w30 -t2 -o4 -d2 -W0 -L -D500 -Rxml -c1M gtarget";
    let args: Vec<String> = line.split_whitespace().map(String::from).collect();
    let none = || Vec::new();
    parse(&args, &Targets { disks: &none }).unwrap()
}

/// Compare `got` with golden file `name`, or write it when IOGAUGE_GOLDEN=update.
fn check(name: &str, got: &str) -> Result<(), String> {
    let path = dir().join(name);
    if std::env::var("IOGAUGE_GOLDEN").as_deref() == Ok("update") {
        std::fs::write(&path, got).unwrap();
        return Ok(());
    }
    let want = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e} (IOGAUGE_GOLDEN=update writes it)", path.display()))?;
    if want == got {
        return Ok(());
    }
    let line = want
        .lines()
        .zip(got.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(want.lines().count().min(got.lines().count()));
    Err(format!(
        "{name} differs from its golden file from line {}:\n  golden: {:?}\n  now:    {:?}\n\
         review, then IOGAUGE_GOLDEN=update cargo test --lib report::golden",
        line + 1,
        want.lines().nth(line).unwrap_or("<end>"),
        got.lines().nth(line).unwrap_or("<end>"),
    ))
}

/// fio's JSON says when it was written (timestamp, timestamp_ms, time) and by which version,
/// as fio's does: those four values are the moment and build of writing, not of the result,
/// so they are masked here (and checked to be present).
fn written_now_masked(fio_json: &str) -> String {
    let keys = [
        "\"fio version\": ",
        "\"timestamp\": ",
        "\"timestamp_ms\": ",
        "\"time\": ",
    ];
    let mut masked = 0;
    let lines: Vec<String> = fio_json
        .lines()
        .map(
            |line| match keys.iter().find(|k| line.starts_with(&format!("  {k}"))) {
                Some(k) => {
                    masked += 1;
                    format!("  {k}\"<written now>\",")
                }
                None => line.to_string(),
            },
        )
        .collect();
    assert_eq!(masked, keys.len(), "fio JSON without one of {keys:?}");
    lines.join("\n") + "\n"
}

#[test]
fn every_report_of_a_fixed_result_is_as_reviewed() {
    let r = fixed_result();
    let d = fixed_diskspd();
    let reports: [(&str, String); 6] = [
        ("run.txt", text::Text.render(&r)),
        ("run.csv", csv::Csv.render(&r)),
        ("run.out.json", json::Json.render(&r)),
        ("run.fio.json", written_now_masked(&fio::FioJson.render(&r))),
        ("run.diskspd.txt", text::DiskspdText.render(&r)),
        (
            "run.diskspd.xml",
            diskspd_xml::DiskspdXml(&d).render_on(&r, &fixed_machine()),
        ),
    ];
    let failed: Vec<String> = reports
        .iter()
        .filter_map(|(name, got)| check(name, got).err())
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn the_json_report_keeps_every_field_of_the_result() {
    // The JSON report is the result itself: what was read back is written out unchanged, so a
    // field lost in (de)serialisation shows here, not only as a golden diff.
    let original: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir().join("run.json")).unwrap()).unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&json::Json.render(&fixed_result())).unwrap();
    assert_eq!(original, written);
}
