//! The results store end to end: real runs saved by the real binary into real SQLite files,
//! then listed, shown, exported, imported, compared, checked against baselines; and the
//! database files it must refuse.
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
use std::path::{Path, PathBuf};
#[cfg(target_os = "linux")]
use std::process::Output;

#[cfg(target_os = "linux")]
fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[cfg(target_os = "linux")]
fn ok(o: Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}: {}{}",
        o.status.code(),
        stderr(&o),
        out(&o)
    );
    out(&o)
}

/// A short delay-engine run on a small file: real files, a known latency.
#[cfg(target_os = "linux")]
fn delay_run(db: &Path, dir: &Path, delay: &str, extra: &[&str]) -> Output {
    let f = dir.join("f.dat");
    let mut args = vec![
        "run", "-c", "8M", "-d", "1", "-W", "0", "-o", "1", "--engine", "delay", "--delay", delay,
    ];
    args.extend_from_slice(extra);
    args.push(p(&f));
    db_cmd(db, &args)
}

#[cfg(target_os = "linux")]
fn list_json(db: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["results", "list", "--output", "json", "--all"];
    args.extend_from_slice(extra);
    let v: Value = serde_json::from_str(&ok(db_cmd(db, &args))).unwrap();
    v.as_array().unwrap().clone()
}

