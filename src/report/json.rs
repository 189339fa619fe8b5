//! The JSON report: [`RunResult`] serialized as is. Its shape is documented by
//! `schema/run-result.schema.json`, checked against real output by the tests.

use super::Exporter;
use crate::result::RunResult;

pub struct Json;

impl Exporter for Json {
    fn render(&self, r: &RunResult) -> String {
        let mut s = serde_json::to_string_pretty(r).expect("a run result always serializes");
        s.push('\n');
        s
    }
}
