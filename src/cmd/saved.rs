//! The commands around the results store: saving after a run, results, compare, baseline,
//! check and report.

use crate::{interrupt_flag, write_output};
use iogauge::cli::{
    BaselineArgs, BaselineCommand, CheckArgs, CompareArgs, ListArgs, OutputFormat, ReportArgs,
    ResultsArgs, ResultsCommand, SaveOpts, ShowArgs, TableFormat,
};
use iogauge::compare::{self, Column};
use iogauge::dates::{format_utc, now_unix_ns, parse_when};
use iogauge::error::{exit, Error, Result};
use iogauge::profile;
use iogauge::progress::Progress;
use iogauge::report::Exporter;
use iogauge::result::StopReason;
use iogauge::runner::{self, target::Cleanup, Observer};
use iogauge::store::figures::{format_count, Figures};
use iogauge::store::record::Record;
use iogauge::store::{self, Filter, Listed, Store};
use std::path::{Path, PathBuf};

/// The store's file: --db or IOGAUGE_DB (clap reads both), else the XDG default.
fn db_path(db: &Option<PathBuf>) -> Result<PathBuf> {
    match db {
        Some(p) => Ok(p.clone()),
        None => store::default_path(),
    }
}

pub fn open(db: &Option<PathBuf>) -> Result<Store> {
    Store::open(&db_path(db)?)
}

/// Saves what a measuring command measured. The store is opened before the run, so that a
/// bad database file is reported before any I/O rather than after an hour of it.
pub struct Saver {
    store: Option<Store>,
    tags: Vec<String>,
    quiet: bool,
}

impl Saver {
    pub fn new(db: &Option<PathBuf>, opts: &SaveOpts, quiet: bool) -> Result<Saver> {
        for t in &opts.tags {
            if t.trim().is_empty() {
                return Err(Error::usage("--tag needs a non-empty tag"));
            }
        }
        let store = match opts.no_save {
            true => None,
            false => {
                let s = open(db)?;
                // A database that would be refused at the save is refused before the run.
                s.verify()?;
                Some(s)
            }
        };
        Ok(Saver {
            store,
            tags: opts.tags.clone(),
            quiet,
        })
    }

    pub fn with_tag(mut self, tag: String) -> Saver {
        self.tags.push(tag);
        self
    }

