//! The instrument against a known truth: the delay engine completes each I/O after a latency
//! drawn from a known distribution and records what it injected; iogauge's reported completion
//! latency must match it at every queue depth. One test in its own binary, so no other test
//! competes for the CPUs while it measures.

mod common;
use common::*;
use serde_json::Value;

#[test]
fn reported_latency_matches_injected_latency_at_qd_1_16_128() {
    let d = work_dir();
    let file = file_in(&d, "acc.dat");
    let mut failures = Vec::new();
    for (dist, qds) in [
        ("fixed:1ms", &[1, 16, 128][..]),
        ("uniform:500us:1500us", &[1, 16, 128]),
        ("lognormal:1ms:0.4", &[1, 16, 128]),
    ] {
        for &qd in qds {
            let line = format!(
                "-c 1M -L -W 0.2 -d 2 --cache buffered --engine delay --delay {dist} -o {qd}"
            );
            let r = json_l(&line, &[p(&file)]);
            let measured = &r["total"]["all"]["latency"];
            let injected = &r["injected_latency"];
            assert!(
                u(&r["total"]["all"]["ios"]) > 1000,
                "{dist} qd {qd}: too few I/Os"
            );
            for (p50_99, rel, abs_ns) in [(50.0, 0.01, 2_000.0), (99.0, 0.03, 5_000.0)] {
                let (m, i) = (percentile(measured, p50_99), percentile(injected, p50_99));
                let tolerance = (i * rel).max(abs_ns);
                let line = format!("{dist:>22} qd {qd:>3} p{p50_99}: reported {:>9.1} us, injected {:>9.1} us, off {:>6.2} us (allowed {:.1})",
                    m / 1e3, i / 1e3, (m - i) / 1e3, tolerance / 1e3);
                eprintln!("{line}");
                if (m - i).abs() > tolerance {
                    failures.push(line);
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "latency error beyond tolerance:\n{}",
        failures.join("\n")
    );

    // `iogauge selftest` reports the same comparison, the clock and the overhead per I/O.
    let o = bin()
        .args(["selftest", "--seconds", "0.5", "--output", "json", "--dir"])
        .arg(d.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(f(&st["clock"]["read_cost_ns"]) > 0.0);
    let overhead = st["overhead"].as_array().unwrap();
    assert_eq!(overhead.len(), 4);
    for v in overhead {
        // The null engine must leave room for any real device: well under a microsecond per I/O.
        assert!(f(&v["ns_per_io"]) < 1000.0, "{v}");
    }
    let errors = st["latency_error"].as_array().unwrap();
    assert_eq!(errors.len(), 12);
    assert!(
        errors.iter().all(|e| e["within_tolerance"] == true),
        "{errors:#?}"
    );
    // Only the run's own file remains: the self-test removed its scratch file.
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.iter()
            .all(|n| !n.to_string_lossy().contains("selftest")),
        "{left:?}"
    );
}