#[cfg(target_os = "linux")]
fn ids(rows: &[Value]) -> Vec<i64> {
    rows.iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

#[cfg(target_os = "linux")]
#[test]
fn every_run_is_saved_listed_shown_exported_and_deleted() {
    let d = work_dir();
    let db = d.path().join("results.db");
    let r1 = delay_run(
        &db,
        d.path(),
        "fixed:200us",
        &["-L", "--tag", "prod", "--tag", "db"],
    );
    let id1 = saved_id(&r1);
    let q = db_cmd(
        &db,
        &[
            "quick",
            p(d.path()),
            "--size",
            "8M",
            "-d",
            "0.3",
            "--tag",
            "prod",
        ],
    );
    let id2 = saved_id(&q);
    assert!(q.status.success(), "{}", stderr(&q));
    let rows = list_json(&db, &[]);
    assert_eq!(ids(&rows), vec![id2, id1], "newest first");
    assert_eq!(rows[1]["tags"], serde_json::json!(["db", "prod"]));
    assert_eq!(rows[0]["passes"].as_array().unwrap().len(), 6);
    assert!(
        rows[1]["passes"][0]["figures"]["lat_p99_ns"]
            .as_u64()
            .unwrap()
            >= 200_000
    );
    // Filters.
    assert_eq!(ids(&list_json(&db, &["--profile", "run"])), vec![id1]);
    assert_eq!(ids(&list_json(&db, &["--profile", "quick"])), vec![id2]);
    assert_eq!(ids(&list_json(&db, &["--tag", "db"])), vec![id1]);
    assert_eq!(ids(&list_json(&db, &["--tag", "prod"])).len(), 2);
    assert_eq!(ids(&list_json(&db, &["--target", "f.dat"])), vec![id1]);
    assert!(list_json(&db, &["--since", "2199-01-01"]).is_empty());
    assert_eq!(list_json(&db, &["--since", "1d"]).len(), 2);
    assert!(list_json(&db, &["--until", "2000-01-01"]).is_empty());
    let text = ok(db_cmd(&db, &["results", "list", "--limit", "1"]));
    assert!(text.contains("quick") && !text.contains("f.dat"), "{text}");
    assert!(text.contains("--all or --limit N"), "{text}");
    // show: the report again, from the saved document.
    let show = ok(db_cmd(&db, &["results", "show", &id1.to_string()]));
    assert!(show.contains(&format!("Saved run {id1}")) && show.contains("tags: db, prod"));
    assert!(show.contains("p99"), "{show}");
    let show = ok(db_cmd(&db, &["results", "show", &id2.to_string()]));
    assert!(show.contains("RND4K Q32T4 read"), "{show}");
    // export: the full JSON, equal to what the run printed; CSV of the time series.
    let json: Value =
        serde_json::from_str(&ok(db_cmd(&db, &["results", "export", &id1.to_string()]))).unwrap();
    assert_eq!(json["schema"], "iogauge-run-result");
    assert!(json["total"]["all"]["latency_histogram"].is_string());
    let csv = ok(db_cmd(
        &db,
        &["results", "export", &id2.to_string(), "--output", "csv"],
    ));
    assert!(csv.starts_with("pass,start_ns,"), "{csv}");
    assert!(
        csv.lines().any(|l| l.starts_with("6,")),
        "every pass: {csv}"
    );
    // delete.
    ok(db_cmd(&db, &["results", "delete", &id1.to_string()]));
    assert_eq!(ids(&list_json(&db, &[])), vec![id2]);
    let o = db_cmd(&db, &["results", "show", &id1.to_string()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains(&format!("no run {id1}")), "{e}");
    // --no-save saves nothing.
    let o = delay_run(&db, d.path(), "fixed:200us", &["--no-save"]);
    assert!(o.status.success() && !stderr(&o).contains("saved"));
    assert_eq!(list_json(&db, &[]).len(), 1);
}

/// What `schema` (a file of schema/) finds wrong with `doc`; nothing where it matches.
#[cfg(target_os = "linux")]
fn schema_errors(schema: &str, doc: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(schema).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    validator.iter_errors(doc).map(|e| e.to_string()).collect()
}

/// A profile's JSON is what schema/profile-result.schema.json says, and each pass's result
/// what schema/run-result.schema.json says.
#[cfg(target_os = "linux")]
#[test]
fn profile_json_matches_its_schema() {
    let dir = work_dir();
    let o = bin()
        .args([
            "profile",
            "database",
            p(dir.path()),
            "--size",
            "4M",
            "-d",
            "0.2",
        ])
        .args(["--output", "json", "--no-save"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let errors = schema_errors(include_str!("../schema/profile-result.schema.json"), &doc);
    assert!(errors.is_empty(), "{errors:#?}");
    let passes = doc["passes"].as_array().unwrap();
    assert_eq!(passes.len(), 2);
    for pass in passes {
        let run = include_str!("../schema/run-result.schema.json");
        let errors = schema_errors(run, &pass["result"]);
        assert!(errors.is_empty(), "{}: {errors:#?}", pass["label"]);
    }
    let mut extra = doc.clone();
    extra["passes"][0]["unknown"] = Value::Bool(true);
    let errors = schema_errors(include_str!("../schema/profile-result.schema.json"), &extra);
    assert!(!errors.is_empty(), "an unknown key passed");
    // The header every kind opens with (schema 4): what the user typed.
    let typed: Vec<&str> = doc["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(typed[1..3], ["profile", "database"], "{typed:?}");
    assert!(doc["started_unix_ns"].as_u64().unwrap() > 0);
}

/// A profile saved before its schema 4 (no tool_version, started_unix_ns, command_line or
/// system) still loads: imported, listed with its first pass's host and start, shown again.
#[cfg(target_os = "linux")]
#[test]
fn a_schema_3_profile_still_loads() {
    let dir = work_dir();
    let o = bin()
        .args(["quick", p(dir.path()), "--size", "4M", "-d", "0.2"])
        .args(["--output", "json", "--no-save"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let obj = doc.as_object_mut().unwrap();
    for k in ["tool_version", "started_unix_ns", "command_line", "system"] {
        assert!(obj.remove(k).is_some(), "{k}");
    }
    obj.insert("schema_version".into(), Value::from(3));
    let host = doc["passes"][0]["result"]["system"]["hostname"].clone();
    let file = dir.path().join("v3.json");
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    let db = dir.path().join("results.db");
    ok(db_cmd(&db, &["results", "import", p(&file)]));
    let rows = list_json(&db, &[]);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["kind"], "profile", "{}", rows[0]);
    assert_eq!(rows[0]["hostname"], host, "{}", rows[0]);
    let shown = ok(db_cmd(&db, &["results", "show", "1"]));
    assert!(shown.contains("RND4K Q1T1 read"), "{shown}");
}

#[cfg(target_os = "linux")]
#[test]
fn results_from_another_machine_are_imported() {
    let d = work_dir();
    let db = d.path().join("results.db");
    let o = delay_run(
        &db,
        d.path(),
        "fixed:100us",
        &["-L", "--no-save", "--output", "json"],
    );
    let mut doc: Value = serde_json::from_str(&ok(o)).unwrap();
    doc["system"]["hostname"] = "server-b".into();
    let file = d.path().join("from-b.json");
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    let o = ok(db_cmd(&db, &["results", "import", p(&file), "--tag", "b"]));
    assert!(o.contains("as run 1"), "{o}");
    let rows = list_json(&db, &["--tag", "b"]);
    assert_eq!(rows[0]["hostname"], "server-b");
    // The imported histogram is the run's own: export gives the same document back.
    let back: Value = serde_json::from_str(&ok(db_cmd(&db, &["results", "export", "1"]))).unwrap();
    assert_eq!(back, doc);
    // Bad files: one line naming the file; nothing saved.
    for (name, text, says) in [
        ("garbage.json", "not json at all", "invalid JSON"),
        (
            "other.json",
            r#"{"schema": "fio", "x": 1}"#,
            "schema is 'fio'",
        ),
        (
            "future.json",
            r#"{"schema": "iogauge-run-result", "schema_version": 99}"#,
            "newer",
        ),
        (
            "partial.json",
            r#"{"schema": "iogauge-run-result", "schema_version": 1}"#,
            "missing field",
        ),
    ] {
        let f = d.path().join(name);
        std::fs::write(&f, text).unwrap();
        let o = db_cmd(&db, &["results", "import", p(&f)]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(p(&f)) && e.contains(says), "{name}: {e}");
    }
    assert_eq!(list_json(&db, &[]).len(), 1);
}

#[cfg(target_os = "linux")]
#[test]
fn compare_shows_ratios_and_judges_noise_from_repeats() {
    let d = work_dir();
    let db = d.path().join("results.db");
    // Three repeats of one workload, one run of a ten times slower one.
    let a: Vec<i64> = (0..3)
        .map(|_| saved_id(&delay_run(&db, d.path(), "fixed:100us", &["-L"])))
        .collect();
    let b = saved_id(&delay_run(&db, d.path(), "fixed:1ms", &["-L"]));
    let t = ok(db_cmd(&db, &["compare", &a[0].to_string(), &b.to_string()]));
    let iops = t.lines().find(|l| l.contains("IOPS")).expect(&t);
    assert!(iops.contains(&format!("#{} run", a[0])) || t.contains(&format!("#{} run", a[0])));
    assert!(iops.contains("beyond noise"), "{t}");
    assert!(t.contains('±'), "{t}");
    let json: Value = serde_json::from_str(&ok(db_cmd(
        &db,
        &[
            "compare",
            &a[0].to_string(),
            &b.to_string(),
            "--output",
            "json",
        ],
    )))
    .unwrap();
    let row = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "IOPS")
        .unwrap();
    let ratio = row["cells"][1]["ratio"].as_f64().unwrap();
    assert!(ratio < 0.5, "ten times the latency, QD1: {ratio}");
    assert_eq!(row["cells"][0]["repeats"], 3);
    assert_eq!(row["cells"][1]["repeats"], 1);
    // The median is what the injected latency sets; the tail moves with CPU steal.
    let p50 = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "latency p50")
        .unwrap();
    let r50 = p50["cells"][1]["ratio"].as_f64().unwrap();
    assert!(r50 > 5.0 && r50 < 15.0, "1 ms against 100 us: {r50}");
    let md = ok(db_cmd(
        &db,
        &[
            "compare",
            &a[0].to_string(),
            &b.to_string(),
            "--output",
            "markdown",
        ],
    ));
    assert!(md.starts_with("| pass | metric |"), "{md}");
    let o = db_cmd(&db, &["compare", &a[0].to_string(), "999"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no run 999"));
}

/// Multiply a run's throughput figures in a JSON document (a faster baseline than reality).
#[cfg(target_os = "linux")]
fn scale_throughput(doc: &mut Value, k: f64) {
    for dir in ["read", "write", "all"] {
        for key in ["iops", "bytes_per_sec"] {
            let v = doc["total"][dir][key].as_f64().unwrap();
            doc["total"][dir][key] = (v * k).into();
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn check_passes_within_tolerance_and_fails_with_exit_3() {
    let d = work_dir();
    let db = d.path().join("results.db");
    let base = saved_id(&delay_run(&db, d.path(), "fixed:300us", &["-L"]));
    ok(db_cmd(
        &db,
        &["baseline", "save", "disk", &base.to_string()],
    ));
    let listed = ok(db_cmd(&db, &["baseline", "list"]));
    assert!(listed.contains("disk") && listed.contains(&base.to_string()));
    // The same workload again: the delay engine's figures hold well within 50%, unless the
    // hypervisor stalls this VM mid-run; so up to three tries, one of which must pass.
    let mut check_ids = Vec::new();
    let mut passed = None;
    for _ in 0..3 {
        let o = db_cmd(&db, &["check", "--baseline", "disk", "--tolerance", "50%"]);
        let t = out(&o);
        check_ids.push(saved_id_of(&o));
        match o.status.code() {
            Some(0) => {
                passed = Some(t);
                break;
            }
            Some(3) => assert!(t.contains("FAILED"), "{t}"),
            other => panic!("exit {other:?}: {t}{}", stderr(&o)),
        }
    }
    let t = passed.expect("one of three checks of an unchanged workload passes");
    assert!(
        t.contains("PASSED") && t.contains("IOPS") && t.contains("latency p99"),
        "{t}"
    );
    check_ids.reverse();
    let rows = list_json(&db, &["--tag", "check:disk"]);
    assert_eq!(
        ids(&rows),
        check_ids,
        "each check's run is saved and tagged"
    );
    // A baseline that was a hundred times as fast, with a hundredth of the latency: the check
    // must fail. (Twice, then four times were too close: on a loaded machine one run's p99
    // was 3.7 times another's, and the check then rightly passed.)
    let mut doc: Value =
        serde_json::from_str(&ok(db_cmd(&db, &["results", "export", &base.to_string()]))).unwrap();
    scale_throughput(&mut doc, 100.0);
    for p in doc["total"]["all"]["latency"]["percentiles"]
        .as_array_mut()
        .unwrap()
    {
        p["ns"] = (p["ns"].as_u64().unwrap() / 100).into();
    }
    let mean = doc["total"]["all"]["latency"]["mean_ns"].as_f64().unwrap();
    doc["total"]["all"]["latency"]["mean_ns"] = (mean / 100.0).into();
    let f = d.path().join("fast.json");
    std::fs::write(&f, doc.to_string()).unwrap();
    let imported = ok(db_cmd(&db, &["results", "import", p(&f)]));
    let fast: i64 = imported.trim().rsplit(' ').next().unwrap().parse().unwrap();
    ok(db_cmd(
        &db,
        &["baseline", "save", "fast", &fast.to_string()],
    ));
    let o = db_cmd(&db, &["check", "--baseline", "fast", "-q"]);
    let t = out(&o);
    assert_eq!(o.status.code(), Some(3), "{t}{}", stderr(&o));
    assert!(t.contains("FAILED"), "{t}");
    for metric in ["IOPS", "MB/s", "latency p99", "latency mean"] {
        let line = t
            .lines()
            .find(|l| l.contains(&format!(" {metric} ")) || l.contains(&format!("  {metric}")))
            .unwrap_or_else(|| panic!("no {metric} row in {t}"));
        assert!(line.contains("FAIL"), "{metric}: {line}");
    }
    // Bad input, one line each.
    for (args, says) in [
        (vec!["check", "--baseline", "nope"], "no baseline 'nope'"),
        (
            vec!["check", "--baseline", "disk", "a", "b"],
            "give as many TARGETs",
        ),
        (
            vec!["check", "--baseline", "disk", "--tolerance", "x"],
            "--tolerance",
        ),
        (vec!["baseline", "save", "x", "999"], "no run 999"),
        (vec!["baseline", "delete", "nope"], "no baseline 'nope'"),
    ] {
        let o = db_cmd(&db, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(says), "{args:?}: {e}");
    }
    // A baseline's run cannot be deleted from under it.
    let o = db_cmd(&db, &["results", "delete", &base.to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("baseline 'disk'"), "{}", stderr(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn check_reruns_a_profile_baseline_pass_by_pass() {
    let d = work_dir();
    let db = d.path().join("results.db");
    let q = db_cmd(
        &db,
        &["quick", p(d.path()), "--size", "8M", "-d", "0.3", "-q"],
    );
    assert!(q.status.success(), "{}", stderr(&q));
    ok(db_cmd(&db, &["baseline", "save", "q", "1"]));
    let o = db_cmd(&db, &["check", "--baseline", "q", "-q"]);
    let t = out(&o);
    // Disk figures of 0.3 s passes on a shared machine can differ by more than the default
    // tolerance; what must hold is that every pass ran again and was judged.
    assert!(
        matches!(o.status.code(), Some(0) | Some(3)),
        "{t}{}",
        stderr(&o)
    );
    for pass in [
        "SEQ1M Q8T1 read",
        "SEQ1M Q8T1 write",
        "RND4K Q32T4 read",
        "RND4K Q32T4 write",
        "RND4K Q1T1 read",
        "RND4K Q1T1 write",
    ] {
        assert!(t.contains(pass), "{pass} not checked: {t}");
    }
    let rows = list_json(&db, &[]);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["name"], "quick");
    assert!(
        std::fs::read_dir(d.path()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".tmp")),
        "the check's test file was removed"
    );
}

#[cfg(target_os = "linux")]
fn digest(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn foreign_corrupt_and_newer_databases_are_refused_untouched() {
    let d = work_dir();
    let target = d.path().join("never.dat");
    let run_with = |db: &Path| {
        bin()
            .env("IOGAUGE_DB", db)
            .args(["run", "-c", "1M", "-d", "0.2", "-W", "0", p(&target)])
            .output()
            .unwrap()
    };
    // Not SQLite at all.
    let text = d.path().join("notes.txt");
    std::fs::write(&text, "my notes\n".repeat(1000)).unwrap();
    // Another program's SQLite database.
    let other = d.path().join("other.db");
    {
        let c = rusqlite::Connection::open(&other).unwrap();
        c.execute_batch("CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x');")
            .unwrap();
    }
    // A database of a newer iogauge.
    let newer = d.path().join("newer.db");
    ok(db_cmd(&newer, &["results", "list"]));
    {
        let c = rusqlite::Connection::open(&newer).unwrap();
        c.execute_batch("PRAGMA user_version = 99").unwrap();
    }
    for (db, says) in [
        (&text, "not an SQLite file"),
        (&other, "another program"),
        (&newer, "newer than this iogauge"),
    ] {
        let before = digest(db);
        let o = run_with(db);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(p(db)) && e.contains(says), "{e}");
        assert!(o.stdout.is_empty(), "nothing ran");
        assert!(!target.exists(), "no I/O before the database is known good");
        assert_eq!(digest(db), before, "{} was changed", db.display());
        let o = db_cmd(db, &["results", "list"]);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(digest(db), before);
    }
    // A corrupt iogauge database: its pages overwritten after the header.
    let bad = d.path().join("bad.db");
    for _ in 0..3 {
        ok(delay_run(&bad, d.path(), "fixed:100us", &[]));
    }
    ok(db_cmd(&bad, &["results", "list"])); // checkpoints the WAL into the file
    let _ = std::fs::remove_file(bad.with_extension("db-wal"));
    let _ = std::fs::remove_file(bad.with_extension("db-shm"));
    let mut bytes = std::fs::read(&bad).unwrap();
    let len = bytes.len();
    for (i, b) in bytes[100..len].iter_mut().enumerate() {
        *b = (i * 7 % 251) as u8;
    }
    std::fs::write(&bad, &bytes).unwrap();
    let o = db_cmd(&bad, &["results", "list"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains(p(&bad)) && e.contains("corrupt"), "{e}");
    assert_eq!(std::fs::read(&bad).unwrap(), bytes, "left untouched");
}

#[cfg(target_os = "linux")]
#[test]
fn a_database_of_the_first_schema_is_upgraded_in_place() {
    use iogauge::store::{record::Record, Filter, Store, MIGRATIONS};
    let d = work_dir();
    let db = d.path().join("old.db");
    let o = delay_run(
        &db,
        d.path(),
        "fixed:100us",
        &["--no-save", "--output", "json"],
    );
    let record = Record::from_json(&ok(o), "run").unwrap();
    {
        let mut old = Store::open_upto(&db, 1).unwrap();
        old.save(&record, &[]).unwrap();
    }
    let version = |p: &PathBuf| -> i64 {
        rusqlite::Connection::open(p)
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(version(&db), 1);
    // Opened by today's iogauge: upgraded, the old run still there, the new tables usable.
    let mut store = Store::open(&db).unwrap();
    assert_eq!(version(&db), MIGRATIONS.len() as i64);
    let rows = store.list(&Filter::default()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].passes.len(), 1);
    store.save(&record, &["after-upgrade".into()]).unwrap();
    store.save_baseline("old", rows[0].id).unwrap();
    assert_eq!(store.baseline("old").unwrap(), rows[0].id);
    let tagged = store
        .list(&Filter {
            tag: Some("after-upgrade".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(tagged.len(), 1);
}

#[cfg(target_os = "linux")]
#[test]
fn several_processes_save_at_once() {
    let d = work_dir();
    let db = d.path().join("shared.db");
    let children: Vec<_> = (0..8)
        .map(|i| {
            let f = d.path().join(format!("f{i}.dat"));
            bin()
                .env("IOGAUGE_DB", &db)
                .args([
                    "run", "-c", "4M", "-d", "0.5", "-W", "0", "--engine", "delay",
                ])
                .args(["--delay", "fixed:50us", "-q", p(&f)])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(list_json(&db, &[]).len(), 8);
}

#[cfg(target_os = "linux")]
#[test]
fn saved_targets_are_absolute_so_check_runs_from_anywhere() {
    let d = work_dir();
    let db = d.path().join("results.db");
    let o = bin()
        .env("IOGAUGE_DB", &db)
        .current_dir(d.path())
        .args([
            "run", "-c", "2M", "-d", "0.3", "-W", "0", "--keep", "rel.dat",
        ])
        .output()
        .unwrap();
    let id = saved_id(&o);
    let file = d.path().join("rel.dat");
    assert_eq!(list_json(&db, &[])[0]["target"], p(&file));
    ok(db_cmd(&db, &["baseline", "save", "rel", &id.to_string()]));
    let o = bin()
        .env("IOGAUGE_DB", &db)
        .current_dir("/")
        .args(["check", "--baseline", "rel", "--tolerance", "99%", "-q"])
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0) | Some(3)),
        "{}{}",
        out(&o),
        stderr(&o)
    );
    assert!(!Path::new("/rel.dat").exists(), "ran in the wrong folder");
    let rows = list_json(&db, &["--tag", "check:rel"]);
    assert_eq!(rows[0]["target"], p(&file));
}

/// The files a create killed in process `pid` leaves beside `db` (see store/leftovers.rs).
#[cfg(target_os = "linux")]
fn leftovers(db: &Path, pid: u32) -> Vec<PathBuf> {
    let name = db.file_name().unwrap().to_string_lossy();
    ["", "-journal", "-wal", "-shm"]
        .iter()
        .map(|s| db.with_file_name(format!(".{name}.new-{pid}-1764300000000000000{s}")))
        .collect()
}

/// A create killed (kill -9) leaves `.NAME.new-PID-NANOS` and SQLite's companions of it;
/// the next open clears those of a dead process, and nothing else: not those of a live one
/// (it may be creating the database now), not other names, not another user's files.
#[cfg(target_os = "linux")]
#[test]
fn leftovers_of_a_killed_create_are_cleared_on_the_next_open() {
    let d = work_dir();
    let db = d.path().join("results.db");
    ok(db_cmd(&db, &["results", "list"]));
    let mut dead = std::process::Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let live = leftovers(&db, std::process::id());
    let gone = leftovers(&db, dead_pid);
    let name = "results.db";
    let mut kept: Vec<PathBuf> = [
        format!(".{name}.new-{dead_pid}-17.bak"),
        format!(".{name}.new-{dead_pid}-17-wal2"),
        format!(".other.db.new-{dead_pid}-17"),
        format!("{name}.new-{dead_pid}-17"),
    ]
    .iter()
    .map(|n| d.path().join(n))
    .collect();
    kept.extend(live.iter().cloned());
    for f in gone.iter().chain(&kept) {
        std::fs::write(f, "x").unwrap();
    }
    // Another user's file of the very pattern is theirs to remove, not iogauge's.
    let foreign = d.path().join(format!(".{name}.new-{dead_pid}-18"));
    if is_root() {
        std::fs::write(&foreign, "x").unwrap();
        std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).unwrap();
        kept.push(foreign);
    }
    ok(db_cmd(&db, &["results", "list"]));
    for f in &gone {
        assert!(!f.exists(), "{} was left", f.display());
    }
    for f in &kept {
        assert!(f.exists(), "{} was removed", f.display());
    }
    assert_eq!(list_json(&db, &[]).len(), 0, "the database itself is whole");
}

/// `cmd` run as the user nobody (65534).
#[cfg(target_os = "linux")]
fn as_nobody(mut cmd: std::process::Command) -> std::process::Command {
    use std::os::unix::process::CommandExt;
    cmd.uid(65534).gid(65534);
    cmd
}

/// Reading needs no write access: a root-owned database in a root-owned folder, both only
/// readable to others, is listed, shown, exported and compared by another user, and left as
/// it was; one of an older schema, which that user cannot upgrade, is refused in one line.
#[cfg(target_os = "linux")]
#[test]
fn a_user_who_may_only_read_the_database_lists_shows_and_compares() {
    use std::os::unix::fs::PermissionsExt;
    if !is_root() {
        println!("SKIPPED: needs root to run iogauge as another user");
        return;
    }
    let d = work_dir();
    let db = d.path().join("results.db");
    let id = saved_id(&delay_run(&db, d.path(), "fixed:100us", &[]));
    ok(db_cmd(&db, &["results", "list"])); // the last connection: no -wal, no -shm
    for (p, mode) in [(d.path(), 0o755), (db.as_path(), 0o644)] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let mut probe = as_nobody(bin());
    if !probe
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        println!(
            "SKIPPED: the user nobody cannot run {}",
            p(Path::new(env!("CARGO_BIN_EXE_iogauge")))
        );
        return;
    }
    let before = digest(&db);
    let id = id.to_string();
    for args in [
        vec!["results", "list", "--all"],
        vec!["results", "show", &id],
        vec!["results", "export", &id],
        vec!["compare", &id, &id],
    ] {
        let mut c = as_nobody(bin());
        c.env("IOGAUGE_DB", &db).args(&args);
        let o = c.output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(!o.stdout.is_empty(), "{args:?} printed nothing");
    }
    assert_eq!(digest(&db), before, "read only");
    // An older schema: upgrading it needs a write this user may not do.
    let old = d.path().join("old.db");
    drop(iogauge::store::Store::open_upto(&old, 1).unwrap());
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    let before = digest(&old);
    let mut c = as_nobody(bin());
    let o = c
        .env("IOGAUGE_DB", &old)
        .args(["results", "list"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains(p(&old)) && e.contains("older than this"), "{e}");
    assert_eq!(digest(&old), before);
}

/// An SQLite file with iogauge's application_id, no schema version and no tables is one
/// iogauge began and never finished: a run saves into it. One whose schema version promises
/// tables it lacks is damaged: a run and an import are refused before any I/O, in one line
/// naming the file, and the file is left as it was.
#[cfg(target_os = "linux")]
#[test]
fn an_unfinished_database_is_made_and_a_damaged_one_refused() {
    let d = work_dir();
    let stamp = |path: &Path, version: i64| {
        let c = rusqlite::Connection::open(path).unwrap();
        c.execute_batch(&format!(
            "PRAGMA application_id = {}; PRAGMA user_version = {version};",
            0x696f_6761
        ))
        .unwrap();
    };
    let unfinished = d.path().join("unfinished.db");
    stamp(&unfinished, 0);
    saved_id(&delay_run(&unfinished, d.path(), "fixed:100us", &[]));
    assert_eq!(list_json(&unfinished, &[]).len(), 1);

    let doc = d.path().join("run.json");
    std::fs::write(
        &doc,
        ok(delay_run(
            &d.path().join("none.db"),
            d.path(),
            "fixed:100us",
            &["--no-save", "--output", "json"],
        )),
    )
    .unwrap();
    let damaged = d.path().join("damaged.db");
    stamp(&damaged, MIGRATIONS_LEN);
    let target = d.path().join("never.dat");
    let before = digest(&damaged);
    for args in [
        vec!["run", "-c", "1M", "-d", "0.2", "-W", "0", p(&target)],
        vec!["results", "import", p(&doc)],
        vec!["results", "list"],
    ] {
        let o = db_cmd(&damaged, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(p(&damaged)) && e.contains("damaged"), "{e}");
        assert!(!target.exists(), "no I/O before the database is known good");
        assert_eq!(digest(&damaged), before, "left untouched");
    }
}

#[cfg(target_os = "linux")]
const MIGRATIONS_LEN: i64 = iogauge::store::MIGRATIONS.len() as i64;

#[cfg(not(target_os = "linux"))]
#[test]
#[ignore = "Linux only: databases of another user, and read by one who may not write them"]
fn linux_only() {}
