//! Inputs from other projects and their docs (tests/wild/: fio job files, fio and DiskSpd
//! command lines, each with its source) asked of fio and of iogauge to parse only, through
//! tests/wild/probe.sh: iogauge accepts at least what it accepted when this test was written,
//! and nothing that fio refuses but for options of a later fio. Then the entries marked safe to
//! run ("# run:") are run for real by fio and by iogauge fio, through tests/wild/run.sh: each
//! must run, and agree on jobs, groups, directions and (bound by size) bytes and I/Os, or be
//! listed with its reason in tests/wild/run-known.txt. Needs fio (what
//! scripts/install-test-tools.sh installs); without it, SKIPPED. Own harness.

use crate::common;
use common::*;
use std::process::Command;

/// What iogauge accepted of each kind when the floors were set (after issue 39's work).
const FLOORS: [(&str, u32); 3] = [("job", 26), ("line", 89), ("diskspd", 26)];

/// fio 3.33 lacks these options; iogauge follows a later fio there.
const LATER_FIO: &[&str] = &["verify_write_sequence"];

/// How many marked entries ran and agreed (or differed as known) when the floor was set.
const RAN_FLOOR: usize = 30;

/// The output of tests/wild/SCRIPT run beside fio, or why not (no fio).
fn script_beside_fio(script: &str) -> Result<String, String> {
    if Command::new("fio").arg("--version").output().is_err() {
        return Err("no fio: bash scripts/install-test-tools.sh".into());
    }
    let o = Command::new("bash")
        .arg(format!(
            "{}/tests/wild/{script}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .arg(env!("CARGO_BIN_EXE_iogauge"))
        .env("FIO", "fio")
        .env("IOGAUGE_DB", common::test_db())
        .output()
        .map_err(|e| format!("{script}: {e}"))?;
    assert!(o.status.success(), "{script} failed: {}", stderr(&o));
    Ok(String::from_utf8_lossy(&o.stdout).to_string())
}

fn inputs_from_other_projects() -> Result<String, String> {
    let text = script_beside_fio("probe.sh")?;
    let mut said = Vec::new();
    for (kind, floor) in FLOORS {
        let got = accepted(&text, kind).unwrap_or_else(|| panic!("no count for {kind}:\n{text}"));
        assert!(
            got >= floor,
            "iogauge accepts {got} {kind} inputs, fewer than the {floor} it did:\n{text}"
        );
        said.push(format!("{kind}s {got}"));
    }
    // An input iogauge accepts and fio refuses: iogauge would run what the tool it stands in
    // for would not.
    let wrong: Vec<&str> = text
        .lines()
        .filter(|l| {
            let cols: Vec<&str> = l.split('|').map(str::trim).collect();
            cols.len() == 4
                && cols[3] == "accepted"
                && !matches!(cols[2], "accepted" | "n/a")
                && !LATER_FIO.iter().any(|o| cols[2].contains(o))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "accepted by iogauge, refused by fio:\n{}",
        wrong.join("\n")
    );
    Ok(format!("iogauge accepts {}", said.join(", ")))
}

/// The marked entries, run by both tools: every one ran, none differs but the known ones, and
/// every known one still differs (else its line in run-known.txt is stale).
fn runs_beside_fio() -> Result<String, String> {
    let text = script_beside_fio("run.sh")?;
    let rows: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split(" | ").map(str::trim).collect();
            (cols.len() == 4 && cols[0].starts_with("fio-")).then(|| (cols[0], cols[3]))
        })
        .collect();
    let bad: Vec<String> = rows
        .iter()
        .filter(|(_, v)| !v.starts_with("same") && !v.starts_with("known"))
        .map(|(i, v)| format!("{i}: {v}"))
        .collect();
    assert!(
        bad.is_empty(),
        "entries that did not run or differ:\n{}\n{text}",
        bad.join("\n")
    );
    let known = include_str!("../wild/run-known.txt");
    for input in known
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split('\t').next())
    {
        let row = rows.iter().find(|(i, _)| *i == input);
        assert!(
            row.is_some_and(|(_, v)| v.starts_with("known")),
            "{input} is listed in run-known.txt but no longer differs (or is not run):\n{text}"
        );
    }
    assert!(
        rows.len() >= RAN_FLOOR,
        "{} entries ran, fewer than the {RAN_FLOOR} that did:\n{text}",
        rows.len()
    );
    let same = rows.iter().filter(|(_, v)| v.starts_with("same")).count();
    Ok(format!(
        "{} entries ran beside fio, {same} alike",
        rows.len()
    ))
}

/// "accepted by iogauge N" on the counts line of `kind`.
fn accepted(text: &str, kind: &str) -> Option<u32> {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{kind} ")) && l.contains("inputs"))?;
    line.rsplit("accepted by iogauge")
        .next()?
        .trim()
        .parse()
        .ok()
}

pub fn main() {
    harness_skip_or(
        "wild",
        [
            (
                "inputs_from_other_projects",
                inputs_from_other_projects as SkipOr,
            ),
            ("runs_beside_fio", runs_beside_fio as SkipOr),
        ],
    );
}
