//! The JSON report: a result serialized as is. A run's shape is documented by
//! `schema/run-result.schema.json`, checked against real output by the tests.

use super::Exporter;
use serde::Serialize;

pub struct Json;

impl<R: Serialize + ?Sized> Exporter<R> for Json {
    fn render(&self, r: &R) -> String {
        let mut s = serde_json::to_string_pretty(r).expect("results always serialize");
        s.push('\n');
        s
    }
}
