//! `iogauge compare`: saved results side by side, the first as the reference.

use super::saved::{column, open};
use super::write_output;
use iogauge::cli::{CompareArgs, TableFormat};
use iogauge::error::{exit, Error, Result};
use iogauge::report::compare;
use iogauge::store::record::Record;
use std::path::PathBuf;

pub fn cmd_compare(db: &Option<PathBuf>, a: &CompareArgs) -> Result<u8> {
    let store = open(db)?;
    let loaded = a
        .ids
        .iter()
        .map(|&id| store.load(id).map(|(_, r)| (id, r)))
        .collect::<Result<Vec<_>>>()?;
    let sweeps: Vec<(i64, &iogauge::sweep::SweepResult)> = loaded
        .iter()
        .filter_map(|(id, r)| match r {
            Record::Sweep(s) => Some((*id, &**s)),
            _ => None,
        })
        .collect();
    if !sweeps.is_empty() {
        if let Some((id, _)) = loaded.iter().find(|(_, r)| !matches!(r, Record::Sweep(_))) {
            return Err(Error::usage(format!(
                "run {id} is not a sweep: compare takes sweeps (iogauge sweep, iogauge iozone) \
                 only with each other"
            )));
        }
        let c = iogauge::report::sweep::compare(&sweeps);
        let text = match a.output {
            TableFormat::Json => serde_json::to_string_pretty(&c).expect("serializes") + "\n",
            TableFormat::Markdown => format!("{}\n{}", c.grid().markdown(), c.legend()),
            TableFormat::Text => format!("{}\n{}", c.grid().text(), c.legend()),
        };
        write_output("-", &text)?;
        return Ok(exit::OK);
    }
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
