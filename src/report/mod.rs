//! Reports: one file per format behind one trait. Each renders a finished [`RunResult`];
//! none of them measures or changes anything.

pub mod charts;
pub mod csv;
pub mod diskspd_profile;
pub mod diskspd_xml;
pub mod fio;
pub mod fs;
pub mod html;
pub mod json;
pub mod sink;
pub mod table;
pub mod text;

use crate::cli::OutputFormat;
use crate::result::RunResult;

pub trait Exporter {
    fn render(&self, result: &RunResult) -> String;
}

pub fn exporter(format: OutputFormat) -> Box<dyn Exporter> {
    match format {
        OutputFormat::Text => Box::new(text::Text),
        OutputFormat::Json => Box::new(json::Json),
        OutputFormat::Csv => Box::new(csv::Csv),
        OutputFormat::FioJson => Box::new(fio::FioJson),
    }
}
