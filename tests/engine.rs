//! io_uring features, look-asides, coordinated omission and affinity, on real files.
//!
//! Linux only: every item here is; elsewhere the one test, `linux_only`, is ignored with the
//! reason.

#[cfg(target_os = "linux")]
mod common;
#[cfg(target_os = "linux")]
use common::*;
#[cfg(target_os = "linux")]
use serde_json::Value;

#[cfg(target_os = "linux")]
#[test]
fn lookasides_find_completions_that_arrive_while_issuing() {
    let d = work_dir();
    let file = file_in(&d, "la.dat");
    // Buffered reads of cached pages complete inside the submission call: every one of them
    // is found by the look-aside that follows it, none by waiting.
    let r = json_l(
        "-c 16M -L -o 8 -d 0.5 -W 0 --cache buffered --engine io_uring",
        &[p(&file)],
    );
    let w = &r["waits"];
    assert!(
        u(&w["lookaside_completions"]) > u(&w["waited_completions"]),
        "{w}"
    );
    assert!(
        u(&w["lookaside_completions"]) + u(&w["waited_completions"])
            >= u(&r["total"]["all"]["ios"])
    );
    // The same in IOPS mode: completions are still found by looking aside.
    let r = json_l(
        "-c 16M -o 8 -d 0.3 -W 0 --cache buffered --engine io_uring",
        &[p(&file)],
    );
    assert!(u(&r["waits"]["lookaside_completions"]) > 0);
    // The sync engine has nothing to look aside for.
    let r = json_l(
        "-c 16M -d 0.3 -W 0 --cache buffered --engine sync -L",
        &[p(&file)],
    );
    assert_eq!(u(&r["waits"]["lookaside_completions"]), 0);
    assert_eq!(u(&r["waits"]["empty_peeks"]), 0);
}

#[cfg(target_os = "linux")]
#[test]
fn registered_files_and_buffers_by_default_and_off_on_request() {
    let d = work_dir();
    let file = file_in(&d, "reg.dat");
    let r = json_l(
        "-c 16M -d 0.3 -W 0 -Su -w 50 --engine io_uring",
        &[p(&file)],
    );
    assert_eq!(r["io_uring"]["registered_file"], true);
    assert_eq!(r["io_uring"]["registered_buffers"], true);
    assert!(u(&r["total"]["write"]["ios"]) > 0 && u(&r["total"]["read"]["ios"]) > 0);
    let r = json_l(
        "-c 16M -d 0.3 -W 0 -Su --engine io_uring --no-register",
        &[p(&file)],
    );
    assert_eq!(r["io_uring"]["registered_file"], false);
    assert_eq!(r["io_uring"]["registered_buffers"], false);
    let r = json_l("-c 16M -d 0.3 -W 0 --engine sync", &[p(&file)]);
    assert!(r["io_uring"].is_null());
}

