//! The results store as the reading commands see it: opened read-only, and a saved result
//! loaded for comparison. Saving is the run context's (context/save.rs).

use iogauge::error::Result;
use iogauge::report::compare::Column;
use iogauge::store::figures::Figures;
use iogauge::store::record::Record;
use iogauge::store::{Listed, Store};
use std::path::PathBuf;

use iogauge::context::save::db_path;
pub use iogauge::context::save::open;

/// The store for a command that only reads it (list, show, compare...): never written, so
/// that a user who may only read the file can use it.
pub fn open_read(db: &Option<PathBuf>) -> Result<Store> {
    Store::open_read(&db_path(db)?)
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
            limits: record
                .passes()
                .iter()
                .map(|p| p.result.limit.as_ref().map(|l| l.verdict))
                .collect(),
            passes,
            repeats,
        },
        listed,
        record,
    ))
}
