//! `results import` of result files edited or made by hand, end to end: a file whose parts do
//! not fit together is refused with one line naming it and what is wrong, and nothing is
//! saved; whatever is imported, every reader (results show in each format, export, list,
//! compare, report) reads without a panic.
//!
//! Linux only: every item here is; elsewhere the one test, `linux_only`, is ignored with the
//! reason.

#[cfg(target_os = "linux")]
mod common;

#[cfg(target_os = "linux")]
use common::*;
#[cfg(target_os = "linux")]
use serde_json::{json, Value};
#[cfg(target_os = "linux")]
use std::path::Path;
#[cfg(target_os = "linux")]
use std::process::Output;

/// Real results of each kind, from the binary itself: (name, document).
#[cfg(target_os = "linux")]
fn real_results(dir: &Path) -> Vec<(&'static str, Value)> {
    let json_of = |args: &[&str]| -> Value {
        let o = bin()
            .args(args)
            .args(["--output", "json", "--no-save"])
            .output();
        let o = o.expect("iogauge starts");
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        serde_json::from_slice(&o.stdout).expect("valid JSON")
    };
    let f = dir.join("f.dat");
    let run = json_of(&[
        "run",
        "-c",
        "4M",
        "-d",
        "0.5",
        "-W",
        "0",
        "-L",
        "--engine",
        "delay",
        "--delay",
        "fixed:100us",
        "--interval",
        "100",
        p(&f),
    ]);
    let profile = json_of(&["profile", "latency", p(dir), "--size", "4M", "-d", "0.2"]);
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let one = format!("one={}", p(&a));
    let two = format!("two={}", p(&b));
    let fs = json_of(&[
        "fs",
        "--files",
        "10",
        "--file-size",
        "64K",
        "--iterations",
        "1",
        "--repeat",
        "2",
        "--no-drop-caches",
        "--tests",
        "file_create,file_stat",
        &one,
        &two,
    ]);
    vec![("run", run), ("profile", profile), ("fs", fs)]
}

#[cfg(target_os = "linux")]
fn base<'a>(docs: &'a [(&str, Value)], kind: &str) -> &'a Value {
    &docs.iter().find(|(k, _)| *k == kind).unwrap().1
}

/// Write `doc` to NAME.json in `dir` and import it into `db`.
#[cfg(target_os = "linux")]
fn import(db: &Path, dir: &Path, name: &str, doc: &Value) -> (Output, String) {
    let file = dir.join(format!("{name}.json"));
    std::fs::write(&file, serde_json::to_string(doc).unwrap()).unwrap();
    let o = db_cmd(db, &["results", "import", p(&file)]);
    (o, p(&file).to_string())
}

