//! A result file as `results import` reads and checks it, then every reader of a saved
//! result: show (text, JSON, CSV, fio-json), compare and the HTML and Markdown report. What
//! import accepts, every reader must render without a panic, and it must read back from the
//! JSON the store keeps.
#![no_main]

use iogauge::report::compare::{self, Column};
use iogauge::report::html::{Loaded, Report};
use iogauge::report::{csv, fio, fs, iozone, json, sweep, table, text, workload, Exporter};
use iogauge::store::figures::Figures;
use iogauge::store::record::Record;
use iogauge::store::{Listed, ListedPass};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(record) = Record::import(text, "fuzz.json") else {
        return;
    };
    // The store keeps the compact JSON and reads it back on every load.
    let saved = record.to_json_compact();
    if let Err(e) = Record::from_json(&saved, "the saved copy") {
        panic!("an imported result does not read back: {e}");
    }
    show(&record);
    compare_and_report(&record);
});

fn show(record: &Record) {
    let _ = record.to_json();
    let _ = (
        record.kind(),
        record.name(),
        record.target(),
        record.partial(),
    );
    let _ = (
        record.started_unix_ns(),
        record.hostname(),
        record.tool_version(),
    );
    let _ = (record.command_line(), record.workload_key());
    match record {
        Record::Run(r) => {
            for e in [
                &text::Text as &dyn Exporter,
                &json::Json,
                &csv::Csv,
                &fio::FioJson,
            ] {
                let _ = e.render(r);
            }
        }
        Record::Profile(p) => {
            let _ = table::profile_text(p);
            let _ = csv::profile(p);
        }
        Record::Fs(f) => {
            let _ = (fs::text(f), fs::markdown(f), fs::csv(f));
            let c = fs::compare(&[(1, f), (2, f)]);
            let _ = (c.grid().text(), c.grid().markdown(), c.legend());
            let _ = serde_json::to_string(&c);
        }
        Record::Sweep(s) => {
            let _ = (sweep::text(s), sweep::csv(s));
            for (ops, cpu) in [(false, false), (true, true)] {
                let l = iozone::Layout { ops, cpu };
                let _ = (iozone::table(s, l), iozone::excel(s, l));
                let _ = (iozone::throughput(s, l), iozone::cpu(s));
            }
            let c = sweep::compare(&[(1, s), (2, s)]);
            let _ = (c.grid().text(), c.grid().markdown(), c.legend());
            let _ = serde_json::to_string(&c);
        }
        Record::Workload(w) => {
            let _ = (workload::text(w), workload::csv(w));
            let c = workload::compare::compare(&[(1, w), (2, w)]);
            let _ = (c.grid().text(), c.grid().markdown(), c.legend());
            let _ = serde_json::to_string(&c);
        }
    }
}

/// The record twice, as if saved as runs 1 and 2: `compare 1 2` and `report 1 2`.
fn compare_and_report(record: &Record) {
    let passes: Vec<(String, Figures)> = record
        .passes()
        .iter()
        .map(|p| (p.label.clone(), Figures::of(p.result)))
        .collect();
    let listed = |id: i64| Listed {
        id,
        started_unix_ns: record.started_unix_ns(),
        kind: record.kind().into(),
        name: record.name().into(),
        target: record.target(),
        hostname: record.hostname(),
        partial: record.partial(),
        workload_key: record.workload_key(),
        tags: vec!["fuzz".into()],
        passes: passes
            .iter()
            .map(|(label, figures)| ListedPass {
                label: label.clone(),
                figures: *figures,
            })
            .collect(),
    };
    let column = |id: i64| Column {
        id,
        title: format!("#{id} {}", record.name()),
        passes: passes.clone(),
        limits: record
            .passes()
            .iter()
            .map(|p| p.result.limit.as_ref().map(|l| l.verdict))
            .collect(),
        repeats: vec![listed(1), listed(2)],
    };
    if !matches!(record, Record::Fs(_)) {
        let c = compare::compare(&[column(1), column(2)]);
        let _ = (c.grid().text(), c.grid().markdown(), c.legend());
        let _ = serde_json::to_string(&c);
    }
    let loaded: Vec<Loaded> = [1, 2]
        .map(|id| Loaded {
            listed: listed(id),
            record: record.clone(),
            column: column(id),
        })
        .into();
    let report = Report::new(&loaded);
    let _ = (report.html(), report.markdown());
}
