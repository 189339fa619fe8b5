//! The results store as the commands see it: where it is, saving what a command measured
//! (without losing it when the save fails), and loading a saved result for comparison.

use iogauge::cli::SaveOpts;
use iogauge::error::{Error, Result};
use iogauge::report::compare::Column;
use iogauge::store::figures::Figures;
use iogauge::store::record::Record;
use iogauge::store::{self, Listed, Store};
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

/// The store for a command that only reads it (list, show, compare...): never written, so
/// that a user who may only read the file can use it.
pub fn open_read(db: &Option<PathBuf>) -> Result<Store> {
    Store::open_read(&db_path(db)?)
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

/// Saved result `id` as a column of a comparison, with its listing and the record.
pub fn column(store: &Store, id: i64) -> Result<(Column, Listed, Record)> {
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