    /// Save after the report was printed. When saving fails (a full disk, a locked or broken
    /// database) the results are written as JSON next to the database instead, and the error
    /// says where: nothing measured is lost.
    pub fn save(&mut self, record: &Record) -> Result<Option<i64>> {
        let Some(store) = self.store.as_mut() else {
            return Ok(None);
        };
        match store.save(record, &self.tags) {
            Ok(id) => {
                if !self.quiet {
                    eprintln!(
                        "iogauge: saved as run {id} (iogauge results show {id}; database {})",
                        store.path().display()
                    );
                }
                Ok(Some(id))
            }
            Err(e) => {
                store.release_space();
                let file = store
                    .path()
                    .with_file_name(format!("iogauge-unsaved-{}.json", record.started_unix_ns()));
                Err(match write_new(&file, &record.to_json_compact()) {
                    Ok(()) => Error::runtime(format!(
                        "{e}; the results were printed and written to '{}' instead (iogauge \
                         results import adds them later)",
                        file.display()
                    )),
                    Err(we) => Error::runtime(format!(
                        "{e}; the results were printed above, but could not be written to \
                             '{}' either: {we}",
                        file.display()
                    )),
                })
            }
        }
    }
}

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
    let store = open(db)?;
    let rows = store.list(&filter)?;
    let text = match a.output {
        OutputFormat::Json => serde_json::to_string_pretty(&rows).expect("serializes") + "\n",
        OutputFormat::Csv | OutputFormat::FioJson => {
            return Err(Error::usage("results list writes text or json"))
        }
        OutputFormat::Text => {
            let mut g = iogauge::report::table::Grid::new(
                ["id", "started (UTC)", "what", "target", "figures", "tags"]
                    .map(String::from)
                    .to_vec(),
            );
            g.right = vec![0];
            for r in &rows {
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
    };
    write_output("-", &text)?;
    Ok(exit::OK)
}

fn show(db: &Option<PathBuf>, a: &ShowArgs, default: OutputFormat) -> Result<u8> {
    let store = open(db)?;
    let (listed, record) = store.load(a.id)?;
    let text = match (a.output.unwrap_or(default), &record) {
        (OutputFormat::Json, r) => r.to_json(),
        (OutputFormat::Csv, Record::Run(r)) => iogauge::report::csv::Csv.render(r),
        (OutputFormat::Csv, Record::Profile(p)) => iogauge::report::csv::profile(p),
        (OutputFormat::Csv, Record::Fs(f)) => iogauge::report::fs::csv(f),
        (OutputFormat::FioJson, Record::Run(r)) => iogauge::report::fio::FioJson.render(r),
        (OutputFormat::FioJson, _) => {
            return Err(Error::usage(format!(
                "result {} is not a run: fio-json is written for runs (iogauge run, iogauge fio)",
                a.id
            )))
        }
        (OutputFormat::Text, r) => {
            let mut o = format!(
                "Saved run {} from {} UTC{}\n\n",
                listed.id,
                format_utc(listed.started_unix_ns),
                if listed.tags.is_empty() {
                    String::new()
                } else {
                    format!(", tags: {}", listed.tags.join(", "))
                }
            );
            o.push_str(&match r {
                Record::Run(r) => iogauge::report::text::Text.render(r),
                Record::Profile(p) => iogauge::report::table::profile_text(p),
                Record::Fs(f) => iogauge::report::fs::text(f),
            });
            o
        }
    };
    write_output("-", &text)?;
    Ok(exit::OK)
}

fn column(store: &Store, id: i64) -> Result<(Column, Listed, Record)> {
    let (listed, record) = store.load(id)?;
    let repeats = store.repeats(&listed.workload_key)?;
    let passes = record
        .passes()
        .iter()
        .map(|p| (p.label.clone(), Figures::of(p.result)))
        .collect();
    Ok((
        Column {
            id,
            title: format!("#{id} {}", record.name()),
            passes,
            repeats,
        },
        listed,
        record,
    ))
}

pub fn cmd_compare(db: &Option<PathBuf>, a: &CompareArgs) -> Result<u8> {
    let store = open(db)?;
    let loaded = a
        .ids
        .iter()
        .map(|&id| store.load(id).map(|(_, r)| (id, r)))
        .collect::<Result<Vec<_>>>()?;
    let suites: Vec<(i64, &iogauge::fs_suite::FsResult)> = loaded
        .iter()
        .filter_map(|(id, r)| match r {
            Record::Fs(f) => Some((*id, &**f)),
            _ => None,
        })
        .collect();
    if !suites.is_empty() {
        if suites.len() != loaded.len() {
            let (id, _) = loaded
                .iter()
                .find(|(_, r)| !matches!(r, Record::Fs(_)))
                .expect("one is not a suite result");
            return Err(Error::usage(format!(
                "run {id} is not a file-system suite result: compare takes suite results \
                 (iogauge fs) only with each other"
            )));
        }
        let c = iogauge::report::fs::compare(&suites);
        let text = match a.output {
            TableFormat::Json => serde_json::to_string_pretty(&c).expect("serializes") + "\n",
            TableFormat::Markdown => format!("{}\n{}\n", c.grid().markdown(), c.legend()),
            TableFormat::Text => format!("{}\n{}\n", c.grid().text(), c.legend()),
        };
        write_output("-", &text)?;
        return Ok(exit::OK);
    }
    let columns = a
        .ids
        .iter()
        .map(|&id| column(&store, id).map(|c| c.0))
        .collect::<Result<Vec<_>>>()?;
    let c = compare::compare(&columns);
    let text = match a.output {
        TableFormat::Json => serde_json::to_string_pretty(&c).expect("serializes") + "\n",
        TableFormat::Markdown => format!("{}\n{}\n", c.grid().markdown(), c.legend()),
        TableFormat::Text => format!("{}\n{}\n", c.grid().text(), c.legend()),
    };
    write_output("-", &text)?;
    Ok(exit::OK)
}

pub fn cmd_baseline(db: &Option<PathBuf>, a: &BaselineArgs) -> Result<u8> {
    let mut store = open(db)?;
    match &a.command {
        BaselineCommand::Save { name, id } => {
            if name.trim().is_empty() {
                return Err(Error::usage("a baseline needs a non-empty name"));
            }
            store.save_baseline(name, *id)?;
            println!("baseline '{name}' is run {id}");
        }
        BaselineCommand::List => {
            let mut g = iogauge::report::table::Grid::new(
                ["baseline", "run", "saved (UTC)"]
                    .map(String::from)
                    .to_vec(),
            );
            for (name, id, at) in store.baselines()? {
                g.push(vec![name, id.to_string(), format_utc(at)]);
            }
            write_output("-", &g.text())?;
        }
        BaselineCommand::Delete { name } => {
            store.delete_baseline(name)?;
            println!("baseline '{name}' deleted (its run stays saved)");
        }
    }
    Ok(exit::OK)
}

/// "10%", "10" or "2.5%": a fraction.
fn parse_tolerance(text: &str) -> Result<f64> {
    let t = text.trim().trim_end_matches('%');
    match t.parse::<f64>() {
        Ok(v) if (0.0..100.0).contains(&v) => Ok(v / 100.0),
        _ => Err(Error::usage(format!(
            "invalid value '{text}' for --tolerance: expected a percentage from 0 to 100, like 10%"
        ))),
    }
}

/// The path a re-run writes to: TARGET where given, and a temporary file named for this
/// process (as the original was for its own).
fn retarget(old: &Path, temporary: bool, new: Option<&PathBuf>) -> PathBuf {
    let tmp_name = || PathBuf::from(format!("iogauge-{}.tmp", std::process::id()));
    match (temporary, new) {
        (true, Some(n)) if n.is_dir() => n.join(tmp_name()),
        (true, None) => old.parent().map_or_else(tmp_name, |d| d.join(tmp_name())),
        (_, Some(n)) => n.clone(),
        (false, None) => old.to_path_buf(),
    }
}

pub fn cmd_check(db: &Option<PathBuf>, a: &CheckArgs, argv: Vec<String>) -> Result<u8> {
    let tolerance = parse_tolerance(&a.tolerance)?;
    // Absolute, like every saved target, so the new run can be checked again from anywhere.
    let targets = a
        .targets
        .iter()
        .map(|t| crate::absolute(t))
        .collect::<Result<Vec<PathBuf>>>()?;
    let mut saver = Saver::new(db, &a.save, a.quiet)?.with_tag(format!("check:{}", a.baseline));
    let store = open(db)?;
    let id = store.baseline(&a.baseline)?;
    let (base_col, _, base) = column(&store, id)?;
    // check judges IOPS and latency; a suite result holds times per test.
    if let Record::Fs(_) = &base {
        return Err(Error::usage(format!(
            "run {id} is a file-system suite result (iogauge fs); check takes run and profile \
             results: see it with iogauge results show {id}, iogauge compare or iogauge \
             report {id}"
        )));
    }
    drop(store);
    let interrupted = interrupt_flag()?;
    let mut progress = Progress::new(a.quiet);
    let (now, failure) = match &base {
        Record::Run(r) => {
            let mut job = r.job.clone();
            if !targets.is_empty() && targets.len() != job.targets.len() {
                return Err(Error::usage(format!(
                    "baseline '{}' ran on {} target(s); give as many TARGETs, or none to use its own",
                    a.baseline,
                    job.targets.len()
                )));
            }
            for (i, t) in job.targets.iter_mut().enumerate() {
                t.path = retarget(&t.path, t.temporary, targets.get(i));
            }
            if !targets.is_empty() {
                // Consent to overwrite was given for the baseline's files, not for these.
                job.allow_overwrite = a.allow_overwrite;
            }
            job.validate()?;
            let mut cleanup = Cleanup::new(job.keep);
            let result =
                runner::run_observed(&job, argv, &interrupted, &mut cleanup, &mut progress);
            progress.end();
            (Record::Run(Box::new(result?)), None)
        }
        Record::Profile(p) => {
            if targets.len() > 1 {
                return Err(Error::usage(format!(
                    "baseline '{}' is the {} profile: give one folder, or none to use '{}'",
                    a.baseline, p.profile, p.dir
                )));
            }
            let dir = targets
                .first()
                .cloned()
                .unwrap_or_else(|| PathBuf::from(&p.dir));
            let prof = profile::find(&p.profile)?;
            let (result, failure) =
                profile::run(prof, &p.params, &dir, &interrupted, &mut progress)?;
            (Record::Profile(Box::new(result)), failure)
        }
        Record::Fs(_) => unreachable!("refused above"),
    };
    let saved = saver.save(&now);
    if let Some(e) = failure {
        return Err(e);
    }
    let now_passes: Vec<(String, Figures)> = now
        .passes()
        .iter()
        .map(|p| (p.label.clone(), Figures::of(p.result)))
        .collect();
    let rows = compare::check(&base_col.passes, &now_passes, tolerance);
    let failed = rows.iter().filter(|r| r.failed).count();
    let mut o = format!(
        "Check against baseline '{}' (run {id}, {} UTC), tolerance {:.1}%:\n\n",
        a.baseline,
        format_utc(base.started_unix_ns()),
        tolerance * 100.0
    );
    o.push_str(&compare::check_grid(&rows).text());
    let partial = now.partial();
    o.push('\n');
    if partial {
        o.push_str("INCOMPLETE: the new run did not finish; nothing was judged\n");
    } else if rows.is_empty() {
        o.push_str("FAILED: no figure of the new run matches the baseline's passes\n");
    } else if failed > 0 {
        o.push_str(&format!(
            "FAILED: {failed} figure(s) fell short of the baseline by more than {:.1}%\n",
            tolerance * 100.0
        ));
    } else {
        o.push_str("PASSED: every figure is within tolerance of the baseline\n");
    }
    write_output("-", &o)?;
    saved?;
    if partial {
        return Ok(
            if matches!(&now, Record::Run(r) if r.stop_reason == StopReason::IoError) {
                exit::FAILURE
            } else {
                exit::INTERRUPTED
            },
        );
    }
    Ok(if failed > 0 || rows.is_empty() {
        exit::CHECK_FAILED
    } else {
        exit::OK
    })
}

pub fn cmd_report(db: &Option<PathBuf>, a: &ReportArgs) -> Result<u8> {
    if a.html.is_none() && a.markdown.is_none() && a.png.is_none() {
        return Err(Error::usage(
            "report needs at least one of --html FILE, --markdown FILE, --png DIR",
        ));
    }
    let store = open(db)?;
    let mut loaded = Vec::new();
    for &id in &a.ids {
        let (col, listed, record) = column(&store, id)?;
        loaded.push(iogauge::report::html::Loaded {
            listed,
            record,
            column: col,
        });
    }
    let report = iogauge::report::html::Report::new(&loaded);
    if let Some(path) = &a.html {
        let html = report.html();
        std::fs::write(path, html).map_err(|e| {
            Error::runtime(format!(
                "cannot write the report to '{}': {e}",
                path.display()
            ))
        })?;
        eprintln!("iogauge: wrote {}", path.display());
    }
    if let Some(path) = &a.markdown {
        write_output(&path.display().to_string(), &report.markdown())?;
    }
    if let Some(dir) = &a.png {
        let files = report.pngs(dir)?;
        eprintln!("iogauge: wrote {} charts to {}", files.len(), dir.display());
    }
    Ok(exit::OK)
}

/// Write `text` to a new file `path`; a file already there is never touched, and a partial
/// one iogauge made is removed.
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create_new(path)?;
    let written = f.write_all(text.as_bytes()).and_then(|_| f.sync_all());
    if written.is_err() {
        let mut folders = iogauge::os::owned::Folders::default();
        if let Ok(o) = iogauge::os::owned::Owned::file(path, &f, &mut folders) {
            let _ = o.remove();
        }
    }
    written
}
