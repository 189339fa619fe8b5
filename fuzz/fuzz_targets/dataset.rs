//! The dataset readers: a size distribution as typed after --size-dist (first line), and the
//! rest as a histogram file and as a manifest; a spec that validates then gives its files'
//! paths and sizes. In memory only.
#![no_main]

use iogauge::dataset::manifest::Manifest;
use iogauge::dataset::{parse_histogram, SizeDist};
use iogauge::rng::Rng;
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
