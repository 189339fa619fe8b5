//! `iogauge compare`: saved results side by side, the first as the reference. Sweeps,
//! file-system suite results and workloads each have a comparison of their own, and are
//! compared only with their own kind.

use super::saved::{column, open_read};
use super::write_output;
use iogauge::cli::{CompareArgs, TableFormat};
use iogauge::error::{exit, Error, Result};
use iogauge::report::compare;
use iogauge::report::table::Grid;
use iogauge::store::record::Record;
use serde::Serialize;
use std::path::PathBuf;

pub fn cmd_compare(db: &Option<PathBuf>, a: &CompareArgs) -> Result<u8> {
    let store = open_read(db)?;
    let loaded = a
        .ids
        .iter()
        .map(|&id| store.load(id).map(|(_, r)| (id, r)))
        .collect::<Result<Vec<_>>>()?;
    let sweeps: Vec<(i64, &iogauge::result::sweep::SweepResult)> = loaded
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
        return show(a.output, &c, c.grid(), &c.legend());
    }
    let suites: Vec<(i64, &iogauge::result::fs::FsResult)> = loaded
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
        return show(a.output, &c, c.grid(), &c.legend());
    }
    let workloads: Vec<(i64, &iogauge::result::workload::WorkloadResult)> = loaded
        .iter()
        .filter_map(|(id, r)| match r {
            Record::Workload(w) => Some((*id, &**w)),
            _ => None,
        })
        .collect();
    if !workloads.is_empty() {
        if let Some((id, _)) = loaded
            .iter()
            .find(|(_, r)| !matches!(r, Record::Workload(_)))
        {
            return Err(Error::usage(format!(
                "run {id} is not a workload: compare takes workloads (iogauge workload) only \
                 with each other"
            )));
        }
        let c = iogauge::report::workload::compare::compare(&workloads);
        return show(a.output, &c, c.grid(), &c.legend());
    }
    let columns = a
        .ids
        .iter()
        .map(|&id| column(&store, id).map(|c| c.0))
        .collect::<Result<Vec<_>>>()?;
    let c = compare::compare(&columns);
    show(a.output, &c, c.grid(), &c.legend())
}

/// A comparison on stdout: its JSON, or its table and the legend under it.
fn show(format: TableFormat, c: &impl Serialize, grid: Grid, legend: &str) -> Result<u8> {
    let legend = legend.trim_end();
    let text = match format {
        TableFormat::Json => serde_json::to_string_pretty(c).expect("serializes") + "\n",
        TableFormat::Markdown => format!("{}\n{legend}\n", grid.markdown()),
        TableFormat::Text => format!("{}\n{legend}\n", grid.text()),
    };
    write_output("-", &text)?;
    Ok(exit::OK)
}
