//! fio's job-file reader and command-line reader, then the mapping of the jobs to iogauge's
//! JobSpec (`plan`): in memory only. The input is a job file; its lines, split at newlines,
//! are also read as a command line (one argument per line).
#![no_main]

use iogauge::spec::fio::options::{plan, MapOptions};
use iogauge::spec::fio::{read_args, read_str, Vars};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // `include` reads another file: not in memory, so not here.
    if text.lines().any(|l| l.trim_start().starts_with("include")) {
        return;
    }
    let vars = Vars {
        pagesize: 4096,
        mb_memory: 16384,
        ncpus: 8,
        env: &|k| (k == "SIZE").then(|| "1g".to_string()),
    };
    // No file exists, and every one that is asked for is 1 GiB: nothing on disk is looked at.
    let options = MapOptions {
        ignore_unsupported: data.first().is_some_and(|b| b & 1 == 1),
        allow_overwrite: false,
        keep: false,
        size_of: &|_| Some(1 << 30),
        exists: &|_| false,
        free_space_of: &|_| Some(1 << 30),
    };
    if let Ok(jobs) = read_str(text, "fuzz.fio", Path::new("/nonexistent"), &vars) {
        let _ = plan(&jobs, &options);
    }
    let args: Vec<String> = text.lines().map(String::from).collect();
    // fio's getopt_long_only forms (single dashes, abbreviations, one-letter options).
    let _ = iogauge::spec::fio::long_forms(&args, &[]);
    if let Ok(cl) = read_args(&args, &vars) {
        let _ = plan(&cl.jobs, &options);
    }
});