#[cfg(target_os = "linux")]
#[test]
fn sqpoll_runs_or_is_refused_clearly() {
    let d = work_dir();
    let file = file_in(&d, "sq.dat");
    let o = run_l("-c 16M -d 0.3 -W 0 -Su --sqpoll --output json", &[p(&file)]);
    if o.status.success() {
        let r: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(r["io_uring"]["sqpoll"], true);
        assert!(u(&r["total"]["all"]["ios"]) > 0);
    } else {
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("--sqpoll"), "{}", stderr(&o));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn hipri_runs_or_is_refused_clearly() {
    // Polled completions need a device with poll queues (NVMe with nvme.poll_queues); a virtio
    // disk has none. Either way the outcome must be clear, never a failed run.
    let d = work_dir();
    let file = file_in(&d, "hp.dat");
    let o = run_l("-c 16M -d 0.3 -W 0 -Su --hipri --output json", &[p(&file)]);
    if o.status.success() {
        let r: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(r["io_uring"]["hipri"], true);
    } else {
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("--hipri") && err.contains("drop --hipri"),
            "{err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn scheduled_latency_shows_what_coordinated_omission_hides() {
    let d = work_dir();
    let file = file_in(&d, "co.dat");
    // At a rate the target can keep, scheduled latency is the service time: that is timed to
    // the microsecond, so it is checked in tests/accuracy.rs, which knows a disturbed run.
    // Twice what it can do at queue depth 1 (1 ms each: 1000 IOPS): each I/O still takes 1 ms
    // to serve, but a client on that schedule waits longer and longer.
    let r = json_l("-c 1M -L -o 1 -d 1 -W 0 --cache buffered --engine delay --delay fixed:1ms --rate-iops 2000", &[p(&file)]);
    let (done, sched) = (
        &r["total"]["all"]["latency"],
        &r["total"]["all"]["latency_scheduled"],
    );
    assert!(
        (percentile(done, 50.0) - 1e6).abs() < 20_000.0,
        "service time stays 1 ms: {}",
        percentile(done, 50.0)
    );
    assert!(
        percentile(sched, 50.0) > 100e6,
        "scheduled latency grows: p50 {} ns",
        percentile(sched, 50.0)
    );
    assert!(
        r["total"]["all"]["latency_scheduled"]["max_ns"].as_u64()
            > r["total"]["all"]["latency"]["max_ns"].as_u64()
    );
    // Without a rate limit there is no schedule.
    let r = json_l(
        "-c 1M -L -o 1 -d 0.3 -W 0 --cache buffered --engine delay --delay fixed:1ms",
        &[p(&file)],
    );
    assert!(r["total"]["all"]["latency_scheduled"].is_null());
}

#[cfg(target_os = "linux")]
#[test]
fn affinity_pins_threads() {
    let d = work_dir();
    let file = file_in(&d, "aff.dat");
    let r = json_l("-c 8M -t 2 -a=0 -d 0.3 -W 0 --cache buffered", &[p(&file)]);
    let cpus: Vec<u64> = r["targets"][0]["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| u(&t["cpu"]))
        .collect();
    assert_eq!(cpus, [0, 0]);
    let r = json_l(
        "-c 8M -t 2 --affinity -d 0.3 -W 0 --cache buffered",
        &[p(&file)],
    );
    let cpus: Vec<Value> = r["targets"][0]["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["cpu"].clone())
        .collect();
    assert!(cpus.iter().all(|c| c.is_u64()), "{cpus:?}");
    let r = json_l("-c 8M -d 0.3 -W 0 --cache buffered", &[p(&file)]);
    assert!(r["targets"][0]["threads"][0]["cpu"].is_null());
    let o = run_l("-c 8M -a=4095 -d 0.3 --cache buffered", &[p(&file)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--affinity: CPU 4095 is not available"),
        "{}",
        stderr(&o)
    );
}

/// The target's file system can be unmounted the moment a run ends: a closed ring is torn
/// down later by the kernel, and its registered files with it, so a ramfs stayed busy ("target
/// is busy") for about half a second after iogauge exited. Five runs, each unmounted at once,
/// with no retry.
#[cfg(target_os = "linux")]
#[test]
fn the_file_system_is_free_the_moment_a_run_ends() {
    if let Err(why) = common::need_root() {
        println!("SKIPPED: {why}");
        return;
    }
    let d = work_dir();
    let m = common::mounts::mount_point(d.path(), "ramfs");
    let target = m.join("t");
    for i in 0..5 {
        sh("mount", &["-t", "ramfs", "ramfs", p(&m)]).unwrap();
        let o = run(&argv(
            "--no-save -c 16M -d 1 -w 100 --cache buffered --engine io_uring",
            &[p(&target)],
        ));
        let freed = sh("umount", &[p(&m)]);
        if freed.is_err() {
            let _ = sh("umount", &["-l", p(&m)]);
        }
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(freed.is_ok(), "run {}: {}", i + 1, freed.unwrap_err());
    }
}

#[cfg(not(target_os = "linux"))]
#[test]
#[ignore = "Linux only: io_uring's features, affinity and a ramfs mount"]
fn linux_only() {}