#[cfg(target_os = "linux")]
fn saved_count(db: &Path) -> usize {
    let o = db_cmd(db, &["results", "list", "--all", "--output", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Value = serde_json::from_slice(&o.stdout).unwrap();
    rows.as_array().unwrap().len()
}

/// Each (edit, what the error says): refused with exit 2, one line naming the file and the
/// fault, and nothing saved.
#[cfg(target_os = "linux")]
fn assert_refused(docs: &[(&str, Value)], kind: &str, cases: Vec<(Value, &str)>) {
    let d = work_dir();
    let db = d.path().join("results.db");
    for (i, (edit, says)) in cases.into_iter().enumerate() {
        let mut doc = base(docs, kind).clone();
        merge(&mut doc, &edit);
        let (o, file) = import(&db, d.path(), &format!("{kind}-{i}"), &doc);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{kind} {edit}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(&file) && e.contains(says), "{kind} {edit}: {e}");
    }
    assert_eq!(saved_count(&db), 0);
}

/// Apply `edit` to `doc`: objects key by key, anything else replaced; `{"$index": N, ...}`
/// edits the Nth element of an array.
#[cfg(target_os = "linux")]
fn merge(doc: &mut Value, edit: &Value) {
    match edit {
        Value::Object(m) if m.contains_key("$index") => {
            let i = m["$index"].as_u64().unwrap() as usize;
            let mut rest = edit.clone();
            rest.as_object_mut().unwrap().remove("$index");
            merge(&mut doc.as_array_mut().unwrap()[i], &rest);
        }
        Value::Object(m) if doc.is_object() => {
            for (k, v) in m {
                match doc.get_mut(k) {
                    Some(inner) => merge(inner, v),
                    None => doc[k] = v.clone(),
                }
            }
        }
        v => *doc = v.clone(),
    }
}

/// Every reader of saved result `id`: each must succeed (fio-json is for runs only).
#[cfg(target_os = "linux")]
fn read_every_way(db: &Path, dir: &Path, id: &str, is_run: bool) {
    let html = dir.join(format!("r{id}.html"));
    let md = dir.join(format!("r{id}.md"));
    let readers: Vec<Vec<&str>> = vec![
        vec!["results", "list", "--all"],
        vec!["results", "show", id],
        vec!["results", "show", id, "--output", "json"],
        vec!["results", "export", id, "--output", "csv"],
        vec!["compare", id, id],
        vec!["compare", id, id, "--output", "json"],
        vec!["compare", id, id, "--output", "markdown"],
        vec!["report", id, id, "--html", p(&html), "--markdown", p(&md)],
    ];
    for args in readers {
        let o = db_cmd(db, &args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    let o = db_cmd(db, &["results", "show", id, "--output", "fio-json"]);
    assert_eq!(o.status.success(), is_run, "fio-json: {}", stderr(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn inconsistent_results_are_refused_on_import_and_extreme_ones_read_every_way() {
    let d = work_dir();
    let docs = real_results(d.path());
    fs_shapes_are_refused(&docs);
    run_shapes_are_refused(&docs);
    profile_shapes_are_refused(&docs);
    extreme_values_read_every_way(&docs);
}

#[cfg(target_os = "linux")]
fn fs_shapes_are_refused(docs: &[(&str, Value)]) {
    let cells = base(docs, "fs")["tests"][0]["cells"].clone();
    let one_cell = json!([cells[0]]);
    let three_cells = json!([cells[0], cells[1], cells[1]]);
    assert_refused(
        docs,
        "fs",
        vec![
            (
                json!({"reference": 2}),
                "its reference (2) is past its 2 file system(s)",
            ),
            (json!({"filesystems": []}), "its filesystems list is empty"),
            (
                json!({"tests": {"$index": 0, "cells": one_cell}}),
                "test 'file_create' has 1 cell(s) for 2 file system(s)",
            ),
            (
                json!({"tests": {"$index": 0, "cells": three_cells}}),
                "has 3 cell(s) for 2",
            ),
            (
                json!({"params": {"page_size": 0}}),
                "the page size must be more than 0",
            ),
        ],
    );
}

#[cfg(target_os = "linux")]
fn run_shapes_are_refused(docs: &[(&str, Value)]) {
    let no_histogram = "total.all.latency_histogram does not decode";
    let sample = |k: &str, v: Value| json!({"time_series": {"samples": {"$index": 0, k: v}}});
    let file_sets = json!({"files": 0, "service": {"kind": "sequential"}});
    assert_refused(
        docs,
        "run",
        vec![
            (json!({"targets": []}), "it lists no targets"),
            (
                json!({"job": {"targets": []}}),
                "its job is not one iogauge can run",
            ),
            (json!({"job": {"file_sets": file_sets}}), "--file-set 0"),
            (
                json!({"total": {"all": {"latency_histogram": "no!"}}}),
                no_histogram,
            ),
            (
                json!({"total": {"all": {"latency_histogram": "AAAA"}}}),
                no_histogram,
            ),
            (
                json!({"time_series": {"interval_ns": 0}}),
                "interval_ns is 0",
            ),
            (sample("duration_ns", json!(0)), "samples[0] lasts 0 ns"),
            (
                sample("start_ns", json!(u64::MAX)),
                "samples[0] ends after the measured window",
            ),
        ],
    );
}

#[cfg(target_os = "linux")]
fn profile_shapes_are_refused(docs: &[(&str, Value)]) {
    let pass = |edit: Value| json!({"passes": {"$index": 0, "result": edit}});
    assert_refused(
        docs,
        "profile",
        vec![
            (json!({"passes": []}), "the profile result has no passes"),
            (
                pass(json!({"targets": []})),
                "pass 1 ('RND4K Q1T1 read'): it lists no targets",
            ),
        ],
    );
}

/// Counts and times at the edge of u64, as a file made by hand may hold them: no sum or
/// middle of two may overflow in any reader.
#[cfg(target_os = "linux")]
fn extreme_values_read_every_way(docs: &[(&str, Value)]) {
    let d = work_dir();
    let db = d.path().join("results.db");
    let max = u64::MAX;
    let run = json!({
        "cpu": [{"cpu": 0, "user_ns": max, "kernel_ns": max, "idle_ns": max}],
        "time_series": {"samples": {"$index": 0, "read": {"ios": max, "bytes": max},
            "write": {"ios": max, "bytes": max}}},
    });
    let profile = json!({"passes": {"$index": 0, "result": run}});
    let fs = json!({"tests": {"$index": 0, "cells": {"$index": 0, "elapsed_ns": [max, max - 1]}}});
    for (i, (kind, edit)) in [("run", run), ("profile", profile), ("fs", fs)]
        .into_iter()
        .enumerate()
    {
        let mut doc = base(docs, kind).clone();
        merge(&mut doc, &edit);
        let (o, _) = import(&db, d.path(), kind, &doc);
        assert!(o.status.success(), "{kind}: {}", stderr(&o));
        read_every_way(&db, d.path(), &(i + 1).to_string(), kind == "run");
    }
}

#[cfg(not(target_os = "linux"))]
#[test]
#[ignore = "Linux only: results of iogauge fs, which runs on Linux"]
fn linux_only() {}
