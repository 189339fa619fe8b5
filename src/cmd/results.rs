//! `iogauge results`: list, show, export, delete and import saved results.

use super::saved::{open, open_read};
use super::write_output;
use iogauge::cli::{ListArgs, OutputFormat, ResultsArgs, ResultsCommand, ShowArgs};
use iogauge::dates::{format_utc, now_unix_ns, parse_when};
use iogauge::error::{exit, Error, Result};
use iogauge::profile::ProfileResult;
use iogauge::report::{json::Json, Exporter, Subject};
use iogauge::result::fs::FsResult;
use iogauge::result::sweep::SweepResult;
use iogauge::result::RunResult;
use iogauge::store::figures::format_count;
use iogauge::store::record::Record;
use iogauge::store::{Filter, Listed, Store};
use std::path::PathBuf;

pub fn cmd_results(db: &Option<PathBuf>, args: &ResultsArgs) -> Result<u8> {
    match &args.command {
        ResultsCommand::List(l) => list(db, l),
        ResultsCommand::Show(s) => show(db, s, OutputFormat::Text),
        ResultsCommand::Export(s) => show(db, s, OutputFormat::Json),
        ResultsCommand::Delete { ids } => {
            let mut store = open(db)?;
            for id in ids {
                store.delete(*id)?;
                eprintln!("iogauge: deleted run {id}");
            }
            Ok(exit::OK)
        }
        ResultsCommand::Import { files, tags } => {
            // Every file is read and checked before any is saved: all or nothing.
            let mut records = Vec::new();
            for f in files {
                let text = std::fs::read_to_string(f)
                    .map_err(|e| Error::usage(format!("cannot read '{}': {e}", f.display())))?;
                records.push(Record::import(&text, &f.display().to_string())?);
            }
            let mut store = open(db)?;
            for (f, r) in files.iter().zip(&records) {
                let id = store.save(r, tags)?;
                println!("imported '{}' as run {id}", f.display());
            }
            Ok(exit::OK)
        }
    }
}

/// A one-line summary of a saved result's figures.
fn headline(l: &Listed) -> String {
    if l.kind == "fs" {
        return format!("file-system suite: iogauge results show {}", l.id);
    }
    if l.kind == "sweep" {
        return format!("sweep (a matrix per test): iogauge results show {}", l.id);
    }
    if l.kind == "workload" {
        return format!("workload (times per step): iogauge results show {}", l.id);
    }
    match l.passes.as_slice() {
        [] => "no passes".into(),
        [p] => {
            let f = &p.figures;
            let mut s = format!(
                "{}: {} IOPS, {:.1} MB/s",
                p.label,
                format_count(f.iops),
                f.bps / 1e6
            );
            if let Some(p99) = f.lat_p99_ns {
                s.push_str(&format!(
                    ", p99 {}",
                    iogauge::store::figures::format_ns(p99 as f64)
                ));
            }
            s
        }
        ps => format!("{} passes", ps.len()),
    }
}

fn list(db: &Option<PathBuf>, a: &ListArgs) -> Result<u8> {
    let now = now_unix_ns();
    let filter = Filter {
        target: a.target.clone(),
        name: a.profile.clone(),
        tag: a.tag.clone(),
        since_ns: a
            .since
            .as_deref()
            .map(|s| parse_when(s, "--since", now))
            .transpose()?,
        until_ns: a
            .until
            .as_deref()
            .map(|s| parse_when(s, "--until", now))
            .transpose()?,
        limit: (!a.all).then_some(a.limit),
    };
    let store = open_read(db)?;
    let rows = store.list(&filter)?;
    Subject::Listing.check(a.output)?;
    let text = match a.output {
        OutputFormat::Json => Json.render(&rows),
        // The others were refused above.
        _ => listing_text(&rows, a, &store),
    };
    write_output("-", &text)?;
    Ok(exit::OK)
}

/// The saved results as a table, one line each, saying where more are.
fn listing_text(rows: &[Listed], a: &ListArgs, store: &Store) -> String {
    let mut g = iogauge::report::table::Grid::new(
        ["id", "started (UTC)", "what", "target", "figures", "tags"]
            .map(String::from)
            .to_vec(),
    );
    g.right = vec![0];
    for r in rows {
        let mut what = r.name.clone();
        if r.partial {
            what.push_str(" (partial)");
        }
        g.push(vec![
            r.id.to_string(),
            format_utc(r.started_unix_ns)[..16].to_string(),
            what,
            r.target.clone(),
            headline(r),
            r.tags.join(","),
        ]);
    }
    let mut t = if rows.is_empty() {
        format!("No saved results match in {}\n", store.path().display())
    } else {
        g.text()
    };
    if !a.all && rows.len() == a.limit {
        t.push_str(&format!(
            "(the newest {}; --all or --limit N for more)\n",
            a.limit
        ));
    }
    t
}

fn show(db: &Option<PathBuf>, a: &ShowArgs, default: OutputFormat) -> Result<u8> {
    let store = open_read(db)?;
    let (listed, record) = store.load(a.id)?;
    let format = a.output.unwrap_or(default);
    let body = match &record {
        Record::Run(r) => Subject::Run.exporter::<RunResult>(format)?.render(r),
        Record::Profile(p) => Subject::Saved(a.id)
            .exporter::<ProfileResult>(format)?
            .render(p),
        Record::Fs(f) => Subject::Saved(a.id).exporter::<FsResult>(format)?.render(f),
        Record::Sweep(s) => Subject::Saved(a.id)
            .exporter::<SweepResult>(format)?
            .render(s),
        Record::Workload(w) => Subject::Saved(a.id)
            .exporter::<iogauge::result::workload::WorkloadResult>(format)?
            .render(w),
    };
    let text = match format {
        OutputFormat::Text => saved_heading(&listed) + &body,
        _ => body,
    };
    write_output("-", &text)?;
    Ok(exit::OK)
}

/// What the text of a saved result begins with: which it is, from when, and its tags.
fn saved_heading(listed: &Listed) -> String {
    format!(
        "Saved run {} from {} UTC{}\n\n",
        listed.id,
        format_utc(listed.started_unix_ns),
        if listed.tags.is_empty() {
            String::new()
        } else {
            format!(", tags: {}", listed.tags.join(", "))
        }
    )
}
