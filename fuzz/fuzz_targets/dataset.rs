//! The dataset and workload readers: a size distribution as typed after --size-dist (first
//! line), and the rest as a histogram file and as a manifest; a spec that validates then gives
//! its files' paths and sizes. The whole text as a workload script (`--script`), the first
//! line as `--steps`. In memory only.
#![no_main]

use iogauge::dataset::manifest::Manifest;
use iogauge::dataset::{parse_histogram, SizeDist};
use iogauge::rng::Rng;
use iogauge::workload::script::{self, Defaults};
use iogauge::workload::{ArchiveFormat, CopyMethod, Params};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    // histogram: would read a file; its text is fuzzed below.
    if !first.starts_with("histogram") {
        if let Ok(d) = SizeDist::parse(first) {
            let mut rng = Rng::new(1, &[]);
            for _ in 0..4 {
                d.draw(&mut rng);
            }
        }
    }
    if let Ok(bins) = parse_histogram(rest) {
        let d = SizeDist::Histogram { bins };
        d.draw(&mut Rng::new(2, &[]));
    }
    let d = Defaults {
        threads: 2,
        method: CopyMethod::CopyFileRange,
        format: ArchiveFormat::Zip,
        level: None,
    };
    for (t, source) in [(text, "--script fuzz"), (first, "--steps")] {
        if let Ok(steps) = script::parse(t, source, &d) {
            let p = Params {
                workload: "mixed".into(),
                steps,
                repeat: 1,
                drop_caches: false,
                verify: true,
                compare_with_tools: false,
                interval_ns: 100_000_000,
            };
            if p.validate().is_ok() {
                let _: Vec<String> = p.steps.iter().map(|s| s.label()).collect();
            }
        }
    }
    if let Ok(m) = Manifest::parse(text, "fuzz") {
        m.total_bytes();
        m.checksum();
        if m.spec.validate().is_ok() {
            for i in 0..m.spec.files.min(4) {
                m.spec.file(i);
            }
        }
    }
});
