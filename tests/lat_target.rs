//! The latency target's search (`--latency-target`, fio's latency_target) on the delay
//! engine, whose I/Os take a known time at any depth. A depth-dependent device is the unit
//! tests' (src/runner/lat_target.rs); here the ends the search must reach whatever the
//! machine's noise: a target every depth meets by far (the search doubles up to the queue
//! depth and settles there, ending the run), and one no I/O can meet (each takes longer
//! than the target by construction).

mod common;

use common::{file_in, json_l, p, run_l, stderr, u, work_dir};

#[test]
fn a_target_every_depth_meets_settles_at_the_queue_depth_and_ends_the_run() {
    let d = work_dir();
    let file = file_in(&d, "lt.dat");
    // 100 us per I/O against 200 ms for half of them: only a stalled machine could fail a
    // window. 1, 2, 4, 8, 8 (the final window), then done: well before the 30 s limit.
    let r = json_l(
        "-c 1M -b 4k -r -o 8 -d 30 -W 0 --cache buffered --engine delay --delay fixed:100us \
         --latency-target 200ms --latency-window 50ms --latency-pct 50",
        &[p(&file)],
    );
    let l = &r["latency_target"];
    assert_eq!(u(&l["depth"]), 8, "{l}");
    assert_eq!(l["settled"], true, "{l}");
    assert_eq!(u(&l["target_ns"]), 200_000_000);
    assert_eq!(u(&l["window_ns"]), 50_000_000);
    assert_eq!(r["mode"], "latency", "a target times every I/O");
    assert!(
        u(&r["measured_ns"]) < 25_000_000_000,
        "the settled search ends the run: {} ns",
        r["measured_ns"]
    );
    assert_eq!(r["stop_reason"], "completed");
}

#[test]
fn a_target_no_io_meets_fails_at_depth_1_or_stays_there() {
    let d = work_dir();
    let file = file_in(&d, "lt.dat");
    let base = "-c 1M -b 4k -r -o 8 -d 1 -W 0 --cache buffered --engine delay --delay fixed:2ms \
                --latency-target 500us";
    // Every I/O must meet it (fio's default percentile of 100): the first one at depth 1
    // fails the job, as fio's "max latency exceeded".
    let o = run_l(base, &[p(&file)]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no depth meets it"), "{}", stderr(&o));
    // 90% of them: each window fails, and the search stays at depth 1 for the whole run.
    let r = json_l(
        &format!("{base} --latency-pct 90 --latency-window 50ms"),
        &[p(&file)],
    );
    let l = &r["latency_target"];
    assert_eq!(u(&l["depth"]), 1, "{l}");
    assert_eq!(l["settled"], false, "{l}");
}

#[test]
fn a_percentile_outside_0_to_100_is_refused_in_each_tools_words() {
    let d = work_dir();
    let file = file_in(&d, "lt.dat");
    let o = run_l(
        "-c 1M --engine delay --delay fixed:1ms --latency-target 1ms --latency-pct 150",
        &[p(&file)],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--latency-pct must be a percentage from 0 to 100"),
        "{}",
        stderr(&o)
    );
    let o = common::bin()
        .args([
            "fio",
            "--name=x",
            "--ioengine=psync",
            "--size=1m",
            &format!("--filename={}", p(&file)),
            "--latency_target=1ms",
            "--latency_percentile=150",
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("latency_percentile"), "{}", stderr(&o));
}
