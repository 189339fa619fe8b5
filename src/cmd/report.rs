//! `iogauge report`: saved results as one HTML file, Markdown, or PNG charts.

use super::saved::{column, open_read};
use super::write_output;
use iogauge::cli::ReportArgs;
use iogauge::error::{exit, Error, Result};
use std::path::PathBuf;

pub fn cmd_report(db: &Option<PathBuf>, a: &ReportArgs) -> Result<u8> {
    if a.html.is_none() && a.markdown.is_none() && a.png.is_none() {
        return Err(Error::usage(
            "report needs at least one of --html FILE, --markdown FILE, --png DIR",
        ));
    }
    let store = open_read(db)?;
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
