//! Inputs from other projects and their docs (tests/wild/: fio job files, fio and DiskSpd
//! command lines, each with its source) asked of fio and of iogauge to parse only, through
//! tests/wild/probe.sh: iogauge accepts at least what it accepted when this test was written,
//! and nothing that fio refuses but for options of a later fio. Needs fio (what
//! scripts/install-test-tools.sh installs); without it, SKIPPED. Own harness.

use crate::common;
use common::*;
use std::process::Command;

/// What iogauge accepted of each kind when the floors were set (after issue 39's work).
const FLOORS: [(&str, u32); 3] = [("job", 26), ("line", 87), ("diskspd", 26)];

/// fio 3.33 lacks these options; iogauge follows a later fio there.
const LATER_FIO: &[&str] = &["verify_write_sequence"];

fn inputs_from_other_projects() -> Result<String, String> {
    if Command::new("fio").arg("--version").output().is_err() {
        return Err("no fio: bash scripts/install-test-tools.sh".into());
    }
    let o = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/wild/probe.sh"))
        .arg(env!("CARGO_BIN_EXE_iogauge"))
        .env("FIO", "fio")
        .env("IOGAUGE_DB", common::test_db())
        .output()
        .map_err(|e| format!("probe.sh: {e}"))?;
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "probe.sh failed: {}", stderr(&o));
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
        [(
            "inputs_from_other_projects",
            inputs_from_other_projects as SkipOr,
        )],
    );
}
