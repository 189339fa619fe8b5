//! Saving what a measuring command measured, without losing it when the save fails: the
//! store is opened (and checked) before any I/O, and a save that fails writes the result as
//! JSON beside the database instead.

use crate::error::{Error, Result};
use crate::store::record::Record;
use crate::store::{self, Store};
use std::path::{Path, PathBuf};

/// The store's file: --db or IOGAUGE_DB (clap reads both), else the XDG default.
pub fn db_path(db: &Option<PathBuf>) -> Result<PathBuf> {
    match db {
        Some(p) => Ok(p.clone()),
        None => store::default_path(),
    }
}

/// The store, opened for writing.
pub fn open(db: &Option<PathBuf>) -> Result<Store> {
    Store::open(&db_path(db)?)
}

/// Where and whether a command saves: `--db`, `--tag` (repeatable), `--no-save`.
#[derive(Clone, Debug, Default)]
pub struct Saving {
    pub db: Option<PathBuf>,
    pub tags: Vec<String>,
    pub no_save: bool,
}

/// Saves what a measuring command measured. The store is opened before the run, so that a
/// bad database file is reported before any I/O rather than after an hour of it.
pub struct Saver {
    store: Option<Store>,
    tags: Vec<String>,
    quiet: bool,
}

impl Saver {
    pub fn new(opts: &Saving, quiet: bool) -> Result<Saver> {
        for t in &opts.tags {
            if t.trim().is_empty() {
                return Err(Error::usage("--tag needs a non-empty tag"));
            }
        }
        let store = match opts.no_save {
            true => None,
            false => {
                let s = open(&opts.db)?;
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

/// Write `text` to a new file `path`; a file already there is never touched, and a partial
/// one iogauge made is removed.
fn write_new(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create_new(path)?;
    let written = f.write_all(text.as_bytes()).and_then(|_| f.sync_all());
    if written.is_err() {
        let mut folders = crate::os::owned::Folders::default();
        if let Ok(o) = crate::os::owned::Owned::file(path, &f, &mut folders) {
            let _ = o.remove();
        }
    }
    written
}
