//! IO500's result lines as IO500 prints them (main.c: "[RESULT] %20s %15s %s : time %.3f
//! seconds" and "[SCORE ] Bandwidth ... : IOPS ... : TOTAL ..."), every one labelled
//! NON-COMPLIANT where IO500 would write INVALID: iogauge's phases are not the unmodified ior,
//! mdtest and pfind that IO500's rules require. Or the same as JSON.

use crate::result::io500::Io500Result;
use std::fmt::Write;

/// Where IO500 says [INVALID].
const LABEL: &str = " [NON-COMPLIANT]";

pub fn text(r: &Io500Result) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "IO500 phases run by iogauge {} on {} rank(s){LABEL}: iogauge's own IOR, mdtest and \
         find, not the unmodified ior, mdtest and pfind binaries the IO500 rules require; not \
         an IO500 result",
        env!("CARGO_PKG_VERSION"),
        r.ranks
    );
    for (k, v) in &r.config {
        let _ = writeln!(out, "[CONFIG] {k}: {v}");
    }
    for row in &r.rows {
        let score = format!("{:.6}", row.score);
        let _ = writeln!(
            out,
            "[RESULT] {:>20} {score:>15} {} : time {:.3} seconds{LABEL}",
            row.phase,
            row.unit(),
            row.seconds
        );
    }
    if let Some(f) = r.found {
        let _ = writeln!(
            out,
            "[FIND  ] {} of {} files matched -newer timestampfile -size 3901c -name *01*",
            f.matched, f.files
        );
    }
    for n in &r.notes {
        let _ = writeln!(out, "NOTE: {n}");
    }
    if let Some(phase) = &r.ended_in {
        let _ = writeln!(
            out,
            "[PARTIAL] the run ended in {phase}: the score covers the phases above"
        );
    }
    let s = r.scores();
    let _ = writeln!(
        out,
        "[SCORE ] Bandwidth {:.6} GiB/s : IOPS {:.6} kiops : TOTAL {:.6}{LABEL}",
        s.bandwidth_gib_s, s.md_kiops, s.total
    );
    out
}

/// The result and its scores as one JSON document.
pub fn json(r: &Io500Result) -> String {
    let doc = serde_json::json!({
        "compliant": false,
        "result": r,
        "scores": r.scores(),
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::io500::Io500Row;

    #[test]
    fn lines_are_io500s_with_the_label() {
        let r = Io500Result {
            ranks: 2,
            config: vec![("datadir".into(), "/x".into())],
            rows: vec![
                Io500Row {
                    phase: "ior-easy-write".into(),
                    score: 1.5,
                    seconds: 2.25,
                },
                Io500Row {
                    phase: "find".into(),
                    score: 6.0,
                    seconds: 0.5,
                },
            ],
            found: None,
            notes: Vec::new(),
            ended_in: None,
        };
        let t = text(&r);
        assert!(t.contains(
            "[RESULT]       ior-easy-write        1.500000 GiB/s : time 2.250 seconds \
             [NON-COMPLIANT]\n"
        ));
        assert!(t.contains("[RESULT]                 find        6.000000 kIOPS"));
        assert!(t.ends_with(
            "[SCORE ] Bandwidth 1.500000 GiB/s : IOPS 6.000000 kiops : TOTAL 3.000000 \
             [NON-COMPLIANT]\n"
        ));
    }
}
