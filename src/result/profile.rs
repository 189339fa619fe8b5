//! A profile's result ([`crate::profile`]): each pass's `RunResult`, with what the profile
//! ran with, so `iogauge check` can run it again. Described by
//! `schema/profile-result.schema.json`.

use super::Header;
use super::RunResult;
use serde::{Deserialize, Serialize};

/// What a pass measures, which decides the figure its table row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// MB/s.
    Throughput,
    /// IOPS (and MB/s), in IOPS mode.
    Iops,
    /// Latency percentiles, in latency mode.
    Latency,
}

/// What a profile is run with. Saved with its results, so `iogauge check` can run it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Size of the test file.
    pub size: u64,
    /// Seconds per pass (for `burst`, the most it may run).
    pub seconds: f64,
    /// A caching mode for every pass instead of the profile's (direct).
    pub cache: Option<String>,
    /// `burst`: the window over which throughput must settle.
    pub steady_window_s: f64,
    pub memory_bytes: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PassResult {
    pub label: String,
    pub measure: Measure,
    /// The `iogauge run` command line that does this pass on its own.
    pub command: String,
    pub result: RunResult,
}

pub const SCHEMA_NAME: &str = "iogauge-profile-result";
/// Version 2 added `dir` and `params`, so a saved profile can be run again; 3: each pass's
/// result has its `phases` (run schema 2); 4: the header every kind opens with (tool_version,
/// started_unix_ns, command_line, system after schema and schema_version).
pub const SCHEMA_VERSION: u32 = 4;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProfileResult {
    /// Schema, versions, start, command line, system: the keys every kind opens with (a
    /// profile saved before version 4 has only the first two; the rest load empty).
    #[serde(flatten)]
    pub header: Header,
    pub profile: String,
    /// The folder the profile ran in, and with what.
    pub dir: String,
    pub params: Params,
    pub target: String,
    pub size_bytes: u64,
    /// True when a pass was cut short or not run.
    pub partial: bool,
    pub stop_message: Option<String>,
    pub passes: Vec<PassResult>,
}
